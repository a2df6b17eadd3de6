/*
 * test_toolcall_check.c - the tool-call checker (toolcall/) on its caps
 * and on hostile input: arguments that are not JSON, 10 MiB of them,
 * nesting past the cap, NUL bytes, 65 calls, a huge content, a function
 * doc without a name, a possible answer naming a function the docs lack;
 * each a bucket or a named error, never a crash. The verdicts themselves
 * are BFCL's parity's (tests/tools/bfcl_diff.py); here a few of the
 * rules where they meet the caps, and the buckets' stable names. And
 * out of memory: each allocation failed in turn, toolcall's own and then
 * jansson's too, is TOOLCALL_ENOMEM with nothing leaked, never a verdict.
 *
 * Tests: toolcall/toolcall.c
 * Tests: toolcall/alloc.c
 * Tests: toolcall/check.c
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <jansson.h>

#include "chaos.h"
#include "toolcall.h"

static const char DOCS[] =
    "[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":"
    "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},"
    "\"s\":{\"type\":\"string\"},\"x\":{\"type\":\"any\"}},"
    "\"required\":[\"a\"]}}}]";
static const char ANSWERS[] = "[{\"f\":{\"a\":[1],\"s\":[\"hi\",\"\"],"
                              "\"x\":[\"\"]}}]";

/* Grade calls (JSON text, may hold NULs: len given) and content against
 * DOCS/ANSWERS (or docs/answers); returns the call's code, *res set. */
static int grade_n(const char *docs, const char *answers, const char *ctext,
                   size_t calls_len, const char *content, size_t content_len,
                   struct toolcall_result *res, struct toolcall_error *err)
{
    struct toolcall_item item = {docs, strlen(docs), answers, strlen(answers),
                                 TOOLCALL_ONE};
    struct toolcall_reply reply = {ctext, calls_len, content, content_len};
    return toolcall_check(&item, &reply, res, err);
}

static enum toolcall_bucket grade(const char *ctext, const char *content)
{
    struct toolcall_result res;
    struct toolcall_error err;
    int rc = grade_n(DOCS, ANSWERS, ctext, ctext ? strlen(ctext) : 0, content,
                     content ? strlen(content) : 0, &res, &err);
    assert_int_equal(rc, 0);
    return res.bucket;
}

/* A calls list of one call to f whose arguments text is args (escaped
 * as a JSON string): new. */
static char *one_call(const char *args, size_t len, size_t *out_len)
{
    char *s = malloc(len * 6 + 64);
    size_t o;

    assert_non_null(s);
    o = (size_t)sprintf(s, "[{\"name\":\"f\",\"arguments\":\"");
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)args[i];
        if (c == '"' || c == '\\')
            o += (size_t)sprintf(s + o, "\\%c", c);
        else if (c < 0x20)
            o += (size_t)sprintf(s + o, "\\u%04x", c);
        else
            s[o++] = (char)c;
    }
    o += (size_t)sprintf(s + o, "\"}]");
    *out_len = o;
    return s;
}

static enum toolcall_bucket grade_args(const char *args, size_t len)
{
    struct toolcall_result res;
    size_t n;
    char *list = one_call(args, len, &n);
    int rc = grade_n(DOCS, ANSWERS, list, n, NULL, 0, &res, NULL);
    free(list);
    assert_int_equal(rc, 0);
    return res.bucket;
}

/* grade_args on a string literal, its length its own */
#define grade_args_s(lit) grade_args(lit, sizeof lit - 1)

