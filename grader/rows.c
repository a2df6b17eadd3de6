/*
 * rows.c - one row at a time: scan it (rowscan.h), grade it, keep the answer.
 */
#include "rows.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "rowscan.h"
#include "internal.h"

/* ---- the rung ---------------------------------------------------------- */

struct grader_rung *grader_rung_new(const char *name, const char *path)
{
    struct grader_rung *r = grader__calloc(1, sizeof(*r));

    if (r == NULL)
        return NULL;
    r->name = grader__strndup(name, strlen(name));
    r->path = grader__strndup(path, strlen(path));
    if (r->name == NULL || r->path == NULL) {
        grader_rung_free(r);
        return NULL;
    }
    return r;
}

void grader_rung_free(struct grader_rung *r)
{
    if (r == NULL)
        return;
    grader__free(r->name);
    grader__free(r->path);
    grader__free(r->answers);
    grader__free(r->by_q);
    grader__free(r->pool);
    grader__free(r->kept);
    grader__free(r->texts);
    grader__free(r);
}

const struct grader_answer *grader_rung_find(const struct grader_rung *r,
                                             uint32_t q)
{
    if (q >= r->by_q_len || r->by_q[q] == GRADER_NONE)
        return NULL;
    return &r->answers[r->by_q[q]];
}

const char *grader_rung_said(const struct grader_rung *r,
                             const struct grader_answer *a)
{
    return a->said == GRADER_NONE ? NULL : r->pool + a->said;
}

const char *grader_rung_kept(const struct grader_rung *r,
                             const struct grader_answer *a, int field,
                             size_t *len)
{
    const struct grader_kept *k;

    *len = 0;
    if (r->kept == NULL || field < 0 || field >= GRADER_KEEP_FIELDS)
        return NULL;
    k = &r->kept[a - r->answers];
    if (k->off[field] == GRADER_KEPT_NULL)
        return NULL;
    *len = k->len[field];
    return r->texts + k->off[field];
}

/* Keep s[0..len) (NULL: a null field) as field of k. 0 or an error. */
static int keep(struct grader_rung *r, struct grader_kept *k, int field,
                const char *s, size_t len)
{
    if (s == NULL) {
        k->off[field] = GRADER_KEPT_NULL;
        k->len[field] = 0;
        return 0;
    }
    if (r->texts_len + len > GRADER_KEEP_MAX)
        return GRADER_ETOOBIG;
    if (r->texts_len + len > r->texts_cap) {
        size_t cap = r->texts_cap ? r->texts_cap : 4096;
        char *p;
        while (cap < r->texts_len + len)
            cap *= 2;
        if ((p = grader__realloc(r->texts, cap)) == NULL)
            return GRADER_ENOMEM;
        r->texts = p;
        r->texts_cap = cap;
    }
    if (len > 0)
        memcpy(r->texts + r->texts_len, s, len);
    k->off[field] = r->texts_len;
    k->len[field] = (uint32_t)len;
    r->texts_len += len;
    return 0;
}

/* Keep the row's texts for answer index i. */
static int keep_row(struct grader_reader *rd, const struct grader_row *w,
                    size_t i, struct grader_error *err)
{
    struct grader_rung *r = rd->rung;
    struct grader_kept *k = &r->kept[i];
    int rc;

    if ((rc = keep(r, k, GRADER_KEEP_CONTENT, w->content, w->content_len)) ||
        (rc = keep(r, k, GRADER_KEEP_REASONING, w->reasoning,
                   w->reasoning_len)) ||
        (rc = keep(r, k, GRADER_KEEP_FINISH, w->finish, w->finish_len)) ||
        (rc = keep(r, k, GRADER_KEEP_ERROR, w->error, w->error_len)) ||
        (rc = keep(r, k, GRADER_KEEP_CALLS, w->calls, w->calls_len)) ||
        (rc = keep(r, k, GRADER_KEEP_OUTPUT, w->output, w->output_len)))
        return grader__fail(err, rc, r->path, rd->line,
                            rc == GRADER_ETOOBIG
                                ? "the rung's texts pass %u bytes: too many "
                                  "to keep for the page"
                                : "out of memory",
                            GRADER_KEEP_MAX);
    return 0;
}

