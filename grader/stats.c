/*
 * stats.c - summary lines and the exact sign test.
 */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

#include "alloc.h"
#include "internal.h"

static double round1(double x)
{
    return round(x * 10.0) / 10.0;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;

    return (x > y) - (x < y);
}

double grader__median(float *v, size_t n)
{
    qsort(v, n, sizeof(*v), cmp_float);
    if (n % 2 == 1)
        return v[n / 2];
    return ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2.0;
}

int grader_summarize(const struct grader_rung *r, struct grader_summary *s)
{
    size_t i, ntps = 0, ntok = 0;
    double tokens = 0;
    float *tps = grader__reallocarray(NULL, r->n ? r->n : 1, sizeof(*tps));

    if (tps == NULL)
        return GRADER_ENOMEM;
    s->n = r->n;
    s->right = s->errors = s->truncated = s->step_limit = 0;
    for (i = 0; i < r->n; i++) {
        const struct grader_answer *a = &r->answers[i];
        s->right += (a->flags & GRADER_A_RIGHT) != 0;
        s->errors += (a->flags & GRADER_A_ERROR) != 0;
        s->truncated += (a->flags & GRADER_A_CUT_OFF) != 0;
        s->step_limit += (a->flags & GRADER_A_STEP_LIMIT) != 0;
        if (a->tps >= 0)
            tps[ntps++] = a->tps;
        if (a->tokens >= 0) {
            tokens += a->tokens;
            ntok++;
        }
    }
    s->median_tps = ntps ? round1(grader__median(tps, ntps)) : -1.0;
    s->mean_tokens = ntok ? round1(tokens / (double)ntok) : -1.0;
    grader__free(tps);
    return 0;
}

/* log of C(n, k) */
static double log_choose(double n, double k)
{
    return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1);
}

double grader_mcnemar_p(size_t b, size_t c)
{
    size_t n = b + c, k = b < c ? b : c, i;
    double top, sum = 0, p;

    if (n == 0)
        return 1.0;
    /* sum C(n,i)/2^n for i <= k in log space, scaled by the largest term
     * (i = k) so that n in the hundreds of thousands neither underflows
     * nor loses the small tail */
    top = log_choose((double)n, (double)k);
    for (i = 0; i <= k; i++)
        sum += exp(log_choose((double)n, (double)i) - top);
    p = 2.0 * exp(top + log(sum) - (double)n * log(2.0));
    return p > 1.0 ? 1.0 : p;
}

/* Wilson's interval on counts that may be fractions (a share scaled to
 * n questions, verdict.c); k == 0 and k == n are exact ends. */
static void wilson_f(double k, double nn, double z, double *lo, double *hi)
{
    double p = k / nn, z2 = z * z;
    double denom = 1.0 + z2 / nn;
    double centre = (p + z2 / (2.0 * nn)) / denom;
    double half = z / denom * sqrt(p * (1.0 - p) / nn + z2 / (4.0 * nn * nn));

    *lo = centre - half;
    *hi = centre + half;
    /* at k == 0 or k == n one end is exactly 0 or 1; rounding must not
     * move it outside [0, 1] */
    if (k == 0.0 || *lo < 0.0)
        *lo = 0.0;
    if (k == nn || *hi > 1.0)
        *hi = 1.0;
}

void grader_wilson(size_t k, size_t n, double z, double *lo, double *hi)
{
    wilson_f((double)k, (double)n, z, lo, hi);
}

void grader__paired_diff_f(double both, double a_only, double b_only,
                           double neither, double z, double *d, double *lo,
                           double *hi)
{
    double nn = both + a_only + b_only + neither;
    double pa, pb, la, ua, lb, ub, phi = 0.0, prod, cross;

    if (!(nn > 0.0)) {
        *d = *lo = *hi = 0.0;
        return;
    }
    pa = (both + a_only) / nn;
    pb = (both + b_only) / nn;
    *d = pa - pb;
    wilson_f(both + a_only, nn, z, &la, &ua);
    wilson_f(both + b_only, nn, z, &lb, &ub);
    /* phi, the correlation of the pairs, with Newcombe's correction:
     * ad - bc shrunk by n/2 when positive, 0 when that crosses zero */
    prod = (both + a_only) * (b_only + neither) * (both + b_only) *
           (a_only + neither);
    cross = both * neither - a_only * b_only;
    if (prod > 0.0) {
        if (cross > nn / 2.0)
            phi = (cross - nn / 2.0) / sqrt(prod);
        else if (cross < 0.0)
            phi = cross / sqrt(prod);
    }
    *lo = *d - sqrt(fmax(0.0, (pa - la) * (pa - la) + (ub - pb) * (ub - pb) -
                                  2.0 * phi * (pa - la) * (ub - pb)));
    *hi = *d + sqrt(fmax(0.0, (ua - pa) * (ua - pa) + (pb - lb) * (pb - lb) -
                                  2.0 * phi * (ua - pa) * (pb - lb)));
}

void grader_paired_diff(size_t both, size_t a_only, size_t b_only,
                        size_t neither, double z, double *d, double *lo,
                        double *hi)
{
    grader__paired_diff_f((double)both, (double)a_only, (double)b_only,
                          (double)neither, z, d, lo, hi);
}
