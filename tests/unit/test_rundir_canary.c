/*
 * test_rundir_canary.c - canary.json: what graveyard canary writes, read
 * back by the one reader the report uses.
 * Tests: rundir/canary.c
 */
#include "helpers.h"

#include "canary.h" /* rundir/ */

static void fill(struct rundir_canary *c)
{
    static char rung[] = "R1", model[] = "/m/r1.gguf", rows[] = "t/R1.jsonl",
                a[] = "q1", b[] = "q7";

    memset(c, 0, sizeof(*c));
    c->rung = rung;
    c->model = model;
    c->rows = rows;
    memset(c->rows_sha256, 'a', 64);
    c->questions = 20;
    c->max_changed = 1;
    c->compared = 20;
    c->changed = 2;
    c->changed_right = 2;
    c->right_trusted = 15;
    c->right_now = 16;
    c->same_text = 18;
    c->ids[0] = a;
    c->ids[1] = b;
    c->nids = 2;
}

/* Written as the canary has always written it, and read back whole. */
static void test_round_trip(void **state)
{
    struct rundir_canary w, r;
    char msg[256], *text;
    json_t *o;

    (void)state;
    fill(&w);
    o = rundir_canary_json(&w);
    assert_non_null(o);
    text = json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT);
    assert_non_null(text);
    assert_string_equal(
        text, "{\"rung\":\"R1\",\"model\":\"/m/r1.gguf\",\"rows\":\"t/R1.jsonl\","
              "\"rows_sha256\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
              "aaaaaaaaaaaaaaaaaaa\",\"questions\":20,\"max_changed\":1,"
              "\"compared\":20,\"missing\":0,\"changed\":2,\"changed_right\":2,"
              "\"right_trusted\":15,\"right_now\":16,\"same_text\":18,"
              "\"changed_ids\":[\"q1\",\"q7\"],\"passed\":false}");
    free(text);
    assert_int_equal(rundir_canary_read(o, "c.json", &r, msg, sizeof(msg)), 0);
    json_decref(o);
    assert_string_equal(r.rung, "R1");
    assert_string_equal(r.model, "/m/r1.gguf");
    assert_string_equal(r.rows, "t/R1.jsonl");
    assert_int_equal(strlen(r.rows_sha256), 64);
    assert_true(r.questions == 20 && r.max_changed == 1 && r.compared == 20 &&
                r.missing == 0 && r.changed == 2 && r.changed_right == 2 &&
                r.right_trusted == 15 && r.right_now == 16 &&
                r.same_text == 18 && !r.passed);
    assert_int_equal(r.nids, 2);
    assert_string_equal(r.ids[1], "q7");
    rundir_canary_free(&r);
}

/* An older verdict lacks the later counts and the model: read, and
 * written back without them (not as -1). */
static void test_older_verdict(void **state)
{
    struct rundir_canary r;
    char msg[256];
    json_t *o = json_loads(
        "{\"rung\":\"R1\",\"rows\":\"x\",\"questions\":3,\"max_changed\":0,"
        "\"compared\":3,\"missing\":0,\"changed\":0,\"same_text\":3,"
        "\"changed_ids\":[],\"passed\":true}",
        0, NULL);
    json_t *back;

    (void)state;
    assert_int_equal(rundir_canary_read(o, "c.json", &r, msg, sizeof(msg)), 0);
    json_decref(o);
    assert_true(r.changed_right == -1 && r.model == NULL && r.passed);
    back = rundir_canary_json(&r);
    assert_null(json_object_get(back, "changed_right"));
    assert_null(json_object_get(back, "model"));
    assert_int_equal(json_integer_value(json_object_get(back, "same_text")), 3);
    json_decref(back);
    rundir_canary_free(&r);
}

/* What the report would print wrong is refused, naming the file. */
static void test_refused(void **state)
{
    static const char *const bad[] = {
        "{\"rung\":\"R1\",\"rows\":\"x\",\"questions\":3,\"max_changed\":0,"
        "\"compared\":3,\"missing\":0,\"changed\":-1,\"same_text\":3,"
        "\"changed_ids\":[],\"passed\":true}",
        "{\"rung\":\"R1\",\"rows\":\"x\",\"questions\":3,\"max_changed\":0,"
        "\"compared\":3,\"missing\":0,\"changed\":0,"
        "\"changed_ids\":[],\"passed\":true}",
        "{\"rung\":\"R1\",\"rows\":\"x\",\"questions\":3,\"max_changed\":0,"
        "\"compared\":3,\"missing\":0,\"changed\":0,\"same_text\":3,"
        "\"changed_ids\":[1],\"passed\":true}",
        "{\"rows\":\"x\",\"questions\":3,\"max_changed\":0,"
        "\"compared\":3,\"missing\":0,\"changed\":0,\"same_text\":3,"
        "\"changed_ids\":[],\"passed\":true}",
        "{\"rung\":\"R1\",\"rows\":\"x\",\"questions\":3,\"max_changed\":0,"
        "\"compared\":3,\"missing\":0,\"changed\":0,\"same_text\":3,"
        "\"changed_ids\":[],\"passed\":1}"};
    struct rundir_canary r;
    char msg[256];
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_t *o = json_loads(bad[i], 0, NULL);
        assert_non_null(o);
        assert_int_equal(rundir_canary_read(o, "run/canary/canary.json", &r,
                                            msg, sizeof(msg)),
                         -1);
        assert_non_null(strstr(msg, "run/canary/canary.json: not graveyard"));
        rundir_canary_free(&r);
        json_decref(o);
    }
}

/* More ids than a verdict holds: refused, not cut. */
static void test_ids_capped(void **state)
{
    struct rundir_canary r;
    char msg[256];
    json_t *o = json_loads(
        "{\"rung\":\"R1\",\"rows\":\"x\",\"questions\":3,\"max_changed\":0,"
        "\"compared\":3,\"missing\":0,\"changed\":0,\"same_text\":3,"
        "\"changed_ids\":[],\"passed\":true}",
        0, NULL);
    json_t *ids = json_object_get(o, "changed_ids");
    size_t i;

    (void)state;
    for (i = 0; i <= RUNDIR_CANARY_IDS_MAX; i++)
        json_array_append_new(ids, json_string("q"));
    assert_int_equal(rundir_canary_read(o, "c.json", &r, msg, sizeof(msg)),
                     -1);
    rundir_canary_free(&r);
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_older_verdict),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_ids_capped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