/* Store s in the pool; returns its offset or GRADER_NONE on no memory. */
static uint32_t pool_add(struct grader_rung *r, const char *s)
{
    size_t n = strlen(s) + 1;
    uint32_t off;

    if (r->pool_len + n > r->pool_cap) {
        size_t cap = r->pool_cap ? r->pool_cap * 2 : 256;
        char *p;
        while (cap < r->pool_len + n)
            cap *= 2;
        if (cap >= GRADER_NONE)
            return GRADER_NONE;
        p = grader__realloc(r->pool, cap);
        if (p == NULL)
            return GRADER_NONE;
        r->pool = p;
        r->pool_cap = cap;
    }
    off = (uint32_t)r->pool_len;
    memcpy(r->pool + off, s, n);
    r->pool_len += n;
    return off;
}

/* Make by_q cover question q. */
static int by_q_reserve(struct grader_rung *r, uint32_t q)
{
    size_t len = r->by_q_len ? r->by_q_len : 16, i;
    uint32_t *p;

    if (q < r->by_q_len)
        return 0;
    while (len <= q)
        len *= 2;
    p = grader__reallocarray(r->by_q, len, sizeof(*p));
    if (p == NULL)
        return GRADER_ENOMEM;
    for (i = r->by_q_len; i < len; i++)
        p[i] = GRADER_NONE;
    r->by_q = p;
    r->by_q_len = len;
    return 0;
}

static int answers_reserve(struct grader_rung *r, int kept)
{
    size_t cap;
    struct grader_answer *p;

    if (r->n < r->cap)
        return 0;
    cap = r->cap ? r->cap * 2 : 16;
    if (kept) {
        struct grader_kept *k = grader__reallocarray(r->kept, cap, sizeof(*k));
        if (k == NULL)
            return GRADER_ENOMEM;
        r->kept = k;
    }
    p = grader__reallocarray(r->answers, cap, sizeof(*p));
    if (p == NULL)
        return GRADER_ENOMEM;
    r->answers = p;
    r->cap = cap;
    return 0;
}

/* ---- one row ----------------------------------------------------------- */

#define FAIL(...)                                                             \
    grader__fail(err, GRADER_EPARSE, rd->rung->path, rd->line, __VA_ARGS__)

int grader__blank(const char *s, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
            return 0;
    return 1;
}

/* Two independent 64-bit hashes of a text; null and "" differ. */
static uint64_t text_hash(const char *s, size_t len)
{
    if (s == NULL)
        return 0;
    return grader__hash64(s, len, 0x2545f4914f6cdd1dULL) | 1;
}

/* A rule that could not grade a row: out of memory. (A user's pattern
 * that spent its step budget on this reply is no failure: the reply is
 * graded by the rule's fallback and counted, GRADER_A_STEP_LIMIT, so a
 * rung whose answers are all in can always be summed and reported.) */
static int rule_failed(struct grader_reader *rd, int rc,
                       const struct grader_row *w, struct grader_error *err)
{
    if (rc == GRADER_ENOMEM)
        return grader__fail(err, rc, rd->rung->path, rd->line,
                            "out of memory");
    return grader__fail(err, rc, rd->rung->path, rd->line,
                        "rule '%s' of task '%s' failed on the reply to '%s'",
                        grader_task_rule_name(rd->task, rd->rule),
                        grader_task_name(rd->task), w->id);
}

/* What a rule said, as it compares it, kept in the rung's pool. */
static int keep_said(struct grader_reader *rd, const struct grader_grade *g,
                     struct grader_answer *a, struct grader_error *err)
{
    a->said = pool_add(rd->rung, g->compared);
    if (a->said == GRADER_NONE)
        return grader__fail(err, GRADER_ENOMEM, rd->rung->path, rd->line,
                            "out of memory");
    a->flags |= GRADER_A_SAID;
    return 0;
}

