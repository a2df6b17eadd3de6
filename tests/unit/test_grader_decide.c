/*
 * test_grader_decide.c - "which file?" at several margins (grader/
 * decide.h): the smallest and the fastest equivalent file at each margin,
 * or the fewest questions that would tell one, from small paired tables
 * whose intervals are worked out by hand below; the margins a report
 * decides at; and, on a ladder built from rows, the same answer as the
 * ladder's own pick and verdicts at the run's margin, which deciding
 * leaves as they were.
 *
 * Tests: grader/decide.c
 *
 * The hand figure every case below stands on: a file that answers as the
 * reference on all of n questions, every one right (both = n), has
 * Newcombe's paired interval [-(1 - w), 1 - w] with w = 1 / (1 + z^2/n)
 * the Wilson lower bound of n of n (phi is 0: the table's product is 0),
 * so its half-width is z^2 / (n + z^2). At 90 %, z^2 = 1.6448536^2 =
 * 2.7055435:
 *   n = 100: 2.7055 / 102.7055 = 0.026343, +-2.634 points: equivalent at
 *            5 (and at a floor of 3), not at 2 or 1;
 *   the least n inside +-m points: z^2 / (n + z^2) < m / 100, that is
 *   n > z^2 (100 / m - 1): m = 2, n > 49 z^2 = 132.57, so 133;
 *   m = 1, n > 99 z^2 = 267.85, so 268; m = 5, n > 19 z^2 = 51.41, 52.
 * A file 40 points down (both 60, reference right only 40) is never
 * equivalent at 5 or less, and no n tells it (|change| >= margin).
 */
#include "helpers.h"

#include <sys/stat.h>

#include "decide.h"
#include "ladder.h"
#include "verdict.h"

/* The reference (100 % of the bytes, 50 tok/s), A (half the bytes,
 * 60 tok/s, the same answers on 100 questions) and B (30 %, 40 tok/s,
 * 40 points down). */
static const struct grader_decide_point abc[] = {
    {0, 0, 0, 0, 100.0, 50.0, 0.80},
    {100, 0, 0, 0, 50.0, 60.0, 0.80},
    {60, 0, 40, 0, 30.0, 40.0, 0.48},
};

static void test_margins(void **state)
{
    double m[GRADER_DECIDE_MAX];
    size_t own;

    (void)state;
    assert_int_equal(grader_decide_margins(2.0, m, &own), 3);
    assert_int_equal(own, 1);
    assert_near(m[0], 1.0, 0, "1");
    assert_near(m[2], 5.0, 0, "5");
    assert_int_equal(grader_decide_margins(2.5, m, &own), 4);
    assert_int_equal(own, 2);
    assert_near(m[2], 2.5, 0, "own in order");
    assert_near(m[3], 5.0, 0, "5 after it");
    assert_int_equal(grader_decide_margins(0.5, m, &own), 4);
    assert_int_equal(own, 0);
    assert_int_equal(grader_decide_margins(10.0, m, &own), 4);
    assert_int_equal(own, 3);
    /* no margin: the default, 2 */
    assert_int_equal(grader_decide_margins(0.0, m, &own), 3);
    assert_int_equal(own, 1);
}

/* At 5 points A is equivalent (+-2.634): the smallest and the fastest.
 * At 2 and at 1 nothing is: the reference stands, and A, the only file
 * smaller and faster than it that any n would tell, would be told at 133
 * (at 2) and 268 (at 1) questions. */
static void test_by_hand(void **state)
{
    const double m[] = {1.0, 2.0, 5.0};
    struct grader_decide d;

    (void)state;
    grader_decide_points(abc, 3, m, 3, 1, -1.0, 100, &d);
    assert_int_equal(d.n, 3);
    assert_int_equal(d.questions, 100);
    assert_int_equal(d.d[1].own, 1);
    assert_int_equal(d.d[0].own + d.d[2].own, 0);

    assert_int_equal(d.d[2].smallest, 1);
    assert_int_equal(d.d[2].fastest, 1);
    assert_int_equal(d.d[2].small_n, -1);
    assert_int_equal(d.d[2].small_by, -1);

    assert_int_equal(d.d[1].smallest, 0);
    assert_int_equal(d.d[1].fastest, 0);
    assert_int_equal(d.d[1].small_n, 133);
    assert_int_equal(d.d[1].small_by, 1);
    assert_int_equal(d.d[1].fast_n, 133);
    assert_int_equal(d.d[1].fast_by, 1);
    assert_int_equal(d.d[1].n_smaller, 2);
    assert_int_equal(d.d[1].n_faster, 1);

    assert_int_equal(d.d[0].smallest, 0);
    assert_int_equal(d.d[0].small_n, 268);
    assert_int_equal(d.d[0].small_by, 1);
    assert_int_equal(d.d[0].margin_raised, 0);
    assert_near(d.d[0].margin, 1.0, 0, "as asked");
}

/* A noise floor of 3 points raises 1 and 2 to 3, where A's +-2.634 is
 * inside: A is the pick at every margin, and the raise is said. */
static void test_floor(void **state)
{
    const double m[] = {1.0, 2.0, 5.0};
    struct grader_decide d;

    (void)state;
    grader_decide_points(abc, 3, m, 3, 1, 3.0, 100, &d);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(d.d[i].smallest, 1);
    assert_int_equal(d.d[0].margin_raised, 1);
    assert_near(d.d[0].margin, 3.0, 0, "raised");
    assert_near(d.d[0].asked, 1.0, 0, "asked kept");
    assert_int_equal(d.d[2].margin_raised, 0);
}

/* Only B is smaller: 40 points down, no n tells it. Unknown bytes: no
 * smallest at all, and nothing to tell. */