static void test_right_and_rules(void **state)
{
    (void)state;
    assert_int_equal(grade_args_s("{\"a\":1}"), TOOLCALL_RIGHT);
    assert_int_equal(grade_args_s("{\"a\":1,\"s\":\"H I\"}"), TOOLCALL_RIGHT);
    assert_int_equal(grade_args_s("{\"a\":1.0}"), TOOLCALL_WRONG_TYPE);
    assert_int_equal(grade_args_s("{\"a\":true}"), TOOLCALL_WRONG_TYPE);
    assert_int_equal(grade_args_s("{\"a\":2}"), TOOLCALL_WRONG_VALUE);
    assert_int_equal(grade_args_s("{\"s\":\"hi\"}"), TOOLCALL_WRONG_ARGS);
    /* "x" may only be left out: given, it is a value not accepted */
    assert_int_equal(grade_args_s("{\"a\":1,\"x\":\"y\"}"),
                     TOOLCALL_WRONG_VALUE);
    assert_int_equal(grade("[{\"name\":\"g\",\"arguments\":\"{}\"}]", NULL),
                     TOOLCALL_UNKNOWN_FUNCTION);
    assert_int_equal(grade("[]", ""), TOOLCALL_NO_CALL);
    assert_int_equal(grade(NULL, NULL), TOOLCALL_NO_CALL);
}

static void test_not_json(void **state)
{
    (void)state;
    assert_int_equal(grade_args_s("{\"a\":1"), TOOLCALL_MALFORMED);
    assert_int_equal(grade_args_s("{'a': 1}"), TOOLCALL_MALFORMED);
    assert_int_equal(grade_args_s(""), TOOLCALL_MALFORMED);
    assert_int_equal(grade_args_s("[1]"), TOOLCALL_MALFORMED);
    assert_int_equal(grade_args_s("\xff\xfe{"), TOOLCALL_MALFORMED);
    /* the calls list itself not JSON, not a list, a call without a name */
    assert_int_equal(grade("[{\"name\":", NULL), TOOLCALL_MALFORMED);
    assert_int_equal(grade("{\"name\":\"f\"}", NULL), TOOLCALL_MALFORMED);
    assert_int_equal(grade("[{\"arguments\":\"{}\"}]", NULL),
                     TOOLCALL_MALFORMED);
    assert_int_equal(grade("[{\"name\":\"f\",\"arguments\":{\"a\":1}}]", NULL),
                     TOOLCALL_MALFORMED);
    assert_int_equal(grade("[1, null]", NULL), TOOLCALL_MALFORMED);
}

static void test_ten_mib(void **state)
{
    size_t len = (size_t)10 << 20;
    char *args = malloc(len);
    (void)state;
    assert_non_null(args);
    memset(args, ' ', len);
    memcpy(args, "{\"a\":1,\"s\":\"", 12);
    memset(args + 12, 'h', len - 14);
    memcpy(args + len - 2, "\"}", 2);
    assert_int_equal(grade_args(args, len), TOOLCALL_OVER_CAP);
    /* one byte over the call's cap (the list's own, 8 MiB, not reached) */
    memcpy(args + TOOLCALL_MAX_ARGS - 1, "\"}", 2);
    assert_int_equal(grade_args(args, TOOLCALL_MAX_ARGS + 1),
                     TOOLCALL_OVER_CAP);
    /* at the cap: read, and a value not accepted */
    memcpy(args + TOOLCALL_MAX_ARGS - 2, "\"}", 2);
    assert_int_equal(grade_args(args, TOOLCALL_MAX_ARGS),
                     TOOLCALL_WRONG_VALUE);
    free(args);
}

static void test_nesting(void **state)
{
    char args[512];
    size_t o;
    (void)state;
    /* {"a":1,"x":[[...]]}: depth 1 + k */
    for (int k = 31; k <= 33; k++) {
        o = (size_t)sprintf(args, "{\"a\":1,\"x\":");
        for (int i = 0; i < k; i++)
            args[o++] = '[';
        for (int i = 0; i < k; i++)
            args[o++] = ']';
        args[o++] = '}';
        assert_int_equal(grade_args(args, o), k + 1 <= TOOLCALL_MAX_DEPTH
                                                  ? TOOLCALL_WRONG_TYPE
                                                  : TOOLCALL_OVER_CAP);
    }
    /* brackets inside strings do not count */
    o = (size_t)sprintf(args, "{\"a\":1,\"s\":\"");
    for (int i = 0; i < 100; i++)
        args[o++] = '[';
    o += (size_t)sprintf(args + o, "\\\"\"}");
    assert_int_equal(grade_args(args, o), TOOLCALL_WRONG_VALUE);
}

