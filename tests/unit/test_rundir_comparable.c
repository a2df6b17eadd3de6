/*
 * test_rundir_comparable.c - may two folders' rows stand in one
 * (rundir/comparable.h, graveyard merge): every shared setting compared
 * both ways as resume compares it (manifest_same_value), the deepest key
 * named with both values; a key only one side records is a difference; a
 * question file by another name but the same sha256 is the same file,
 * by other bytes its sha256 is what is named; per rung the file, ctx,
 * ngl and build; the rungs object, a run folder's forced log and server
 * binary are not shared settings.
 *
 * Tests: rundir/comparable.c
 * Tests: rundir/manifest.c
 */
#include "helpers.h"

#include <jansson.h>

#include "comparable.h" /* rundir/ */

static const char base[] =
    "{\"graveyard\": \"0.1.0\", \"prompt\": \"p {question}\","
    " \"questions\": {\"path\": \"q.jsonl\", \"sha256\": \"aa\"},"
    " \"request\": {\"temperature\": 0, \"seed\": 0, \"max_tokens\": 1024,"
    " \"enable_thinking\": false, \"extra\": {\"top_k\": 1}},"
    " \"server\": {\"version\": \"version: 1 (fa4e0001)\"},"
    " \"task\": {\"name\": \"answer-line\", \"rules\": [{\"name\": \"r\"}]},"
    " \"rungs\": {\"Q4_0\": {\"model\": \"m-Q4_0.gguf\", \"bytes\": 10,"
    " \"sha256\": \"cd\", \"ctx\": 4096, \"ngl\": 99}}}";

/* base with path set to v (JSON text; NULL: the key removed) */
static json_t *with(const char *path, const char *v)
{
    json_t *m = json_loads(base, 0, NULL), *o = m;
    char key[128], *dot;

    assert_non_null(m);
    snprintf(key, sizeof(key), "%s", path);
    while ((dot = strchr(path == NULL ? "" : key, '.')) != NULL) {
        *dot = '\0';
        o = json_object_get(o, key);
        memmove(key, dot + 1, strlen(dot + 1) + 1);
    }
    if (v == NULL)
        json_object_del(o, key);
    else
        json_object_set_new(o, key, json_loads(v, JSON_DECODE_ANY, NULL));
    return m;
}

/* shared(base, base with path = v) names want with values a and b */
static void shared_names(const char *path, const char *v, const char *want,
                         const char *a, const char *b)
{
    json_t *x = json_loads(base, 0, NULL), *y = with(path, v);
    struct comparable_diff d;

    assert_int_equal(comparable_shared(x, y, &d), 1);
    assert_string_equal(d.key, want);
    assert_string_equal(d.a, a);
    assert_string_equal(d.b, b);
    /* both ways: the other side named as the other side */
    assert_int_equal(comparable_shared(y, x, &d), 1);
    assert_string_equal(d.key, want);
    assert_string_equal(d.a, b);
    json_decref(x);
    json_decref(y);
}

static void test_shared_same(void **state)
{
    json_t *x = json_loads(base, 0, NULL), *y = json_loads(base, 0, NULL);
    struct comparable_diff d;

    (void)state;
    assert_int_equal(comparable_shared(x, y, &d), 0);
    json_decref(y);
    /* the question file by another name, the same bytes: the same */
    y = with("questions.path", "\"/home/me/q.jsonl\"");
    assert_int_equal(comparable_shared(x, y, &d), 0);
    json_decref(y);
    /* rungs are not a shared setting; a folder's own records neither */
    y = with("rungs", "{}");
    json_object_set_new(y, "forced", json_loads("[1]", 0, NULL));
    json_object_set_new(y, "server_binary", json_loads("{\"p\": 1}", 0, NULL));
    assert_int_equal(comparable_shared(x, y, &d), 0);
    json_decref(x);
    json_decref(y);
}

static void test_shared_differs(void **state)
{
    (void)state;
    shared_names("request.max_tokens", "512", "request.max_tokens", "1024",
                 "512");
    shared_names("request.temperature", "0.7", "request.temperature", "0",
                 "0.7");
    shared_names("request.extra.top_k", "40", "request.extra.top_k", "1",
                 "40");
    /* a key only one side records: absent */
    shared_names("request.logprobs", "8", "request.logprobs", "absent", "8");
    shared_names("request.endpoint", "\"completions\"", "request.endpoint",
                 "absent", "\"completions\"");
    shared_names("prompt", NULL, "prompt", "\"p {question}\"", "absent");
    /* other bytes under another name: the sha256 is named, not the name */
    {
        json_t *x = json_loads(base, 0, NULL),
               *y = with("questions.sha256", "\"bb\"");
        struct comparable_diff d;
        json_object_set_new(json_object_get(y, "questions"), "path",
                            json_string("q2.jsonl"));
        assert_int_equal(comparable_shared(x, y, &d), 1);
        assert_string_equal(d.key, "questions.sha256");
        assert_string_equal(d.a, "\"aa\"");
        json_decref(x);
        json_decref(y);
    }
    shared_names("server.version", "\"version: 2 (bb)\"", "server.version",
                 "\"version: 1 (fa4e0001)\"", "\"version: 2 (bb)\"");
    shared_names("task.rules", "[{\"name\": \"s\"}]", "task.rules",
                 "[{\"name\":\"r\"}]", "[{\"name\":\"s\"}]");
    shared_names("graveyard", "\"0.2.0\"", "graveyard", "\"0.1.0\"",
                 "\"0.2.0\"");
}

static void test_rung(void **state)
{
    json_t *x = json_loads(base, 0, NULL), *y;
    struct comparable_diff d;

    (void)state;
    assert_int_equal(comparable_rung(x, "Q4_0", x, "Q4_0", &d), 0);
    y = with("rungs.Q4_0.ctx", "8192");
    assert_int_equal(comparable_rung(x, "Q4_0", y, "Q4_0", &d), 1);
    assert_string_equal(d.key, "rungs.Q4_0.ctx");
    assert_string_equal(d.a, "4096");
    assert_string_equal(d.b, "8192");
    json_decref(y);
    /* the same file by another name: the same */
    y = with("rungs.Q4_0.model", "\"renamed.gguf\"");
    assert_int_equal(comparable_rung(x, "Q4_0", y, "Q4_0", &d), 0);
    json_decref(y);
    y = with("rungs.Q4_0.server_version", "\"version: 9 (x)\"");
    assert_int_equal(comparable_rung(x, "Q4_0", y, "Q4_0", &d), 1);
    assert_string_equal(d.key, "rungs.Q4_0.server_version");
    assert_string_equal(d.a, "absent");
    json_decref(y);
    y = with("rungs.Q4_0.sha256", "\"ee\"");
    assert_int_equal(comparable_rung(x, "Q4_0", y, "Q4_0", &d), 1);
    assert_string_equal(d.key, "rungs.Q4_0.sha256");
    json_decref(y);
    /* a rung one side lacks */
    assert_int_equal(comparable_rung(x, "Q4_0", x, "Q2_K", &d), 1);
    assert_string_equal(d.key, "rungs.Q4_0");
    assert_string_equal(d.b, "absent");
    json_decref(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_same),
        cmocka_unit_test(test_shared_differs),
        cmocka_unit_test(test_rung),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
