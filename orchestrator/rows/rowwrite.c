/*
 * rowwrite.c - the one writer of rows (rowwrite.h).
 */
#include "rowwrite.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../rundir/store.h"
#include "../../util/util.h"
#include "../server/reply.h"
#include "../input/taskfile.h"

void row_init(struct row *w)
{
    memset(w, 0, sizeof(*w));
    w->tokens = w->prompt_tokens = w->latency_ms = -1;
    w->tps = w->prompt_ms = w->predicted_ms = -1;
    w->violations = -1;
    w->length = w->depth = -1;
    w->seed = w->fill = -1;
    w->digits = 10;
}

void row_too_long(struct row *w, const char *why)
{
    w->content = w->reasoning = w->finish = NULL;
    w->content_len = w->reasoning_len = 0;
    w->error = why;
    w->error_kind = "too_long";
    w->truncated = 0;
    /* an error row is not checked, and no loop was closed */
    w->violations = -1;
    w->violation = NULL;
    w->aborted = NULL;
    w->calls = NULL; /* a tool item's row: "tool_calls": null */
    w->ncalls = 0;
}

static json_t *str_or_null(const char *s, size_t len)
{
    return s ? json_stringn(s, len) : json_null();
}

static json_t *num_or_null(double v)
{
    return v >= 0 ? json_real(v) : json_null();
}

static json_t *int_or_null(long long v)
{
    return v >= 0 ? json_integer((json_int_t)v) : json_null();
}

static void set(json_t *o, const char *key, json_t *v)
{
    if (v == NULL || json_object_set_new(o, key, v) != 0)
        util_oom("a row");
}

/* What a run measures beyond the answer (docs/rows.md). */
static void measured(json_t *o, const struct row *w)
{
    set(o, "prompt_tokens", int_or_null(w->prompt_tokens));
    set(o, "prompt_ms", num_or_null(w->prompt_ms));
    set(o, "predicted_ms", num_or_null(w->predicted_ms));
    set(o, "http_status",
        w->http_status ? json_integer(w->http_status) : json_null());
    set(o, "attempts", json_integer(w->attempts));
    set(o, "latency_ms", json_integer((json_int_t)w->latency_ms));
}

/* A tool item's calls (docs/toolcalls.md): a list in the order of their
 * index, each name and arguments' text as streamed; null in an error row. */
static json_t *tool_calls(const struct row *w)
{
    json_t *a;

    if (w->error != NULL)
        return json_null();
    if ((a = json_array()) == NULL)
        util_oom("a row");
    for (size_t i = 0; i < w->ncalls; i++) {
        const struct reply_call *c = &w->calls[i];
        json_t *one = json_pack(
            "{s:o,s:o}", "name",
            json_stringn(c->name.p ? c->name.p : "", c->name.len), "arguments",
            json_stringn(c->args.p ? c->args.p : "", c->args.len));
        if (one == NULL || json_array_append_new(a, one) != 0)
            util_oom("a row");
    }
    return a;
}

/* What a row's calls take in it, escaped (reply.h's count). */
static size_t calls_escaped(const struct row *w)
{
    size_t n = 0;

    for (size_t i = 0; i < w->ncalls; i++)
        n += REPLY_CALL_ROOM +
             reply_escaped_len(w->calls[i].name.p, w->calls[i].name.len) +
             reply_escaped_len(w->calls[i].args.p, w->calls[i].args.len);
    return n;
}

