/*
 * bfclitem.c - a line of BFCL's data files as a tool item, its possible
 * answers from the sibling file (bfclitem.h).
 */
#include "bfclitem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "../../rundir/files.h"
#include "../../util/util.h"
#include "toolitem.h"

#define LINE_MAX_BYTES (1u << 20) /* a line of either file */
#define SCHEMA_DEPTH   64         /* nesting converted, no deeper */
#define PATH_BYTES     4096

struct bfclitem_answers {
    char path[PATH_BYTES]; /* the possible answers' file, for messages */
    int none;              /* no file: no call is right (irrelevance) */
    json_t *by_id;         /* id: [line from 1, ground_truth] */
};

static json_t *need(json_t *v)
{
    if (v == NULL)
        util_oom("a BFCL item");
    return v;
}

/* Whether v is an id as every question file's: 1 to GRADER_ID_MAX bytes. */
static int id_ok(const json_t *v)
{
    return json_is_string(v) && json_string_length(v) > 0 &&
           json_string_length(v) <= GRADER_ID_MAX;
}

/* The sibling possible_answer/NAME of question file path into out;
 * -1 when it does not fit. */
static int answers_path(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    int n;

    if (slash == NULL)
        n = snprintf(out, size, "possible_answer/%s", path);
    else
        n = snprintf(out, size, "%.*s/possible_answer/%s", (int)(slash - path),
                     path, slash + 1);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* Why a ground truth is refused, or NULL: a list of calls
 * {"FUNCTION": {"ARG": [VALUES...]}} (why names the item). */
static const char *truth_bad(const json_t *gt, char *why, size_t whysize)
{
    size_t i;
    json_t *call;

    if (!json_is_array(gt))
        return "\"ground_truth\" must be a list of calls "
               "({\"FUNCTION\": {\"ARG\": [VALUES...]}})";
    json_array_foreach(gt, i, call)
    {
        if (toolitem_call_name(call) == NULL) {
            snprintf(why, whysize,
                     "\"ground_truth\" item %zu must be {\"FUNCTION\": "
                     "{\"ARG\": [VALUES...]}}",
                     i + 1);
            return why;
        }
    }
    return NULL;
}

/* One line of the possible answers (line from 1) into a; -1 with msg. */
static int answers_line(struct bfclitem_answers *a, long line,
                        const char *text, size_t len, char *msg,
                        size_t msgsize)
{
    json_error_t jerr;
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    json_t *id = json_object_get(o, "id");
    json_t *gt = json_object_get(o, "ground_truth");
    const char *bad = NULL;
    char why[200];

    if (!json_is_object(o))
        bad = o ? "not a JSON object" : jerr.text;
    else if (!id_ok(id))
        bad = "\"id\" must be a non-empty string of at most 256 bytes";
    else if (json_object_get(a->by_id, json_string_value(id)) != NULL) {
        snprintf(why, sizeof(why), "possible answers for '%s' again",
                 json_string_value(id));
        bad = why;
    } else if (json_object_size(a->by_id) >= BFCLITEM_ANSWERS_MAX) {
        snprintf(why, sizeof(why), "more than %d possible answers",
                 BFCLITEM_ANSWERS_MAX);
        bad = why;
    } else
        bad = truth_bad(gt, why, sizeof(why));
    if (bad == NULL &&
        json_object_set_new(a->by_id, json_string_value(id),
                            need(json_pack("[I O]", (json_int_t)line, gt))))
        util_oom("possible answers");
    if (bad != NULL)
        snprintf(msg, msgsize, "%s:%ld: %s", a->path, line, bad);
    json_decref(o);
    return bad == NULL ? 0 : -1;
}

/* Every line of a's file, opened as f; -1 with msg. */
static int answers_read(struct bfclitem_answers *a, FILE *f, char *msg,
                        size_t msgsize)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    long n = 0, bytes = 0;
    int rc = 0;

    while (rc == 0 && (got = getline(&line, &cap, f)) >= 0) {
        n++;
        bytes += (long)got;
        if ((size_t)got > LINE_MAX_BYTES) {
            snprintf(msg, msgsize, "%s:%ld: line longer than %u bytes",
                     a->path, n, LINE_MAX_BYTES);
            rc = -1;
        } else if (bytes > BFCLITEM_ANSWERS_BYTES) {
            snprintf(msg, msgsize, "%s:%ld: possible answers over %ld bytes",
                     a->path, n, BFCLITEM_ANSWERS_BYTES);
            rc = -1;
        } else if (strspn(line, " \t\r\n") != (size_t)got)
            rc = answers_line(a, n, line, (size_t)got, msg, msgsize);
    }
    if (rc == 0 && ferror(f)) {
        snprintf(msg, msgsize, "cannot read '%s': %s", a->path,
                 strerror(errno));
        rc = -1;
    }
    free(line);
    return rc;
}

