/*
 * test_grader_repeat.c - two runs of one rung compared question by question;
 * the canary's comparison of a trusted run's first answers.
 *
 * Tests: grader/repeat.c
 * Tests: grader/canary.c
 */
#include "helpers.h"

#include "canary.h"
#include "repeat.h"

static char dir_b[80];

static const char run_a[] =
    "{\"id\":\"a\",\"reference\":\"1\",\"content\":\"Answer: 1\"}\n"
    "{\"id\":\"b\",\"reference\":\"2\",\"content\":\"so 2\\nAnswer: 2\"}\n"
    "{\"id\":\"c\",\"reference\":\"3\",\"content\":\"Answer: 4\","
    "\"reasoning_content\":\"think\"}\n"
    "{\"id\":\"d\",\"reference\":\"4\",\"content\":\"Answer: 4\"}\n";

/* b: same number, other words; c: same content, other thinking;
 * d: now wrong */
static const char run_b[] =
    "{\"id\":\"a\",\"reference\":\"1\",\"content\":\"Answer: 1\"}\n"
    "{\"id\":\"b\",\"reference\":\"2\",\"content\":\"thus 2\\nAnswer: 2\"}\n"
    "{\"id\":\"c\",\"reference\":\"3\",\"content\":\"Answer: 4\","
    "\"reasoning_content\":\"think!\"}\n"
    "{\"id\":\"d\",\"reference\":\"4\",\"content\":\"Answer: 5\"}\n"
    "{\"id\":\"e\",\"reference\":\"5\",\"content\":\"Answer: 5\"}\n";

static void load2(struct grader_qset *qs, const char *a, const char *b,
                  struct grader_rung **ra, struct grader_rung **rb,
                  unsigned flags)
{
    struct text ta = {0}, tb = {0};

    text_addf(&ta, "%s", a);
    text_addf(&tb, "%s", b);
    *ra = load_text(qs, test_dir, "Q4_0", &ta, flags);
    *rb = load_text(qs, dir_b, "Q4_0", &tb, flags);
    free(ta.p);
    free(tb.p);
}

static void test_compare(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *a, *b;
    struct grader_repeat_line l;
    struct grader_error err;

    (void)state;
    load2(qs, run_a, run_b, &a, &b, GRADER_READ_TEXT);
    /* e is only in b: an error without --common */
    assert_int_equal(grader_repeat(a, b, qs, 0, &l, &err), GRADER_EMISSING);
    assert_non_null(strstr(err.text, "missing 1 question"));
    assert_non_null(strstr(err.text, "first: 'e'"));
    assert_int_equal(grader_repeat(a, b, qs, GRADER_COMMON, &l, &err), 0);
    assert_int_equal(l.n, 4);
    assert_int_equal(l.mismatched_extracted, 1);
    assert_int_equal(l.mismatched_text, 3);
    assert_string_equal(l.first_text, "b"); /* a is the same */
    assert_int_equal(l.mismatched_right, 1);
    assert_int_equal(l.right_a, 3);
    assert_int_equal(l.right_b, 2);
    assert_int_equal(l.only_a, 0);
    assert_int_equal(l.only_b, 1);
    grader_rung_free(a);
    grader_rung_free(b);
    grader_qset_free(qs);
}

static void test_identical_and_flags(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *a, *b;
    struct grader_repeat_line l;
    struct grader_error err;

    (void)state;
    load2(qs, run_a, run_a, &a, &b, GRADER_READ_TEXT);
    assert_int_equal(grader_repeat(a, b, qs, 0, &l, &err), 0);
    assert_int_equal(l.n, 4);
    assert_int_equal(
        l.mismatched_text + l.mismatched_extracted + l.mismatched_right, 0);
    assert_null(l.first_text);
    grader_rung_free(a);
    grader_rung_free(b);
    /* without text hashes, repeat refuses rather than report 0 */
    load2(qs, run_a, run_a, &a, &b, 0);
    assert_int_equal(grader_repeat(a, b, qs, 0, &l, &err), GRADER_EARG);
    grader_rung_free(a);
    grader_rung_free(b);
    grader_qset_free(qs);
}

