/*
 * lengths.c - each rung's figures at each prompt length (lengths.h).
 */
#include "lengths.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "internal.h"

struct grader_rung *grader_rung_at_length(const struct grader_rung *r,
                                          const struct grader_qset *qs,
                                          long length)
{
    struct grader_rung *s = grader_rung_new(r->name, r->path);
    size_t i;

    if (s == NULL)
        return NULL;
    s->read_flags = r->read_flags & ~(unsigned)GRADER_READ_KEEP;
    s->answers =
        grader__reallocarray(NULL, r->n ? r->n : 1, sizeof(*s->answers));
    s->by_q = grader__reallocarray(NULL, r->by_q_len ? r->by_q_len : 1,
                                   sizeof(*s->by_q));
    s->pool = grader__reallocarray(NULL, r->pool_len + 1, 1);
    if (s->answers == NULL || s->by_q == NULL || s->pool == NULL) {
        grader_rung_free(s);
        return NULL;
    }
    s->cap = r->n ? r->n : 1;
    s->by_q_len = r->by_q_len;
    for (i = 0; i < r->by_q_len; i++)
        s->by_q[i] = GRADER_NONE;
    /* the extracted numbers keep their offsets: the pool is copied whole */
    if (r->pool_len > 0)
        memcpy(s->pool, r->pool, r->pool_len);
    s->pool[r->pool_len] = '\0';
    s->pool_len = r->pool_len;
    s->pool_cap = r->pool_len + 1;
    for (i = 0; i < r->n; i++) {
        const struct grader_answer *a = &r->answers[i];
        if (grader_qset_length(qs, a->q) != length)
            continue;
        s->answers[s->n] = *a;
        s->by_q[a->q] = (uint32_t)s->n++;
    }
    return s;
}

/* The lengths of qs's questions, ascending, into l; -1 past the cap. */
static int lengths_of(const struct grader_qset *qs, struct grader_lengths *l)
{
    size_t q, k, j;

    for (q = 0; q < grader_qset_count(qs); q++) {
        long len = grader_qset_length(qs, (uint32_t)q);
        if (len < 0) {
            l->no_length++;
            continue;
        }
        for (k = 0; k < l->nlengths && l->lengths[k] < len; k++)
            ;
        if (k < l->nlengths && l->lengths[k] == len)
            continue;
        if (l->nlengths == GRADER_MAX_LENGTHS)
            return -1;
        for (j = l->nlengths++; j > k; j--)
            l->lengths[j] = l->lengths[j - 1];
        l->lengths[k] = len;
    }
    return 0;
}

/* The index of len in l->lengths (there: lengths_of put every one). */
static size_t length_index(const struct grader_lengths *l, long len)
{
    size_t k;

    for (k = 0; k + 1 < l->nlengths && l->lengths[k] != len; k++)
        ;
    return k;
}

/* Where the needles of the reference-right questions sat, and which of
 * them died at each rung, over every length and at each length. */
static void by_depth(const struct grader_qset *qs,
                     const struct grader_rung *const *chain, size_t nchain,
                     struct grader_lengths *l)
{
    const struct grader_rung *ref = chain[0];
    size_t i, k, len;

    for (k = 0; k < ref->n; k++) {
        const struct grader_answer *a = &ref->answers[k];
        int depth = grader_qset_depth(qs, a->q);
        size_t bin;
        if (depth < 0 || grader_qset_length(qs, a->q) < 0 ||
            !(a->flags & GRADER_A_RIGHT))
            continue;
        bin = depth >= 100 ? GRADER_DEPTH_BINS - 1 : (size_t)depth / 10;
        len = length_index(l, grader_qset_length(qs, a->q));
        l->asked_by_depth[bin]++;
        l->depth_asked_at[len][bin]++;
        l->depth_asked_len[len]++;
        for (i = 1; i < nchain; i++) {
            const struct grader_answer *b = grader_rung_find(chain[i], a->q);
            if (b == NULL)
                continue;
            l->answered_by_depth[i][bin]++;
            l->depth_answered_at[len][i][bin]++;
            l->depth_answered[i]++;
            if (!(b->flags & GRADER_A_RIGHT)) {
                l->dead_by_depth[i][bin]++;
                l->depth_dead_at[len][i][bin]++;
            }
        }
    }
}

double grader_lengths_depth_lost(const struct grader_lengths *l, size_t k,
                                 size_t i, size_t b)
{
    size_t n;

    if (k >= l->nlengths || i >= l->nrungs || b >= GRADER_DEPTH_BINS)
        return -1;
    n = l->depth_answered_at[k][i][b];
    return n == 0 ? -1 : (double)l->depth_dead_at[k][i][b] / (double)n;
}

/* The ladder of length k's questions: the rungs cut down (kept in l,
 * which the ladder's lines point at), buried. */
static int one_length(const struct grader_qset *qs,
                      const struct grader_meta *metas,
                      const struct grader_rung *const *chain, size_t nchain,
                      double margin, unsigned flags, struct grader_lengths *l,
                      size_t k, struct grader_error *err)
{
    struct grader_rung **cut = l->cut[k];
    size_t i;
    int rc;

    for (i = 0; i < nchain; i++)
        if ((cut[i] = grader_rung_at_length(chain[i], qs, l->lengths[k])) ==
            NULL)
            return grader__fail(err, GRADER_ENOMEM, chain[i]->path, 0,
                                "out of memory");
    rc = grader_ladder_build(qs, metas, (const struct grader_rung *const *)cut,
                             nchain, NULL, 0, NULL, NULL, 0, flags, &l->per[k],
                             err);
    if (rc != 0)
        return rc;
    grader_ladder_verdicts(&l->per[k], margin);
    return 0;
}

