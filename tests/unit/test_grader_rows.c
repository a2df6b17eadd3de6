/*
 * test_grader_rows.c - the row reader: grading on read, bad input,
 * resumability.
 *
 * Tests: grader/rows.c
 * Tests: grader/qset.c
 */
#include "helpers.h"

#include "qset.h"
#include "rows.h"
#include "stats.h"

static const char good[] =
    /* 1: right */
    "{\"id\":\"q1\",\"reference\":\"13\",\"content\":\"Answer: 13\","
    "\"reasoning_content\":null,\"finish_reason\":\"stop\",\"truncated\":"
    "false,\"completion_tokens\":100,\"decode_tps\":40.5,\"error\":null,"
    "\"extracted\":13,\"right\":true}\n"
    /* 2: wrong, cut off by finish_reason alone */
    "{\"id\":\"q2\",\"reference\":\"2,350\",\"content\":\"Answer: 1,000\","
    "\"finish_reason\":\"length\",\"truncated\":false,"
    "\"completion_tokens\":1024,\"decode_tps\":41}\n"
    "\n"
    /* 4: an error row with a right-looking content is still wrong */
    "{\"id\":\"q3\",\"reference\":\"5\",\"content\":\"Answer: 5\","
    "\"error\":\"HTTP 500: model output does not match\"}\n"
    /* 5: empty content, the right answer in the thinking block, looping */
    "{\"id\":\"q4\",\"reference\":\"7\",\"content\":\"  \","
    "\"reasoning_content\":\"hm\\nhm\\nhm\\nhm\\nhm\\nAnswer: 7\","
    "\"truncated\":true,\"completion_tokens\":null,\"decode_tps\":null}\n"
    /* 6: the stored extracted/right are ignored: graded again */
    "{\"id\":\"q5\",\"reference\":8,\"content\":\"Answer: 9\","
    "\"extracted\":8,\"right\":true}";

static void check_good(struct grader_qset *qs, struct grader_rung *r)
{
    const struct grader_answer *a;

    assert_int_equal(r->n, 5);
    assert_int_equal(grader_qset_count(qs), 5);
    a = &r->answers[0];
    assert_int_equal(a->flags, GRADER_A_RIGHT | GRADER_A_SAID);
    assert_int_equal(a->line, 1);
    assert_int_equal(a->tokens, 100);
    assert_true(a->tps > 40.4f && a->tps < 40.6f);
    assert_string_equal(grader_rung_said(r, a), "13");
    a = &r->answers[1];
    assert_int_equal(a->flags, GRADER_A_SAID | GRADER_A_CUT_OFF);
    assert_string_equal(grader_rung_said(r, a), "1000");
    a = &r->answers[2];
    assert_int_equal(a->line, 4);
    assert_int_equal(a->flags, GRADER_A_SAID | GRADER_A_ERROR);
    assert_int_equal(a->tokens, -1);
    assert_true(a->tps < 0);
    a = &r->answers[3];
    assert_int_equal(a->flags, GRADER_A_CUT_OFF | GRADER_A_LOOPED |
                                   GRADER_A_THOUGHT | GRADER_A_EMPTY |
                                   GRADER_A_RIGHT_IN_REASONING);
    assert_null(grader_rung_said(r, a));
    a = &r->answers[4];
    assert_int_equal(a->flags, GRADER_A_SAID);
    assert_string_equal(grader_qset_reference(qs, a->q), "8");
    assert_string_equal(grader_qset_reference(qs, r->answers[1].q),
                        "2,350");
    assert_ptr_equal(grader_rung_find(r, r->answers[3].q), &r->answers[3]);
}

static void test_grades_on_read(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    struct text t = {0};
    struct grader_rung *r;

    (void)state;
    text_addf(&t, "%s", good);
    r = load_text(qs, test_dir, "A", &t, 0);
    check_good(qs, r);
    grader_rung_free(r);
    grader_qset_free(qs);
    free(t.p);
}

/* Feeding the bytes in any slices gives the same rung. */
static void test_byte_at_a_time(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *r = grader_rung_new("A", "mem");
    struct grader_reader rd;
    struct grader_error err;
    size_t i;

    (void)state;
    grader_reader_init(&rd, qs, r, 0);
    for (i = 0; i < sizeof(good) - 1; i++)
        assert_int_equal(grader_reader_feed(&rd, good + i, 1, &err), 0);
    assert_int_equal(grader_reader_finish(&rd, &err), 0);
    grader_reader_release(&rd);
    check_good(qs, r);
    grader_rung_free(r);
    grader_qset_free(qs);
}

