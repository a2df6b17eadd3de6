/*
 * test_grader_task.c - tasks and their rules (grader/task.h): every built-in
 * task builds, each rule grades as its source does (lm-eval's filters on
 * peers-2.md 4.4's vectors and more, the last \boxed{}, a choice letter,
 * llama-eval's digits), prompts fill, references parse, and every
 * allocation failure is an error that leaks nothing.
 *
 * Tests: grader/task.c
 * Tests: grader/task_builtin.c
 * Tests: grader/task_grade.c
 * Tests: grader/alloc.c
 * Tests: grader/task_calls.c
 * Tests: toolcall/summary.c
 */
#include "helpers.h"

#include <stdio.h>

#include "alloc.h"
#include "chaos.h"
#include "error.h"
#include "task.h"
#include "../../toolcall/toolcall.h"

/* A tool item: its docs, possible answers and a reply's calls. */
#define TOOL_DOCS                                                             \
    "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","         \
    "\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":"           \
    "{\"type\":\"string\"},\"days\":{\"type\":\"number\"}},"                  \
    "\"required\":[\"city\"]}}}]"
#define TOOL_ANSWERS                                                          \
    "[{\"get_weather\":{\"city\":[\"Paris\"],\"days\":[2,\"\"]}}]"
#define TOOL_CALLS                                                            \
    "[{\"name\":\"get_weather\",\"arguments\":\"{\\\"days\\\": 2, "           \
    "\\\"city\\\": \\\"Paris\\\"}\"}]"

static struct grader_task *builtin(const char *name)
{
    int rc;
    struct grader_task *t = grader_task_builtin(name, &rc);

    if (t == NULL)
        fail_msg("built-in task '%s': %d", name, rc);
    return t;
}

/* Grade reply by the rule named rule of t against ref; expect right and
 * the extracted text (NULL: nothing said). */
static void expect(const struct grader_task *t, const char *rule,
                   const char *reply, const char *ref, int right,
                   const char *extracted)
{
    struct grader_num canon;
    struct grader_grade g;
    long i = grader_task_rule_index(t, rule);

    if (i < 0)
        fail_msg("task '%s' has no rule '%s'", grader_task_name(t), rule);
    if (grader_task_ref_parse(t, ref, strlen(ref), &canon) != 0)
        fail_msg("reference '%s' does not parse", ref);
    assert_int_equal(grader_task_grade(t, (size_t)i, reply,
                                       reply ? strlen(reply) : 0, ref,
                                       strlen(ref), &canon, &g),
                     0);
    if (g.right != right)
        fail_msg("%s/%s on '%s': right %d, expected %d (extracted '%s')",
                 grader_task_name(t), rule, reply ? reply : "(null)", g.right,
                 right, g.extracted);
    if (extracted == NULL ? g.said
                          : !g.said || strcmp(g.extracted, extracted) != 0)
        fail_msg("%s/%s on '%s': extracted '%s' (said %d), expected '%s'",
                 grader_task_name(t), rule, reply ? reply : "(null)",
                 g.extracted, g.said, extracted ? extracted : "(nothing)");
}

static void test_builtins(void **state)
{
    const char *name;
    size_t i, j;

    (void)state;
    for (i = 0; (name = grader_task_builtin_name(i)) != NULL; i++) {
        struct grader_task *t = builtin(name);
        assert_non_null(grader_task_builtin_about(i));
        assert_non_null(grader_task_prompt(t));
        assert_true(grader_task_nrules(t) >= 1);
        for (j = 0; j < i; j++)
            assert_string_not_equal(grader_task_builtin_name(j), name);
        grader_task_free(t);
    }
    assert_true(i >= 7);
    {
        int rc;
        assert_null(grader_task_builtin("no-such-task", &rc));
        assert_int_equal(rc, GRADER_EARG);
    }
    /* the default task is the study's prompt and rule, unchanged */
    {
        struct grader_task *t = builtin("answer-line");
        assert_string_equal(grader_task_prompt(t), grader_prompt_answer_line);
        assert_int_equal(grader_task_rule_kind(t, 0), GRADER_RULE_ANSWER_LINE);
        assert_int_equal(grader_task_nstops(t), 0);
        expect(t, "answer-line", "so 5 * 4 = 20\nAnswer: $1,072.00", "1072", 1,
               "1072");
        expect(t, "answer-line", "Answer: 17", "13", 0, "17");
        expect(t, "answer-line", NULL, "13", 0, NULL);
        grader_task_free(t);
    }
}

