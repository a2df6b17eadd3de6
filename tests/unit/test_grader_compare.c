/*
 * test_grader_compare.c - runs of one ladder compared question by question: the
 * pair counts, the graves across runs and the cover's grid, on three runs
 * of three rungs over six questions small enough to count by hand.
 *
 * Tests: grader/compare.c
 */
#include "helpers.h"
#include "chaos.h"

#include "alloc.h"
#include "compare.h"

#define NQ     6
#define NRUNGS 3
#define NRUNS  3

static const char *const rung_names[NRUNGS] = {"BF16", "Q8_0", "Q2_K"};
static const char *const run_dirs[NRUNS] = {"gpu-a", "gpu-b", "gpu-c"};

/*
 * The runs, one string per rung, one character per question q0..q5:
 * '1' right, '0' wrong, '-' no row. Worked by hand:
 *
 *          q0 q1 q2 q3 q4 q5
 *   run A  BF16  1  1  1  1  0  1
 *          Q8_0  1  0  1  1  1  0    dead q1 q5, ghost q4
 *          Q2_K  1  0  0  1  0  1    dead q1 q2
 *   run B  BF16  1  1  1  1  0  1
 *          Q8_0  1  0  0  1  0  1    dead q1 q2
 *          Q2_K  1  0  0  0  0  1    dead q1 q2 q3
 *   run C  BF16  1  1  1  1  0  0
 *          Q8_0  1  0  1  1  0  0    dead q1
 *          Q2_K  1  0  0  1  0  1    dead q1 q2, ghost q5
 *
 * Tombstones (first rung dead): A: q1@1 q2@2 q5@1; B: q1@1 q2@1 q3@2;
 * C: q1@1 q2@2. So q1, q2, q3, q5 die somewhere (4); q1 and q2 on every
 * run (2), q1 at the same rung on all (1); q3 dies on B only, at Q2_K,
 * and q5 on A only, at Q8_0 (C's reference gets q5 wrong, B never loses
 * it).
 */
static const char *const grid[NRUNS][NRUNGS] = {
    {"111101", "101110", "100101"},
    {"111101", "100101", "100001"},
    {"111100", "101100", "100101"},
};

/* Rows of one rung from its pattern; run 0 in question order, the
 * others in reverse, so that row order, question index and run differ. */
static void rows_of(struct text *t, const char *pattern, int reverse)
{
    size_t j;

    for (j = 0; j < NQ; j++) {
        size_t q = reverse ? NQ - 1 - j : j;
        char id[16], ref[16], wrong[16];
        if (pattern[q] == '-')
            continue;
        snprintf(id, sizeof(id), "q%zu", q);
        snprintf(ref, sizeof(ref), "%zu", 10 * (q + 1));
        snprintf(wrong, sizeof(wrong), "%zu", 10 * (q + 1) + 1);
        add_row(t, id, ref, pattern[q] == '1' ? ref : wrong);
    }
}

struct runs {
    struct grader_qset *qs;
    const struct grader_rung *r[NRUNS * NRUNGS]; /* [run * NRUNGS + rung] */
    size_t nruns;
};

/* Read the runs of g (nruns of them) into one qset, run 1 first (when
 * there is one) so that the qset's question order is not run 0's. */
static void load_runs(struct runs *x, const char *const (*g)[NRUNGS],
                      size_t nruns)
{
    static const size_t load_order[NRUNS] = {1, 0, 2};
    size_t n, k, i;

    x->qs = grader_qset_new();
    assert_non_null(x->qs);
    x->nruns = nruns;
    for (n = 0; n < NRUNS; n++) {
        char dir[128];
        k = nruns == 1 ? n : load_order[n];
        if (k >= nruns)
            continue;
        snprintf(dir, sizeof(dir), "%s/%s", test_dir, run_dirs[k]);
        mkdir(dir, 0700);
        for (i = 0; i < NRUNGS; i++) {
            struct text t = {0};
            rows_of(&t, g[k][i], k != 0);
            x->r[k * NRUNGS + i] = load_text(x->qs, dir, rung_names[i], &t, 0);
            free(t.p);
        }
    }
}

