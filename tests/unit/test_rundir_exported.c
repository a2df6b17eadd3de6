/*
 * test_rundir_exported.c - a manifest's server build and argument list as
 * graveyard export publishes them (docs/export.md, "Nothing private").
 * Tests: rundir/exported.c
 */
#include "helpers.h"

#include "exported.h" /* rundir/ */

static json_t *manifest(const char *argv_json)
{
    char text[2048];

    snprintf(text, sizeof(text),
             "{\"graveyard\": \"0.1.0\", \"server\": {\"version\": \"v: 1 "
             "(abc)\"}, \"rungs\": {\"R1\": {\"server_version\": \"v: 2 "
             "(def)\", \"server_argv\": %s}, \"R2\": {\"server_args\": "
             "[\"-c\", \"4096\"]}, \"R3\": {}}}",
             argv_json);
    return json_loads(text, 0, NULL);
}

/* Paths by their names, secrets and hashed values as <redacted>, the
 * rest as recorded. */
static void test_argv_published(void **state)
{
    json_t *m = manifest(
        "[\"/opt/llama/bin/llama-server\", \"-m\", \"/opt1/g/e2b-Q4_0.gguf\", "
        "\"--api-key\", \"sk-live-1\", \"--hf-token=hf_x\", \"-hft\", "
        "\"hf_y\", \"--x\", \"<redacted sha256:0123456789abcdef>\", "
        "\"--lora=/home/me/a.gguf\", \"-c\", \"4096\", \"--Auth-Cookie\", "
        "\"c1\"]");
    json_t *a, *want;
    char *got;

    (void)state;
    assert_non_null(m);
    a = exported_server_argv(m, "R1");
    assert_non_null(a);
    want = json_loads(
        "[\"llama-server\", \"-m\", \"e2b-Q4_0.gguf\", \"--api-key\", "
        "\"<redacted>\", \"--hf-token=<redacted>\", \"-hft\", \"<redacted>\", "
        "\"--x\", \"<redacted>\", \"--lora=a.gguf\", \"-c\", \"4096\", "
        "\"--Auth-Cookie\", \"<redacted>\"]",
        0, NULL);
    got = json_dumps(a, JSON_COMPACT);
    assert_true(json_equal(a, want) || (fprintf(stderr, "%s\n", got), 0));
    free(got);
    json_decref(want);
    json_decref(a);
    json_decref(m);
}

/* server_args when there is no argv; nothing when neither; the build
 * the rung's, else the folder's. */
static void test_fallbacks(void **state)
{
    json_t *m = manifest("[]"), *a;

    (void)state;
    a = exported_server_argv(m, "R2");
    assert_non_null(a);
    assert_int_equal(json_array_size(a), 2);
    json_decref(a);
    assert_null(exported_server_argv(m, "R3"));
    assert_null(exported_server_argv(m, "nope"));
    assert_string_equal(exported_server_version(m, "R1"), "v: 2 (def)");
    assert_string_equal(exported_server_version(m, "R3"), "v: 1 (abc)");
    assert_string_equal(exported_graveyard_version(m), "0.1.0");
    assert_null(exported_graveyard_version(NULL));
    json_decref(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_argv_published),
        cmocka_unit_test(test_fallbacks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
