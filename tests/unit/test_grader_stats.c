/*
 * test_grader_stats.c - the sign test, medians, the summary line, and the
 * Wilson and Newcombe intervals against worked examples.
 *
 * Tests: grader/stats.c
 */
#include "helpers.h"

#include <math.h>

#include "internal.h" /* grader__median */
#include "stats.h"

/* The exact two-sided binomial tail by brute force, for small n. */
static double brute_p(unsigned b, unsigned c)
{
    unsigned n = b + c, k = b < c ? b : c, i;
    double sum = 0, choose = 1;

    for (i = 0; i <= k; i++) {
        sum += choose;
        choose = choose * (n - i) / (i + 1);
    }
    sum = 2 * sum / pow(2, n);
    return sum > 1 ? 1 : sum;
}

static void test_mcnemar(void **state)
{
    unsigned b, c;

    (void)state;
    assert_true(grader_mcnemar_p(0, 0) == 1.0);
    assert_true(fabs(grader_mcnemar_p(3, 5) - 0.7265625) < 1e-12);
    assert_true(fabs(grader_mcnemar_p(5, 3) - 0.7265625) < 1e-12);
    assert_true(fabs(grader_mcnemar_p(0, 10) - 2.0 / 1024) < 1e-15);
    assert_true(grader_mcnemar_p(4, 4) == 1.0);
    for (b = 0; b < 40; b++)
        for (c = 0; c < 40; c++) {
            double want = brute_p(b, c), got = grader_mcnemar_p(b, c);
            if (fabs(got - want) > 1e-9 * want + 1e-300)
                fail_msg("p(%u,%u) = %.17g, want %.17g", b, c, got, want);
        }
    /* Q2_K-sized splits stay finite and ordered */
    assert_true(grader_mcnemar_p(226, 0) > 0);
    assert_true(grader_mcnemar_p(226, 0) < 1e-60);
    assert_true(grader_mcnemar_p(50000, 50000) == 1.0);
    assert_true(grader_mcnemar_p(49000, 51000) < 1e-9);
}

static void test_median(void **state)
{
    float odd[] = {3, 1, 2}, even[] = {40.0f, 39.0f, 41.0f, 38.0f};

    (void)state;
    assert_true(grader__median(odd, 3) == 2.0);
    assert_true(fabs(grader__median(even, 4) - 39.5) < 1e-6);
}

static void test_summary(void **state)
{
    char dir[64];
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *r;
    struct grader_summary s;
    struct text t = {0};

    (void)state;
    tmpdir_make(dir, sizeof(dir));
    text_addf(&t,
              "{\"id\":\"a\",\"reference\":\"1\",\"content\":\"Answer: 1\","
              "\"completion_tokens\":391,\"decode_tps\":40.04}\n"
              "{\"id\":\"b\",\"reference\":\"1\",\"content\":\"Answer: 2\","
              "\"completion_tokens\":392,\"decode_tps\":39.96,"
              "\"finish_reason\":\"length\"}\n"
              "{\"id\":\"c\",\"reference\":\"1\",\"error\":\"HTTP 500\"}\n");
    r = load_text(qs, dir, "X", &t, 0);
    assert_int_equal(grader_summarize(r, &s), 0);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.right, 1);
    assert_int_equal(s.errors, 1);
    assert_int_equal(s.truncated, 1);
    assert_true(s.median_tps == 40.0);
    assert_true(s.mean_tokens == 391.5);
    grader_rung_free(r);
    free(t.p);
    t.p = NULL;
    t.len = t.cap = 0;
    /* nothing known: negative, printed as null */
    text_addf(&t, "{\"id\":\"a\",\"reference\":\"1\"}\n");
    r = load_text(qs, dir, "Y", &t, 0);
    assert_int_equal(grader_summarize(r, &s), 0);
    assert_true(s.median_tps < 0);
    assert_true(s.mean_tokens < 0);
    grader_rung_free(r);
    grader_qset_free(qs);
    free(t.p);
    tmpdir_remove(dir);
}