static void test_nul_bytes(void **state)
{
    static const char with_nul[] = "{\"a\":1}\0{\"a\":2}";
    static const char content[] = "text\0<tool_call>{}</tool_call>";
    struct toolcall_result res;
    (void)state;
    /* a raw NUL in the arguments: not JSON */
    assert_int_equal(grade_args(with_nul, sizeof with_nul - 1),
                     TOOLCALL_MALFORMED);
    /* an escaped one inside a string: JSON, a value not accepted */
    assert_int_equal(grade_args_s("{\"a\":1,\"s\":\"h\\u0000i\"}"),
                     TOOLCALL_WRONG_VALUE);
    /* a NUL in the calls' text before the list ends: not JSON */
    assert_int_equal(grade_n(DOCS, ANSWERS, "[]\0[", 4, NULL, 0, &res, NULL),
                     0);
    assert_int_equal(res.bucket, TOOLCALL_MALFORMED);
    /* the content is bytes: a tag after a NUL is still found */
    assert_int_equal(grade_n(DOCS, ANSWERS, NULL, 0, content,
                             sizeof content - 1, &res, NULL),
                     0);
    assert_int_equal(res.bucket, TOOLCALL_LEAKED);
}

static void test_many_calls(void **state)
{
    size_t cap = 70 * 40 + 8, o = 0;
    char *list = malloc(cap);
    struct toolcall_result res;
    (void)state;
    assert_non_null(list);
    list[o++] = '[';
    for (int i = 0; i < 65; i++)
        o += (size_t)sprintf(list + o,
                             "%s{\"name\":\"f\",\"arguments\":"
                             "\"{\\\"a\\\":1}\"}",
                             i ? "," : "");
    list[o++] = ']';
    assert_int_equal(grade_n(DOCS, ANSWERS, list, o, NULL, 0, &res, NULL), 0);
    assert_int_equal(res.bucket, TOOLCALL_OVER_CAP);
    free(list);
    /* 2 calls where one is asked: too many, the second */
    assert_int_equal(grade("[{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":1}\"},"
                           "{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":1}\"}]",
                           NULL),
                     TOOLCALL_WRONG_COUNT);
}

static void test_huge_content(void **state)
{
    size_t len = (size_t)3 << 20;
    char *content = malloc(len);
    struct toolcall_result res;
    (void)state;
    assert_non_null(content);
    /* a million '{': at most 64 tried, no leak */
    memset(content, '{', len);
    assert_int_equal(grade_n(DOCS, ANSWERS, NULL, 0, content, len, &res, NULL),
                     0);
    assert_int_equal(res.bucket, TOOLCALL_NO_CALL);
    /* a tag past the cap is not read; one before it is */
    memset(content, 'x', len);
    memcpy(content + len - 32, "<tool_call>{}</tool_call>", 25);
    assert_int_equal(grade_n(DOCS, ANSWERS, NULL, 0, content, len, &res, NULL),
                     0);
    assert_int_equal(res.bucket, TOOLCALL_NO_CALL);
    memcpy(content + 100, "[TOOL_CALLS]", 12);
    assert_int_equal(grade_n(DOCS, ANSWERS, NULL, 0, content, len, &res, NULL),
                     0);
    assert_int_equal(res.bucket, TOOLCALL_LEAKED);
    free(content);
    assert_int_equal(grade(NULL, "<tool_call>{\"name\":\"f\""),
                     TOOLCALL_MALFORMED);
    assert_int_equal(grade(NULL, "ok {\"name\":\"f\",\"parameters\":{}}"),
                     TOOLCALL_LEAKED);
    assert_int_equal(grade(NULL, "{\"name\":\"f\"}"), TOOLCALL_NO_CALL);
}

