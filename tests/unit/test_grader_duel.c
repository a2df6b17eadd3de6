/*
 * test_grader_duel.c - two files of one type, A against B (grader/
 * duel.h): tables counted by hand, no questions, the same rows twice, A
 * and B swapped, the lengths of long items summing to the whole, the
 * pooled duel, and every allocation failing in turn.
 *
 * Tests: grader/duel.c
 */
#include "helpers.h"
#include "chaos.h"

#include <math.h>

#include "alloc.h"
#include "duel.h"

/*
 * One character per question q0..q10: '1' right, '0' wrong, '-' no row.
 *
 *          q0 q1 q2 q3 q4 q5 q6 q7 q8 q9 q10
 *   A       1  1  1  1  1  1  0  0  0  0  1
 *   B       1  1  1  1  0  0  1  0  0  0  -
 *
 * both q0-q3 = 4, A only q4 q5 = 2, B only q6 = 1, neither q7-q9 = 3,
 * n = 10; q10 A alone has: only_one 1. McNemar 2 against 1: 2 (1 + 3)
 * / 8 = 1. Change (2 - 1) / 10 = 10 points.
 */
static const char *const grid_a = "11111100001";
static const char *const grid_b = "1111001000-";

static struct grader_rung *rung_of(struct grader_qset *qs, const char *name,
                                   const char *grid)
{
    struct text t = {0};
    struct grader_rung *r;
    char id[32];

    for (size_t i = 0; grid[i]; i++) {
        snprintf(id, sizeof(id), "q%zu", i);
        if (grid[i] != '-')
            add_row(&t, id, "7",
                    grid[i] == '1'   ? "7"
                    : grid[i] == '9' ? "9"
                                     : "8");
    }
    r = load_text(qs, test_dir, name, &t, 0);
    free(t.p);
    return r;
}

static void test_hand_counted(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *a, *b;
    struct grader_duel d;
    struct grader_error err;

    (void)state;
    a = rung_of(qs, "A", grid_a);
    b = rung_of(qs, "B", grid_b);
    assert_int_equal(grader_duel(qs, a, b, -1, 2.0, -1.0, &d, &err), 0);
    assert_int_equal(d.n, 10);
    assert_int_equal(d.only_one, 1);
    assert_int_equal(d.both, 4);
    assert_int_equal(d.a_only, 2);
    assert_int_equal(d.b_only, 1);
    assert_int_equal(d.neither, 3);
    assert_true(fabs(d.p - 1.0) < 1e-12);
    assert_true(fabs(d.change - 10.0) < 1e-9);
    assert_true(d.lo95 < 0.0 && d.hi95 > 10.0);
    assert_true(d.lo90 > d.lo95 && d.hi90 < d.hi95);
    assert_int_equal(d.v.kind, GRADER_VERDICT_CANNOT_TELL);
    assert_string_equal(grader_duel_word(d.v.kind), "cannot tell");
    assert_int_equal(d.ndisagree, 3);
    assert_string_equal(grader_qset_id(qs, d.disagree[0]), "q4");
    assert_string_equal(grader_qset_id(qs, d.disagree[1]), "q5");
    assert_string_equal(grader_qset_id(qs, d.disagree[2]), "q6");
    /* the verdict is verdict.c's on the same table */
    {
        struct grader_verdict v;
        grader_verdict(4, 2, 1, 3, 2.0, -1.0, &v);
        assert_int_equal(v.kind, d.v.kind);
        assert_int_equal(v.n_power, d.v.n_power);
        assert_int_equal(v.n_equiv, d.v.n_equiv);
    }
    grader_duel_release(&d);
    assert_null(d.disagree);
    grader_rung_free(a);
    grader_rung_free(b);
    grader_qset_free(qs);
}

/* Both wrong, and how: '0' says 8, '9' says 9 (the reference 7). A and
 * B wrong on all four; apart on q1 (8, 9) and q2 (9, 8), the same on q0
 * and q3: neither 4, neither_apart 2, and the pool sums them. */
