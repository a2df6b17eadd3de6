/*
 * toolcall.c - a model's tool calls against an item's possible answers:
 * the item read and checked (function docs, answers), the reply decoded
 * under its caps, a call leaked into the content found, and the calls
 * matched to the answers as BFCL's checkers do (one call for simple and
 * multiple; for parallel, each answer in turn to the first unmatched
 * call that passes it, in any order). check.c checks one call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const struct {
    const char *name;
} buckets[] = {
#define TOOLCALL__N(name, str, text) {str},
    TOOLCALL_BUCKETS(TOOLCALL__N)
#undef TOOLCALL__N
};

const char *toolcall_bucket_name(enum toolcall_bucket bucket)
{
    if ((int)bucket < 0 || bucket >= TOOLCALL_NBUCKETS)
        return NULL;
    return buckets[bucket].name;
}

int toolcall_bucket_parse(const char *name, enum toolcall_bucket *out)
{
    for (int b = 0; name != NULL && b < TOOLCALL_NBUCKETS; b++)
        if (strcmp(name, buckets[b].name) == 0) {
            *out = (enum toolcall_bucket)b;
            return 0;
        }
    return TOOLCALL_EARG;
}

const char *toolcall_strerror(int code)
{
    switch (code) {
#define TOOLCALL_S(name, c, text)                                             \
    case c:                                                                   \
        return text;
        TOOLCALL_ERRORS(TOOLCALL_S)
#undef TOOLCALL_S
    default:
        return "unknown error";
    }
}

static int fail(struct toolcall_error *err, int code, const char *fmt,
                const char *subject)
{
    if (err != NULL)
        snprintf(err->text, sizeof err->text, fmt, subject);
    return code;
}

/* The item's text read under its caps: new, or NULL and err. */
static json_t *load_item(const char *text, size_t len, const char *what,
                         struct toolcall_error *err, int *rc)
{
    json_error_t je;
    unsigned long failures;
    json_t *j;

    if (text == NULL) {
        *rc = fail(err, TOOLCALL_EARG, "no %s given", what);
        return NULL;
    }
    if (len > TOOLCALL_MAX_ITEM ||
        toolcall__json_depth(text, len, TOOLCALL_MAX_DEPTH) >
            TOOLCALL_MAX_DEPTH) {
        *rc = fail(err, TOOLCALL_ECAP, "over a cap (1 MiB, depth 32): the %s",
                   what);
        return NULL;
    }
    memset(&je, 0, sizeof je);
    failures = toolcall_alloc_failures();
    j = json_loadb(text, len, 0, &je);
    if (toolcall__oom(&je, failures)) {
        json_decref(j);
        *rc = fail(err, TOOLCALL_ENOMEM, "out of memory reading the %s", what);
        return NULL;
    }
    if (j == NULL || !json_is_array(j)) {
        *rc = fail(err,
                   strcmp(what, "function docs") == 0 ? TOOLCALL_EDOCS
                                                      : TOOLCALL_EANSWERS,
                   "not a JSON list: the %s", what);
        json_decref(j);
        return NULL;
    }
    return j;
}

/* A parameter's schema as BFCL reads it: a type it knows, and for an
 * array the type of its items when it names one. */
static int check_param(const char *fname, const char *pname,
                       const json_t *schema, struct toolcall_error *err)
{
    enum toolcall__pt pt, nested;
    const char *tname = json_string_value(json_object_get(schema, "type"));
    const json_t *items = json_object_get(schema, "items");

    if (tname == NULL || toolcall__schema_type(tname, &pt) != 0)
        goto bad;
    if (pt == TOOLCALL__LIST && items != NULL) {
        tname = json_string_value(json_object_get(items, "type"));
        if (!json_is_object(items) || tname == NULL ||
            toolcall__schema_type(tname, &nested) != 0)
            goto bad;
    }
    return 0;
bad:
    if (err != NULL)
        snprintf(err->text, sizeof err->text,
                 "no type BFCL knows for parameter '%s' of '%s'", pname,
                 fname);
    return TOOLCALL_EDOCS;
}

/* One function doc (an OpenAI tool or BFCL's bare doc): its function
 * object (borrowed) checked, or NULL and err. */
