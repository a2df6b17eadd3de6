/*
 * pick.c - the speed-accuracy picture's choices: the Pareto fronts over
 * file size and decode speed, and the study's "which one?" (the smallest
 * and the fastest file whose verdict against the reference is equivalent:
 * verdict.h). report/pareto.c only draws them.
 */
#include "ladder.h"

/* GRADER_MAX_RUNGS chain rungs and as many side rungs fit two bit sets;
 * points past 64 are drawn but never on a front (rundir caps a ladder at
 * GRADER_MAX_RUNGS rungs in all, so none is). */
#define PICK_MAX 64

const struct grader_figures *grader_ladder_point(const struct grader_ladder *l,
                                                 size_t p)
{
    if (p < l->chain.nrungs)
        return &l->rungs[p];
    return &l->sides[p - l->chain.nrungs].f;
}

/* x of a point for one axis (bytes: smaller is better, so negated; speed:
 * larger is better); -1 with *known 0 when the figure is missing. */
static double axis(const struct grader_figures *f, int speed, int *known)
{
    if (speed) {
        *known = f->line->sum.median_tps >= 0;
        return f->line->sum.median_tps;
    }
    *known = f->pct_bytes >= 0;
    return -f->pct_bytes;
}

static uint64_t front(const struct grader_ladder *l, size_t n, int speed,
                      size_t *unknown)
{
    uint64_t set = 0;
    size_t p, q;

    *unknown = 0;
    for (p = 0; p < n; p++) {
        const struct grader_figures *a = grader_ladder_point(l, p);
        int ka, kb, beaten = 0;
        double xa = axis(a, speed, &ka);
        if (!ka) {
            (*unknown)++;
            continue;
        }
        for (q = 0; q < n && !beaten; q++) {
            const struct grader_figures *b = grader_ladder_point(l, q);
            double xb = axis(b, speed, &kb);
            beaten = q != p && kb && xb >= xa && b->acc >= a->acc &&
                     (xb > xa || b->acc > a->acc);
        }
        if (!beaten && p < PICK_MAX)
            set |= 1ULL << p;
    }
    return set;
}

/* The best point of set on one axis, or -1. */
static long best(const struct grader_ladder *l, size_t n, uint64_t set,
                 int speed)
{
    long b = -1;
    double bx = 0, bacc = 0;
    size_t p;

    for (p = 0; p < n && p < PICK_MAX; p++) {
        const struct grader_figures *f = grader_ladder_point(l, p);
        int k;
        double x = axis(f, speed, &k);
        if (!(set & (1ULL << p)) || !k)
            continue;
        if (b < 0 || x > bx || (x == bx && f->acc > bacc)) {
            b = (long)p;
            bx = x;
            bacc = f->acc;
        }
    }
    return b;
}

void grader_ladder_pick(const struct grader_ladder *l, struct grader_pick *pk)
{
    size_t n = l->chain.nrungs + l->nsides, p;

    pk->npoints = n;
    pk->equivalent = 0;
    for (p = 0; p < n && p < PICK_MAX; p++) {
        const struct grader_figures *f = grader_ladder_point(l, p);
        if (p == 0 || f->verdict.kind == GRADER_VERDICT_EQUIVALENT)
            pk->equivalent |= 1ULL << p;
    }
    pk->bytes_front = front(l, n, 0, &pk->no_bytes);
    pk->speed_front = front(l, n, 1, &pk->no_speed);
    pk->smallest = best(l, n, pk->equivalent, 0);
    pk->fastest = best(l, n, pk->equivalent, 1);
}
