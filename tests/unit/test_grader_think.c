/*
 * test_grader_think.c - the same rungs with thinking off and on, question by
 * question: a three-rung, six-question case counted by hand, and the
 * passes that cannot be compared.
 *
 * Tests: grader/think.c
 */
#include "helpers.h"
#include "chaos.h"

#include <math.h>

#include "alloc.h"
#include "think.h"

#define NQ 6
#define NR 3

static const char *const names[NR] = {"BF16", "Q4_K_M", "Q2_K"};

/*
 * One string per rung, one character per question q0..q5: '1' right,
 * '0' wrong, 'c' wrong and cut off (finish_reason "length"), '-' no
 * row.
 *
 *                q0 q1 q2 q3 q4 q5
 *   off BF16      1  1  1  1  0  0
 *       Q4_K_M    1  c  1  0  c  1   dead q1(cut) q3; q4 cut, not dead
 *       Q2_K      1  c  c  0  0  0   dead q1(cut) q2(cut) q3
 *   on  BF16      1  1  1  0  1  1
 *       Q4_K_M    1  1  0  0  1  1   dead q2
 *       Q2_K      1  0  1  0  0  1   dead q1 q4
 *
 *   BF16:   right 4 / 5, both q0 q1 q2 = 3, nothing dead
 *   Q4_K_M: right 3 / 4, both q0 q5 = 2; dead 2 / 1, dead in both 0
 *           (q2 dies on only; q1, q3 off only); dead and cut off with
 *           thinking off: q1, right with thinking on: q1 -> 1 and 1
 *   Q2_K:   right 1 / 3, both q0 = 1; dead 3 / 2, dead in both q1 = 1
 *           (q3's on reference is wrong); dead and cut off: q1, q2;
 *           right with thinking on: q2 -> 2 and 1
 */
static const char *const off_grid[NR] = {"111100", "1c10c1", "1cc000"};
static const char *const on_grid[NR] = {"111011", "110011", "101001"};

/*
 * Tokens and speeds. Thinking off: every row 100 tokens at 50 tok/s,
 * except Q2_K, which carries neither (unknown: its ratios are -1).
 * Thinking on: BF16 400 tokens at 40 tok/s; Q4_K_M 200/300/400 tokens
 * (mean 300) at 30, 30, 30, 35, 35, 35 tok/s (median 32.5); Q2_K 500 at
 * 45. So Q4_K_M's tokens_x = 300 / 100 = 3 and speed_x = 32.5 / 50 =
 * 0.65; BF16's 4 and 0.8.
 */
static void pass_rows(struct text *t, const char *pattern, int on,
                      size_t rung)
{
    static const int q4_tokens[NQ] = {200, 300, 400, 200, 300, 400};
    static const double q4_tps[NQ] = {30, 30, 30, 35, 35, 35};
    size_t q;

    for (q = 0; q < NQ; q++) {
        char id[16], ref[16], said[16];
        int tokens;
        double tps;
        if (pattern[q] == '-')
            continue;
        snprintf(id, sizeof(id), "q%zu", q);
        snprintf(ref, sizeof(ref), "%zu", 7 * (q + 1));
        snprintf(said, sizeof(said), "%zu",
                 7 * (q + 1) + (pattern[q] == '1' ? 0 : 1));
        if (!on) {
            tokens = rung == 2 ? -1 : 100;
            tps = rung == 2 ? -1 : 50;
        } else if (rung == 0) {
            tokens = 400;
            tps = 40;
        } else if (rung == 1) {
            tokens = q4_tokens[q];
            tps = q4_tps[q];
        } else {
            tokens = 500;
            tps = 45;
        }
        text_addf(t, "{\"id\":\"%s\",\"reference\":\"%s\",\"content\":"
                  "\"so\\nAnswer: %s\",\"finish_reason\":\"%s\"",
                  id, ref, said, pattern[q] == 'c' ? "length" : "stop");
        if (tokens >= 0)
            text_addf(t, ",\"completion_tokens\":%d", tokens);
        if (tps >= 0)
            text_addf(t, ",\"decode_tps\":%.1f", tps);
        text_addf(t, "}\n");
    }
}

struct passes {
    struct grader_qset *qs;
    const struct grader_rung *off[NR], *on[NR];
};

static void load_passes(struct passes *p, const char *const *off,
                        const char *const *on)
{
    char dir_off[128], dir_on[128];
    size_t i;

    p->qs = grader_qset_new();
    assert_non_null(p->qs);
    snprintf(dir_off, sizeof(dir_off), "%s/off", test_dir);
    snprintf(dir_on, sizeof(dir_on), "%s/on", test_dir);
    mkdir(dir_off, 0700);
    mkdir(dir_on, 0700);
    for (i = 0; i < NR; i++) {
        struct text a = {0}, b = {0};
        pass_rows(&a, off[i], 0, i);
        pass_rows(&b, on[i], 1, i);
        p->off[i] = load_text(p->qs, dir_off, names[i], &a, 0);
        p->on[i] = load_text(p->qs, dir_on, names[i], &b, 0);
        free(a.p);
        free(b.p);
    }
}

