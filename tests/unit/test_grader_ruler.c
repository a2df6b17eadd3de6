/*
 * test_grader_ruler.c - the RULER rules and their references (task.h,
 * grader/ruler.c): a list of expected strings parses, and a bad one (empty,
 * an empty item, a control character, too many, too long) is refused;
 * ruler-all is right when every string is in the reply and ruler-part when
 * one is, lower-cased as Python does, after lm-eval's post-processing; the
 * share is kept as "k/n" and which were found as "1"/"0"; a RULER rule
 * only on a task of lists and no other rule on one; every allocation
 * failure is an error that leaks nothing. (Parity with lm-eval's Python on
 * 500+ replies: tests/tasks/ruler_diff.py.)
 *
 * Tests: grader/ruler.c
 * Tests: grader/task.c
 * Tests: grader/task_builtin.c
 */
#include "helpers.h"

#include <stdio.h>

#include "alloc.h"
#include "chaos.h"
#include "error.h"
#include "task.h"

static struct grader_task *ruler(void)
{
    int rc;
    struct grader_task *t = grader_task_builtin("ruler", &rc);

    if (t == NULL)
        fail_msg("built-in task 'ruler': %d", rc);
    return t;
}

/* rule (0 all, 1 part) on text against answers (one a line). */
static void expect(const struct grader_task *t, size_t rule, const char *text,
                   const char *answers, int right, const char *share,
                   const char *found)
{
    struct grader_num canon;
    struct grader_grade g;

    if (grader_task_ref_parse(t, answers, strlen(answers), &canon) != 0)
        fail_msg("answers '%s' refused", answers);
    assert_int_equal(grader_task_grade(t, rule, text, text ? strlen(text) : 0,
                                       answers, strlen(answers), &canon, &g),
                     0);
    if (g.right != right || strcmp(g.extracted, share) != 0 ||
        strcmp(g.compared, found) != 0)
        fail_msg("%s on '%s' against '%s': right %d '%s' '%s', want %d '%s' "
                 "'%s'",
                 rule ? "ruler-part" : "ruler-all", text ? text : "(null)",
                 answers, g.right, g.extracted, g.compared, right, share,
                 found);
}

static void test_builtin(void **state)
{
    struct grader_task *t = ruler();

    (void)state;
    assert_int_equal(grader_task_ref(t), GRADER_REF_ANSWERS);
    assert_string_equal(grader_task_prompt(t), "{question}");
    assert_int_equal(grader_task_nrules(t), 2);
    assert_string_equal(grader_task_rule_name(t, 0), "ruler-all");
    assert_int_equal(grader_task_rule_kind(t, 0), GRADER_RULE_RULER_ALL);
    assert_string_equal(grader_task_rule_name(t, 1), "ruler-part");
    assert_int_equal(grader_task_rule_kind(t, 1), GRADER_RULE_RULER_PART);
    grader_task_free(t);
}

static void test_all_and_part(void **state)
{
    struct grader_task *t = ruler();

    (void)state;
    expect(t, 0, "It is 1234567.", "1234567", 1, "1/1", "1");
    expect(t, 0, "1111111 and 3333333", "1111111\n2222222\n3333333", 0, "2/3",
           "101");
    expect(t, 1, "1111111 and 3333333", "1111111\n2222222\n3333333", 1, "2/3",
           "101");
    expect(t, 1, "nothing here", "1111111\n2222222", 0, "0/2", "00");
    expect(t, 0, "12345678", "1234567", 1, "1/1", "1"); /* substring */
    expect(t, 0, "1,234,567", "1234567", 0, "0/1", "0");
    /* lower-cased both sides, as Python's str.lower() */
    expect(t, 0, "QWERT asdfg", "qwert\nASDFG", 1, "2/2", "11");
    expect(t, 0, "\xe2\x84\xaa", "k", 1, "1/1", "1"); /* Kelvin sign */
    expect(t, 0, "STRASSE",
           "Stra\xc3\x9f"
           "e",
           0, "0/1", "0");
    /* post-processing: stripped, control characters made newlines */
    expect(t, 0, " 42", " 42", 0, "0/1", "0");
    expect(t, 0, "x 42", " 42", 1, "1/1", "1");
    expect(t, 0,
           "12\x01"
           "34",
           "12\n34", 1, "2/2", "11");
    /* no reply: nothing found, nothing said */
    expect(t, 0, NULL, "7", 0, "0/1", "0");
    expect(t, 1, "", "7", 0, "0/1", "0");
    grader_task_free(t);
}

static void test_said(void **state)
{
    struct grader_task *t = ruler();
    struct grader_num canon;
    struct grader_grade g;

    (void)state;
    assert_int_equal(grader_task_ref_parse(t, "7", 1, &canon), 0);
    assert_int_equal(grader_task_grade(t, 0, " \t\n ", 4, "7", 1, &canon, &g),
                     0);
    assert_false(g.said);
    assert_int_equal(grader_task_grade(t, 0, "8", 1, "7", 1, &canon, &g), 0);
    assert_true(g.said);
    assert_false(g.right);
    grader_task_free(t);
}

