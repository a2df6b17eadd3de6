/*
 * test_grader_verdict.c - the verdicts of issue 27 (grader/verdict.h): each
 * boundary by hand (an interval touching the margin, a floor larger than
 * the margin, no questions, every answer the same, better, worse), the
 * study's T4 ladder at 2 and 5 points, a ladder's floor raising the
 * margin, and the two sample-size claims against a seeded simulation:
 * the equivalence test's type-I error at the margin, and the power of
 * McNemar's test at the n Connor's formula gives.
 *
 * Tests: grader/verdict.c
 */
#include "helpers.h"
#include "study.h"

#include <math.h>
#include <stdint.h>
#include <sys/stat.h>

#include "compare.h"
#include "internal.h"
#include "ladder.h"
#include "stats.h"
#include "verdict.h"

/* ---- the bounds alone ------------------------------------------------- */

/* Every comparison is strict: a bound on the margin (or on 0) is not
 * inside (not past) it; just inside is. */
static void test_kind_boundaries(void **state)
{
    (void)state;
    /* the 90 % interval touching -2 and +2: not equivalent */
    assert_int_equal(grader_verdict_kind(-0.02, 0.01, -0.03, 0.02, 2.0),
                     GRADER_VERDICT_CANNOT_TELL);
    assert_int_equal(grader_verdict_kind(-0.01, 0.02, -0.02, 0.03, 2.0),
                     GRADER_VERDICT_CANNOT_TELL);
    /* a hair inside: equivalent */
    assert_int_equal(grader_verdict_kind(-0.0199, 0.0199, -0.03, 0.03, 2.0),
                     GRADER_VERDICT_EQUIVALENT);
    /* a rounding's worth off the margin still touches it */
    assert_int_equal(
        grader_verdict_kind(-0.02 + 1e-13, 0.01, -0.03, 0.02, 2.0),
        GRADER_VERDICT_CANNOT_TELL);
    /* the 95 % interval touching 0 from below or above: no change shown */
    assert_int_equal(grader_verdict_kind(-0.09, -0.01, -0.10, 0.0, 2.0),
                     GRADER_VERDICT_CANNOT_TELL);
    assert_int_equal(grader_verdict_kind(0.01, 0.09, 0.0, 0.10, 2.0),
                     GRADER_VERDICT_CANNOT_TELL);
    assert_int_equal(grader_verdict_kind(-0.09, -0.01, -0.10, -0.0001, 2.0),
                     GRADER_VERDICT_WORSE);
    assert_int_equal(grader_verdict_kind(0.01, 0.09, 0.0001, 0.10, 2.0),
                     GRADER_VERDICT_BETTER);
    /* equivalence is asked first: a real loss smaller than the margin */
    assert_int_equal(grader_verdict_kind(-0.015, -0.005, -0.017, -0.003, 2.0),
                     GRADER_VERDICT_EQUIVALENT);
}

/* ---- counts ----------------------------------------------------------- */

/* A rung whose 90 % interval reaches exactly the margin, computed from
 * the same counts: not equivalent; a millionth of a point more margin
 * and it is. */
static void test_touching_from_counts(void **state)
{
    struct grader_verdict v;
    double d, lo, hi, m;

    (void)state;
    grader_paired_diff(200, 3, 5, 42, GRADER_Z90, &d, &lo, &hi);
    m = fmax(-100.0 * lo, 100.0 * hi);
    grader_verdict(200, 3, 5, 42, m, -1.0, &v);
    assert_int_equal(v.kind, GRADER_VERDICT_CANNOT_TELL);
    assert_near(v.lo90, lo, 0, "lo90 is Newcombe's at 90 %");
    assert_near(v.hi90, hi, 0, "hi90 is Newcombe's at 90 %");
    grader_verdict(200, 3, 5, 42, m + 1e-6, -1.0, &v);
    assert_int_equal(v.kind, GRADER_VERDICT_EQUIVALENT);
    assert_near(v.margin, m + 1e-6, 0, "the margin asked");
    assert_int_equal(v.margin_raised, 0);
}

/* The noise floor's share above the margin raises it, and says so; equal
 * to it, or below, it does not. */