/* An item refused: rc, and err names what. */
static void refused(const char *docs, const char *answers,
                    enum toolcall_shape shape, int want, const char *says)
{
    struct toolcall_item item = {docs, strlen(docs), answers, strlen(answers),
                                 shape};
    struct toolcall_reply reply = {"[]", 2, NULL, 0};
    struct toolcall_result res;
    struct toolcall_error err;
    int rc = toolcall_check(&item, &reply, &res, &err);
    if (rc != want || strstr(err.text, says) == NULL)
        fail_msg("rc %d (%s), '%s': wanted %d, '%s'", rc,
                 toolcall_strerror(rc), err.text, want, says);
}

static void test_bad_items(void **state)
{
    (void)state;
    refused("[{\"description\":\"x\"}]", "[]", TOOLCALL_ONE, TOOLCALL_EDOCS,
            "no name in function doc 0");
    refused("[{\"type\":\"function\",\"function\":{\"name\":\"\"}}]", "[]",
            TOOLCALL_ONE, TOOLCALL_EDOCS, "no name in function doc 0");
    refused(DOCS, "[{\"g\":{\"a\":[1]}}]", TOOLCALL_ONE, TOOLCALL_EUNKNOWN,
            "unknown function 'g' in the possible answers");
    refused(DOCS, "[{\"f\":{\"a\":1}}]", TOOLCALL_ONE, TOOLCALL_EANSWERS,
            "accepted values not a list for argument 'a'");
    refused(DOCS, "[{\"f\":{}},{\"f\":{}}]", TOOLCALL_ONE, TOOLCALL_EANSWERS,
            "several calls in the possible answers");
    refused(DOCS, "{}", TOOLCALL_ONE, TOOLCALL_EANSWERS,
            "not a JSON list: the possible answers");
    refused("not json", "[]", TOOLCALL_ONE, TOOLCALL_EDOCS,
            "not a JSON list: the function docs");
    refused("[{\"name\":\"f\",\"parameters\":{\"properties\":{\"a\":"
            "{\"type\":\"complex\"}}}}]",
            "[]", TOOLCALL_ONE, TOOLCALL_EDOCS,
            "no type BFCL knows for parameter 'a' of 'f'");
    refused("[{\"name\":\"f\",\"parameters\":{\"properties\":{\"a\":"
            "{\"type\":\"array\",\"items\":{}}}}}]",
            "[]", TOOLCALL_ONE, TOOLCALL_EDOCS, "parameter 'a' of 'f'");
    refused("[{\"name\":\"f\",\"parameters\":{\"required\":[1]}}]", "[]",
            TOOLCALL_ONE, TOOLCALL_EDOCS, "required name not a string");
}

static void test_item_caps(void **state)
{
    size_t len = TOOLCALL_MAX_ITEM + 10;
    char *docs = malloc(len + 1);
    char deep[128];
    size_t o = 0;
    (void)state;
    assert_non_null(docs);
    memset(docs, ' ', len);
    docs[0] = '[';
    docs[len - 1] = ']';
    docs[len] = '\0';
    refused(docs, "[]", TOOLCALL_ONE, TOOLCALL_ECAP,
            "over a cap (1 MiB, depth 32): the function docs");
    free(docs);
    deep[o++] = '[';
    for (int i = 0; i < 40; i++)
        deep[o++] = '[';
    for (int i = 0; i < 41; i++)
        deep[o++] = ']';
    deep[o] = '\0';
    refused(DOCS, deep, TOOLCALL_ONE, TOOLCALL_ECAP,
            "over a cap (1 MiB, depth 32): the possible answers");
}

