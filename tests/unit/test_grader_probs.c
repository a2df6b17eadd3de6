/*
 * test_grader_probs.c - where two replies split, against figures worked by hand
 * (probs.h, docs/grading.md "Where they split"): the split at the first
 * differing id (not one late), the top-N KLD with its "other" bucket,
 * margins, fragility, the per-rung accumulator (p99 within its stated
 * resolution, the split counts, the median position), the AUC with ties
 * as 1/2, Spearman with average ranks, and a dead cell's copied lists.
 *
 * Tests: grader/probs_split.c
 */
#include "helpers.h"

#include <math.h>
#include <string.h>

#include "probs.h"

#define TOL 1e-6

/* An answer of up to 8 tokens and N = 2 built in place. */
struct fixture {
    struct grader_probs_answer a;
    struct grader_probs_entry chosen[8];
    struct grader_probs_entry top[8 * 2];
};

/* Token i: chosen id c, the list {t0: p0, t1: p1} (probabilities). */
static void tok(struct fixture *f, size_t i, uint32_t c, uint32_t t0,
                double p0, uint32_t t1, double p1)
{
    f->chosen[i] =
        (struct grader_probs_entry){c, (float)log(c == t0 ? p0 : p1), 1, "x"};
    f->top[i * 2] = (struct grader_probs_entry){t0, (float)log(p0), 1, "a"};
    f->top[i * 2 + 1] =
        (struct grader_probs_entry){t1, (float)log(p1), 1, "b"};
    if (i + 1 > f->a.ntok)
        f->a.ntok = i + 1;
}

static void fixture_init(struct fixture *f)
{
    memset(f, 0, sizeof(*f));
    f->a.id = "q";
    f->a.id_len = 1;
    f->a.topn = 2;
    f->a.chosen = f->chosen;
    f->a.top = f->top;
}

static struct grader_probs_entry ent(uint32_t id, double p)
{
    return (struct grader_probs_entry){id, (float)log(p), 0, NULL};
}

static void test_kld_other_bucket(void **state)
{
    struct grader_probs_entry p[2], q[2];

    (void)state;
    /* shared token 1; 2 in P's list only, 3 in Q's only: both go to the
     * "other" buckets, P's 1 - .5 = .5 and Q's 1 - .4 = .6:
     * .5 ln(.5/.4) + .5 ln(.5/.6) = 0.0204109973 (dropping the other
     * bucket would give 0.1115717757) */
    p[0] = ent(1, .5), p[1] = ent(2, .3);
    q[0] = ent(1, .4), q[1] = ent(3, .4);
    assert_true(fabs(grader_probs_kld(p, q, 2) - 0.0204109973) < TOL);
    /* the same sets, summing to 1: .6 ln 1.2 + .4 ln .8 = 0.0201355136 */
    p[0] = ent(1, .6), p[1] = ent(2, .4);
    q[0] = ent(2, .5), q[1] = ent(1, .5);
    assert_true(fabs(grader_probs_kld(p, q, 2) - 0.0201355136) < TOL);
    /* identical lists: 0 */
    assert_true(grader_probs_kld(p, p, 2) == 0);
    /* an entry the server did not send holds no mass */
    p[0] = ent(1, .5),
    p[1] = (struct grader_probs_entry){GRADER_PROBS_NONE, -INFINITY, 0, NULL};
    q[0] = ent(1, .5), q[1] = p[1];
    assert_true(fabs(grader_probs_kld(p, q, 2)) < TOL);
    /* the rung gave the shared token nothing (-inf): floored, finite */
    p[0] = ent(1, .9), p[1] = ent(2, .1);
    q[0] = ent(2, 1),
    q[1] = (struct grader_probs_entry){1, -INFINITY, 0, NULL};
    assert_true(isfinite(grader_probs_kld(p, q, 2)));
    assert_true(grader_probs_kld(p, q, 2) > 10);
}

