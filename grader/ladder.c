/*
 * report.c - the figures of one run folder's report.
 */
#include "ladder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "stats.h"
#include "internal.h"

/* The censored answers of rung r and the bound on its right answers;
 * its constrained replies checked, and those that broke the constraint. */
static void censored(const struct grader_rung *r, struct grader_figures *f)
{
    const unsigned cens = GRADER_A_CUT_OFF | GRADER_A_EMPTY | GRADER_A_ERROR;
    size_t j, right = 0;

    f->censored = f->censored_right = 0;
    f->checked = f->violated = 0;
    f->aborted = 0;
    f->tokens_saved = 0;
    for (j = 0; j < r->n; j++) {
        unsigned fl = r->answers[j].flags;
        right += (fl & GRADER_A_RIGHT) != 0;
        f->checked += (fl & GRADER_A_CHECKED) != 0;
        f->violated += (fl & GRADER_A_VIOLATED) != 0;
        if (fl & GRADER_A_ABORTED) {
            f->aborted++;
            f->tokens_saved += (uint64_t)r->answers[j].saved;
        }
        if (!(fl & cens))
            continue;
        f->censored++;
        f->censored_right += (fl & GRADER_A_RIGHT) != 0;
    }
    f->right_max = right + f->censored - f->censored_right;
    f->acc_max = r->n ? (double)f->right_max / (double)r->n : 0.0;
}

static void verdict(struct grader_figures *f, long floor)
{
    f->above_floor = f->line->dead + f->line->ghosts > (size_t)floor;
}

/* Each rung's dead + ghosts against the floor (the reference's repeat). */
static void floor_verdicts(struct grader_ladder *l)
{
    const char *ref = l->chain.lines[0].rung->name;
    size_t i;

    l->floor = -1;
    l->floor_points = -1.0;
    for (i = 0; i < l->nrepeats; i++)
        if (strcmp(l->repeats[i].a->name, ref) == 0) {
            l->floor = (long)l->repeats[i].mismatched_right;
            l->floor_points = l->repeats[i].n ? 100.0 * (double)l->floor /
                                                    (double)l->repeats[i].n
                                              : 0.0;
        }
    if (l->floor < 0)
        return;
    for (i = 1; i < l->chain.nrungs; i++)
        verdict(&l->rungs[i], l->floor);
    for (i = 0; i < l->nsides; i++)
        verdict(&l->sides[i].f, l->floor);
}

void grader_figures_verdict(struct grader_figures *f, double margin,
                            double floor_points)
{
    const struct grader_bury_line *l = f->line;

    grader_verdict(l->both_right, l->ghosts, l->dead, l->both_wrong, margin,
                   floor_points, &f->verdict);
}

void grader_ladder_verdicts(struct grader_ladder *l, double margin)
{
    size_t i;

    if (!(margin > 0.0 && margin < 100.0))
        margin = GRADER_MARGIN_DEFAULT;
    l->margin = l->margin_used = margin;
    l->margin_raised = l->floor_points > margin;
    if (l->margin_raised)
        l->margin_used = l->floor_points;
    for (i = 1; i < l->chain.nrungs; i++)
        grader_figures_verdict(&l->rungs[i], margin, l->floor_points);
    for (i = 0; i < l->nsides; i++)
        grader_figures_verdict(&l->sides[i].f, margin, l->floor_points);
    grader_ladder_pick(l, &l->pick);
}

void grader_figures_of(const struct grader_bury *b, size_t i,
                       const struct grader_meta *meta,
                       const struct grader_meta *ref_meta,
                       struct grader_figures *f)
{
    const struct grader_bury_line *l = &b->lines[i];
    const struct grader_summary *ref = &b->lines[0].sum;

    f->line = l;
    f->meta = *meta;
    f->acc = l->sum.n ? (double)l->sum.right / (double)l->sum.n : 0.0;
    f->acc_lo = f->acc_hi = 0.0;
    if (l->sum.n > 0)
        grader_wilson(l->sum.right, l->sum.n, GRADER_Z95, &f->acc_lo,
                      &f->acc_hi);
    f->delta = f->delta_lo = f->delta_hi = 0.0;
    if (i > 0)
        grader_paired_diff(l->both_right, l->ghosts, l->dead, l->both_wrong,
                           GRADER_Z95, &f->delta, &f->delta_lo, &f->delta_hi);
    f->pct_bytes = -1.0;
    /* a rung on the reference's own file (a ladder of settings) saves
     * no bytes: no claim, and no point on pareto.svg's bytes panel */
    if (meta->bytes >= 0 && ref_meta->bytes > 0 &&
        !(i > 0 && meta->sha256[0] != '\0' &&
          strcmp(meta->sha256, ref_meta->sha256) == 0))
        f->pct_bytes = 100.0 * (double)meta->bytes / (double)ref_meta->bytes;
    f->speed_x = -1.0;
    if (l->sum.median_tps >= 0 && ref->median_tps > 0)
        f->speed_x = l->sum.median_tps / ref->median_tps;
    censored(l->rung, f);
    f->seconds_saved = l->sum.median_tps > 0
                           ? (double)f->tokens_saved / l->sum.median_tps
                           : -1.0;
    f->above_floor = -1;
    memset(&f->verdict, 0, sizeof(f->verdict));
    if (i > 0)
        grader_figures_verdict(f, GRADER_MARGIN_DEFAULT, -1.0);
    grader_cost_of(l->rung, b->lines[0].rung, &meta->power, &f->cost);
}