static void free_passes(struct passes *p)
{
    size_t i;

    for (i = 0; i < NR; i++) {
        grader_rung_free((struct grader_rung *)p->off[i]);
        grader_rung_free((struct grader_rung *)p->on[i]);
    }
    grader_qset_free(p->qs);
}

static void test_off_and_on(void **state)
{
    struct passes p;
    struct grader_think_line l[NR];
    struct grader_error err;
    const struct grader_think_line *x;

    (void)state;
    load_passes(&p, off_grid, on_grid);
    assert_int_equal(grader_think(p.qs, p.off, p.on, NR, l, &err), 0);

    x = &l[0];
    assert_ptr_equal(x->off, p.off[0]);
    assert_ptr_equal(x->on, p.on[0]);
    assert_int_equal(x->n, NQ);
    assert_int_equal(x->right_off, 4);
    assert_int_equal(x->right_on, 5);
    assert_int_equal(x->right_both, 3);
    assert_int_equal(x->dead_off, 0);
    assert_int_equal(x->dead_on, 0);
    assert_int_equal(x->dead_both, 0);
    assert_int_equal(x->dead_off_cut_off, 0);
    assert_int_equal(x->cut_off_right_on, 0);
    assert_true(x->mean_tokens_off == 100.0);
    assert_true(x->mean_tokens_on == 400.0);
    assert_true(x->median_tps_off == 50.0);
    assert_true(x->median_tps_on == 40.0);
    assert_true(fabs(x->tokens_x - 4.0) < 1e-12);
    assert_true(fabs(x->speed_x - 0.8) < 1e-12);

    x = &l[1];
    assert_ptr_equal(x->off, p.off[1]);
    assert_ptr_equal(x->on, p.on[1]);
    assert_int_equal(x->n, NQ);
    assert_int_equal(x->right_off, 3);
    assert_int_equal(x->right_on, 4);
    assert_int_equal(x->right_both, 2);
    assert_int_equal(x->dead_off, 2);
    assert_int_equal(x->dead_on, 1);
    assert_int_equal(x->dead_both, 0);
    assert_int_equal(x->dead_off_cut_off, 1);
    assert_int_equal(x->cut_off_right_on, 1);
    assert_true(x->mean_tokens_on == 300.0);
    assert_true(x->median_tps_on == 32.5);
    assert_true(fabs(x->tokens_x - 3.0) < 1e-12);
    assert_true(fabs(x->speed_x - 0.65) < 1e-12);

    x = &l[2];
    assert_int_equal(x->right_off, 1);
    assert_int_equal(x->right_on, 3);
    assert_int_equal(x->right_both, 1);
    assert_int_equal(x->dead_off, 3);
    assert_int_equal(x->dead_on, 2);
    assert_int_equal(x->dead_both, 1);
    assert_int_equal(x->dead_off_cut_off, 2);
    assert_int_equal(x->cut_off_right_on, 1);
    /* thinking off carries no tokens or speeds: unknown, not 0 or inf */
    assert_true(x->mean_tokens_off < 0);
    assert_true(x->median_tps_off < 0);
    assert_true(x->mean_tokens_on == 500.0);
    assert_true(x->median_tps_on == 45.0);
    assert_true(x->tokens_x == -1.0);
    assert_true(x->speed_x == -1.0);
    free_passes(&p);
}

/* Swapping the passes swaps the off and on figures, and the cut-off
 * counts now read the on pass's cut-offs (there are none). */
static void test_swapped(void **state)
{
    struct passes p;
    struct grader_think_line l[NR];
    struct grader_error err;
    size_t i;

    (void)state;
    load_passes(&p, off_grid, on_grid);
    assert_int_equal(grader_think(p.qs, p.on, p.off, NR, l, &err), 0);
    for (i = 0; i < NR; i++)
        assert_int_equal(l[i].dead_off_cut_off, 0);
    assert_int_equal(l[1].right_off, 4);
    assert_int_equal(l[1].right_on, 3);
    assert_int_equal(l[1].dead_off, 1);
    assert_int_equal(l[1].dead_on, 2);
    assert_int_equal(l[2].dead_both, 1);
    assert_true(fabs(l[1].tokens_x - 1.0 / 3.0) < 1e-12);
    assert_true(l[2].tokens_x == -1.0);
    free_passes(&p);
}

/* The on pass must answer the off reference's questions: its reference
 * lacking one, having one more, or a lower on rung lacking one is an
 * error naming that rows file. */