/* ref 10 11 12 13 against rung 10 11 20 13: the split is position 2. */
static void split_pair(struct fixture *ref, struct fixture *rung)
{
    fixture_init(ref);
    fixture_init(rung);
    tok(ref, 0, 10, 10, .9, 99, .1);
    tok(rung, 0, 10, 10, .9, 99, .1);
    tok(ref, 1, 11, 11, .8, 98, .2);
    tok(rung, 1, 11, 11, .6, 98, .4);
    tok(ref, 2, 12, 12, .5, 20, .4);
    tok(rung, 2, 20, 20, .5, 12, .3);
    tok(ref, 3, 13, 13, .7, 97, .3);
    tok(rung, 3, 13, 13, .99, 97, .01);
}

static void test_split_worked(void **state)
{
    struct fixture ref, rung;
    struct grader_split s;
    struct grader_error err;

    (void)state;
    split_pair(&ref, &rung);
    assert_int_equal(grader_probs_split(&ref.a, &rung.a, 4, &s, &err), 0);
    assert_int_equal(s.split, 2); /* not 3: the first differing id */
    assert_int_equal(s.prefix, 3);
    assert_int_equal(s.ref_ntok, 4);
    /* at the split: ln(.5/.4), ln(.5/.3), ln .3, and
     * .5 ln(.5/.3) + .4 ln(.4/.5) + .1 ln(.1/.2) */
    assert_true(fabs(s.ref_margin - 0.2231435513) < TOL);
    assert_true(fabs(s.rung_margin - 0.5108256238) < TOL);
    assert_true(fabs(s.rung_lp_of_ref - -1.2039728043) < TOL);
    assert_true(fabs(s.kld_split - 0.0968406733) < TOL);
    /* the prefix 0..2: 0, .8 ln(.8/.6) + .2 ln(.2/.4), the split's */
    assert_true(fabs(s.kld_mean - (0.0915162219 + 0.0968406733) / 3) < TOL);
    assert_true(fabs(s.kld_max - 0.0968406733) < TOL);
    /* the reference's margins ln 9, ln 4, ln 1.25, ln(7/3): the least */
    assert_true(fabs(s.fragility - 0.2231435513) < TOL);
    /* its answer ends after 2 tokens: ln 4 */
    assert_int_equal(grader_probs_split(&ref.a, &rung.a, 2, &s, &err), 0);
    assert_true(fabs(s.fragility - 1.3862943611) < TOL);
}

static void test_split_none(void **state)
{
    struct fixture ref, rung;
    struct grader_split s;
    struct grader_error err;

    (void)state;
    split_pair(&ref, &rung);
    /* the rung chooses as the reference did, and goes one token past it */
    tok(&rung, 2, 12, 12, .5, 20, .4);
    tok(&rung, 4, 14, 14, .5, 15, .5);
    ref.a.ntok = 4;
    assert_int_equal(grader_probs_split(&ref.a, &rung.a, 4, &s, &err), 0);
    assert_int_equal(s.split, -1);
    assert_int_equal(s.prefix, 4); /* every position both have */
    assert_true(isnan(s.ref_margin) && isnan(s.rung_margin));
    assert_true(isnan(s.kld_split) && isnan(s.rung_lp_of_ref));
    /* 0, pos 1's, 0, .7 ln(.7/.99) + .3 ln(.3/.01) = 0.7777 */
    double k3 = .7 * log(.7 / .99) + .3 * log(.3 / .01);
    assert_true(fabs(s.kld_mean - (0.0915162219 + k3) / 4) < TOL);
    /* top-N differ: refused */
    rung.a.topn = 1;
    assert_int_equal(grader_probs_split(&ref.a, &rung.a, 4, &s, &err),
                     GRADER_EARG);
    /* lists of one: no margin, no fragility */
    ref.a.topn = 1;
    assert_int_equal(grader_probs_split(&ref.a, &rung.a, 4, &s, &err), 0);
    assert_true(isnan(s.fragility));
}

static void test_auc_ties(void **state)
{
    /* died at 1 and 2, survived at 2 and 3: pairs (1,2) (1,3) (2,3) won,
     * (2,2) a tie worth 1/2: 3.5 / 4 */
    struct grader_probs_frag f[] = {{2, 0}, {1, 1}, {3, 0}, {2, 1}};
    struct grader_probs_frag same[] = {{1, 0}, {1, 1}, {1, 1}};
    struct grader_probs_frag none[] = {{1, 0}, {2, 0}};

    (void)state;
    assert_true(fabs(grader_probs_auc(f, 4) - 0.875) < 1e-12);
    assert_true(fabs(grader_probs_auc(same, 3) - 0.5) < 1e-12);
    assert_true(isnan(grader_probs_auc(none, 2)));
}