static void test_args_and_names(void **state)
{
    struct toolcall_item item = {DOCS, strlen(DOCS), ANSWERS, strlen(ANSWERS),
                                 TOOLCALL_ONE};
    struct toolcall_reply reply = {NULL, 0, NULL, 0};
    struct toolcall_result res;
    struct toolcall_error err;
    enum toolcall_bucket b;
    static const char *const names[] = {
        "right",          "no_call",         "leaked_call",
        "malformed_call", "over_cap",        "unknown_function",
        "wrong_function", "wrong_arguments", "wrong_type",
        "wrong_value",    "wrong_count",     "call_not_expected"};
    (void)state;
    assert_int_equal(toolcall_check(NULL, &reply, &res, &err), TOOLCALL_EARG);
    assert_int_equal(toolcall_check(&item, NULL, &res, NULL), TOOLCALL_EARG);
    item.docs = NULL;
    assert_int_equal(toolcall_check(&item, &reply, &res, &err), TOOLCALL_EARG);
    assert_int_equal(TOOLCALL_NBUCKETS, 12);
    for (int i = 0; i < TOOLCALL_NBUCKETS; i++) {
        assert_string_equal(toolcall_bucket_name(i), names[i]);
        assert_int_equal(toolcall_bucket_parse(names[i], &b), 0);
        assert_int_equal(b, i);
    }
    assert_null(toolcall_bucket_name(TOOLCALL_NBUCKETS));
    assert_int_equal(toolcall_bucket_parse("nope", &b), TOOLCALL_EARG);
    assert_string_equal(toolcall_strerror(TOOLCALL_EUNKNOWN),
                        "a possible answer names an unknown function");
    assert_string_equal(toolcall_strerror(42), "unknown error");
}

/* An item and a reply that take each path that allocates. */
static const struct {
    const char *docs, *answers, *calls, *content;
    enum toolcall_shape shape;
    enum toolcall_bucket bucket;
} chaos_cases[] = {
    {DOCS, ANSWERS,
     "[{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":1,\\\"s\\\":\\\"H "
     "I\\\"}\"}]",
     NULL, TOOLCALL_ONE, TOOLCALL_RIGHT},
    {"[{\"name\":\"g\",\"parameters\":{\"properties\":{\"d\":{\"type\":"
     "\"dict\"},\"l\":{\"type\":\"array\",\"items\":{\"type\":\"dict\"}},"
     "\"t\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
     "\"n\":{\"type\":\"float\"}}}}]",
     "[{\"g\":{\"d\":[{\"k\":[\"V\"]}],\"l\":[[{\"k\":[1]}]],"
     "\"t\":[[\"A b\"]],\"n\":[2.0]}},{\"g\":{\"n\":[3.0]}}]",
     "[{\"name\":\"g\",\"arguments\":\"{\\\"n\\\":3}\"},"
     "{\"name\":\"g\",\"arguments\":\"{\\\"d\\\":{\\\"k\\\":\\\"v\\\"},"
     "\\\"l\\\":[{\\\"k\\\":1}],\\\"t\\\":[\\\"ab\\\"],"
     "\\\"n\\\":2}\"}]",
     NULL, TOOLCALL_PARALLEL, TOOLCALL_RIGHT},
    {DOCS, ANSWERS, NULL, "x {\"name\":\"f\",\"arguments\":{\"a\":1}}",
     TOOLCALL_ONE, TOOLCALL_LEAKED},
    {DOCS, ANSWERS, "[{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":\"}]", NULL,
     TOOLCALL_ONE, TOOLCALL_MALFORMED},
};

/* chaos_cases[c] graded: the code, *res set; jansson on toolcall's
 * hooks too when jansson_too. */
static int chaos_grade(size_t c, int jansson_too, struct toolcall_result *res)
{
    const char *ctext = chaos_cases[c].calls;
    const char *content = chaos_cases[c].content;
    struct toolcall_item item = {
        chaos_cases[c].docs, strlen(chaos_cases[c].docs),
        chaos_cases[c].answers, strlen(chaos_cases[c].answers),
        chaos_cases[c].shape};
    struct toolcall_reply reply = {ctext, ctext ? strlen(ctext) : 0, content,
                                   content ? strlen(content) : 0};
    struct toolcall_error err;
    int rc;

    toolcall_set_alloc(chaos_malloc, chaos_free);
    if (jansson_too)
        json_set_alloc_funcs(toolcall_alloc_malloc, toolcall_alloc_free);
    rc = toolcall_check(&item, &reply, res, &err);
    json_set_alloc_funcs(malloc, free);
    toolcall_set_alloc(NULL, NULL);
    if (rc == TOOLCALL_ENOMEM)
        assert_string_not_equal(err.text, "");
    return rc;
}