static void test_floor_raises_margin(void **state)
{
    struct grader_verdict v;

    (void)state;
    /* 250 questions, 5 dead and 3 ghosts: -0.8 points, 90 % interval
     * about -2.8 to +1.1: cannot tell at 2, equivalent at 5 */
    grader_verdict(224, 3, 5, 18, 2.0, -1.0, &v);
    assert_int_equal(v.kind, GRADER_VERDICT_CANNOT_TELL);
    grader_verdict(224, 3, 5, 18, 2.0, 5.0, &v);
    assert_int_equal(v.kind, GRADER_VERDICT_EQUIVALENT);
    assert_int_equal(v.margin_raised, 1);
    assert_near(v.margin, 5.0, 0, "the floor's share");
    assert_near(v.asked, 2.0, 0, "the margin asked");
    grader_verdict(224, 3, 5, 18, 2.0, 2.0, &v);
    assert_int_equal(v.margin_raised, 0);
    assert_int_equal(v.kind, GRADER_VERDICT_CANNOT_TELL);
    grader_verdict(224, 3, 5, 18, 5.0, 0.0, &v);
    assert_int_equal(v.margin_raised, 0);
    assert_int_equal(v.kind, GRADER_VERDICT_EQUIVALENT);
}

/* No questions: cannot tell, and no n can be named. A margin outside
 * (0, 100) is the default. */
static void test_no_questions(void **state)
{
    struct grader_verdict v;

    (void)state;
    grader_verdict(0, 0, 0, 0, 2.0, -1.0, &v);
    assert_int_equal(v.kind, GRADER_VERDICT_CANNOT_TELL);
    assert_int_equal(v.n_power, -1);
    assert_int_equal(v.n_equiv, -1);
    assert_near(v.least, 0, 0, "no change shown");
    grader_verdict(10, 0, 0, 0, 0.0, -1.0, &v);
    assert_near(v.asked, GRADER_MARGIN_DEFAULT, 0, "default margin");
    grader_verdict(10, 0, 0, 0, NAN, -1.0, &v);
    assert_near(v.asked, GRADER_MARGIN_DEFAULT, 0, "default margin");
    assert_string_equal(grader_verdict_word(GRADER_VERDICT_NONE), "");
    assert_string_equal(grader_verdict_word(GRADER_VERDICT_CANNOT_TELL),
                        "cannot tell");
}

/* Every answer the same (no discordant pair): the interval is the Wilson
 * intervals' widths alone (phi is 0 when a margin is empty), so a
 * few questions cannot tell and many can; the n needed are finite. */
static void test_all_the_same(void **state)
{
    struct grader_verdict v;
    double lo, hi, w;

    (void)state;
    grader_verdict(250, 0, 0, 0, 2.0, -1.0, &v);
    grader_wilson(250, 250, GRADER_Z90, &lo, &hi);
    /* each end takes one side of one Wilson interval: the other side of
     * 250 of 250 is 0 */
    w = 100.0 * (1.0 - lo); /* about 1.07 points */
    assert_near(100.0 * v.hi90, w, 1e-9, "square and add");
    assert_near(100.0 * v.lo90, -w, 1e-9, "square and add");
    assert_int_equal(v.kind, GRADER_VERDICT_EQUIVALENT);
    assert_near(v.discordant, 0, 0, "no discordant pair");
    assert_true(v.n_equiv > 0 && v.n_equiv <= 250);
    assert_true(v.n_power > 0);
    grader_verdict(0, 0, 0, 10, 2.0, -1.0, &v); /* all wrong, 10 */
    assert_int_equal(v.kind, GRADER_VERDICT_CANNOT_TELL);
    assert_true(v.n_equiv > 10);
    /* no discordant pair, but both outcomes: the pairs agree and the
     * interval is narrow */
    grader_verdict(200, 0, 0, 50, 2.0, -1.0, &v);
    assert_int_equal(v.kind, GRADER_VERDICT_EQUIVALENT);
    assert_true(100.0 * v.hi90 < 1.0);
}