static void test_spearman(void **state)
{
    double x[] = {1, 2, 3, 4}, y[] = {10, 20, 20, 40}, c[] = {5, 5, 5, 5};

    (void)state;
    /* y's ranks 1 2.5 2.5 4: 4.5 / sqrt(5 * 4.5) */
    assert_true(fabs(grader_probs_spearman(x, y, 4) - 0.9486832981) < 1e-9);
    assert_true(isnan(grader_probs_spearman(x, y, 2)));
    assert_true(isnan(grader_probs_spearman(x, c, 4)));
    y[0] = 40, y[3] = 10; /* reversed ends */
    assert_true(grader_probs_spearman(x, y, 4) < 0);
}

static void test_p99(void **state)
{
    struct grader_probs_acc a;
    struct grader_probs_rung r;
    size_t i;

    (void)state;
    grader_probs_acc_init(&a);
    for (i = 0; i < 99; i++)
        grader_probs_acc_token(&a, 0.01);
    grader_probs_acc_token(&a, 5.0);
    grader_probs_acc_finish(&a, &r);
    assert_int_equal(r.tokens, 100);
    /* the 99th of 100 is 0.01, reported within 10^(1/200) */
    assert_true(fabs(r.kld_p99 / 0.01 - 1) < 0.0116);
    assert_true(fabs(r.kld_mean - (99 * 0.01 + 5.0) / 100) < 1e-12);
    grader_probs_acc_init(&a);
    for (i = 0; i < 980; i++)
        grader_probs_acc_token(&a, i % 2 ? 0.0 : 0.001);
    for (i = 0; i < 20; i++)
        grader_probs_acc_token(&a, 1.0 + (double)i);
    grader_probs_acc_finish(&a, &r);
    /* rank 990 is the 10th of 1..20 */
    assert_true(fabs(r.kld_p99 / 10.0 - 1) < 0.0116);
    grader_probs_acc_init(&a);
    for (i = 0; i < 10; i++)
        grader_probs_acc_token(&a, 0.0);
    grader_probs_acc_finish(&a, &r);
    assert_true(r.kld_p99 == 0);
    grader_probs_acc_init(&a);
    grader_probs_acc_finish(&a, &r);
    assert_true(isnan(r.kld_p99) && isnan(r.kld_mean));
}

static void test_acc_counts(void **state)
{
    struct fixture ref, rung, same;
    struct grader_probs_acc a;
    struct grader_probs_rung r;
    struct grader_split s;
    struct grader_error err;

    (void)state;
    split_pair(&ref, &rung);
    same = ref;
    same.a.chosen = same.chosen;
    same.a.top = same.top;
    grader_probs_acc_init(&a);
    /* split at 2 of 4 and died; agreed and both right; split and rose;
     * split and both right */
    assert_int_equal(
        grader_probs_acc_add(&a, &ref.a, &rung.a, 4, 1, 0, &s, &err), 0);
    assert_int_equal(
        grader_probs_acc_add(&a, &ref.a, &same.a, 4, 1, 1, &s, &err), 0);
    assert_int_equal(s.split, -1);
    assert_int_equal(
        grader_probs_acc_add(&a, &ref.a, &rung.a, 4, 0, 1, &s, &err), 0);
    rung.chosen[1].id = 55; /* now split at 1 */
    assert_int_equal(
        grader_probs_acc_add(&a, &ref.a, &rung.a, 4, 1, 1, &s, &err), 0);
    assert_int_equal(s.split, 1);
    grader_probs_acc_finish(&a, &r);
    assert_int_equal(r.both, 4);
    assert_int_equal(r.split, 3);
    assert_int_equal(r.split_died, 1);
    assert_int_equal(r.split_rose, 1);
    assert_int_equal(r.split_survived, 1);
    assert_int_equal(r.flips, 2);
    assert_int_equal(r.tokens, 3 + 4 + 3 + 2);
    /* positions 2/4, 2/4, 1/4: the median is .5 */
    assert_true(fabs(r.split_pos_median - 0.5) < 1e-9);
    /* the reference right three times, all with fragility ln 1.25; one
     * died: a tie throughout, 1/2 */
    assert_true(fabs(r.fragility_auc - 0.5) < 1e-9);
}