static void test_null_vs_empty(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *a, *b;
    struct grader_repeat_line l;
    struct grader_error err;

    (void)state;
    load2(qs, "{\"id\":\"a\",\"reference\":\"1\",\"content\":null}\n",
          "{\"id\":\"a\",\"reference\":\"1\",\"content\":\"\"}\n", &a, &b,
          GRADER_READ_TEXT);
    assert_int_equal(grader_repeat(a, b, qs, 0, &l, &err), 0);
    assert_int_equal(l.mismatched_text, 1);
    grader_rung_free(a);
    grader_rung_free(b);
    grader_qset_free(qs);
}

/* The trusted run's first n rows in its order: b's words changed (not
 * counted), d's number changed, and an error row where there was an
 * answer counts though neither extracts a number. */
static void test_canary(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *a, *b;
    struct grader_canary v;
    struct grader_error err;

    (void)state;
    load2(qs, run_a, run_b, &a, &b, GRADER_READ_TEXT);
    assert_int_equal(grader_canary(a, b, 0, &v, &err), GRADER_EARG);
    assert_int_equal(grader_canary(a, b, 3, &v, &err), 0);
    assert_int_equal(v.wanted, 3);
    assert_int_equal(v.compared, 3);
    assert_int_equal(v.changed, 0); /* d is the 4th */
    assert_int_equal(v.same_text, 1);
    assert_int_equal(grader_canary(a, b, 100, &v, &err), 0);
    assert_int_equal(v.wanted, 4);
    assert_int_equal(v.changed, 1);
    assert_int_equal(v.changed_right, 1);
    assert_int_equal(v.right_trusted, 3);
    assert_int_equal(v.right_now, 2);
    assert_int_equal(v.nids, 1);
    assert_string_equal(grader_qset_id(qs, v.ids[0]), "d");
    /* the new run lacks what the trusted one has: missing, and named */
    assert_int_equal(grader_canary(b, a, 5, &v, &err), 0);
    assert_int_equal(v.missing, 1);
    assert_int_equal(v.nids, 2);
    assert_string_equal(grader_qset_id(qs, v.ids[1]), "e");
    grader_rung_free(a);
    grader_rung_free(b);
    load2(qs, "{\"id\":\"x\",\"reference\":\"1\",\"content\":\"no idea\"}\n",
          "{\"id\":\"x\",\"reference\":\"1\",\"content\":null,"
          "\"error\":\"HTTP 500\",\"error_kind\":\"http\"}\n",
          &a, &b, 0);
    assert_int_equal(grader_canary(a, b, 1, &v, &err), 0);
    assert_int_equal(v.changed, 1);
    assert_int_equal(v.same_text, 0);
    grader_rung_free(a);
    grader_rung_free(b);
    /* neither says a number: other words changed, the same did not */
    load2(qs,
          "{\"id\":\"y\",\"reference\":\"1\",\"content\":\"I am "
          "not sure\"}\n{\"id\":\"z\",\"reference\":\"1\","
          "\"content\":\"hmm\"}\n",
          "{\"id\":\"y\",\"reference\":\"1\",\"content\":\"zq zq "
          "zq\"}\n{\"id\":\"z\",\"reference\":\"1\","
          "\"content\":\"hmm\"}\n",
          &a, &b, GRADER_READ_TEXT);
    assert_int_equal(grader_canary(a, b, 2, &v, &err), 0);
    assert_int_equal(v.changed, 1);
    assert_string_equal(grader_qset_id(qs, v.ids[0]), "y");
    assert_int_equal(v.same_text, 1);
    grader_rung_free(a);
    grader_rung_free(b);
    grader_qset_free(qs);
}

static int setup(void **state)
{
    tmpdir_setup(state);
    snprintf(dir_b, sizeof(dir_b), "%s/b", test_dir);
    assert_int_equal(mkdir(dir_b, 0755), 0);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_identical_and_flags),
        cmocka_unit_test(test_null_vs_empty),
        cmocka_unit_test(test_canary),
    };
    return cmocka_run_group_tests(tests, setup, tmpdir_teardown);
}