static const json_t *read_doc(const json_t *doc, size_t index,
                              struct toolcall_error *err, int *rc)
{
    const json_t *fn = json_object_get(doc, "function");
    const json_t *params, *props, *req, *v;
    const char *name, *key;
    char at[32];
    size_t i;

    if (json_is_object(fn))
        doc = fn;
    name = json_string_value(json_object_get(doc, "name"));
    snprintf(at, sizeof at, "%zu", index);
    if (!json_is_object(doc) || name == NULL || name[0] == '\0') {
        *rc = fail(err, TOOLCALL_EDOCS, "no name in function doc %s", at);
        return NULL;
    }
    params = json_object_get(doc, "parameters");
    props = json_object_get(params, "properties");
    req = json_object_get(params, "required");
    if ((params != NULL && !json_is_object(params)) ||
        (props != NULL && !json_is_object(props)) ||
        (req != NULL && !json_is_array(req))) {
        *rc =
            fail(err, TOOLCALL_EDOCS,
                 "parameters not in a schema's shape in function '%s'", name);
        return NULL;
    }
    json_array_foreach(req, i, v)
    {
        if (!json_is_string(v)) {
            *rc = fail(err, TOOLCALL_EDOCS,
                       "a required name not a string in function '%s'", name);
            return NULL;
        }
    }
    json_object_foreach((json_t *)props, key, v)
    {
        if ((*rc = check_param(name, key, v, err)) != 0)
            return NULL;
    }
    return doc;
}

/* The docs' function objects, borrowed from docs, in *fns (new array of
 * ndocs pointers). 0, or an error. */
static int read_docs(const json_t *docs, const json_t ***fns,
                     struct toolcall_error *err)
{
    size_t n = json_array_size(docs), i;
    const json_t *d;
    int rc = 0;

    *fns = toolcall__alloc(n * sizeof **fns);
    if (*fns == NULL)
        return fail(err, TOOLCALL_ENOMEM, "%s", "out of memory");
    json_array_foreach(docs, i, d)
    {
        (*fns)[i] = read_doc(d, i, err, &rc);
        if ((*fns)[i] == NULL)
            return rc;
    }
    return 0;
}

static const json_t *find_doc(const json_t **fns, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(json_string_value(json_object_get(fns[i], "name")), name) ==
            0)
            return fns[i];
    return NULL;
}

/* Each answer one {"fname": {"arg": [accepted...]}} of a doc's
 * function: 0, or an error naming it. */
static int read_answers(const json_t *answers, const json_t **fns, size_t nfns,
                        enum toolcall_shape shape, struct toolcall_error *err)
{
    size_t i;
    const json_t *a, *acc;
    const char *fname, *key;
    const json_t *params;

    if (shape == TOOLCALL_BY_ANSWERS)
        shape =
            json_array_size(answers) > 1 ? TOOLCALL_PARALLEL : TOOLCALL_ONE;
    if (shape == TOOLCALL_ONE && json_array_size(answers) > 1)
        return fail(err, TOOLCALL_EANSWERS, "%s",
                    "several calls in the possible answers where the "
                    "item asks one");
    json_array_foreach(answers, i, a)
    {
        if (!json_is_object(a) || json_object_size(a) != 1)
            return fail(err, TOOLCALL_EANSWERS, "%s",
                        "not one {name: arguments}: a possible answer");
        fname = json_object_iter_key(json_object_iter((json_t *)a));
        params = json_object_get(a, fname);
        if (find_doc(fns, nfns, fname) == NULL)
            return fail(err, TOOLCALL_EUNKNOWN,
                        "unknown function '%s' in the possible answers",
                        fname);
        if (!json_is_object(params))
            return fail(err, TOOLCALL_EANSWERS,
                        "no arguments object in possible answer '%s'", fname);
        json_object_foreach((json_t *)params, key, acc)
        {
            if (!json_is_array(acc))
                return fail(err, TOOLCALL_EANSWERS,
                            "accepted values not a list for argument '%s'",
                            key);
        }
    }
    return 0;
}

static void set(struct toolcall_result *res, enum toolcall_bucket b, int call,
                const char *why)
{
    res->bucket = b;
    res->call = call;
    snprintf(res->detail, sizeof res->detail, "%s", why);
}

