/*
 * test_rundir_probsread.c - a probs file's index of record heads and one
 * record read at a time (rundir/probsread.h): records found by id and
 * read back byte for byte; a torn last record (short head, short body), a
 * second record of one id, and bytes that are no record refused with one
 * line naming the file; an absent file is no error.
 *
 * Tests: rundir/probsread.c
 */
#include "helpers.h"

#include <errno.h>

#include "probsread.h" /* rundir/ */

/* A record as probs.h lays it out: head, id, topn 1, no flags, no
 * tokens, a check of 8 bytes (not verified here: the decoder does). */
static size_t record(unsigned char *out, const char *id, unsigned char fill)
{
    size_t idl = strlen(id), body = 1 + idl + 1 + 1 + 4 + 8, at = 0;

    memcpy(out, "GYP1", 4);
    out[4] = (unsigned char)body;
    out[5] = out[6] = out[7] = 0;
    at = 8;
    out[at++] = (unsigned char)idl;
    memcpy(out + at, id, idl);
    at += idl;
    out[at++] = 1;
    out[at++] = 0;
    memset(out + at, 0, 4);
    at += 4;
    memset(out + at, fill, 8);
    return at + 8;
}

static void put(const char *name, const unsigned char *p, size_t n, char *path,
                size_t size)
{
    FILE *f;

    snprintf(path, size, "%s/rows/%s.probs", test_dir, name);
    assert_non_null(f = fopen(path, "wb"));
    assert_int_equal(fwrite(p, 1, n, f), n);
    fclose(f);
}

static void test_index_and_load(void **state)
{
    unsigned char file[512], *buf = NULL;
    size_t n = 0, cap = 0, at[3];
    struct probsread r;
    const struct probsread_rec *rec;
    char path[256], msg[512];
    const char *ids[3] = {"q2", "q10", "q1"};

    (void)state;
    for (int i = 0; i < 3; i++) {
        at[i] = n;
        n += record(file + n, ids[i], (unsigned char)(0xA0 + i));
    }
    put("Q4_0", file, n, path, sizeof(path));
    assert_int_equal(probsread_open(&r, test_dir, "Q4_0", msg, sizeof(msg)),
                     0);
    assert_int_equal(r.n, 3);
    for (int i = 0; i < 3; i++) {
        rec = probsread_find(&r, ids[i], strlen(ids[i]));
        assert_non_null(rec);
        assert_int_equal(rec->off, at[i]);
        assert_int_equal(probsread_load(&r, rec, &buf, &cap, msg, sizeof(msg)),
                         0);
        assert_memory_equal(buf, file + at[i], rec->len);
    }
    assert_null(probsread_find(&r, "q3", 2));
    assert_null(probsread_find(&r, "q", 1));
    probsread_close(&r);
    free(buf);
    /* a rung run without logprobs has no file: 1, no message needed */
    assert_int_equal(probsread_open(&r, test_dir, "Q8_0", msg, sizeof(msg)),
                     1);
    probsread_close(&r);
}

static void refused(const unsigned char *p, size_t n, const char *want)
{
    struct probsread r;
    char path[256], msg[512];

    put("BAD", p, n, path, sizeof(path));
    assert_int_equal(probsread_open(&r, test_dir, "BAD", msg, sizeof(msg)),
                     -1);
    if (strstr(msg, path) == NULL || strstr(msg, want) == NULL)
        fail_msg("'%s' lacks '%s' or '%s'", msg, path, want);
    assert_null(strchr(msg, '\n'));
    probsread_close(&r);
}

static void test_refusals(void **state)
{
    unsigned char file[512];
    size_t n, one;

    (void)state;
    one = record(file, "q1", 1);
    n = one + record(file + one, "q2", 2);
    /* a head cut short, and a body cut short */
    refused(file, one + 5, "torn last record at byte 25");
    refused(file, n - 1, "torn last record at byte 25");
    /* one id twice */
    n = one + record(file + one, "q1", 3);
    refused(file, n, "question 'q1' has two records (bytes 0 and 25)");
    /* not a record */
    memcpy(file + one, "GYP2", 4);
    refused(file, n, "no probs record at byte 25");
    /* a head at the file's end whose length is past the caps: no write
     * of graveyard's leaves one, so it is damage, as graveyard run says
     * (probsread_place, the one rule), never "run cuts it back" */
    memcpy(file + one, "GYP1\xff\xff\xff\xff", 8);
    refused(file, one + 8, "at byte 25 has a length past the caps (damaged");
    memcpy(file + one, "GYP1\x01\x00\x00\x00", 8);
    refused(file, one + 8, "at byte 25 has a length past the caps (damaged");
}

static int setup(void **state)
{
    char rows[128];

    tmpdir_setup(state);
    snprintf(rows, sizeof(rows), "%s/rows", test_dir);
    return mkdir(rows, 0755);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_and_load),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, setup, tmpdir_teardown);
}