/* How many allocations case c makes, checking its verdict. */
static long chaos_count(size_t c, int jansson_too)
{
    struct toolcall_result res;

    fail_at = -1;
    calls = live = 0;
    assert_int_equal(chaos_grade(c, jansson_too, &res), 0);
    assert_int_equal(res.bucket, chaos_cases[c].bucket);
    assert_int_equal(live, 0);
    assert_true(calls > 0);
    return calls;
}

/* toolcall's own allocations (jansson on the C library's), each failed
 * in turn: TOOLCALL_ENOMEM, no block left. */
static void test_out_of_memory(void **state)
{
    (void)state;
    (void)chaos_realloc; /* neither library reallocates through it */
    for (size_t c = 0; c < sizeof chaos_cases / sizeof chaos_cases[0]; c++) {
        long total = chaos_count(c, 0);
        for (fail_at = 1; fail_at <= total; fail_at++) {
            struct toolcall_result res;
            int rc;
            calls = live = 0;
            rc = chaos_grade(c, 0, &res);
            if (rc != TOOLCALL_ENOMEM || live != 0)
                fail_msg("case %zu, allocation %ld of %ld failed: rc %d "
                         "(bucket %s), %ld blocks left",
                         c, fail_at, total, rc,
                         toolcall_bucket_name(res.bucket), live);
        }
    }
    fail_at = -1;
}

/* jansson on toolcall's hooks too, each allocation failed in turn, in a
 * child: TOOLCALL_ENOMEM and no block left, even where jansson calls the
 * failure a syntax error or drops a byte and carries on; a child that
 * jansson's own assert ends (load.c's lex_scan_string, after lex_save
 * dropped a byte) is counted and said, not failed: jansson's, not ours. */
static void test_out_of_memory_jansson(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof chaos_cases / sizeof chaos_cases[0]; c++) {
        long total = chaos_count(c, 1), aborted = 0;
        for (fail_at = 1; fail_at <= total; fail_at++) {
            int status;
            pid_t pid;

            /* nothing buffered is written twice, and jansson's assert
             * ends the child: cmocka's SIGABRT handler would carry the
             * child on through the rest of the tests, which then printed
             * a second summary (CI: "[  PASSED  ] 11" twice) */
            fflush(NULL);
            pid = fork();
            assert_true(pid >= 0);
            if (pid == 0) {
                struct toolcall_result res;
                signal(SIGABRT, SIG_DFL);
                calls = live = 0;
                _exit(chaos_grade(c, 1, &res) == TOOLCALL_ENOMEM && live == 0
                          ? 0
                          : 1);
            }
            assert_int_equal(waitpid(pid, &status, 0), pid);
            if (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT)
                aborted++;
            else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                fail_msg("case %zu, allocation %ld of %ld (jansson's "
                         "too) failed: not TOOLCALL_ENOMEM, or blocks left",
                         c, fail_at, total);
        }
        printf("out of memory, case %zu: %ld allocations failed in turn, "
               "%ld ended by jansson's assert\n",
               c, total, aborted);
    }
    fail_at = -1;
}

int main(void)
{
    /* one hash seed: jansson then fails the same way each run */
    json_object_seed(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_right_and_rules),
        cmocka_unit_test(test_not_json),
        cmocka_unit_test(test_ten_mib),
        cmocka_unit_test(test_nesting),
        cmocka_unit_test(test_nul_bytes),
        cmocka_unit_test(test_many_calls),
        cmocka_unit_test(test_huge_content),
        cmocka_unit_test(test_bad_items),
        cmocka_unit_test(test_item_caps),
        cmocka_unit_test(test_args_and_names),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_out_of_memory_jansson),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
