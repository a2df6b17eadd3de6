/*
 * test_server_shape.c - constrained replies checked against the grammar or
 * JSON schema their request carried (orchestrator/server/shape.h).
 *
 * Tests: orchestrator/server/shape.c
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>

#include <cmocka.h>

#include "../../orchestrator/server/shape.h"

static long check(const char *request, const char *content, char *why)
{
    json_t *req = json_loads(request, 0, NULL);
    struct shape s;
    long v;

    assert_non_null(req);
    shape_of(req, &s);
    v = shape_check(&s, content, content ? strlen(content) : 0, why, 256);
    json_decref(req);
    return v;
}

#define GRAMMAR "{\"grammar\": \"root ::= \\\"Answer: \\\" [0-9]+\"}"

static void test_answer_line(void **state)
{
    char why[256];

    (void)state;
    assert_int_equal(check(GRAMMAR, "Answer: 17", why), 0);
    assert_int_equal(check(GRAMMAR, "12 - 4 = 8\n  Answer: 2,350 \n\n", why),
                     0);
    assert_int_equal(check(GRAMMAR, "Answer: -3.5", why), 0);
    assert_int_equal(check(GRAMMAR, "Answer: **8**.", why), 1);
    assert_string_equal(why, "the answer line holds no number alone");
    assert_int_equal(check(GRAMMAR, "Answer: 8 apples", why), 1);
    assert_int_equal(check(GRAMMAR, "The answer is 8", why), 1);
    assert_string_equal(why, "the last line is not \"Answer: <number>\"");
    assert_int_equal(check(GRAMMAR, "Answer: 8\nor maybe 9", why), 1);
    assert_int_equal(check(GRAMMAR, NULL, why), 1);
    assert_string_equal(why, "no content");
    /* a grammar of another shape: the constraint, unchecked */
    assert_int_equal(check("{\"grammar\": \"root ::= [a-z]+\"}", "xyz", why),
                     -1);
    /* no constraint at all */
    assert_int_equal(check("{\"top_k\": 1}", "anything", why), -1);
}

#define SCHEMA                                                                \
    "{\"json_schema\": {\"type\": \"object\", \"required\": [\"answer\", "    \
    "\"steps\"], \"properties\": {\"answer\": {\"type\": \"integer\"}, "      \
    "\"steps\": {\"type\": [\"array\", \"null\"]}}}}"

static void test_json_schema(void **state)
{
    char why[256];

    (void)state;
    assert_int_equal(check(SCHEMA, "{\"answer\": 5, \"steps\": []}", why), 0);
    assert_int_equal(check(SCHEMA, "{\"answer\": 5, \"steps\": null}", why),
                     0);
    assert_int_equal(check(SCHEMA, "{\"answer\": 5}", why), 1);
    assert_string_equal(why, "no \"steps\", which the schema requires");
    /* two failures: both counted, the first in words */
    assert_int_equal(check(SCHEMA, "{\"answer\": \"5\"}", why), 2);
    assert_string_equal(why, "no \"steps\", which the schema requires");
    assert_int_equal(check(SCHEMA, "[5]", why), 1);
    assert_string_equal(why, "not of the schema's type");
    assert_int_equal(check(SCHEMA, "Answer: 5", why), 1);
    assert_non_null(strstr(why, "not JSON"));
    /* a duplicate key is not one JSON object */
    assert_int_equal(check(SCHEMA,
                           "{\"answer\": 5, \"answer\": 6, "
                           "\"steps\": []}",
                           why),
                     1);
}

static void test_response_format(void **state)
{
    char why[256];

    (void)state;
    assert_int_equal(
        check("{\"response_format\": {\"type\": \"json_object\"}}",
              "{\"a\": 1}", why),
        0);
    assert_int_equal(
        check("{\"response_format\": {\"type\": \"json_object\"}}", "42", why),
        1);
    assert_string_equal(why, "not a JSON object");
    /* OpenAI's nesting and llama.cpp's shorter form */
    assert_int_equal(check("{\"response_format\": {\"type\": \"json_schema\", "
                           "\"json_schema\": {\"schema\": {\"required\": "
                           "[\"x\"]}}}}",
                           "{\"y\": 1}", why),
                     1);
    assert_int_equal(check("{\"response_format\": {\"type\": \"json_schema\", "
                           "\"schema\": {\"required\": [\"x\"]}}}",
                           "{\"x\": 1}", why),
                     0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_answer_line),
        cmocka_unit_test(test_json_schema),
        cmocka_unit_test(test_response_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