static void test_wilson_worked(void **state)
{
    double lo, hi;

    (void)state;
    /* BF16's 229 of 250 */
    grader_wilson(229, 250, GRADER_Z95, &lo, &hi);
    assert_near(lo, 0.875005, 5e-7, "229/250 lo");
    assert_near(hi, 0.944404, 5e-7, "229/250 hi");
    /* the ends are exact at 0 and n, and the other end is not zero-width */
    grader_wilson(0, 10, GRADER_Z95, &lo, &hi);
    assert_true(lo == 0.0);
    assert_near(hi, 0.277533, 5e-7, "0/10 hi");
    grader_wilson(10, 10, GRADER_Z95, &lo, &hi);
    assert_near(lo, 0.722467, 5e-7, "10/10 lo");
    assert_true(hi == 1.0);
    /* 1 of 3 and 7 of 8 (the closed form, z = 1.959964) */
    grader_wilson(1, 3, GRADER_Z95, &lo, &hi);
    assert_near(lo, 0.061492, 5e-7, "1/3 lo");
    assert_near(hi, 0.792340, 5e-7, "1/3 hi");
    grader_wilson(7, 8, GRADER_Z95, &lo, &hi);
    assert_near(lo, 0.529112, 5e-7, "7/8 lo");
    assert_near(hi, 0.977583, 5e-7, "7/8 hi");
}

/* The Wilson ends are the roots of (p - t)^2 = z^2 t (1 - t) / n: check
 * that for every k of every n up to 60, and the properties around it. */
static void test_wilson_properties(void **state)
{
    size_t n, k;
    double z = GRADER_Z95;

    (void)state;
    for (n = 1; n <= 60; n++)
        for (k = 0; k <= n; k++) {
            double lo, hi, lo2, hi2, p = (double)k / (double)n;
            grader_wilson(k, n, z, &lo, &hi);
            if (!(0.0 <= lo && lo <= p && p <= hi && hi <= 1.0 && lo < hi))
                fail_msg("wilson(%zu, %zu) = (%.17g, %.17g)", k, n, lo, hi);
            if ((k == 0) != (lo == 0.0) || (k == n) != (hi == 1.0))
                fail_msg("wilson(%zu, %zu): ends (%.17g, %.17g)", k, n, lo,
                         hi);
            if (k > 0 && fabs((p - lo) * (p - lo) -
                              z * z * lo * (1 - lo) / (double)n) > 1e-12)
                fail_msg("wilson(%zu, %zu): lo %.17g is not a root", k, n,
                         lo);
            if (k < n && fabs((p - hi) * (p - hi) -
                              z * z * hi * (1 - hi) / (double)n) > 1e-12)
                fail_msg("wilson(%zu, %zu): hi %.17g is not a root", k, n,
                         hi);
            /* k right is n - k wrong: the mirror image */
            grader_wilson(n - k, n, z, &lo2, &hi2);
            if (fabs(lo2 - (1 - hi)) > 1e-12 || fabs(hi2 - (1 - lo)) > 1e-12)
                fail_msg("wilson(%zu, %zu) is not the mirror of %zu", n - k,
                         n, k);
        }
}