static void release_cut(struct grader_lengths *l)
{
    for (size_t k = 0; k < GRADER_MAX_LENGTHS; k++)
        for (size_t i = 0; i < GRADER_MAX_RUNGS; i++) {
            grader_rung_free(l->cut[k][i]);
            l->cut[k][i] = NULL;
        }
}

/* The length of an "@LENGTH" suffix of id that is len's, or 0: the
 * bytes of the item's own name before it. */
static size_t item_name(const char *id, long len)
{
    const char *at = strrchr(id, '@');
    char *end;

    if (at == NULL || len < 0 || strtol(at + 1, &end, 10) != len ||
        *end != '\0')
        return strlen(id);
    return (size_t)(at - id);
}

/* Each item's first death by length, at each rung: the questions of the
 * reference's rows grouped by item, in the reference's order (a
 * quadratic walk over small sets: a long run holds a few thousand). */
static void first_deaths(const struct grader_qset *qs,
                         const struct grader_rung *const *chain, size_t nchain,
                         struct grader_lengths *l)
{
    const struct grader_rung *ref = chain[0];
    size_t a, b, i, k;

    for (a = 0; a < ref->n; a++) {
        uint32_t qa = ref->answers[a].q;
        const char *ida = grader_qset_id(qs, qa);
        size_t na = item_name(ida, grader_qset_length(qs, qa));
        long dead[GRADER_MAX_RUNGS];
        int first = 1, all_right = 1;
        if (grader_qset_length(qs, qa) < 0)
            continue;
        for (i = 0; i < nchain; i++)
            dead[i] = -1;
        for (b = 0; b < ref->n && first; b++) {
            uint32_t qb = ref->answers[b].q;
            const char *idb = grader_qset_id(qs, qb);
            long len = grader_qset_length(qs, qb);
            if (len < 0 || item_name(idb, len) != na ||
                memcmp(ida, idb, na) != 0)
                continue;
            if (b < a) { /* the item was counted at its first question */
                first = 0;
                break;
            }
            all_right &= (ref->answers[b].flags & GRADER_A_RIGHT) != 0;
            for (k = 0; k < l->nlengths && l->lengths[k] != len; k++)
                ;
            for (i = 1; i < nchain; i++) {
                const struct grader_answer *x = grader_rung_find(chain[i], qb);
                if (x != NULL && !(x->flags & GRADER_A_RIGHT) &&
                    (ref->answers[b].flags & GRADER_A_RIGHT) &&
                    (dead[i] < 0 || (long)k < dead[i]))
                    dead[i] = (long)k;
            }
        }
        if (!first || !all_right)
            continue;
        l->items++;
        for (i = 1; i < nchain; i++)
            if (dead[i] >= 0)
                l->items_dead_at[i][dead[i]]++;
    }
}

int grader_lengths_build(const struct grader_qset *qs,
                         const struct grader_meta *metas,
                         const struct grader_rung *const *chain, size_t nchain,
                         double margin, unsigned flags,
                         struct grader_lengths *out, struct grader_error *err)
{
    size_t k, i, built = 0;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    if (nchain < 2 || nchain > GRADER_MAX_RUNGS)
        return grader__fail(err, GRADER_EARG, NULL, 0,
                            "a length axis needs 2 to %d rungs, not %zu",
                            GRADER_MAX_RUNGS, nchain);
    if (!grader_qset_has_lengths(qs))
        return grader__fail(err, GRADER_EARG, NULL, 0,
                            "no row carries a length: not a long run");
    if (lengths_of(qs, out) != 0)
        return grader__fail(err, GRADER_EARG, NULL, 0,
                            "more than %d lengths in one run",
                            GRADER_MAX_LENGTHS);
    out->nrungs = nchain;
    for (k = 0; k < out->nlengths && rc == 0; k++) {
        rc = one_length(qs, metas, chain, nchain, margin, flags, out, k, err);
        built += rc == 0;
    }
    if (rc != 0) {
        for (k = 0; k < built; k++)
            grader_ladder_release(&out->per[k]);
        release_cut(out);
        memset(out, 0, sizeof(*out));
        return rc;
    }
    for (i = 0; i < nchain; i++) {
        out->first_not_eq[i] = out->first_worse[i] = -1;
        for (k = out->nlengths; i > 0 && k-- > 0;) { /* the first of each */
            int v = out->per[k].rungs[i].verdict.kind;
            if (v != GRADER_VERDICT_EQUIVALENT)
                out->first_not_eq[i] = (long)k;
            if (v == GRADER_VERDICT_WORSE)
                out->first_worse[i] = (long)k;
        }
    }
    out->margin = out->per[0].margin_used;
    by_depth(qs, chain, nchain, out);
    first_deaths(qs, chain, nchain, out);
    return 0;
}

void grader_lengths_release(struct grader_lengths *l)
{
    for (size_t k = 0; k < l->nlengths; k++)
        grader_ladder_release(&l->per[k]);
    release_cut(l);
    memset(l, 0, sizeof(*l));
}
