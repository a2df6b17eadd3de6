/*
 * bury.c - dead, ghosts, tombstones and the autopsy, one pass over the
 * reference's questions.
 */
#include "bury.h"

#include <string.h>

#include "alloc.h"
#include "internal.h"

static int same_said(const char *x, const char *y)
{
    if (x == NULL || y == NULL)
        return x == y;
    return strcmp(x, y) == 0;
}

/* Every rung must hold exactly the reference's questions unless partial. */
static int check_sets(const struct grader_qset *qs,
                      const struct grader_rung *const *rungs, size_t n,
                      unsigned flags, struct grader_bury_line *lines,
                      struct grader_error *err)
{
    const struct grader_rung *ref = rungs[0];
    size_t i, j;

    for (i = 1; i < n; i++) {
        const struct grader_rung *r = rungs[i];
        const char *first_missing = NULL, *first_extra = NULL;
        for (j = 0; j < ref->n; j++) {
            uint32_t q = ref->answers[j].q;
            if (grader_rung_find(r, q) == NULL) {
                if (lines[i].missing++ == 0)
                    first_missing = grader_qset_id(qs, q);
            }
        }
        for (j = 0; j < r->n; j++) {
            uint32_t q = r->answers[j].q;
            if (grader_rung_find(ref, q) == NULL) {
                if (lines[i].extra++ == 0)
                    first_extra = grader_qset_id(qs, q);
            }
        }
        if (flags & GRADER_PARTIAL)
            continue;
        if (lines[i].missing > 0)
            return grader__fail(
                err, GRADER_EMISSING, r->path, 0,
                "rung '%s' is missing %zu of the %zu questions of reference "
                "'%s' (first: '%s'); finish the rung, or pass --partial",
                r->name, lines[i].missing, ref->n, ref->name, first_missing);
        if (lines[i].extra > 0)
            return grader__fail(
                err, GRADER_EEXTRA, r->path, 0,
                "rung '%s' has %zu questions that reference '%s' does not "
                "(first: '%s'); finish the reference, or pass --partial",
                r->name, lines[i].extra, ref->name, first_extra);
    }
    return 0;
}

/* Per question of the reference: the counts and records. */
static int walk(const struct grader_rung *const *rungs, size_t n,
                struct grader_bury *b)
{
    const struct grader_rung *ref = rungs[0];
    size_t j, i;

    for (j = 0; j < ref->n; j++) {
        const struct grader_answer *ra = &ref->answers[j];
        const char *rsaid = grader_rung_said(ref, ra);
        uint32_t q = ra->q, died = 0;
        uint64_t right_at = 0, again = 0;
        for (i = 1; i < n; i++) {
            const struct grader_answer *a = grader_rung_find(rungs[i], q);
            if (a == NULL)
                continue;
            if (!same_said(rsaid, grader_rung_said(rungs[i], a)))
                b->lines[i].answer_changed++;
            if (grader_answer_right(ra) && grader_answer_right(a))
                b->lines[i].both_right++;
            else if (!grader_answer_right(ra) && !grader_answer_right(a))
                b->lines[i].both_wrong++;
            if (grader_answer_right(ra) && !grader_answer_right(a)) {
                b->lines[i].dead++;
                if (died == 0)
                    died = (uint32_t)i;
            } else if (!grader_answer_right(ra) && grader_answer_right(a)) {
                b->lines[i].ghosts++;
                right_at |= 1ULL << i;
            } else if (died != 0 && grader_answer_right(a)) {
                again |= 1ULL << i;
            }
        }
        if (died != 0) {
            struct grader_tombstone *t = &b->tombs[b->ntombs++];
            t->q = q;
            t->died_at = died;
            t->said = grader_rung_said(rungs[died],
                                       grader_rung_find(rungs[died], q));
            t->right_again = again;
            b->lines[died].first_deaths++;
            if (again != 0)
                b->lines[died].first_deaths_right_again_lower++;
        }
        if (right_at != 0) {
            struct grader_ghost *g = &b->ghosts[b->nghosts++];
            g->q = q;
            g->reference_said = rsaid;
            g->right_at = right_at;
        }
    }
    return 0;
}

int grader_bury(const struct grader_qset *qs,
                const struct grader_rung *const *rungs, size_t n,
                unsigned flags, struct grader_bury *out,
                struct grader_error *err)
{
    size_t i;
    int rc;

    memset(out, 0, sizeof(*out));
    if (n == 0 || n > GRADER_MAX_RUNGS)
        return grader__fail(err, GRADER_EARG, "", 0,
                            "bury takes 1 to %d rungs, not %zu",
                            GRADER_MAX_RUNGS, n);
    out->nrungs = n;
    out->questions = rungs[0]->n;
    out->lines = grader__calloc(n, sizeof(*out->lines));
    out->tombs = grader__calloc(rungs[0]->n, sizeof(*out->tombs));
    out->ghosts = grader__calloc(rungs[0]->n, sizeof(*out->ghosts));
    if (out->lines == NULL || out->tombs == NULL || out->ghosts == NULL) {
        grader_bury_release(out);
        return grader__fail(err, GRADER_ENOMEM, "", 0, "out of memory");
    }
    rc = check_sets(qs, rungs, n, flags, out->lines, err);
    for (i = 0; rc == 0 && i < n; i++) {
        out->lines[i].rung = rungs[i];
        if (grader_summarize(rungs[i], &out->lines[i].sum) != 0)
            rc = grader__fail(err, GRADER_ENOMEM, rungs[i]->path, 0,
                              "out of memory");
    }
    if (rc == 0)
        rc = walk(rungs, n, out);
    if (rc != 0) {
        grader_bury_release(out);
        return rc;
    }
    for (i = 0; i < n; i++)
        out->lines[i].p_mcnemar =
            grader_mcnemar_p(out->lines[i].dead, out->lines[i].ghosts);
    return 0;
}