static void free_runs(struct runs *x)
{
    size_t j;

    for (j = 0; j < x->nruns * NRUNGS; j++)
        grader_rung_free((struct grader_rung *)x->r[j]);
    grader_qset_free(x->qs);
}

static const char *qid(const struct runs *x, uint32_t q)
{
    return grader_qset_id(x->qs, q);
}

/* The pair counts and closest/furthest pairs of one rung. */
static void check_pairs(const struct grader_compare_rung *cr,
                        const size_t want[NRUNS][NRUNS], size_t c0, size_t c1,
                        size_t f0, size_t f1)
{
    size_t k, l;

    for (k = 0; k < NRUNS; k++)
        for (l = 0; l < NRUNS; l++)
            if (cr->differ[k][l] != want[k][l])
                fail_msg("differ[%zu][%zu] = %zu, want %zu", k, l,
                         cr->differ[k][l], want[k][l]);
    assert_int_equal(cr->closest[0], c0);
    assert_int_equal(cr->closest[1], c1);
    assert_int_equal(cr->furthest[0], f0);
    assert_int_equal(cr->furthest[1], f1);
}

static void test_three_runs(void **state)
{
    struct runs x;
    struct grader_compare c;
    struct grader_error err;
    const struct grader_compare_rung *cr;
    size_t i, j;

    /* the grid in run A's row order (q0..q5): R right on every run, W
     * wrong on every run, S split */
    static const char *const cells[NRUNGS] = {"RRRRWS", "RWSRSS", "RWWSWR"};
    /* per-rung pair counts, worked from the table above */
    static const size_t differ0[NRUNS][NRUNS] = {{0, 0, 1}, /* q5 */
                                                 {0, 0, 1},
                                                 {1, 1, 0}};
    static const size_t differ1[NRUNS][NRUNS] = {{0, 3, 1}, /* q2 q4 q5; q4 */
                                                 {3, 0, 2}, /* q2 q5 */
                                                 {1, 2, 0}};
    static const size_t differ2[NRUNS][NRUNS] = {{0, 1, 0}, /* q3 */
                                                 {1, 0, 1},
                                                 {0, 1, 0}};

    (void)state;
    load_runs(&x, grid, NRUNS);
    /* the qset's order is run B's (reversed), not run A's */
    assert_string_equal(qid(&x, 0), "q5");
    assert_int_equal(grader_compare(x.qs, x.r, NRUNS, NRUNGS, 0, &c, &err), 0);
    assert_int_equal(c.nruns, NRUNS);
    assert_int_equal(c.nrungs, NRUNGS);
    assert_int_equal(c.nq, NQ);

    /* the columns are run A's reference rows, in its order */
    for (j = 0; j < NQ; j++) {
        char id[16];
        snprintf(id, sizeof(id), "q%zu", j);
        assert_string_equal(qid(&x, c.order[j]), id);
    }
    for (i = 0; i < NRUNGS; i++)
        for (j = 0; j < NQ; j++) {
            int want = cells[i][j] == 'R'   ? GRADER_CELL_RIGHT
                       : cells[i][j] == 'W' ? GRADER_CELL_WRONG
                                            : GRADER_CELL_SPLIT;
            if (c.cells[i * NQ + j] != want)
                fail_msg("cell %s q%zu = %d, want %d", rung_names[i], j,
                         c.cells[i * NQ + j], want);
        }

    /* BF16 */
    cr = &c.rungs[0];
    assert_int_equal(cr->right[0], 5);
    assert_int_equal(cr->right[1], 5);
    assert_int_equal(cr->right[2], 4);
    assert_int_equal(cr->dead[0] + cr->dead[1] + cr->dead[2], 0);
    check_pairs(cr, differ0, 0, 1, 0, 2);
    assert_int_equal(cr->all_right, 4); /* q0..q3 */
    assert_int_equal(cr->all_wrong, 1); /* q4 */
    assert_int_equal(cr->lost_all, 0);

    /* Q8_0 */
    cr = &c.rungs[1];
    assert_int_equal(cr->right[0], 4);
    assert_int_equal(cr->right[1], 3);
    assert_int_equal(cr->right[2], 3);
    assert_int_equal(cr->dead[0], 2);
    assert_int_equal(cr->dead[1], 2);
    assert_int_equal(cr->dead[2], 1);
    check_pairs(cr, differ1, 0, 2, 0, 1);
    assert_int_equal(cr->all_right, 2); /* q0 q3 */
    assert_int_equal(cr->all_wrong, 1); /* q1 */
    assert_int_equal(cr->lost_all, 1);  /* q1; q2 lives on A, q5 on C's
                                           reference is wrong */

    /* Q2_K */
    cr = &c.rungs[2];
    assert_int_equal(cr->right[0], 3);
    assert_int_equal(cr->right[1], 2);
    assert_int_equal(cr->right[2], 3);
    assert_int_equal(cr->dead[0], 2);
    assert_int_equal(cr->dead[1], 3);
    assert_int_equal(cr->dead[2], 2);
    /* A and C agree everywhere; B is one away from each: the first
     * pair found wins a tie */
    check_pairs(cr, differ2, 0, 2, 0, 1);
    assert_int_equal(cr->all_right, 2); /* q0 q5 */
    assert_int_equal(cr->all_wrong, 3); /* q1 q2 q4 */
    assert_int_equal(cr->lost_all, 2);  /* q1 q2 */

    /* each run buried against its own reference */
    assert_int_equal(c.bury[0].ntombs, 3);
    assert_int_equal(c.bury[1].ntombs, 3);
    assert_int_equal(c.bury[2].ntombs, 2);
    /* the floor: the reference graded differently by runs A and C only,
     * on q5; ghosts from right = reference's right - dead + ghosts */
    assert_int_equal(c.floor, 1);
    assert_int_equal(c.floor_pair[0], 0);
    assert_int_equal(c.floor_pair[1], 2);
    assert_int_equal(c.rungs[0].above_floor[0], -1);
    assert_int_equal(c.rungs[1].ghosts[0], 1);
    assert_int_equal(c.rungs[1].ghosts[1], 0);
    assert_int_equal(c.rungs[1].ghosts[2], 0);
    assert_int_equal(c.rungs[1].above_floor[0], 1); /* 2 + 1 */
    assert_int_equal(c.rungs[1].above_floor[1], 1); /* 2 + 0 */
    assert_int_equal(c.rungs[1].above_floor[2], 0); /* 1 + 0: within */
    assert_int_equal(c.rungs[2].ghosts[2], 1);
    assert_int_equal(c.rungs[2].above_floor[2], 1); /* 2 + 1 */
    assert_int_equal(c.bury[2].lines[2].ghosts, 1);

    assert_int_equal(c.died_some, 4);       /* q1 q2 q3 q5 */
    assert_int_equal(c.died_every, 2);      /* q1 q2 */
    assert_int_equal(c.died_every_same, 1); /* q1, at Q8_0 on all */

    /* lonely deaths, in run A's row order */
    assert_int_equal(c.nlonely, 2);
    assert_string_equal(qid(&x, c.lonely[0].q), "q3");
    assert_int_equal(c.lonely[0].run, 1);
    assert_int_equal(c.lonely[0].died_at, 2);
    assert_string_equal(qid(&x, c.lonely[1].q), "q5");
    assert_int_equal(c.lonely[1].run, 0);
    assert_int_equal(c.lonely[1].died_at, 1);

    grader_compare_release(&c);
    assert_null(c.rungs);
    free_runs(&x);
}