static void test_neither_apart(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *a, *b;
    struct grader_duel d, pool;
    struct grader_error err;

    (void)state;
    a = rung_of(qs, "A", "0099");
    b = rung_of(qs, "B", "0909");
    assert_int_equal(grader_duel(qs, a, b, -1, 2.0, -1.0, &d, &err), 0);
    assert_int_equal(d.neither, 4);
    assert_int_equal(d.neither_apart, 2);
    assert_int_equal(d.ndisagree, 0);
    grader_duel_pool(&d, 1, 2.0, -1.0, &pool);
    assert_int_equal(pool.neither_apart, 2);
    grader_duel_release(&d);
    /* a set of two folders (the same rows twice): the whole sums both */
    {
        struct grader_duel_set set;

        memset(&set, 0, sizeof(set));
        set.a = "A";
        set.b = "B";
        assert_int_equal(
            grader_duel_set_add(&set, "x", qs, a, b, 2.0, -1.0, &err), 0);
        assert_int_equal(
            grader_duel_set_add(&set, "y", qs, a, b, 2.0, -1.0, &err), 0);
        grader_duel_set_finish(&set, 2.0, -1.0);
        assert_int_equal(set.whole.neither, 8);
        assert_int_equal(set.whole.neither_apart, 4);
        grader_duel_set_release(&set);
    }
    grader_rung_free(a);
    grader_rung_free(b);
    grader_qset_free(qs);
}

/* B and A swapped: the same table mirrored, the change and the interval
 * negated, the verdict turned round. */
static void test_swapped(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *a, *b;
    struct grader_duel d, e;
    struct grader_error err;
    char ga[64], gb[64];

    (void)state;
    /* A right on 40 more of 200: A better beyond doubt */
    memset(ga, 0, sizeof(ga));
    memset(gb, 0, sizeof(gb));
    for (int i = 0; i < 60; i++) {
        ga[i] = '1';
        gb[i] = i < 20 ? '1' : '0';
    }
    a = rung_of(qs, "A", ga);
    b = rung_of(qs, "B", gb);
    assert_int_equal(grader_duel(qs, a, b, -1, 2.0, -1.0, &d, &err), 0);
    assert_int_equal(grader_duel(qs, b, a, -1, 2.0, -1.0, &e, &err), 0);
    assert_int_equal(d.a_only, e.b_only);
    assert_int_equal(d.b_only, e.a_only);
    assert_int_equal(d.both, e.both);
    assert_int_equal(d.neither, e.neither);
    assert_true(fabs(d.p - e.p) < 1e-15);
    assert_true(fabs(d.change + e.change) < 1e-9);
    assert_true(fabs(d.lo95 + e.hi95) < 1e-9);
    assert_true(fabs(d.hi95 + e.lo95) < 1e-9);
    assert_true(fabs(d.lo90 + e.hi90) < 1e-9);
    assert_int_equal(d.v.kind, GRADER_VERDICT_BETTER);
    assert_int_equal(e.v.kind, GRADER_VERDICT_WORSE);
    assert_string_equal(grader_duel_word(d.v.kind), "a better");
    assert_string_equal(grader_duel_word(e.v.kind), "b better");
    assert_int_equal(d.ndisagree, e.ndisagree);
    assert_memory_equal(d.disagree, e.disagree,
                        d.ndisagree * sizeof(*d.disagree));
    grader_duel_release(&d);
    grader_duel_release(&e);
    grader_rung_free(a);
    grader_rung_free(b);
    grader_qset_free(qs);
}

/* The same rows twice: nothing discordant, p 1, change 0; equivalent or
 * cannot tell, never better or worse. */
