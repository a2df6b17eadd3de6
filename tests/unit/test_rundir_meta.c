/*
 * test_rundir_meta.c - bytes and GPU figures from rows/<RUNG>.done and
 * ladder.tsv (read by ladderfile.h, the one reader of it).
 *
 * Tests: rundir/meta.c
 */
#include "helpers.h"

#include <errno.h>

#include "meta.h" /* rundir/ */

static char rows[128];

static void setup_files(const char *done, const char *tsv)
{
    char path[512];

    tmpdir_remove(test_dir);
    tmpdir_make(test_dir, sizeof(test_dir));
    snprintf(rows, sizeof(rows), "%s/rows", test_dir);
    assert_int_equal(mkdir(rows, 0755), 0);
    if (done)
        write_file(rows, "Q4_0.done", done, path, sizeof(path));
    if (tsv)
        write_file(test_dir, "ladder.tsv", tsv, path, sizeof(path));
}

static void test_nothing_known(void **state)
{
    struct grader_meta m;
    char msg[512];

    (void)state;
    setup_files(NULL, NULL);
    assert_int_equal(rundir_meta_read(test_dir, "Q4_0", &m, msg, sizeof(msg)), 0);
    assert_true(m.bytes == -1 && m.gpu_mib_loaded == -1 &&
                m.gpu_mib_before == -1);
}

static void test_done_first_then_tsv(void **state)
{
    struct grader_meta m;
    char msg[512];

    (void)state;
    setup_files("{\"bytes\": 5, \"gpu_mib_loaded\": 1639, "
                "\"gpu_mib_before\": 0}\n",
                "rung\tfile\tbytes\tsha256\nQ4_0\t/m/q.gguf\t3360161216\tabababababababababababababababababababababababababababababababab\n");
    assert_int_equal(rundir_meta_read(test_dir, "Q4_0", &m, msg, sizeof(msg)), 0);
    assert_true(m.bytes == 5);
    assert_true(m.gpu_mib_loaded == 1639);
    assert_true(m.gpu_mib_before == 0);
    setup_files("{\"n\": 250}\n",
                "rung\tfile\tbytes\tsha256\nQ4_0X\t/m/x\t1\tabababababababababababababababababababababababababababababababab\n"
                "Q4_0\t/m/q.gguf\t3360161216\tabababababababababababababababababababababababababababababababab\n");
    assert_int_equal(rundir_meta_read(test_dir, "Q4_0", &m, msg, sizeof(msg)), 0);
    assert_true(m.bytes == 3360161216LL);
    assert_true(m.gpu_mib_loaded == -1);
    assert_string_equal(m.sha256, "abababababababababababababababababababab"
                                  "abababababababababababab");
}

static void test_bad_files(void **state)
{
    struct grader_meta m;
    char msg[512];

    (void)state;
    setup_files("{\"bytes\": ", NULL);
    assert_int_equal(rundir_meta_read(test_dir, "Q4_0", &m, msg, sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "Q4_0.done"));
    setup_files("{\"gpu_mib_loaded\": \"lots\"}", NULL);
    assert_int_equal(rundir_meta_read(test_dir, "Q4_0", &m, msg, sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "gpu_mib_loaded"));
    setup_files(NULL, "rung\tfile\tbytes\tsha256\nQ4_0\t/m/q\t12x\tabababababababababababababababababababababababababababababababab\n");
    assert_int_equal(rundir_meta_read(test_dir, "Q4_0", &m, msg, sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "ladder.tsv:2:"));
}

/* A rung's summary printed again on resume: read as any run-folder file
 * and found to be this rung's, or refused with the file named. */
static void test_done_strict(void **state)
{
    static const char good[] = "{\"rung\": \"Q4_0\", \"n\": 4, \"right\": 3, "
                               "\"errors\": 0, \"truncated\": 1}\n";
    char path[512], msg[512], *text = NULL, *big;
    json_t *o = NULL;

    (void)state;
    setup_files(good, NULL); /* each setup makes a new folder */
    snprintf(path, sizeof(path), "%s/Q4_0.done", rows);
    assert_int_equal(rundir_done_load(path, "Q4_0", &text, &o, msg,
                                      sizeof(msg)),
                     0);
    assert_string_equal(text, good);
    assert_int_equal(json_integer_value(json_object_get(o, "right")), 3);
    free(text);
    json_decref(o);
    assert_int_equal(rundir_done_load(path, "Q8_0", NULL, NULL, msg,
                                      sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "not the summary of rung 'Q8_0'"));
    setup_files("{\"rung\": \"Q4_0\", \"n\": 4}\n", NULL);
    snprintf(path, sizeof(path), "%s/Q4_0.done", rows);
    assert_int_equal(rundir_done_load(path, "Q4_0", NULL, NULL, msg,
                                      sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "\"right\" must be"));
    setup_files("{\"rung\": \"Q4_0\"}\n\"x\"\n", NULL);
    snprintf(path, sizeof(path), "%s/Q4_0.done", rows);
    assert_int_equal(rundir_done_load(path, "Q4_0", NULL, NULL, msg,
                                      sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "not one line"));
    big = malloc(RUNDIR_DONE_MAX + 10);
    memset(big, ' ', RUNDIR_DONE_MAX + 8);
    memcpy(big, good, strlen(good) - 1);
    big[RUNDIR_DONE_MAX + 8] = '\0';
    setup_files(big, NULL);
    snprintf(path, sizeof(path), "%s/Q4_0.done", rows);
    free(big);
    assert_int_equal(rundir_done_load(path, NULL, NULL, NULL, msg,
                                      sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "over 65536 bytes"));
    assert_int_equal(errno, EINVAL);
    setup_files(NULL, NULL);
    snprintf(path, sizeof(path), "%s/Q4_0.done", rows);
    assert_int_equal(rundir_done_load(path, "Q4_0", NULL, NULL, msg,
                                      sizeof(msg)),
                     1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nothing_known),
        cmocka_unit_test(test_done_first_then_tsv),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_done_strict),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