/* peers-2.md 4.4: lm-eval's gsm8k and gsm8k_cot on a reference that
 * normalizes to 1072, quirks included */
static void test_lm_eval_vectors(void **state)
{
    struct grader_task *g = builtin("lm-eval-gsm8k");
    struct grader_task *c = builtin("lm-eval-gsm8k-cot");
    const char *ref = "1,072";

    (void)state;
    expect(g, "strict-match", "She sold 1,072 clips.\n#### 1,072", ref, 1,
           "1,072");
    expect(g, "flexible-extract", "She sold 1,072 clips.\n#### 1,072", ref, 1,
           "1,072");
    expect(c, "strict-match", "She sold 1,072 clips.\n#### 1,072", ref, 0,
           NULL);
    expect(g, "strict-match", "#### $1,072", ref, 0, NULL);
    expect(g, "flexible-extract", "#### $1,072", ref, 1, "$1,072");
    /* the unescaped '.' eats the last digit */
    expect(c, "strict-match", "The answer is 1072", ref, 0, "107");
    expect(g, "flexible-extract", "The answer is 1072", ref, 1, "1072");
    expect(c, "strict-match", "The answer is 1072.", ref, 1, "1072");
    expect(g, "flexible-extract", "The answer is 1072.", ref, 1, "1072.");
    /* why stop strings matter: the task's "Question:" cuts the reply
     * (the server would have stopped there) */
    expect(g, "flexible-extract",
           "In total 1072 clips.\n\nQuestion: Tom has 3 apples", ref, 1,
           "1072");
    expect(g, "flexible-extract", "It is 1,072...", ref, 0, "1,072...");
    expect(g, "flexible-extract", "Between 3-4 days", ref, 0, "-4");
    expect(g, "flexible-extract", "Answer: 1072.00", ref, 0, "1072.00");
    expect(g, "strict-match", "", ref, 0, NULL);
    expect(g, "flexible-extract", "", ref, 0, NULL);
    expect(c, "strict-match", "", ref, 0, NULL);
    expect(g, "strict-match", NULL, ref, 0, NULL);
    /* more: a negative, ignore_case on both sides, the reference's own
     * "$" and "," removed, the first strict match taken */
    expect(g, "strict-match", "#### -5\n#### 7", "-5", 1, "-5");
    expect(g, "flexible-extract", "so $18 in all", "18", 1, "$18");
    expect(g, "flexible-extract", "a 7 then 12", "12", 1, "12");
    expect(c, "flexible-extract", "Q: 5", "5", 0, NULL);
    grader_task_free(g);
    grader_task_free(c);
}

static void test_boxed(void **state)
{
    struct grader_task *t = builtin("boxed");

    (void)state;
    expect(t, "boxed", "so \\boxed{1{,}072}", "1072", 1, "1,072");
    expect(t, "boxed", "\\boxed{12} no, \\boxed{ 18 }", "18", 1, "18");
    expect(t, "boxed", "\\boxed {\\$18}", "18", 1, "$18");
    expect(t, "boxed", "\\boxed{\\text{18}}", "18", 1, "18");
    expect(t, "boxed", "\\boxed{18 \\text{ dollars}}", "18", 0, "18  dollars");
    expect(t, "boxed", "\\boxed{\\frac{1}{2}}", "18", 0, "\\frac{1}{2}");
    /* a last box that never closes is no answer, the earlier not used */
    expect(t, "boxed", "\\boxed{5} then \\boxed{6", "5", 0, NULL);
    expect(t, "boxed", "the boxed answer is 5", "5", 0, NULL);
    expect(t, "boxed", "\\boxed{}", "5", 0, NULL);
    expect(t, "boxed", "\\boxedx{5}", "5", 0, NULL);
    grader_task_free(t);
}

