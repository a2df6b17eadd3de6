/*
 * check.c - one call against one possible answer, as BFCL's
 * simple_function_checker (gorilla's ast_checker.py at commit
 * 6ea57973c7a6097fd7c5915698c54c17c5b1b6c8, Python's rules): its
 * type_checker with the int-for-float allowance and its one level of
 * nested types, its string, list, dict and list-of-dict checkers with
 * standardize_string, and Python's == for the rest. The verdict is
 * BFCL's; only the order of the failures differs (every name first,
 * then every type, then every value), for the buckets' precedence.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "internal.h"

enum toolcall__pt toolcall__pytype(const json_t *value)
{
    switch (json_typeof(value)) {
    case JSON_STRING:
        return TOOLCALL__STR;
    case JSON_INTEGER:
        return TOOLCALL__INT;
    case JSON_REAL:
        return TOOLCALL__FLOAT;
    case JSON_TRUE:
    case JSON_FALSE:
        return TOOLCALL__BOOL;
    case JSON_ARRAY:
        return TOOLCALL__LIST;
    case JSON_OBJECT:
        return TOOLCALL__DICT;
    default:
        return TOOLCALL__NULL;
    }
}

int toolcall__schema_type(const char *name, enum toolcall__pt *out)
{
    static const struct {
        const char *name;
        enum toolcall__pt pt;
    } map[] = {
        {"string", TOOLCALL__STR},   {"integer", TOOLCALL__INT},
        {"float", TOOLCALL__FLOAT},  {"number", TOOLCALL__FLOAT},
        {"boolean", TOOLCALL__BOOL}, {"array", TOOLCALL__LIST},
        {"tuple", TOOLCALL__LIST},   {"dict", TOOLCALL__DICT},
        {"object", TOOLCALL__DICT},  {"any", TOOLCALL__STR},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(name, map[i].name) == 0) {
            *out = map[i].pt;
            return 0;
        }
    return -1;
}

static const char *pt_name(enum toolcall__pt pt)
{
    static const char *names[] = {"?",     "NoneType", "str",  "int",
                                  "float", "bool",     "list", "dict"};
    return names[pt];
}

static int is_num(const json_t *v)
{
    return json_is_integer(v) || json_is_real(v) || json_is_boolean(v);
}

static double num_double(const json_t *v)
{
    if (json_is_real(v))
        return json_real_value(v);
    if (json_is_integer(v))
        return (double)json_integer_value(v);
    return json_is_true(v) ? 1.0 : 0.0;
}

static json_int_t num_int(const json_t *v)
{
    if (json_is_integer(v))
        return json_integer_value(v);
    return json_is_true(v) ? 1 : 0;
}

int toolcall__py_eq(const json_t *a, const json_t *b)
{
    size_t i;
    const char *key;
    const json_t *v;

    if (is_num(a) && is_num(b)) {
        if (json_is_real(a) || json_is_real(b))
            return num_double(a) == num_double(b);
        return num_int(a) == num_int(b);
    }
    if (json_typeof(a) != json_typeof(b))
        return 0;
    switch (json_typeof(a)) {
    case JSON_STRING:
        return json_string_length(a) == json_string_length(b) &&
               memcmp(json_string_value(a), json_string_value(b),
                      json_string_length(a)) == 0;
    case JSON_ARRAY:
        if (json_array_size(a) != json_array_size(b))
            return 0;
        json_array_foreach(a, i, v)
        {
            if (!toolcall__py_eq(v, json_array_get(b, i)))
                return 0;
        }
        return 1;
    case JSON_OBJECT:
        if (json_object_size(a) != json_object_size(b))
            return 0;
        json_object_foreach((json_t *)a, key, v)
        {
            const json_t *w = json_object_get(b, key);
            if (w == NULL || !toolcall__py_eq(v, w))
                return 0;
        }
        return 1;
    default:
        return 1; /* null == null */
    }
}

/* One lower-cased UTF-8 character of s at *i into out at *o (Python's
 * str.lower for ASCII, Latin-1 and the Cyrillic capitals; any other
 * byte copied as it is). */
