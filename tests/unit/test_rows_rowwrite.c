/*
 * test_rows_rowwrite.c - the one writer of rows (orchestrator/rows/rowwrite.h):
 * a run's row and an import's row byte for byte as docs/rows.md shows
 * them, and the budget on both: a reply over REPLY_ROW_CAP escaped, and a
 * row that would still pass the reader's cap, become the error row
 * "too_long", which the reader takes.
 *
 * Tests: orchestrator/rows/rowwrite.c
 */
#include "helpers.h"

#include "../../orchestrator/server/reply.h"
#include "../../orchestrator/rows/rowsfile.h"
#include "../../orchestrator/rows/rowwrite.h"
#include "store.h"
#include "../../orchestrator/input/taskfile.h"

static struct grader_task *task(const char *name)
{
    char msg[512];
    struct grader_task *t = taskfile_load(name, msg, sizeof(msg));

    if (t == NULL)
        fail_msg("%s", msg);
    return t;
}

/* A run's answer: its measurements after "right", no grades for the
 * study's task, reals at 10 digits. */
static void test_run_row(void **state)
{
    struct grader_task *t = task("answer-line");
    struct row w;
    int right = -1;
    char *text;

    (void)state;
    row_init(&w);
    w.id = "q01";
    w.rung = "Q4_0";
    w.reference = "9";
    w.content = "Sum.\nAnswer: 9";
    w.content_len = strlen(w.content);
    w.finish = "stop";
    w.tokens = 11;
    w.tps = 93.6;
    w.measured = 1;
    w.prompt_tokens = 41;
    w.prompt_ms = 92.5;
    w.predicted_ms = 117.52136752136752;
    w.http_status = 200;
    w.attempts = 1;
    w.latency_ms = 18;
    text = row_text(&w, t, &right);
    assert_string_equal(
        text, "{\"id\":\"q01\",\"rung\":\"Q4_0\",\"reference\":\"9\","
              "\"content\":\"Sum.\\nAnswer: 9\",\"reasoning_content\":null,"
              "\"finish_reason\":\"stop\",\"truncated\":false,"
              "\"completion_tokens\":11,\"decode_tps\":93.6,\"error\":null,"
              "\"error_kind\":null,\"extracted\":9,\"right\":true,"
              "\"prompt_tokens\":41,\"prompt_ms\":92.5,"
              "\"predicted_ms\":117.5213675,\"http_status\":200,"
              "\"attempts\":1,\"latency_ms\":18}");
    assert_int_equal(right, 1);
    free(text);
    grader_task_free(t);
}

/* A run's error row with a constraint and an answer cut as a loop: the
 * optional parts in their order. */
static void test_run_row_parts(void **state)
{
    struct grader_task *t = task("answer-line");
    struct row w;
    int right;
    char *text;

    (void)state;
    row_init(&w);
    w.id = "q02";
    w.rung = "R";
    w.reference = "3";
    w.error = "HTTP 500: boom";
    w.error_kind = "http";
    w.measured = 1;
    w.attempts = 2;
    w.latency_ms = 5;
    w.constrained = "grammar";
    w.aborted = "repeat";
    w.tokens_saved = 7;
    text = row_text(&w, t, &right);
    assert_string_equal(
        text, "{\"id\":\"q02\",\"rung\":\"R\",\"reference\":\"3\","
              "\"content\":null,\"reasoning_content\":null,"
              "\"finish_reason\":null,\"truncated\":false,"
              "\"completion_tokens\":null,\"decode_tps\":null,"
              "\"error\":\"HTTP 500: boom\",\"error_kind\":\"http\","
              "\"extracted\":null,\"right\":false,\"prompt_tokens\":null,"
              "\"prompt_ms\":null,\"predicted_ms\":null,\"http_status\":null,"
              "\"attempts\":2,\"latency_ms\":5,\"constrained\":\"grammar\","
              "\"violations\":null,\"violation\":null,\"aborted\":\"repeat\","
              "\"tokens_saved\":7}");
    assert_int_equal(right, 0);
    free(text);
    grader_task_free(t);
}

/* An import's row: every rule's grade, the tool's name, reals as logged;
 * an error row keeps the reply it logged, ungraded. */