static void test_references(void **state)
{
    static const char *const bad[] = {
        "", "\n", "a\n", "\na", "a\n\nb", "a\tb", "a\rb", "a\x7f",
    };
    struct grader_task *t = ruler();
    struct grader_num a, b;
    char big[GRADER_ANSWERS_BYTES + 2], many[3 * GRADER_ANSWERS_MAX + 8];
    size_t i, n = 0;

    (void)state;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (grader_task_ref_parse(t, bad[i], strlen(bad[i]), &a) == 0)
            fail_msg("answers '%s' taken", bad[i]);
    assert_int_equal(grader_task_ref_parse(t, "x\ny", 3, &a), 0);
    assert_int_equal(strncmp(a.s, "answers:2:", 10), 0);
    assert_true(a.v == 2);
    assert_int_equal(grader_task_ref_parse(t, "x\nz", 3, &b), 0);
    assert_string_not_equal(a.s, b.s); /* other lists, other forms */
    /* one answer over GRADER_ANSWER_BYTES, all over GRADER_ANSWERS_BYTES */
    memset(big, 'x', sizeof(big));
    assert_int_equal(grader_task_ref_parse(t, big, GRADER_ANSWER_BYTES, &a),
                     0);
    assert_int_not_equal(
        grader_task_ref_parse(t, big, GRADER_ANSWER_BYTES + 1, &a), 0);
    /* five of 800 bytes and a sixth up to 4096 in all */
    for (i = 1; i <= 5; i++)
        big[i * 801 - 1] = '\n';
    assert_int_equal(grader_task_ref_parse(t, big, GRADER_ANSWERS_BYTES, &a),
                     0);
    assert_true(a.v == 6);
    assert_int_not_equal(
        grader_task_ref_parse(t, big, GRADER_ANSWERS_BYTES + 1, &a), 0);
    /* GRADER_ANSWERS_MAX strings, then one more */
    for (i = 0; i < GRADER_ANSWERS_MAX; i++)
        n += (size_t)snprintf(many + n, sizeof(many) - n, "%s%zu",
                              i ? "\n" : "", i % 10);
    assert_int_equal(grader_task_ref_parse(t, many, n, &a), 0);
    assert_true(a.v == GRADER_ANSWERS_MAX);
    n += (size_t)snprintf(many + n, sizeof(many) - n, "\n9");
    assert_int_not_equal(grader_task_ref_parse(t, many, n, &a), 0);
    grader_task_free(t);
}

/* A RULER rule reads lists; a task of lists takes no other rule. */
static void test_rule_fits(void **state)
{
    struct grader_task *num = grader_task_new("n", GRADER_REF_NUMBER);
    struct grader_task *lst = grader_task_new("l", GRADER_REF_ANSWERS);
    char msg[256];

    (void)state;
    assert_int_equal(grader_task_add_rule(num, "r", GRADER_RULE_RULER_ALL, msg,
                                          sizeof(msg)),
                     GRADER_EARG);
    assert_string_equal(msg, "task 'n': rule 'r' reads lists of expected "
                             "strings, and the task's references are "
                             "numbers");
    assert_int_equal(grader_task_add_rule(lst, "a", GRADER_RULE_ANSWER_LINE,
                                          msg, sizeof(msg)),
                     GRADER_EARG);
    assert_string_equal(msg, "task 'l': rule 'a' reads one answer, not a "
                             "list, and the task's references are lists of "
                             "expected strings");
    assert_int_equal(grader_task_add_regex(lst, "x", "(\\d+)", 0, "[invalid]",
                                           NULL, 0, 0, msg, sizeof(msg)),
                     GRADER_EARG);
    assert_int_equal(grader_task_add_rule(lst, "p", GRADER_RULE_RULER_PART,
                                          msg, sizeof(msg)),
                     0);
    assert_int_equal(grader_task_nrules(lst), 1);
    grader_task_free(num);
    grader_task_free(lst);
}

/* Every allocation of grading by each rule fails in turn: an error, and
 * nothing leaked. */
static void test_chaos(void **state)
{
    static const char reply[] = "  The numbers: 1111111, \xce\xa3IGMA\x01 ";
    static const char ref[] = "1111111\nsigma\n\xcf\x83igma";
    size_t r;

    (void)state;
    for (r = 0; r < 2; r++) {
        long n;
        for (n = 1;; n++) {
            struct grader_task *t = ruler();
            struct grader_num canon;
            struct grader_grade g;
            int rc;
            assert_int_equal(
                grader_task_ref_parse(t, ref, strlen(ref), &canon), 0);
            grader_set_alloc(chaos_malloc, chaos_realloc, chaos_free);
            calls = 0;
            live = 0;
            fail_at = n;
            rc = grader_task_grade(t, r, reply, strlen(reply), ref,
                                   strlen(ref), &canon, &g);
            fail_at = -1;
            grader_set_alloc(NULL, NULL, NULL);
            assert_int_equal(live, 0);
            grader_task_free(t);
            if (rc == 0) {
                assert_string_equal(g.extracted, "2/3");
                break;
            }
            assert_int_equal(rc, GRADER_ENOMEM);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtin),   cmocka_unit_test(test_all_and_part),
        cmocka_unit_test(test_said),      cmocka_unit_test(test_references),
        cmocka_unit_test(test_rule_fits), cmocka_unit_test(test_chaos),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