/* Better and worse, with the least change the 95 % interval shows. */
static void test_better_and_worse(void **state)
{
    struct grader_verdict v;
    double d, lo, hi;

    (void)state;
    grader_verdict(200, 2, 20, 28, 2.0, -1.0, &v);
    grader_paired_diff(200, 2, 20, 28, GRADER_Z95, &d, &lo, &hi);
    assert_int_equal(v.kind, GRADER_VERDICT_WORSE);
    assert_int_equal(v.shift, -1);
    assert_near(v.least, -100.0 * hi, 1e-12, "least loss");
    assert_true(v.least > 0);
    assert_int_equal(v.n_equiv, -1); /* -7.2 points is past the margin */
    grader_verdict(200, 20, 2, 28, 2.0, -1.0, &v);
    grader_paired_diff(200, 20, 2, 28, GRADER_Z95, &d, &lo, &hi);
    assert_int_equal(v.kind, GRADER_VERDICT_BETTER);
    assert_int_equal(v.shift, 1);
    assert_near(v.least, 100.0 * lo, 1e-12, "least gain");
    /* 10,000 questions, a loss of 1 point that is surely real and surely
     * less than 2: equivalent, and the loss still said */
    grader_verdict(9000, 50, 150, 800, 2.0, -1.0, &v);
    assert_int_equal(v.kind, GRADER_VERDICT_EQUIVALENT);
    assert_int_equal(v.shift, -1);
    assert_true(v.least > 0.3 && v.least < 1.0);
}

/* Connor's formula by hand (psi 0.1, delta 0.02: (1.959964 * 0.316228 +
 * 0.841621 * 0.315595)^2 / 0.0004 = 1959.87), psi below delta raised to
 * it, and no n for no change. */
static void test_mcnemar_n(void **state)
{
    (void)state;
    assert_int_equal(grader_mcnemar_n(0.1, 0.02, GRADER_Z95, GRADER_Z80),
                     1960);
    assert_int_equal(grader_mcnemar_n(0.0, 0.02, GRADER_Z95, GRADER_Z80),
                     grader_mcnemar_n(0.02, 0.02, GRADER_Z95, GRADER_Z80));
    assert_int_equal(grader_mcnemar_n(0.1, 0.0, GRADER_Z95, GRADER_Z80), -1);
    assert_int_equal(grader_mcnemar_n(1.0, 1e-6, GRADER_Z95, GRADER_Z80), -1);
}

/* The n at which the equivalence test concludes is the least one: at it
 * the 90 % interval is inside, one question fewer it is not. */
static void test_equiv_n_is_least(void **state)
{
    double d, lo, hi, s[4] = {0.896, 0.008, 0.016, 0.08}; /* Q8_0 */
    long long n;

    (void)state;
    n = grader_equiv_n(s[0], s[1], s[2], s[3], GRADER_Z90, 2.0);
    assert_true(n > 250);
    grader__paired_diff_f(s[0] * (double)n, s[1] * (double)n,
                          s[2] * (double)n, s[3] * (double)n, GRADER_Z90, &d,
                          &lo, &hi);
    assert_true(100.0 * lo > -2.0 && 100.0 * hi < 2.0);
    grader__paired_diff_f(s[0] * (double)(n - 1), s[1] * (double)(n - 1),
                          s[2] * (double)(n - 1), s[3] * (double)(n - 1),
                          GRADER_Z90, &d, &lo, &hi);
    assert_false(100.0 * lo > -2.0 + GRADER_VERDICT_EPS &&
                 100.0 * hi < 2.0 - GRADER_VERDICT_EPS);
    /* a change at the margin never concludes */
    assert_int_equal(grader_equiv_n(0.9, 0.0, 0.02, 0.08, GRADER_Z90, 2.0),
                     -1);
}

/* The study's T4 ladder (study.h) at 2 and 5 points: docs/grading.md
 * gives this table. */