/* Read text as a rows file and expect error code on line. */
static void expect_error(const char *text, int code, long line,
                         const char *words)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *r = (void *)1;
    struct grader_error err;
    char path[512];

    write_file(test_dir, "bad.jsonl", text, path, sizeof(path));
    assert_int_equal(test_rung_read(qs, "BAD", path, 0, &r, &err), code);
    assert_null(r);
    assert_string_equal(err.file, path);
    assert_int_equal(err.line, line);
    if (strstr(err.text, words) == NULL)
        fail_msg("error '%s' does not say '%s'", err.text, words);
    grader_qset_free(qs);
}

static void test_bad_input(void **state)
{
    (void)state;
    expect_error("{\"id\":\"a\",\"reference\":\"1\"}\n{\"id\":\n",
                 GRADER_EPARSE, 2, "malformed JSON");
    expect_error("{\"reference\":\"1\"}\n", GRADER_EPARSE, 1, "no \"id\"");
    expect_error("{\"id\":7,\"reference\":\"1\"}\n", GRADER_EPARSE, 1,
                 "\"id\" must be");
    expect_error("{\"id\":\"a\"}\n", GRADER_EPARSE, 1, "no \"reference\"");
    expect_error("{\"id\":\"a\",\"reference\":\"many\"}\n", GRADER_EPARSE, 1,
                 "not a number");
    expect_error("[1,2]\n", GRADER_EPARSE, 1, "not a JSON object");
    expect_error("{\"id\":\"a\",\"reference\":\"1\",\"content\":5}\n",
                 GRADER_EPARSE, 1, "\"content\"");
    expect_error("{\"id\":\"a\",\"reference\":\"1\",\"truncated\":1}\n",
                 GRADER_EPARSE, 1, "\"truncated\"");
    expect_error("{\"id\":\"a\",\"reference\":\"1\",\"completion_tokens\":"
                 "-1}\n", GRADER_EPARSE, 1, "\"completion_tokens\"");
    expect_error("{\"id\":\"a\",\"reference\":\"1\",\"id\":\"b\"}\n",
                 GRADER_EPARSE, 1, "duplicate");
    expect_error("{\"id\":\"a\",\"reference\":\"1\"}\n\n"
                 "{\"id\":\"a\",\"reference\":\"1\"}\n",
                 GRADER_EDUPID, 3, "first on line 1");
    expect_error("{\"id\":\"a\",\"reference\":\"1\"}\n{\"id\":\"b\",\"ref",
                 GRADER_EPARSE, 2, "torn last line");
}

static void test_row_cap(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *r = grader_rung_new("A", "mem");
    struct grader_reader rd;
    struct grader_error err;
    static char chunk[1 << 20];

    (void)state;
    memset(chunk, 'x', sizeof(chunk));
    grader_reader_init(&rd, qs, r, 0);
    /* 9 MiB without a newline: the reader refuses past the cap */
    int rc = 0, i;
    for (i = 0; i < 9 && rc == 0; i++)
        rc = grader_reader_feed(&rd, chunk, sizeof(chunk), &err);
    assert_int_equal(rc, GRADER_ETOOBIG);
    assert_int_equal(err.line, 1);
    assert_true(rd.carry_cap <= GRADER_ROW_MAX);
    grader_reader_release(&rd);
    grader_rung_free(r);
    grader_qset_free(qs);
}

static void test_reference_mismatch(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *a, *b = NULL;
    struct grader_error err;
    struct text t = {0};
    char path[512];

    (void)state;
    add_row(&t, "test-687", "13", "13");
    a = load_text(qs, test_dir, "BF16", &t, 0);
    /* the same reference written another way is the same question */
    write_file(test_dir, "F16.jsonl",
               "{\"id\":\"test-687\",\"reference\":\"13.0\"}\n"
               "{\"id\":\"test-9\",\"reference\":\"1\"}\n"
               "{\"id\":\"test-687\",\"reference\":\"13\"}\n",
               path, sizeof(path));
    assert_int_equal(test_rung_read(qs, "F16", path, 0, &b, &err),
                     GRADER_EDUPID);
    assert_int_equal(err.line, 3);
    write_file(test_dir, "F16.jsonl",
               "{\"id\":\"test-9\",\"reference\":\"1\"}\n"
               "{\"id\":\"test-687\",\"reference\":\"14\"}\n",
               path, sizeof(path));
    assert_int_equal(test_rung_read(qs, "F16", path, 0, &b, &err),
                     GRADER_EREFMISMATCH);
    assert_int_equal(err.line, 2);
    assert_non_null(strstr(err.text, "BF16.jsonl"));
    grader_rung_free(a);
    grader_qset_free(qs);
    free(t.p);
}

