/*
 * test_rundir_merged.c - a merged run folder's files (rundir/merged.h):
 * a renamed rung's rows (the row's own "rung" key only, never the same
 * text inside an answer), its .done, ladder.tsv's lines under the merged
 * names, the manifest with every bundle's rung entry, ladder.json's
 * chain and side rungs, the GPU a .done names, and the ladder.json keys
 * that make verdicts another way.
 *
 * Tests: rundir/merged.c
 */
#include "helpers.h"

#include <jansson.h>

#include "merged.h" /* rundir/ */

static void test_rows(void **state)
{
    /* an answer that quotes the key: escaped, never matched */
    static const char rows[] =
        "{\"id\":\"a\",\"rung\":\"Q4_0\",\"content\":\"say "
        "\\\"rung\\\":\\\"Q4_0\\\"\"}\n"
        "{\"id\":\"b\",\"rung\":\"Q4_0\",\"content\":\"x\"}\n";
    static const char want[] =
        "{\"id\":\"a\",\"rung\":\"Q4_0-1a2b3c4d\",\"content\":\"say "
        "\\\"rung\\\":\\\"Q4_0\\\"\"}\n"
        "{\"id\":\"b\",\"rung\":\"Q4_0-1a2b3c4d\",\"content\":\"x\"}\n";
    struct buf b = {0};

    (void)state;
    assert_int_equal(
        merged_rows(rows, strlen(rows), "Q4_0", "Q4_0-1a2b3c4d", &b), 0);
    assert_int_equal(b.len, strlen(want));
    assert_memory_equal(b.p, want, b.len);
    buf_release(&b);
    /* a last line without its line end stays so */
    assert_int_equal(merged_rows("{\"rung\":\"Q4_0\"}", 15, "Q4_0", "X", &b),
                     0);
    assert_int_equal(b.len, strlen("{\"rung\":\"X\"}"));
    assert_memory_equal(b.p, "{\"rung\":\"X\"}", b.len);
    buf_release(&b);
}

static void test_done_and_gpu(void **state)
{
    static const char done[] =
        "{\"rung\":\"Q4_0\",\"n\":4,\"gpu_name\":\"NVIDIA L4\"}";
    char gpu[64], *s;
    size_t n;

    (void)state;
    s = merged_done(done, strlen(done), "Q4_0-1a2b3c4d", &n);
    assert_non_null(s);
    assert_string_equal(
        s, "{\"rung\":\"Q4_0-1a2b3c4d\",\"n\":4,\"gpu_name\":\"NVIDIA L4\"}");
    assert_int_equal(n, strlen(s));
    free(s);
    assert_null(merged_done("[1]", 3, "x", &n));
    merged_done_gpu(done, strlen(done), gpu, sizeof(gpu));
    assert_string_equal(gpu, "NVIDIA L4");
    merged_done_gpu("{\"gpu_name\":null}", 17, gpu, sizeof(gpu));
    assert_string_equal(gpu, "not recorded");
    merged_done_gpu(NULL, 0, gpu, sizeof(gpu));
    assert_string_equal(gpu, "not recorded");
}