static void test_import_row(void **state)
{
    struct grader_task *t = task("answer-line");
    struct row w;
    int right = -1;
    char *text;

    (void)state;
    row_init(&w);
    w.id = "test-3";
    w.rung = "BF16";
    w.reference = "2,350";
    w.content = "Answer: 2350";
    w.content_len = strlen(w.content);
    w.error = "error: boom";
    w.error_kind = "imported";
    w.tps = 41.123456789012345;
    w.grades = 1;
    w.imported = "llama-eval";
    w.digits = 15;
    text = row_text(&w, t, &right);
    assert_string_equal(
        text,
        "{\"id\":\"test-3\",\"rung\":\"BF16\",\"reference\":\"2,350\","
        "\"content\":\"Answer: 2350\",\"reasoning_content\":null,"
        "\"finish_reason\":null,\"truncated\":false,"
        "\"completion_tokens\":null,\"decode_tps\":41.1234567890123,"
        "\"error\":\"error: boom\",\"error_kind\":\"imported\","
        "\"extracted\":null,\"right\":false,\"grades\":{\"answer-line\":"
        "{\"extracted\":null,\"right\":false}},\"imported\":\"llama-eval\"}");
    assert_int_equal(right, 0);
    free(text);
    grader_task_free(t);
}

/* A reply of control characters: under REPLY_ROW_CAP raw, over it once
 * escaped (six bytes each). The row is "too_long", and fits the reader. */
static void test_reply_over_budget(void **state)
{
    size_t n = REPLY_ROW_CAP / 6 + 16;
    char *content = malloc(n);
    struct grader_task *t = task("answer-line");
    struct row w;
    int right;
    char *text;

    (void)state;
    assert_non_null(content);
    memset(content, 1, n);
    row_init(&w);
    w.id = "q";
    w.rung = "R";
    w.reference = "1";
    w.content = content;
    w.content_len = n;
    w.finish = "stop";
    w.truncated = 1;
    text = row_text(&w, t, &right);
    assert_non_null(strstr(text, "\"content\":null"));
    assert_non_null(
        strstr(text, "\"finish_reason\":null,\"truncated\":false"));
    assert_non_null(strstr(text, "\"error_kind\":\"too_long\""));
    assert_true(strlen(text) + 1 <= GRADER_ROW_MAX);
    free(text);
    free(content);
    grader_task_free(t);
}

/* A reply within its budget in a row that the other fields still take
 * past the reader's cap: the second guard makes it "too_long" too. */
static void test_row_over_reader_cap(void **state)
{
    size_t clen = REPLY_ROW_CAP - 16, rlen = REPLY_ROW_SLACK;
    char *content = malloc(clen), *ref = malloc(rlen + 1);
    struct grader_task *t = task("answer-line");
    struct row w;
    int right;
    char *text;

    (void)state;
    assert_non_null(content);
    assert_non_null(ref);
    memset(content, 'a', clen);
    memset(ref, '7', rlen);
    ref[rlen] = '\0';
    row_init(&w);
    w.id = "q";
    w.rung = "R";
    w.reference = ref;
    w.content = content;
    w.content_len = clen;
    text = row_text(&w, t, &right);
    assert_non_null(strstr(text, "\"content\":null"));
    assert_non_null(strstr(text, "\"error\":\"" REPLY_ROW_TOO_LONG "\""));
    assert_true(strlen(text) + 1 <= GRADER_ROW_MAX);
    free(text);
    free(content);
    free(ref);
    grader_task_free(t);
}

/* A tool item's row: its calls beside the content in the order of their
 * index, each call's arguments the text as streamed (not JSON, here), its
 * reference the possible answers as given; with no call, an empty list;
 * an error row, null. Every other row has no "tool_calls". */
