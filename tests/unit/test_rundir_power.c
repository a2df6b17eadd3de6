/*
 * test_rundir_power.c - rows/<RUNG>.power (rundir/power.h): lines that
 * wait and go out in one append, no file without a reading, a resume
 * that appends and counts what is there against the cap, the cap itself,
 * and the reader (absent, whole, past its cap).
 *
 * Tests: rundir/power.c
 */
#include "helpers.h"

#include <errno.h>

#include "power.h"
#include "rundir.h"

static void file_text(const char *dir, char *buf, size_t size)
{
    char path[512];

    snprintf(path, sizeof(path), "%s/rows/R.power", dir);
    slurp(path, buf, size);
}

static void test_power_writer(void **state)
{
    struct power_file pf;
    char dir[64], rows[128], text[512], msg[512], *got;
    size_t len;

    (void)state;
    tmpdir_make(dir, sizeof(dir));
    snprintf(rows, sizeof(rows), "%s/rows", dir);
    assert_int_equal(mkdir(rows, 0755), 0);
    assert_int_equal(rundir_power_read(dir, "R", &got, &len, msg, sizeof(msg)),
                     1);
    /* a segment without a reading: no file */
    assert_int_equal(power_file_init(&pf, dir, "R"), 0);
    power_file_begin(&pf, 1733400000000LL);
    power_file_end(&pf, 1500);
    assert_int_equal(power_file_flush(&pf, 1, msg, sizeof(msg)), 0);
    assert_int_equal(rundir_power_read(dir, "R", &got, &len, msg, sizeof(msg)),
                     1);
    /* readings wait until flushed, then go out with their b line */
    power_file_begin(&pf, 1733400001000LL);
    power_file_reading(&pf, 0, 71.254);
    power_file_reading(&pf, 1001, 250);
    assert_false(power_file_due(&pf));
    assert_int_equal(rundir_power_read(dir, "R", &got, &len, msg, sizeof(msg)),
                     1);
    power_file_end(&pf, 1500);
    assert_int_equal(power_file_flush(&pf, 1, msg, sizeof(msg)), 0);
    file_text(dir, text, sizeof(text));
    assert_string_equal(text,
                        "b 1733400001000\n0 71.25\n1001 250.00\ne 1500\n");
    power_file_release(&pf);
    /* a resume appends, and an empty segment is kept once a file is */
    assert_int_equal(power_file_init(&pf, dir, "R"), 0);
    assert_int_equal(pf.size, strlen(text));
    power_file_begin(&pf, 1733400009000LL);
    power_file_end(&pf, 20);
    assert_int_equal(power_file_flush(&pf, 0, msg, sizeof(msg)), 0);
    file_text(dir, text, sizeof(text));
    assert_string_equal(text, "b 1733400001000\n0 71.25\n1001 250.00\ne 1500\n"
                              "b 1733400009000\ne 20\n");
    assert_int_equal(rundir_power_read(dir, "R", &got, &len, msg, sizeof(msg)),
                     0);
    assert_int_equal(len, strlen(text));
    assert_memory_equal(got, text, len);
    free(got);
    power_file_release(&pf);
    tmpdir_remove(dir);
}

/* Past the cap readings are dropped and said; the b and e lines go on. */
static void test_power_cap(void **state)
{
    struct power_file pf;
    char dir[64], rows[128], msg[512], *got;
    unsigned long long t = 0;
    size_t len, n = 0;

    (void)state;
    tmpdir_make(dir, sizeof(dir));
    snprintf(rows, sizeof(rows), "%s/rows", dir);
    assert_int_equal(mkdir(rows, 0755), 0);
    assert_int_equal(power_file_init(&pf, dir, "R"), 0);
    power_file_begin(&pf, 1);
    while (!pf.capped) {
        power_file_reading(&pf, t, 300.5);
        t += 1000;
        if (power_file_due(&pf)) {
            assert_int_equal(power_file_flush(&pf, 0, msg, sizeof(msg)), 0);
            n++;
        }
    }
    assert_true(n > 1000); /* batches of 60 */
    assert_true(pf.size <= RUNDIR_POWER_CAP);
    assert_true(pf.size > RUNDIR_POWER_CAP - 32);
    power_file_end(&pf, t);
    assert_int_equal(power_file_flush(&pf, 1, msg, sizeof(msg)), 0);
    assert_int_equal(rundir_power_read(dir, "R", &got, &len, msg, sizeof(msg)),
                     0);
    assert_int_equal(len, pf.size);
    {
        char end[48];
        int k = snprintf(end, sizeof(end), "\ne %llu\n", t);
        /* the readings stopped short of the cap; the e line is there */
        assert_true(len - (size_t)k + 1 <= RUNDIR_POWER_CAP);
        assert_memory_equal(got + len - (size_t)k, end, (size_t)k);
    }
    free(got);
    power_file_release(&pf);
    tmpdir_remove(dir);
}

/* A file past what the reader takes is refused, naming the file. */
static void test_power_read_cap(void **state)
{
    char dir[64], path[256], msg[512], *got;
    size_t len;
    FILE *f;

    (void)state;
    tmpdir_make(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/rows", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof(path), "%s/rows/R.power", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    for (size_t i = 0; i < (3u << 20) / 8; i++)
        fputs("1 2.00\n\n", f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(rundir_power_read(dir, "R", &got, &len, msg, sizeof(msg)),
                     -1);
    assert_int_equal(errno, EFBIG);
    assert_non_null(strstr(msg, "R.power"));
    assert_null(got);
    tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_power_writer),
        cmocka_unit_test(test_power_cap),
        cmocka_unit_test(test_power_read_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