static void test_paired_diff_worked(void **state)
{
    double d, lo, hi;

    (void)state;
    /* Altman et al. (2000), Statistics with Confidence, table 6.2: 14
     * both, 5 a only, 0 b only, 22 neither. ad - bc = 308 > n/2, so phi
     * takes Newcombe's correction. */
    grader_paired_diff(14, 5, 0, 22, GRADER_Z95, &d, &lo, &hi);
    assert_near(d, 0.12195, 5e-6, "Altman d");
    assert_near(lo, 0.01148, 5e-6, "Altman lo");
    assert_near(hi, 0.22649, 5e-6, "Altman hi");
    /* Bentur et al. (2009), Fagerland, Lydersen & Laake ch. 8: 1 both, 1
     * a only, 7 b only, 12 neither. 0 <= ad - bc <= n/2: phi is 0. */
    grader_paired_diff(1, 1, 7, 12, GRADER_Z95, &d, &lo, &hi);
    assert_near(d, -0.28571, 5e-6, "Bentur d");
    assert_near(lo, -0.50692, 5e-6, "Bentur lo");
    assert_near(hi, -0.02556, 5e-6, "Bentur hi");
    /* ad < bc: phi negative, uncorrected (values from the formula) */
    grader_paired_diff(2, 8, 6, 1, GRADER_Z95, &d, &lo, &hi);
    assert_near(d, 2.0 / 17, 1e-12, "2,8,6,1 d");
    assert_near(lo, -0.288996, 5e-7, "2,8,6,1 lo");
    assert_near(hi, 0.484949, 5e-7, "2,8,6,1 hi");
    /* phi = -1 exactly */
    grader_paired_diff(0, 9, 3, 0, GRADER_Z95, &d, &lo, &hi);
    assert_near(d, 0.5, 1e-12, "0,9,3,0 d");
    assert_near(lo, -0.064611, 5e-7, "0,9,3,0 lo");
    assert_near(hi, 0.822117, 5e-7, "0,9,3,0 hi");
    /* a rung against its reference, a = the rung: 8 ghosts against 15
     * dead over 250 (Q4_0) is a loss */
    grader_paired_diff(214, 8, 15, 13, GRADER_Z95, &d, &lo, &hi);
    assert_near(d, -7.0 / 250, 1e-12, "Q4_0 d");
    assert_true(lo < d && d < hi);
    /* nothing to compare */
    d = lo = hi = 42.0;
    grader_paired_diff(0, 0, 0, 0, GRADER_Z95, &d, &lo, &hi);
    assert_true(d == 0.0 && lo == 0.0 && hi == 0.0);
}

/* Every table with cells 0..7: the interval holds d, stays in [-1, 1],
 * and swapping a and b negates d and swaps the ends. */
static void test_paired_diff_properties(void **state)
{
    size_t both, ao, bo, ne;
    size_t checked = 0;

    (void)state;
    for (both = 0; both < 8; both++)
        for (ao = 0; ao < 8; ao++)
            for (bo = 0; bo < 8; bo++)
                for (ne = 0; ne < 8; ne++) {
                    size_t n = both + ao + bo + ne;
                    double d, lo, hi, d2, lo2, hi2;
                    if (n == 0)
                        continue;
                    grader_paired_diff(both, ao, bo, ne, GRADER_Z95, &d,
                                       &lo, &hi);
                    grader_paired_diff(both, bo, ao, ne, GRADER_Z95, &d2,
                                       &lo2, &hi2);
                    if (fabs(d - ((double)ao - (double)bo) / (double)n) >
                        1e-12)
                        fail_msg("(%zu,%zu,%zu,%zu): d = %.17g", both, ao,
                                 bo, ne, d);
                    if (!(-1.0 <= lo && lo <= d && d <= hi && hi <= 1.0))
                        fail_msg("(%zu,%zu,%zu,%zu): %.17g not in "
                                 "(%.17g, %.17g) in [-1, 1]",
                                 both, ao, bo, ne, d, lo, hi);
                    /* a discordant pair always leaves some doubt */
                    if (ao + bo > 0 && !(lo < hi))
                        fail_msg("(%zu,%zu,%zu,%zu): zero-width", both, ao,
                                 bo, ne);
                    if (d2 != -d || fabs(lo2 + hi) > 1e-12 ||
                        fabs(hi2 + lo) > 1e-12)
                        fail_msg("(%zu,%zu,%zu,%zu) swapped: (%.17g, %.17g, "
                                 "%.17g) against (%.17g, %.17g, %.17g)",
                                 both, ao, bo, ne, d2, lo2, hi2, d, lo, hi);
                    checked++;
                }
    assert_int_equal(checked, 8 * 8 * 8 * 8 - 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mcnemar),
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_wilson_worked),
        cmocka_unit_test(test_wilson_properties),
        cmocka_unit_test(test_paired_diff_worked),
        cmocka_unit_test(test_paired_diff_properties),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
