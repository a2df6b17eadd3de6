/*
 * test_rundir_differs.c - a ladder of settings read from a manifest
 * (differs.h): what each rung changes against the reference, whether the
 * folder is one at all (a plain ladder's report must not change), and
 * which rung a speculative rung is the same as without its draft.
 *
 * Tests: rundir/differs.c
 */
#include "helpers.h"

#include <jansson.h>
#include <string.h>

#include "differs.h" /* rundir/ */

#define SA "\"sha256\": \"aaaa\""
#define SB "\"sha256\": \"bbbb\""

static struct rundir_run run_of(const char *rungs)
{
    struct rundir_run r;
    char text[4096];

    memset(&r, 0, sizeof r);
    snprintf(text, sizeof text,
             "{\"server\": {\"version\": \"version: 1\"}, \"rungs\": {%s}}",
             rungs);
    r.manifest = json_loads(text, 0, NULL);
    assert_non_null(r.manifest);
    return r;
}

static void test_plain(void **state)
{
    struct rundir_run r = run_of(
        "\"BF16\": {\"model\": \"m/BF16.gguf\", " SA ", \"server_args\": "
        "[\"-fa\", \"on\"]}, \"Q4_0\": {\"model\": \"m/Q4_0.gguf\", " SB
        ", \"server_args\": [\"-fa\", \"on\"]}");
    char text[RUNDIR_DIFFERS_MAX];

    (void)state;
    /* files alone differ: a plain ladder, its report as it was */
    assert_int_equal(rundir_run_settings_ladder(&r, "BF16"), 0);
    rundir_run_differs(&r, "Q4_0", "BF16", text, sizeof text);
    assert_string_equal(text, "file Q4_0.gguf");
    assert_int_equal(rundir_run_same_file(&r, "Q4_0", "BF16"), 0);
    json_decref(r.manifest);
    r.manifest = NULL; /* no manifest: nothing */
    assert_int_equal(rundir_run_settings_ladder(&r, "BF16"), 0);
}

static void test_settings(void **state)
{
    struct rundir_run r = run_of(
        "\"Q\": {\"model\": \"m/Q.gguf\", " SA ", \"server_args\": [\"-fa\", "
        "\"off\"], \"server_env\": {\"A\": \"1\"}}, "
        "\"Q-kv\": {\"model\": \"m/Q.gguf\", " SA ", \"server_args\": "
        "[\"-fa\", \"on\", \"-ctk\", \"q8_0\"], \"server_env\": {\"A\": "
        "\"1\", \"GGML_X\": \"2\"}}, "
        "\"Q-less\": {\"model\": \"m/Q.gguf\", " SA ", \"server_args\": [], "
        "\"server_env\": {}}, "
        "\"Q-ik\": {\"model\": \"m/Q.gguf\", " SA ", \"server_args\": "
        "[\"-fa\", \"off\"], \"server_env\": {\"A\": \"1\"}, "
        "\"server_version\": \"version: 4840\"}, "
        "\"Q2\": {\"model\": \"m/Q2.gguf\", " SB ", \"server_args\": "
        "[\"-fa\", \"off\"], \"server_env\": {\"A\": \"1\"}}");
    char text[RUNDIR_DIFFERS_MAX];

    (void)state;
    assert_int_equal(rundir_run_settings_ladder(&r, "Q"), 1);
    rundir_run_differs(&r, "Q", "Q", text, sizeof text);
    assert_string_equal(text, "");
    /* from the flag whose value differs, the reference's rest beside */
    rundir_run_differs(&r, "Q-kv", "Q", text, sizeof text);
    assert_string_equal(
        text, "settings -fa on -ctk q8_0 (over -fa off); env GGML_X=2");
    rundir_run_differs(&r, "Q-less", "Q", text, sizeof text);
    assert_string_equal(text, "without -fa off; env without A");
    rundir_run_differs(&r, "Q-ik", "Q", text, sizeof text);
    assert_string_equal(text, "build version: 4840");
    rundir_run_differs(&r, "Q2", "Q", text, sizeof text);
    assert_string_equal(text, "file Q2.gguf");
    assert_int_equal(rundir_run_same_file(&r, "Q-ik", "Q"), 1);
    assert_int_equal(rundir_run_same_file(&r, "Q2", "Q"), 0);
    /* a cut text ends in "..." and stays within its room */
    rundir_run_differs(&r, "Q-kv", "Q", text, 20);
    assert_int_equal(strlen(text), 19);
    assert_string_equal(text + 16, "...");
    json_decref(r.manifest);
}

static void test_draft_base(void **state)
{
    struct rundir_run r = run_of(
        "\"Q\": {\"model\": \"m/Q.gguf\", " SA ", \"server_args\": [\"-fa\", "
        "\"off\"]}, "
        "\"Q-draft\": {\"model\": \"m/Q.gguf\", " SA ", \"server_args\": "
        "[\"-fa\", \"off\", \"-md\", \"d.gguf\", \"--draft-max\", \"4\"]}, "
        "\"Q-ik-draft\": {\"model\": \"m/Q.gguf\", " SA ", \"server_args\": "
        "[\"-fa\", \"off\", \"--model-draft\", \"d.gguf\"], "
        "\"server_version\": \"version: 4840\"}, "
        "\"Q-fa-draft\": {\"model\": \"m/Q.gguf\", " SA ", \"server_args\": "
        "[\"-fa\", \"on\", \"-md\", \"d.gguf\"]}, "
        "\"Q2-draft\": {\"model\": \"m/Q2.gguf\", " SB ", \"server_args\": "
        "[\"-fa\", \"off\", \"-md\", \"d.gguf\"]}");
    char *names[] = {"Q", "Q-draft", "Q-ik-draft", "Q-fa-draft", "Q2-draft"};
    const char *base;

    (void)state;
    assert_int_equal(rundir_run_draft_base(&r, "Q-draft", names, 5, &base), 1);
    assert_string_equal(base, "Q");
    /* not speculative: no base */
    assert_int_equal(rundir_run_draft_base(&r, "Q", names, 5, &base), 0);
    assert_null(base);
    /* another build, other settings, another file: none is its base */
    assert_int_equal(rundir_run_draft_base(&r, "Q-ik-draft", names, 5, &base),
                     0);
    assert_int_equal(rundir_run_draft_base(&r, "Q-fa-draft", names, 5, &base),
                     0);
    assert_int_equal(rundir_run_draft_base(&r, "Q2-draft", names, 5, &base),
                     0);
    json_decref(r.manifest);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_settings),
        cmocka_unit_test(test_draft_base),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
