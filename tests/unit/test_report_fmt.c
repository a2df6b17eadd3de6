/*
 * test_report_fmt.c - how the reports print numbers (report/fmt.h): one
 * place, so REPORT.md, COMPARE.md and THINK.md agree.
 *
 * Tests: report/fmt.c
 */
#include "helpers.h"

#include <float.h>
#include <string.h>

#include "fmt.h"

static void test_counts(void **state)
{
    char b[FMT_SIZE];

    (void)state;
    assert_string_equal(fmt_count(b, 0), "0");
    assert_string_equal(fmt_count(b, 999), "999");
    assert_string_equal(fmt_count(b, 4671), "4,671");
    assert_string_equal(fmt_count(b, 9311305152LL), "9,311,305,152");
    assert_string_equal(fmt_count(b, -1), FMT_DASH);
    assert_string_equal(fmt_fixed(b, 93.6, 1), "93.6");
    assert_string_equal(fmt_fixed(b, -1, 1), FMT_DASH);
    assert_string_equal(fmt_fixed(b, 78.7 / 40.0, 2), "1.97");
    /* any double a row can hold prints whole: %.1f of 1e300 is 302
     * characters, past the buffer; none is cut to its first digits */
    assert_string_equal(fmt_fixed(b, 123456789012345.0, 1),
                        "123456789012345.0");
    assert_string_equal(fmt_fixed(b, 1e300, 1), "1e+300");
    assert_string_equal(fmt_fixed(b, 1e40, 1), "1e+40");
    assert_string_equal(fmt_fixed(b, 1.5e17, 2), "1.5e+17");
    assert_string_equal(fmt_fixed(b, DBL_MAX, 1), "1.8e+308");
    assert_string_equal(fmt_fixed(b, INFINITY, 1), FMT_DASH);
    assert_string_equal(fmt_fixed(b, NAN, 2), FMT_DASH);
}

static void test_numbers(void **state)
{
    char b[FMT_SIZE];

    (void)state;
    assert_string_equal(fmt_number(b, "13"), "13");
    assert_string_equal(fmt_number(b, "120000"), "120,000");
    assert_string_equal(fmt_number(b, "2350"), "2,350");
    assert_string_equal(fmt_number(b, "-1234.5"), "-1,234.5");
    assert_string_equal(fmt_number(b, "0.125"), "0.125");
    /* a reference that is no number (a letter, a list of expected
     * strings' canonical form) is shown as it is, never grouped */
    assert_string_equal(fmt_number(b, "B"), "B");
    assert_string_equal(fmt_number(b, "answers:2:2935920367ba354a"),
                        "answers:2:2935920367ba354a");
    assert_string_equal(fmt_number(b, "1/2"), "1/2");
    assert_string_equal(fmt_number(b, "1000000"), "1,000,000");
}

/* A margin as people wrote it (2, 7.5, 12.25), never rounded up to the
 * bound it must stay under: 99.99999 printed "±100" (issue 33). */
static void test_margin(void **state)
{
    char b[FMT_SIZE];

    (void)state;
    assert_string_equal(fmt_margin(b, 2.0), "2");
    assert_string_equal(fmt_margin(b, 7.5), "7.5");
    assert_string_equal(fmt_margin(b, 12.25), "12.25");
    assert_string_equal(fmt_margin(b, 0.5), "0.5");
    assert_string_equal(fmt_margin(b, 99.99999), "99.99999");
    assert_string_equal(fmt_margin(b, 99.99), "99.99");
    assert_string_equal(fmt_margin(b, 99.999999999), "99.999999999");
    /* a computed floor: four digits are enough below the bound */
    assert_string_equal(fmt_margin(b, 100.0 / 3.0), "33.33");
}

static void test_p(void **state)
{
    char b[FMT_SIZE];

    (void)state;
    assert_string_equal(fmt_p(b, 0.7265625), "0.727");
    assert_string_equal(fmt_p(b, 1.0), "1.000");
    assert_string_equal(fmt_p(b, 2.4e-5), "2.4e-05");
    /* 1,319 dead and no ghost underflows to 0: never print 0.0e+00 */
    assert_string_equal(fmt_p(b, 0.0), "< 1e-300");
}

static void test_intervals(void **state)
{
    char b[FMT_SIZE];

    (void)state;
    assert_string_equal(fmt_pct_ci(b, 229 / 250.0, 0.875005, 0.944404),
                        "91.6 (87.5\xe2\x80\x93"
                        "94.4)");
    /* the T4's Q4_0: a real minus sign, a plus on the upper end */
    assert_string_equal(fmt_pp_ci(b, -0.028, -0.068651, 0.011044),
                        "\xe2\x88\x92"
                        "2.8 (\xe2\x88\x92"
                        "6.9 to +1.1)");
    /* no change prints as plus-minus zero, never -0.0 */
    assert_string_equal(fmt_pp_ci(b, -0.0, -0.285, 0.285), "\xc2\xb1"
                                                           "0.0 (\xe2\x88\x92"
                                                           "28.5 to +28.5)");
    assert_string_equal(fmt_pp_ci(b, -0.00001, -0.1, 0.1), "\xc2\xb1"
                                                           "0.0 (\xe2\x88\x92"
                                                           "10.0 to +10.0)");
}

static void test_cells(void **state)
{
    char b[16];

    (void)state;
    fmt_cell(b, sizeof(b), "a|b\nc");
    assert_string_equal(b, "a\\|b c");
    /* bounded: a long text is cut, never overflows */
    fmt_cell(b, sizeof(b), "||||||||||||||||||||");
    assert_true(strlen(b) < sizeof(b));
}

/* Text from outside shows as written: no HTML, no Markdown emphasis, no
 * link, no table cell broken. */
static void test_text(void **state)
{
    char b[256];

    (void)state;
    fmt_text(b, sizeof(b), "<img src=x onerror=alert(1)>");
    assert_string_equal(b, "&lt;img src=x onerror=alert\\(1\\)&gt;");
    fmt_text(b, sizeof(b), "*x* _y_ [l](u) # | ! ` ~ \\ & test-687");
    assert_string_equal(b, "\\*x\\* \\_y\\_ \\[l\\]\\(u\\) \\# \\| "
                           "\\! \\` \\~ \\\\ &amp; test-687");
    fmt_text(b, sizeof(b), "a\nb");
    assert_string_equal(b, "a b");
    /* an id keeps its line ends, as entities that show as white space */
    fmt_id(b, sizeof(b), "a\nb\r<c_");
    assert_string_equal(b, "a&#10;b&#13;&lt;c\\_");
    fmt_id(b, 8, "ab\ncd");
    assert_string_equal(b, "ab&#10;");
    fmt_id(b, 7, "ab\ncd");
    assert_string_equal(b, "ab");
    /* cut whole: never half an entity */
    fmt_text(b, 7, "ab<cd");
    assert_string_equal(b, "ab&lt;");
    fmt_text(b, 6, "ab<cd");
    assert_string_equal(b, "ab");
    fmt_code(b, sizeof(b), "run`s|x\n");
    assert_string_equal(b, "run's\\|x ");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts),    cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_p),         cmocka_unit_test(test_margin),
        cmocka_unit_test(test_intervals), cmocka_unit_test(test_cells),
        cmocka_unit_test(test_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
