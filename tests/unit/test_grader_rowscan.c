/*
 * test_grader_rowscan.c - the row scanner on the corners of JSON: every
 * escape, \u and surrogate pairs, UTF-8, numbers, types, duplicates,
 * structure, and a tool item's row (its calls skipped, its reference's cap).
 * Each accepted row's content is checked byte for byte.
 *
 * Tests: grader/rowscan.c
 */
#include "helpers.h"

#include <jansson.h>

#include "rowscan.h"

static struct grader_rowscan scan;

/* content of the row {"content": <json>} must decode to want[0..n) */
static void content_is(const char *json, const char *want, size_t n)
{
    char line[512], msg[256];
    struct grader_row r;
    int rc;

    snprintf(line, sizeof(line), "{\"content\": %s}", json);
    rc = grader_rowscan(&scan, line, strlen(line), &r, msg, sizeof(msg));
    if (rc != 0)
        fail_msg("%s refused: %s", line, msg);
    assert_non_null(r.content);
    if (r.content_len != n || memcmp(r.content, want, n) != 0)
        fail_msg("%s decoded to %zu bytes '%.*s'", line, r.content_len,
                 (int)r.content_len, r.content);
}

static void refused(const char *line, const char *words)
{
    char msg[256];
    struct grader_row r;

    assert_int_equal(
        grader_rowscan(&scan, line, strlen(line), &r, msg, sizeof(msg)),
        GRADER_EPARSE);
    if (strstr(msg, words) == NULL)
        fail_msg("%s: message '%s' lacks '%s'", line, msg, words);
}

static void test_escapes(void **state)
{
    (void)state;
    content_is("\"a\\\"b\"", "a\"b", 3);
    content_is("\"a\\\\b\"", "a\\b", 3);
    content_is("\"a\\/b\"", "a/b", 3);
    content_is("\"\\b\\f\\n\\r\\t\"", "\b\f\n\r\t", 5);
    content_is("\"\\u0041\\u00e9\\u20ac\"", "A\xc3\xa9\xe2\x82\xac", 6);
    content_is("\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80", 4);
    content_is("\"\\u0000x\"", "\0x", 2);
    content_is("\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"",
               "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9);
    content_is("\"\"", "", 0);
    content_is("  \"x\"  ", "x", 1);
}

static void test_bad_strings(void **state)
{
    (void)state;
    refused("{\"content\": \"\\x\"}", "invalid escape");
    refused("{\"content\": \"\\u12g4\"}", "invalid \\u escape");
    refused("{\"content\": \"\\ud83d\"}", "lone high surrogate");
    refused("{\"content\": \"\\ude00\"}", "lone low surrogate");
    refused("{\"content\": \"a\tb\"}", "control character");
    refused("{\"content\": \"\xc3\"}", "invalid UTF-8");
    refused("{\"content\": \"\xc0\xaf\"}", "invalid UTF-8"); /* overlong */
    refused("{\"content\": \"\xed\xa0\x80\"}", "invalid UTF-8");
    refused("{\"content\": \"\xf4\x90\x80\x80\"}", "invalid UTF-8");
    refused("{\"content\": \"abc", "unterminated string");
}

static void test_fields_and_types(void **state)
{
    const char *line =
        "{\"id\": \"test-2\", \"reference\": 70000, \"content\": null, "
        "\"reasoning_content\": \"hm\", \"finish_reason\": \"length\", "
        "\"truncated\": true, \"completion_tokens\": 1024, "
        "\"decode_tps\": 9.35e1, \"error\": \"HTTP 500\", "
        "\"violations\": 2, \"extra\": {\"nested\": [1, 2.5e-3, {\"x\": "
        "null}], \"t\": false}}";
    struct grader_row r;
    char msg[256];

    (void)state;
    assert_int_equal(
        grader_rowscan(&scan, line, strlen(line), &r, msg, sizeof(msg)), 0);
    assert_int_equal(r.id_len, 6);
    assert_memory_equal(r.id, "test-2", 6);
    assert_int_equal(r.ref_len, 5);
    assert_memory_equal(r.ref, "70000", 5);
    assert_int_equal(r.ref_is_string, 0);
    assert_null(r.content);
    assert_int_equal(r.reasoning_len, 2);
    assert_int_equal(r.finish_length, 1);
    assert_int_equal(r.truncated, 1);
    assert_int_equal(r.tokens, 1024);
    assert_true(r.tps == 93.5);
    assert_int_equal(r.has_error, 1);
    assert_int_equal(r.violations, 2);
    refused("{\"violations\": -1}", "\"violations\" must");
    refused("{\"violations\": \"2\"}", "\"violations\" must");
    refused("{\"completion_tokens\": 1.5}", "\"completion_tokens\" must");
    refused("{\"completion_tokens\": -3}", "\"completion_tokens\" must");
    refused("{\"completion_tokens\": 99999999999999999999}",
            "\"completion_tokens\" must");
    refused("{\"decode_tps\": \"fast\"}", "\"decode_tps\" must");
    refused("{\"decode_tps\": 1e999}", "\"decode_tps\" must");
    refused("{\"truncated\": 0}", "\"truncated\" must");
    refused("{\"content\": 5}", "\"content\" must");
    refused("{\"finish_reason\": []}", "\"finish_reason\" must");
    refused("{\"id\": \"\"}", "\"id\" must");
    refused("{\"id\": \"a\\u0000b\"}", "\"id\" must");
    refused("{\"reference\": 1.5}", "\"reference\" must");
}

/* A number of any length jansson takes, read to the same double: fuzzing
 * found 64.30000000000000000000000000000001 refused (issue 9). */
static void test_long_numbers(void **state)
{
    static const char *const tps[] = {
        "64.30000000000000000000000000000001",
        "1.000000000000000000000000000000000000000000000000000000000000001e2",
        "0.0000000000000000000000000000000000000000000000000000000000000000"
        "00000000000000000000000000000000000000000000000000000000001"};
    char line[512], msg[256];
    struct grader_row r;
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(tps) / sizeof(tps[0]); i++) {
        json_t *o;
        snprintf(line, sizeof(line), "{\"decode_tps\": %s}", tps[i]);
        if (grader_rowscan(&scan, line, strlen(line), &r, msg, sizeof(msg)))
            fail_msg("%s refused: %s", line, msg);
        o = json_loads(line, 0, NULL);
        assert_non_null(o);
        assert_true(r.tps ==
                    json_real_value(json_object_get(o, "decode_tps")));
        json_decref(o);
    }
    refused("{\"completion_tokens\": 10000000000000000000000000000000000000}",
            "\"completion_tokens\" must");
    refused("{\"completion_tokens\": 5.0000000000000000000000000000000001}",
            "\"completion_tokens\" must");
}