/* needle in the n bytes of hay, or NULL. */
static const char *find(const char *hay, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; k <= n && i <= n - k; i++)
        if (memcmp(hay + i, needle, k) == 0)
            return hay + i;
    return NULL;
}

/* A JSON object with "name" and "arguments" or "parameters" starting at
 * one of the content's first 64 '{': 1, 0, or -1 out of memory. */
static int leaked_json(const char *s, size_t n)
{
    int tries = 0;
    for (size_t i = 0; i < n && tries < 64; i++) {
        json_t *j;
        json_error_t je;
        int hit;
        if (s[i] != '{')
            continue;
        tries++;
        unsigned long failures = toolcall_alloc_failures();
        memset(&je, 0, sizeof je);
        j = json_loadb(s + i, n - i, JSON_DISABLE_EOF_CHECK, &je);
        if (toolcall__oom(&je, failures)) {
            json_decref(j);
            return -1;
        }
        hit = json_is_object(j) &&
              json_is_string(json_object_get(j, "name")) &&
              (json_object_get(j, "arguments") != NULL ||
               json_object_get(j, "parameters") != NULL);
        json_decref(j);
        if (hit)
            return 1;
    }
    return 0;
}

/* No structured call came back: a call leaked into the content (its
 * first TOOLCALL_MAX_CONTENT bytes), or none at all. Returns 0, or
 * TOOLCALL_ENOMEM. */
static int no_call(const struct toolcall_reply *reply,
                   struct toolcall_result *res)
{
    const char *s = reply->content;
    size_t n = s == NULL ? 0 : reply->content_len;
    const char *tag;
    int leak;

    if (n > TOOLCALL_MAX_CONTENT)
        n = TOOLCALL_MAX_CONTENT;
    tag = find(s, n, "<tool_call>");
    if (tag != NULL) {
        if (find(tag, n - (size_t)(tag - s), "</tool_call>") != NULL)
            set(res, TOOLCALL_LEAKED, -1,
                "a '<tool_call>' written in the content");
        else
            set(res, TOOLCALL_MALFORMED, -1,
                "a '<tool_call>' in the content, never closed");
    } else if (find(s, n, "[TOOL_CALLS]") != NULL) {
        set(res, TOOLCALL_LEAKED, -1, "a '[TOOL_CALLS]' in the content");
    } else if ((leak = leaked_json(s, n)) < 0) {
        return TOOLCALL_ENOMEM;
    } else if (leak) {
        set(res, TOOLCALL_LEAKED, -1,
            "a JSON call ('name', 'arguments') written in the content");
    } else {
        set(res, TOOLCALL_NO_CALL, -1, "no call where one was expected");
    }
    return 0;
}

/* One call of the reply decoded into c; c->bucket says why not.
 * Returns 0, or TOOLCALL_ENOMEM. */
static int decode_call(const json_t *j, struct toolcall__call *c)
{
    const json_t *args = json_object_get(j, "arguments");
    const char *text = json_string_value(args);
    size_t len = json_string_length(args);
    json_error_t je;
    unsigned long failures;

    c->name = json_string_value(json_object_get(j, "name"));
    c->args = NULL;
    c->bucket = TOOLCALL_MALFORMED;
    if (!json_is_object(j) || c->name == NULL || text == NULL) {
        snprintf(c->why, sizeof c->why, "no name or arguments in a call");
        return 0;
    }
    if (len > TOOLCALL_MAX_ARGS ||
        toolcall__json_depth(text, len, TOOLCALL_MAX_DEPTH) >
            TOOLCALL_MAX_DEPTH) {
        c->bucket = TOOLCALL_OVER_CAP;
        snprintf(c->why, sizeof c->why,
                 "over a cap (1 MiB, depth 32): the arguments of '%.64s'",
                 c->name);
        return 0;
    }
    memset(&je, 0, sizeof je);
    failures = toolcall_alloc_failures();
    c->args = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (toolcall__oom(&je, failures))
        return TOOLCALL_ENOMEM; /* free_calls frees c->args */
    if (!json_is_object(c->args)) {
        snprintf(c->why, sizeof c->why,
                 "not a JSON object: the arguments of '%.64s'", c->name);
        json_decref(c->args);
        c->args = NULL;
        return 0;
    }
    c->bucket = TOOLCALL_RIGHT;
    return 0;
}

