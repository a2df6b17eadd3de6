/*
 * test_input_questions.c - question files in both shapes, from the shared
 * GSM8K data (by path, never copied), long items with their "answers"
 * lists (and each bad list refused naming its file and line), tool items
 * (docs/toolcalls.md: their tools, tool_choice and possible answers, each
 * bad one refused naming its file, line and key), long items made here
 * (a recipe whose prompt cannot be made: refused by the runner's load,
 * read by a reader of texts), and the prompt.
 *
 * Tests: orchestrator/input/questions.c
 * Tests: orchestrator/input/toolitem.c
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

#include "../../orchestrator/input/longitem.h"
#include "../../orchestrator/input/questions.h"

/* the split ships with the project (data/gsm8k, MIT); GSM8K's full test
 * set stays in ../shared beside a checkout, and is read when it is there */
#define HELDOUT "data/gsm8k/heldout-250.jsonl"
#define TEST    "../shared/data/gsm8k/test.jsonl"

static const struct question *find(const struct questions *qs, const char *id)
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
    /* each its line, the blank one counted (for messages) */
    assert_int_equal(qs.q[0].line, 1);
    assert_int_equal(qs.q[1].line, 3);
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
    expect_bad("{\"question\":\"q\",\"answer\":\"no marks\"}\n",
               ":1: no \"id\"");
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

/* lm-eval compares against GSM8K's whole solution; graveyard's rows keep
 * the text after "####". Its ignore list (",", "\\$", "(?s).*#### ",
 * "\\.$", then lower-case) must make the two the same on every test
 * question: a rule whose pattern takes the whole reply, graded with the
 * solution as the reply against the stored reference, is then right. */
static void test_lm_eval_reference(void **state)
{
    static const char *const ignore[] = {",", "\\$", "(?s).*#### ", "\\.$"};
    struct grader_task *t = grader_task_new("whole", GRADER_REF_NUMBER);
    char line[65536], msg[512];
    size_t n = 0;
    FILE *f;

    (void)state;
    assert_int_equal(grader_task_add_regex(t, "whole", "(?s).*", 0,
                                           "[invalid]", ignore, 4, 1, msg,
                                           sizeof(msg)),
                     0);
    if ((f = fopen(TEST, "r")) == NULL) {
        grader_task_free(t);
        return; /* no ../shared: as test_gsm8k_shape */
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        json_t *o = json_loads(line, 0, NULL);
        const char *sol = json_string_value(json_object_get(o, "answer"));
        const char *after = strrchr(sol, '#') + 1;
        struct grader_num canon;
        struct grader_grade g;
        while (*after == ' ')
            after++;
        assert_int_equal(
            grader_task_ref_parse(t, after, strlen(after), &canon), 0);
        assert_int_equal(grader_task_grade(t, 0, sol, strlen(sol), after,
                                           strlen(after), &canon, &g),
                         0);
        if (!g.right)
            fail_msg("test-%zu: the solution and '%s' normalize apart", n,
                     after);
        json_decref(o);
        n++;
    }
    fclose(f);
    grader_task_free(t);
    assert_int_equal(n, 1319);
}

/* The multiple-choice shapes of data/choice/tiny.jsonl, lettered. */
static void test_choice_shapes(void **state)
{
    static const char *const want[] = {"C", "B", "B", "C", "B", "B", "B", "B"};
    struct questions qs;
    char msg[512], *p;
    size_t i;

    (void)state;
    if (questions_load_as("data/choice/tiny.jsonl", 0, 1, &qs, msg,
                          sizeof(msg)) != 0)
        fail_msg("%s", msg);
    assert_int_equal(qs.n, 8);
    for (i = 0; i < qs.n; i++)
        assert_string_equal(qs.q[i].answer, want[i]);
    assert_string_equal(qs.q[4].text, "How many sides does a hexagon have?");
    assert_int_equal(qs.q[4].nchoices, 3);
    assert_string_equal(qs.q[3].choices[2], "carbon dioxide");
    p = questions_prompt_for("{question}\n{choices}", &qs.q[4]);
    assert_string_equal(p, "How many sides does a hexagon have?\n"
                           "A. five\nB. six\nC. eight");
    free(p);
    questions_release(&qs);
    /* the study's files are no multiple-choice files */
    assert_int_equal(questions_load_as(HELDOUT, 0, 1, &qs, msg, sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "choices"));
}