/* Two runs: the pair matrix has one pair, which is both closest and
 * furthest; deaths on one of two runs are lonely. */
static void test_two_runs(void **state)
{
    struct runs x;
    struct grader_compare c;
    struct grader_error err;
    size_t i;

    (void)state;
    load_runs(&x, grid, 2);
    assert_int_equal(grader_compare(x.qs, x.r, 2, NRUNGS, 0, &c, &err), 0);
    for (i = 0; i < NRUNGS; i++) {
        const struct grader_compare_rung *cr = &c.rungs[i];
        assert_int_equal(cr->differ[0][1], cr->differ[1][0]);
        assert_int_equal(cr->closest[0], 0);
        assert_int_equal(cr->closest[1], 1);
        assert_int_equal(cr->furthest[0], 0);
        assert_int_equal(cr->furthest[1], 1);
    }
    assert_int_equal(c.rungs[0].differ[0][1], 0);
    assert_int_equal(c.rungs[1].differ[0][1], 3);
    assert_int_equal(c.rungs[2].differ[0][1], 1);
    /* A: q1@1 q2@2 q5@1; B: q1@1 q2@1 q3@2 */
    assert_int_equal(c.died_some, 4);
    assert_int_equal(c.died_every, 2);
    assert_int_equal(c.died_every_same, 1);
    assert_int_equal(c.nlonely, 2);
    assert_string_equal(qid(&x, c.lonely[0].q), "q3");
    assert_int_equal(c.lonely[0].run, 1);
    assert_int_equal(c.lonely[0].died_at, 2);
    assert_string_equal(qid(&x, c.lonely[1].q), "q5");
    assert_int_equal(c.lonely[1].run, 0);
    assert_int_equal(c.lonely[1].died_at, 1);
    /* Q2_K: q1 q2 lost on both (q3 lives on A) */
    assert_int_equal(c.rungs[2].lost_all, 2);
    assert_int_equal(c.rungs[1].lost_all, 1);
    grader_compare_release(&c);
    free_runs(&x);
}

