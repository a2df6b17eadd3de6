/*
 * test_rundir_store.c - rows appended and synced; a torn last line cut back
 * on open (rundir/store.h); answered ids read back and a bad middle row
 * refused (orchestrator/rows/rowsfile.h); the probs file's records
 * appended, and its resume: a torn tail and trailing records without a row
 * cut, the rest refused (rundir/probsfile.h).
 *
 * Tests: rundir/store.c
 * Tests: rundir/probsfile.c
 * Tests: orchestrator/rows/rowsfile.c
 */
#include "helpers.h"

#include <fcntl.h>

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../grader/probs.h"
#include "../../orchestrator/rows/rowsfile.h"
#include "probsfile.h"
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
    char msg[512], text[1024], run[128], path[256];
    struct grader_qset *ids;

    (void)state;
    snprintf(run, sizeof(run), "%s/run", test_dir);
    assert_int_equal(store_open(&s, run, "Q4_0", msg, sizeof(msg)), 0);
    snprintf(path, sizeof(path), "%s", s.path.p); /* released by close */
    assert_int_equal(answered(s.path.p, "Q4_0", &ids), 0);
    grader_qset_free(ids);
    assert_int_equal(store_append(&s, row_a, strlen(row_a), msg, sizeof(msg)),
                     0);
    assert_int_equal(store_append(&s, row_b, strlen(row_b), msg, sizeof(msg)),
                     0);
    assert_int_equal(s.written, strlen(row_a) + strlen(row_b) + 2);
    store_close(&s);
    slurp(path, text, sizeof(text));
    assert_int_equal(strlen(text), strlen(row_a) + strlen(row_b) + 2);
    /* the machine stopped in the middle of the third row */
    add_raw(path, "{\"id\":\"c\",\"refer");
    assert_int_equal(store_open(&s, run, "Q4_0", msg, sizeof(msg)), 0);
    assert_int_equal(s.cut, strlen("{\"id\":\"c\",\"refer"));
    assert_int_equal(answered(s.path.p, "Q4_0", &ids), 2);
    assert_true(has(ids, "a"));
    assert_true(has(ids, "b"));
    assert_false(has(ids, "c"));
    grader_qset_free(ids);
    assert_int_equal(store_append(&s, "{\"id\":\"c\",\"reference\":\"3\"}", 26,
                                  msg, sizeof(msg)),
                     0);
    store_close(&s);
    assert_int_equal(store_open(&s, run, "Q4_0", msg, sizeof(msg)), 0);
    assert_int_equal(answered(s.path.p, "Q4_0", &ids), 3);
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
    char msg[512], run[128], path[4096];

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
        assert_int_equal(rowsfile_answered(s.path.p, "Q8_0", NULL, &ids, &rows,
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

/* ---- the probs file (rundir/probsfile.h) ---- */

static unsigned probs_n = 2; /* the records' N */

/* An answer of ntok tokens for question id, encoded by the codec. */
static size_t probs_record(const char *id, size_t ntok, unsigned char *out,
                           size_t size)
{
    struct grader_probs_entry chosen[8], top[16];
    struct grader_probs_answer a;

    assert_true(ntok <= 8);
    for (size_t i = 0; i < ntok; i++) {
        chosen[i] =
            (struct grader_probs_entry){(uint32_t)(10 + i), -0.1f, 1, "a"};
        top[2 * i] = chosen[i];
        top[2 * i + 1] =
            (struct grader_probs_entry){(uint32_t)(90 + i), -2.5f, 2, "bc"};
    }
    memset(&a, 0, sizeof(a));
    a.id = id;
    a.id_len = strlen(id);
    a.topn = probs_n;
    a.ntok = ntok;
    a.chosen = chosen;
    a.top = top;
    size = grader_probs_encode(&a, out, size);
    assert_true(size > 0);
    return size;
}

/* whole: the codec's decode, as the runner asks it */
static int whole(const unsigned char *rec, size_t len)
{
    struct grader_probs_answer a;
    struct grader_error err;

    if (grader_probs_decode(rec, len, &a, &err) != 0)
        return 0;
    grader_probs_answer_free(&a);
    return 1;
}

/* has_row over a NULL-terminated list of ids */
static int in_list(void *ctx, const char *id, size_t len)
{
    for (const char *const *p = ctx; *p; p++)
        if (strlen(*p) == len && memcmp(*p, id, len) == 0)
            return 1;
    return 0;
}

static long long file_size(const char *path)
{
    struct stat st;

    assert_int_equal(stat(path, &st), 0);
    return (long long)st.st_size;
}

/* Records a, b, c appended; the next open keeps the three when the rows
 * answer them, and cuts c when its row was never written (the kill
 * between the two writes): nothing repeated, nothing lost. */
static void test_probs_append_and_resume(void **state)
{
    static const char *abc[] = {"a", "b", "c", NULL}, *ab[] = {"a", "b", NULL};
    unsigned char rec[1024];
    struct probsfile p;
    char msg[512], run[128];
    long long two = 0;
    size_t n, size;

    (void)state;
    snprintf(run, sizeof(run), "%s/prun", test_dir);
    assert_int_equal(
        probsfile_open(&p, run, "Q4_0", in_list, abc, whole, msg, sizeof(msg)),
        0);
    assert_int_equal(p.records, 0);
    for (size_t i = 0; i < 3; i++) {
        n = probs_record(abc[i], i + 1, rec, sizeof(rec));
        /* the framing probsfile reads is the codec's */
        assert_int_equal(grader_probs_record_size(rec, n, &size), 0);
        assert_int_equal(size, n);
        assert_int_equal(probsfile_append(&p, rec, n, msg, sizeof(msg)), 0);
        if (i == 1)
            two = file_size(p.path.p);
    }
    assert_int_equal(p.records, 3);
    probsfile_close(&p);
    assert_int_equal(
        probsfile_open(&p, run, "Q4_0", in_list, abc, whole, msg, sizeof(msg)),
        0);
    assert_int_equal(p.records, 3);
    assert_int_equal(p.cut_torn + p.cut_rowless, 0);
    probsfile_close(&p);
    assert_int_equal(
        probsfile_open(&p, run, "Q4_0", in_list, ab, whole, msg, sizeof(msg)),
        0);
    assert_int_equal(p.records, 2);
    assert_int_equal(p.cut_rowless, 1);
    assert_int_equal(p.cut_torn, 0);
    assert_int_equal(file_size(p.path.p), two);
    /* c asked again: once in the file */
    n = probs_record("c", 3, rec, sizeof(rec));
    assert_int_equal(probsfile_append(&p, rec, n, msg, sizeof(msg)), 0);
    probsfile_close(&p);
    assert_int_equal(
        probsfile_open(&p, run, "Q4_0", in_list, abc, whole, msg, sizeof(msg)),
        0);
    assert_int_equal(p.records, 3);
    probsfile_close(&p);
}

/* A torn last record, whatever tore it (a short head, a short body, a
 * last record of full length whose check fails), is cut back to the
 * record before; a rowless record before it goes too. */
static void test_probs_torn(void **state)
{
    static const char *ab[] = {"a", "b", NULL}, *a_only[] = {"a", NULL};
    unsigned char rec[1024], c[1024];
    struct probsfile p;
    char msg[512], run[128], path[4096];
    size_t na, nb, nc, cut;
    FILE *f;

    (void)state;
    snprintf(run, sizeof(run), "%s/ptorn", test_dir);
    na = probs_record("a", 2, rec, sizeof(rec));
    nc = probs_record("c", 4, c, sizeof(c));
    for (int how = 0; how < 4; how++) {
        assert_int_equal(
            probsfile_open(&p, run, "T", in_list, ab, whole, msg, sizeof(msg)),
            0);
        assert_int_equal(ftruncate(p.fd, 0), 0);
        assert_int_equal(probsfile_append(&p, rec, na, msg, sizeof(msg)), 0);
        nb = probs_record("b", 1, rec + na, sizeof(rec) - na);
        assert_int_equal(probsfile_append(&p, rec + na, nb, msg, sizeof(msg)),
                         0);
        snprintf(path, sizeof(path), "%s", p.path.p);
        probsfile_close(&p);
        f = fopen(path, "ab");
        assert_non_null(f);
        if (how == 0) /* a short head */
            cut = fwrite(c, 1, 5, f);
        else if (how == 1) /* a short body */
            cut = fwrite(c, 1, nc - 3, f);
        else { /* the whole length, one byte of it not what was written */
            c[nc - 12] ^= 0x5a;
            cut = fwrite(c, 1, nc, f);
            c[nc - 12] ^= 0x5a;
        }
        fclose(f);
        assert_int_equal(probsfile_open(&p, run, "T", in_list,
                                        how == 3 ? a_only : ab, whole, msg,
                                        sizeof(msg)),
                         0);
        assert_int_equal(p.cut_torn, cut);
        assert_int_equal(p.cut_rowless, how == 3 ? 1 : 0);
        assert_int_equal(p.records, how == 3 ? 1 : 2);
        assert_int_equal(file_size(path),
                         (long long)(how == 3 ? na : na + nb));
        probsfile_close(&p);
    }
}

/* What graveyard never leaves is refused, naming the file, and left as it
 * was: a record mid-file without a row, a question twice, a record that
 * is not one. */
static void test_probs_refused(void **state)
{
    static const char *ac[] = {"a", "c", NULL}, *abc[] = {"a", "b", "c", NULL};
    unsigned char rec[1024];
    struct probsfile p;
    char msg[512], run[128], path[4096];
    long long before;
    size_t n;

    (void)state;
    snprintf(run, sizeof(run), "%s/pref", test_dir);
    assert_int_equal(
        probsfile_open(&p, run, "R", in_list, abc, whole, msg, sizeof(msg)),
        0);
    for (size_t i = 0; i < 3; i++) {
        n = probs_record(abc[i], 1, rec, sizeof(rec));
        assert_int_equal(probsfile_append(&p, rec, n, msg, sizeof(msg)), 0);
    }
    snprintf(path, sizeof(path), "%s", p.path.p);
    probsfile_close(&p);
    before = file_size(path);
    assert_int_equal(
        probsfile_open(&p, run, "R", in_list, ac, whole, msg, sizeof(msg)),
        -1);
    assert_int_equal(p.err, EINVAL);
    assert_non_null(strstr(msg, path));
    assert_non_null(strstr(msg, "question 'b'"));
    assert_non_null(strstr(msg, "has no row"));
    assert_int_equal(file_size(path), before);
    /* a twice */
    n = probs_record("a", 2, rec, sizeof(rec));
    add_raw(path, "");
    {
        FILE *f = fopen(path, "ab");
        assert_non_null(f);
        assert_int_equal(fwrite(rec, 1, n, f), n);
        fclose(f);
    }
    assert_int_equal(
        probsfile_open(&p, run, "R", in_list, abc, whole, msg, sizeof(msg)),
        -1);
    assert_non_null(strstr(msg, "question 'a' has two records"));
    /* not a record */
    add_raw(path, "{\"id\": \"a\"}\n");
    assert_int_equal(
        probsfile_open(&p, run, "R", in_list, abc, whole, msg, sizeof(msg)),
        -1);
    assert_non_null(strstr(msg, "no probs record at byte"));
    assert_int_equal(p.fd, -1);
    /* records of two Ns (a changed logprobs under --force) */
    snprintf(run, sizeof(run), "%s/pmix", test_dir);
    assert_int_equal(
        probsfile_open(&p, run, "R", in_list, abc, whole, msg, sizeof(msg)),
        0);
    n = probs_record("a", 1, rec, sizeof(rec));
    assert_int_equal(probsfile_append(&p, rec, n, msg, sizeof(msg)), 0);
    probsfile_close(&p);
    assert_int_equal(
        probsfile_open(&p, run, "R", in_list, abc, whole, msg, sizeof(msg)),
        0);
    assert_int_equal(p.topn, 2);
    probs_n = 1;
    n = probs_record("b", 1, rec, sizeof(rec));
    probs_n = 2;
    assert_int_equal(probsfile_append(&p, rec, n, msg, sizeof(msg)), 0);
    probsfile_close(&p);
    assert_int_equal(
        probsfile_open(&p, run, "R", in_list, abc, whole, msg, sizeof(msg)),
        -1);
    assert_non_null(strstr(msg, "has another N than the records before it"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_append_and_resume),
        cmocka_unit_test(test_torn_only_line),
        cmocka_unit_test(test_bad_middle_row),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_probs_append_and_resume),
        cmocka_unit_test(test_probs_torn),
        cmocka_unit_test(test_probs_refused),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
