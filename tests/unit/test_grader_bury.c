/*
 * test_grader_bury.c - dead, ghosts, tombstones, the autopsy: the study's
 * worked numbers, and the rules for questions a rung lacks.
 *
 * Tests: grader/bury.c
 */
#include "helpers.h"
#include "study.h"

#include <math.h>

#include "bury.h"


struct ladder {
    struct grader_qset *qs;
    const struct grader_rung *r[NR];
    size_t n;
};

/* Build a ladder whose rung i answers question q with said(i, q); ids
 * names the questions (NULL: test-0, test-1, ...). */
static void build(struct ladder *l, size_t nrungs, size_t nq,
                  const char *(*said)(size_t rung, size_t q, char *buf),
                  const char *const *ids)
{
    size_t i, q;
    char id[32], buf[32];

    l->qs = grader_qset_new();
    l->n = nrungs;
    for (i = 0; i < nrungs; i++) {
        struct text t = {0};
        for (q = 0; q < nq; q++) {
            if (ids)
                snprintf(id, sizeof(id), "%s", ids[q]);
            else
                snprintf(id, sizeof(id), "test-%zu", q);
            add_row(&t, id, "100", said(i, q, buf));
        }
        l->r[i] = load_text(l->qs, test_dir, ladder[i], &t, 0);
        free(t.p);
    }
}

static void release(struct ladder *l)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        grader_rung_free((struct grader_rung *)l->r[i]);
    grader_qset_free(l->qs);
}

/* The study's counts (study.h) as answers. */
static const char *study_said(size_t i, size_t q, char *buf)
{
    snprintf(buf, 32, "%d", study_right(i, q) ? 100 : 99);
    return buf;
}

static void test_study_counts(void **state)
{
    struct ladder l;
    struct grader_bury b;
    struct grader_error err;
    size_t i, first_sum = 0;

    (void)state;
    build(&l, NR, NQ, study_said, NULL);
    assert_int_equal(grader_bury(l.qs, l.r, l.n, 0, &b, &err), 0);
    for (i = 0; i < NR; i++) {
        const struct grader_bury_line *x = &b.lines[i];
        assert_int_equal(x->sum.right, study[i][0]);
        assert_int_equal(x->dead, study[i][1]);
        assert_int_equal(x->ghosts, study[i][2]);
        /* the identity: right = reference right - dead + ghosts */
        assert_int_equal(x->sum.right,
                         b.lines[0].sum.right - x->dead + x->ghosts);
        first_sum += x->first_deaths;
    }
    /* Q4_0 = 229 - 15 + 8 = 222 */
    assert_int_equal(b.lines[6].sum.right, 222);
    /* first deaths add up to the tombstones, one per question */
    assert_int_equal(first_sum, b.ntombs);
    assert_int_equal(b.questions, 250);
    /* 5 ghosts against 3 dead (Q5_K_M): p = 0.727 */
    assert_true(fabs(b.lines[4].p_mcnemar - 0.727) < 0.0005);
    /* every question the reference gets wrong is a ghost at Q4_0 or
     * above for the first 8 of them */
    assert_int_equal(b.nghosts, 8);
    grader_bury_release(&b);
    release(&l);
}

/* test-687: 13 at BF16, 17 at F16, 13 again at Q8_0..Q4_K_M, then lost;
 * test-2: dead at Q8_0 and Q4_0, right between. */
static const char *story_said(size_t i, size_t q, char *buf)
{
    (void)buf;
    if (q == 0) { /* test-687 */
        if (i == 1)
            return "17";
        return i <= 5 ? "100" : "3";
    }
    if (q == 1) /* test-2 */
        return (i == 2 || i == 6) ? "120,000" : "100";
    if (q == 2) /* a ghost at two rungs */
        return (i == 3 || i == 8) ? "100" : NULL;
    return "100";
}

