/*
 * test_grader_lengths.c - length as an axis of the ladder (grader/
 * lengths.h): rows of long items carry their length and depth; each rung
 * is graded against the reference at the same length; the first length
 * where a rung is not shown equivalent is where its cliff is, and nowhere
 * else; the dead needles are counted by where in the prompt they sat.
 *
 * Tests: grader/lengths.c
 * Tests: grader/qset.c
 * Tests: grader/rowscan.c
 *
 * The ladder: 200 items at each of the lengths 1024, 4096 and 16384
 * (600 questions), the reference right on every one. "Same" answers as
 * the reference everywhere: 0 discordant of 200, Newcombe's paired 90 %
 * interval +-1.33 points (z^2 / (200 + z^2) = 0.01335), equivalent at
 * +-2 at every length. "Cliff" answers as the reference at 1024 and 4096
 * and is wrong on the items whose index is even at 16384 (100 of 200):
 * worse there, so its first length not shown equivalent is 16384. Depth
 * of item i is i % 100, so each tenth of depth holds 20 items a length.
 */
#include "helpers.h"

#include "lengths.h"

#define ITEMS 200
static const long LENS[] = {1024, 4096, 16384};

/* Rows of one rung: wrong_at is the length where even items die (0:
 * none); with_depth 0 writes no depth (common words). */
static void rows_file(const char *name, long wrong_at, char *path, size_t size)
{
    struct text t = {0};
    size_t k, i;

    for (k = 0; k < 3; k++)
        for (i = 0; i < ITEMS; i++) {
            int wrong = LENS[k] == wrong_at && i % 2 == 0;
            text_addf(&t,
                      "{\"id\": \"niah-single-%zu@%ld\", \"reference\": "
                      "\"7\", \"content\": \"Answer: %d\", \"length\": %ld, "
                      "\"depth\": %zu}\n",
                      i, LENS[k], wrong ? 8 : 7, LENS[k], i % 100);
        }
    write_file(test_dir, name, t.p, path, size);
    free(t.p);
}

struct three {
    struct grader_qset *qs;
    struct grader_rung *r[3];
    struct grader_meta m[3];
};

static void read_three(struct three *x, long cliff_b, long cliff_c)
{
    char path[300];
    struct grader_error err;
    const char *names[] = {"BF16", "Same", "Cliff"};
    const long cliff[] = {0, cliff_b, cliff_c};

    memset(x, 0, sizeof(*x));
    assert_non_null(x->qs = grader_qset_new());
    for (size_t i = 0; i < 3; i++) {
        char file[64];
        snprintf(file, sizeof(file), "%s.jsonl", names[i]);
        rows_file(file, cliff[i], path, sizeof(path));
        assert_int_equal(
            test_rung_read(x->qs, names[i], path, 0, &x->r[i], &err), 0);
        x->m[i].bytes = x->m[i].gpu_mib_loaded = x->m[i].gpu_mib_before = -1;
        x->m[i].power.joules = -1;
    }
}

static void free_three(struct three *x)
{
    for (size_t i = 0; i < 3; i++)
        grader_rung_free(x->r[i]);
    grader_qset_free(x->qs);
}

static void test_lengths_read(void **state)
{
    struct three x;

    (void)state;
    read_three(&x, 0, 16384);
    assert_true(grader_qset_has_lengths(x.qs));
    assert_int_equal(grader_qset_count(x.qs), 3 * ITEMS);
    assert_int_equal(grader_qset_length(x.qs, 0), 1024);
    assert_int_equal(grader_qset_depth(x.qs, 7), 7);
    assert_int_equal(grader_qset_length(x.qs, 2 * ITEMS + 5), 16384);
    free_three(&x);
}

static void test_cut(void **state)
{
    struct three x;
    struct grader_rung *c;

    (void)state;
    read_three(&x, 0, 16384);
    c = grader_rung_at_length(x.r[2], x.qs, 16384);
    assert_non_null(c);
    assert_int_equal(c->n, ITEMS);
    for (size_t i = 0; i < c->n; i++)
        assert_int_equal(grader_qset_length(x.qs, c->answers[i].q), 16384);
    /* the extracted numbers kept: "8" at an even item, "7" at an odd */
    assert_string_equal(grader_rung_said(c, &c->answers[0]), "8");
    assert_string_equal(grader_rung_said(c, &c->answers[1]), "7");
    assert_null(grader_rung_find(c, 0)); /* a 1024 question: not here */
    grader_rung_free(c);
    free_three(&x);
}