static void test_cell(void **state)
{
    struct fixture ref, rung;
    struct grader_probs_ladder p;
    struct grader_split s;
    struct grader_error err;
    char longtext[200];

    (void)state;
    split_pair(&ref, &rung);
    memset(longtext, 'z', sizeof(longtext));
    ref.chosen[0].text = "ab";
    ref.chosen[0].len = 2;
    ref.chosen[1].text = "cd";
    ref.chosen[1].len = 2;
    ref.top[4].text = longtext;
    ref.top[4].len = 200;
    assert_int_equal(grader_probs_ladder_init(&p, 2, 3, 5), 0);
    assert_true(isnan(p.kld[14]) && isnan(p.spearman));
    assert_int_equal(grader_probs_split(&ref.a, &rung.a, 4, &s, &err), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(
            grader_probs_ladder_cell(&p, 2, 4, &ref.a, &rung.a, &s), 0);
    assert_int_equal(p.ncells, 3);
    assert_string_equal(p.cells[2].before, "abcd");
    assert_int_equal(p.cells[2].ref_tok.id, 12);
    assert_int_equal(p.cells[2].rung_tok.id, 20);
    assert_int_equal(p.cells[2].rung_top[1].id, 12);
    assert_int_equal(strlen(p.cells[2].ref_top[0].text),
                     GRADER_PROBS_SHOWN - 1);
    assert_int_equal(p.cells[2].ref_top[2].id, GRADER_PROBS_NONE);
    assert_int_equal(p.cells[2].rung, 2);
    assert_int_equal(p.cells[2].question, 4);
    /* a reply longer than the kept bytes keeps its end: split at 3 after
     * three tokens of 200 bytes, 600 > 511 kept, the first 89 cut, and
     * the two continuation bytes met there dropped */
    rung.chosen[2].id = 12;
    rung.chosen[3].id = 77;
    for (int i = 0; i < 3; i++) {
        ref.chosen[i].text = longtext;
        ref.chosen[i].len = 200;
    }
    longtext[199] = 'E';
    longtext[89] = longtext[90] = (char)0x80;
    assert_int_equal(grader_probs_split(&ref.a, &rung.a, 4, &s, &err), 0);
    assert_int_equal(s.split, 3);
    assert_int_equal(grader_probs_ladder_cell(&p, 2, 4, &ref.a, &rung.a, &s),
                     0);
    assert_int_equal(strlen(p.cells[3].before), 509);
    assert_int_equal(p.cells[3].before[508], 'E');
    assert_int_equal(p.cells[3].before[0], 'z');
    s.split = -1;
    assert_int_equal(grader_probs_ladder_cell(&p, 2, 4, &ref.a, &rung.a, &s),
                     GRADER_EARG);
    /* added question by question, handed over rung by rung */
    s.split = 2;
    assert_int_equal(grader_probs_ladder_cell(&p, 1, 3, &ref.a, &rung.a, &s),
                     0);
    assert_int_equal(grader_probs_ladder_cell(&p, 2, 1, &ref.a, &rung.a, &s),
                     0);
    grader_probs_ladder_finish(&p);
    assert_int_equal(p.ncells, 6);
    assert_true(p.cells[0].rung == 1 && p.cells[0].question == 3);
    assert_true(p.cells[1].rung == 2 && p.cells[1].question == 1);
    assert_true(p.cells[5].rung == 2 && p.cells[5].question == 4);
    assert_int_equal(p.cells[1].s.split, 2);
    grader_probs_ladder_free(&p);
    assert_null(p.cells);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kld_other_bucket),
        cmocka_unit_test(test_split_worked),
        cmocka_unit_test(test_split_none),
        cmocka_unit_test(test_auc_ties),
        cmocka_unit_test(test_spearman),
        cmocka_unit_test(test_p99),
        cmocka_unit_test(test_acc_counts),
        cmocka_unit_test(test_cell),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
