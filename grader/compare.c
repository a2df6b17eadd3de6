/*
 * compare.c - runs of one ladder compared question by question.
 */
#include "compare.h"

#include <string.h>

#include "alloc.h"
#include "internal.h"

/* r must hold exactly ref's questions. */
static int same_questions(const struct grader_qset *qs,
                          const struct grader_rung *ref,
                          const struct grader_rung *r,
                          struct grader_error *err)
{
    size_t j, missing = 0, extra = 0;
    const char *first_missing = NULL, *first_extra = NULL;

    for (j = 0; j < ref->n; j++)
        if (grader_rung_find(r, ref->answers[j].q) == NULL && missing++ == 0)
            first_missing = grader_qset_id(qs, ref->answers[j].q);
    for (j = 0; j < r->n; j++)
        if (grader_rung_find(ref, r->answers[j].q) == NULL && extra++ == 0)
            first_extra = grader_qset_id(qs, r->answers[j].q);
    if (missing > 0)
        return grader__fail(err, GRADER_EMISSING, r->path, 0,
                            "rung '%s' lacks %zu of the %zu questions of the "
                            "first run's reference %s (first: '%s'); the "
                            "runs compared must answer the same questions",
                            r->name, missing, ref->n, ref->path,
                            first_missing);
    if (extra > 0)
        return grader__fail(err, GRADER_EEXTRA, r->path, 0,
                            "rung '%s' has %zu questions that the first "
                            "run's reference %s lacks (first: '%s'); the "
                            "runs compared must answer the same questions",
                            r->name, extra, ref->path, first_extra);
    return 0;
}

void grader_grid(const struct grader_rung *const *rungs, size_t nruns,
                 size_t nrungs, const uint32_t *order, size_t nq,
                 uint8_t *cells)
{
    size_t i, j, k;

    for (i = 0; i < nrungs; i++)
        for (j = 0; j < nq; j++) {
            size_t rights = 0;
            uint8_t cell = GRADER_CELL_MISSING;
            for (k = 0; k < nruns; k++) {
                const struct grader_answer *a =
                    grader_rung_find(rungs[k * nrungs + i], order[j]);
                if (a == NULL)
                    break;
                rights += grader_answer_right(a);
            }
            if (k == nruns)
                cell = rights == nruns ? GRADER_CELL_RIGHT
                       : rights == 0   ? GRADER_CELL_WRONG
                                       : GRADER_CELL_SPLIT;
            cells[i * nq + j] = cell;
        }
}

/* The pair counts and the all-right/all-wrong counts of rung i. */
static void rung_figures(const struct grader_rung *const *rungs,
                         struct grader_compare *c, size_t i)
{
    struct grader_compare_rung *cr = &c->rungs[i];
    size_t nr = c->nrungs, k, l, j, best = 0, worst = 0;
    int first = 1;

    for (j = 0; j < c->nq; j++) {
        uint32_t q = c->order[j];
        unsigned rights = 0;
        int right[GRADER_MAX_RUNS], missing = 0;
        for (k = 0; k < c->nruns; k++) {
            const struct grader_answer *a =
                grader_rung_find(rungs[k * nr + i], q);
            missing |= a == NULL;
            right[k] = grader_answer_right(a);
            rights += (unsigned)right[k];
        }
        if (missing) /* only with GRADER_PARTIAL */
            continue;
        for (k = 0; k < c->nruns; k++)
            for (l = k + 1; l < c->nruns; l++)
                if (right[k] != right[l]) {
                    cr->differ[k][l]++;
                    cr->differ[l][k]++;
                }
        cr->all_right += rights == c->nruns;
        cr->all_wrong += rights == 0;
    }
    for (k = 0; k < c->nruns; k++) {
        cr->right[k] = c->bury[k].lines[i].sum.right;
        cr->dead[k] = c->bury[k].lines[i].dead;
        for (l = k + 1; l < c->nruns; l++) {
            size_t d = cr->differ[k][l];
            if (first || d < best) {
                best = d;
                cr->closest[0] = k;
                cr->closest[1] = l;
            }
            if (first || d > worst) {
                worst = d;
                cr->furthest[0] = k;
                cr->furthest[1] = l;
            }
            first = 0;
        }
    }
}