void grader_bury_release(struct grader_bury *b)
{
    grader__free(b->lines);
    grader__free(b->tombs);
    grader__free(b->ghosts);
    memset(b, 0, sizeof(*b));
}

static uint16_t answer_facts(const struct grader_answer *a)
{
    unsigned f = a->flags;

    return (uint16_t)(GRADER_F_ANSWERED |
                      ((f & GRADER_A_RIGHT) ? GRADER_F_RIGHT : 0) |
                      ((f & GRADER_A_CUT_OFF) ? GRADER_F_CUT_OFF : 0) |
                      ((f & GRADER_A_LOOPED) ? GRADER_F_LOOPED : 0) |
                      ((f & GRADER_A_ERROR) ? GRADER_F_ERROR : 0) |
                      ((f & GRADER_A_EMPTY) ? GRADER_F_EMPTY : 0) |
                      ((f & GRADER_A_THOUGHT) ? GRADER_F_THOUGHT : 0) |
                      ((f & GRADER_A_SAID) ? GRADER_F_SAID : 0));
}

void grader_bury_cells(const struct grader_bury *b,
                       const struct grader_rung *const *rungs, size_t nq,
                       uint16_t *facts)
{
    const struct grader_rung *ref = rungs[0];
    size_t i, j;

    memset(facts, 0, b->nrungs * nq * sizeof(*facts));
    for (i = 0; i < b->nrungs; i++)
        for (j = 0; j < rungs[i]->n; j++) {
            const struct grader_answer *a = &rungs[i]->answers[j], *ra;
            uint16_t f = answer_facts(a);
            if (a->q >= nq)
                continue;
            /* as walk(): only questions the reference answered */
            ra = grader_rung_find(ref, a->q);
            if (i > 0 && ra != NULL) {
                if (grader_answer_right(ra) && !grader_answer_right(a))
                    f |= GRADER_F_DEAD;
                else if (!grader_answer_right(ra) && grader_answer_right(a))
                    f |= GRADER_F_GHOST;
            }
            facts[i * nq + a->q] = f;
        }
    for (j = 0; j < b->ntombs; j++) {
        const struct grader_tombstone *t = &b->tombs[j];
        if (t->q >= nq)
            continue;
        facts[(size_t)t->died_at * nq + t->q] |= GRADER_F_TOMB;
        for (i = 1; i < b->nrungs; i++)
            if (t->right_again & (1ULL << i))
                facts[i * nq + t->q] |= GRADER_F_ROSE;
    }
}

void grader_autopsy(const struct grader_bury *b,
                    const struct grader_rung *const *rungs,
                    struct grader_autopsy_line *out)
{
    const struct grader_rung *ref = rungs[0];
    size_t i, j;
    int bucket, outcome;

    for (i = 0; i < b->nrungs; i++) {
        const struct grader_rung *r = rungs[i];
        struct grader_autopsy_line *l = &out[i];
        memset(l, 0, sizeof(*l));
        l->rung = r;
        l->n = r->n;
        for (j = 0; j < r->n; j++) {
            unsigned f = r->answers[j].flags;
            const struct grader_answer *ra;
            l->errors += (f & GRADER_A_ERROR) != 0;
            l->cut_off += (f & GRADER_A_CUT_OFF) != 0;
            l->looped += (f & GRADER_A_LOOPED) != 0;
            l->thought += (f & GRADER_A_THOUGHT) != 0;
            l->empty_content += (f & GRADER_A_EMPTY) != 0;
            l->empty_right_in_reasoning +=
                (f & GRADER_A_RIGHT_IN_REASONING) != 0;
            bucket = grader_answer_bucket(&r->answers[j]);
            if (bucket >= 0 && bucket < TOOLCALL_NBUCKETS) {
                l->tool_answers++;
                l->called += (f & GRADER_A_CALLED) != 0;
                l->buckets[bucket]++;
                l->cut_buckets[bucket] += (f & GRADER_A_CUT_OFF) != 0;
            }
            outcome = grader_answer_outcome(&r->answers[j]);
            if (outcome >= 0 && outcome < GRADER_EXEC_OUTCOMES) {
                l->code_answers++;
                l->outcomes[outcome]++;
                l->cut_outcomes[outcome] += (f & GRADER_A_CUT_OFF) != 0;
            }
            if (i == 0 || (f & GRADER_A_RIGHT))
                continue;
            ra = grader_rung_find(ref, r->answers[j].q);
            if (!grader_answer_right(ra))
                continue;
            l->dead++;
            l->dead_cut_off += (f & GRADER_A_CUT_OFF) != 0;
            l->dead_looped += (f & GRADER_A_LOOPED) != 0;
            l->dead_empty_content += (f & GRADER_A_EMPTY) != 0;
            if (bucket >= 0 && bucket < TOOLCALL_NBUCKETS)
                l->dead_buckets[bucket]++;
            if (outcome >= 0 && outcome < GRADER_EXEC_OUTCOMES)
                l->dead_outcomes[outcome]++;
        }
        l->first_deaths = b->lines[i].first_deaths;
        l->first_deaths_right_again_lower =
            b->lines[i].first_deaths_right_again_lower;
    }
}