/* The said and right of a row graded by the reader's task rule. */
static int by_rule(struct grader_reader *rd, const struct grader_row *w,
                   const struct grader_num *ref, struct grader_answer *a,
                   struct grader_error *err)
{
    struct grader_grade g;
    int rc = grader_task_grade(rd->task, rd->rule, w->content, w->content_len,
                               w->ref, w->ref_len, ref, &g);

    if (rc == GRADER_ELIMIT)
        a->flags |= GRADER_A_STEP_LIMIT; /* g is the fallback's grade */
    else if (rc != 0)
        return rule_failed(rd, rc, w, err);
    /* the answer as the rule compares it: "70,000." and "70000" are one
     * answer to lm-eval's rules, as to the study's */
    if (g.said && (rc = keep_said(rd, &g, a, err)) != 0)
        return rc;
    if (!w->has_error && g.right)
        a->flags |= GRADER_A_RIGHT;
    return 0;
}

/* A tool item's row graded by the reader's tool-call rule: its calls
 * and content against its possible answers and its item's docs. An error
 * row is wrong with no bucket (its calls never came). */
static int by_calls(struct grader_reader *rd, const struct grader_row *w,
                    struct grader_answer *a, struct grader_error *err)
{
    struct grader_reply reply = {
        w->id,    w->id_len,    w->content, w->content_len,
        w->calls, w->calls_len, NULL};
    struct grader_grade g;
    char why[300];
    int rc;

    if (w->has_error)
        return 0;
    rc = grader_task_grade_calls(rd->task, rd->rule, &reply, w->ref,
                                 w->ref_len, &g, why, sizeof(why));
    if (rc == GRADER_ENOMEM)
        return grader__fail(err, rc, rd->rung->path, rd->line,
                            "out of memory");
    if (rc != 0)
        return grader__fail(err, rc, rd->rung->path, rd->line, "%s", why);
    if (g.said && (rc = keep_said(rd, &g, a, err)) != 0)
        return rc;
    if (g.calls > 0)
        a->flags |= GRADER_A_CALLED;
    if (g.right)
        a->flags |= GRADER_A_RIGHT;
    a->flags |= (uint32_t)(g.bucket + 1) << GRADER_A_BUCKET_SHIFT;
    return 0;
}

/* A code item's row graded by the reader's exec rule: its recorded
 * outcome, checked against the code of its content. An error row is
 * wrong with no outcome (no reply came to run). */
static int by_exec(struct grader_reader *rd, const struct grader_row *w,
                   struct grader_answer *a, struct grader_error *err)
{
    struct grader_exec e = {w->exec,         w->tests_passed,  w->tests_total,
                            w->exception,    w->exception_len, w->code_hash,
                            w->code_hash_len};
    struct grader_reply reply = {w->id, w->id_len, w->content, w->content_len,
                                 NULL,  0,         &e};
    struct grader_grade g;
    char why[300];
    int rc;

    if (w->has_error)
        return 0;
    rc = grader_task_grade_exec(rd->task, rd->rule, &reply, &g, why,
                                sizeof(why));
    if (rc != 0)
        return grader__fail(err, rc, rd->rung->path, rd->line, "%s", why);
    if (g.said && (rc = keep_said(rd, &g, a, err)) != 0)
        return rc;
    if (g.right)
        a->flags |= GRADER_A_RIGHT;
    a->flags |= GRADER_A_EXECUTED | (uint32_t)(g.bucket + 1)
                                        << GRADER_A_BUCKET_SHIFT;
    return 0;
}

/* The row's thinking tokens, estimated (llama-server counts the reply's
 * tokens as one): completion_tokens times the thinking block's share of
 * the reply's bytes (docs/report.md, "What an answer costs"). */
static void think_tokens(struct grader_rung *r, const struct grader_row *w)
{
    double think = w->reasoning ? (double)w->reasoning_len : 0.0;
    double all = think + (w->content ? (double)w->content_len : 0.0);

    if (w->tokens >= 0 && think > 0)
        r->think_tokens += (double)w->tokens * think / all;
}