/* One run: every cell is right or wrong, no pairs, nothing lonely. */
/* A ghost counts toward the floor as a death does: run A's low rung
 * gains q2 (0 dead + 1 ghost) against a reference that does not move
 * between runs (floor 0), so it is above; run B's does not move. */
static void test_floor_counts_ghosts(void **state)
{
    static const char *const answers[4] = {"112", "111", "112", "112"};
    const struct grader_rung *r[4];
    struct grader_qset *qs = grader_qset_new();
    struct grader_compare c;
    struct grader_error err;
    size_t i, q;

    (void)state;
    for (i = 0; i < 4; i++) {
        struct text t = {0};
        for (q = 0; q < 3; q++)
            text_addf(&t,
                      "{\"id\":\"q%zu\",\"reference\":\"1\","
                      "\"content\":\"Answer: %c\"}\n",
                      q, answers[i][q]);
        r[i] = load_text(qs, test_dir, i % 2 ? "LOW" : "REF", &t, 0);
        free(t.p);
    }
    assert_int_equal(grader_compare(qs, r, 2, 2, 0, &c, &err), 0);
    assert_int_equal(c.floor, 0);
    assert_int_equal(c.rungs[1].dead[0], 0);
    assert_int_equal(c.rungs[1].ghosts[0], 1);
    assert_int_equal(c.rungs[1].above_floor[0], 1);
    assert_int_equal(c.rungs[1].above_floor[1], 0);
    grader_compare_release(&c);
    for (i = 0; i < 4; i++)
        grader_rung_free((struct grader_rung *)r[i]);
    grader_qset_free(qs);
}

static void test_one_run(void **state)
{
    struct runs x;
    struct grader_compare c;
    struct grader_error err;
    size_t i, j;

    (void)state;
    load_runs(&x, grid, 1);
    assert_int_equal(grader_compare(x.qs, x.r, 1, NRUNGS, 0, &c, &err), 0);
    /* one run: no floor across runs, no verdicts */
    assert_int_equal(c.floor, -1);
    assert_int_equal(c.rungs[1].above_floor[0], -1);
    for (i = 0; i < NRUNGS; i++) {
        const struct grader_compare_rung *cr = &c.rungs[i];
        for (j = 0; j < NQ; j++) {
            int want =
                grid[0][i][j] == '1' ? GRADER_CELL_RIGHT : GRADER_CELL_WRONG;
            if (c.cells[i * NQ + j] != want)
                fail_msg("cell %s q%zu = %d, want %d", rung_names[i], j,
                         c.cells[i * NQ + j], want);
        }
        assert_int_equal(cr->closest[0] + cr->closest[1], 0);
        assert_int_equal(cr->furthest[0] + cr->furthest[1], 0);
        assert_int_equal(cr->differ[0][0], 0);
        assert_int_equal(cr->all_right + cr->all_wrong, NQ);
        assert_int_equal(cr->all_right, cr->right[0]);
    }
    /* lost_all is run A's dead */
    assert_int_equal(c.rungs[1].lost_all, 2);
    assert_int_equal(c.rungs[2].lost_all, 2);
    assert_int_equal(c.died_some, 3);
    assert_int_equal(c.died_every, 3);
    assert_int_equal(c.died_every_same, 3);
    assert_int_equal(c.nlonely, 0);
    grader_compare_release(&c);
    free_runs(&x);
}

