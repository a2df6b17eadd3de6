/*
 * taskfile.c - tasks to and from JSON (taskfile.h).
 */
#include "taskfile.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../report/emit.h"
#include "../../rundir/files.h"
#include "../../rundir/manifest.h"
#include "../../toolcall/toolcall.h"
#include "../base/cli.h"

static const struct {
    const char *name;
    enum grader_rule_kind kind;
} kinds[] = {
    {"answer-line", GRADER_RULE_ANSWER_LINE},
    {"regex", GRADER_RULE_REGEX},
    {"boxed", GRADER_RULE_BOXED},
    {"choice", GRADER_RULE_CHOICE},
    {"last-digits", GRADER_RULE_LAST_DIGITS},
    {"ruler-all", GRADER_RULE_RULER_ALL},
    {"ruler-part", GRADER_RULE_RULER_PART},
    {"toolcall", GRADER_RULE_TOOLCALL},
    {"exec", GRADER_RULE_EXEC},
    {"exec-body", GRADER_RULE_EXEC_BODY},
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static const char *kind_name(enum grader_rule_kind k)
{
    for (size_t i = 0; i < NKINDS; i++)
        if (kinds[i].kind == k)
            return kinds[i].name;
    return "?";
}

/* The built-in names, for a message: "a, b, c". */
static void builtin_list(char *out, size_t size)
{
    size_t k = 0;
    const char *n;

    out[0] = '\0';
    for (size_t i = 0; (n = grader_task_builtin_name(i)) != NULL; i++) {
        int w = snprintf(out + k, size - k, "%s%s", i ? ", " : "", n);
        if (w < 0 || (size_t)w >= size - k)
            break;
        k += (size_t)w;
    }
}

/* One line into msg, "WHERE: ..."; returns -1 for the caller to return. */
static int say(char *msg, size_t msgsize, const char *where, const char *fmt,
               ...) __attribute__((format(printf, 4, 5)));
static int say(char *msg, size_t msgsize, const char *where, const char *fmt,
               ...)
{
    va_list ap;
    int k = snprintf(msg, msgsize, "%s: ", where);

    if (k > 0 && (size_t)k < msgsize) {
        va_start(ap, fmt);
        vsnprintf(msg + k, msgsize - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return -1;
}

#define BAD(...) return say(msg, msgsize, where, __VA_ARGS__)

/* The keys an object may have: the first unknown one, or NULL. */
static const char *unknown_key(const json_t *o, const char *const *allowed)
{
    const char *key;
    json_t *v;

    json_object_foreach((json_t *)o, key, v)
    {
        size_t i;
        (void)v;
        for (i = 0; allowed[i] && strcmp(allowed[i], key); i++)
            ;
        if (allowed[i] == NULL)
            return key;
    }
    return NULL;
}

/* A regex rule's own keys into t (rule_from_json's second half). */
static int regex_from_json(struct grader_task *t, const json_t *r,
                           const char *name, const char *where, char *msg,
                           size_t msgsize)
{
    const char *ignore[GRADER_RULE_MAX_IGNORE];
    json_t *pat = json_object_get(r, "pattern"),
           *gs = json_object_get(r, "group_select"),
           *fb = json_object_get(r, "fallback"),
           *ic = json_object_get(r, "ignore_case"),
           *ig = json_object_get(r, "ignore");
    char why[512];
    size_t n = 0;

    if (!json_is_string(pat))
        BAD("rule '%s': \"pattern\" must be a string", name);
    if (gs != NULL && !json_is_integer(gs))
        BAD("rule '%s': \"group_select\" must be an integer", name);
    if (fb != NULL && !json_is_string(fb))
        BAD("rule '%s': \"fallback\" must be a string", name);
    if (ic != NULL && !json_is_boolean(ic))
        BAD("rule '%s': \"ignore_case\" must be true or false", name);
    if (ig != NULL) {
        if (!json_is_array(ig) || json_array_size(ig) > GRADER_RULE_MAX_IGNORE)
            BAD("rule '%s': \"ignore\" must be a list of at most %d "
                "patterns",
                name, GRADER_RULE_MAX_IGNORE);
        for (n = 0; n < json_array_size(ig); n++)
            if ((ignore[n] = json_string_value(json_array_get(ig, n))) == NULL)
                BAD("rule '%s': \"ignore\"[%zu] must be a string", name, n);
    }
    if (grader_task_add_regex(t, name, json_string_value(pat),
                              gs ? (long)json_integer_value(gs) : 0,
                              fb ? json_string_value(fb) : "[invalid]", ignore,
                              n, json_is_true(ic), why, sizeof(why)) != 0)
        BAD("%s", why);
    return 0;
}

/* Rule i of a task file into t. 0, or -1 with msg. */
static int rule_from_json(struct grader_task *t, const json_t *r, size_t i,
                          const char *where, char *msg, size_t msgsize)
{
    static const char *const keys[] = {"name",         "kind",     "pattern",
                                       "group_select", "fallback", "ignore",
                                       "ignore_case",  NULL};
    const char *name, *kind, *bad;
    char why[512];
    size_t k;

    if (!json_is_object(r))
        BAD("\"rules\"[%zu] must be an object", i);
    if ((bad = unknown_key(r, keys)) != NULL)
        BAD("\"rules\"[%zu] has an unknown key '%s'", i, bad);
    name = json_string_value(json_object_get(r, "name"));
    kind = json_string_value(json_object_get(r, "kind"));
    if (name == NULL || kind == NULL)
        BAD("\"rules\"[%zu] needs a \"name\" and a \"kind\" (strings)", i);
    for (k = 0; k < NKINDS && strcmp(kinds[k].name, kind); k++)
        ;
    if (k == NKINDS)
        BAD("rule '%s': kind '%s' is not one of answer-line, regex, boxed, "
            "choice, last-digits",
            name, kind);
    if (kinds[k].kind == GRADER_RULE_REGEX)
        return regex_from_json(t, r, name, where, msg, msgsize);
    if (json_object_size(r) > 2)
        BAD("rule '%s': only a regex rule takes more than a name and a kind",
            name);
    if (grader_task_add_rule(t, name, kinds[k].kind, why, sizeof(why)))
        BAD("%s", why);
    return 0;
}

/* The task's keys but its name and reference into t. 0, or -1. */
static int fill(struct grader_task *t, const json_t *def, const char *where,
                char *msg, size_t msgsize)
{
    json_t *v;
    char why[512];
    size_t i;

    if ((v = json_object_get(def, "prompt")) != NULL) {
        if (!json_is_string(v))
            BAD("\"prompt\" must be a string");
        if (grader_task_set_prompt(t, json_string_value(v), why, sizeof(why)))
            BAD("%s", why);
    }
    if ((v = json_object_get(def, "stop")) != NULL) {
        if (!json_is_array(v))
            BAD("\"stop\" must be a list of strings");
        for (i = 0; i < json_array_size(v); i++) {
            const char *s = json_string_value(json_array_get(v, i));
            if (s == NULL)
                BAD("\"stop\"[%zu] must be a string", i);
            if (grader_task_add_stop(t, s, why, sizeof(why)))
                BAD("%s", why);
        }
    }
    if ((v = json_object_get(def, "max_tokens")) != NULL) {
        if (!json_is_integer(v) || json_integer_value(v) < 1 ||
            json_integer_value(v) > 2147483647)
            BAD("\"max_tokens\" must be an integer from 1 to 2147483647");
        grader_task_set_max_tokens(t, (long)json_integer_value(v));
    }
    /* how it is asked (docs/code.md, "Completion style") */
    if ((v = json_object_get(def, "endpoint")) != NULL) {
        const char *e = json_string_value(v);
        if (e == NULL || (strcmp(e, "chat") && strcmp(e, "completions")))
            BAD("\"endpoint\" must be \"chat\" or \"completions\"");
        grader_task_set_completions(t, strcmp(e, "completions") == 0);
    }
    v = json_object_get(def, "rules");
    if (!json_is_array(v) || json_array_size(v) == 0)
        BAD("\"rules\" must be a list of at least one rule");
    for (i = 0; i < json_array_size(v); i++)
        if (rule_from_json(t, json_array_get(v, i), i, where, msg, msgsize))
            return -1;
    return 0;
}

/* A task file's "reference" (absent: numbers). */
static enum grader_ref_kind ref_kind(const char *ref)
{
    if (ref != NULL && strcmp(ref, "letter") == 0)
        return GRADER_REF_LETTER;
    if (ref != NULL && strcmp(ref, "answers") == 0)
        return GRADER_REF_ANSWERS;
    if (ref != NULL && strcmp(ref, "calls") == 0)
        return GRADER_REF_CALLS;
    if (ref != NULL && strcmp(ref, "code") == 0)
        return GRADER_REF_CODE;
    return GRADER_REF_NUMBER;
}

struct grader_task *taskfile_from_json(const json_t *def, const char *where,
                                       char *msg, size_t msgsize)
{
    static const char *const keys[] = {
        "name",  "reference", "prompt", "stop",     "max_tokens",
        "rules", "$schema",   "about",  "endpoint", NULL};
    struct grader_task *t;
    const char *name, *ref, *bad;

    if (!json_is_object(def)) {
        say(msg, msgsize, where, "a task must be a JSON object");
        return NULL;
    }
    name = json_string_value(json_object_get(def, "name"));
    ref = json_string_value(json_object_get(def, "reference"));
    if ((bad = unknown_key(def, keys)) != NULL)
        say(msg, msgsize, where, "unknown key '%s'", bad);
    else if (name == NULL)
        say(msg, msgsize, where, "\"name\" must be a string");
    else if (json_object_get(def, "reference") != NULL &&
             (ref == NULL || (strcmp(ref, "number") && strcmp(ref, "letter") &&
                              strcmp(ref, "answers") && strcmp(ref, "calls") &&
                              strcmp(ref, "code"))))
        say(msg, msgsize, where,
            "\"reference\" must be \"number\", \"letter\", \"answers\", "
            "\"calls\" or \"code\"");
    else if ((t = grader_task_new(name, ref_kind(ref))) == NULL)
        say(msg, msgsize, where, "\"name\" must be 1 to %d bytes",
            GRADER_TASK_NAME_MAX - 1);
    else if (fill(t, def, where, msg, msgsize) != 0)
        grader_task_free(t);
    else
        return t;
    return NULL;
}

#undef BAD

json_t *taskfile_to_json(const struct grader_task *t)
{
    json_t *o = json_object(), *rules = json_array(), *stops = json_array();
    struct grader_regex_rule rx;
    int bad = o == NULL || rules == NULL || stops == NULL;

    for (size_t i = 0; !bad && i < grader_task_nstops(t); i++)
        bad |=
            json_array_append_new(stops, json_string(grader_task_stop(t, i)));
    for (size_t i = 0; !bad && i < grader_task_nrules(t); i++) {
        json_t *r = json_pack("{s:s,s:s}", "name", grader_task_rule_name(t, i),
                              "kind", kind_name(grader_task_rule_kind(t, i)));
        if (r != NULL && grader_task_rule_regex(t, i, &rx) == 0) {
            json_t *ig = json_array();
            for (size_t k = 0; ig != NULL && k < rx.nignore; k++)
                json_array_append_new(ig, json_string(rx.ignore[k]));
            bad |= json_object_set_new(r, "pattern", json_string(rx.pattern));
            bad |= json_object_set_new(r, "group_select",
                                       json_integer(rx.group_select));
            bad |=
                json_object_set_new(r, "fallback", json_string(rx.fallback));
            bad |= json_object_set_new(r, "ignore", ig);
            bad |= json_object_set_new(r, "ignore_case",
                                       json_boolean(rx.ignore_case));
        }
        bad |= r == NULL || json_array_append_new(rules, r);
    }
    if (!bad) {
        bad |=
            json_object_set_new(o, "name", json_string(grader_task_name(t)));
        bad |= json_object_set_new(
            o, "reference",
            json_string(grader_task_ref(t) == GRADER_REF_LETTER    ? "letter"
                        : grader_task_ref(t) == GRADER_REF_ANSWERS ? "answers"
                        : grader_task_ref(t) == GRADER_REF_CALLS   ? "calls"
                        : grader_task_ref(t) == GRADER_REF_CODE    ? "code"
                                                                : "number"));
        if (grader_task_prompt(t) != NULL)
            bad |= json_object_set_new(o, "prompt",
                                       json_string(grader_task_prompt(t)));
        bad |= json_object_set(o, "stop", stops);
        if (grader_task_max_tokens(t) > 0)
            bad |= json_object_set_new(
                o, "max_tokens", json_integer(grader_task_max_tokens(t)));
        /* chat, the default, unwritten: a task's record is as before */
        if (grader_task_completions(t))
            bad |=
                json_object_set_new(o, "endpoint", json_string("completions"));
        bad |= json_object_set(o, "rules", rules);
    }
    json_decref(rules);
    json_decref(stops);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

struct grader_task *taskfile_load(const char *spec, char *msg, size_t msgsize)
{
    size_t n = strlen(spec);
    struct grader_task *t;
    json_error_t jerr;
    json_t *def;
    char names[512];
    int rc;

    if (strchr(spec, '/') == NULL &&
        (n < 5 || strcmp(spec + n - 5, ".json"))) {
        if ((t = grader_task_builtin(spec, &rc)) != NULL)
            return t;
        builtin_list(names, sizeof(names));
        snprintf(msg, msgsize,
                 rc == GRADER_ENOMEM
                     ? "out of memory"
                     : "no built-in task '%s' (built in: %s; or give a task "
                       "file's path)",
                 spec, names);
        return NULL;
    }
    def = files_json_load(spec, 0, JSON_REJECT_DUPLICATES, &jerr);
    if (def == NULL && jerr.line < 1) { /* the file itself */
        snprintf(msg, msgsize, "cannot read task file '%s': %s", spec,
                 jerr.text);
        return NULL;
    }
    if (def == NULL) {
        snprintf(msg, msgsize, "%s:%d: %s", spec, jerr.line, jerr.text);
        return NULL;
    }
    t = taskfile_from_json(def, spec, msg, msgsize);
    json_decref(def);
    return t;
}

struct grader_task *taskfile_from_manifest(const json_t *manifest,
                                           const char *where, char *msg,
                                           size_t msgsize)
{
    const json_t *def = manifest_task(manifest);
    int rc;

    if (def == NULL) {
        struct grader_task *t = grader_task_builtin(TASKFILE_DEFAULT, &rc);
        if (t == NULL)
            snprintf(msg, msgsize, "out of memory");
        return t;
    }
    return taskfile_from_json(def, where, msg, msgsize);
}

json_t *taskfile_grades(const struct grader_task *t, const char *text,
                        size_t len, const char *ref, json_t **extracted,
                        int *right)
{
    return taskfile_grades_until(t, text, len, ref, NULL, extracted, right,
                                 NULL);
}

/* What taskfile_grades_until returns when stopped: NULL, nothing kept. */
static json_t *grades_stopped(json_t *grades, json_t **extracted)
{
    pyre_cancel_on(NULL);
    json_decref(grades);
    json_decref(*extracted);
    *extracted = NULL;
    return NULL;
}

/* Rule i of t on one reply into g: 0, GRADER_ELIMIT, or another error
 * (no grade; a tool-call rule's refusal of its item in *why). */
static int grade_rule(const struct grader_task *t, size_t i, const char *text,
                      size_t len, const char *ref,
                      const struct grader_reply *calls,
                      const struct grader_num *canon, struct grader_grade *g,
                      char *why, size_t whysize)
{
    enum grader_rule_kind kind = grader_task_rule_kind(t, i);

    why[0] = '\0';
    if (kind == GRADER_RULE_EXEC || kind == GRADER_RULE_EXEC_BODY)
        return calls == NULL || calls->exec == NULL
                   ? -1
                   : grader_task_grade_exec(t, i, calls, g, why, whysize);
    if (kind == GRADER_RULE_TOOLCALL)
        return calls == NULL
                   ? -1
                   : grader_task_grade_calls(t, i, calls, ref, strlen(ref), g,
                                             why, whysize);
    return text == NULL ? -1
                        : grader_task_grade(t, i, text, len, ref, strlen(ref),
                                            canon, g);
}

/* A grade's bucket in words: a code rule's outcome, a tool-call rule's
 * failure. */
static const char *bucket_name(const struct grader_task *t, size_t i,
                               int bucket)
{
    enum grader_rule_kind kind = grader_task_rule_kind(t, i);

    if (kind == GRADER_RULE_EXEC || kind == GRADER_RULE_EXEC_BODY)
        return grader_exec_name(bucket);
    return toolcall_bucket_name((enum toolcall_bucket)bucket);
}

json_t *taskfile_grades_until(const struct grader_task *t, const char *text,
                              size_t len, const char *ref,
                              const struct grader_reply *calls,
                              json_t **extracted, int *right,
                              const atomic_int *stop)
{
    char why[300];
    json_t *grades = json_object();
    struct grader_num canon;
    struct grader_grade g;

    *extracted = json_null();
    *right = 0;
    grader_task_ref_parse(t, ref, strlen(ref), &canon);
    /* a stop ends a rule's search too, not only the gap between rules
     * (pyre_cancel_on); a rule cut short by it is no grade */
    pyre_cancel_on(stop);
    for (size_t i = 0; grades != NULL && i < grader_task_nrules(t); i++) {
        json_t *one;
        int rc;

        if (stop != NULL && atomic_load(stop))
            return grades_stopped(grades, extracted);
        rc = grade_rule(t, i, text, len, ref, calls, &canon, &g, why,
                        sizeof(why));
        if (rc == GRADER_ELIMIT && stop != NULL && atomic_load(stop))
            return grades_stopped(grades, extracted);
        if (rc == GRADER_ENOMEM)
            util_oom("grading");
        /* an error row: no grade; a pattern over its budget: g is the
         * rule's fallback grade, and the row says why */
        if (rc != 0 && rc != GRADER_ELIMIT)
            g.said = g.right = 0, g.extracted[0] = '\0', g.bucket = -1;
        if (i == 0) {
            *right = g.right;
            *extracted =
                !g.said ? json_null()
                : grader_task_rule_kind(t, 0) == GRADER_RULE_ANSWER_LINE
                    ? emit_number(g.extracted)
                    : json_string(g.extracted);
        }
        one = json_pack("{s:o,s:b}", "extracted",
                        g.said ? json_string(g.extracted) : json_null(),
                        "right", g.right);
        if (one == NULL ||
            (rc == GRADER_ELIMIT &&
             json_object_set_new(one, "error", json_string("step limit"))) ||
            (why[0] != '\0' &&
             json_object_set_new(one, "error", json_string(why))) ||
            (rc == 0 && g.bucket >= 0 &&
             json_object_set_new(one, "bucket",
                                 json_string(bucket_name(t, i, g.bucket)))) ||
            json_object_set_new(grades, grader_task_rule_name(t, i), one) != 0)
            util_oom("a row");
    }
    pyre_cancel_on(NULL);
    if (grades == NULL)
        util_oom("a row");
    return grades;
}
