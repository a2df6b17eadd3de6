/*
 * test_rundir_path.c - a run folder's paths in a capped, growable buffer
 * (rundir_path_buf) say what rundir_path says, refuse what it refuses,
 * and cut nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../util/util.h"
#include "rundir.h"

/* Every name of the table, per-rung or not, as rundir_path writes it. */
static void test_same_as_rundir_path(void **state)
{
    struct buf b = {0};
    char want[4200];

    (void)state;
    for (int w = RD_ROWS_DIR; w <= RD_BESIDE; w++) {
        assert_int_equal(rundir_path(want, sizeof want, "runs/a",
                                     (enum rundir_file)w, "Q4"),
                         0);
        assert_int_equal(
            rundir_path_buf(&b, "runs/a", (enum rundir_file)w, "Q4"), 0);
        assert_string_equal(b.p, want);
        assert_int_equal(b.len, strlen(want));
    }
    assert_string_equal(b.p, "runs/a/beside.jsonl");
    buf_release(&b);
}

/* A rung's file without a rung, or a name not in the table: -1 and "". */
static void test_refused(void **state)
{
    struct buf b = {0};

    (void)state;
    assert_int_equal(rundir_path_buf(&b, "r", RD_ROWS, NULL), -1);
    assert_non_null(b.p); /* a string even when nothing was written */
    assert_string_equal(b.p, "");
    assert_int_equal(rundir_path_buf(&b, "r", RD_ROWS_DIR, NULL), 0);
    assert_int_equal(rundir_path_buf(&b, "r", RD_ROWS, NULL), -1);
    assert_string_equal(b.p, "");
    assert_int_equal(rundir_path_buf(&b, "r", (enum rundir_file)999, "x"), -1);
    assert_string_equal(b.p, "");
    buf_release(&b);
}

/* The cap is rundir_path's with a char[4200]: a path of 4199 bytes fits,
 * one of 4200 is refused by both, never cut. A buffer with a larger max
 * holds it. */
static void test_cap(void **state)
{
    struct buf b = {0};
    char *dir = malloc(8000), out[4200];
    size_t tail = strlen("/ladder.json");

    (void)state;
    assert_non_null(dir);
    memset(dir, 'd', 8000);
    dir[RUNDIR_PATH_MAX - tail] = '\0';
    assert_int_equal(rundir_path(out, sizeof out, dir, RD_LADDER_JSON, NULL),
                     0);
    assert_int_equal(rundir_path_buf(&b, dir, RD_LADDER_JSON, NULL), 0);
    assert_int_equal(b.len, RUNDIR_PATH_MAX);
    assert_string_equal(b.p, out);
    dir[RUNDIR_PATH_MAX - tail] = 'd';
    dir[RUNDIR_PATH_MAX - tail + 1] = '\0';
    assert_int_equal(rundir_path(out, sizeof out, dir, RD_LADDER_JSON, NULL),
                     -1);
    assert_int_equal(rundir_path_buf(&b, dir, RD_LADDER_JSON, NULL), -1);
    assert_string_equal(b.p, "");
    buf_release(&b);
    buf_init(&b, 8192);
    assert_int_equal(rundir_path_buf(&b, dir, RD_LADDER_JSON, NULL), 0);
    assert_int_equal(b.len, RUNDIR_PATH_MAX + 1);
    buf_release(&b);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_rundir_path),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
