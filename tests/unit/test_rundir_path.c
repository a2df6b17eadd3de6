/*
 * test_rundir_path.c - a run folder's paths in a capped, growable buffer
 * (rundir_path_buf) say what rundir_path says, refuse what it refuses,
 * and cut nothing.
 *
 * Tests: rundir/rundir.c
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* rundir_check_ahead: absent or a regular file passes; a link, a FIFO,
 * a folder and a path past the cap are refused naming the path, nothing
 * followed or made. */
static void test_check_ahead(void **state)
{
    static const enum rundir_file done[] = {RD_DONE};
    static const enum rundir_file both[] = {RD_MANIFEST, RD_DONE};
    char dir[] = "/tmp/graveyard-ahead-XXXXXX", path[256], msg[512];
    char cmd[300], *big;
    FILE *f;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/rows", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    /* absent, then a regular file */
    assert_int_equal(rundir_check_ahead(dir, "R1", both, 2, msg, sizeof msg),
                     0);
    snprintf(path, sizeof path, "%s/rows/R1.done", dir);
    assert_non_null(f = fopen(path, "w"));
    fclose(f);
    assert_int_equal(rundir_check_ahead(dir, "R1", both, 2, msg, sizeof msg),
                     0);
    /* a link (to nothing), a FIFO, a folder */
    assert_int_equal(unlink(path), 0);
    assert_int_equal(symlink("/nonexistent/victim", path), 0);
    assert_int_equal(rundir_check_ahead(dir, "R1", both, 2, msg, sizeof msg),
                     -1);
    assert_int_equal(errno, ELOOP);
    assert_non_null(strstr(msg, path));
    assert_non_null(strstr(msg, "symbolic link"));
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkfifo(path, 0644), 0);
    assert_int_equal(rundir_check_ahead(dir, "R1", done, 1, msg, sizeof msg),
                     -1);
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(msg, "not a regular file"));
    assert_non_null(strstr(msg, path));
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkdir(path, 0755), 0);
    assert_int_equal(rundir_check_ahead(dir, "R1", done, 1, msg, sizeof msg),
                     -1);
    /* another rung's name is another file */
    assert_int_equal(rundir_check_ahead(dir, "R2", done, 1, msg, sizeof msg),
                     0);
    /* a folder's path past the cap */
    big = malloc(RUNDIR_PATH_MAX + 1);
    assert_non_null(big);
    memset(big, 'a', RUNDIR_PATH_MAX);
    big[RUNDIR_PATH_MAX] = '\0';
    assert_int_equal(rundir_check_ahead(big, "R1", done, 1, msg, sizeof msg),
                     -1);
    assert_int_equal(errno, ENAMETOOLONG);
    assert_non_null(strstr(msg, "path too long"));
    free(big);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_rundir_path),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_check_ahead),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