/* llama-eval's regex grader, quirks included (docs/tasks.md) */
static void test_llama_eval(void **state)
{
    struct grader_task *t = builtin("llama-eval-gsm8k");
    char eleven[256];

    (void)state;
    expect(t, "llama-eval", "9 * 2 = 18\n\n\\boxed{18}", "18", 1, "18");
    expect(t, "llama-eval", "\\boxed{18}. (Check: 9*2=18)", "18", 1, "18");
    expect(t, "llama-eval", "\\boxed{18} and 3 more", "18", 0, "3");
    expect(t, "llama-eval", "It is $18.00", "18", 0, "00");
    expect(t, "llama-eval", "It is 1,072", "1,072", 0, "072");
    /* the gold is the reference's leading digits: "1,072" is 1 */
    expect(t, "llama-eval", "so 1", "1,072", 1, "1");
    expect(t, "llama-eval", "-5", "-5", 0, "5");
    expect(t, "llama-eval", "it is 07", "7", 0, "07");
    expect(t, "llama-eval", "it is 7", "007", 1, "7");
    expect(t, "llama-eval", "no digits", "7", 0, NULL);
    /* only the last 10 lines: an 11th line back is not read */
    snprintf(eleven, sizeof(eleven), "7\n%s", "a\nb\nc\nd\ne\nf\ng\nh\ni\nj");
    expect(t, "llama-eval", eleven, "7", 0, NULL);
    snprintf(eleven, sizeof(eleven), "7\n%s", "a\nb\nc\nd\ne\nf\ng\nh\ni");
    expect(t, "llama-eval", eleven, "7", 1, "7");
    expect(t, "boxed", "\\boxed{18}", "18", 1, "18");
    assert_string_equal(grader_task_rule_name(t, 0), "llama-eval");
    grader_task_free(t);
}

static void test_choice(void **state)
{
    struct grader_task *t = builtin("choice");
    struct grader_num n;

    (void)state;
    expect(t, "choice", "It is the second.\nAnswer: B", "B", 1, "B");
    expect(t, "choice", "**Answer:** (c)", "C", 1, "C");
    expect(t, "choice", "Answer: [D].", "d", 1, "D");
    expect(t, "choice", "Answer: A\nWait.\nAnswer: C", "A", 0, "C");
    /* prose after the colon is not a letter */
    expect(t, "choice", "Answer: a total of 5", "A", 0, NULL);
    expect(t, "choice", "Answer: Because", "B", 0, NULL);
    expect(t, "choice", "no answer line", "B", 0, NULL);
    assert_int_equal(grader_task_ref_parse(t, " b ", 3, &n), 0);
    assert_string_equal(n.s, "B");
    assert_int_equal(grader_task_ref_parse(t, "AB", 2, &n), -1);
    assert_int_equal(grader_task_ref_parse(t, "3", 1, &n), -1);
    grader_task_free(t);
}

static void test_prompt_fill(void **state)
{
    const char *choices[] = {"red", "green", "blue"};
    char *p;

    (void)state;
    p = grader_prompt_fill("Q: {question}\n{choices}\n\\boxed{} {x}", "Which?",
                           choices, 3);
    assert_string_equal(p,
                        "Q: Which?\nA. red\nB. green\nC. blue\n\\boxed{} {x}");
    grader_alloc_free(p);
    p = grader_prompt_fill("{question}{question}", "x", NULL, 0);
    assert_string_equal(p, "xx");
    grader_alloc_free(p);
}

/* lm-eval-gsm8k-cot's prompt, byte for byte as lm-eval assembles it:
 * tests/tasks/lm-eval-gsm8k-cot-context-doc2.txt is gsm8k_cot's context for
 * GSM8K test question 2 (its sha256 is the prompt_hash lm-eval logs for
 * it), and filling the task's template with that question must give the
 * whole file. */
