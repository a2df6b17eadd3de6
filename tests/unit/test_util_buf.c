/*
 * test_util_buf.c - the capped buffer refuses what would pass its cap
 * and keeps what it had; the progress line is read back as written, in
 * any slices, and a line too long or not a progress line is skipped whole;
 * nvidia-smi's power draw read (summed over GPUs, "[N/A]" no reading).
 *
 * Tests: util/util.c
 * Tests: orchestrator/base/cli.c
 * Tests: orchestrator/night/progress.c
 * Tests: orchestrator/night/gpu.c
 */
#include "helpers.h"

#include "../../orchestrator/base/cli.h"
#include "../../orchestrator/night/gpu.h"
#include "../../orchestrator/night/progress.h"
#include "../../util/util.h"

static void test_buf_cap(void **state)
{
    struct buf b;

    (void)state;
    buf_init(&b, 8);
    assert_int_equal(buf_add(&b, "abcde", 5), 0);
    assert_int_equal(buf_add(&b, "xyzw", 4), -1); /* 9 > 8: nothing added */
    assert_int_equal(b.len, 5);
    assert_string_equal(b.p, "abcde");
    assert_int_equal(buf_add(&b, "xyz", 3), 0); /* exactly 8 */
    assert_string_equal(b.p, "abcdexyz");
    assert_int_equal(buf_add(&b, "", 0), 0);
    assert_int_equal(buf_add(&b, "!", 1), -1);
    buf_release(&b);
    assert_int_equal(b.max, 8); /* the cap survives a release */
    assert_int_equal(buf_add(&b, "12345678", 8), 0);
    buf_release(&b);
    /* zero-initialised: the default cap, not none */
    {
        struct buf z = {0};
        assert_int_equal(buf_add(&z, "a", 1), 0);
        assert_int_equal(buf_add(&z, "a", (size_t)BUF_MAX_DEFAULT), -1);
        buf_release(&z);
    }
}

/* A path is formatted whole up to BUF_PATH_MAX bytes and refused past it,
 * never cut: a cut path names another file. */
static void test_buf_path(void **state)
{
    struct buf b = {0};
    char *big = xrealloc(NULL, BUF_PATH_MAX + 2);

    (void)state;
    assert_int_equal(buf_path(&b, "%s/%s", "run", "rows.jsonl"), 0);
    assert_string_equal(b.p, "run/rows.jsonl");
    assert_int_equal(b.max, BUF_PATH_MAX);
    memset(big, 'a', BUF_PATH_MAX + 1);
    big[BUF_PATH_MAX - 2] = '\0'; /* with "/x": exactly the cap */
    assert_int_equal(buf_path(&b, "%s/x", big), 0);
    assert_int_equal(b.len, BUF_PATH_MAX);
    big[BUF_PATH_MAX - 2] = 'a';
    big[BUF_PATH_MAX - 1] = '\0'; /* one past */
    assert_int_equal(buf_path(&b, "%s/x", big), -1);
    assert_string_equal(b.p, "");
    assert_int_equal(b.len, 0);
    free(big);
    buf_release(&b);
}

