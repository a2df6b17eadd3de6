/*
 * toolitem.c - a tool item's tools, tool_choice and possible answers
 * (toolitem.h).
 */
#include "toolitem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/util.h"

/* Whether s is a function name OpenAI takes: 1 to 64 of [A-Za-z0-9_.-]. */
static int tool_name_ok(const json_t *v)
{
    const char *s = json_string_value(v);
    size_t n = s ? json_string_length(v) : 0;

    if (n == 0 || n > TOOLITEM_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '.' ||
              s[i] == '-'))
            return 0;
    return 1;
}

const char *toolitem_call_name(const json_t *call)
{
    const char *fname, *arg;
    json_t *args, *v;
    int shaped = json_is_object(call) && json_object_size(call) == 1;

    fname =
        shaped ? json_object_iter_key(json_object_iter((json_t *)call)) : NULL;
    args = shaped ? json_object_get(call, fname) : NULL;
    shaped = json_is_object(args);
    json_object_foreach(args, arg, v) shaped &= json_is_array(v);
    return shaped ? fname : NULL;
}

int toolitem_offers(const json_t *tools, const char *name)
{
    size_t i;
    json_t *t;

    json_array_foreach(tools, i, t)
    {
        const char *n = json_string_value(
            json_object_get(json_object_get(t, "function"), "name"));
        if (n != NULL && strcmp(n, name) == 0)
            return 1;
    }
    return 0;
}

/* Whether "tools" is refused (-1, why says why) or not (0): 1 to
 * TOOLITEM_TOOLS_MAX OpenAI function schemas
 * ({"type": "function", "function": {"name", "description",
 * "parameters"}}), each name well formed and offered once. */
static int tools_bad(const json_t *tools, char *why, size_t whysize)
{
    size_t i;
    json_t *t;

    if (!json_is_array(tools) || json_array_size(tools) == 0 ||
        json_array_size(tools) > TOOLITEM_TOOLS_MAX) {
        snprintf(why, whysize, "\"tools\" must be a list of 1 to %d functions",
                 TOOLITEM_TOOLS_MAX);
        return -1;
    }
    json_array_foreach(tools, i, t)
    {
        json_t *type = json_object_get(t, "type"), *f;
        json_t *params, *name;
        const char *bad = NULL;

        f = json_object_get(t, "function");
        params = json_object_get(f, "parameters");
        name = json_object_get(f, "name");
        if (!json_is_object(t))
            bad = "is not a JSON object";
        else if (!json_is_object(f))
            bad = "has no \"function\" object";
        else if (type != NULL && (!json_is_string(type) ||
                                  strcmp(json_string_value(type), "function")))
            bad = ": \"type\" must be \"function\"";
        else if (!tool_name_ok(name))
            bad = ": \"function\".\"name\" must be 1 to 64 of A-Z a-z 0-9 _ "
                  ". -";
        else if (params != NULL && !json_is_object(params))
            bad = ": \"function\".\"parameters\" must be a JSON object";
        if (bad != NULL) {
            snprintf(why, whysize, "\"tools\" item %zu%s%s", i + 1,
                     bad[0] == ':' ? "" : " ", bad);
            return -1;
        }
        /* earlier ones are checked: a name offered twice is ambiguous */
        for (size_t j = 0; j < i; j++)
            if (strcmp(
                    json_string_value(json_object_get(
                        json_object_get(json_array_get(tools, j), "function"),
                        "name")),
                    json_string_value(name)) == 0) {
                snprintf(why, whysize, "\"tools\" item %zu names '%s' again",
                         i + 1, json_string_value(name));
                return -1;
            }
    }
    return 0;
}

/* Whether "tool_choice" (NULL: none) is refused (-1, with why) or not (0):
 * "auto", "required", "none", or {"type": "function", "function": {"name"}}
 * naming one of tools. */
static int tool_choice_bad(const json_t *c, const json_t *tools, char *why,
                           size_t whysize)
{
    const char *s = json_string_value(c), *name;
    json_t *type = json_object_get(c, "type");

    if (c == NULL ||
        (s != NULL && (strcmp(s, "auto") == 0 || strcmp(s, "required") == 0 ||
                       strcmp(s, "none") == 0)))
        return 0;
    name = json_string_value(
        json_object_get(json_object_get(c, "function"), "name"));
    if (!json_is_object(c) || !json_is_string(type) ||
        strcmp(json_string_value(type), "function") != 0 || name == NULL) {
        snprintf(why, whysize,
                 "\"tool_choice\" must be \"auto\", \"required\", \"none\" "
                 "or {\"type\": \"function\", \"function\": {\"name\": "
                 "...}}");
        return -1;
    }
    if (!toolitem_offers(tools, name)) {
        snprintf(why, whysize,
                 "\"tool_choice\" names '%.64s', which is not in \"tools\"",
                 name);
        return -1;
    }
    return 0;
}

/* Whether "possible" is refused (-1, with why) or not (0): BFCL's possible
 * answers, a list of calls {"FUNCTION": {"ARG": [accepted values...]}} ([]
 * when no call is right), each function one of tools. */
static int possible_bad(const json_t *p, const json_t *tools, char *why,
                        size_t whysize)
{
    size_t i;
    json_t *call;

    if (!json_is_array(p)) {
        snprintf(why, whysize,
                 "\"possible\" must be a list of calls (BFCL's possible "
                 "answers; [] when no call is right)");
        return -1;
    }
    json_array_foreach(p, i, call)
    {
        const char *fname = toolitem_call_name(call);

        if (fname == NULL) {
            snprintf(why, whysize,
                     "\"possible\" item %zu must be {\"FUNCTION\": {\"ARG\": "
                     "[VALUES...]}}",
                     i + 1);
            return -1;
        }
        if (!toolitem_offers(tools, fname)) {
            snprintf(why, whysize,
                     "\"possible\" item %zu names '%.64s', which is not in "
                     "\"tools\"",
                     i + 1, fname);
            return -1;
        }
    }
    return 0;
}

static char *compact(const json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

    if (s == NULL)
        util_oom("a tool item");
    return s;
}

int toolitem_read(const json_t *o, struct toolitem *it, char *why,
                  size_t whysize)
{
    json_t *tools = json_object_get(o, "tools");
    json_t *choice = json_object_get(o, "tool_choice");
    json_t *possible = json_object_get(o, "possible");
    char *ref = NULL;

    memset(it, 0, sizeof(*it));
    if (tools_bad(tools, why, whysize) != 0 ||
        tool_choice_bad(choice, tools, why, whysize) != 0 ||
        possible_bad(possible, tools, why, whysize) != 0)
        return -1;
    ref = compact(possible);
    if (strlen(ref) > TOOLITEM_POSSIBLE_MAX) {
        snprintf(why, whysize,
                 "\"possible\" is over %d bytes as compact JSON (a row's "
                 "reference)",
                 TOOLITEM_POSSIBLE_MAX);
        free(ref);
        return -1;
    }
    if (strchr(ref, 0x7f) != NULL) {
        /* the reference is one line of text without a control character
         * (compact JSON escapes the others) */
        snprintf(why, whysize, "\"possible\" holds a DEL character");
        free(ref);
        return -1;
    }
    it->possible = ref;
    it->tools = compact(tools);
    it->tool_choice = choice != NULL ? compact(choice) : NULL;
    return 0;
}
