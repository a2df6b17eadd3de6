/*
 * emit.c - build the JSON objects the commands print and write.
 */
#include "emit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../grader/grader.h"
#include "../toolcall/toolcall.h"

/* Set key to value (stolen); remembers the first failure in *ok. */
static void put(json_t *o, const char *key, json_t *value, int *ok)
{
    if (value == NULL || json_object_set_new(o, key, value) != 0)
        *ok = 0;
}

static json_t *size_v(size_t n)
{
    return json_integer((json_int_t)n);
}

/* Known non-negative figure, or null. */
static json_t *opt_int(long long v)
{
    return v < 0 ? json_null() : json_integer(v);
}

/* Known non-negative real, or null: inf and NaN too, which no JSON holds
 * (json_real gives NULL, and the line would be lost as out of memory). */
static json_t *opt_real(double v)
{
    return v < 0 || !isfinite(v) ? json_null() : json_real(v);
}

static json_t *finish(json_t *o, int ok)
{
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *emit_number(const char *canonical)
{
    char *end;
    long long v;
    double d;

    if (canonical == NULL)
        return json_null();
    if (strchr(canonical, '.') == NULL && strlen(canonical) <= 18) {
        v = strtoll(canonical, &end, 10);
        if (*end == '\0' && end != canonical)
            return json_integer(v);
    }
    /* a rule that reads no number (a choice's letter, a regex rule's
     * text: docs/tasks.md) said a string; a canonical number is digits,
     * a sign and a point only */
    d = strtod(canonical, &end);
    if (*end != '\0' || end == canonical ||
        canonical[strspn(canonical, "-0123456789.")] != '\0')
        return json_string(canonical);
    return json_real(d);
}

json_t *emit_bury_line(const struct grader_bury *b, size_t i,
                       const struct grader_meta *meta)
{
    const struct grader_bury_line *l = &b->lines[i];
    json_t *o = json_object();
    int ok = o != NULL;

    if (o == NULL)
        return NULL;
    put(o, "rung", json_string(l->rung->name), &ok);
    put(o, "n", size_v(l->sum.n), &ok);
    put(o, "right", size_v(l->sum.right), &ok);
    put(o, "errors", size_v(l->sum.errors), &ok);
    put(o, "truncated", size_v(l->sum.truncated), &ok);
    put(o, "median_decode_tps", opt_real(l->sum.median_tps), &ok);
    put(o, "mean_tokens", opt_real(l->sum.mean_tokens), &ok);
    put(o, "dead", size_v(l->dead), &ok);
    put(o, "ghosts", size_v(l->ghosts), &ok);
    put(o, "answer_changed", size_v(l->answer_changed), &ok);
    put(o, "p_mcnemar", i == 0 ? json_null() : json_real(l->p_mcnemar), &ok);
    put(o, "bytes", opt_int(meta ? meta->bytes : -1), &ok);
    put(o, "gpu_mib_loaded", opt_int(meta ? meta->gpu_mib_loaded : -1), &ok);
    put(o, "gpu_mib_before", opt_int(meta ? meta->gpu_mib_before : -1), &ok);
    /* only when some: every bury line before it stays as it was */
    if (l->sum.step_limit > 0)
        put(o, "step_limit", size_v(l->sum.step_limit), &ok);
    if (l->missing > 0 || l->extra > 0) {
        put(o, "missing", size_v(l->missing), &ok);
        put(o, "extra", size_v(l->extra), &ok);
    }
    return finish(o, ok);
}

json_t *emit_bury_summary(const struct grader_bury *b)
{
    json_t *o = json_object(), *fd = json_object();
    int ok = o != NULL && fd != NULL;
    size_t i;

    if (!ok) {
        json_decref(o);
        json_decref(fd);
        return NULL;
    }
    for (i = 1; i < b->nrungs; i++)
        put(fd, b->lines[i].rung->name, size_v(b->lines[i].first_deaths), &ok);
    put(o, "first_deaths_by_rung", fd, &ok);
    put(o, "tombstones", size_v(b->ntombs), &ok);
    put(o, "ghosts", size_v(b->nghosts), &ok);
    return finish(o, ok);
}

/* The names of the rungs whose bit is set in mask. */
static json_t *rung_names(const struct grader_bury *b, uint64_t mask)
{
    json_t *a = json_array();
    size_t i;

    if (a == NULL)
        return NULL;
    for (i = 0; i < b->nrungs; i++) {
        if (!(mask & (1ULL << i)))
            continue;
        if (json_array_append_new(a, json_string(b->lines[i].rung->name))) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

json_t *emit_tombstone(const struct grader_bury *b,
                       const struct grader_qset *qs,
                       const struct grader_tombstone *t)
{
    json_t *o = json_object();
    int ok = o != NULL;

    if (o == NULL)
        return NULL;
    put(o, "id", json_string(grader_qset_id(qs, t->q)), &ok);
    put(o, "died_at", json_string(b->lines[t->died_at].rung->name), &ok);
    put(o, "answer", json_string(grader_qset_reference(qs, t->q)), &ok);
    put(o, "said", emit_number(t->said), &ok);
    put(o, "right_again_at", rung_names(b, t->right_again), &ok);
    if (grader_qset_length(qs, t->q) >= 0) /* a long item's (longctx.md) */
        put(o, "length", json_integer(grader_qset_length(qs, t->q)), &ok);
    return finish(o, ok);
}

static json_t *ghost(const struct grader_bury *b, const struct grader_qset *qs,
                     const struct grader_ghost *g)
{
    json_t *o = json_object();
    int ok = o != NULL;

    if (o == NULL)
        return NULL;
    put(o, "id", json_string(grader_qset_id(qs, g->q)), &ok);
    put(o, "answer", json_string(grader_qset_reference(qs, g->q)), &ok);
    put(o, "reference_said", emit_number(g->reference_said), &ok);
    put(o, "right_at", rung_names(b, g->right_at), &ok);
    return finish(o, ok);
}

/* Dump j (stolen) through out; 0 or GRADER_ENOMEM / the sink's code. */
static int sink_json(json_t *j, emit_sink_fn out, void *ctx)
{
    char *text = j ? emit_dumps(j) : NULL;
    int rc;

    json_decref(j);
    if (text == NULL)
        return GRADER_ENOMEM;
    rc = out(ctx, text, strlen(text));
    emit_free(text);
    return rc;
}

/* A list of records, one dumped at a time, as json_dumps lays it out. */
static int sink_list(const struct grader_bury *b, const struct grader_qset *qs,
                     int tombs, emit_sink_fn out, void *ctx)
{
    size_t i, n = tombs ? b->ntombs : b->nghosts;
    int rc = out(ctx, "[", 1);

    for (i = 0; rc == 0 && i < n; i++) {
        if (i > 0)
            rc = out(ctx, ", ", 2);
        if (rc == 0)
            rc = sink_json(tombs ? emit_tombstone(b, qs, &b->tombs[i])
                                 : ghost(b, qs, &b->ghosts[i]),
                           out, ctx);
    }
    return rc ? rc : out(ctx, "]", 1);
}

int emit_graveyard(const struct grader_bury *b, const struct grader_qset *qs,
                   emit_sink_fn out, void *ctx)
{
    json_t *head = json_object();
    char *text;
    size_t len;
    int ok = head != NULL, rc;

    if (head == NULL)
        return GRADER_ENOMEM;
    put(head, "reference", json_string(b->lines[0].rung->name), &ok);
    put(head, "rungs",
        rung_names(b, b->nrungs == 64 ? ~0ULL : (1ULL << b->nrungs) - 1), &ok);
    put(head, "questions", size_v(b->questions), &ok);
    text = ok ? emit_dumps(head) : NULL;
    json_decref(head);
    if (text == NULL)
        return GRADER_ENOMEM;
    /* the head without its closing brace, then the two lists: the same
     * text json_dumps would give for the whole object, without holding
     * every record in memory at once */
    len = strlen(text);
    rc = out(ctx, text, len - 1);
    emit_free(text);
    if (rc == 0)
        rc = out(ctx, ", \"tombstones\": ", 16);
    if (rc == 0)
        rc = sink_list(b, qs, 1, out, ctx);
    if (rc == 0)
        rc = out(ctx, ", \"ghosts\": ", 12);
    if (rc == 0)
        rc = sink_list(b, qs, 0, out, ctx);
    return rc ? rc : out(ctx, "}\n", 2);
}

/* Causes counted three ways (the tool calls' buckets, the code's
 * outcomes): {ALL: {NAME: n}, DEAD: {NAME: n}, CUT: {NAME: n}} into o,
 * every name of the taxonomy (0 included), so a reader need not know the
 * taxonomy to sum it. name(k) names cause k of n. */
static void causes_v(json_t *o, const char *(*name)(int), int n,
                     const char *const keys[3], const size_t *all,
                     const size_t *dead, const size_t *cut, int *ok)
{
    const size_t *v[3] = {all, dead, cut};

    for (int w = 0; w < 3 && *ok; w++) {
        json_t *one = json_object();
        int fine = one != NULL;
        for (int k = 0; fine && k < n; k++)
            put(one, name(k), size_v(v[w][k]), &fine);
        if (!fine) {
            json_decref(one);
            *ok = 0;
            return;
        }
        put(o, keys[w], one, ok);
    }
}

static const char *bucket_name(int k)
{
    return toolcall_bucket_name((enum toolcall_bucket)k);
}

/* A rung's tool-call verdicts: {"answers", "called", "buckets": {NAME:
 * n}, "dead_buckets", "cut_off_buckets"}. */
static json_t *tool_calls_v(const struct grader_autopsy_line *l)
{
    static const char *const keys[3] = {"buckets", "dead_buckets",
                                        "cut_off_buckets"};
    json_t *o = json_object();
    int ok = o != NULL;

    put(o, "answers", size_v(l->tool_answers), &ok);
    put(o, "called", size_v(l->called), &ok);
    causes_v(o, bucket_name, TOOLCALL_NBUCKETS, keys, l->buckets,
             l->dead_buckets, l->cut_buckets, &ok);
    return finish(o, ok);
}

/* A rung's code outcomes (docs/code.md): {"answers", "outcomes": {NAME:
 * n}, "dead_outcomes", "cut_off_outcomes"}. */
static json_t *code_v(const struct grader_autopsy_line *l)
{
    static const char *const keys[3] = {"outcomes", "dead_outcomes",
                                        "cut_off_outcomes"};
    json_t *o = json_object();
    int ok = o != NULL;

    put(o, "answers", size_v(l->code_answers), &ok);
    causes_v(o, grader_exec_name, GRADER_EXEC_OUTCOMES, keys, l->outcomes,
             l->dead_outcomes, l->cut_outcomes, &ok);
    return finish(o, ok);
}

json_t *emit_autopsy_line(const struct grader_autopsy_line *l)
{
    json_t *o = json_object();
    int ok = o != NULL;

    if (o == NULL)
        return NULL;
    put(o, "rung", json_string(l->rung->name), &ok);
    put(o, "n", size_v(l->n), &ok);
    put(o, "errors", size_v(l->errors), &ok);
    put(o, "cut_off", size_v(l->cut_off), &ok);
    put(o, "looped", size_v(l->looped), &ok);
    put(o, "thought", size_v(l->thought), &ok);
    put(o, "empty_content", size_v(l->empty_content), &ok);
    put(o, "empty_right_in_reasoning", size_v(l->empty_right_in_reasoning),
        &ok);
    put(o, "dead", size_v(l->dead), &ok);
    put(o, "dead_cut_off", size_v(l->dead_cut_off), &ok);
    put(o, "dead_looped", size_v(l->dead_looped), &ok);
    put(o, "dead_empty_content", size_v(l->dead_empty_content), &ok);
    put(o, "first_deaths", size_v(l->first_deaths), &ok);
    put(o, "first_deaths_right_again_lower",
        size_v(l->first_deaths_right_again_lower), &ok);
    if (l->tool_answers > 0) /* only where tool items were asked */
        put(o, "tool_calls", tool_calls_v(l), &ok);
    if (l->code_answers > 0) /* only where code items were run */
        put(o, "code", code_v(l), &ok);
    return finish(o, ok);
}

json_t *emit_repeat_line(const struct grader_repeat_line *l)
{
    json_t *o = json_object();
    int ok = o != NULL;

    if (o == NULL)
        return NULL;
    put(o, "rung", json_string(l->a->name), &ok);
    put(o, "n", size_v(l->n), &ok);
    put(o, "mismatched_extracted", size_v(l->mismatched_extracted), &ok);
    put(o, "mismatched_text", size_v(l->mismatched_text), &ok);
    put(o, "mismatched_right", size_v(l->mismatched_right), &ok);
    put(o, "right_a", size_v(l->right_a), &ok);
    put(o, "right_b", size_v(l->right_b), &ok);
    if (l->only_a > 0 || l->only_b > 0) {
        put(o, "only_a", size_v(l->only_a), &ok);
        put(o, "only_b", size_v(l->only_b), &ok);
    }
    return finish(o, ok);
}

/* jansson's own free: its strings come from the allocator the grader
 * installed in it (alloc.h). */
static void json_free(void *p)
{
    json_malloc_t m;
    json_free_t f;

    json_get_alloc_funcs(&m, &f);
    f(p);
}

void emit_alloc_init(void)
{
    json_set_alloc_funcs(grader_alloc_malloc, grader_alloc_free);
}

char *emit_dumps(const json_t *j)
{
    unsigned long failures = grader_alloc_failures();
    char *s = json_dumps(j, JSON_REAL_PRECISION(15) | JSON_ENCODE_ANY);

    /* jansson can drop bytes from its output when an allocation fails
     * and still return a string (found by test_chaos): out of memory */
    if (s != NULL && grader_alloc_failures() != failures) {
        json_free(s);
        return NULL;
    }
    return s;
}

void emit_free(char *s)
{
    json_free(s);
}

/* A real rounded to 4 decimals (6 for p-values is the emitter's): short,
 * stable text for ratios and interval ends; null when negative (unknown)
 * where unknown is allowed. */
json_t *emit_real4(double v)
{
    char s[32];

    /* no JSON holds inf or NaN (json_real says NULL): unknown */
    if (!isfinite(v))
        return json_null();
    /* a figure too long for s is kept as it is, not cut to its digits */
    if (snprintf(s, sizeof(s), "%.4f", v) >= (int)sizeof(s))
        return json_real(v);
    return json_real(strtod(s, NULL));
}
