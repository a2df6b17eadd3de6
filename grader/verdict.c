/*
 * verdict.c - equivalent, better, worse or cannot tell, and the questions
 * it would take to tell (verdict.h; docs/grading.md, "Verdicts").
 */
#include "verdict.h"

#include <math.h>
#include <string.h>

#include "internal.h"
#include "stats.h"

/* Whether [lo, hi] (fractions) lies strictly inside +-margin points. */
static int inside(double lo, double hi, double margin)
{
    return 100.0 * lo > -margin + GRADER_VERDICT_EPS &&
           100.0 * hi < margin - GRADER_VERDICT_EPS;
}

int grader_verdict_kind(double lo90, double hi90, double lo95, double hi95,
                        double margin)
{
    if (inside(lo90, hi90, margin))
        return GRADER_VERDICT_EQUIVALENT;
    if (100.0 * hi95 < -GRADER_VERDICT_EPS)
        return GRADER_VERDICT_WORSE;
    if (100.0 * lo95 > GRADER_VERDICT_EPS)
        return GRADER_VERDICT_BETTER;
    return GRADER_VERDICT_CANNOT_TELL;
}

long long grader_mcnemar_n(double psi, double delta, double z_alpha,
                           double z_beta)
{
    double x, n;

    if (!(delta > 0.0) || !(delta <= 1.0) || !(psi >= 0.0))
        return -1;
    /* |p10 - p01| <= p10 + p01: a change of delta needs that many
     * discordant pairs at least */
    if (psi < delta)
        psi = delta;
    if (psi > 1.0)
        psi = 1.0;
    x = z_alpha * sqrt(psi) + z_beta * sqrt(fmax(0.0, psi - delta * delta));
    n = ceil(x * x / (delta * delta));
    return n > (double)GRADER_N_NEEDED_MAX ? -1 : (long long)n;
}

/* Whether the shares scaled to n questions conclude equivalence. */
static int concludes(const double s[4], double n, double z, double margin)
{
    double d, lo, hi;

    grader__paired_diff_f(s[0] * n, s[1] * n, s[2] * n, s[3] * n, z, &d, &lo,
                          &hi);
    return inside(lo, hi, margin);
}

long long grader_equiv_n(double both, double a_only, double b_only,
                         double neither, double z, double margin)
{
    double sum = both + a_only + b_only + neither, s[4];
    long long lo = 0, hi = 1, mid;

    if (!(sum > 0.0) || !(margin > 0.0))
        return -1;
    s[0] = both / sum;
    s[1] = a_only / sum;
    s[2] = b_only / sum;
    s[3] = neither / sum;
    if (100.0 * fabs(s[1] - s[2]) >= margin - GRADER_VERDICT_EPS)
        return -1;
    /* the interval narrows as n grows (as 1/sqrt(n)) around a change that
     * stays put: double until it concludes, then halve the gap; lo never
     * concludes, hi always does */
    while (!concludes(s, (double)hi, z, margin)) {
        if (hi >= GRADER_N_NEEDED_MAX)
            return -1;
        lo = hi;
        hi = hi * 2 > GRADER_N_NEEDED_MAX ? GRADER_N_NEEDED_MAX : hi * 2;
    }
    while (hi - lo > 1) {
        mid = lo + (hi - lo) / 2;
        if (concludes(s, (double)mid, z, margin))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

void grader_verdict(size_t both, size_t a_only, size_t b_only, size_t neither,
                    double margin, double floor_points,
                    struct grader_verdict *v)
{
    size_t n = both + a_only + b_only + neither;
    double d, lo95, hi95, nn = (double)n;

    memset(v, 0, sizeof(*v));
    if (!(margin > 0.0 && margin < 100.0))
        margin = GRADER_MARGIN_DEFAULT;
    v->asked = v->margin = margin;
    /* a margin the reference moves by on its own cannot be claimed */
    if (floor_points > margin) {
        v->margin = floor_points;
        v->margin_raised = 1;
    }
    v->kind = GRADER_VERDICT_CANNOT_TELL;
    v->n_power = v->n_equiv = -1;
    if (n == 0)
        return;
    grader_paired_diff(both, a_only, b_only, neither, GRADER_Z95, &d, &lo95,
                       &hi95);
    grader_paired_diff(both, a_only, b_only, neither, GRADER_Z90, &d, &v->lo90,
                       &v->hi90);
    v->kind = grader_verdict_kind(v->lo90, v->hi90, lo95, hi95, v->margin);
    if (100.0 * hi95 < -GRADER_VERDICT_EPS) {
        v->shift = -1;
        v->least = -100.0 * hi95;
    } else if (100.0 * lo95 > GRADER_VERDICT_EPS) {
        v->shift = 1;
        v->least = 100.0 * lo95;
    }
    v->discordant = (double)(a_only + b_only) / nn;
    v->n_power = grader_mcnemar_n(v->discordant, v->margin / 100.0, GRADER_Z95,
                                  GRADER_Z80);
    v->n_equiv = grader_equiv_n((double)both, (double)a_only, (double)b_only,
                                (double)neither, GRADER_Z90, v->margin);
}

const char *grader_verdict_word(int kind)
{
    switch (kind) {
    case GRADER_VERDICT_EQUIVALENT:
        return "equivalent";
    case GRADER_VERDICT_BETTER:
        return "better";
    case GRADER_VERDICT_WORSE:
        return "worse";
    case GRADER_VERDICT_CANNOT_TELL:
        return "cannot tell";
    default:
        return "";
    }
}