static void expect_bad_choice(const char *text, const char *words)
{
    char path[] = "/tmp/graveyard-q-XXXXXX", msg[512];
    struct questions qs;
    FILE *f;
    int fd = mkstemp(path);

    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    assert_int_equal(questions_load_as(path, 0, 1, &qs, msg, sizeof(msg)), -1);
    unlink(path);
    if (strstr(msg, words) == NULL || strstr(msg, path) == NULL)
        fail_msg("message '%s' lacks '%s' or the path", msg, words);
}

static void test_bad_choice_files(void **state)
{
    (void)state;
    expect_bad_choice("{\"question\":\"q\",\"choices\":[\"a\"],"
                      "\"answer\":0}\n",
                      ":1: a question needs 2 to 26 options");
    expect_bad_choice("{\"question\":\"q\",\"choices\":[\"a\",\"b\"],"
                      "\"answer\":2}\n",
                      "does not name one of the options");
    expect_bad_choice("{\"question\":\"q\",\"choices\":{\"text\":[\"a\","
                      "\"b\"],\"label\":[\"1\",\"2\"]},\"answerKey\":\"3\"}\n",
                      "does not name one of the options");
    expect_bad_choice("{\"question\":\"q\",\"choices\":{\"text\":[\"a\","
                      "\"b\"]},\"answerKey\":\"A\"}\n",
                      "\"label\"");
    expect_bad_choice("{\"question\":\"q\",\"choices\":[\"a\",7],"
                      "\"answer\":0}\n",
                      "not a string");
    expect_bad_choice("{\"id\":\"x\",\"question\":\"q\",\"choices\":"
                      "[\"a\",\"b\"],\"answer\":\"A\"}\n"
                      "{\"id\":\"x\",\"question\":\"q\",\"choices\":"
                      "[\"a\",\"b\"],\"answer\":\"B\"}\n",
                      ":2: duplicate id 'x'");
}

/* text written to a file and loaded as kind: 0, or -1 with msg. */
static int load_text(const char *text, enum grader_ref_kind kind,
                     struct questions *qs, char *msg, size_t msgsize,
                     char *path)
{
    FILE *f;
    int fd = mkstemp(path), rc;

    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    rc = questions_load_as(path, 0, kind, qs, msg, msgsize);
    unlink(path);
    return rc;
}

/* Long items: "prompt" or "question", "answers" (or RULER's "outputs")
 * joined one a line as the reference the grader's answers parse. */
static void test_answers(void **state)
{
    char path[] = "/tmp/graveyard-q-XXXXXX", msg[512];
    struct questions qs;

    (void)state;
    if (load_text("{\"id\":\"niah-1\",\"prompt\":\"long text\","
                  "\"answers\":[\"1234567\",\"uuid-x\"]}\n"
                  "{\"question\":\"q2\",\"outputs\":[\"ABCDE\"]}\n",
                  GRADER_REF_ANSWERS, &qs, msg, sizeof(msg), path) != 0)
        fail_msg("%s", msg);
    assert_int_equal(qs.n, 2);
    assert_string_equal(qs.q[0].id, "niah-1");
    assert_string_equal(qs.q[0].text, "long text");
    assert_string_equal(qs.q[0].answer, "1234567\nuuid-x");
    assert_string_equal(qs.q[1].id, "test-1");
    assert_string_equal(qs.q[1].answer, "ABCDE");
    questions_release(&qs);
}

/* A long item made here (docs/longctx.md) whose recipe reads but whose
 * prompt cannot be made (a fill over the 8 MiB prompt cap): the runner's
 * load (questions_load_as) refuses it, naming file, line and why, before
 * any server starts; a reader of texts (questions_load_texts: the report's
 * pages, the canary's subset) makes no prompt, so it loads, with its
 * recipe, summary and answers. */