/* Every rung of b's figures, with metas[i] its metadata (metas[0] the
 * reference's), and autopsy, into f. */
static int figures(const struct grader_bury *b,
                   const struct grader_meta *metas,
                   const struct grader_rung *const *rungs,
                   struct grader_figures *f, struct grader_error *err)
{
    struct grader_autopsy_line *aut;
    size_t i;

    aut = grader__calloc(b->nrungs, sizeof(*aut));
    if (aut == NULL)
        return grader__fail(err, GRADER_ENOMEM, "", 0, "out of memory");
    grader_autopsy(b, rungs, aut);
    for (i = 0; i < b->nrungs; i++) {
        grader_figures_of(b, i, &metas[i], &metas[0], &f[i]);
        f[i].autopsy = aut[i];
    }
    grader__free(aut);
    return 0;
}

/* The chain rung (not the reference) nearest side's bytes, or -1. */
static long nearest(const struct grader_ladder *r, long long bytes)
{
    long best = -1;
    long long bestd = 0;
    size_t i;

    if (bytes < 0)
        return -1;
    for (i = 1; i < r->chain.nrungs; i++) {
        long long b = r->rungs[i].meta.bytes, d;
        if (b < 0)
            continue;
        d = b > bytes ? b - bytes : bytes - b;
        if (best < 0 || d < bestd) {
            best = (long)i;
            bestd = d;
        }
    }
    return best;
}

static void side_graves(struct grader_side *s, const struct grader_rung *ref,
                        const struct grader_rung *side,
                        const struct grader_rung *beside)
{
    size_t j;

    for (j = 0; j < ref->n; j++) {
        const struct grader_answer *ra = &ref->answers[j];
        int ds, db;
        if (!grader_answer_right(ra))
            continue;
        ds = !grader_answer_right(grader_rung_find(side, ra->q)) &&
             grader_rung_find(side, ra->q) != NULL;
        db = !grader_answer_right(grader_rung_find(beside, ra->q)) &&
             grader_rung_find(beside, ra->q) != NULL;
        s->dead_both += ds && db;
        s->dead_side_only += ds && !db;
        s->dead_beside_only += db && !ds;
    }
}

/* The cover's grid, in the reference's rows order. */
static int cover_grid(struct grader_ladder *out,
                      const struct grader_rung *const *chain, size_t nchain,
                      struct grader_error *err)
{
    size_t i;

    out->nq = chain[0]->n;
    out->order = grader__calloc(out->nq + 1, sizeof(*out->order));
    out->cells = grader__calloc(nchain * out->nq + 1, 1);
    if (out->order == NULL || out->cells == NULL)
        return grader__fail(err, GRADER_ENOMEM, "", 0, "out of memory");
    for (i = 0; i < out->nq; i++)
        out->order[i] = chain[0]->answers[i].q;
    grader_grid(chain, 1, nchain, out->order, out->nq, out->cells);
    return 0;
}

int grader_ladder_build(const struct grader_qset *qs,
                        const struct grader_meta *metas,
                        const struct grader_rung *const *chain, size_t nchain,
                        const struct grader_rung *const *side, size_t nside,
                        const struct grader_rung *const *repeat_a,
                        const struct grader_rung *const *repeat_b, size_t nrep,
                        unsigned flags, struct grader_ladder *out,
                        struct grader_error *err)
{
    const struct grader_rung *sr[GRADER_MAX_RUNGS];
    struct grader_figures *sf = NULL;
    size_t i;
    int rc;

