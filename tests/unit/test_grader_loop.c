/*
 * test_grader_loop.c - loop detection: a non-blank trimmed line five times.
 *
 * Tests: grader/extract.c
 */
#include "helpers.h"

#include "extract.h"

static struct grader_loop_scratch scratch;

static int looped(const char *a, const char *b)
{
    return grader_looped(&scratch, a, a ? strlen(a) : 0, b,
                         b ? strlen(b) : 0);
}

static void test_threshold(void **state)
{
    (void)state;
    assert_int_equal(looped("x\nx\nx\nx\n", NULL), 0);
    assert_int_equal(looped("x\nx\nx\nx\nx", NULL), 1);
    assert_int_equal(looped("a\nx\nb\nx\nc\nx\nd\nx\ne\nx\n", NULL), 1);
    assert_int_equal(looped("a\nb\nc\nd\ne\nf\ng\n", NULL), 0);
}

static void test_trim_and_blank(void **state)
{
    (void)state;
    /* surrounding white space does not make lines differ */
    assert_int_equal(looped("x\n  x\nx  \n\tx\r\nx\r\n", NULL), 1);
    /* inner white space does */
    assert_int_equal(looped("a b\na  b\na b\na  b\na b\n", NULL), 0);
    /* blank lines never count */
    assert_int_equal(looped("\n\n\n\n\n\n   \n\t\n", NULL), 0);
    assert_int_equal(looped("", ""), 0);
    assert_int_equal(looped(NULL, NULL), 0);
}

static void test_across_texts(void **state)
{
    (void)state;
    /* content and reasoning_content are counted together */
    assert_int_equal(looped("x\nx\nx", "x\nx"), 1);
    assert_int_equal(looped("x\nx", "x\nx"), 0);
    assert_int_equal(looped(NULL, "y\ny\ny\ny\ny"), 1);
}

static void test_many_lines(void **state)
{
    char *big = malloc(400000);
    size_t i, n = 0;

    (void)state;
    assert_non_null(big);
    /* 20,000 distinct lines: the table grows, nothing loops */
    for (i = 0; i < 20000; i++)
        n += (size_t)sprintf(big + n, "line %zu\n", i);
    assert_int_equal(grader_looped(&scratch, big, n, NULL, 0), 0);
    /* then a short looping reply on the same scratch */
    assert_int_equal(looped("z\nz\nz\nz\nz\n", NULL), 1);
    /* a repeated line far apart in a long reply */
    n = 0;
    for (i = 0; i < 20000; i++)
        n += (size_t)sprintf(big + n, "%s\n",
                             i % 4000 == 0 ? "same" : "");
    assert_int_equal(grader_looped(&scratch, big, n, NULL, 0), 1);
    free(big);
}

static int teardown(void **state)
{
    (void)state;
    grader_loop_scratch_release(&scratch);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threshold),
        cmocka_unit_test(test_trim_and_blank),
        cmocka_unit_test(test_across_texts),
        cmocka_unit_test(test_many_lines),
    };
    grader_loop_scratch_init(&scratch);
    return cmocka_run_group_tests(tests, NULL, teardown);
}
