/*
 * rowwrite.c - the one writer of rows (rowwrite.h).
 */
#include "rowwrite.h"

#include <jansson.h>
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

/* The row as JSON, in the fields' documented order, graded by task. */
static json_t *row_json(const struct row *w, const struct grader_task *task,
                        int *right, const atomic_int *stop)
{
    json_t *o, *grades, *extracted;

    grades = taskfile_grades_until(task, w->error ? NULL : w->content,
                                   w->content ? w->content_len : 0,
                                   w->reference, &extracted, right, stop);
    if (grades == NULL) /* stopped */
        return NULL;
    o = json_pack(
        "{s:s,s:s,s:s,s:o,s:o,s:o,s:b,s:o,s:o,s:o,s:o,s:o,s:b}", "id", w->id,
        "rung", w->rung, "reference", w->reference, "content",
        str_or_null(w->content, w->content_len), "reasoning_content",
        str_or_null(w->reasoning, w->reasoning_len), "finish_reason",
        w->finish ? json_string(w->finish) : json_null(), "truncated",
        w->truncated, "completion_tokens", int_or_null(w->tokens),
        "decode_tps", num_or_null(w->tps), "error",
        w->error ? json_string(w->error) : json_null(), "error_kind",
        w->error_kind ? json_string(w->error_kind) : json_null(), "extracted",
        extracted, "right", *right);
    if (o == NULL)
        util_oom("a row");
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
    char *text;
    json_t *o;

    /* a streamed reply was kept to the budget as it came (reply.h); an
     * import's comes whole */
    if (w->error == NULL &&
        reply_fits(w->content, w->content ? w->content_len : 0, w->reasoning,
                   w->reasoning ? w->reasoning_len : 0, REPLY_ROW_CAP, w->why,
                   sizeof(w->why)) != 0)
        row_too_long(w, w->why);
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
