/*
 * test_rundir_duels.c - ladder.json's "duels" (docs/duel.md): written by
 * rundir_shape_duels after rundir_shape_write, read back through the one
 * accessor, rundir_run_duels; none leaves the file byte for byte as it
 * was; an entry that is no pair of names is left out.
 *
 * Tests: rundir/run.c
 */
#include "helpers.h"

#include <sys/stat.h>

#include "run.h" /* rundir/ */

static char *read_whole(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *p = calloc(1, 65536);

    assert_non_null(f);
    assert_non_null(p);
    assert_true(fread(p, 1, 65535, f) > 0);
    fclose(f);
    return p;
}

static void folder(char *ladder, size_t size)
{
    char rows[600], msg[256];
    char *chain[] = {"BF16", "Q4_K_M-a", "Q4_K_M-b"};

    snprintf(rows, sizeof rows, "%s/rows", test_dir);
    mkdir(rows, 0755);
    assert_int_equal(rundir_shape_write(test_dir, "l", "BF16", chain, 3, NULL,
                                        0, 0, 2.0, msg, sizeof msg),
                     0);
    snprintf(ladder, size, "%s/ladder.json", test_dir);
}

static void test_round_trip(void **state)
{
    const char *names[] = {"Q4_K_M-a", "Q4_K_M-b", "BF16", "Q4_K_M-a"};
    const struct rundir_duel *d;
    struct rundir_run r;
    char ladder[700], msg[256], *before, *after;
    size_t n;

    (void)state;
    folder(ladder, sizeof ladder);
    before = read_whole(ladder);
    /* none: the file as it was */
    assert_int_equal(rundir_shape_duels(test_dir, names, 0, msg, sizeof msg),
                     0);
    after = read_whole(ladder);
    assert_string_equal(before, after);
    free(after);
    assert_int_equal(rundir_run_open(&r, test_dir, NULL, NULL, NULL, msg,
                                     sizeof msg),
                     0);
    d = rundir_run_duels(&r, &n);
    assert_int_equal(n, 0);
    rundir_run_close(&r);
    assert_int_equal(rundir_shape_duels(test_dir, names, 2, msg, sizeof msg),
                     0);
    assert_int_equal(rundir_run_open(&r, test_dir, NULL, NULL, NULL, msg,
                                     sizeof msg),
                     0);
    d = rundir_run_duels(&r, &n);
    assert_int_equal(n, 2);
    assert_string_equal(d[0].a, "Q4_K_M-a");
    assert_string_equal(d[0].b, "Q4_K_M-b");
    assert_string_equal(d[1].a, "BF16");
    assert_string_equal(d[1].b, "Q4_K_M-a");
    assert_true(r.margin == 2.0); /* the rest of the file kept */
    assert_int_equal(r.nchain, 3);
    rundir_run_close(&r);
    free(before);
}

/* An entry that is no pair of strings is left out, the others read. */
static void test_not_pairs(void **state)
{
    const struct rundir_duel *d;
    struct rundir_run r;
    char ladder[700], msg[256];
    FILE *f;
    size_t n;

    (void)state;
    folder(ladder, sizeof ladder);
    f = fopen(ladder, "w");
    assert_non_null(f);
    fputs("{\"name\": \"l\", \"reference\": \"BF16\", \"rungs\": [\"BF16\", "
          "\"A\"], \"side_rungs\": [], \"thinking\": false, \"duels\": "
          "[[\"A\"], \"A,B\", [1, 2], [\"A\", \"BF16\"]]}",
          f);
    fclose(f);
    assert_int_equal(rundir_run_open(&r, test_dir, NULL, NULL, NULL, msg,
                                     sizeof msg),
                     0);
    d = rundir_run_duels(&r, &n);
    assert_int_equal(n, 1);
    assert_string_equal(d[0].a, "A");
    assert_string_equal(d[0].b, "BF16");
    rundir_run_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_not_pairs),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