/* lost_all per rung and the tombstone counts across runs. */
static int graves(const struct grader_rung *const *rungs,
                  struct grader_compare *c)
{
    size_t nr = c->nrungs, j, k, i, nqs = 0;
    uint32_t *died; /* [run][question index]: died_at, 0 never */

    for (j = 0; j < c->nq; j++)
        if (c->order[j] + 1 > nqs)
            nqs = c->order[j] + 1;
    died = grader__calloc(nqs * c->nruns + 1, sizeof(*died));
    if (died == NULL)
        return GRADER_ENOMEM;
    for (k = 0; k < c->nruns; k++)
        for (j = 0; j < c->bury[k].ntombs; j++)
            died[k * nqs + c->bury[k].tombs[j].q] =
                c->bury[k].tombs[j].died_at;
    for (j = 0; j < c->nq; j++) {
        uint32_t q = c->order[j], at = 0, lonely_run = 0;
        size_t dying = 0;
        int same = 1;
        for (k = 0; k < c->nruns; k++) {
            uint32_t d = died[k * nqs + q];
            if (d == 0)
                continue;
            if (dying++ == 0)
                at = d;
            else if (d != at)
                same = 0;
            lonely_run = (uint32_t)k;
        }
        c->died_some += dying > 0;
        if (dying == c->nruns) {
            c->died_every++;
            c->died_every_same += same;
        }
        if (dying == 1 && c->nruns > 1) {
            struct grader_lonely *x = &c->lonely[c->nlonely++];
            x->q = q;
            x->run = lonely_run;
            x->died_at = died[lonely_run * nqs + q];
        }
        for (i = 1; i < nr; i++) {
            int all = 1;
            for (k = 0; k < c->nruns && all; k++) {
                const struct grader_rung *ref = rungs[k * nr];
                const struct grader_answer *a =
                    grader_rung_find(rungs[k * nr + i], q);
                all = grader_answer_right(grader_rung_find(ref, q)) &&
                      a != NULL && !grader_answer_right(a);
            }
            c->rungs[i].lost_all += all;
        }
    }
    grader__free(died);
    return 0;
}

/* The reference across runs as the floor, and each rung's verdict. */
static void floor_verdicts(struct grader_compare *c)
{
    size_t k, j, i;

    c->floor = -1;
    for (k = 0; k < c->nruns; k++)
        for (j = k + 1; j < c->nruns; j++)
            if ((long)c->rungs[0].differ[k][j] > c->floor) {
                c->floor = (long)c->rungs[0].differ[k][j];
                c->floor_pair[0] = k;
                c->floor_pair[1] = j;
            }
    for (i = 0; i < c->nrungs; i++)
        for (k = 0; k < c->nruns; k++) {
            const struct grader_bury_line *l = &c->bury[k].lines[i];
            c->rungs[i].ghosts[k] = l->ghosts;
            c->rungs[i].above_floor[k] =
                i == 0 || c->floor < 0
                    ? -1
                    : l->dead + l->ghosts > (size_t)c->floor;
        }
}

void grader_compare_verdicts(struct grader_compare *c, double margin)
{
    size_t i, k;

    if (!(margin > 0.0 && margin < 100.0))
        margin = GRADER_MARGIN_DEFAULT;
    c->margin = margin;
    c->floor_points = c->floor >= 0 && c->nq > 0
                          ? 100.0 * (double)c->floor / (double)c->nq
                          : -1.0;
    for (i = 0; i < c->nrungs; i++) {
        struct grader_compare_rung *r = &c->rungs[i];
        r->verdict_holds = i == 0 ? -1 : 1;
        for (k = 0; k < c->nruns; k++) {
            const struct grader_bury_line *l = &c->bury[k].lines[i];
            memset(&r->verdict[k], 0, sizeof(r->verdict[k]));
            if (i == 0)
                continue;
            grader_verdict(l->both_right, l->ghosts, l->dead, l->both_wrong,
                           margin, c->floor_points, &r->verdict[k]);
            if (r->verdict[k].kind != r->verdict[0].kind)
                r->verdict_holds = 0;
        }
    }
}