/* An empty reply (no error, no call, blank content): counted, and
 * whether its thinking block held the reference (a call there is no
 * call: a tool-call rule looks no further). */
static int empty_reply(struct grader_reader *rd, const struct grader_row *w,
                       const struct grader_num *ref, struct grader_answer *a,
                       int calls, struct grader_error *err)
{
    struct grader_num said;

    a->flags |= GRADER_A_EMPTY;
    if (calls)
        return 0;
    if (rd->task != NULL &&
        grader_task_rule_kind(rd->task, rd->rule) != GRADER_RULE_ANSWER_LINE) {
        struct grader_grade g;
        int rc =
            grader_task_grade(rd->task, rd->rule, w->reasoning,
                              w->reasoning_len, w->ref, w->ref_len, ref, &g);
        /* past the budget on the thinking block: not found there */
        if (rc != 0 && rc != GRADER_ELIMIT)
            return rule_failed(rd, rc, w, err);
        if (rc == 0 && g.right)
            a->flags |= GRADER_A_RIGHT_IN_REASONING;
    } else if (grader_extract(w->reasoning, w->reasoning_len, &said) &&
               strcmp(said.s, ref->s) == 0)
        a->flags |= GRADER_A_RIGHT_IN_REASONING;
    return 0;
}

/* Grade the fields of a row into a (all but q and line). */
static int grade(struct grader_reader *rd, const struct grader_row *w,
                 const struct grader_num *ref, struct grader_answer *a,
                 struct grader_error *err)
{
    struct grader_num said;
    enum grader_rule_kind kind =
        rd->task != NULL ? grader_task_rule_kind(rd->task, rd->rule)
                         : GRADER_RULE_ANSWER_LINE;
    int looped,
        calls = kind == GRADER_RULE_TOOLCALL,
        exec = kind == GRADER_RULE_EXEC || kind == GRADER_RULE_EXEC_BODY;

    a->flags = 0;
    a->said = GRADER_NONE;
    if (w->has_error)
        a->flags |= GRADER_A_ERROR;
    if (calls) {
        int rc = by_calls(rd, w, a, err);
        if (rc != 0)
            return rc;
    } else if (exec) {
        int rc = by_exec(rd, w, a, err);
        if (rc != 0)
            return rc;
    } else if (rd->task != NULL && grader_task_rule_kind(rd->task, rd->rule) !=
                                       GRADER_RULE_ANSWER_LINE) {
        int rc = by_rule(rd, w, ref, a, err);
        if (rc != 0)
            return rc;
    } else if (grader_extract(w->content, w->content_len, &said)) {
        a->said = pool_add(rd->rung, said.s);
        if (a->said == GRADER_NONE)
            return grader__fail(err, GRADER_ENOMEM, rd->rung->path, rd->line,
                                "out of memory");
        a->flags |= GRADER_A_SAID;
        if (!w->has_error && strcmp(said.s, ref->s) == 0)
            a->flags |= GRADER_A_RIGHT;
    }
    if (w->truncated || w->finish_length)
        a->flags |= GRADER_A_CUT_OFF;
    looped = grader_looped(&rd->loop, w->content, w->content_len, w->reasoning,
                           w->reasoning_len);
    if (looped < 0)
        return grader__fail(err, looped, rd->rung->path, rd->line,
                            "out of memory");
    if (looped)
        a->flags |= GRADER_A_LOOPED;
    if (w->reasoning && !grader__blank(w->reasoning, w->reasoning_len))
        a->flags |= GRADER_A_THOUGHT;
    /* a reply of calls alone has no text, and is no empty reply */
    if (!w->has_error && !(a->flags & GRADER_A_CALLED) &&
        (w->content == NULL || grader__blank(w->content, w->content_len))) {
        int rc = empty_reply(rd, w, ref, a, calls || exec, err);
        if (rc != 0)
            return rc;
    }
    a->saved = 0;
    if (w->finish != NULL && w->finish_len == 4 &&
        memcmp(w->finish, "loop", 4) == 0) {
        a->flags |= GRADER_A_ABORTED;
        a->saved = w->saved > INT32_MAX ? INT32_MAX
                   : w->saved > 0       ? (int32_t)w->saved
                                        : 0;
    }
    if (w->violations >= 0)
        a->flags |= GRADER_A_CHECKED;
    if (w->violations > 0)
        a->flags |= GRADER_A_VIOLATED;
    a->tokens = w->tokens > INT32_MAX ? INT32_MAX : (int32_t)w->tokens;
    a->tps = w->tps > GRADER_TPS_MAX ? -1.0f : (float)w->tps;
    a->ms = w->prompt_ms < 0 || w->predicted_ms < 0 ||
                    w->prompt_ms + w->predicted_ms > GRADER_MS_MAX
                ? -1.0f
                : (float)(w->prompt_ms + w->predicted_ms);
    think_tokens(rd->rung, w);
    a->text[0] = a->text[1] = 0;
    if (rd->flags & GRADER_READ_TEXT) {
        a->text[0] = text_hash(w->content, w->content_len);
        a->text[1] = text_hash(w->reasoning, w->reasoning_len);
    }
    return 0;
}