static void test_study_t4(void **state)
{
    static const int want2[NR] = {
        0, GRADER_VERDICT_EQUIVALENT, GRADER_VERDICT_CANNOT_TELL,
        GRADER_VERDICT_CANNOT_TELL, GRADER_VERDICT_CANNOT_TELL,
        GRADER_VERDICT_CANNOT_TELL, GRADER_VERDICT_CANNOT_TELL,
        GRADER_VERDICT_WORSE, GRADER_VERDICT_WORSE};
    static const int want5[NR] = {
        0, GRADER_VERDICT_EQUIVALENT, GRADER_VERDICT_EQUIVALENT,
        GRADER_VERDICT_EQUIVALENT, GRADER_VERDICT_EQUIVALENT,
        GRADER_VERDICT_EQUIVALENT, GRADER_VERDICT_CANNOT_TELL,
        GRADER_VERDICT_WORSE, GRADER_VERDICT_WORSE};
    struct grader_verdict v;
    size_t i;

    (void)state;
    for (i = 1; i < NR; i++) {
        size_t dead = (size_t)study[i][1], gh = (size_t)study[i][2];
        grader_verdict(229 - dead, gh, dead, 21 - gh, 2.0, 0.0, &v);
        assert_int_equal(v.kind, want2[i]);
        grader_verdict(229 - dead, gh, dead, 21 - gh, 5.0, 0.0, &v);
        assert_int_equal(v.kind, want5[i]);
    }
    /* Q8_0 at 2 points: 469 questions for McNemar at 80 % power, 564 for
     * the equivalence test if -0.8 points held */
    grader_verdict(225, 2, 4, 19, 2.0, 0.0, &v);
    assert_int_equal(v.n_power, 469);
    assert_int_equal(v.n_equiv, 564);
    /* Q4_K_M's change is exactly -2 points: no n makes it equivalent */
    grader_verdict(220, 4, 9, 17, 2.0, 0.0, &v);
    assert_int_equal(v.n_equiv, -1);
}

/* ---- the ladder ------------------------------------------------------- */

/* A reference right on 36 of 40 questions, run twice with 4 questions
 * graded differently (a floor of 4, 10 points), and a rung with 1 dead
 * and 1 ghost: cannot tell at 2 points without the floor, equivalent at
 * the floor's 10 (raised, and said); grader_ladder_verdicts sets another
 * margin. */
static void test_ladder_floor(void **state)
{
    struct rungs x;
    struct grader_ladder l;
    struct grader_error err;
    struct grader_meta m[2];
    const struct grader_rung *ra[1], *rb[1];
    struct text t[3] = {{0}, {0}, {0}};
    char dir[128];
    size_t q;

    (void)state;
    snprintf(dir, sizeof(dir), "%s/floor", test_dir);
    mkdir(dir, 0700);
    memset(m, 0, sizeof(m));
    m[0].bytes = m[1].bytes = -1;
    m[0].gpu_mib_loaded = m[1].gpu_mib_loaded = -1;
    m[0].gpu_mib_before = m[1].gpu_mib_before = -1;
    for (q = 0; q < 40; q++) {
        char id[16];
        snprintf(id, sizeof(id), "q%zu", q);
        add_row(&t[0], id, "1", q < 36 ? "1" : "2");
        add_row(&t[1], id, "1", (q < 36) != (q < 2 || q >= 38) ? "1" : "2");
        add_row(&t[2], id, "1", (q >= 1 && q < 36) || q == 36 ? "1" : "2");
    }
    x.qs = grader_qset_new();
    x.n = 2;
    x.r[0] = load_text(x.qs, dir, "REF", &t[0], GRADER_READ_TEXT);
    x.r[1] = load_text(x.qs, dir, "LOW", &t[2], 0);
    snprintf(dir, sizeof(dir), "%s/floor/repeat", test_dir);
    mkdir(dir, 0700);
    rb[0] = load_text(x.qs, dir, "REF", &t[1], GRADER_READ_TEXT);
    ra[0] = x.r[0];
    for (q = 0; q < 3; q++)
        free(t[q].p);

    assert_int_equal(grader_ladder_build(x.qs, m, x.r, 2, NULL, 0, NULL, NULL,
                                         0, 0, &l, &err),
                     0);
    assert_near(l.floor_points, -1.0, 0, "no floor");
    assert_int_equal(l.rungs[0].verdict.kind, GRADER_VERDICT_NONE);
    assert_int_equal(l.rungs[1].verdict.kind, GRADER_VERDICT_CANNOT_TELL);
    assert_int_equal(l.rungs[1].verdict.margin_raised, 0);
    assert_near(l.margin, GRADER_MARGIN_DEFAULT, 0, "the build's margin");
    grader_ladder_release(&l);

    assert_int_equal(grader_ladder_build(x.qs, m, x.r, 2, NULL, 0, ra, rb, 1,
                                         0, &l, &err),
                     0);
    assert_int_equal(l.floor, 4);
    assert_near(l.floor_points, 10.0, 1e-12, "4 of 40");
    assert_int_equal(l.rungs[1].verdict.kind, GRADER_VERDICT_EQUIVALENT);
    assert_int_equal(l.rungs[1].verdict.margin_raised, 1);
    assert_near(l.rungs[1].verdict.margin, 10.0, 1e-12, "raised");
    /* a margin above the floor's share stands as asked */
    grader_ladder_verdicts(&l, 20.0);
    assert_near(l.margin, 20.0, 0, "asked");
    assert_int_equal(l.rungs[1].verdict.margin_raised, 0);
    assert_near(l.rungs[1].verdict.margin, 20.0, 0, "asked");
    assert_int_equal(l.rungs[0].verdict.kind, GRADER_VERDICT_NONE);
    grader_ladder_release(&l);
    grader_rung_free((struct grader_rung *)rb[0]);
    free_rungs(&x);
}