/* A rung that lacks a question, or has one more, in a later run or in
 * the first: the error names that rung's rows file. */
static void test_other_questions(void **state)
{
    static const char *const lacks[NRUNS][NRUNGS] = {
        {"111101", "101110", "100101"},
        {"111101", "100101", "100001"},
        {"111100", "101100", "1001-1"}, /* gpu-c Q2_K lacks q4 */
    };
    static const char *const lacks0[NRUNS][NRUNGS] = {
        {"111101", "-01110", "100101"}, /* gpu-a Q8_0 lacks q0 */
        {"111101", "100101", "100001"},
        {"111100", "101100", "100101"},
    };
    struct runs x;
    struct grader_compare c;
    struct grader_error err;
    struct grader_rung *extra;
    const struct grader_rung *r[NRUNS * NRUNGS];
    struct text t = {0};
    char want[256], dir[128];

    (void)state;
    load_runs(&x, lacks, NRUNS);
    memset(&err, 0, sizeof(err));
    assert_int_equal(grader_compare(x.qs, x.r, NRUNS, NRUNGS, 0, &c, &err),
                     GRADER_EMISSING);
    snprintf(want, sizeof(want), "%s/gpu-c/Q2_K.jsonl", test_dir);
    assert_string_equal(err.file, want);
    assert_non_null(strstr(err.text, "'Q2_K' lacks 1 of the 6"));
    assert_non_null(strstr(err.text, "first: 'q4'"));
    /* nothing to release: out is empty */
    assert_null(c.rungs);
    assert_null(c.bury);
    /* the first two runs alone are fine */
    assert_int_equal(grader_compare(x.qs, x.r, 2, NRUNGS, 0, &c, &err), 0);
    grader_compare_release(&c);

    /* a rung with a question the first reference lacks */
    memcpy(r, x.r, sizeof(r));
    rows_of(&t, "011111", 0);
    add_row(&t, "q6", "70", "70");
    snprintf(dir, sizeof(dir), "%s/gpu-d", test_dir);
    mkdir(dir, 0700);
    extra = load_text(x.qs, dir, "Q8_0", &t, 0);
    r[1 * NRUNGS + 1] = extra;
    assert_int_equal(grader_compare(x.qs, r, 2, NRUNGS, 0, &c, &err),
                     GRADER_EEXTRA);
    snprintf(want, sizeof(want), "%s/gpu-d/Q8_0.jsonl", test_dir);
    assert_string_equal(err.file, want);
    assert_non_null(strstr(err.text, "first: 'q6'"));
    grader_rung_free(extra);
    free(t.p);

    /* 0 runs, too many runs, 0 rungs */
    assert_int_equal(grader_compare(x.qs, x.r, 0, NRUNGS, 0, &c, &err),
                     GRADER_EARG);
    assert_int_equal(
        grader_compare(x.qs, x.r, GRADER_MAX_RUNS + 1, NRUNGS, 0, &c, &err),
        GRADER_EARG);
    assert_int_equal(grader_compare(x.qs, x.r, 1, 0, 0, &c, &err),
                     GRADER_EARG);
    free_runs(&x);

    /* the first run's own rungs are held to its reference too */
    load_runs(&x, lacks0, NRUNS);
    assert_int_equal(grader_compare(x.qs, x.r, NRUNS, NRUNGS, 0, &c, &err),
                     GRADER_EMISSING);
    snprintf(want, sizeof(want), "%s/gpu-a/Q8_0.jsonl", test_dir);
    assert_string_equal(err.file, want);
    assert_non_null(strstr(err.text, "'Q8_0' lacks 1 of the 6"));
    assert_non_null(strstr(err.text, "first: 'q0'"));
    free_runs(&x);
}

/* Three runs that agree on every question: every pair ties at 0, so the
 * closest and the furthest pair are both the first, (0, 1); every death
 * is on every run at the same rung. */