/* The row as JSON, in the fields' documented order, graded by task. */
static json_t *row_json(const struct row *w, const struct grader_task *task,
                        int *right, const atomic_int *stop)
{
    json_t *o, *rest, *grades, *extracted, *calls = NULL;
    struct grader_reply reply = {w->id,      strlen(w->id),
                                 w->content, w->content ? w->content_len : 0,
                                 NULL,       0,
                                 NULL};
    char *text = NULL;

    if (w->tool_item || w->ncalls > 0) {
        /* the calls as the row keeps them: what the grader reads back */
        calls = tool_calls(w);
        if (!json_is_null(calls) &&
            (text = json_dumps(calls, JSON_COMPACT)) == NULL)
            util_oom("a row");
        reply.calls = text;
        reply.calls_len = text ? strlen(text) : 0;
    }
    grades = taskfile_grades_until(
        task, w->error ? NULL : w->content, w->content ? w->content_len : 0,
        w->reference, w->tool_item && !w->error ? &reply : NULL, &extracted,
        right, stop);
    free(text);
    if (grades == NULL) { /* stopped */
        json_decref(calls);
        return NULL;
    }
    o = json_pack("{s:s,s:s,s:s,s:o}", "id", w->id, "rung", w->rung,
                  "reference", w->reference, "content",
                  str_or_null(w->content, w->content_len));
    if (o == NULL)
        util_oom("a row");
    if (calls != NULL) /* beside its content */
        set(o, "tool_calls", calls);
    rest = json_pack(
        "{s:o,s:o,s:b,s:o,s:o,s:o,s:o,s:o,s:b}", "reasoning_content",
        str_or_null(w->reasoning, w->reasoning_len), "finish_reason",
        w->finish ? json_string(w->finish) : json_null(), "truncated",
        w->truncated, "completion_tokens", int_or_null(w->tokens),
        "decode_tps", num_or_null(w->tps), "error",
        w->error ? json_string(w->error) : json_null(), "error_kind",
        w->error_kind ? json_string(w->error_kind) : json_null(), "extracted",
        extracted, "right", *right);
    if (rest == NULL || json_object_update(o, rest) != 0)
        util_oom("a row");
    json_decref(rest);
    if (w->measured)
        measured(o, w);
    /* the study's task keeps its rows as they always were */
    if (w->grades && json_object_set(o, "grades", grades) != 0)
        util_oom("a row");
    json_decref(grades);
    if (w->constrained != NULL) {
        set(o, "constrained", json_string(w->constrained));
        set(o, "violations",
            w->violations >= 0 ? json_integer(w->violations) : json_null());
        set(o, "violation",
            w->violation ? json_string(w->violation) : json_null());
    }
    if (w->length >= 0) { /* a long item: what remakes and groups it */
        set(o, "length", json_integer(w->length));
        set(o, "depth", w->depth >= 0 ? json_integer(w->depth) : json_null());
        if (w->seed >= 0) {
            set(o, "seed", json_integer((json_int_t)w->seed));
            set(o, "fill", json_integer((json_int_t)w->fill));
        }
    }
    if (w->aborted != NULL) { /* what it would have cost at most */
        set(o, "aborted", json_string(w->aborted));
        set(o, "tokens_saved", json_integer((json_int_t)w->tokens_saved));
    }
    if (w->imported != NULL)
        set(o, "imported", json_string(w->imported));
    return o;
}

/* row_text, or NULL when *stop was set before a rule. */
static char *row_text_until(struct row *w, const struct grader_task *task,
                            int *right, const atomic_int *stop)
{
    size_t calls = calls_escaped(w);
    char *text;
    json_t *o;

    /* a streamed reply was kept to the budget as it came (reply.h); an
     * import's comes whole */
    if (w->error == NULL &&
        (calls > REPLY_ROW_CAP ||
         reply_fits(w->content, w->content ? w->content_len : 0, w->reasoning,
                    w->reasoning ? w->reasoning_len : 0, REPLY_ROW_CAP - calls,
                    w->why, sizeof(w->why)) != 0)) {
        if (calls > REPLY_ROW_CAP) /* reply_fits did not say why */
            snprintf(w->why, sizeof(w->why),
                     "reply longer than a row holds (%zu bytes once escaped)",
                     (size_t)REPLY_ROW_CAP);
        row_too_long(w, w->why);
    }
    for (int pass = 0;; pass++) {
        o = row_json(w, task, right, stop);
        if (o == NULL)
            return NULL;
        text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(w->digits));
        json_decref(o);
        if (text == NULL)
            util_oom("a row");
        /* the fields besides the reply are capped before they come here,
         * so this cannot happen; if it did, the reader would refuse the
         * row and the rung for ever */
        if (strlen(text) + 1 <= GRADER_ROW_MAX || pass == 1)
            return text;
        free(text);
        row_too_long(w, REPLY_ROW_TOO_LONG);
    }
}

