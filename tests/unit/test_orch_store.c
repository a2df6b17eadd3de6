/*
 * test_orch_store.c - rows appended and synced; a torn last line cut back
 * on open; answered ids read back; a bad middle row refused.
 */
#include "helpers.h"

#include <fcntl.h>

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

static void test_append_and_resume(void **state)
{
    struct store s;
    char msg[512], text[1024], run[128];

    (void)state;
    snprintf(run, sizeof(run), "%s/run", test_dir);
    assert_int_equal(store_open(&s, run, "Q4_0", msg, sizeof(msg)), 0);
    assert_int_equal(s.rows, 0);
    assert_int_equal(store_append(&s, row_a, strlen(row_a), msg,
                                  sizeof(msg)),
                     0);
    assert_int_equal(store_append(&s, row_b, strlen(row_b), msg,
                                  sizeof(msg)),
                     0);
    assert_int_equal(s.written, strlen(row_a) + strlen(row_b) + 2);
    store_close(&s);
    slurp(s.path, text, sizeof(text));
    assert_int_equal(strlen(text), strlen(row_a) + strlen(row_b) + 2);
    /* the machine stopped in the middle of the third row */
    add_raw(s.path, "{\"id\":\"c\",\"refer");
    assert_int_equal(store_open(&s, run, "Q4_0", msg, sizeof(msg)), 0);
    assert_int_equal(s.cut, strlen("{\"id\":\"c\",\"refer"));
    assert_int_equal(s.rows, 2);
    assert_true(store_has(&s, "a"));
    assert_true(store_has(&s, "b"));
    assert_false(store_has(&s, "c"));
    assert_int_equal(store_append(&s, "{\"id\":\"c\",\"reference\":\"3\"}",
                                  26, msg, sizeof(msg)),
                     0);
    store_close(&s);
    assert_int_equal(store_open(&s, run, "Q4_0", msg, sizeof(msg)), 0);
    assert_int_equal(s.rows, 3);
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
    assert_int_equal(s.rows, 0);
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
    assert_int_equal(store_open(&s, run, "Q8_0", msg, sizeof(msg)), -1);
    if (strstr(msg, "Q8_0.jsonl:2:") == NULL)
        fail_msg("message '%s' does not name line 2", msg);
    store_close(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_append_and_resume),
        cmocka_unit_test(test_torn_only_line),
        cmocka_unit_test(test_bad_middle_row),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