static void test_identical_runs(void **state)
{
    static const char *const same[NRUNS][NRUNGS] = {
        {"111101", "101110", "100101"},
        {"111101", "101110", "100101"},
        {"111101", "101110", "100101"},
    };
    struct runs x;
    struct grader_compare c;
    struct grader_error err;
    size_t i, j;

    (void)state;
    load_runs(&x, same, NRUNS);
    assert_int_equal(grader_compare(x.qs, x.r, NRUNS, NRUNGS, 0, &c, &err), 0);
    for (i = 0; i < NRUNGS; i++) {
        const struct grader_compare_rung *cr = &c.rungs[i];
        static const size_t zero[NRUNS][NRUNS];
        check_pairs(cr, zero, 0, 1, 0, 1);
        for (j = 0; j < NQ; j++)
            assert_int_not_equal(c.cells[i * NQ + j], GRADER_CELL_SPLIT);
        assert_int_equal(cr->all_right, cr->right[0]);
        assert_int_equal(cr->all_right + cr->all_wrong, NQ);
        assert_int_equal(cr->lost_all, cr->dead[2]);
    }
    /* q1@1 q2@2 q5@1 on each */
    assert_int_equal(c.died_some, 3);
    assert_int_equal(c.died_every, 3);
    assert_int_equal(c.died_every_same, 3);
    assert_int_equal(c.nlonely, 0);
    grader_compare_release(&c);
    free_runs(&x);
}

/* ---- out of memory ----------------------------------------------------- */

/* Every allocation of a three-run comparison fails in turn: out of
 * memory is reported, out is left empty, nothing leaks. */
static void test_out_of_memory(void **state)
{
    struct runs x;
    struct grader_compare c;
    struct grader_error err;
    long total, held;
    int rc;

    (void)state;
    grader_set_alloc(chaos_malloc, chaos_realloc, chaos_free);
    fail_at = -1;
    load_runs(&x, grid, NRUNS);
    held = live;
    calls = 0;
    assert_int_equal(grader_compare(x.qs, x.r, NRUNS, NRUNGS, 0, &c, &err), 0);
    total = calls;
    grader_compare_release(&c);
    assert_int_equal(live, held);
    assert_true(total >= 10);
    for (fail_at = 1; fail_at <= total; fail_at++) {
        calls = 0;
        rc = grader_compare(x.qs, x.r, NRUNS, NRUNGS, 0, &c, &err);
        if (rc != GRADER_ENOMEM)
            fail_msg("failing allocation %ld gave %d", fail_at, rc);
        if (c.bury != NULL || c.rungs != NULL || c.cells != NULL)
            fail_msg("failing allocation %ld left out filled", fail_at);
        if (live != held)
            fail_msg("failing allocation %ld leaks %ld blocks", fail_at,
                     live - held);
    }
    fail_at = -1;
    free_runs(&x);
    assert_int_equal(live, 0);
    grader_set_alloc(NULL, NULL, NULL);
}

/* The cover's marks: dead where the reference's cell is right and the
 * rung's wrong, ghosts the other way; split and missing cells none. */
static void test_marks(void **state)
{
    const uint8_t R = GRADER_CELL_RIGHT, W = GRADER_CELL_WRONG,
                  S = GRADER_CELL_SPLIT, M = GRADER_CELL_MISSING;
    const uint8_t cells[3 * 4] = {R, W, R, S, /* the reference */
                                  W, R, R, W, /* dead, ghost, -, - */
                                  S, W, M, R};
    uint8_t marks[3 * 4];
    const uint8_t want[3 * 4] = {
        0, 0, 0, 0, GRADER_MARK_DEAD, GRADER_MARK_GHOST, 0, 0, 0, 0, 0, 0};

    (void)state;
    memset(marks, 9, sizeof(marks));
    grader_grid_marks(cells, 3, 4, marks);
    assert_memory_equal(marks, want, sizeof(want));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_runs),
        cmocka_unit_test(test_two_runs),
        cmocka_unit_test(test_one_run),
        cmocka_unit_test(test_floor_counts_ghosts),
        cmocka_unit_test(test_identical_runs),
        cmocka_unit_test(test_other_questions),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_marks),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