static void test_shared_files(void **state)
{
    static const char tsv1[] = "rung\tfile\tbytes\tsha256\n"
                               "Q8_0\tm-Q8_0.gguf\t10\t\n"
                               "Q4_0\tm-Q4_0.gguf\t5\t\n";
    static const char tsv2[] = "rung\tfile\tbytes\tsha256\n"
                               "Q4_0\tm-Q4_0.gguf\t6\t\n";
    json_t *m1 = json_loads(
               "{\"graveyard\": \"0.1.0\", \"questions\": {\"path\": "
               "\"q.jsonl\", \"sha256\": \"aa\"}, \"rungs\": {\"Q8_0\": "
               "{\"bytes\": 10}, \"Q4_0\": {\"bytes\": 5}}}",
               0, NULL),
           *m2 =
               json_loads("{\"rungs\": {\"Q4_0\": {\"bytes\": 6}}}", 0, NULL),
           *l1 = json_loads("{\"name\": \"l\", \"reference\": \"Q8_0\", "
                            "\"rungs\": [\"Q8_0\", \"Q4_0\"], \"side_rungs\": "
                            "[], \"margin_points\": 2.0}",
                            0, NULL),
           *got;
    const struct merged_rung r[] = {
        {"Q8_0", "Q8_0", m1, tsv1, sizeof(tsv1) - 1, 0},
        {"Q4_0", "Q4_0", m1, tsv1, sizeof(tsv1) - 1, 1},
        {"Q4_0-1a2b3c4d", "Q4_0", m2, tsv2, sizeof(tsv2) - 1, 0},
    };
    const char *names[4], *key = NULL;
    char *s, a[32], b[32];
    size_t n;

    (void)state;
    s = merged_ladder_tsv(r, 3, &n);
    assert_non_null(s);
    assert_string_equal(s, "rung\tfile\tbytes\tsha256\n"
                           "Q8_0\tm-Q8_0.gguf\t10\t\n"
                           "Q4_0\tm-Q4_0.gguf\t5\t\n"
                           "Q4_0-1a2b3c4d\tm-Q4_0.gguf\t6\t\n");
    free(s);
    s = merged_manifest(m1, r, 3);
    assert_non_null(s);
    got = json_loads(s, 0, NULL);
    free(s);
    assert_int_equal(
        json_integer_value(json_object_get(
            json_object_get(json_object_get(got, "rungs"), "Q4_0-1a2b3c4d"),
            "bytes")),
        6);
    assert_string_equal(json_string_value(json_object_get(got, "graveyard")),
                        "0.1.0");
    json_decref(got);
    /* each bundle's duels whose two rungs are here, once: the first's
     * Q8_0-Q4_0, the second's again and Q4_0 against the renamed one;
     * one naming a rung not merged is left out */
    {
        json_t *l2 = json_deep_copy(l1);
        const json_t *lads[2] = {l1, l2};

        json_object_set_new(l1, "duels", json_pack("[[ss]]", "Q8_0", "Q4_0"));
        json_object_set_new(l2, "duels",
                            json_pack("[[ss][ss][ss]]", "Q8_0", "Q4_0", "Q4_0",
                                      "Q4_0-1a2b3c4d", "Q4_0", "F16"));
        s = merged_ladder_json(lads, 2, r, 3);
        json_decref(l2);
    }
    assert_non_null(s);
    got = json_loads(s, 0, NULL);
    free(s);
    {
        char *d = json_dumps(json_object_get(got, "duels"), JSON_COMPACT);
        assert_string_equal(
            d, "[[\"Q8_0\",\"Q4_0\"],[\"Q4_0\",\"Q4_0-1a2b3c4d\"]]");
        free(d);
    }
    json_object_del(l1, "duels");
    json_object_del(got, "duels");
    assert_int_equal(merged_ladder_rungs(got, 0, names, 4), 2);
    assert_string_equal(names[0], "Q8_0");
    assert_string_equal(names[1], "Q4_0-1a2b3c4d");
    assert_int_equal(merged_ladder_rungs(got, 1, names, 4), 1);
    assert_string_equal(names[0], "Q4_0");
    assert_string_equal(json_string_value(json_object_get(got, "reference")),
                        "Q8_0");
    /* the margin: verdicts made another way */
    assert_int_equal(merged_ladder_differs(l1, got, &key, a, b, sizeof(a)), 0);
    json_object_set_new(got, "margin_points", json_real(5.0));
    assert_int_equal(merged_ladder_differs(l1, got, &key, a, b, sizeof(a)), 1);
    assert_string_equal(key, "margin_points");
    assert_string_equal(a, "2.0");
    assert_string_equal(b, "5.0");
    json_object_set_new(got, "thinking", json_true());
    assert_int_equal(merged_ladder_differs(l1, got, &key, a, b, sizeof(a)), 1);
    assert_string_equal(key, "thinking");
    assert_string_equal(a, "absent");
    json_decref(got);
    json_decref(m1);
    json_decref(m2);
    json_decref(l1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_done_and_gpu),
        cmocka_unit_test(test_shared_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
