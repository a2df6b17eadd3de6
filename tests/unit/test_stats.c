/*
 * test_stats.c - the sign test, medians and the summary line.
 */
#include "helpers.h"

#include <math.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mcnemar),
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_summary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