char *row_text(struct row *w, const struct grader_task *task, int *right)
{
    return row_text_until(w, task, right, NULL);
}

int row_append(struct store *s, struct row *w, const struct grader_task *task,
               int *right, char *msg, size_t msgsize)
{
    return row_append_until(s, w, task, right, NULL, msg, msgsize);
}

int row_append_until(struct store *s, struct row *w,
                     const struct grader_task *task, int *right,
                     const atomic_int *stop, char *msg, size_t msgsize)
{
    char *text = row_text_until(w, task, right, stop);
    int rc;

    if (text == NULL)
        return 1;
    rc = store_append(s, text, strlen(text), msg, msgsize);
    free(text);
    return rc;
}

/* ---- a code item's row from its candidate (docs/code.md) --------------- */

static json_t *exec_fields(const struct row_exec *x)
{
    const struct grader_exec *e = &x->e;
    json_t *f =
        json_pack("{s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "exec",
                  grader_exec_name(e->outcome), "tests_passed",
                  int_or_null(e->passed), "tests_total", int_or_null(e->total),
                  "exception", str_or_null(e->exception, e->exception_len),
                  "limit", x->limit ? json_string(x->limit) : json_null(),
                  "exec_ms", int_or_null(x->ms), "exec_output",
                  str_or_null(x->output, x->output_len), "code_hash",
                  str_or_null(e->code_hash, e->code_hash_len));

    if (f == NULL)
        util_oom("a row");
    return f;
}

char *row_exec_text(const char *candidate, size_t len,
                    const struct row_exec *x, const struct grader_task *task,
                    int *right, char *msg, size_t msgsize)
{
    json_error_t jerr;
    json_t *o = json_loadb(candidate, len, JSON_REJECT_DUPLICATES, &jerr);
    json_t *id, *content, *ref, *grades, *extracted, *fields;
    struct grader_reply reply;
    char *text;

    if (o == NULL) {
        snprintf(msg, msgsize, "a candidate that is not JSON: %s", jerr.text);
        return NULL;
    }
    id = json_object_get(o, "id");
    content = json_object_get(o, "content");
    ref = json_object_get(o, "reference");
    if (!json_is_string(id) || !json_is_string(ref) ||
        !(json_is_string(content) || json_is_null(content)) ||
        json_object_get(o, "exec") != NULL) {
        snprintf(msg, msgsize,
                 "a line that is no candidate (an id, a reference and a "
                 "content, not yet executed)");
        json_decref(o);
        return NULL;
    }
    memset(&reply, 0, sizeof(reply));
    reply.id = json_string_value(id);
    reply.id_len = json_string_length(id);
    reply.content = json_string_value(content);
    reply.content_len = content ? json_string_length(content) : 0;
    reply.exec = &x->e;
    grades = taskfile_grades_until(task, reply.content, reply.content_len,
                                   json_string_value(ref), &reply, &extracted,
                                   right, NULL);
    set(o, "extracted", extracted);
    set(o, "right", json_boolean(*right));
    if (json_object_get(o, "grades") != NULL)
        set(o, "grades", grades);
    else
        json_decref(grades);
    fields = exec_fields(x);
    if (json_object_update(o, fields) != 0)
        util_oom("a row");
    json_decref(fields);
    text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(10));
    json_decref(o);
    if (text == NULL)
        util_oom("a row");
    return text;
}