int bfclitem_answers_load(const char *path, struct bfclitem_answers **out,
                          char *msg, size_t msgsize)
{
    struct bfclitem_answers *a = xrealloc(NULL, sizeof(*a));
    const char *name = strrchr(path, '/');
    char why[PATH_BYTES + 100];
    FILE *f;
    int rc;

    *out = NULL;
    memset(a, 0, sizeof(*a));
    a->by_id = need(json_object());
    if (answers_path(path, a->path, sizeof(a->path)) != 0) {
        snprintf(msg, msgsize, "%s: a path too long for its possible answers",
                 path);
        bfclitem_answers_free(a);
        return -1;
    }
    name = name ? name + 1 : path;
    if (access(a->path, F_OK) != 0 && errno == ENOENT &&
        strstr(name, "irrelevance") != NULL) {
        a->none = 1; /* BFCL's irrelevance: no call is right */
        *out = a;
        return 0;
    }
    if ((f = files_fopen_read(a->path, 0, why, sizeof(why))) == NULL) {
        snprintf(msg, msgsize,
                 "%s (the possible answers of BFCL's '%s'; only an "
                 "irrelevance file has none)",
                 why, path);
        bfclitem_answers_free(a);
        return -1;
    }
    rc = answers_read(a, f, msg, msgsize);
    fclose(f);
    if (rc != 0) {
        bfclitem_answers_free(a);
        return -1;
    }
    *out = a;
    return 0;
}

void bfclitem_answers_free(struct bfclitem_answers *a)
{
    if (a == NULL)
        return;
    json_decref(a->by_id);
    free(a);
}

/* The question's text: the one user message of its one turn, or why
 * not in why (NULL return). */
static const char *question_text(const json_t *q, char *why, size_t whysize)
{
    json_t *turn = json_array_get(q, 0), *m, *first;
    const char *role, *text;
    size_t i;

    if (!json_is_array(q) || json_array_size(q) == 0) {
        snprintf(why, whysize,
                 "\"question\" must be a list of turn lists "
                 "(BFCL's [[{\"role\": \"user\", "
                 "\"content\": ...}]])");
        return NULL;
    }
    json_array_foreach(q, i, m)
    {
        if (!json_is_array(m)) {
            snprintf(why, whysize,
                     "\"question\" must be a list of turn "
                     "lists (BFCL's [[{\"role\": \"user\", "
                     "\"content\": ...}]])");
            return NULL;
        }
    }
    if (json_array_size(q) > 1) {
        snprintf(why, whysize,
                 "\"question\" holds %zu turns: a multi-turn item "
                 "(graveyard asks one question)",
                 json_array_size(q));
        return NULL;
    }
    json_array_foreach(turn, i, m)
    {
        role = json_string_value(json_object_get(m, "role"));
        if (role != NULL && strcmp(role, "system") == 0) {
            snprintf(why, whysize,
                     "\"question\" turn 1 has a \"system\" message, which "
                     "graveyard does not send (it asks one user message)");
            return NULL;
        }
    }
    if (json_array_size(turn) > 1) {
        snprintf(why, whysize,
                 "\"question\" turn 1 holds %zu messages: graveyard asks "
                 "one user message, not a conversation",
                 json_array_size(turn));
        return NULL;
    }
    first = json_array_get(turn, 0);
    role = json_string_value(json_object_get(first, "role"));
    text = json_string_value(json_object_get(first, "content"));
    if (role == NULL || strcmp(role, "user") != 0 || text == NULL ||
        text[0] == '\0') {
        snprintf(why, whysize,
                 "\"question\" turn 1 is not one user message "
                 "with text (\"role\": \"user\", "
                 "\"content\")");
        return NULL;
    }
    return text;
}

