/*
 * test_orch_store.c - rows appended and synced; a torn last line cut back
 * on open (rundir/store.h); answered ids read back and a bad middle row
 * refused (orchestrator/rows/rowsfile.h).
 */
#include "helpers.h"

#include <fcntl.h>

#include "../../orchestrator/rows/rowsfile.h"
#include "store.h"

static const char row_a[] = "{\"id\":\"a\",\"reference\":\"1\",\"content\":"
                            "\"Answer: 1\"}";
static const char row_b[] = "{\"id\":\"b\",\"reference\":\"2\",\"content\":"
                            "\"Answer: 3\"}";

static void add_raw(const char *path, const char *text)
{
    FILE *f = fopen(path, "a");

    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* What the rows file answers, through the grader's reader. */
static size_t answered(const char *path, const char *rung,
                       struct grader_qset **ids)
{
    size_t rows, right;
    char msg[512];

    if (rowsfile_answered(path, rung, NULL, ids, &rows, &right, msg,
                          sizeof(msg)))
        fail_msg("%s", msg);
    return rows;
}

static int has(const struct grader_qset *ids, const char *id)
{
    uint32_t q;

    return grader_qset_find(ids, id, strlen(id), &q) == 0;
}

static void test_append_and_resume(void **state)
{
    struct store s;
    char msg[512], text[1024], run[128];
    struct grader_qset *ids;

    (void)state;
    snprintf(run, sizeof(run), "%s/run", test_dir);
    assert_int_equal(store_open(&s, run, "Q4_0", msg, sizeof(msg)), 0);
    assert_int_equal(answered(s.path, "Q4_0", &ids), 0);
    grader_qset_free(ids);
    assert_int_equal(store_append(&s, row_a, strlen(row_a), msg, sizeof(msg)),
                     0);
    assert_int_equal(store_append(&s, row_b, strlen(row_b), msg, sizeof(msg)),
                     0);
    assert_int_equal(s.written, strlen(row_a) + strlen(row_b) + 2);
    store_close(&s);
    slurp(s.path, text, sizeof(text));
    assert_int_equal(strlen(text), strlen(row_a) + strlen(row_b) + 2);
    /* the machine stopped in the middle of the third row */
    add_raw(s.path, "{\"id\":\"c\",\"refer");
    assert_int_equal(store_open(&s, run, "Q4_0", msg, sizeof(msg)), 0);
    assert_int_equal(s.cut, strlen("{\"id\":\"c\",\"refer"));
    assert_int_equal(answered(s.path, "Q4_0", &ids), 2);
    assert_true(has(ids, "a"));
    assert_true(has(ids, "b"));
    assert_false(has(ids, "c"));
    grader_qset_free(ids);
    assert_int_equal(store_append(&s, "{\"id\":\"c\",\"reference\":\"3\"}", 26,
                                  msg, sizeof(msg)),
                     0);
    store_close(&s);
    assert_int_equal(store_open(&s, run, "Q4_0", msg, sizeof(msg)), 0);
    assert_int_equal(answered(s.path, "Q4_0", &ids), 3);
    grader_qset_free(ids);
    assert_int_equal(s.cut, 0);
    store_close(&s);
}

static void test_torn_only_line(void **state)
{
    struct store s;
    char msg[512], run[128], path[256], text[64];

    (void)state;
    snprintf(run, sizeof(run), "%s/run2", test_dir);
    assert_int_equal(mkdir(run, 0755), 0);
    snprintf(path, sizeof(path), "%s/rows", run);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof(path), "%s/rows/F16.jsonl", run);
    add_raw(path, "{\"id\":\"a\"");
    assert_int_equal(store_open(&s, run, "F16", msg, sizeof(msg)), 0);
    assert_int_equal(s.cut, strlen("{\"id\":\"a\""));
    store_close(&s);
    slurp(path, text, sizeof(text));
    assert_string_equal(text, "");
}

static void test_bad_middle_row(void **state)
{
    struct store s;
    char msg[512], run[128], path[256];

    (void)state;
    snprintf(run, sizeof(run), "%s/run3", test_dir);
    assert_int_equal(store_open(&s, run, "Q8_0", msg, sizeof(msg)), 0);
    store_close(&s);
    snprintf(path, sizeof(path), "%s/rows/Q8_0.jsonl", run);
    add_raw(path, "{\"id\":\"a\",\"reference\":\"1\"}\nnot json\n"
                  "{\"id\":\"b\",\"reference\":\"1\"}\n");
    assert_int_equal(store_open(&s, run, "Q8_0", msg, sizeof(msg)), 0);
    {
        struct grader_qset *ids = (void *)1;
        size_t rows, right;
        assert_int_equal(rowsfile_answered(s.path, "Q8_0", NULL, &ids, &rows,
                                           &right, msg, sizeof(msg)),
                         -1);
        assert_null(ids);
    }
    if (strstr(msg, "Q8_0.jsonl:2:") == NULL)
        fail_msg("message '%s' does not name line 2", msg);
    store_close(&s);
}

/* A rows file that is not there: named, with the rung. */
static void test_missing_file(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *r;
    struct grader_error err;
    char path[512];

    (void)state;
    snprintf(path, sizeof(path), "%s/nope.jsonl", test_dir);
    assert_int_equal(rowsfile_read(qs, "Q9", path, 0, &r, &err),
                     GRADER_ENOENT);
    assert_string_equal(err.file, path);
    assert_non_null(strstr(err.text, "no such rows file"));
    assert_non_null(strstr(err.text, "'Q9'"));
    grader_qset_free(qs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_append_and_resume),
        cmocka_unit_test(test_torn_only_line),
        cmocka_unit_test(test_bad_middle_row),
        cmocka_unit_test(test_missing_file),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