static void test_same_rows(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *a;
    struct grader_duel d;
    struct grader_error err;

    (void)state;
    a = rung_of(qs, "A", grid_a);
    assert_int_equal(grader_duel(qs, a, a, -1, 2.0, -1.0, &d, &err), 0);
    assert_int_equal(d.a_only + d.b_only, 0);
    assert_int_equal(d.ndisagree, 0);
    assert_null(d.disagree);
    assert_int_equal(d.only_one, 0);
    assert_int_equal(d.n, 11);
    assert_true(d.p == 1.0 && d.change == 0.0);
    assert_true(d.v.kind == GRADER_VERDICT_EQUIVALENT ||
                d.v.kind == GRADER_VERDICT_CANNOT_TELL);
    grader_duel_release(&d);
    grader_rung_free(a);
    grader_qset_free(qs);
}

/* No question both have: n 0, p 1, cannot tell, nothing needed known;
 * and a pool of nothing is the same. */
static void test_none(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *a, *b;
    struct grader_duel d;
    struct grader_error err;

    (void)state;
    a = rung_of(qs, "A", "11--");
    b = rung_of(qs, "B", "--01");
    assert_int_equal(grader_duel(qs, a, b, -1, 2.0, 5.0, &d, &err), 0);
    assert_int_equal(d.n, 0);
    assert_int_equal(d.only_one, 4);
    assert_true(d.p == 1.0 && d.change == 0.0 && d.lo95 == 0.0);
    assert_int_equal(d.v.kind, GRADER_VERDICT_CANNOT_TELL);
    assert_int_equal(d.v.n_equiv, -1);
    assert_int_equal(d.v.n_power, -1);
    /* the floor raises the margin even with nothing to judge */
    assert_true(d.v.margin == 5.0 && d.v.margin_raised == 1);
    grader_duel_release(&d);
    grader_duel_pool(NULL, 0, 2.0, -1.0, &d);
    assert_int_equal(d.n, 0);
    assert_string_equal(d.subject, "all");
    assert_int_equal(d.v.kind, GRADER_VERDICT_CANNOT_TELL);
    grader_rung_free(a);
    grader_rung_free(b);
    grader_qset_free(qs);
}

/* Long items at two lengths: one duel per length, shortest first, whose
 * tables sum to the whole; the pool of the lengths is the whole. */
static void test_lengths_sum(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *r[2];
    struct grader_duel all, pool, *ls;
    struct grader_error err;
    size_t nl;

    (void)state;
    for (int k = 0; k < 2; k++) {
        struct text t = {0};
        char path[300], file[32];
        for (int i = 0; i < 40; i++) {
            long len = i < 20 ? 4096 : 1024;
            /* A right everywhere; B wrong on i % 5 == 0 at 4096 and on
             * i % 4 == 0 at 1024; both wrong on i == 39 */
            int right = i == 39       ? 0
                        : k == 0      ? 1
                        : len == 4096 ? i % 5 != 0
                                      : i % 4 != 0;
            text_addf(&t,
                      "{\"id\": \"n-%d@%ld\", \"reference\": \"7\", "
                      "\"content\": \"Answer: %d\", \"length\": %ld, "
                      "\"depth\": %d}\n",
                      i, len, right ? 7 : 8, len, i);
        }
        snprintf(file, sizeof(file), "%c.jsonl", "AB"[k]);
        write_file(test_dir, file, t.p, path, sizeof(path));
        free(t.p);
        assert_int_equal(
            test_rung_read(qs, k ? "B" : "A", path, 0, &r[k], &err), 0);
    }
    assert_int_equal(grader_duel(qs, r[0], r[1], -1, 2.0, -1.0, &all, &err),
                     0);
    assert_int_equal(
        grader_duel_lengths(qs, r[0], r[1], 2.0, -1.0, &ls, &nl, &err), 0);
    assert_int_equal(nl, 2);
    assert_int_equal(ls[0].length, 1024);
    assert_string_equal(ls[0].subject, "1024 tokens");
    assert_int_equal(ls[1].length, 4096);
    /* 4096: i 0..19, B wrong on 0 5 10 15; 1024: i 20..39, B wrong on 20
     * 24 28 32 36, both wrong on 39 */
    assert_int_equal(ls[1].a_only, 4);
    assert_int_equal(ls[0].a_only, 5);
    assert_int_equal(ls[0].neither, 1);
    assert_int_equal(ls[0].a_only + ls[1].a_only, all.a_only);
    assert_int_equal(ls[0].b_only + ls[1].b_only, all.b_only);
    assert_int_equal(ls[0].both + ls[1].both, all.both);
    assert_int_equal(ls[0].neither + ls[1].neither, all.neither);
    assert_int_equal(ls[0].ndisagree + ls[1].ndisagree, all.ndisagree);
    grader_duel_pool(ls, nl, 2.0, -1.0, &pool);
    assert_int_equal(pool.n, all.n);
    assert_int_equal(pool.a_only, all.a_only);
    assert_true(fabs(pool.change - all.change) < 1e-12);
    assert_true(fabs(pool.lo95 - all.lo95) < 1e-12);
    assert_int_equal(pool.v.kind, all.v.kind);
    assert_null(pool.disagree);
    grader_duel_free_all(ls, nl);
    grader_duel_release(&all);
    /* no lengths: none */
    {
        struct grader_qset *q2 = grader_qset_new();
        struct grader_rung *a = rung_of(q2, "A", grid_a);
        assert_int_equal(
            grader_duel_lengths(q2, a, a, 2.0, -1.0, &ls, &nl, &err), 0);
        assert_int_equal(nl, 0);
        assert_null(ls);
        grader_rung_free(a);
        grader_qset_free(q2);
    }
    grader_rung_free(r[0]);
    grader_rung_free(r[1]);
    grader_qset_free(qs);
}