/* Parse, grade and keep one line (without its newline). */
static int row_line(struct grader_reader *rd, const char *p, size_t len,
                    struct grader_error *err)
{
    struct grader_rung *r = rd->rung;
    struct grader_row w;
    struct grader_num ref;
    struct grader_answer *a;
    char msg[256];
    uint32_t q;
    int rc;

    if (grader__blank(p, len))
        return 0;
    rc = grader_rowscan(&rd->scan, p, len, &w, msg, sizeof(msg));
    if (rc == GRADER_ENOMEM)
        return grader__fail(err, rc, r->path, rd->line, "out of memory");
    if (rc != 0)
        return FAIL("%s", msg);
    if (w.id == NULL)
        return FAIL("row has no \"id\"");
    if (w.ref == NULL)
        return FAIL("row '%s' has no \"reference\" (a string such as "
                    "\"70000\")",
                    w.id);
    if (rd->task != NULL
            ? grader_task_ref_parse(rd->task, w.ref, w.ref_len, &ref) != 0
            : grader_num_parse(w.ref, w.ref_len, &ref) != 0)
        return FAIL("reference '%.*s' of '%s' is not %s",
                    (int)(w.ref_len > 64 ? 64 : w.ref_len), w.ref, w.id,
                    rd->task != NULL &&
                            grader_task_ref(rd->task) == GRADER_REF_LETTER
                        ? "a letter"
                        : "a number");
    rc = grader_qset_intern(rd->qs, w.id, w.id_len, w.ref, w.ref_len, &ref,
                            r->path, rd->line, &q, err);
    if (rc == 0) /* a long item's length and depth (docs/longctx.md) */
        rc = grader_qset_long(rd->qs, q, w.length, w.depth, r->path, rd->line,
                              err);
    if (rc != 0)
        return rc;
    if (by_q_reserve(r, q) != 0 ||
        answers_reserve(r, (rd->flags & GRADER_READ_KEEP) != 0) != 0)
        return grader__fail(err, GRADER_ENOMEM, r->path, rd->line,
                            "out of memory");
    if (r->by_q[q] != GRADER_NONE)
        return grader__fail(err, GRADER_EDUPID, r->path, rd->line,
                            "duplicate id '%s' (first on line %u)", w.id,
                            r->answers[r->by_q[q]].line);
    a = &r->answers[r->n];
    if ((rc = grade(rd, &w, &ref, a, err)) != 0)
        return rc;
    if ((rd->flags & GRADER_READ_KEEP) && (rc = keep_row(rd, &w, r->n, err)))
        return rc;
    a->q = q;
    a->line = (uint32_t)rd->line;
    r->by_q[q] = (uint32_t)r->n++;
    return 0;
}

