/*
 * test_grader_extract.c - the answer extractor and the number rules.
 *
 * Tests: grader/extract.c
 * Tests: grader/number.c
 */
#include "helpers.h"

#include "extract.h"
#include "number.h"

/* Extract from s and expect the canonical form want (NULL: none). */
static void expect(const char *s, const char *want)
{
    struct grader_num n;
    int got = grader_extract(s, strlen(s), &n);

    if (want == NULL) {
        if (got)
            fail_msg("'%s' gave '%s', expected no answer", s, n.s);
        return;
    }
    if (!got)
        fail_msg("'%s' gave no answer, expected '%s'", s, want);
    if (strcmp(n.s, want) != 0)
        fail_msg("'%s' gave '%s', expected '%s'", s, n.s, want);
}

static void test_plain(void **state)
{
    (void)state;
    expect("Answer: 42", "42");
    expect("answer: 42", "42");
    expect("ANSWER:42", "42");
    expect("The total is 12.\nAnswer: 13\n", "13");
    expect("Answer:\t7", "7");
}

static void test_last_answer_wins(void **state)
{
    (void)state;
    expect("Answer: 3\nWait, no.\nAnswer: 5", "5");
    /* the last one decides, even when it has no number */
    expect("Answer: 3\nAnswer: unknown", NULL);
    expect("Answer: 3\nFinal answer: 4", "4");
    /* a colon that is not after "answer" is skipped over */
    expect("Answer: 3\nNote: 9", "3");
}

static void test_decoration(void **state)
{
    (void)state;
    expect("**Answer:** 42", "42");
    expect("Answer: **42**", "42");
    expect("Answer: __42__", "42");
    expect("Answer: *$1,234.50*.", "1234.5");
    expect("Answer: $ 70,000", "70000");
    expect("Answer: \xe2\x82\xac" "12", "12");
    expect("Answer: \xc2\xa3" "3.5", "3.5");
    expect("Answer: \xc2\xa5" "100", "100");
    expect("Answer: \xe2\x82\xb9" "9", "9");
}

static void test_signs(void **state)
{
    (void)state;
    expect("Answer: -5", "-5");
    expect("Answer: -$5", "-5");
    expect("Answer: $-5", "-5");
    expect("Answer: +5", "5");
    expect("Answer: -0", "0");
    expect("Answer: -0.00", "0");
    expect("Answer: --5", NULL);
    expect("Answer: -$-5", NULL);
}

static void test_number_shapes(void **state)
{
    (void)state;
    expect("Answer: 42.", "42");
    expect("Answer: 42.50", "42.5");
    expect("Answer: 0.50", "0.5");
    expect("Answer: 007", "7");
    expect("Answer: 1,000,000", "1000000");
    expect("Answer: 1,23", "1");          /* not a thousands group */
    expect("Answer: 1234,567", "1234");   /* lead over 3 digits */
    expect("Answer: 1,2345", "1");        /* group of 4 is not a group */
    expect("Answer: 3.14.15", "3.14");
    expect("Answer: 5%", "5");
    expect("Answer: .5", NULL);
    expect("Answer: x 5", NULL);
    expect("Answer: ", NULL);
    expect("Answer:", NULL);
    expect("no answer here 42", NULL);
    expect("", NULL);
    expect(":", NULL);
}

static void test_null_and_cap(void **state)
{
    struct grader_num n;
    char big[200];

    (void)state;
    assert_int_equal(grader_extract(NULL, 0, &n), 0);
    /* a number past the canonical cap is not an answer */
    memcpy(big, "Answer: ", 8);
    memset(big + 8, '7', 150);
    big[158] = '\0';
    expect(big, NULL);
    /* one under the cap still is */
    big[8 + GRADER_NUM_MAX - 1] = '\0';
    assert_int_equal(grader_extract(big, strlen(big), &n), 1);
    assert_int_equal(strlen(n.s), GRADER_NUM_MAX - 1);
    /* a negative sign on a number at the cap does not overflow */
    memcpy(big, "Answer: -", 9);
    memset(big + 9, '7', GRADER_NUM_MAX - 1);
    big[9 + GRADER_NUM_MAX - 1] = '\0';
    assert_int_equal(grader_extract(big, strlen(big), &n), 0);
}

static void test_reference_parse(void **state)
{
    struct grader_num a, b;

    (void)state;
    assert_int_equal(grader_num_parse("2,350", 5, &a), 0);
    assert_int_equal(grader_num_parse(" 2350.00\n", 9, &b), 0);
    assert_string_equal(a.s, b.s);
    assert_true(a.v == 2350.0);
    assert_int_equal(grader_num_parse("$18", 3, &a), 0);
    assert_string_equal(a.s, "18");
    assert_int_equal(grader_num_parse("-3", 2, &a), 0);
    assert_string_equal(a.s, "-3");
    assert_int_equal(grader_num_parse("abc", 3, &a), -1);
    assert_int_equal(grader_num_parse("5 apples", 8, &a), -1);
    assert_int_equal(grader_num_parse("", 0, &a), -1);
}

static void test_exact_equality(void **state)
{
    struct grader_num a, b;

    (void)state;
    /* decimal strings compare exactly: no binary rounding */
    assert_int_equal(grader_num_parse("0.3", 3, &a), 0);
    assert_true(grader_extract("Answer: 0.30", 12, &b));
    assert_string_equal(a.s, b.s);
    assert_int_equal(grader_num_parse("9007199254740993", 16, &a), 0);
    assert_true(grader_extract("Answer: 9007199254740992", 24, &b));
    assert_string_not_equal(a.s, b.s); /* equal as doubles, not as answers */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_last_answer_wins),
        cmocka_unit_test(test_decoration),
        cmocka_unit_test(test_signs),
        cmocka_unit_test(test_number_shapes),
        cmocka_unit_test(test_null_and_cap),
        cmocka_unit_test(test_reference_parse),
        cmocka_unit_test(test_exact_equality),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