static void test_progress(void **state)
{
    struct progress w = {12, 250, 11, 41.3, 9.25}, r = {0, 0, 0, 0, 0};
    struct progress_reader rd;
    char line[PROGRESS_LINE], junk[600];
    size_t n, i;

    (void)state;
    n = progress_format(&w, line, sizeof(line));
    assert_int_equal(line[n - 1], '\n');
    memset(&rd, 0, sizeof(rd));
    for (i = 0; i < n; i++) /* a byte at a time */
        assert_int_equal(progress_take(&rd, line + i, 1, &r),
                         i + 1 == n ? 1 : 0);
    assert_int_equal(r.done, 12);
    assert_int_equal(r.total, 250);
    assert_int_equal(r.right, 11);
    assert_true(r.tps == 41.3);
    assert_true(r.sec_per_q == 9.25);
    /* garbage, and a line longer than the reader holds that starts like a
     * progress line: both skipped whole, the last good value kept */
    assert_int_equal(progress_take(&rd, "not progress\n", 13, &r), 0);
    memset(junk, ' ', sizeof(junk));
    memcpy(junk,
           "{\"done\": 99, \"total\": 99, \"right\": 99, \"tps\": 1.0, "
           "\"sec_per_q\": 1.0}",
           69);
    junk[sizeof(junk) - 1] = '\n';
    assert_int_equal(progress_take(&rd, junk, sizeof(junk), &r), 0);
    assert_int_equal(r.done, 12);
    /* and the next good line is read */
    w.done = 13;
    n = progress_format(&w, line, sizeof(line));
    assert_int_equal(progress_take(&rd, line, n, &r), 1);
    assert_int_equal(r.done, 13);
}

static void test_power_draw(void **state)
{
    const char *argv[6];
    double w;

    (void)state;
    gpu_power_argv("1", argv);
    assert_string_equal(argv[1], "--query-gpu=power.draw");
    assert_string_equal(argv[4], "1");
    assert_null(argv[5]);
    gpu_power_argv(NULL, argv);
    assert_null(argv[3]);
    assert_int_equal(gpu_power_parse("71.25\n", &w), 0);
    assert_true(w == 71.25);
    /* two GPUs of one rung: summed */
    assert_int_equal(gpu_power_parse("60.00\r\n250.5 \n", &w), 0);
    assert_true(w == 310.5);
    assert_int_equal(gpu_power_parse("[N/A]\n", &w), -1);
    assert_true(w == -1);
    assert_int_equal(gpu_power_parse("60.00\n[Not Supported]\n", &w), -1);
    assert_int_equal(gpu_power_parse("", &w), -1);
    assert_int_equal(gpu_power_parse("60 W\n", &w), -1);
    assert_int_equal(gpu_power_parse("1e300\n", &w), -1);
}

/* The one number reader (cli.h): decimal digits only; "0x10" was read
 * as 16 by --margin's strtod, " 2" was taken and "2 " refused (issue 33). */
static void test_cli_numbers(void **state)
{
    static const char *const bad[] = {"0x10",  " 2",  "2 ",  "+2", "1e1",
                                      "",      "inf", "nan", "2.", ".5",
                                      "1.2.3", "-",   "- 1", NULL};
    long v = 7;
    double d = 7;

    (void)state;
    for (size_t i = 0; bad[i]; i++) {
        assert_int_equal(cli_whole(bad[i], -10, 100, &v), -1);
        assert_int_equal(cli_decimal(bad[i], &d), -1);
    }
    assert_int_equal(v, 7);
    assert_true(d == 7);
    assert_int_equal(cli_whole("42", 1, 100, &v), 0);
    assert_int_equal(v, 42);
    assert_int_equal(cli_whole("-1", -1, 4, &v), 0);
    assert_int_equal(v, -1);
    assert_int_equal(cli_whole("-1", 0, 4, &v), -1); /* no '-' at min 0 */
    assert_int_equal(cli_whole("101", 1, 100, &v), -1);
    assert_int_equal(cli_whole("99999999999999999999", 1, 100, &v), -1);
    assert_int_equal(cli_whole("1.5", 1, 100, &v), -1);
    assert_int_equal(cli_decimal("99.99999", &d), 0);
    assert_true(d == 99.99999);
    assert_int_equal(cli_decimal("2", &d), 0);
    assert_true(d == 2.0);
    assert_int_equal(cli_decimal("-2", &d), -1);
    assert_int_equal(cli_whole(NULL, 0, 1, &v), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buf_cap),    cmocka_unit_test(test_cli_numbers),
        cmocka_unit_test(test_buf_path),   cmocka_unit_test(test_progress),
        cmocka_unit_test(test_power_draw),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