/* The reply's calls, decoded: *calls new (*n of them, their names
 * borrowed from *list, new), or a bucket in res for the whole list.
 * Returns 0, or TOOLCALL_ENOMEM. */
static int decode_calls(const struct toolcall_reply *reply, json_t **list,
                        struct toolcall__call **calls, size_t *n,
                        struct toolcall_result *res)
{
    json_error_t je;
    unsigned long failures;
    json_t *j;
    size_t i;

    *list = NULL;
    *calls = NULL;
    *n = 0;
    if (reply->calls == NULL || reply->calls_len == 0)
        return 0;
    if (reply->calls_len > TOOLCALL_MAX_REPLY ||
        toolcall__json_depth(reply->calls, reply->calls_len,
                             TOOLCALL_MAX_DEPTH) > TOOLCALL_MAX_DEPTH) {
        set(res, TOOLCALL_OVER_CAP, -1, "over a cap (8 MiB): the calls");
        return 0;
    }
    memset(&je, 0, sizeof je);
    failures = toolcall_alloc_failures();
    *list = json_loadb(reply->calls, reply->calls_len, JSON_ALLOW_NUL, &je);
    if (toolcall__oom(&je, failures))
        return TOOLCALL_ENOMEM; /* grade frees *list */
    if (!json_is_array(*list)) {
        set(res, TOOLCALL_MALFORMED, -1, "not a JSON list: the calls");
        return 0;
    }
    if (json_array_size(*list) > TOOLCALL_MAX_CALLS) {
        set(res, TOOLCALL_OVER_CAP, -1, "more than 64 calls");
        return 0;
    }
    if (json_array_size(*list) == 0)
        return 0;
    *calls = toolcall__alloc(json_array_size(*list) * sizeof **calls);
    if (*calls == NULL)
        return TOOLCALL_ENOMEM;
    *n = json_array_size(*list);
    json_array_foreach(*list, i, j)
    {
        if (decode_call(j, &(*calls)[i]) != 0)
            return TOOLCALL_ENOMEM;
    }
    return 0;
}

static void free_calls(struct toolcall__call *calls, size_t n)
{
    for (size_t i = 0; i < n; i++)
        json_decref(calls[i].args);
    toolcall__free(calls);
}

/* The first refused call (the bucket first in precedence), the first
 * call of a function the docs lack: 1 and res set, or 0. */
static int refuse_calls(const struct toolcall__call *calls, size_t n,
                        const json_t **fns, size_t nfns,
                        struct toolcall_result *res)
{
    size_t worst = n;
    for (size_t i = 0; i < n; i++)
        if (calls[i].bucket != TOOLCALL_RIGHT &&
            (worst == n || calls[i].bucket < calls[worst].bucket))
            worst = i;
    if (worst < n) {
        set(res, calls[worst].bucket, (int)worst, calls[worst].why);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        if (find_doc(fns, nfns, calls[i].name) == NULL) {
            char why[TOOLCALL_DETAIL];
            snprintf(why, sizeof why, "unknown function '%.64s'",
                     calls[i].name);
            set(res, TOOLCALL_UNKNOWN_FUNCTION, (int)i, why);
            return 1;
        }
    return 0;
}

/* Answer a against the calls not yet used, in order (BFCL's
 * parallel_function_checker_no_order; for one call its simple and
 * multiple checkers): the call it matched, -1 with res set (the first
 * call of its function that failed it, else a wrong function, else too
 * few calls), or TOOLCALL_ENOMEM - 1. */
static int match_answer(const json_t *a, const json_t **fns, size_t nfns,
                        const struct toolcall__call *calls, size_t n,
                        const char *used, struct toolcall_result *res)
{
    const char *fname = json_object_iter_key(json_object_iter((json_t *)a));
    const json_t *params =
        json_object_get(find_doc(fns, nfns, fname), "parameters");
    int first = -1, tried = -1, bucket = TOOLCALL_RIGHT;
    char why[TOOLCALL_DETAIL], first_why[TOOLCALL_DETAIL];

    for (size_t c = 0; c < n; c++) {
        int rc;
        if (used[c])
            continue;
        if (tried < 0)
            tried = (int)c;
        if (strcmp(calls[c].name, fname) != 0)
            continue;
        rc = toolcall__check_call(params, calls[c].args,
                                  json_object_get(a, fname), why, sizeof why);
        if (rc < 0)
            return TOOLCALL_ENOMEM - 1;
        if (rc == TOOLCALL_RIGHT)
            return (int)c;
        if (first < 0) {
            first = (int)c;
            bucket = rc;
            memcpy(first_why, why, sizeof why);
        }
    }
    if (first >= 0) {
        set(res, (enum toolcall_bucket)bucket, first, first_why);
        return -1;
    }
    if (tried < 0) {
        snprintf(why, sizeof why, "too few calls: none for '%.64s'", fname);
        set(res, TOOLCALL_WRONG_COUNT, -1, why);
    } else {
        snprintf(why, sizeof why, "no call of '%.64s', the function asked",
                 fname);
        set(res, TOOLCALL_WRONG_FUNCTION, tried, why);
    }
    return -1;
}

/* The calls matched to the answers: res set. 0, or TOOLCALL_ENOMEM. */
static int match_calls(const json_t *answers, const json_t **fns, size_t nfns,
                       const struct toolcall__call *calls, size_t n,
                       struct toolcall_result *res)
{
    char *used = toolcall__alloc(n);
    size_t i;
    const json_t *a;