static void test_cliff_found(void **state)
{
    struct three x;
    struct grader_lengths l;
    struct grader_error err;

    (void)state;
    read_three(&x, 0, 16384);
    assert_int_equal(
        grader_lengths_build(x.qs, x.m, (const struct grader_rung *const *)x.r,
                             3, 2.0, 0, &l, &err),
        0);
    assert_int_equal(l.nlengths, 3);
    assert_near(l.margin, 2.0, 0, "the margin the cells used");
    assert_int_equal(l.lengths[0], 1024);
    assert_int_equal(l.lengths[2], 16384);
    for (size_t k = 0; k < 3; k++) {
        const struct grader_figures *same = &l.per[k].rungs[1];
        const struct grader_figures *cl = &l.per[k].rungs[2];
        assert_int_equal(same->line->sum.n, ITEMS);
        assert_int_equal(same->verdict.kind, GRADER_VERDICT_EQUIVALENT);
        assert_int_equal(cl->line->dead, k == 2 ? ITEMS / 2 : 0);
        assert_int_equal(cl->verdict.kind, k == 2 ? GRADER_VERDICT_WORSE
                                                  : GRADER_VERDICT_EQUIVALENT);
    }
    assert_near(l.per[2].rungs[2].acc, 0.5, 1e-12, "the cliff's accuracy");
    assert_int_equal(l.first_not_eq[0], -1);
    assert_int_equal(l.first_not_eq[1], -1);
    assert_int_equal(l.first_not_eq[2], 2);
    assert_int_equal(l.first_worse[0], -1);
    assert_int_equal(l.first_worse[1], -1);
    assert_int_equal(l.first_worse[2], 2);
    /* each item first dies at 16,384 at the cliff, never at the twin */
    assert_int_equal(l.items, ITEMS);
    assert_int_equal(l.items_dead_at[2][2], ITEMS / 2);
    assert_int_equal(l.items_dead_at[2][0] + l.items_dead_at[2][1], 0);
    assert_int_equal(l.items_dead_at[1][0] + l.items_dead_at[1][1] +
                         l.items_dead_at[1][2],
                     0);
    /* by depth: 60 reference-right items a tenth (20 a length), and the
     * cliff's 100 dead at 16384 spread evenly: 10 a tenth */
    for (size_t b = 0; b < GRADER_DEPTH_BINS; b++) {
        assert_int_equal(l.asked_by_depth[b], 60);
        assert_int_equal(l.dead_by_depth[2][b], 10);
        assert_int_equal(l.dead_by_depth[1][b], 0);
    }
    /* and at each length alone (depth.svg's cells): 20 asked a tenth, all
     * answered; the cliff's 10 a tenth dead at 16384 alone, half */
    for (size_t k = 0; k < 3; k++) {
        assert_int_equal(l.depth_asked_len[k], ITEMS);
        for (size_t b = 0; b < GRADER_DEPTH_BINS; b++) {
            assert_int_equal(l.depth_asked_at[k][b], 20);
            assert_int_equal(l.depth_answered_at[k][2][b], 20);
            assert_int_equal(l.depth_dead_at[k][2][b], k == 2 ? 10 : 0);
            assert_int_equal(l.depth_dead_at[k][1][b], 0);
            assert_near(grader_lengths_depth_lost(&l, k, 2, b),
                        k == 2 ? 0.5 : 0.0, 1e-12, "the cliff's share dead");
        }
    }
    assert_int_equal(l.depth_answered[1], 3 * ITEMS);
    assert_int_equal(l.depth_answered[2], 3 * ITEMS);
    grader_lengths_release(&l);
    free_three(&x);
}

/* depth.svg's empty cells: a tenth of depth no needle sat in at a length
 * (its share -1, never 0), a rung that answered none of a length's
 * questions (partial), and a rung with no long rows at all (its
 * depth_answered 0: the picture leaves it out). The reference asks two
 * items at 1024 (depths 5 and 55) and one at 4096 (depth 15); "Half"
 * answers only the 1024 ones, wrong at depth 55; "Short" has no long row. */
