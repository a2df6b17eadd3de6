/*
 * test_rundir_vocab.c - a rung's vocabulary sha256 as the manifest records
 * it (manifest_keys.h: MK_VOCAB_SHA256; manifest.h: rundir_vocab_hash,
 * rundir_vocab_other, manifest_vocab): what the grading side reads before
 * it compares two rungs' log-probabilities.
 *
 * Tests: rundir/manifest.c
 */
#include "helpers.h"

#include <errno.h>

#include "manifest.h" /* rundir/ */
#include "manifest_keys.h"

#define HA "369d1f0e399c0ec37adda4150452519d5643752592bd483d2de2253af036782d"
/* 64 characters, not hex: not a sha256 */
#define ODD "ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ"
#define HB  "772d962ea29b32acf79c8f0dc2c29054a08e57612ddb475f5a572596a1f9bcbb"

static void setup_manifest(const char *text)
{
    char path[512];

    tmpdir_remove(test_dir);
    tmpdir_make(test_dir, sizeof(test_dir));
    if (text != NULL)
        write_file(test_dir, "manifest.json", text, path, sizeof(path));
}

static const char two[] =
    "{\"rungs\": {\"F32\": {\"model\": \"/m/f32.gguf\", \"" MK_VOCAB_SHA256
    "\": \"" HA "\"}, \"Q8_0\": {\"model\": \"/m/q8.gguf\", "
    "\"" MK_VOCAB_SHA256 "\": \"" HA "\"}, \"old\": {\"model\": "
    "\"/m/old.gguf\"}, \"odd\": {\"model\": \"/m/odd.gguf\", "
    "\"" MK_VOCAB_SHA256 "\": \"" ODD "\"}}}";

static void test_hash(void **state)
{
    char hex[65], msg[512];

    (void)state;
    setup_manifest(two);
    assert_int_equal(rundir_vocab_hash(test_dir, "F32", hex, msg, sizeof msg),
                     0);
    assert_string_equal(hex, HA);
    /* a rung run without logprobs, one not there, a value not a sha256 */
    assert_int_equal(rundir_vocab_hash(test_dir, "old", hex, msg, sizeof msg),
                     1);
    assert_string_equal(hex, "");
    assert_int_equal(rundir_vocab_hash(test_dir, "Q2_K", hex, msg, sizeof msg),
                     1);
    assert_int_equal(rundir_vocab_hash(test_dir, "odd", hex, msg, sizeof msg),
                     1);
    /* a folder without a manifest says nothing */
    setup_manifest(NULL);
    assert_int_equal(rundir_vocab_hash(test_dir, "F32", hex, msg, sizeof msg),
                     1);
}

static void test_other(void **state)
{
    char other[64], model[256], msg[512];

    (void)state;
    setup_manifest(two);
    /* every other rung has this vocabulary, or none */
    assert_int_equal(rundir_vocab_other(test_dir, "Q4_0", HA, other,
                                        sizeof other, model, sizeof model, msg,
                                        sizeof msg),
                     0);
    /* another: the first rung that recorded one is named, with its file */
    assert_int_equal(rundir_vocab_other(test_dir, "Q4_0", HB, other,
                                        sizeof other, model, sizeof model, msg,
                                        sizeof msg),
                     1);
    assert_string_equal(other, "F32");
    assert_string_equal(model, "/m/f32.gguf");
    /* the rung's own entry is not another rung */
    setup_manifest("{\"rungs\": {\"F32\": {\"model\": \"/m/f32.gguf\", "
                   "\"" MK_VOCAB_SHA256 "\": \"" HA "\"}}}");
    assert_int_equal(rundir_vocab_other(test_dir, "F32", HB, other,
                                        sizeof other, model, sizeof model, msg,
                                        sizeof msg),
                     0);
}

static void test_bad(void **state)
{
    char hex[65], msg[512], path[512], link[600];

    (void)state;
    setup_manifest("{\"rungs\": ");
    errno = 0;
    assert_int_equal(rundir_vocab_hash(test_dir, "F32", hex, msg, sizeof msg),
                     -1);
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(msg, "malformed manifest"));
    assert_non_null(strstr(msg, test_dir));
    /* a link in the manifest's place is refused, not read */
    setup_manifest(NULL);
    write_file(test_dir, "elsewhere.json", two, path, sizeof path);
    snprintf(link, sizeof link, "%s/manifest.json", test_dir);
    assert_int_equal(symlink(path, link), 0);
    assert_int_equal(rundir_vocab_hash(test_dir, "F32", hex, msg, sizeof msg),
                     -1);
    assert_non_null(strstr(msg, "link"));
}

static void test_manifest_vocab(void **state)
{
    json_t *m = json_loads(two, 0, NULL);

    (void)state;
    assert_non_null(m);
    assert_string_equal(manifest_vocab(m, "Q8_0"), HA);
    assert_null(manifest_vocab(m, "old"));
    assert_null(manifest_vocab(m, "odd"));
    assert_null(manifest_vocab(m, "none"));
    assert_null(manifest_vocab(NULL, "F32"));
    json_decref(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash),
        cmocka_unit_test(test_other),
        cmocka_unit_test(test_bad),
        cmocka_unit_test(test_manifest_vocab),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