static void test_other_questions(void **state)
{
    static const char *const on_lacks_ref[NR] = {"11101-", "11001-",
                                                 "10100-"};
    static const char *const on_lacks_rung[NR] = {"111011", "1-0011",
                                                  "101001"};
    static const char *const off_lacks_rung[NR] = {"111100", "1c10c1",
                                                   "1cc00-"};
    struct passes p;
    struct grader_think_line l[NR];
    struct grader_error err;
    struct grader_rung *more;
    const struct grader_rung *on[NR];
    struct text t = {0};
    char want[256];

    (void)state;
    load_passes(&p, off_grid, on_lacks_ref);
    assert_int_equal(grader_think(p.qs, p.off, p.on, NR, l, &err),
                     GRADER_EMISSING);
    snprintf(want, sizeof(want), "%s/on/BF16.jsonl", test_dir);
    assert_string_equal(err.file, want);
    assert_non_null(strstr(err.text, "first: 'q5'"));
    free_passes(&p);

    load_passes(&p, off_grid, on_lacks_rung);
    assert_int_equal(grader_think(p.qs, p.off, p.on, NR, l, &err),
                     GRADER_EMISSING);
    snprintf(want, sizeof(want), "%s/on/Q4_K_M.jsonl", test_dir);
    assert_string_equal(err.file, want);
    assert_non_null(strstr(err.text, "first: 'q1'"));
    free_passes(&p);

    load_passes(&p, off_lacks_rung, on_grid);
    assert_int_equal(grader_think(p.qs, p.off, p.on, NR, l, &err),
                     GRADER_EMISSING);
    snprintf(want, sizeof(want), "%s/off/Q2_K.jsonl", test_dir);
    assert_string_equal(err.file, want);
    free_passes(&p);

    /* an on reference with a seventh question */
    load_passes(&p, off_grid, on_grid);
    pass_rows(&t, on_grid[0], 1, 0);
    add_row(&t, "q6", "49", "49");
    more = load_text(p.qs, test_dir, "BF16-more", &t, 0);
    memcpy(on, p.on, sizeof(on));
    on[0] = more;
    assert_int_equal(grader_think(p.qs, p.off, on, NR, l, &err),
                     GRADER_EEXTRA);
    snprintf(want, sizeof(want), "%s/BF16-more.jsonl", test_dir);
    assert_string_equal(err.file, want);
    assert_non_null(strstr(err.text, "first: 'q6'"));
    grader_rung_free(more);
    free(t.p);

    /* no rungs */
    assert_int_equal(grader_think(p.qs, p.off, p.on, 0, l, &err),
                     GRADER_EARG);
    free_passes(&p);
}

/* A pass whose rows report 0 tokens: on / 0 is unknown (-1), never
 * infinite; 0 / off is 0. One rung, the references alone. */
static void test_zero_tokens(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    const struct grader_rung *off[1], *on[1];
    struct grader_think_line l;
    struct grader_error err;
    struct text a = {0}, b = {0};

    (void)state;
    text_addf(&a, "{\"id\":\"q0\",\"reference\":\"1\",\"content\":"
              "\"Answer: 1\",\"completion_tokens\":0,\"decode_tps\":0}\n");
    text_addf(&b, "{\"id\":\"q0\",\"reference\":\"1\",\"content\":"
              "\"Answer: 1\",\"completion_tokens\":10,"
              "\"decode_tps\":20}\n");
    off[0] = load_text(qs, test_dir, "ZERO", &a, 0);
    on[0] = load_text(qs, test_dir, "TEN", &b, 0);
    assert_int_equal(grader_think(qs, off, on, 1, &l, &err), 0);
    assert_true(l.mean_tokens_off == 0.0);
    assert_true(l.tokens_x == -1.0);
    assert_true(l.speed_x == -1.0);
    assert_int_equal(l.right_both, 1);
    assert_int_equal(grader_think(qs, on, off, 1, &l, &err), 0);
    assert_true(l.tokens_x == 0.0);
    assert_true(l.speed_x == 0.0);
    grader_rung_free((struct grader_rung *)off[0]);
    grader_rung_free((struct grader_rung *)on[0]);
    grader_qset_free(qs);
    free(a.p);
    free(b.p);
}

/* ---- out of memory ----------------------------------------------------- */

/* Every allocation of grader_think fails in turn: out of memory, and
 * nothing leaks. */
static void test_out_of_memory(void **state)
{
    struct passes p;
    struct grader_think_line l[NR];
    struct grader_error err;
    long total, held;
    int rc;

    (void)state;
    grader_set_alloc(chaos_malloc, chaos_realloc, chaos_free);
    fail_at = -1;
    load_passes(&p, off_grid, on_grid);
    held = live;
    calls = 0;
    assert_int_equal(grader_think(p.qs, p.off, p.on, NR, l, &err), 0);
    total = calls;
    assert_int_equal(live, held);
    assert_true(total >= 5);
    for (fail_at = 1; fail_at <= total; fail_at++) {
        calls = 0;
        rc = grader_think(p.qs, p.off, p.on, NR, l, &err);
        if (rc != GRADER_ENOMEM)
            fail_msg("failing allocation %ld gave %d", fail_at, rc);
        if (live != held)
            fail_msg("failing allocation %ld leaks %ld blocks", fail_at,
                     live - held);
    }
    fail_at = -1;
    free_passes(&p);
    assert_int_equal(live, 0);
    grader_set_alloc(NULL, NULL, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_off_and_on),
        cmocka_unit_test(test_swapped),
        cmocka_unit_test(test_other_questions),
        cmocka_unit_test(test_zero_tokens),
        cmocka_unit_test(test_out_of_memory),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
