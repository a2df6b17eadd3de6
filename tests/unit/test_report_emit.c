/*
 * test_emit.c - the JSON the commands print: numbers, field order, nulls.
 *
 * Tests: report/emit.c
 */
#include "helpers.h"

#include "emit.h"

static void dumps_is(json_t *j, const char *want)
{
    char *s = emit_dumps(j);

    assert_non_null(s);
    if (strcmp(s, want) != 0)
        fail_msg("got %s, want %s", s, want);
    emit_free(s);
    json_decref(j);
}

static void test_numbers(void **state)
{
    (void)state;
    dumps_is(emit_number("17"), "17");
    dumps_is(emit_number("-120000"), "-120000");
    dumps_is(emit_number("1234.5"), "1234.5");
    dumps_is(emit_number("0.1"), "0.1");
    /* past what an integer holds: a real */
    dumps_is(emit_number("123456789012345678901"), "1.23456789012346e20");
    dumps_is(emit_number(NULL), "null");
    /* the study's figures print as it printed them */
    dumps_is(json_real(391.2), "391.2");
    dumps_is(json_real(40.0), "40.0");
    dumps_is(json_real(0.7265625), "0.7265625");
}

static void test_summary_order(void **state)
{
    struct grader_rung r[3] = {
        {.name = "BF16"}, {.name = "Q8_0"}, {.name = "Q4_0"}};
    struct grader_bury_line lines[3] = {{.rung = &r[0]},
                                        {.rung = &r[1], .first_deaths = 4},
                                        {.rung = &r[2], .first_deaths = 0}};
    struct grader_bury b = {
        .nrungs = 3, .lines = lines, .ntombs = 4, .nghosts = 2};

    (void)state;
    dumps_is(emit_bury_summary(&b),
             "{\"first_deaths_by_rung\": {\"Q8_0\": 4, \"Q4_0\": 0}, "
             "\"tombstones\": 4, \"ghosts\": 2}");
}

static void test_bury_line_nulls(void **state)
{
    struct grader_rung r[2] = {{.name = "BF16"}, {.name = "Q2_K"}};
    struct grader_bury_line lines[2] = {
        {.rung = &r[0], .sum = {.n = 1, .median_tps = -1, .mean_tokens = -1}},
        {.rung = &r[1],
         .sum = {.n = 1, .median_tps = 74.0, .mean_tokens = 1024.0},
         .dead = 1,
         .p_mcnemar = 1.0}};
    struct grader_bury b = {.nrungs = 2, .lines = lines};
    struct grader_meta known = {3360161216LL, 1639, 0, "", "", {0, -1, 0, 0}, 0};

    (void)state;
    dumps_is(emit_bury_line(&b, 0, NULL),
             "{\"rung\": \"BF16\", \"n\": 1, \"right\": 0, \"errors\": 0, "
             "\"truncated\": 0, \"median_decode_tps\": null, "
             "\"mean_tokens\": null, \"dead\": 0, \"ghosts\": 0, "
             "\"answer_changed\": 0, \"p_mcnemar\": null, \"bytes\": null, "
             "\"gpu_mib_loaded\": null, \"gpu_mib_before\": null}");
    dumps_is(emit_bury_line(&b, 1, &known),
             "{\"rung\": \"Q2_K\", \"n\": 1, \"right\": 0, \"errors\": 0, "
             "\"truncated\": 0, \"median_decode_tps\": 74.0, "
             "\"mean_tokens\": 1024.0, \"dead\": 1, \"ghosts\": 0, "
             "\"answer_changed\": 0, \"p_mcnemar\": 1.0, \"bytes\": "
             "3360161216, \"gpu_mib_loaded\": 1639, \"gpu_mib_before\": 0}");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_summary_order),
        cmocka_unit_test(test_bury_line_nulls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