/* ---- compare: each run's verdict, and whether it holds everywhere ---- */

/* Rows of 200 questions, right where right(q) says. */
static const struct grader_rung *rung_of(struct grader_qset *qs,
                                         const char *dir, const char *name,
                                         int (*right)(size_t))
{
    struct text t = {0};
    const struct grader_rung *r;
    size_t q;

    for (q = 0; q < 200; q++) {
        char id[16];
        snprintf(id, sizeof(id), "q%zu", q);
        add_row(&t, id, "1", right(q) ? "1" : "2");
    }
    r = load_text(qs, dir, name, &t, 0);
    free(t.p);
    return r;
}

static int ref_right(size_t q) { return q < 180; }
static int ref_moved(size_t q) { return q < 170 || (q >= 180 && q < 190); }
static int lost_30(size_t q) { return q >= 30 && q < 180; }

/* Two runs of BF16, Q8_0 and Q2_K: Q8_0 answers as BF16 on both
 * (equivalent on both: holds); Q2_K does on run A and loses 30 questions
 * on run B (equivalent, then worse: does not hold). With run B's
 * reference moved on 20 questions the floor is 20 of 200, 10 points,
 * and it raises the margin on every run. */
static void test_compare_verdicts(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    const struct grader_rung *r[6];
    struct grader_compare c;
    struct grader_error err;
    char a[128], b[128];
    size_t i;

    (void)state;
    snprintf(a, sizeof(a), "%s/cmp-a", test_dir);
    snprintf(b, sizeof(b), "%s/cmp-b", test_dir);
    mkdir(a, 0700);
    mkdir(b, 0700);
    r[0] = rung_of(qs, a, "BF16", ref_right);
    r[1] = rung_of(qs, a, "Q8_0", ref_right);
    r[2] = rung_of(qs, a, "Q2_K", ref_right);
    r[3] = rung_of(qs, b, "BF16", ref_right);
    r[4] = rung_of(qs, b, "Q8_0", ref_right);
    r[5] = rung_of(qs, b, "Q2_K", lost_30);
    assert_int_equal(grader_compare(qs, r, 2, 3, 0, &c, &err), 0);
    assert_int_equal(c.floor, 0);
    assert_near(c.floor_points, 0.0, 0, "no move");
    assert_int_equal(c.rungs[0].verdict_holds, -1);
    assert_int_equal(c.rungs[0].verdict[0].kind, GRADER_VERDICT_NONE);
    assert_int_equal(c.rungs[1].verdict[0].kind, GRADER_VERDICT_EQUIVALENT);
    assert_int_equal(c.rungs[1].verdict[1].kind, GRADER_VERDICT_EQUIVALENT);
    assert_int_equal(c.rungs[1].verdict_holds, 1);
    assert_int_equal(c.rungs[2].verdict[0].kind, GRADER_VERDICT_EQUIVALENT);
    assert_int_equal(c.rungs[2].verdict[1].kind, GRADER_VERDICT_WORSE);
    assert_int_equal(c.rungs[2].verdict_holds, 0);
    assert_near(c.margin, GRADER_MARGIN_DEFAULT, 0, "default");
    grader_compare_verdicts(&c, 20.0);
    assert_near(c.rungs[1].verdict[1].margin, 20.0, 0, "asked");
    grader_compare_release(&c);

    grader_rung_free((struct grader_rung *)r[3]);
    r[3] = rung_of(qs, b, "BF16", ref_moved);
    assert_int_equal(grader_compare(qs, r, 2, 3, 0, &c, &err), 0);
    assert_int_equal(c.floor, 20);
    assert_near(c.floor_points, 10.0, 1e-12, "20 of 200");
    for (i = 0; i < 2; i++) {
        assert_int_equal(c.rungs[1].verdict[i].margin_raised, 1);
        assert_near(c.rungs[1].verdict[i].margin, 10.0, 1e-12, "raised");
    }
    grader_compare_release(&c);
    for (i = 0; i < 6; i++)
        grader_rung_free((struct grader_rung *)r[i]);
    grader_qset_free(qs);
}