static void test_cot_prompt(void **state)
{
    struct grader_task *t = builtin("lm-eval-gsm8k-cot");
    char want[8192], question[2048];
    const char *q, *a;
    size_t n;
    char *p;
    FILE *f = fopen("tests/tasks/lm-eval-gsm8k-cot-context-doc2.txt", "r");

    (void)state;
    assert_non_null(f);
    n = fread(want, 1, sizeof(want) - 1, f);
    fclose(f);
    want[n] = '\0';
    assert_int_equal(n, 2328);
    q = strstr(want, "Q: Josh decides");
    a = q ? strstr(q, "\nA:") : NULL;
    assert_non_null(a);
    memcpy(question, q + 3, (size_t)(a - q - 3));
    question[a - q - 3] = '\0';
    p = grader_prompt_fill(grader_task_prompt(t), question, NULL, 0);
    assert_string_equal(p, want);
    grader_alloc_free(p);
    grader_task_free(t);
}

static void test_user_task(void **state)
{
    const char *ignore[] = {"\\s+"};
    struct grader_task *t = grader_task_new("mine", GRADER_REF_NUMBER);
    char msg[256];

    (void)state;
    assert_non_null(t);
    assert_int_equal(
        grader_task_set_prompt(t, "no question", msg, sizeof(msg)),
        GRADER_EARG);
    assert_non_null(strstr(msg, "{question}"));
    assert_int_equal(grader_task_add_regex(t, "bad", "(unclosed", 0, "x", NULL,
                                           0, 0, msg, sizeof(msg)),
                     GRADER_EARG);
    assert_non_null(strstr(msg, "bad"));
    assert_int_equal(grader_task_add_rule(t, "letter", GRADER_RULE_CHOICE, msg,
                                          sizeof(msg)),
                     GRADER_EARG);
    assert_int_equal(grader_task_add_regex(t, "sum", "Sum: (\\d+) (\\d+)", 1,
                                           "none", ignore, 1, 1, msg,
                                           sizeof(msg)),
                     0);
    assert_int_equal(grader_task_add_regex(t, "sum", "x", 0, "", NULL, 0, 0,
                                           msg, sizeof(msg)),
                     GRADER_EARG);
    assert_non_null(strstr(msg, "two rules"));
    /* group_select 1: the second match; its first group */
    expect(t, "sum", "Sum: 1 2 and Sum: 3 4", "3", 1, "3");
    /* outside the matches (Python's IndexError): the fallback */
    expect(t, "sum", "Sum: 1 2", "1", 0, NULL);
    grader_task_free(t);
    /* ignore_case lowers both sides, whichever holds the capital */
    t = grader_task_new("letters", GRADER_REF_LETTER);
    assert_non_null(t);
    assert_int_equal(grader_task_add_regex(t, "said", "Answer: ([A-Za-z])", -1,
                                           "[invalid]", NULL, 0, 1, msg,
                                           sizeof(msg)),
                     0);
    expect(t, "said", "Answer: z", "Z", 1, "z");
    expect(t, "said", "Answer: Z", "z", 1, "Z");
    expect(t, "said", "Answer: A", "z", 0, "A");
    grader_task_free(t);
    /* strip() takes white space off both ends, as Python's does: the
     * shared pattern was compiled with its NUL, so \s+\Z never matched
     * and "42 " was compared with "42" */
    t = grader_task_new("tail", GRADER_REF_NUMBER);
    assert_non_null(t);
    assert_int_equal(grader_task_add_regex(t, "rest", "Answer:(.*)", -1,
                                           "[invalid]", NULL, 0, 0, msg,
                                           sizeof(msg)),
                     0);
    expect(t, "rest", "Answer:  42 \t\nmore", "42", 1, "42");
    expect(t, "rest", "Answer: 4 2 ", "42", 0, "4 2");
    grader_task_free(t);
}

/* A user's pattern that backtracks without end ((a+)+$ over a's then a
 * b: Python takes minutes) stops at its step budget: GRADER_ELIMIT, and
 * the reply graded by the rule's fallback, as lm-eval grades one where
 * nothing matched. The fallback is compared as any extraction is, so a
 * fallback that is the reference is right, as in lm-eval. */
