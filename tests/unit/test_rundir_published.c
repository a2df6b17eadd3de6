/*
 * test_rundir_published.c - what of a run folder graveyard publish may put
 * in a bundle (rundir/published.h): the manifest without what may hold a
 * secret and with file names only, ladder.tsv through the one reader with
 * file names only (a line it refuses named), a .done record's URLs cut,
 * and a rung's file names as rundir.c spells them.
 *
 * Tests: rundir/published.c
 */
#include "helpers.h"

#include <jansson.h>

#include "published.h" /* rundir/ */

static const char manifest[] =
    "{\"graveyard\": \"1.0\", \"prompt\": \"p\", \"server\": \"llama\","
    " \"server_args\": [\"--api-key\", \"sk-secret\"],"
    " \"questions\": {\"path\": \"/home/me/data/q.jsonl\", \"sha256\": "
    "\"ab\"},"
    " \"rungs\": {\"Q4_0\": {\"model\": \"/opt1/models/m-Q4_0.gguf\","
    " \"bytes\": 10, \"sha256\": \"cd\", \"env\": {\"HF_TOKEN\": \"hf_x\"},"
    " \"argv\": [\"x\"], \"ctx\": 4096}}}";

static void test_manifest(void **state)
{
    json_t *m = json_loads(manifest, 0, NULL), *p;
    char *s;

    (void)state;
    assert_non_null(m);
    s = published_manifest(m);
    assert_non_null(s);
    assert_null(strstr(s, "secret"));
    assert_null(strstr(s, "hf_x"));
    assert_null(strstr(s, "/opt1"));
    assert_null(strstr(s, "/home"));
    p = json_loads(s, 0, NULL);
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(p, "questions"), "path")),
                        "q.jsonl");
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(json_object_get(p, "rungs"), "Q4_0"), "model")),
        "m-Q4_0.gguf");
    assert_int_equal(
        json_integer_value(json_object_get(
            json_object_get(json_object_get(p, "rungs"), "Q4_0"), "ctx")),
        4096);
    assert_null(json_object_get(p, "server_args"));
    json_decref(p);
    free(s);
    json_decref(m);
}

static void test_ladder_tsv(void **state)
{
    static const char tsv[] =
        "rung\tfile\tbytes\tsha256\n"
        "BF16\t/opt1/m/e2b-BF16.gguf\t9311305152\t"
        "9fe40af9a72302151a5abc28a5057c5fe335eb80145e795ba745085fc73a2ad6\n"
        "Q4_0\tQ4_0.gguf\t12\t\n";
    static const char want[] =
        "rung\tfile\tbytes\tsha256\n"
        "BF16\te2b-BF16.gguf\t9311305152\t"
        "9fe40af9a72302151a5abc28a5057c5fe335eb80145e795ba745085fc73a2ad6\n"
        "Q4_0\tQ4_0.gguf\t12\t\n";
    static const char bad[] = "rung\tfile\tbytes\tsha256\n"
                              "Q4_0\tQ4_0.gguf\ttwelve\t\n";
    char msg[512] = "", *p;
    size_t n = 0;

    (void)state;
    p = published_ladder_tsv(tsv, strlen(tsv), "r/ladder.tsv", &n, msg,
                             sizeof(msg));
    assert_non_null(p);
    assert_int_equal(n, strlen(want));
    assert_memory_equal(p, want, n);
    free(p);
    /* what the one reader refuses is refused, naming the file and line */
    assert_null(published_ladder_tsv(bad, strlen(bad), "r/ladder.tsv", &n, msg,
                                     sizeof(msg)));
    assert_non_null(strstr(msg, "r/ladder.tsv:2"));
    p = published_ladder_tsv("", 0, "r/ladder.tsv", &n, msg, sizeof(msg));
    assert_non_null(p);
    assert_int_equal(n, 0);
    free(p);
}

static void test_done(void **state)
{
    static const char done[] =
        "{\"rung\":\"EP\",\"server\":\"http://user:pw@10.0.0.5:8080/v1 "
        "(model x)\",\"right\":3}";
    char *p;
    size_t n = 0;

    (void)state;
    p = published_done(done, strlen(done), &n);
    assert_non_null(p);
    assert_string_equal(p, "{\"rung\":\"EP\",\"server\":\"<endpoint> "
                           "(model x)\",\"right\":3}");
    assert_int_equal(n, strlen(p));
    free(p);
    assert_null(published_done("[1]", 3, &n));
    assert_null(published_done("{", 1, &n));
}

static void test_rung_files(void **state)
{
    struct published_file f[PUBLISHED_RUNG_FILES];
    char longname[200];

    (void)state;
    assert_int_equal(published_rung_files("Q4_0", f), PUBLISHED_RUNG_FILES);
    assert_string_equal(f[0].name, "rows/Q4_0.jsonl");
    assert_true(f[0].needed && !f[0].done);
    assert_string_equal(f[1].name, "rows/Q4_0.done");
    assert_true(!f[1].needed && f[1].done);
    assert_string_equal(f[2].name, "rows/Q4_0.probs");
    assert_string_equal(f[3].name, "rows/Q4_0.power");
    assert_string_equal(f[4].name, "repeat/rows/Q4_0.jsonl");
    assert_true(!f[4].needed && !f[4].done);
    memset(longname, 'a', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    assert_int_equal(published_rung_files(longname, f), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_manifest),
        cmocka_unit_test(test_ladder_tsv),
        cmocka_unit_test(test_done),
        cmocka_unit_test(test_rung_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
