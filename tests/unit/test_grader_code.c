/*
 * test_grader_code.c - a code task's grading (task.h, grader/code.c): the
 * code a reply holds (the first Python block, a block the cap left open,
 * other languages passed over, the body rule); the outcome names both
 * ways; the verdict from the row's recorded execution, refused when the
 * content's code is not the code that ran; the row scanner's code fields
 * and the reader's flags (each outcome kept as the answer's, dead code
 * counted as itself, not as a tool call's bucket).
 *
 * Tests: grader/code.c
 * Tests: grader/rowscan.c
 * Tests: grader/rows.c
 */
#include "helpers.h"

#include <stdio.h>

#include "error.h"
#include "rows.h"
#include "rowscan.h"
#include "task.h"

/* The code rule kind takes from text, as a string ("" when none). */
static void expect_code(enum grader_rule_kind kind, const char *text,
                        const char *want)
{
    size_t off, n;
    int has = grader_code_extract(kind, text, strlen(text), &off, &n);

    if (want == NULL) {
        if (has)
            fail_msg("code found in '%s': '%.*s'", text, (int)n, text + off);
        return;
    }
    if (!has)
        fail_msg("no code found in '%s'", text);
    if (n != strlen(want) || memcmp(text + off, want, n) != 0)
        fail_msg("'%s': took '%.*s', want '%s'", text, (int)n, text + off,
                 want);
}

static void test_extract(void **state)
{
    (void)state;
    expect_code(GRADER_RULE_EXEC,
                "Here:\n```python\ndef f(x):\n    return x\n```\nDone.",
                "def f(x):\n    return x\n");
    /* a bare fence, "py", any case, trailing spaces on the info line */
    expect_code(GRADER_RULE_EXEC, "```\nx = 1\n```", "x = 1\n");
    expect_code(GRADER_RULE_EXEC, "```Py  \nx = 2\n```", "x = 2\n");
    expect_code(GRADER_RULE_EXEC, "```python3\nx = 3\n```", "x = 3\n");
    /* another language's block is passed over for the Python one */
    expect_code(GRADER_RULE_EXEC,
                "```bash\npip install x\n```\nthen\n```python\ny = 1\n```",
                "y = 1\n");
    /* the first of two Python blocks; an empty block is no code */
    expect_code(GRADER_RULE_EXEC, "```python\n\n```\n```python\nz = 1\n```",
                "z = 1\n");
    expect_code(GRADER_RULE_EXEC,
                "```python\na = 1\n```\n```python\nb = 2\n```", "a = 1\n");
    /* cut by the token cap: the block runs to the end */
    expect_code(GRADER_RULE_EXEC, "```python\ndef g():\n    return 1",
                "def g():\n    return 1");
    /* a longer fence closes only on as many backquotes; indented fences
     * (up to three spaces) count */
    expect_code(GRADER_RULE_EXEC, "````python\nx = '```'\n```\n````",
                "x = '```'\n```\n");
    expect_code(GRADER_RULE_EXEC, "   ```python\nk = 1\n   ```", "k = 1\n");
    /* no block: no code, whatever the prose says */
    expect_code(GRADER_RULE_EXEC, "def f(x): return x", NULL);
    expect_code(GRADER_RULE_EXEC, "", NULL);
    expect_code(GRADER_RULE_EXEC, "``python\nx\n``", NULL);
    /* the body rule takes the reply whole, unless blank */
    expect_code(GRADER_RULE_EXEC_BODY, "    return x\n", "    return x\n");
    expect_code(GRADER_RULE_EXEC_BODY, " \n\t\n", NULL);
    /* another rule's kind takes nothing */
    expect_code(GRADER_RULE_BOXED, "```python\nx\n```", NULL);
}

static void test_names(void **state)
{
    (void)state;
    for (int i = 0; i < GRADER_EXEC_OUTCOMES; i++) {
        const char *s = grader_exec_name(i);
        assert_non_null(s);
        assert_int_equal(grader_exec_parse(s, strlen(s)), i);
    }
    assert_null(grader_exec_name(GRADER_EXEC_OUTCOMES));
    assert_null(grader_exec_name(-1));
    assert_int_equal(grader_exec_parse("pass", 4), -1);
    assert_int_equal(grader_exec_parse("passed ", 7), -1);
    assert_string_equal(grader_exec_name(GRADER_EXEC_SYNTAX), "syntax_error");
}

static struct grader_task *code_task(void)
{
    int rc;
    struct grader_task *t = grader_task_builtin("code", &rc);

    if (t == NULL)
        fail_msg("built-in task 'code': %d", rc);
    return t;
}