/* A set of two folders (the same rows read as two subjects): each folder
 * then its lengths, the whole the folders' tables summed (the lengths
 * not counted twice); every allocation failing in turn leaves s as it
 * was and leaks nothing. */
static void test_set(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *a, *b;
    struct grader_duel_set s = {0};
    struct grader_error err;
    long total;
    int rc;

    (void)state;
    a = rung_of(qs, "A", grid_a);
    b = rung_of(qs, "B", grid_b);
    assert_int_equal(
        grader_duel_set_add(&s, "math", qs, a, b, 2.0, -1.0, &err), 0);
    assert_int_equal(
        grader_duel_set_add(&s, "code", qs, a, b, 2.0, -1.0, &err), 0);
    grader_duel_set_finish(&s, 2.0, -1.0);
    assert_int_equal(s.nfolders, 2);
    assert_int_equal(s.nsubjects, 2);
    assert_string_equal(s.subjects[0].subject, "math");
    assert_string_equal(s.subjects[1].subject, "code");
    assert_int_equal(s.whole.n, 20);
    assert_int_equal(s.whole.a_only, 4);
    assert_int_equal(s.whole.b_only, 2);
    assert_int_equal(s.whole.only_one, 2);
    assert_string_equal(s.whole.subject, "all");
    assert_null(s.whole.disagree);
    grader_duel_set_release(&s);

    grader_set_alloc(chaos_malloc, chaos_realloc, chaos_free);
    fail_at = -1;
    calls = 0;
    memset(&s, 0, sizeof(s));
    assert_int_equal(
        grader_duel_set_add(&s, "math", qs, a, b, 2.0, -1.0, &err), 0);
    total = calls;
    grader_duel_set_release(&s);
    for (fail_at = 1; fail_at <= total; fail_at++) {
        calls = 0;
        memset(&s, 0, sizeof(s));
        rc = grader_duel_set_add(&s, "math", qs, a, b, 2.0, -1.0, &err);
        if (rc != GRADER_ENOMEM || s.nsubjects != 0 || s.subjects != NULL)
            fail_msg("failing allocation %ld gave %d", fail_at, rc);
    }
    fail_at = -1;
    assert_int_equal(live, 0);
    grader_set_alloc(NULL, NULL, NULL);
    grader_rung_free(a);
    grader_rung_free(b);
    grader_qset_free(qs);
}