int grader_compare(const struct grader_qset *qs,
                   const struct grader_rung *const *rungs, size_t nruns,
                   size_t nrungs, unsigned flags, struct grader_compare *out,
                   struct grader_error *err)
{
    const struct grader_rung *ref;
    size_t k, i, j;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    if (nruns == 0 || nruns > GRADER_MAX_RUNS || nrungs == 0 ||
        nrungs > GRADER_MAX_RUNGS)
        return grader__fail(err, GRADER_EARG, "", 0,
                            "compare takes 1 to %d runs of 1 to %d rungs",
                            GRADER_MAX_RUNS, GRADER_MAX_RUNGS);
    ref = rungs[0];
    for (k = 0; k < nruns && rc == 0 && !(flags & GRADER_PARTIAL); k++)
        for (i = 0; i < nrungs && rc == 0; i++)
            if (k + i > 0)
                rc = same_questions(qs, ref, rungs[k * nrungs + i], err);
    if (rc != 0)
        return rc;
    out->nruns = nruns;
    out->nrungs = nrungs;
    out->nq = ref->n;
    out->bury = grader__calloc(nruns, sizeof(*out->bury));
    out->rungs = grader__calloc(nrungs, sizeof(*out->rungs));
    out->lonely = grader__calloc(ref->n + 1, sizeof(*out->lonely));
    out->order = grader__calloc(ref->n + 1, sizeof(*out->order));
    out->cells = grader__calloc(nrungs * ref->n + 1, 1);
    if (out->bury == NULL || out->rungs == NULL || out->lonely == NULL ||
        out->order == NULL || out->cells == NULL) {
        grader_compare_release(out);
        return grader__fail(err, GRADER_ENOMEM, "", 0, "out of memory");
    }
    for (j = 0; j < ref->n; j++)
        out->order[j] = ref->answers[j].q;
    for (k = 0; k < nruns && rc == 0; k++)
        rc = grader_bury(qs, &rungs[k * nrungs], nrungs,
                         flags & GRADER_PARTIAL, &out->bury[k], err);
    if (rc == 0) {
        for (i = 0; i < nrungs; i++)
            rung_figures(rungs, out, i);
        grader_grid(rungs, nruns, nrungs, out->order, out->nq, out->cells);
        floor_verdicts(out);
        grader_compare_verdicts(out, GRADER_MARGIN_DEFAULT);
        if (graves(rungs, out) != 0)
            rc = grader__fail(err, GRADER_ENOMEM, "", 0, "out of memory");
    }
    if (rc != 0)
        grader_compare_release(out);
    return rc;
}

void grader_compare_release(struct grader_compare *c)
{
    size_t k;

    if (c->bury != NULL)
        for (k = 0; k < c->nruns; k++)
            grader_bury_release(&c->bury[k]);
    grader__free(c->bury);
    grader__free(c->rungs);
    grader__free(c->lonely);
    grader__free(c->order);
    grader__free(c->cells);
    memset(c, 0, sizeof(*c));
}

void grader_grid_marks(const uint8_t *cells, size_t nrungs, size_t nq,
                       uint8_t *marks)
{
    size_t i, j;

    for (j = 0; j < nq && nrungs > 0; j++)
        marks[j] = GRADER_MARK_NONE;
    for (i = 1; i < nrungs; i++)
        for (j = 0; j < nq; j++) {
            uint8_t ref = cells[j], c = cells[i * nq + j];
            marks[i * nq + j] =
                ref == GRADER_CELL_RIGHT && c == GRADER_CELL_WRONG
                    ? GRADER_MARK_DEAD
                : ref == GRADER_CELL_WRONG && c == GRADER_CELL_RIGHT
                    ? GRADER_MARK_GHOST
                    : GRADER_MARK_NONE;
        }
}