static void lower_char(const unsigned char *s, size_t len, size_t *i,
                       unsigned char *out, size_t *o)
{
    unsigned char c = s[*i];
    unsigned char d = *i + 1 < len ? s[*i + 1] : 0;

    if (c >= 'A' && c <= 'Z') {
        out[(*o)++] = (unsigned char)(c + 32);
    } else if (c == 0xC3 && d >= 0x80 && d <= 0x9E && d != 0x97) {
        out[(*o)++] = c; /* U+00C0..U+00DE but U+00D7 */
        out[(*o)++] = (unsigned char)(d + 0x20);
        (*i)++;
    } else if (c == 0xD0 && d >= 0x90 && d <= 0x9F) {
        out[(*o)++] = 0xD0; /* U+0410..U+041F to U+0430.. */
        out[(*o)++] = (unsigned char)(d + 0x20);
        (*i)++;
    } else if (c == 0xD0 && d >= 0xA0 && d <= 0xAF) {
        out[(*o)++] = 0xD1; /* U+0420..U+042F to U+0440.. */
        out[(*o)++] = (unsigned char)(d - 0x20);
        (*i)++;
    } else if (c == 0xD0 && d >= 0x80 && d <= 0x8F) {
        out[(*o)++] = 0xD1; /* U+0400..U+040F to U+0450.. */
        out[(*o)++] = (unsigned char)(d + 0x10);
        (*i)++;
    } else {
        out[(*o)++] = c;
    }
}

char *toolcall__standardize(const char *s, size_t len, size_t *out_len)
{
    const unsigned char *u = (const unsigned char *)s;
    unsigned char *out = toolcall__alloc(len + 1);
    size_t o = 0;

    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        if (strchr(" ,./-_*^", u[i]) != NULL && u[i] != '\0')
            continue;
        if (u[i] == '\'') {
            out[o++] = '"';
            continue;
        }
        lower_char(u, len, &i, out, &o);
    }
    out[o] = '\0';
    *out_len = o;
    return (char *)out;
}

static int is_empty_str(const json_t *v)
{
    return json_is_string(v) && json_string_length(v) == 0;
}

static int has_empty(const json_t *accepted)
{
    size_t i;
    const json_t *a;
    json_array_foreach(accepted, i, a)
    {
        if (is_empty_str(a))
            return 1;
    }
    return 0;
}

/* Two strings equal once standardized: 1, 0, or -1 out of memory. */
static int std_eq(const json_t *a, const json_t *b)
{
    size_t la, lb;
    char *sa = toolcall__standardize(json_string_value(a),
                                     json_string_length(a), &la);
    char *sb = toolcall__standardize(json_string_value(b),
                                     json_string_length(b), &lb);
    int eq = sa && sb && la == lb && memcmp(sa, sb, la) == 0;
    int rc = (sa == NULL || sb == NULL) ? -1 : eq;
    toolcall__free(sa);
    toolcall__free(sb);
    return rc;
}

/* A model's element against an answer's, each string standardized (the
 * top level of BFCL's list and dict checkers): 1, 0 or -1. */
static int elem_eq(const json_t *m, const json_t *a)
{
    if (json_is_string(m) && json_is_string(a))
        return std_eq(m, a);
    if (json_is_string(m) || json_is_string(a))
        return 0;
    return toolcall__py_eq(m, a);
}

/* The Python type of the first accepted value that is not "" (BFCL's
 * get_possible_answer_type), TOOLCALL__NONE when there is none. */
static enum toolcall__pt answer_type(const json_t *accepted)
{
    size_t i;
    const json_t *a;
    json_array_foreach(accepted, i, a)
    {
        if (!is_empty_str(a))
            return toolcall__pytype(a);
    }
    return TOOLCALL__NONE;
}

/* BFCL's type_checker: 1 valid (*is_var: the answer's values are of
 * another type than the docs', a "variable"), 0 not. */
static int type_check(const json_t *value, const json_t *accepted,
                      enum toolcall__pt want, enum toolcall__pt nested,
                      int *is_var)
{
    enum toolcall__pt at = answer_type(accepted);
    enum toolcall__pt vt = toolcall__pytype(value);
    int var = at != TOOLCALL__NONE && at != want;
    size_t i, j;
    const json_t *a, *v;

    if (vt == want) {
        if (nested == TOOLCALL__NONE) {
            *is_var = var;
            return 1;
        }
        json_array_foreach(accepted, i, a)
        {
            int flag = 1, dummy;
            if (json_is_array(a)) {
                json_array_foreach(value, j, v)
                {
                    if (!type_check(v, a, nested, TOOLCALL__NONE, &dummy)) {
                        flag = 0;
                        break;
                    }
                }
            }
            if (flag) {
                *is_var = var;
                return 1;
            }
        }
        return 0;
    }
    if (at != TOOLCALL__NONE && vt == at) {
        *is_var = 1;
        return 1;
    }
    return 0;
}