static void test_grade(void **state)
{
    const char *content = "Sure.\n```python\ndef f():\n    return 1\n```\n";
    struct grader_task *t = code_task();
    struct grader_exec e = {GRADER_EXEC_FAILED, 3, 5, NULL, 0, NULL, 0};
    struct grader_reply rp = {"p1", 2, content, strlen(content), NULL, 0, &e};
    struct grader_grade g;
    char hex[17], why[300];

    (void)state;
    assert_int_equal(grader_task_ref(t), GRADER_REF_CODE);
    grader_code_hash("def f():\n    return 1\n", 22, hex);
    e.code_hash = hex;
    e.code_hash_len = 16;
    assert_int_equal(grader_task_grade_exec(t, 0, &rp, &g, why, sizeof(why)),
                     0);
    assert_false(g.right);
    assert_true(g.said);
    assert_int_equal(g.bucket, GRADER_EXEC_FAILED);
    assert_string_equal(g.extracted, "failed 3/5");
    assert_int_equal(strncmp(g.compared, "failed 3/5 code:", 16), 0);
    assert_string_equal(g.compared + 16, hex);
    e.outcome = GRADER_EXEC_PASSED;
    e.passed = 5;
    assert_int_equal(grader_task_grade_exec(t, 0, &rp, &g, why, sizeof(why)),
                     0);
    assert_true(g.right);
    assert_string_equal(g.extracted, "passed 5/5");
    e.outcome = GRADER_EXEC_ERROR;
    e.passed = 0;
    e.exception = "ZeroDivisionError";
    e.exception_len = strlen(e.exception);
    assert_int_equal(grader_task_grade_exec(t, 0, &rp, &g, why, sizeof(why)),
                     0);
    assert_string_equal(g.extracted, "error ZeroDivisionError 0/5");
    /* a hash that is not the content's code: refused, named */
    hex[0] = hex[0] == '0' ? '1' : '0';
    assert_int_equal(grader_task_grade_exec(t, 0, &rp, &g, why, sizeof(why)),
                     GRADER_EARG);
    assert_non_null(strstr(why, "'p1'"));
    assert_non_null(strstr(why, "hash differs"));
    /* "no_code" for a reply with code, and code for "no_code": refused */
    e.outcome = GRADER_EXEC_NO_CODE;
    assert_int_equal(grader_task_grade_exec(t, 0, &rp, &g, why, sizeof(why)),
                     GRADER_EARG);
    rp.content = "no code here";
    rp.content_len = strlen(rp.content);
    e.exception = NULL;
    assert_int_equal(grader_task_grade_exec(t, 0, &rp, &g, why, sizeof(why)),
                     0);
    assert_false(g.said);
    assert_int_equal(g.bucket, GRADER_EXEC_NO_CODE);
    e.outcome = GRADER_EXEC_PASSED;
    assert_int_equal(grader_task_grade_exec(t, 0, &rp, &g, why, sizeof(why)),
                     GRADER_EARG);
    assert_non_null(strstr(why, "holds no code"));
    /* no record at all */
    rp.exec = NULL;
    assert_int_equal(grader_task_grade_exec(t, 0, &rp, &g, why, sizeof(why)),
                     GRADER_EARG);
    assert_non_null(strstr(why, "no recorded outcome"));
    grader_task_free(t);
}

static void test_rules_fit(void **state)
{
    struct grader_task *t = grader_task_new("c", GRADER_REF_CODE);
    struct grader_task *n = grader_task_new("n", GRADER_REF_NUMBER);
    char msg[300];

    (void)state;
    assert_int_equal(
        grader_task_add_rule(t, "exec", GRADER_RULE_EXEC, msg, sizeof(msg)),
        0);
    /* one execution a reply: a second exec rule is refused */
    assert_int_equal(grader_task_add_rule(t, "body", GRADER_RULE_EXEC_BODY,
                                          msg, sizeof(msg)),
                     GRADER_EARG);
    assert_int_equal(
        grader_task_add_rule(t, "b", GRADER_RULE_BOXED, msg, sizeof(msg)),
        GRADER_EARG);
    assert_non_null(strstr(msg, "code items' tests"));
    assert_int_equal(
        grader_task_add_rule(n, "e", GRADER_RULE_EXEC, msg, sizeof(msg)),
        GRADER_EARG);
    grader_task_free(t);
    grader_task_free(n);
}

static const char hash64[] =
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