#undef FAIL

/* ---- the resumable reader --------------------------------------------- */

void grader_reader_init(struct grader_reader *rd, struct grader_qset *qs,
                        struct grader_rung *rung, unsigned flags)
{
    memset(rd, 0, sizeof(*rd));
    rd->qs = qs;
    rd->rung = rung;
    rd->flags = flags;
    rung->read_flags = flags;
    grader_loop_scratch_init(&rd->loop);
    grader_rowscan_init(&rd->scan);
}

void grader_reader_set_rule(struct grader_reader *rd,
                            const struct grader_task *task, size_t rule)
{
    rd->task = task;
    rd->rule = rule;
}

void grader_reader_release(struct grader_reader *rd)
{
    grader__free(rd->carry);
    grader_loop_scratch_release(&rd->loop);
    grader_rowscan_release(&rd->scan);
    rd->carry = NULL;
    rd->carry_len = rd->carry_cap = 0;
}

static int too_big(struct grader_reader *rd, struct grader_error *err)
{
    rd->failed = 1;
    return grader__fail(err, GRADER_ETOOBIG, rd->rung->path, rd->line + 1,
                        "row longer than %u bytes", GRADER_ROW_MAX);
}

static int carry_append(struct grader_reader *rd, const char *p, size_t n,
                        struct grader_error *err)
{
    if (rd->carry_len + n > GRADER_ROW_MAX)
        return too_big(rd, err);
    if (rd->carry_len + n > rd->carry_cap) {
        size_t cap = rd->carry_cap ? rd->carry_cap : 4096;
        char *c;
        while (cap < rd->carry_len + n)
            cap *= 2;
        c = grader__realloc(rd->carry, cap);
        if (c == NULL) {
            rd->failed = 1;
            return grader__fail(err, GRADER_ENOMEM, rd->rung->path,
                                rd->line + 1, "out of memory");
        }
        rd->carry = c;
        rd->carry_cap = cap;
    }
    memcpy(rd->carry + rd->carry_len, p, n);
    rd->carry_len += n;
    return 0;
}

int grader_reader_feed(struct grader_reader *rd, const char *buf, size_t len,
                       struct grader_error *err)
{
    const char *p = buf, *end = buf + len;
    int rc;

    if (rd->failed)
        return grader__fail(err, GRADER_EARG, rd->rung->path, 0,
                            "reader used after an error");
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (nl == NULL)
            return carry_append(rd, p, (size_t)(end - p), err);
        rd->line++;
        if (rd->carry_len > 0) {
            /* the line began in an earlier slice */
            if ((rc = carry_append(rd, p, (size_t)(nl - p), err)) != 0)
                return rc;
            rc = row_line(rd, rd->carry, rd->carry_len, err);
            rd->carry_len = 0;
        } else if ((size_t)(nl - p) > GRADER_ROW_MAX) {
            rd->line--;
            return too_big(rd, err);
        } else {
            rc = row_line(rd, p, (size_t)(nl - p), err);
        }
        if (rc != 0) {
            rd->failed = 1;
            return rc;
        }
        p = nl + 1;
    }
    return 0;
}

int grader_reader_finish(struct grader_reader *rd, struct grader_error *err)
{
    int rc;

    if (rd->failed)
        return grader__fail(err, GRADER_EARG, rd->rung->path, 0,
                            "reader used after an error");
    if (rd->carry_len == 0)
        return 0;
    rd->line++;
    rc = row_line(rd, rd->carry, rd->carry_len, err);
    rd->carry_len = 0;
    if (rc == GRADER_EPARSE && err != NULL) {
        char text[GRADER_ERROR_TEXT];
        snprintf(text, sizeof(text), "%s", err->text);
        snprintf(err->text, sizeof(err->text),
                 "torn last line, the writer stopped mid-row (%.300s); "
                 "'graveyard run' cuts it back when it resumes",
                 text);
    }
    if (rc != 0)
        rd->failed = 1;
    return rc;
}