    memset(out, 0, sizeof(*out));
    if (nside + 1 > GRADER_MAX_RUNGS)
        return grader__fail(err, GRADER_EARG, "", 0, "at most %d side rungs",
                            GRADER_MAX_RUNGS - 1);
    rc = grader_bury(qs, chain, nchain, flags, &out->chain, err);
    if (rc != 0)
        return rc;
    out->rungs = grader__calloc(nchain, sizeof(*out->rungs));
    out->repeats = grader__calloc(nrep ? nrep : 1, sizeof(*out->repeats));
    if (out->rungs == NULL || out->repeats == NULL) {
        rc = grader__fail(err, GRADER_ENOMEM, "", 0, "out of memory");
        goto fail;
    }
    if ((rc = figures(&out->chain, metas, chain, out->rungs, err)) != 0)
        goto fail;
    if (nside > 0) {
        struct grader_meta sm[GRADER_MAX_RUNGS];
        sr[0] = chain[0];
        memcpy(&sr[1], side, nside * sizeof(*side));
        sm[0] = metas[0];
        memcpy(&sm[1], metas + nchain, nside * sizeof(*metas));
        if ((rc = grader_bury(qs, sr, nside + 1, flags, &out->side, err)))
            goto fail;
        out->sides = grader__calloc(nside, sizeof(*out->sides));
        sf = grader__calloc(nside + 1, sizeof(*sf));
        if (out->sides == NULL || sf == NULL) {
            rc = grader__fail(err, GRADER_ENOMEM, "", 0, "out of memory");
            goto fail;
        }
        if ((rc = figures(&out->side, sm, sr, sf, err)) != 0)
            goto fail;
        out->nsides = nside;
        for (i = 0; i < nside; i++) {
            struct grader_side *s = &out->sides[i];
            s->f = sf[i + 1];
            /* the side bury's lines stay put until release */
            s->beside = nearest(out, s->f.meta.bytes);
            if (s->beside > 0)
                side_graves(s, chain[0], side[i], chain[s->beside]);
        }
        grader__free(sf);
        sf = NULL;
    }
    if ((rc = cover_grid(out, chain, nchain, err)) != 0)
        goto fail;
    for (i = 0; i < nrep; i++) {
        rc = grader_repeat(repeat_a[i], repeat_b[i], qs, GRADER_COMMON,
                           &out->repeats[i], err);
        if (rc != 0)
            goto fail;
        out->nrepeats++;
    }
    floor_verdicts(out);
    grader_ladder_verdicts(out, GRADER_MARGIN_DEFAULT);
    return 0;
fail:
    grader__free(sf);
    grader_ladder_release(out);
    return rc;
}

int grader_ladder_rules(struct grader_ladder *l, const char *const *names,
                        const struct grader_rung *const *const *sets,
                        size_t nrules, size_t nrungs, struct grader_error *err)
{
    size_t k, i, a;

    if (nrules > GRADER_TASK_MAX_RULES)
        return grader__fail(err, GRADER_EARG, "", 0, "more than %d rules",
                            GRADER_TASK_MAX_RULES);
    for (k = 0; k < nrules; k++) {
        struct grader_rule_col *c = &l->rules[k];
        snprintf(c->name, sizeof(c->name), "%s", names[k]);
        c->cells = grader__calloc(nrungs ? nrungs : 1, sizeof(*c->cells));
        if (c->cells == NULL) {
            l->nrules = k; /* released with l */
            return grader__fail(err, GRADER_ENOMEM, "", 0, "out of memory");
        }
        for (i = 0; i < nrungs; i++) {
            const struct grader_rung *r = sets[k][i], *base = sets[0][i];
            struct grader_rule_cell *cell = &c->cells[i];
            if (strcmp(r->name, base->name) != 0) {
                l->nrules = k + 1;
                return grader__fail(err, GRADER_EARG, r->path, 0,
                                    "rung '%s' where '%s' was expected",
                                    r->name, base->name);
            }
            cell->n = r->n;
            for (a = 0; a < r->n; a++) {
                const struct grader_answer *x = &r->answers[a];
                const struct grader_answer *y = grader_rung_find(base, x->q);
                cell->right += (x->flags & GRADER_A_RIGHT) != 0;
                cell->step_limit += (x->flags & GRADER_A_STEP_LIMIT) != 0;
                if (y != NULL && ((x->flags ^ y->flags) & GRADER_A_RIGHT) != 0)
                    cell->differ++;
            }
            cell->acc = cell->n ? (double)cell->right / (double)cell->n : 0;
        }
    }
    l->nrules = nrules;
    l->nrule_rungs = nrungs;
    return 0;
}

void grader_ladder_release(struct grader_ladder *r)
{
    for (size_t k = 0; k < r->nrules; k++)
        grader__free(r->rules[k].cells);
    grader_bury_release(&r->chain);
    grader_bury_release(&r->side);
    grader__free(r->rungs);
    grader__free(r->sides);
    grader__free(r->repeats);
    grader__free(r->order);
    grader__free(r->cells);
    memset(r, 0, sizeof(*r));
}
