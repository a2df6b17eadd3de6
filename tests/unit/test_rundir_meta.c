/*
 * test_rundir_meta.c - bytes and GPU figures from rows/<RUNG>.done and
 * ladder.tsv (read by ladderfile.h, the one reader of it).
 */
#include "helpers.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nothing_known),
        cmocka_unit_test(test_done_first_then_tsv),
        cmocka_unit_test(test_bad_files),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