/* A decode speed past GRADER_TPS_MAX (a server once reported 1e40
 * tokens/s) is no measurement: read as unknown, as null is, so the rung
 * is still summed, buried and reported (it overflowed the answer's float
 * to inf, and no JSON holds inf). A speed at the cap is kept. */
static void test_absurd_speed(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_summary sum;
    struct text t = {0};
    struct grader_rung *r;

    (void)state;
    text_addf(&t, "{\"id\":\"a\",\"reference\":\"1\",\"content\":"
                  "\"Answer: 1\",\"decode_tps\":1e300}\n"
                  "{\"id\":\"b\",\"reference\":\"1\",\"content\":"
                  "\"Answer: 1\",\"decode_tps\":1e40}\n"
                  "{\"id\":\"c\",\"reference\":\"1\",\"content\":"
                  "\"Answer: 1\",\"decode_tps\":1000000000}\n"
                  "{\"id\":\"d\",\"reference\":\"1\",\"content\":"
                  "\"Answer: 1\",\"decode_tps\":1000000000.5}\n");
    r = load_text(qs, test_dir, "A", &t, 0);
    assert_int_equal(r->n, 4);
    assert_true(r->answers[0].tps < 0);
    assert_true(r->answers[1].tps < 0);
    assert_true(r->answers[2].tps == 1e9f);
    assert_true(r->answers[3].tps < 0);
    assert_int_equal(grader_summarize(r, &sum), 0);
    assert_int_equal(sum.right, 4);
    assert_true(sum.median_tps == 1e9);
    grader_rung_free(r);
    grader_qset_free(qs);
    free(t.p);
}

/* A user's rule that backtracks past its step budget on one reply (all
 * the rung's answers in) grades that reply by the rule's fallback and
 * counts it; the rung reads, sums and reports. It was an error ("took too
 * long") on every read, so the rung could never be finished. */
static void test_step_limit(void **state)
{
    struct grader_task *t = grader_task_new("bt", GRADER_REF_NUMBER);
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *r = grader_rung_new("A", "mem");
    struct grader_summary sum;
    struct grader_reader rd;
    struct grader_error err;
    struct text x = {0};
    char msg[256];

    (void)state;
    assert_non_null(t);
    assert_int_equal(grader_task_add_regex(t, "tail", "(a+)+$|(\\d+)$", 0,
                                           "[invalid]", NULL, 0, 0, msg,
                                           sizeof(msg)),
                     0);
    text_addf(&x,
              "{\"id\":\"q1\",\"reference\":\"7\",\"content\":"
              "\"%s\"}\n",
              "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab");
    text_addf(&x, "{\"id\":\"q2\",\"reference\":\"7\",\"content\":"
                  "\"so 7\"}\n");
    /* empty content: the rule runs on the thinking block, past its
     * budget there too: not right there, and not counted */
    text_addf(&x,
              "{\"id\":\"q3\",\"reference\":\"7\",\"content\":\"\","
              "\"reasoning_content\":\"%s\"}\n",
              "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab");
    grader_reader_init(&rd, qs, r, 0);
    grader_reader_set_rule(&rd, t, 0);
    assert_int_equal(grader_reader_feed(&rd, x.p, x.len, &err), 0);
    assert_int_equal(grader_reader_finish(&rd, &err), 0);
    grader_reader_release(&rd);
    assert_int_equal(r->n, 3);
    assert_int_equal(r->answers[0].flags, GRADER_A_STEP_LIMIT);
    assert_null(grader_rung_said(r, &r->answers[0]));
    assert_int_equal(r->answers[1].flags, GRADER_A_SAID | GRADER_A_RIGHT);
    assert_int_equal(r->answers[2].flags, GRADER_A_EMPTY | GRADER_A_THOUGHT);
    assert_int_equal(grader_summarize(r, &sum), 0);
    assert_int_equal(sum.right, 1);
    assert_int_equal(sum.step_limit, 1);
    grader_rung_free(r);
    grader_qset_free(qs);
    grader_task_free(t);
    free(x.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grades_on_read),
        cmocka_unit_test(test_byte_at_a_time),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_row_cap),
        cmocka_unit_test(test_reference_mismatch),
        cmocka_unit_test(test_absurd_speed),
        cmocka_unit_test(test_step_limit),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