/* The floor from a repeat, and the margin it raises as the ladder's. */
static void test_floor(void **state)
{
    struct grader_repeat_line rep = {0};
    struct grader_duel d = {0};

    (void)state;
    assert_true(grader_duel_floor(NULL) == -1.0);
    assert_true(grader_duel_floor(&rep) == 0.0);
    rep.n = 200;
    rep.mismatched_right = 6;
    assert_true(fabs(grader_duel_floor(&rep) - 3.0) < 1e-12);
    d.both = 100;
    d.neither = 100;
    grader_duel_judge(&d, 2.0, grader_duel_floor(&rep));
    assert_true(d.v.asked == 2.0 && d.v.margin == 3.0 && d.v.margin_raised);
    grader_duel_judge(&d, 5.0, grader_duel_floor(&rep));
    assert_true(d.v.margin == 5.0 && !d.v.margin_raised);
}

/* Every allocation of grader_duel and grader_duel_lengths fails in turn:
 * out of memory, and nothing leaks. */
static void test_out_of_memory(void **state)
{
    struct grader_qset *qs;
    struct grader_rung *a, *b;
    struct grader_duel d, *ls;
    struct grader_error err;
    long total, held;
    size_t nl;
    int rc;

    (void)state;
    grader_set_alloc(chaos_malloc, chaos_realloc, chaos_free);
    fail_at = -1;
    qs = grader_qset_new();
    {
        struct text t[2] = {{0}};
        char path[300];
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < 12; i++)
                text_addf(&t[k],
                          "{\"id\": \"n-%d\", \"reference\": \"7\", "
                          "\"content\": \"Answer: %d\", \"length\": %d, "
                          "\"depth\": 1}\n",
                          i, k && i % 3 == 0 ? 8 : 7, 1000 * (1 + i % 3));
            write_file(test_dir, k ? "B.jsonl" : "A.jsonl", t[k].p, path,
                       sizeof(path));
            free(t[k].p);
            assert_int_equal(
                test_rung_read(qs, k ? "B" : "A", path, 0, k ? &b : &a, &err),
                0);
        }
    }
    held = live;
    calls = 0;
    assert_int_equal(grader_duel(qs, a, b, -1, 2.0, -1.0, &d, &err), 0);
    grader_duel_release(&d);
    assert_int_equal(grader_duel_lengths(qs, a, b, 2.0, -1.0, &ls, &nl, &err),
                     0);
    assert_int_equal(nl, 3);
    grader_duel_free_all(ls, nl);
    total = calls;
    assert_int_equal(live, held);
    assert_true(total >= 5);
    for (fail_at = 1; fail_at <= total; fail_at++) {
        calls = 0;
        rc = grader_duel(qs, a, b, -1, 2.0, -1.0, &d, &err);
        if (rc == 0) {
            grader_duel_release(&d);
            rc = grader_duel_lengths(qs, a, b, 2.0, -1.0, &ls, &nl, &err);
        }
        if (rc != GRADER_ENOMEM)
            fail_msg("failing allocation %ld gave %d", fail_at, rc);
        if (live != held)
            fail_msg("failing allocation %ld leaks %ld blocks", fail_at,
                     live - held);
    }
    fail_at = -1;
    grader_rung_free(a);
    grader_rung_free(b);
    grader_qset_free(qs);
    assert_int_equal(live, 0);
    grader_set_alloc(NULL, NULL, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_counted),
        cmocka_unit_test(test_swapped),
        cmocka_unit_test(test_neither_apart),
        cmocka_unit_test(test_same_rows),
        cmocka_unit_test(test_none),
        cmocka_unit_test(test_lengths_sum),
        cmocka_unit_test(test_set),
        cmocka_unit_test(test_floor),
        cmocka_unit_test(test_out_of_memory),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