/* ---- against a simulation --------------------------------------------- */

/* splitmix64: a fixed seed, the same draws on every machine */
static uint64_t rng_state;

static double uniform(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

/* n pairs drawn with shares p[0..4) (both, rung only, reference only,
 * neither) into c. */
static void draw(size_t n, const double p[4], size_t c[4])
{
    size_t i;

    c[0] = c[1] = c[2] = c[3] = 0;
    for (i = 0; i < n; i++) {
        double u = uniform();
        c[u < p[0] ? 0 : u < p[0] + p[1] ? 1 : u < p[0] + p[1] + p[2] ? 2 : 3]++;
    }
}

/* (a) With the true change exactly at the margin (-2 points, then +2),
 * the equivalence test says equivalent in at most 5 % of samples, plus
 * the simulation's own noise (2000 samples: sd 0.5 points; slack 1.5). */
static void test_tost_type1(void **state)
{
    static const struct {
        size_t n;
        double p[4];
    } cases[] = {
        /* 10 % discordant, 6 % dead and 4 % ghosts: -2 points */
        {1000, {0.80, 0.04, 0.06, 0.10}},
        /* 6 % discordant, +2 points */
        {2000, {0.85, 0.04, 0.02, 0.09}},
    };
    size_t k, r, c[4], hits;
    struct grader_verdict v;

    (void)state;
    rng_state = 27;
    for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        hits = 0;
        for (r = 0; r < 2000; r++) {
            draw(cases[k].n, cases[k].p, c);
            grader_verdict(c[0], c[1], c[2], c[3], 2.0, -1.0, &v);
            hits += v.kind == GRADER_VERDICT_EQUIVALENT;
        }
        if ((double)hits / 2000.0 > 0.065)
            fail_msg("case %zu: equivalent in %zu of 2000 at the margin", k,
                     hits);
    }
}

/* (b) At the n Connor's formula gives, McNemar's exact test (the one the
 * report prints, grader_mcnemar_p) at 0.05 finds the change in about 80 %
 * of samples (1000 samples: sd 1.3 points; the exact test is a little
 * conservative, so the band is 80 -5/+3). */
static void test_mcnemar_power(void **state)
{
    static const struct {
        double psi, delta;
    } cases[] = {{0.10, 0.02}, {0.05, 0.02}, {0.20, 0.05}};
    size_t k, r, c[4], hits;
    long long n;

    (void)state;
    rng_state = 1987;
    for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        double psi = cases[k].psi, dl = cases[k].delta;
        double p[4] = {0.5, (psi - dl) / 2, (psi + dl) / 2, 0};
        p[3] = 1.0 - p[0] - p[1] - p[2];
        n = grader_mcnemar_n(psi, dl, GRADER_Z95, GRADER_Z80);
        assert_true(n > 0);
        hits = 0;
        for (r = 0; r < 1000; r++) {
            draw((size_t)n, p, c);
            hits += grader_mcnemar_p(c[1], c[2]) < 0.05;
        }
        if (hits < 750 || hits > 830)
            fail_msg("psi %.2f delta %.2f: n %lld, power %zu of 1000", psi,
                     dl, n, hits);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kind_boundaries),
        cmocka_unit_test(test_touching_from_counts),
        cmocka_unit_test(test_floor_raises_margin),
        cmocka_unit_test(test_no_questions),
        cmocka_unit_test(test_all_the_same),
        cmocka_unit_test(test_better_and_worse),
        cmocka_unit_test(test_mcnemar_n),
        cmocka_unit_test(test_equiv_n_is_least),
        cmocka_unit_test(test_study_t4),
        cmocka_unit_test(test_ladder_floor),
        cmocka_unit_test(test_compare_verdicts),
        cmocka_unit_test(test_tost_type1),
        cmocka_unit_test(test_mcnemar_power),
    };

    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