static void test_none_would(void **state)
{
    const double m[] = {2.0};
    struct grader_decide_point p[2] = {abc[0], abc[2]};
    struct grader_decide d;

    (void)state;
    grader_decide_points(p, 2, m, 1, 0, -1.0, 100, &d);
    assert_int_equal(d.d[0].smallest, 0);
    assert_int_equal(d.d[0].small_n, -1);
    assert_int_equal(d.d[0].small_by, -1);
    assert_int_equal(d.d[0].n_smaller, 1);
    assert_int_equal(d.d[0].n_faster, 0); /* B is slower */

    p[0].pct_bytes = p[1].pct_bytes = -1.0;
    grader_decide_points(p, 2, m, 1, 0, -1.0, 100, &d);
    assert_int_equal(d.d[0].smallest, -1);
    assert_int_equal(d.d[0].n_smaller, 0);
    assert_int_equal(d.d[0].small_n, -1);
}

/* Ties, as grader_pick breaks them: two equivalent files of one size and
 * speed, the more accurate wins; equally accurate, the earlier. */
static void test_ties(void **state)
{
    const double m[] = {5.0};
    const struct grader_decide_point p[] = {
        {0, 0, 0, 0, 100.0, 50.0, 0.80},
        {100, 0, 0, 0, 40.0, 70.0, 0.80},
        {100, 0, 0, 0, 40.0, 70.0, 0.90},
        {100, 0, 0, 0, 40.0, 70.0, 0.90},
    };
    struct grader_decide d;

    (void)state;
    grader_decide_points(p, 4, m, 1, 0, -1.0, 100, &d);
    assert_int_equal(d.d[0].smallest, 2);
    assert_int_equal(d.d[0].fastest, 2);
}

/* ---- against the ladder's own verdicts -------------------------------- */

/* 200 questions; the reference right on the first 180. MID answers as it
 * does (80 % of the bytes), LOW loses the first 10 it gets right (50 %),
 * TINY the first 60 (25 %). */
static int right_of(int rung, size_t q)
{
    static const size_t lost[] = {0, 0, 10, 60};
    return q < 180 && q >= lost[rung];
}

static void test_against_ladder(void **state)
{
    static const char *const names[] = {"REF", "MID", "LOW", "TINY"};
    static const long long bytes[] = {1000, 800, 500, 250};
    struct grader_meta m[4];
    struct grader_ladder l;
    struct grader_error err;
    struct grader_decide d;
    struct rungs x;
    char dir[128];
    int kinds[4];

    (void)state;
    snprintf(dir, sizeof(dir), "%s/ladder", test_dir);
    mkdir(dir, 0700);
    memset(m, 0, sizeof(m));
    x.qs = grader_qset_new();
    x.n = 4;
    for (int i = 0; i < 4; i++) {
        struct text t = {0};
        for (size_t q = 0; q < 200; q++) {
            char id[16];
            snprintf(id, sizeof(id), "q%zu", q);
            add_row(&t, id, "1", right_of(i, q) ? "1" : "2");
        }
        x.r[i] = load_text(x.qs, dir, names[i], &t, 0);
        free(t.p);
        m[i].bytes = bytes[i];
        m[i].gpu_mib_loaded = m[i].gpu_mib_before = -1;
    }
    assert_int_equal(grader_ladder_build(x.qs, m, x.r, 4, NULL, 0, NULL, NULL,
                                         0, 0, &l, &err),
                     0);
    for (double margin = 1.0; margin <= 5.0; margin += 1.0) {
        size_t own;
        double ms[GRADER_DECIDE_MAX];
        long long least = -1;
        long by = -1;
        size_t nm = grader_decide_margins(margin, ms, &own);

        grader_ladder_verdicts(&l, margin);
        for (int i = 0; i < 4; i++)
            kinds[i] = l.rungs[i].verdict.kind;
        grader_decide_ladder(&l, &d);
        assert_int_equal(d.n, nm);
        assert_int_equal(d.questions, 200);
        assert_int_equal(d.d[own].own, 1);
        assert_near(d.d[own].asked, margin, 0, "own margin");
        /* the ladder's pick at its margin is the decision's */
        assert_int_equal(d.d[own].smallest, l.pick.smallest);
        assert_int_equal(d.d[own].fastest, l.pick.fastest);
        /* the least n among the smaller rungs, from their verdicts */
        for (int i = 1; i < 4; i++) {
            long long n = l.rungs[i].verdict.n_equiv;
            if (n >= 0 && (least < 0 || n < least)) {
                least = n;
                by = i;
            }
        }
        if (l.pick.smallest == 0) {
            assert_int_equal(d.d[own].small_n, least);
            assert_int_equal(d.d[own].small_by, by);
        } else {
            assert_int_equal(d.d[own].small_n, -1);
        }
        /* and the ladder's own verdicts are as they were */
        for (int i = 0; i < 4; i++)
            assert_int_equal(l.rungs[i].verdict.kind, kinds[i]);
        assert_near(l.margin, margin, 0, "the ladder's margin stays");
    }
    /* the case is not idle: at 1 point nothing smaller is equivalent and
     * some n tells one; at 5 a smaller rung is */
    grader_decide_ladder(&l, &d);
    assert_near(d.d[0].asked, 1.0, 0, "1 first");
    assert_int_equal(d.d[0].smallest, 0);
    assert_true(d.d[0].small_n > 200);
    assert_true(d.d[d.n - 1].smallest > 0);
    grader_ladder_release(&l);
    free_rungs(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_margins), cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_floor),   cmocka_unit_test(test_none_would),
        cmocka_unit_test(test_ties),    cmocka_unit_test(test_against_ladder),
    };

    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