    if (used == NULL)
        return TOOLCALL_ENOMEM;
    json_array_foreach(answers, i, a)
    {
        int c = match_answer(a, fns, nfns, calls, n, used, res);
        if (c < -1) {
            toolcall__free(used);
            return TOOLCALL_ENOMEM;
        }
        if (c < 0) {
            toolcall__free(used);
            return 0;
        }
        used[c] = 1;
    }
    for (i = 0; i < n; i++)
        if (!used[i]) {
            set(res, TOOLCALL_WRONG_COUNT, (int)i,
                "too many calls: this one matches no answer");
            break;
        }
    toolcall__free(used);
    return 0;
}

/* The reply graded against the item read: res set. 0, or an error. */
static int grade(const json_t *answers, const json_t **fns, size_t nfns,
                 const struct toolcall_reply *reply,
                 struct toolcall_result *res)
{
    struct toolcall__call *calls;
    json_t *list;
    size_t n;
    int rc = decode_calls(reply, &list, &calls, &n, res);

    if (rc != 0 || res->bucket != TOOLCALL_RIGHT)
        goto out;
    if (n == 0) {
        if (json_array_size(answers) > 0)
            rc = no_call(reply, res);
    } else if (refuse_calls(calls, n, fns, nfns, res)) {
        /* res set */
    } else if (json_array_size(answers) == 0) {
        set(res, TOOLCALL_CALL_NOT_EXPECTED, 0, "a call where none is right");
    } else {
        rc = match_calls(answers, fns, nfns, calls, n, res);
    }
out:
    free_calls(calls, n);
    json_decref(list);
    return rc;
}

int toolcall_check(const struct toolcall_item *item,
                   const struct toolcall_reply *reply,
                   struct toolcall_result *res, struct toolcall_error *err)
{
    json_t *docs = NULL, *answers = NULL;
    const json_t **fns = NULL;
    int rc = 0;

    if (err != NULL)
        err->text[0] = '\0';
    if (item == NULL || reply == NULL || res == NULL)
        return fail(err, TOOLCALL_EARG, "%s", "no item, reply or result");
    set(res, TOOLCALL_RIGHT, -1, "");
    docs = load_item(item->docs, item->docs_len, "function docs", err, &rc);
    if (docs != NULL)
        answers = load_item(item->answers, item->answers_len,
                            "possible answers", err, &rc);
    if (answers != NULL)
        rc = read_docs(docs, &fns, err);
    if (rc == 0)
        rc = read_answers(answers, fns, json_array_size(docs), item->shape,
                          err);
    if (rc == 0)
        rc = grade(answers, fns, json_array_size(docs), reply, res);
    if (rc == TOOLCALL_ENOMEM && err != NULL && err->text[0] == '\0')
        snprintf(err->text, sizeof err->text, "out of memory");
    toolcall__free((void *)fns);
    json_decref(docs);
    json_decref(answers);
    return rc;
}