static void test_structure(void **state)
{
    struct grader_row r;
    char msg[256];

    (void)state;
    refused("[1]", "not a JSON object");
    refused("", "not a JSON object");
    refused("{\"a\": 1,}", "string or '}' expected");
    refused("{\"a\" 1}", "':' expected");
    refused("{\"a\": 1 \"b\": 2}", "',' or '}' expected");
    refused("{\"a\": 1} x", "end of row expected");
    refused("{\"a\": 01}", "',' or '}' expected");
    refused("{\"a\": -}", "invalid token");
    refused("{\"a\": 1.}", "invalid number");
    refused("{\"a\": 1e}", "invalid number");
    refused("{\"a\": tru}", "invalid token");
    refused("{\"a\": [1, 2}", "',' or ']' expected");
    refused("{\"id\": \"x\", \"id\": \"y\"}", "duplicate field \"id\"");
    refused("{\"k\": 1, \"\\u006b\": 2}", "duplicate field \"k\"");
    assert_int_equal(grader_rowscan(&scan, "{}", 2, &r, msg, sizeof(msg)), 0);
    assert_null(r.id);
    assert_int_equal(r.tokens, -1);
    assert_true(r.tps < 0);
}

static void test_depth(void **state)
{
    char line[400];
    size_t i, n = 0;

    (void)state;
    n += (size_t)sprintf(line, "{\"x\": ");
    for (i = 0; i < 70; i++)
        line[n++] = '[';
    for (i = 0; i < 70; i++)
        line[n++] = ']';
    line[n++] = '}';
    line[n] = '\0';
    refused(line, "nested too deeply");
}

/* A tool item's row (docs/toolcalls.md): its "tool_calls" list is
 * skipped like any field the grader does not read, its content and
 * finish_reason are read, and its reference (the possible answers as
 * compact JSON) is kept whole up to the 4,095 bytes questions.c allows
 * for one, a byte more refused. */
static void test_tool_row(void **state)
{
    const char *line =
        "{\"id\":\"w1\",\"rung\":\"R\",\"reference\":\"[{\\\"get_weather\\\":"
        "{\\\"city\\\":[\\\"Zurich\\\"]}}]\",\"content\":\"Let me look.\","
        "\"tool_calls\":[{\"name\":\"get_weather\",\"arguments\":"
        "\"{\\\"city\\\": \\\"Z\xc3\xbcrich\\\"\"},{\"name\":\"f\","
        "\"arguments\":\"not json {\"}],\"reasoning_content\":null,"
        "\"finish_reason\":\"tool_calls\",\"truncated\":false,"
        "\"completion_tokens\":null,\"decode_tps\":null,\"error\":null,"
        "\"error_kind\":null,\"extracted\":null,\"right\":false}";
    struct grader_row r;
    char msg[256], *big;
    size_t n;

    (void)state;
    if (grader_rowscan(&scan, line, strlen(line), &r, msg, sizeof(msg)) != 0)
        fail_msg("refused: %s", msg);
    assert_int_equal(r.content_len, 12);
    assert_memory_equal(r.content, "Let me look.", 12);
    assert_int_equal(r.finish_len, 10);
    assert_memory_equal(r.finish, "tool_calls", 10);
    assert_int_equal(r.finish_length, 0);
    assert_string_equal(r.ref, "[{\"get_weather\":{\"city\":[\"Zurich\"]}}]");
    /* the reference's cap: "[...]" of 4,095 bytes, then 4,096 */
    big = malloc(4300);
    assert_non_null(big);
    for (n = 4095; n <= 4096; n++) {
        int k = snprintf(big, 4300, "{\"reference\":\"[");
        memset(big + k, 'x', n - 2);
        snprintf(big + k + n - 2, 4300 - (size_t)k - n + 2, "]\"}");
        if (n == 4095) {
            if (grader_rowscan(&scan, big, strlen(big), &r, msg,
                               sizeof(msg)) != 0)
                fail_msg("4095 bytes refused: %s", msg);
            assert_int_equal(r.ref_len, 4095);
        } else
            refused(big, "\"reference\" must be a string of at most 4095");
    }
    free(big);
}

static int teardown(void **state)
{
    (void)state;
    grader_rowscan_release(&scan);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escapes),
        cmocka_unit_test(test_bad_strings),
        cmocka_unit_test(test_fields_and_types),
        cmocka_unit_test(test_long_numbers),
        cmocka_unit_test(test_structure),
        cmocka_unit_test(test_depth),
        cmocka_unit_test(test_tool_row),
    };
    grader_rowscan_init(&scan);
    return cmocka_run_group_tests(tests, NULL, teardown);
}
