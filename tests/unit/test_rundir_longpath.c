/*
 * test_rundir_longpath.c - rundir/'s paths past the house's cap
 * (RUNDIR_PATH_MAX, util.h's BUF_PATH_MAX): refused with a message that
 * says the cap and names the path, never cut short; and one under it kept
 * whole (ladder.tsv's file field, which a char[4096] once refused with a
 * message about the line's shape).
 * Tests: rundir/ladderfile.c
 * Tests: rundir/store.c
 * Tests: rundir/probsfile.c
 * Tests: rundir/files.c
 * Tests: rundir/outfile.c
 */
#include "helpers.h"

#include <errno.h>

#include "files.h"      /* rundir/ */
#include "ladderfile.h" /* rundir/ */
#include "outfile.h"    /* rundir/ */
#include "probsfile.h"  /* rundir/ */
#include "rundir.h"     /* rundir/ */
#include "store.h"      /* rundir/ */

/* n bytes of 'a' after prefix, new (free it). */
static char *long_name(const char *prefix, size_t n)
{
    size_t k = strlen(prefix);
    char *s = malloc(k + n + 1);

    assert_non_null(s);
    memcpy(s, prefix, k);
    memset(s + k, 'a', n);
    s[k + n] = '\0';
    return s;
}

/* ladder.tsv's text with one row whose file is file. */
static FILE *ladder_with(const char *file)
{
    static char text[8192];
    FILE *f;

    snprintf(text, sizeof(text), "rung\tfile\tbytes\tsha256\nQ4_0\t%s\t10\t\n",
             file);
    f = fmemopen(text, strlen(text), "r");
    assert_non_null(f);
    return f;
}

/* A file under the cap but over the old 4096 bytes is read whole. */
static void test_ladder_long_file_kept(void **state)
{
    char *file = long_name("/m/", 4150), msg[512] = "";
    struct lrow *rows;
    size_t n;
    FILE *f = ladder_with(file);

    (void)state;
    if (ladderfile_parse(f, "ladder.tsv", &rows, &n, msg, sizeof(msg)) != 0)
        fail_msg("refused: %s", msg);
    fclose(f);
    assert_int_equal(n, 1);
    assert_int_equal(strlen(rows[0].file), strlen(file));
    assert_string_equal(rows[0].file, file);
    free(rows);
    free(file);
}

/* Over the cap: refused, the line and the cap said, the path named. */
static void test_ladder_file_over_cap(void **state)
{
    char *file = long_name("/m/", 4300), msg[512] = "";
    struct lrow *rows;
    size_t n;
    FILE *f = ladder_with(file);

    (void)state;
    assert_int_equal(
        ladderfile_parse(f, "ladder.tsv", &rows, &n, msg, sizeof(msg)), -1);
    fclose(f);
    assert_non_null(strstr(msg, "ladder.tsv:2: path too long (over 4199 "
                                "bytes): '/m/aaaa"));
    free(file);
}

/* The rows and probs files of a run folder whose path passes the cap:
 * refused before anything is made, the cap said, the path named. */
static void test_store_over_cap(void **state)
{
    char *run = long_name("/tmp/", 4300), msg[512] = "";
    struct store s;
    struct probsfile p;

    (void)state;
    assert_int_equal(store_open(&s, run, "Q4_0", msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "path too long (over 4199 bytes): '/tmp/aaa"));
    store_close(&s);
    msg[0] = '\0';
    assert_int_equal(
        probsfile_open(&p, run, "Q4_0", NULL, NULL, NULL, msg, sizeof(msg)),
        -1);
    assert_non_null(strstr(msg, "path too long (over 4199 bytes): '/tmp/aaa"));
    probsfile_close(&p);
    free(run);
}

/* A folder and a file written whole whose path passes the cap. */
static void test_mkdir_and_write_over_cap(void **state)
{
    char *path = long_name("/tmp/", 4300), msg[512] = "";

    (void)state;
    assert_int_equal(files_mkdir(path, 0, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "path too long (over 4199 bytes): '/tmp/aaa"));
    msg[0] = '\0';
    assert_int_equal(outfile_write(path, "x", 1, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "path too long (over 4199 bytes): '/tmp/aaa"));
    errno = 0;
    assert_int_equal(files_sync_dir(path), -1);
    assert_int_equal(errno, ENAMETOOLONG);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ladder_long_file_kept),
        cmocka_unit_test(test_ladder_file_over_cap),
        cmocka_unit_test(test_store_over_cap),
        cmocka_unit_test(test_mkdir_and_write_over_cap),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