static void test_long_render(void **state)
{
    char path[] = "/tmp/graveyard-q-XXXXXX", msg[512], *p;
    struct questions qs;
    FILE *f;
    int fd = mkstemp(path);

    (void)state;
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("{\"id\":\"ok\",\"long\":{\"kind\":\"niah-single\",\"seed\":7,"
          "\"index\":0,\"length\":1024,\"fill\":40}}\n"
          "{\"id\":\"big\",\"long\":{\"kind\":\"niah-single\",\"seed\":7,"
          "\"index\":1,\"length\":1024,\"fill\":4194304}}\n",
          f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(
        questions_load_as(path, 0, GRADER_REF_ANSWERS, &qs, msg, sizeof(msg)),
        -1);
    if (strstr(msg, path) == NULL ||
        strstr(msg, ":2: item 1 of niah-single at fill 4194304: over a cap") ==
            NULL)
        fail_msg("the runner's load said '%s'", msg);
    /* the first line alone loads, and its prompt is made for the runner */
    assert_int_equal(
        questions_load_as(path, 1, GRADER_REF_ANSWERS, &qs, msg, sizeof(msg)),
        0);
    p = questions_prompt_for("{question}", &qs.q[0]);
    assert_true(strlen(p) > strlen(qs.q[0].text));
    free(p);
    questions_release(&qs);
    if (questions_load_texts(path, 0, GRADER_REF_ANSWERS, &qs, msg,
                             sizeof(msg)) != 0)
        fail_msg("the texts' load said '%s'", msg);
    unlink(path);
    assert_int_equal(qs.n, 2);
    assert_string_equal(qs.q[1].id, "big");
    assert_non_null(qs.q[1].lng);
    assert_int_equal(qs.q[1].lng->fill, 4194304);
    assert_int_equal(qs.q[1].length, 1024);
    assert_non_null(strstr(qs.q[1].text, "niah-single item 1 (seed 7)"));
    assert_true(qs.q[1].answer[0] != '\0');
    questions_release(&qs);
}

static void expect_bad_answers(const char *text, const char *words)
{
    char path[] = "/tmp/graveyard-q-XXXXXX", msg[512];
    struct questions qs;

    assert_int_equal(
        load_text(text, GRADER_REF_ANSWERS, &qs, msg, sizeof(msg), path), -1);
    if (strstr(msg, words) == NULL || strstr(msg, path) == NULL)
        fail_msg("message '%s' lacks '%s' or the path", msg, words);
}

static void test_bad_answers(void **state)
{
    char line[6000];

    (void)state;
    expect_bad_answers("{\"prompt\":\"p\",\"answers\":\"7\"}\n",
                       ":1: \"answers\" must be a list of 1 to 32 strings");
    expect_bad_answers("{\"prompt\":\"p\",\"answers\":[]}\n",
                       ":1: \"answers\" must be a list of 1 to 32 strings");
    expect_bad_answers("{\"prompt\":\"p\",\"answer\":\"7\"}\n",
                       ":1: \"answers\" must be a list");
    expect_bad_answers("\n{\"prompt\":\"p\",\"answers\":[\"a\",7]}\n",
                       ":2: \"answers\" item 2 is not a string");
    expect_bad_answers("{\"prompt\":\"p\",\"answers\":[\"\"]}\n",
                       ":1: \"answers\" item 1 is empty");
    expect_bad_answers("{\"prompt\":\"p\",\"answers\":[\"a\\nb\"]}\n",
                       ":1: \"answers\" item 1 holds a control character");
    expect_bad_answers("{\"answers\":[\"a\"]}\n",
                       ":1: no \"prompt\" (or \"question\") text");
    expect_bad_answers("{\"prompt\":\"p\",\"question\":\"q\","
                       "\"answers\":[\"a\"]}\n",
                       "both \"prompt\" and \"question\"");
    expect_bad_answers("[1]\n", ":1: not a JSON object");
    snprintf(line, sizeof(line),
             "{\"prompt\":\"p\",\"answers\":[\"%01025d\"]}\n", 0);
    expect_bad_answers(line, ":1: \"answers\" item 1 is over the cap for "
                             "one (1024 bytes each, 4096 in all)");
    snprintf(line, sizeof(line),
             "{\"prompt\":\"p\",\"answers\":[\"%01000d\",\"%01000d\","
             "\"%01000d\",\"%01000d\",\"%0100d\"]}\n",
             1, 2, 3, 4, 5);
    expect_bad_answers(line, ":1: \"answers\" item 5 takes them over the "
                             "cap for all");
    expect_bad_answers("{\"id\":\"x\",\"prompt\":\"p\",\"answers\":[\"a\"]}\n"
                       "{\"id\":\"x\",\"prompt\":\"p\",\"answers\":[\"b\"]}\n",
                       ":2: duplicate id 'x'");
}

/* A tool item (docs/toolcalls.md), its tools and tool_choice kept as
 * compact JSON for the request, its possible answers the reference. */
#define TOOL_W                                                                \
    "{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","          \
    "\"description\":\"the weather\",\"parameters\":{\"type\":\"object\","    \
    "\"properties\":{\"city\":{\"type\":\"string\"}}}}}"
#define TOOL_T                                                                \
    "{\"type\":\"function\",\"function\":{\"name\":\"get.time-2_x\"}}"

static void test_tools(void **state)
{
    char path[] = "/tmp/graveyard-q-XXXXXX", msg[512];
    char path2[] = "/tmp/graveyard-q-XXXXXX";
    char path3[] = "/tmp/graveyard-q-XXXXXX";
    char path4[] = "/tmp/graveyard-q-XXXXXX";
    char path5[] = "/tmp/graveyard-q-XXXXXX";
    char path6[] = "/tmp/graveyard-q-XXXXXX";
    struct questions qs;

    (void)state;
    if (load_text("{\"id\":\"w1\",\"question\":\"Weather in Paris?\","
                  "\"tools\":[" TOOL_W "," TOOL_T "],"
                  "\"tool_choice\":{\"type\":\"function\",\"function\":"
                  "{\"name\":\"get_weather\"}},"
                  "\"possible\":[{\"get_weather\":{\"city\":[\"Paris\","
                  "\"paris\"]}}]}\n"
                  "{\"id\":\"w2\",\"question\":\"Hello\",\"tools\":[" TOOL_T
                  "],\"tool_choice\":\"none\",\"possible\":[]}\n"
                  "{\"id\":\"w3\",\"question\":\"q\",\"tools\":[" TOOL_T
                  "],\"possible\":[]}\n",
                  GRADER_REF_CALLS, &qs, msg, sizeof(msg), path) != 0)
        fail_msg("%s", msg);
    assert_int_equal(qs.n, 3);
    assert_string_equal(qs.q[0].id, "w1");
    assert_string_equal(qs.q[0].text, "Weather in Paris?");
    assert_string_equal(
        qs.q[0].answer,
        "[{\"get_weather\":{\"city\":[\"Paris\",\"paris\"]}}]");
    assert_string_equal(qs.q[0].tools, "[" TOOL_W "," TOOL_T "]");
    assert_string_equal(qs.q[0].tool_choice,
                        "{\"type\":\"function\",\"function\":"
                        "{\"name\":\"get_weather\"}}");
    assert_string_equal(qs.q[1].answer, "[]");
    assert_string_equal(qs.q[1].tool_choice, "\"none\"");
    assert_null(qs.q[2].tool_choice);
    questions_release(&qs);
    /* every other reader refuses them (their references are possible
     * calls, which only a tool-call task grades), and the tool-call
     * reader refuses anything else */
    assert_int_equal(load_text("{\"id\":\"w1\",\"question\":\"q\","
                               "\"tools\":[" TOOL_T "],\"possible\":[]}\n",
                               GRADER_REF_NUMBER, &qs, msg, sizeof(msg),
                               path3),
                     -1);
    assert_non_null(strstr(msg, ":1: a tool item (it has \"tools\"): run it "
                                "with a task that grades tool calls "
                                "(--task tool-call"));
    assert_int_equal(load_text("{\"id\":\"w1\",\"question\":\"q\","
                               "\"tools\":[" TOOL_T "],\"possible\":[]}\n",
                               GRADER_REF_LETTER, &qs, msg, sizeof(msg),
                               path4),
                     -1);
    assert_non_null(strstr(msg, ":1: a tool item (it has \"tools\"): run it "
                                "with a task that grades tool calls "
                                "(--task tool-call"));
    assert_int_equal(load_text("{\"id\":\"w1\",\"question\":\"q\","
                               "\"tools\":[" TOOL_T "],\"possible\":[]}\n",
                               GRADER_REF_ANSWERS, &qs, msg, sizeof(msg),
                               path5),
                     -1);
    assert_non_null(strstr(msg, ":1: a tool item (it has \"tools\"): run it "
                                "with a task that grades tool calls"));
    assert_int_equal(load_text("{\"id\":\"n1\",\"question\":\"q\","
                               "\"answer\":\"5\"}\n",
                               GRADER_REF_CALLS, &qs, msg, sizeof(msg), path6),
                     -1);
    assert_non_null(strstr(msg, ":1: not a tool item (no \"tools\")"));
    if (load_text("{\"id\":\"w1\",\"question\":\"q\",\"tools\":[" TOOL_T
                  "],\"possible\":[{\"get.time-2_x\":{}}]}\n",
                  GRADER_REF_CALLS, &qs, msg, sizeof(msg), path2) != 0)
        fail_msg("%s", msg);
    assert_string_equal(qs.q[0].answer, "[{\"get.time-2_x\":{}}]");
    questions_release(&qs);
}

static void expect_bad_tools(const char *text, const char *words)
{
    char path[] = "/tmp/graveyard-q-XXXXXX", msg[512];
    struct questions qs;

    assert_int_equal(
        load_text(text, GRADER_REF_CALLS, &qs, msg, sizeof(msg), path), -1);
    if (strstr(msg, words) == NULL || strstr(msg, path) == NULL)
        fail_msg("message '%s' lacks '%s' or the path", msg, words);
}

#define TOOL_LINE(tools, rest)                                                \
    "{\"id\":\"t\",\"question\":\"q\",\"tools\":" tools rest "}\n"

static void test_bad_tools(void **state)
{
    char line[5000];

    (void)state;
    expect_bad_tools(TOOL_LINE("[]", ",\"possible\":[]"),
                     ":1: \"tools\" must be a list of 1 to 128 functions");
    expect_bad_tools(TOOL_LINE("{}", ",\"possible\":[]"),
                     ":1: \"tools\" must be a list of 1 to 128 functions");
    expect_bad_tools(TOOL_LINE("[7]", ",\"possible\":[]"),
                     ":1: \"tools\" item 1 is not a JSON object");
    expect_bad_tools(
        TOOL_LINE("[{\"type\":\"function\"}]", ",\"possible\":[]"),
        ":1: \"tools\" item 1 has no \"function\" object");
    expect_bad_tools(
        TOOL_LINE("[{\"type\":\"code\",\"function\":{\"name\":\"f\"}}]",
                  ",\"possible\":[]"),
        ":1: \"tools\" item 1: \"type\" must be \"function\"");
    expect_bad_tools(
        TOOL_LINE("[{\"type\":\"function\",\"function\":{\"name\":7}}]",
                  ",\"possible\":[]"),
        ":1: \"tools\" item 1: \"function\".\"name\" must be 1 to 64 of "
        "A-Z a-z 0-9 _ . -");
    expect_bad_tools(TOOL_LINE("[" TOOL_T ",{\"type\":\"function\","
                               "\"function\":{\"name\":\"a b\"}}]",
                               ",\"possible\":[]"),
                     ":1: \"tools\" item 2: \"function\".\"name\" must be");
    snprintf(line, sizeof(line),
             TOOL_LINE("[{\"type\":\"function\",\"function\":{\"name\":"
                       "\"%065d\"}}]",
                       ",\"possible\":[]"),
             0);
    expect_bad_tools(line, "\"function\".\"name\" must be 1 to 64");
    expect_bad_tools(
        TOOL_LINE("[{\"type\":\"function\",\"function\":{\"name\":\"f\","
                  "\"parameters\":[]}}]",
                  ",\"possible\":[]"),
        ":1: \"tools\" item 1: \"function\".\"parameters\" must be a JSON "
        "object");
    expect_bad_tools(TOOL_LINE("[" TOOL_T "," TOOL_T "]", ",\"possible\":[]"),
                     ":1: \"tools\" item 2 names 'get.time-2_x' again");
    expect_bad_tools(
        TOOL_LINE("[" TOOL_T "]", ",\"tool_choice\":\"any\",\"possible\":[]"),
        ":1: \"tool_choice\" must be \"auto\", \"required\", "
        "\"none\" or {\"type\": \"function\", \"function\": "
        "{\"name\": ...}}");
    expect_bad_tools(TOOL_LINE("[" TOOL_T "]",
                               ",\"tool_choice\":{\"type\":\"function\","
                               "\"function\":{\"name\":\"nope\"}},"
                               "\"possible\":[]"),
                     ":1: \"tool_choice\" names 'nope', which is not in "
                     "\"tools\"");
    expect_bad_tools(TOOL_LINE("[" TOOL_T "]", ""),
                     ":1: \"possible\" must be a list of calls");
    expect_bad_tools(TOOL_LINE("[" TOOL_T "]", ",\"possible\":{}"),
                     ":1: \"possible\" must be a list of calls");
    expect_bad_tools(TOOL_LINE("[" TOOL_T "]", ",\"possible\":[7]"),
                     ":1: \"possible\" item 1 must be {\"FUNCTION\": "
                     "{\"ARG\": [VALUES...]}}");
    expect_bad_tools(
        TOOL_LINE("[" TOOL_T "]", ",\"possible\":[{\"f\":{},\"g\":{}}]"),
        ":1: \"possible\" item 1 must be {\"FUNCTION\"");
    expect_bad_tools(TOOL_LINE("[" TOOL_T "]",
                               ",\"possible\":[{\"get.time-2_x\":"
                               "{\"a\":7}}]"),
                     ":1: \"possible\" item 1 must be {\"FUNCTION\"");
    expect_bad_tools(
        TOOL_LINE("[" TOOL_T "]", ",\"possible\":[{\"other\":{}}]"),
        ":1: \"possible\" item 1 names 'other', which is not "
        "in \"tools\"");
    snprintf(line, sizeof(line),
             TOOL_LINE("[" TOOL_T "]", ",\"possible\":[{\"get.time-2_x\":"
                                       "{\"a\":[\"%04090d\"]}}]"),
             0);
    expect_bad_tools(line, ":1: \"possible\" is over 4095 bytes as compact "
                           "JSON");
    expect_bad_tools(
        TOOL_LINE("[" TOOL_T "]", ",\"possible\":[],\"answer\":\"5\""),
        ":1: a tool item has no \"answer\"");
    expect_bad_tools("{\"id\":\"t\",\"tools\":[" TOOL_T "],\"possible\":[]}\n",
                     ":1: no \"question\" text");
    expect_bad_tools("{\"id\":\"\",\"question\":\"q\",\"tools\":[" TOOL_T
                     "],\"possible\":[]}\n",
                     ":1: \"id\" must be a non-empty string");
    expect_bad_tools(TOOL_LINE("[" TOOL_T "]", ",\"possible\":[]")
                         TOOL_LINE("[" TOOL_T "]", ",\"possible\":[]"),
                     ":2: duplicate id 't'");
}

static void test_prompt(void **state)
{
    struct question q = {
        "test-1", "How many apples?", "3", NULL, 0, 1, -1, -1, NULL, NULL,
        NULL, NULL};
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
        cmocka_unit_test(test_lm_eval_reference),
        cmocka_unit_test(test_choice_shapes),
        cmocka_unit_test(test_bad_choice_files),
        cmocka_unit_test(test_answers),
        cmocka_unit_test(test_bad_answers),
        cmocka_unit_test(test_long_render),
        cmocka_unit_test(test_tools),
        cmocka_unit_test(test_bad_tools),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