static void test_step_limit(void **state)
{
    struct grader_task *t = grader_task_new("bt", GRADER_REF_NUMBER);
    struct grader_num canon;
    struct grader_grade g;
    char msg[256], reply[40];

    (void)state;
    memset(reply, 'a', 32);
    memcpy(reply + 32, "b", 2);
    assert_non_null(t);
    assert_int_equal(grader_task_add_regex(t, "tail", "(a+)+$", 0, "[invalid]",
                                           NULL, 0, 0, msg, sizeof(msg)),
                     0);
    assert_int_equal(grader_task_add_regex(t, "seven", "(a+)+$", 0, "7", NULL,
                                           0, 0, msg, sizeof(msg)),
                     0);
    assert_int_equal(grader_task_ref_parse(t, "7", 1, &canon), 0);
    memset(&g, 0x55, sizeof(g));
    assert_int_equal(
        grader_task_grade(t, 0, reply, strlen(reply), "7", 1, &canon, &g),
        GRADER_ELIMIT);
    assert_false(g.said);
    assert_false(g.right);
    assert_string_equal(g.extracted, "[invalid]");
    assert_string_equal(g.compared, "");
    memset(&g, 0x55, sizeof(g));
    assert_int_equal(
        grader_task_grade(t, 1, reply, strlen(reply), "7", 1, &canon, &g),
        GRADER_ELIMIT);
    assert_false(g.said);
    assert_true(g.right);
    assert_string_equal(g.extracted, "7");
    /* the same rule on a reply it can search grades as before */
    expect(t, "tail", "aaaa", "7", 0, "aaaa");
    expect(t, "seven", "xyz", "7", 1, NULL);
    grader_task_free(t);
}

/* Every allocation of building each built-in task and of grading by each
 * of its rules fails in turn: an error, and nothing leaked. */
/* A code item's reference: its tests' sha256. */
#define CODE_REF                                                              \
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

static void test_chaos(void **state)
{
    static const char reply[] =
        "The answer is 1,072.\n#### 1,072\n\\boxed{1072}\nAnswer: B";
    const char *name;
    size_t i, r;

    (void)state;
    for (i = 0; (name = grader_task_builtin_name(i)) != NULL; i++) {
        long n;
        for (n = 1;; n++) {
            struct grader_task *t;
            struct grader_num canon;
            struct grader_grade g;
            int rc = 0, failed = 0;
            grader_set_alloc(chaos_malloc, chaos_realloc, chaos_free);
            calls = 0;
            live = 0;
            fail_at = n;
            t = grader_task_builtin(name, &rc);
            if (t == NULL) {
                assert_int_equal(rc, GRADER_ENOMEM);
                failed = 1;
            }
            if (t != NULL && grader_task_ref(t) == GRADER_REF_CALLS) {
                /* a tool-call task: its docs, then a reply of calls */
                rc = grader_task_add_docs(t, "w", 1, TOOL_DOCS,
                                          strlen(TOOL_DOCS), NULL, 0);
                if (rc != 0) {
                    assert_int_equal(rc, GRADER_ENOMEM);
                    failed = 1;
                }
            }
            for (r = 0; t != NULL && r < grader_task_nrules(t); r++) {
                const char *ref = grader_task_ref(t) == GRADER_REF_LETTER ? "B"
                                  : grader_task_ref(t) == GRADER_REF_CALLS
                                      ? TOOL_ANSWERS
                                  : grader_task_ref(t) == GRADER_REF_CODE
                                      ? CODE_REF
                                      : "1,072";
                grader_task_ref_parse(t, ref, strlen(ref), &canon);
                if (grader_task_rule_kind(t, r) == GRADER_RULE_TOOLCALL) {
                    struct grader_reply rp = {"w",        1,
                                              reply,      strlen(reply),
                                              TOOL_CALLS, strlen(TOOL_CALLS), NULL};
                    rc = failed ? 0
                                : grader_task_grade_calls(t, r, &rp, ref,
                                                          strlen(ref), &g,
                                                          NULL, 0);
                } else if (grader_task_rule_kind(t, r) == GRADER_RULE_EXEC ||
                           grader_task_rule_kind(t, r) ==
                               GRADER_RULE_EXEC_BODY) {
                    /* a code task: the outcome its row records, of the
                     * code the rule takes from the reply (exec-body's:
                     * the whole reply) */
                    struct grader_exec e = {GRADER_EXEC_NO_CODE, -1, -1, NULL,
                                            0,                   NULL, 0};
                    struct grader_reply rp = {"w",  1, reply, strlen(reply),
                                              NULL, 0, &e};
                    size_t off, len;
                    char hex[17];
                    if (grader_code_extract(grader_task_rule_kind(t, r), reply,
                                            strlen(reply), &off, &len)) {
                        grader_code_hash(reply + off, len, hex);
                        e.outcome = GRADER_EXEC_FAILED;
                        e.code_hash = hex;
                        e.code_hash_len = 16;
                    }
                    rc = grader_task_grade_exec(t, r, &rp, &g, NULL, 0);
                } else
                    rc = grader_task_grade(t, r, reply, strlen(reply), ref,
                                           strlen(ref), &canon, &g);
                if (rc != 0) {
                    assert_int_equal(rc, GRADER_ENOMEM);
                    failed = 1;
                }
            }
            grader_task_free(t);
            fail_at = -1;
            grader_set_alloc(NULL, NULL, NULL);
            assert_int_equal(live, 0);
            if (!failed && calls < n)
                break;
        }
    }
}