static void test_tool_row(void **state)
{
    struct grader_task *t = task("answer-line");
    struct reply_call calls[2];
    struct row w;
    int right;
    char *text;

    (void)state;
    buf_init(&calls[0].name, 64);
    buf_init(&calls[0].args, 64);
    buf_init(&calls[1].name, 64);
    buf_init(&calls[1].args, 64);
    buf_puts(&calls[0].name, "get_weather");
    buf_puts(&calls[0].args, "{\"city\": \"Z\xc3\xbcrich\"");
    buf_puts(&calls[1].name, "get_time");
    row_init(&w);
    w.id = "w1";
    w.rung = "R";
    w.reference = "[{\"get_weather\":{\"city\":[\"Zurich\"]}}]";
    w.content = "Let me look.";
    w.content_len = strlen(w.content);
    w.finish = "tool_calls";
    w.tool_item = 1;
    w.calls = calls;
    w.ncalls = 2;
    text = row_text(&w, t, &right);
    assert_string_equal(
        text,
        "{\"id\":\"w1\",\"rung\":\"R\",\"reference\":\"[{\\\"get_weather\\\":"
        "{\\\"city\\\":[\\\"Zurich\\\"]}}]\",\"content\":\"Let me look.\","
        "\"tool_calls\":[{\"name\":\"get_weather\",\"arguments\":"
        "\"{\\\"city\\\": \\\"Z\xc3\xbcrich\\\"\"},{\"name\":\"get_time\","
        "\"arguments\":\"\"}],\"reasoning_content\":null,"
        "\"finish_reason\":\"tool_calls\",\"truncated\":false,"
        "\"completion_tokens\":null,\"decode_tps\":null,\"error\":null,"
        "\"error_kind\":null,\"extracted\":null,\"right\":false}");
    free(text);
    w.ncalls = 0;
    text = row_text(&w, t, &right);
    assert_non_null(strstr(text, "\"content\":\"Let me look.\","
                                 "\"tool_calls\":[],"));
    free(text);
    w.error = "HTTP 500: boom";
    w.error_kind = "http";
    w.content = NULL;
    text = row_text(&w, t, &right);
    assert_non_null(strstr(text, "\"content\":null,\"tool_calls\":null,"));
    free(text);
    /* another item's row is as it always was */
    row_init(&w);
    w.id = "q";
    w.rung = "R";
    w.reference = "1";
    w.content = "Answer: 1";
    w.content_len = strlen(w.content);
    text = row_text(&w, t, &right);
    assert_null(strstr(text, "tool_calls"));
    free(text);
    /* calls past the budget: "too_long", and none kept */
    row_init(&w);
    w.id = "w1";
    w.rung = "R";
    w.reference = "[]";
    w.tool_item = 1;
    w.calls = calls;
    w.ncalls = 1;
    w.content = "x";
    w.content_len = 1;
    buf_release(&calls[0].args);
    buf_init(&calls[0].args, REPLY_ROW_CAP);
    for (size_t i = 0; i < REPLY_ROW_CAP / 2; i += 4)
        buf_puts(&calls[0].args, "\"\"\"\"");
    text = row_text(&w, t, &right);
    assert_non_null(strstr(text, "\"content\":null,\"tool_calls\":null,"));
    assert_non_null(strstr(text, "\"error_kind\":\"too_long\""));
    free(text);
    for (size_t i = 0; i < 2; i++) {
        buf_release(&calls[i].name);
        buf_release(&calls[i].args);
    }
    grader_task_free(t);
}

/* Appended and synced (store.h), and read back by the reader. */
static void test_append(void **state)
{
    struct grader_task *t = task("answer-line");
    struct grader_qset *ids;
    struct store s;
    struct row w;
    size_t rows, right_n;
    char msg[512], run[128];
    int right;

    (void)state;
    snprintf(run, sizeof(run), "%s/run", test_dir);
    assert_int_equal(store_open(&s, run, "R", msg, sizeof(msg)), 0);
    row_init(&w);
    w.id = "a";
    w.rung = "R";
    w.reference = "4";
    w.content = "Answer: 4";
    w.content_len = strlen(w.content);
    assert_int_equal(row_append(&s, &w, t, &right, msg, sizeof(msg)), 0);
    assert_int_equal(right, 1);
    assert_int_equal(s.rows, 1);
    if (rowsfile_answered(s.path.p, "R", NULL, &ids, &rows, &right_n, msg,
                          sizeof(msg)))
        fail_msg("%s", msg);
    assert_int_equal(rows, 1);
    assert_int_equal(right_n, 1);
    grader_qset_free(ids);
    store_close(&s);
    grader_task_free(t);
}

/* A stop set before grading (a run's row on the thread pool, and a stop
 * signal came): nothing is written, and 1 says so; unset, the row is
 * written as row_append writes it. */
static void test_append_stopped(void **state)
{
    struct grader_task *t = task("answer-line");
    struct store s;
    struct row w;
    atomic_int stop;
    char msg[512], run[128];
    int right = -1;

    (void)state;
    snprintf(run, sizeof(run), "%s/runstop", test_dir);
    assert_int_equal(store_open(&s, run, "R", msg, sizeof(msg)), 0);
    row_init(&w);
    w.id = "a";
    w.rung = "R";
    w.reference = "4";
    w.content = "Answer: 4";
    w.content_len = strlen(w.content);
    atomic_init(&stop, 1);
    assert_int_equal(
        row_append_until(&s, &w, t, &right, &stop, msg, sizeof(msg)), 1);
    assert_int_equal(s.rows, 0);
    assert_int_equal(s.written, 0);
    atomic_store(&stop, 0);
    assert_int_equal(
        row_append_until(&s, &w, t, &right, &stop, msg, sizeof(msg)), 0);
    assert_int_equal(right, 1);
    assert_int_equal(s.rows, 1);
    store_close(&s);
    grader_task_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_row),
        cmocka_unit_test(test_run_row_parts),
        cmocka_unit_test(test_import_row),
        cmocka_unit_test(test_reply_over_budget),
        cmocka_unit_test(test_row_over_reader_cap),
        cmocka_unit_test(test_tool_row),
        cmocka_unit_test(test_append),
        cmocka_unit_test(test_append_stopped),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