static void test_depth_empty(void **state)
{
    char p[3][300];
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *r[3];
    struct grader_meta m[3];
    struct grader_lengths l;
    struct grader_error err;
    const char *ref = "{\"id\": \"a@1024\", \"reference\": \"7\", "
                      "\"content\": \"Answer: 7\", \"length\": 1024, "
                      "\"depth\": 5}\n"
                      "{\"id\": \"b@1024\", \"reference\": \"7\", "
                      "\"content\": \"Answer: 7\", \"length\": 1024, "
                      "\"depth\": 55}\n"
                      "{\"id\": \"a@4096\", \"reference\": \"7\", "
                      "\"content\": \"Answer: 7\", \"length\": 4096, "
                      "\"depth\": 15}\n"
                      "{\"id\": \"s\", \"reference\": \"7\", "
                      "\"content\": \"Answer: 7\"}\n";

    (void)state;
    write_file(test_dir, "dref.jsonl", ref, p[0], sizeof(p[0]));
    write_file(test_dir, "dhalf.jsonl",
               "{\"id\": \"a@1024\", \"reference\": \"7\", "
               "\"content\": \"Answer: 7\", \"length\": 1024, "
               "\"depth\": 5}\n"
               "{\"id\": \"b@1024\", \"reference\": \"7\", "
               "\"content\": \"Answer: 8\", \"length\": 1024, "
               "\"depth\": 55}\n",
               p[1], sizeof(p[1]));
    write_file(test_dir, "dshort.jsonl",
               "{\"id\": \"s\", \"reference\": \"7\", \"content\": "
               "\"Answer: 7\"}\n",
               p[2], sizeof(p[2]));
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(test_rung_read(qs,
                                        i == 0   ? "Ref"
                                        : i == 1 ? "Half"
                                                 : "Short",
                                        p[i], 0, &r[i], &err),
                         0);
    memset(m, 0, sizeof(m));
    for (size_t i = 0; i < 3; i++) {
        m[i].bytes = m[i].gpu_mib_loaded = m[i].gpu_mib_before = -1;
        m[i].power.joules = -1;
    }
    assert_int_equal(grader_lengths_build(qs, m,
                                          (const struct grader_rung *const *)r,
                                          3, 2.0, GRADER_PARTIAL, &l, &err),
                     0);
    assert_int_equal(l.nlengths, 2);
    assert_int_equal(l.depth_asked_len[0], 2);
    assert_int_equal(l.depth_asked_len[1], 1);
    assert_int_equal(l.depth_asked_at[0][0], 1);
    assert_int_equal(l.depth_asked_at[0][5], 1);
    assert_int_equal(l.depth_asked_at[0][1], 0);
    assert_int_equal(l.depth_asked_at[1][1], 1);
    assert_int_equal(l.depth_dead_at[0][1][5], 1);
    assert_int_equal(l.depth_dead_at[0][1][0], 0);
    assert_near(grader_lengths_depth_lost(&l, 0, 1, 5), 1.0, 0, "dead");
    assert_near(grader_lengths_depth_lost(&l, 0, 1, 0), 0.0, 0, "right");
    /* no needle there: empty, not 0 */
    assert_near(grader_lengths_depth_lost(&l, 0, 1, 1), -1.0, 0, "no item");
    /* asked at 4096, not answered by Half: empty */
    assert_int_equal(l.depth_answered_at[1][1][1], 0);
    assert_near(grader_lengths_depth_lost(&l, 1, 1, 1), -1.0, 0, "none");
    assert_int_equal(l.depth_answered[1], 2);
    /* over every length (REPORT.md's table): Half answered the 0-9 % and
     * 50-59 % needles, not the 10-19 % one; Short none */
    assert_int_equal(l.answered_by_depth[1][0], 1);
    assert_int_equal(l.answered_by_depth[1][1], 0);
    assert_int_equal(l.answered_by_depth[1][5], 1);
    assert_int_equal(l.asked_by_depth[1], 1);
    for (size_t b = 0; b < GRADER_DEPTH_BINS; b++)
        assert_int_equal(l.answered_by_depth[2][b], 0);
    assert_int_equal(l.depth_answered[2], 0); /* Short: no long row */
    assert_near(grader_lengths_depth_lost(&l, 0, 2, 0), -1.0, 0, "Short");
    /* out of range: empty */
    assert_near(grader_lengths_depth_lost(&l, 2, 1, 0), -1.0, 0, "k");
    assert_near(grader_lengths_depth_lost(&l, 0, 3, 0), -1.0, 0, "i");
    assert_near(grader_lengths_depth_lost(&l, 0, 1, 10), -1.0, 0, "b");
    grader_lengths_release(&l);
    for (size_t i = 0; i < 3; i++)
        grader_rung_free(r[i]);
    grader_qset_free(qs);
}