/* A tool-call task (docs/toolcalls.md): the item's docs by id, a reply
 * graded by the checker into a verdict and a bucket, what it said as one
 * line of its calls (keys sorted, so two servers' spacing is one answer;
 * a long line cut with a hash), and each refusal named. */
static void grade_one(const struct grader_task *t, const char *id,
                      const char *list, const char *content,
                      struct grader_grade *g)
{
    struct grader_reply rp = {id,      strlen(id),
                              content, content ? strlen(content) : 0,
                              list,    list ? strlen(list) : 0, NULL};
    char why[300];
    int rc = grader_task_grade_calls(
        t, 0, &rp, TOOL_ANSWERS, strlen(TOOL_ANSWERS), g, why, sizeof(why));
    if (rc != 0)
        fail_msg("graded with %d: %s", rc, why);
}

static void test_tool_calls(void **state)
{
    struct grader_task *t;
    struct grader_grade g, g2;
    struct grader_num canon, canon2;
    char why[300], big[2000];
    int rc;

    (void)state;
    t = grader_task_builtin("tool-call", &rc);
    assert_non_null(t);
    assert_int_equal(grader_task_ref(t), GRADER_REF_CALLS);
    assert_int_equal(grader_task_rule_kind(t, 0), GRADER_RULE_TOOLCALL);
    assert_int_equal(grader_task_add_docs(t, "w", 1, TOOL_DOCS,
                                          strlen(TOOL_DOCS), why, sizeof(why)),
                     0);
    assert_int_equal(grader_task_add_docs(t, "w", 1, TOOL_DOCS,
                                          strlen(TOOL_DOCS), why, sizeof(why)),
                     GRADER_EARG);
    assert_string_equal(why, "tool item 'w' given twice");
    assert_int_equal(grader_task_ndocs(t), 1);
    /* right, with its keys in another order: the line sorts them */
    grade_one(t, "w", TOOL_CALLS, NULL, &g);
    assert_true(g.right);
    assert_int_equal(g.bucket, TOOLCALL_RIGHT);
    assert_int_equal(g.calls, 1);
    assert_true(g.said);
    assert_string_equal(g.extracted,
                        "get_weather({\"city\":\"Paris\",\"days\":2})");
    assert_string_equal(g.compared, g.extracted);
    /* the same call spaced otherwise is the same answer */
    grade_one(t, "w",
              "[{\"name\":\"get_weather\",\"arguments\":"
              "\"{\\\"city\\\":\\\"Paris\\\",\\\"days\\\":2}\"}]",
              "", &g2);
    assert_string_equal(g2.compared, g.compared);
    /* a wrong value, a wrong type, an unknown function, a leak, none */
    grade_one(t, "w",
              "[{\"name\":\"get_weather\",\"arguments\":"
              "\"{\\\"city\\\":\\\"Rome\\\"}\"}]",
              NULL, &g);
    assert_false(g.right);
    assert_int_equal(g.bucket, TOOLCALL_WRONG_VALUE);
    grade_one(t, "w",
              "[{\"name\":\"get_weather\",\"arguments\":"
              "\"{\\\"city\\\":7}\"}]",
              NULL, &g);
    assert_int_equal(g.bucket, TOOLCALL_WRONG_TYPE);
    grade_one(t, "w", "[{\"name\":\"nope\",\"arguments\":\"{}\"}]", NULL, &g);
    assert_int_equal(g.bucket, TOOLCALL_UNKNOWN_FUNCTION);
    grade_one(t, "w", "[]",
              "<tool_call>{\"name\": \"get_weather\", \"arguments\": "
              "{\"city\": \"Paris\"}}</tool_call>",
              &g);
    assert_int_equal(g.bucket, TOOLCALL_LEAKED);
    assert_false(g.said);
    assert_int_equal(g.calls, 0);
    grade_one(t, "w", NULL, "It is sunny.", &g);
    assert_int_equal(g.bucket, TOOLCALL_NO_CALL);
    /* a long call: cut, with a hash that keeps two apart */
    snprintf(big, sizeof(big),
             "[{\"name\":\"get_weather\",\"arguments\":"
             "\"{\\\"city\\\":\\\"%0300d\\\"}\"}]",
             1);
    grade_one(t, "w", big, NULL, &g);
    big[strlen(big) - 12] = '2';
    grade_one(t, "w", big, NULL, &g2);
    assert_int_equal(strlen(g.extracted), GRADER_GRADE_MAX - 1);
    assert_int_equal(g.extracted[GRADER_GRADE_MAX - 10], '~');
    assert_string_not_equal(g.compared, g2.compared);
    /* an item the task has no docs for, a rule that is not a tool rule */
    {
        struct grader_reply rp = {"x", 1, NULL, 0, NULL, 0, NULL};
        assert_int_equal(grader_task_grade_calls(t, 0, &rp, TOOL_ANSWERS,
                                                 strlen(TOOL_ANSWERS), &g, why,
                                                 sizeof(why)),
                         GRADER_EARG);
        assert_non_null(strstr(why, "no function docs for tool item 'x'"));
    }
    assert_int_equal(grader_task_grade(t, 0, "x", 1, TOOL_ANSWERS,
                                       strlen(TOOL_ANSWERS), &canon, &g),
                     GRADER_EARG);
    /* the reference: a JSON list's text, one line */
    assert_int_equal(
        grader_task_ref_parse(t, TOOL_ANSWERS, strlen(TOOL_ANSWERS), &canon),
        0);
    assert_int_equal(grader_task_ref_parse(t, "[]", 2, &canon2), 0);
    assert_string_not_equal(canon.s, canon2.s);
    assert_int_equal(grader_task_ref_parse(t, "70", 2, &canon2), -1);
    assert_int_equal(grader_task_ref_parse(t, "[\n]", 3, &canon2), -1);
    /* rules and references must fit */
    assert_int_equal(grader_task_add_regex(t, "re", "x", 0, "[invalid]", NULL,
                                           0, 0, why, sizeof(why)),
                     GRADER_EARG);
    assert_non_null(strstr(why, "tool calls' possible answers"));
    grader_task_free(t);
    t = grader_task_builtin("answer-line", &rc);
    assert_int_equal(
        grader_task_add_rule(t, "ast", GRADER_RULE_TOOLCALL, why, sizeof(why)),
        GRADER_EARG);
    assert_non_null(strstr(why, "reads tool calls' possible answers"));
    assert_int_equal(
        grader_task_add_docs(t, "w", 1, "[]", 2, why, sizeof(why)),
        GRADER_EARG);
    grader_task_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtins),
        cmocka_unit_test(test_lm_eval_vectors),
        cmocka_unit_test(test_boxed),
        cmocka_unit_test(test_llama_eval),
        cmocka_unit_test(test_choice),
        cmocka_unit_test(test_prompt_fill),
        cmocka_unit_test(test_cot_prompt),
        cmocka_unit_test(test_user_task),
        cmocka_unit_test(test_step_limit),
        cmocka_unit_test(test_chaos),
        cmocka_unit_test(test_tool_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