static void test_tombstones(void **state)
{
    struct ladder l;
    struct grader_bury b;
    struct grader_error err;
    const struct grader_tombstone *t;

    static const char *const ids[] = {"test-687", "test-2", "test-1166",
                                      "test-93", "test-147"};

    (void)state;
    build(&l, NR, 5, story_said, ids);
    assert_int_equal(grader_bury(l.qs, l.r, l.n, 0, &b, &err), 0);
    assert_int_equal(b.ntombs, 2);
    t = &b.tombs[0];
    assert_string_equal(grader_qset_id(l.qs, t->q), "test-687");
    assert_string_equal(ladder[t->died_at], "F16");
    assert_string_equal(t->said, "17");
    /* right again at Q8_0, Q6_K, Q5_K_M, Q4_K_M */
    assert_int_equal(t->right_again, (1u << 2) | (1u << 3) | (1u << 4) |
                                         (1u << 5));
    /* dead at Q8_0 and Q4_0: one tombstone, at Q8_0 */
    t = &b.tombs[1];
    assert_string_equal(grader_qset_id(l.qs, t->q), "test-2");
    assert_string_equal(ladder[t->died_at], "Q8_0");
    assert_string_equal(t->said, "120000");
    assert_int_equal(b.lines[2].dead, 1);
    assert_int_equal(b.lines[6].dead, 2);
    assert_int_equal(b.lines[6].first_deaths, 0);
    assert_int_equal(b.lines[2].first_deaths, 1);
    assert_int_equal(b.lines[2].first_deaths_right_again_lower, 1);
    /* one ghost question, right at two rungs */
    assert_int_equal(b.nghosts, 1);
    assert_int_equal(b.ghosts[0].right_at, (1u << 3) | (1u << 8));
    assert_null(b.ghosts[0].reference_said);
    /* answer_changed counts the ghost's rungs too */
    assert_int_equal(b.lines[3].answer_changed, 1);
    grader_bury_release(&b);
    release(&l);
}

static void test_autopsy(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    const struct grader_rung *r[2];
    struct grader_bury b;
    struct grader_autopsy_line a[2];
    struct grader_error err;
    struct text ref = {0}, low = {0};

    (void)state;
    add_row(&ref, "a", "1", "1");
    add_row(&ref, "b", "2", "2");
    add_row(&ref, "c", "3", "3");
    add_row(&ref, "d", "4", "5");
    /* a: dead, cut off and looping; b: dead, empty, right in reasoning;
     * c: an error; d: wrong in both, thinking */
    text_addf(&low, "{\"id\":\"a\",\"reference\":\"1\",\"content\":"
              "\"x\\nx\\nx\\nx\\nx\",\"truncated\":true}\n"
              "{\"id\":\"b\",\"reference\":\"2\",\"content\":null,"
              "\"reasoning_content\":\"Answer: 2\"}\n"
              "{\"id\":\"c\",\"reference\":\"3\",\"error\":\"HTTP 500\"}\n"
              "{\"id\":\"d\",\"reference\":\"4\",\"content\":\"Answer: 6\","
              "\"reasoning_content\":\"hmm\"}\n");
    r[0] = load_text(qs, test_dir, "REF", &ref, 0);
    r[1] = load_text(qs, test_dir, "LOW", &low, 0);
    assert_int_equal(grader_bury(qs, r, 2, 0, &b, &err), 0);
    grader_autopsy(&b, r, a);
    assert_int_equal(a[0].dead, 0);
    assert_int_equal(a[0].cut_off, 0);
    assert_int_equal(a[1].n, 4);
    assert_int_equal(a[1].errors, 1);
    assert_int_equal(a[1].cut_off, 1);
    assert_int_equal(a[1].looped, 1);
    assert_int_equal(a[1].thought, 2);
    assert_int_equal(a[1].empty_content, 1);
    assert_int_equal(a[1].empty_right_in_reasoning, 1);
    assert_int_equal(a[1].dead, 3);
    assert_int_equal(a[1].dead_cut_off, 1);
    assert_int_equal(a[1].dead_looped, 1);
    assert_int_equal(a[1].dead_empty_content, 1);
    assert_int_equal(a[1].first_deaths, 3);
    assert_int_equal(a[1].first_deaths_right_again_lower, 0);
    assert_int_equal(b.lines[1].sum.errors, 1);
    grader_bury_release(&b);
    grader_rung_free((struct grader_rung *)r[0]);
    grader_rung_free((struct grader_rung *)r[1]);
    grader_qset_free(qs);
    free(ref.p);
    free(low.p);
}

