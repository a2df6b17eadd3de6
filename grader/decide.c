/*
 * decide.c - which file, at each margin (decide.h; docs/grading.md,
 * "Which file, at each margin"): every point's verdict at every margin,
 * computed again from its paired table, and the picks and the questions
 * that would tell that stand on them.
 */
#include "decide.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ladder.h"
#include "verdict.h"

/* As grader_pick: points past 64 are on no front and in no pick. */
#define DECIDE_POINTS 64

size_t grader_decide_margins(double own, double *out, size_t *own_at)
{
    static const double std[] = {1.0, 2.0, 5.0};
    size_t i, n = 0, at = 0;
    int placed = 0;

    if (!(own > 0.0 && own < 100.0))
        own = GRADER_MARGIN_DEFAULT;
    for (i = 0; i < sizeof(std) / sizeof(std[0]); i++) {
        if (!placed && fabs(own - std[i]) < GRADER_VERDICT_EPS) {
            placed = 1;
            at = n;
        } else if (!placed && own < std[i]) {
            placed = 1;
            at = n;
            out[n++] = own;
        }
        out[n++] = std[i];
    }
    if (!placed) {
        at = n;
        out[n++] = own;
    }
    *own_at = at;
    return n;
}

/* x of a point on one axis, larger better (bytes negated); *known 0 when
 * the figure is missing. */
static double axis(const struct grader_decide_point *p, int speed, int *known)
{
    if (speed) {
        *known = p->tps >= 0;
        return p->tps;
    }
    *known = p->pct_bytes >= 0;
    return -p->pct_bytes;
}

/* The best point of eq (a bit set) on one axis, ties to the more accurate
 * then the earlier; -1 when none is known. pick.c's rule. */
static long best(const struct grader_decide_point *pts, size_t n, uint64_t eq,
                 int speed)
{
    long b = -1;
    double bx = 0, bacc = 0;
    size_t p;
    int k;

    for (p = 0; p < n; p++) {
        double x = axis(&pts[p], speed, &k);
        if (!((eq >> p) & 1) || !k)
            continue;
        if (b < 0 || x > bx || (x == bx && pts[p].acc > bacc)) {
            b = (long)p;
            bx = x;
            bacc = pts[p].acc;
        }
    }
    return b;
}

/* Among the points better than the reference on one axis (smaller,
 * faster), the least n_equiv of need[] and its point into *n and *by;
 * returns how many points are better. */
static size_t tell(const struct grader_decide_point *pts, size_t n,
                   const long long *need, int speed, long long *least,
                   long *by)
{
    size_t p, better = 0;
    int k0, k;
    double x0 = axis(&pts[0], speed, &k0);

    *least = -1;
    *by = -1;
    for (p = 1; p < n && k0; p++) {
        double x = axis(&pts[p], speed, &k);
        if (!k || !(x > x0))
            continue;
        better++;
        if (need[p] >= 0 && (*least < 0 || need[p] < *least)) {
            *least = need[p];
            *by = (long)p;
        }
    }
    return better;
}

/* One margin's decision into *d. */
static void decide_one(const struct grader_decide_point *pts, size_t n,
                       double margin, double floor_points,
                       struct grader_decision *d)
{
    long long need[DECIDE_POINTS];
    uint64_t eq = 1; /* the reference */
    struct grader_verdict v;
    size_t p;

    memset(d, 0, sizeof(*d));
    need[0] = -1;
    /* the margin used, raised by the floor as every verdict's is */
    grader_verdict(0, 0, 0, 0, margin, floor_points, &v);
    d->asked = v.asked;
    d->margin = v.margin;
    d->margin_raised = v.margin_raised;
    for (p = 1; p < n; p++) {
        const struct grader_decide_point *x = &pts[p];
        grader_verdict(x->both, x->a_only, x->b_only, x->neither, margin,
                       floor_points, &v);
        need[p] = v.n_equiv;
        if (v.kind == GRADER_VERDICT_EQUIVALENT)
            eq |= 1ULL << p;
    }
    d->smallest = best(pts, n, eq, 0);
    d->fastest = best(pts, n, eq, 1);
    d->n_smaller = tell(pts, n, need, 0, &d->small_n, &d->small_by);
    d->n_faster = tell(pts, n, need, 1, &d->fast_n, &d->fast_by);
    if (d->smallest != 0)
        d->small_n = d->small_by = -1;
    if (d->fastest != 0)
        d->fast_n = d->fast_by = -1;
}

void grader_decide_points(const struct grader_decide_point *pts, size_t npts,
                          const double *margins, size_t nmargins,
                          size_t own_at, double floor_points, size_t questions,
                          struct grader_decide *out)
{
    size_t i;

    memset(out, 0, sizeof(*out));
    if (npts > DECIDE_POINTS)
        npts = DECIDE_POINTS;
    if (nmargins > GRADER_DECIDE_MAX)
        nmargins = GRADER_DECIDE_MAX;
    out->questions = questions;
    out->n = nmargins;
    for (i = 0; i < nmargins; i++) {
        decide_one(pts, npts, margins[i], floor_points, &out->d[i]);
        out->d[i].own = i == own_at;
    }
}

void grader_decide_ladder(const struct grader_ladder *l,
                          struct grader_decide *out)
{
    struct grader_decide_point pts[DECIDE_POINTS];
    double margins[GRADER_DECIDE_MAX];
    size_t n = l->chain.nrungs + l->nsides, p, nm, own;

    if (n > DECIDE_POINTS)
        n = DECIDE_POINTS;
    for (p = 0; p < n; p++) {
        const struct grader_figures *f = grader_ladder_point(l, p);
        const struct grader_bury_line *b = f->line;
        pts[p] = (struct grader_decide_point){
            b->both_right, b->ghosts,         b->dead, b->both_wrong,
            f->pct_bytes,  b->sum.median_tps, f->acc};
    }
    nm = grader_decide_margins(l->margin, margins, &own);
    grader_decide_points(pts, n, margins, nm, own, l->floor_points,
                         l->chain.questions, out);
}