/* The cliff where it is and nowhere else: at 4096 it is found at 4096. */
static void test_cliff_moves(void **state)
{
    struct three x;
    struct grader_lengths l;
    struct grader_error err;

    (void)state;
    read_three(&x, 0, 4096);
    assert_int_equal(
        grader_lengths_build(x.qs, x.m, (const struct grader_rung *const *)x.r,
                             3, 2.0, 0, &l, &err),
        0);
    assert_int_equal(l.first_not_eq[2], 1);
    assert_int_equal(l.first_worse[2], 1);
    assert_int_equal(l.items_dead_at[2][1], ITEMS / 2);
    assert_int_equal(l.items_dead_at[2][2], 0);
    assert_int_equal(l.per[0].rungs[2].line->dead, 0);
    assert_int_equal(l.per[2].rungs[2].line->dead, 0);
    grader_lengths_release(&l);
    free_three(&x);
}

/* Two rungs' rows that give one question two lengths: refused, naming
 * the file and line, as two references would be. */
static void test_length_mismatch(void **state)
{
    char a[300], b[300];
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *r1, *r2;
    struct grader_error err;

    (void)state;
    write_file(test_dir, "la.jsonl",
               "{\"id\": \"x@1024\", \"reference\": \"7\", \"content\": "
               "\"Answer: 7\", \"length\": 1024, \"depth\": 10}\n",
               a, sizeof(a));
    write_file(test_dir, "lb.jsonl",
               "{\"id\": \"x@1024\", \"reference\": \"7\", \"content\": "
               "\"Answer: 7\", \"length\": 2048, \"depth\": 10}\n",
               b, sizeof(b));
    assert_int_equal(test_rung_read(qs, "a", a, 0, &r1, &err), 0);
    assert_int_equal(test_rung_read(qs, "b", b, 0, &r2, &err),
                     GRADER_EREFMISMATCH);
    assert_int_equal(err.line, 1);
    assert_non_null(strstr(err.text, "length 2048"));
    grader_rung_free(r1);
    grader_qset_free(qs);
}

/* Out of range: a depth of 101, a length past 2^24, a length that is not
 * a whole number. */
static void test_bad_values(void **state)
{
    static const char *const rows[] = {
        "{\"id\": \"y\", \"reference\": \"7\", \"content\": \"\", "
        "\"length\": 1024, \"depth\": 101}\n",
        "{\"id\": \"y\", \"reference\": \"7\", \"content\": \"\", "
        "\"length\": 16777217}\n",
        "{\"id\": \"y\", \"reference\": \"7\", \"content\": \"\", "
        "\"length\": 1.5}\n",
        "{\"id\": \"y\", \"reference\": \"7\", \"content\": \"\", "
        "\"length\": \"16K\"}\n"};
    char path[300];

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct grader_qset *qs = grader_qset_new();
        struct grader_rung *r;
        struct grader_error err;
        write_file(test_dir, "bad.jsonl", rows[i], path, sizeof(path));
        assert_int_not_equal(test_rung_read(qs, "a", path, 0, &r, &err), 0);
        assert_int_equal(err.line, 1);
        grader_qset_free(qs);
    }
}

/* A run without lengths is not a long run: said, nothing built. */
static void test_not_long(void **state)
{
    char path[300];
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *r[2];
    struct grader_meta m[2];
    struct grader_lengths l;
    struct grader_error err;

    (void)state;
    write_file(test_dir, "plain.jsonl",
               "{\"id\": \"q1\", \"reference\": \"7\", \"content\": "
               "\"Answer: 7\"}\n",
               path, sizeof(path));
    assert_int_equal(test_rung_read(qs, "a", path, 0, &r[0], &err), 0);
    assert_int_equal(test_rung_read(qs, "b", path, 0, &r[1], &err), 0);
    memset(m, 0, sizeof(m));
    assert_int_equal(grader_lengths_build(qs, m,
                                          (const struct grader_rung *const *)r,
                                          2, 2.0, 0, &l, &err),
                     GRADER_EARG);
    assert_non_null(strstr(err.text, "not a long run"));
    grader_rung_free(r[0]);
    grader_rung_free(r[1]);
    grader_qset_free(qs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lengths_read),
        cmocka_unit_test(test_cut),
        cmocka_unit_test(test_cliff_found),
        cmocka_unit_test(test_cliff_moves),
        cmocka_unit_test(test_depth_empty),
        cmocka_unit_test(test_length_mismatch),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_not_long),
    };

    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