/* A BFCL type as OpenAPI's (GORILLA_TO_OPENAPI); "string" for another. */
static const char *openapi_type(const char *t)
{
    static const char *const map[][2] = {
        {"integer", "integer"},  {"number", "number"},
        {"float", "number"},     {"string", "string"},
        {"boolean", "boolean"},  {"bool", "boolean"},
        {"array", "array"},      {"list", "array"},
        {"dict", "object"},      {"object", "object"},
        {"tuple", "array"},      {"any", "string"},
        {"byte", "integer"},     {"short", "integer"},
        {"long", "integer"},     {"double", "number"},
        {"char", "string"},      {"ArrayList", "array"},
        {"Array", "array"},      {"HashMap", "object"},
        {"Hashtable", "object"}, {"Queue", "array"},
        {"Stack", "array"},      {"Any", "string"},
        {"String", "string"},    {"Bigint", "integer"},
    };
    for (size_t i = 0; t != NULL && i < sizeof(map) / sizeof(map[0]); i++)
        if (strcmp(t, map[i][0]) == 0)
            return map[i][1];
    return "string";
}

/* Schema s converted in place as BFCL's _cast_to_openai_type converts a
 * property (property set) or a list's items: its type mapped (a
 * property's absent one "string"), a property's "float" given
 * "format": "float" and BFCL's words, nested properties and items too. */
static void convert_schema(json_t *s, int property, int depth)
{
    json_t *type = json_object_get(s, "type"), *props, *v;
    const char *t = json_string_value(type), *key;

    if (!json_is_object(s) || depth > SCHEMA_DEPTH)
        return;
    if (property && t != NULL && strcmp(t, "float") == 0) {
        const char *d = json_string_value(json_object_get(s, "description"));
        char *words = xrealloc(NULL, (d ? strlen(d) : 0) + 40);
        sprintf(words, "%s%sThis is a float type value.", d ? d : "",
                d ? " " : "");
        if (json_object_set_new(s, "description", need(json_string(words))))
            util_oom("a BFCL item");
        free(words);
        if (json_object_set_new(s, "format", need(json_string("float"))))
            util_oom("a BFCL item");
    }
    if ((type != NULL || property) &&
        json_object_set_new(s, "type", need(json_string(openapi_type(t)))))
        util_oom("a BFCL item");
    props = json_object_get(s, "properties");
    if (json_is_object(props))
        json_object_foreach(props, key, v) convert_schema(v, 1, depth + 1);
    convert_schema(json_object_get(s, "items"), 0, depth + 1);
}

/* name with each "." read as "_" (new). */
static char *openai_name(const char *name)
{
    char *s = xstrdup(name);

    for (char *p = s; *p; p++)
        if (*p == '.')
            *p = '_';
    return s;
}

/* The functions of a BFCL line as OpenAI tools (new), or NULL with why. */
static json_t *convert_tools(const json_t *fns, char *why, size_t whysize)
{
    json_t *tools = need(json_array()), *f;
    size_t i;

    if (!json_is_array(fns) || json_array_size(fns) == 0 ||
        json_array_size(fns) > TOOLITEM_TOOLS_MAX) {
        snprintf(why, whysize,
                 "\"function\" must be a list of 1 to %d functions",
                 TOOLITEM_TOOLS_MAX);
        json_decref(tools);
        return NULL;
    }
    json_array_foreach(fns, i, f)
    {
        const char *name = json_string_value(json_object_get(f, "name"));
        json_t *c, *params, *prop;
        const char *key;
        char *n;

        if (name == NULL || name[0] == '\0' ||
            !json_is_object(json_object_get(f, "parameters"))) {
            snprintf(why, whysize,
                     name == NULL || name[0] == '\0'
                         ? "\"function\" item %zu has no \"name\""
                         : "\"function\" item %zu: \"parameters\" must be a "
                           "JSON object",
                     i + 1);
            json_decref(tools);
            return NULL;
        }
        c = need(json_deep_copy(f));
        n = openai_name(name);
        params = json_object_get(c, "parameters");
        if (json_object_set_new(c, "name", need(json_string(n))) ||
            json_object_set_new(params, "type", need(json_string("object"))))
            util_oom("a BFCL item");
        free(n);
        json_object_foreach(json_object_get(params, "properties"), key, prop)
            convert_schema(prop, 1, 1);
        if (json_array_append_new(tools,
                                  need(json_pack("{s:s, s:o}", "type",
                                                 "function", "function", c))))
            util_oom("a BFCL item");
    }
    return tools;
}