/* rows in text read by the code task: the rung */
static struct grader_rung *read_rows(const char *text, int want_rc,
                                     const char *want_msg)
{
    struct grader_task *t = code_task();
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *r = grader_rung_new("A", "mem");
    struct grader_reader rd;
    struct grader_error err;
    int rc;

    grader_reader_init(&rd, qs, r, 0);
    grader_reader_set_rule(&rd, t, 0);
    rc = grader_reader_feed(&rd, text, strlen(text), &err);
    if (rc == 0)
        rc = grader_reader_finish(&rd, &err);
    grader_reader_release(&rd);
    if (rc != want_rc)
        fail_msg("read: %d (%s), want %d", rc, err.text, want_rc);
    if (want_msg != NULL && strstr(err.text, want_msg) == NULL)
        fail_msg("read: '%s', want '%s' in it", err.text, want_msg);
    grader_qset_free(qs);
    grader_task_free(t);
    if (rc != 0) {
        grader_rung_free(r);
        return NULL;
    }
    return r;
}

static void test_rows(void **state)
{
    char row[2048], hex[17], text[8192];
    struct grader_rung *r;

    (void)state;
    grader_code_hash("x = 1\n", 6, hex);
    snprintf(row, sizeof(row),
             "{\"id\":\"a\",\"reference\":\"%s\",\"content\":\"```python\\nx "
             "= 1\\n```\",\"exec\":\"timeout\",\"tests_passed\":0,"
             "\"tests_total\":4,\"exception\":null,\"code_hash\":\"%s\","
             "\"exec_output\":\"looping\\n\"}\n",
             hash64, hex);
    snprintf(text, sizeof(text), "%s", row);
    snprintf(row, sizeof(row),
             "{\"id\":\"b\",\"reference\":\"%s\",\"content\":\"```python\\nx "
             "= 1\\n```\",\"exec\":\"passed\",\"tests_passed\":4,"
             "\"tests_total\":4,\"exception\":null,\"code_hash\":\"%s\"}\n",
             hash64, hex);
    strcat(text, row);
    snprintf(row, sizeof(row),
             "{\"id\":\"c\",\"reference\":\"%s\",\"content\":\"words\","
             "\"exec\":\"no_code\",\"tests_passed\":null,\"tests_total\":null,"
             "\"exception\":null,\"code_hash\":null}\n",
             hash64);
    strcat(text, row);
    /* an error row: wrong, no outcome */
    snprintf(row, sizeof(row),
             "{\"id\":\"d\",\"reference\":\"%s\",\"content\":null,"
             "\"error\":\"HTTP 500\",\"exec\":null}\n",
             hash64);
    strcat(text, row);
    r = read_rows(text, 0, NULL);
    assert_int_equal(r->n, 4);
    assert_int_equal(grader_answer_outcome(&r->answers[0]),
                     GRADER_EXEC_TIMEOUT);
    assert_false(grader_answer_right(&r->answers[0]));
    assert_int_equal(grader_answer_outcome(&r->answers[1]),
                     GRADER_EXEC_PASSED);
    assert_true(grader_answer_right(&r->answers[1]));
    assert_int_equal(grader_answer_outcome(&r->answers[2]),
                     GRADER_EXEC_NO_CODE);
    assert_int_equal(grader_answer_outcome(&r->answers[3]), -1);
    /* an outcome is no tool call's bucket */
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(grader_answer_bucket(&r->answers[i]), -1);
    grader_rung_free(r);

    /* an outcome not in the list, a hash that differs, no outcome */
    snprintf(text, sizeof(text),
             "{\"id\":\"a\",\"reference\":\"%s\",\"content\":\"x\","
             "\"exec\":\"maybe\"}\n",
             hash64);
    assert_null(read_rows(text, GRADER_EPARSE, "\"exec\" must be one of"));
    snprintf(
        text, sizeof(text),
        "{\"id\":\"a\",\"reference\":\"%s\",\"content\":\"```\\ny\\n```\","
        "\"exec\":\"passed\",\"code_hash\":\"%s\"}\n",
        hash64, hex);
    assert_null(read_rows(text, GRADER_EARG, "hash differs"));
    snprintf(text, sizeof(text),
             "{\"id\":\"a\",\"reference\":\"%s\",\"content\":\"```\\ny\\n```\""
             "}\n",
             hash64);
    assert_null(read_rows(text, GRADER_EARG, "no recorded outcome"));
    /* a reference that is no sha256 */
    snprintf(text, sizeof(text),
             "{\"id\":\"a\",\"reference\":\"abc\",\"content\":\"x\","
             "\"exec\":\"no_code\"}\n");
    assert_null(read_rows(text, GRADER_EPARSE, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_extract), cmocka_unit_test(test_names),
        cmocka_unit_test(test_grade),   cmocka_unit_test(test_rules_fit),
        cmocka_unit_test(test_rows),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