static const char *short_said(size_t i, size_t q, char *buf)
{
    (void)buf;
    (void)q;
    return i == 0 ? "100" : "1";
}

static void test_missing_questions(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    const struct grader_rung *r[3];
    struct grader_bury b;
    struct grader_error err;
    struct text ref = {0}, low = {0}, more = {0};

    (void)state;
    add_row(&ref, "a", "1", "1");
    add_row(&ref, "b", "2", "2");
    add_row(&ref, "c", "3", "3");
    add_row(&low, "a", "1", "0");
    add_row(&more, "a", "1", "1");
    add_row(&more, "b", "2", "2");
    add_row(&more, "c", "3", "3");
    add_row(&more, "z", "9", "9");
    r[0] = load_text(qs, test_dir, "REF", &ref, 0);
    r[1] = load_text(qs, test_dir, "LOW", &low, 0);
    r[2] = load_text(qs, test_dir, "MORE", &more, 0);
    assert_int_equal(grader_bury(qs, r, 2, 0, &b, &err), GRADER_EMISSING);
    assert_non_null(strstr(err.text, "'LOW' is missing 2 of the 3"));
    assert_non_null(strstr(err.text, "first: 'b'"));
    assert_non_null(strstr(err.file, "LOW.jsonl"));
    const struct grader_rung *r2[2] = {r[0], r[2]};
    assert_int_equal(grader_bury(qs, r2, 2, 0, &b, &err), GRADER_EEXTRA);
    assert_non_null(strstr(err.text, "'MORE' has 1 question"));
    /* --partial buries what is there */
    assert_int_equal(grader_bury(qs, r, 3, GRADER_PARTIAL, &b, &err), 0);
    assert_int_equal(b.lines[1].missing, 2);
    assert_int_equal(b.lines[1].dead, 1);
    assert_int_equal(b.lines[2].extra, 1);
    assert_int_equal(b.lines[2].dead, 0);
    assert_int_equal(b.ntombs, 1);
    grader_bury_release(&b);
    grader_rung_free((struct grader_rung *)r[0]);
    grader_rung_free((struct grader_rung *)r[1]);
    grader_rung_free((struct grader_rung *)r[2]);
    grader_qset_free(qs);
    free(ref.p);
    free(low.p);
    free(more.p);
}

static void test_one_rung_and_limits(void **state)
{
    struct ladder l;
    struct grader_bury b;
    struct grader_error err;

    (void)state;
    build(&l, 1, 3, short_said, NULL);
    assert_int_equal(grader_bury(l.qs, l.r, 1, 0, &b, &err), 0);
    assert_int_equal(b.ntombs, 0);
    assert_int_equal(b.lines[0].sum.right, 3);
    grader_bury_release(&b);
    assert_int_equal(grader_bury(l.qs, l.r, 0, 0, &b, &err), GRADER_EARG);
    assert_int_equal(grader_bury(l.qs, l.r, GRADER_MAX_RUNGS + 1, 0, &b,
                                 &err),
                     GRADER_EARG);
    release(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_study_counts),
        cmocka_unit_test(test_tombstones),
        cmocka_unit_test(test_autopsy),
        cmocka_unit_test(test_missing_questions),
        cmocka_unit_test(test_one_rung_and_limits),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