/* Item id's possible answers from a, names read as in tools (new), or
 * NULL with msg (naming the answers' file and line). */
static json_t *convert_possible(const struct bfclitem_answers *a,
                                const char *path, long line, const char *id,
                                const json_t *tools, char *msg, size_t msgsize)
{
    json_t *entry = json_object_get(a->by_id, id), *out, *call;
    long aline = (long)json_integer_value(json_array_get(entry, 0));
    size_t i;

    if (a->none)
        return need(json_array());
    if (entry == NULL) {
        snprintf(msg, msgsize, "%s:%ld: '%s' has no possible answers in '%s'",
                 path, line + 1, id, a->path);
        return NULL;
    }
    out = need(json_array());
    json_array_foreach(json_array_get(entry, 1), i, call)
    {
        void *it = json_object_iter(call);
        char *n = openai_name(json_object_iter_key(it));
        if (!toolitem_offers(tools, n)) {
            snprintf(msg, msgsize,
                     "%s:%ld: \"ground_truth\" item %zu names '%.64s', which "
                     "is not one of '%s''s \"function\"s",
                     a->path, aline, i + 1, json_object_iter_key(it), id);
            free(n);
            json_decref(out);
            return NULL;
        }
        if (json_array_append_new(
                out, need(json_pack("{s:O}", n, json_object_iter_value(it)))))
            util_oom("a BFCL item");
        free(n);
    }
    return out;
}

/* Why the id is refused, or NULL: BFCL's Java and JavaScript items are
 * graded by their languages' rules, which the checker has not. */
static const char *id_refused(const json_t *id, char *why, size_t whysize)
{
    const char *s = json_string_value(id);

    if (!id_ok(id))
        return "\"id\" must be a non-empty string of at most 256 bytes";
    if (strncmp(s, "simple_java", 11) != 0)
        return NULL;
    snprintf(why, whysize,
             "'%s' is a %s item: BFCL grades its values as source text of "
             "that language, which the checker does not (docs/toolcalls.md)",
             s,
             strncmp(s, "simple_javascript", 17) == 0 ? "JavaScript" : "Java");
    return why;
}

int bfclitem_read(const char *path, long line, const json_t *o,
                  struct bfclitem_answers *a, struct bfclitem *it, char *msg,
                  size_t msgsize)
{
    json_t *id = json_object_get(o, "id"), *tools = NULL, *possible = NULL;
    json_t *item;
    const char *text = NULL, *bad = NULL;
    char why[400];

    memset(it, 0, sizeof(*it));
    if ((bad = id_refused(id, why, sizeof(why))) == NULL &&
        (text = question_text(json_object_get(o, "question"), why,
                              sizeof(why))) == NULL)
        bad = why;
    if (bad == NULL && (tools = convert_tools(json_object_get(o, "function"),
                                              why, sizeof(why))) == NULL)
        bad = why;
    if (bad != NULL) {
        snprintf(msg, msgsize, "%s:%ld: %s", path, line + 1, bad);
        return -1;
    }
    possible = convert_possible(a, path, line, json_string_value(id), tools,
                                msg, msgsize);
    if (possible == NULL) {
        json_decref(tools);
        return -1;
    }
    item = need(json_pack("{s:o, s:o}", "tools", tools, "possible", possible));
    if (toolitem_read(item, &it->tool, why, sizeof(why)) != 0) {
        snprintf(msg, msgsize, "%s:%ld: %s%s", path, line + 1, why,
                 strncmp(why, "\"tools\"", 7) == 0
                     ? " (BFCL's \"function\" as sent: \".\" read as \"_\")"
                     : "");
        json_decref(item);
        return -1;
    }
    json_decref(item);
    it->id = xstrdup(json_string_value(id));
    it->text = xstrdup(text);
    return 0;
}

void bfclitem_release(struct bfclitem *it)
{
    free(it->id);
    free(it->text);
    free(it->tool.tools);
    free(it->tool.tool_choice);
    free(it->tool.possible);
    memset(it, 0, sizeof(*it));
}
