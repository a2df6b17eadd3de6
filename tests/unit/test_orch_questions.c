/*
 * test_orch_questions.c - question files in both shapes, from the shared
 * GSM8K data (by path, never copied), and the prompt.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "questions.h"

/* the split ships with the project (data/gsm8k, MIT); GSM8K's full test
 * set stays in ../shared beside a checkout, and is read when it is there */
#define HELDOUT "data/gsm8k/heldout-250.jsonl"
#define TEST    "../shared/data/gsm8k/test.jsonl"

static const struct question *find(const struct questions *qs,
                                   const char *id)
{
    size_t i;

    for (i = 0; i < qs->n; i++)
        if (strcmp(qs->q[i].id, id) == 0)
            return &qs->q[i];
    return NULL;
}

static void test_heldout(void **state)
{
    struct questions qs;
    const struct question *q;
    char msg[512];

    (void)state;
    if (questions_load(HELDOUT, 0, &qs, msg, sizeof(msg)) != 0)
        fail_msg("%s", msg);
    assert_int_equal(qs.n, 250);
    assert_string_equal(qs.q[0].id, "test-788");
    q = find(&qs, "test-687"); /* the twins and triplets */
    assert_non_null(q);
    assert_string_equal(q->answer, "13");
    assert_non_null(strstr(q->text, "twin"));
    assert_non_null(find(&qs, "test-1166"));
    questions_release(&qs);
    assert_int_equal(questions_load(HELDOUT, 50, &qs, msg, sizeof(msg)), 0);
    assert_int_equal(qs.n, 50);
    questions_release(&qs);
}

/* GSM8K's own shape, from a file written here: no id, the reference after
 * the last "####", ids test-N by line (blank lines count). */
static void test_gsm8k_shape_sample(void **state)
{
    char path[] = "/tmp/graveyard-gsm8k-XXXXXX", msg[512];
    struct questions qs;
    FILE *f;
    int fd = mkstemp(path);

    (void)state;
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    fputs("{\"question\": \"Tom has 3 apples and gets 2 more.\", "
          "\"answer\": \"3 + 2 = 5\\n#### 5\"}\n"
          "\n"
          "{\"question\": \"A #### trick?\", \"answer\": \"#### 1\\n#### "
          "1,250\"}\n",
          f);
    fclose(f);
    if (questions_load(path, 0, &qs, msg, sizeof(msg)) != 0)
        fail_msg("%s", msg);
    unlink(path);
    assert_int_equal(qs.n, 2);
    assert_string_equal(qs.q[0].id, "test-0");
    assert_string_equal(qs.q[0].answer, "5");
    assert_string_equal(qs.q[1].id, "test-2");
    assert_string_equal(qs.q[1].answer, "1,250");
    questions_release(&qs);
}

static void test_gsm8k_shape(void **state)
{
    struct questions qs, held;
    char msg[512];
    size_t i;

    (void)state;
    if (access(TEST, R_OK) != 0) {
        /* a clone alone: the full test set is not shipped */
        print_message("skip: %s is not here (../shared beside the "
                      "checkout); the split is checked without it\n",
                      TEST);
        return;
    }
    if (questions_load(TEST, 0, &qs, msg, sizeof(msg)) != 0)
        fail_msg("%s", msg);
    assert_int_equal(qs.n, 1319);
    assert_string_equal(qs.q[0].id, "test-0");
    assert_string_equal(qs.q[0].answer, "18");
    /* the split agrees with the full file on every question it has */
    assert_int_equal(questions_load(HELDOUT, 0, &held, msg, sizeof(msg)), 0);
    for (i = 0; i < held.n; i++) {
        const struct question *q = find(&qs, held.q[i].id);
        assert_non_null(q);
        assert_string_equal(q->text, held.q[i].text);
    }
    questions_release(&held);
    questions_release(&qs);
}

static void expect_bad(const char *text, const char *words)
{
    char path[] = "/tmp/graveyard-q-XXXXXX", msg[512];
    struct questions qs;
    FILE *f;
    int fd = mkstemp(path);

    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    assert_int_equal(questions_load(path, 0, &qs, msg, sizeof(msg)), -1);
    unlink(path);
    if (strstr(msg, words) == NULL || strstr(msg, path) == NULL)
        fail_msg("message '%s' lacks '%s' or the path", msg, words);
}

static void test_bad_files(void **state)
{
    (void)state;
    expect_bad("{\"question\":\"q\",\"answer\":\"no marks\"}\n", ":1: no \"id\"");
    expect_bad("{\"id\":\"a\",\"question\":\"q\",\"answer\":\"1\"}\n"
               "{\"id\":\"a\",\"question\":\"q\",\"answer\":\"2\"}\n",
               ":2: duplicate id 'a'");
    expect_bad("{\"id\":\"a\",\"question\":\"q\",\"answer\":\"lots\"}\n",
               "not a number");
    expect_bad("{\"id\":\"a\",\"answer\":\"1\"}\n", "no \"question\"");
    expect_bad("\n\n{\"id\": \n", ":3: not a JSON object");
    expect_bad("\n", "no questions");
    expect_bad("", "no questions");
}

static void test_prompt(void **state)
{
    struct question q = {"test-1", "How many apples?", "3"};
    char *p = questions_prompt_for(questions_prompt, &q);

    (void)state;
    assert_non_null(strstr(p, "How many apples?"));
    assert_non_null(strstr(p, "Answer: <number>"));
    assert_null(strstr(p, "{question}"));
    free(p);
    p = questions_prompt_for("Q: {question}\nA:", &q);
    assert_string_equal(p, "Q: How many apples?\nA:");
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heldout),
        cmocka_unit_test(test_gsm8k_shape_sample),
        cmocka_unit_test(test_gsm8k_shape),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_prompt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