/* BFCL's dict_checker for one accepted dict a: 1, 0 or -1. */
static int dict_one(const json_t *value, const json_t *a)
{
    const char *key;
    const json_t *v, *acc;
    size_t i;
    const json_t *e;

    if (is_empty_str(a) || !json_is_object(a) || !json_is_object(value))
        return 0;
    json_object_foreach((json_t *)value, key, v)
    {
        int found = 0;
        acc = json_object_get(a, key);
        if (acc == NULL || !json_is_array(acc))
            return 0;
        json_array_foreach(acc, i, e)
        {
            found = elem_eq(v, e);
            if (found != 0)
                break;
        }
        if (found <= 0)
            return found;
    }
    json_object_foreach((json_t *)a, key, acc)
    {
        if (json_object_get(value, key) == NULL &&
            !(json_is_array(acc) && has_empty(acc)))
            return 0;
    }
    return 1;
}

static int dict_check(const json_t *value, const json_t *accepted)
{
    size_t i;
    const json_t *a;
    json_array_foreach(accepted, i, a)
    {
        int rc = dict_one(value, a);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* BFCL's list_dict_checker: the dicts in order, against one accepted
 * list of dicts ("" an empty one). */
static int list_dict_check(const json_t *value, const json_t *accepted)
{
    size_t i, j;
    const json_t *a, *v;
    json_array_foreach(accepted, i, a)
    {
        int flag = 1;
        size_t alen = is_empty_str(a)    ? 0
                      : json_is_array(a) ? json_array_size(a)
                                         : (size_t)-1;
        if (alen != json_array_size(value))
            continue;
        json_array_foreach(value, j, v)
        {
            int rc = dict_one(v, json_array_get(a, j));
            if (rc < 0)
                return rc;
            if (rc == 0) {
                flag = 0;
                break;
            }
        }
        if (flag)
            return 1;
    }
    return 0;
}

/* BFCL's string_checker. */
static int string_check(const json_t *value, const json_t *accepted)
{
    size_t i;
    const json_t *a;
    json_array_foreach(accepted, i, a)
    {
        if (json_is_string(a)) {
            int rc = std_eq(value, a);
            if (rc != 0)
                return rc;
        }
    }
    return 0;
}

/* BFCL's list_checker: the list's strings standardized, against each
 * accepted list ("" an empty one), in order. */
static int list_check(const json_t *value, const json_t *accepted)
{
    size_t i, j;
    const json_t *a, *v;
    json_array_foreach(accepted, i, a)
    {
        int flag = 1;
        if (is_empty_str(a)) {
            if (json_array_size(value) == 0)
                return 1;
            continue;
        }
        if (!json_is_array(a) || json_array_size(a) != json_array_size(value))
            continue;
        json_array_foreach(value, j, v)
        {
            int rc = elem_eq(v, json_array_get(a, j));
            if (rc < 0)
                return rc;
            if (rc == 0) {
                flag = 0;
                break;
            }
        }
        if (flag)
            return 1;
    }
    return 0;
}

static int py_in(const json_t *value, const json_t *accepted)
{
    size_t i;
    const json_t *a;
    json_array_foreach(accepted, i, a)
    {
        if (toolcall__py_eq(value, a))
            return 1;
    }
    return 0;
}

/* The value check of simple_function_checker, after the type's. */
static int value_check(const json_t *value, const json_t *accepted,
                       enum toolcall__pt want, enum toolcall__pt nested,
                       int is_var)
{
    if (!is_var) {
        if (want == TOOLCALL__DICT)
            return dict_check(value, accepted);
        if (want == TOOLCALL__LIST && nested == TOOLCALL__DICT)
            return list_dict_check(value, accepted);
        if (want == TOOLCALL__STR)
            return string_check(value, accepted);
        if (want == TOOLCALL__LIST)
            return list_check(value, accepted);
    }
    return py_in(value, accepted);
}

/* The types a parameter's schema asks (toolcall.c checked them). */
static void param_types(const json_t *schema, enum toolcall__pt *want,
                        enum toolcall__pt *nested)
{
    const json_t *items = json_object_get(schema, "items");
    const char *tname = json_string_value(json_object_get(schema, "type"));

    *want = TOOLCALL__NONE;
    *nested = TOOLCALL__NONE;
    if (tname != NULL)
        (void)toolcall__schema_type(tname, want);
    if (*want == TOOLCALL__LIST && json_is_object(items)) {
        tname = json_string_value(json_object_get(items, "type"));
        if (tname != NULL)
            (void)toolcall__schema_type(tname, nested);
    }
}

/* The names: required ones given, none unexpected, every answer's one
 * given unless it may be left out. TOOLCALL_RIGHT or WRONG_ARGS. */
static int check_names(const json_t *props, const json_t *required,
                       const json_t *args, const json_t *answer, char *why,
                       size_t why_size)
{
    size_t i;
    const char *key;
    const json_t *v;

    json_array_foreach(required, i, v)
    {
        if (json_object_get(args, json_string_value(v)) == NULL) {
            snprintf(why, why_size, "missing required argument '%s'",
                     json_string_value(v));
            return TOOLCALL_WRONG_ARGS;
        }
    }
    json_object_foreach((json_t *)args, key, v)
    {
        if (json_object_get(props, key) == NULL ||
            json_object_get(answer, key) == NULL) {
            snprintf(why, why_size, "unexpected argument '%s'", key);
            return TOOLCALL_WRONG_ARGS;
        }
    }
    json_object_foreach((json_t *)answer, key, v)
    {
        if (json_object_get(args, key) == NULL && !has_empty(v)) {
            snprintf(why, why_size,
                     "missing argument '%s', which the answer needs", key);
            return TOOLCALL_WRONG_ARGS;
        }
    }
    return TOOLCALL_RIGHT;
}

/* One argument's type (pass 0) or value (pass 1): TOOLCALL_RIGHT,
 * WRONG_TYPE, WRONG_VALUE or TOOLCALL_ENOMEM. */
static int check_arg(const json_t *schema, const char *key,
                     const json_t *value, const json_t *accepted, int pass,
                     char *why, size_t why_size)
{
    enum toolcall__pt want, nested;
    json_t *conv = NULL;
    int is_var = 0, rc = TOOLCALL_RIGHT;

    param_types(schema, &want, &nested);
    /* Python's int to float, where a float is asked */
    if (want == TOOLCALL__FLOAT && json_is_integer(value)) {
        conv = json_real((double)json_integer_value(value));
        if (conv == NULL)
            return TOOLCALL_ENOMEM;
        value = conv;
    }
    if (!type_check(value, accepted, want, nested, &is_var)) {
        snprintf(why, why_size,
                 "wrong type for argument '%s': a %s, not the %s asked", key,
                 pt_name(toolcall__pytype(value)), pt_name(want));
        rc = TOOLCALL_WRONG_TYPE;
    } else if (pass == 1) {
        int ok = value_check(value, accepted, want, nested, is_var);
        if (ok < 0)
            rc = TOOLCALL_ENOMEM;
        else if (ok == 0) {
            snprintf(why, why_size, "value not accepted for argument '%s'",
                     key);
            rc = TOOLCALL_WRONG_VALUE;
        }
    }
    json_decref(conv);
    return rc;
}

int toolcall__check_call(const json_t *params, const json_t *args,
                         const json_t *answer, char *why, size_t why_size)
{
    const json_t *props = json_object_get(params, "properties");
    const json_t *required = json_object_get(params, "required");
    const char *key;
    const json_t *v;
    int rc = check_names(props, required, args, answer, why, why_size);

    if (rc != TOOLCALL_RIGHT)
        return rc;
    for (int pass = 0; pass < 2; pass++) {
        json_object_foreach((json_t *)args, key, v)
        {
            rc = check_arg(json_object_get(props, key), key, v,
                           json_object_get(answer, key), pass, why, why_size);
            if (rc != TOOLCALL_RIGHT)
                return rc;
        }
    }
    return TOOLCALL_RIGHT;
}
