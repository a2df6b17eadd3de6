/*
 * test_rundir_manifest.c - the manifest's records (rundir/manifest.h)
 * written from their structs through manifest_check into a run folder's
 * manifest.json, read back from the file by the readers beside the
 * writers, and compared field by field: a key renamed on the writer's side
 * or the reader's fails it (seen failing with "max_tokens" written as
 * "max_token", and with the rung's "model" read as "file"). The study's
 * request record is pinned byte for byte, so the manifests of the golden
 * and integration cases keep their bytes.
 *
 * Tests: rundir/manifest.c
 * Tests: rundir/manifest_rec.c
 * Tests: rundir/run.c
 */
#include "helpers.h"

#include <errno.h>
#include <jansson.h>

#include "manifest.h" /* rundir/ */
#include "rundir.h"
#include "run.h"

/* test_dir's manifest.json, read whole. */
static json_t *load(void)
{
    char path[256];
    json_error_t jerr;
    json_t *m;

    snprintf(path, sizeof path, "%s/manifest.json", test_dir);
    m = json_load_file(path, 0, &jerr);
    if (m == NULL)
        fail_msg("%s: %s", path, jerr.text);
    return m;
}

/* shared and rung (both new, given up here) into test_dir's manifest. */
static void record(const char *rung_name, json_t *shared, json_t *rung)
{
    char msg[1024];

    assert_non_null(shared);
    assert_non_null(rung);
    if (manifest_check(test_dir, rung_name, shared, rung, 0, msg,
                       sizeof msg) != 0)
        fail_msg("manifest_check: %s", msg);
    json_decref(shared);
    json_decref(rung);
}

static void remove_manifest(void)
{
    char path[256];

    snprintf(path, sizeof path, "%s/manifest.json", test_dir);
    unlink(path);
}

/* Every field of the request, each unlike the others, written, read back
 * from the file and compared. */
static void test_request_round_trip(void **state)
{
    struct manifest_request w, r;
    struct manifest_shared s = {.graveyard = "9.9.9",
                                .questions = "q/gsm8k.jsonl",
                                .questions_sha256 = "ab12",
                                .prompt = "Q: {question}",
                                .request = &w};
    json_t *extra = json_pack("{s:i,s:s}", "top_k", 1, "grammar", "x");
    char msg[512];
    json_t *m;

    (void)state;
    remove_manifest();
    manifest_request_init(&w, 777, 1);
    w.temperature = 3;
    w.seed = 5;
    w.cache_prompt = 1;
    w.extra = extra;
    w.in_flight = 4;
    w.abort_loops = 1;
    w.logprobs = 7;
    w.completions = 1;
    s.task = json_pack("{s:s}", "name", "gsm8k-cot");
    record("Q4_0", manifest_shared_json(&s),
           manifest_rung_json(&(struct manifest_rung){
               .model = "/m/q4.gguf", .bytes = 1, .sha256 = "cd"}));
    m = load();
    if (manifest_request_read(m, &r, msg, sizeof msg) != 0)
        fail_msg("manifest_request_read: %s", msg);
    assert_int_equal(r.temperature, 3);
    assert_int_equal(r.seed, 5);
    assert_int_equal(r.cache_prompt, 1);
    assert_int_equal(r.max_tokens, 777);
    assert_int_equal(r.think, 1);
    assert_true(json_equal(r.extra, extra));
    assert_int_equal(r.in_flight, 4);
    assert_int_equal(r.abort_loops, 1);
    assert_int_equal(r.logprobs, 7);
    assert_int_equal(r.completions, 1);
    /* the shared record's other readers */
    assert_string_equal(manifest_questions(m), "q/gsm8k.jsonl");
    assert_string_equal(manifest_prompt(m), "Q: {question}");
    assert_string_equal(manifest_task_name(m), "gsm8k-cot");
    assert_non_null(manifest_request_raw(m));
    json_decref(m);
    json_decref(extra);
}

/* The study's request: the defaults read back as written, and the record
 * pinned byte for byte (the manifests on disk keep their bytes). */
static void test_request_defaults(void **state)
{
    struct manifest_request w, r;
    json_t *o, *m;
    char msg[512], *text;

    (void)state;
    manifest_request_init(&w, 4096, 0);
    o = manifest_request_json(&w);
    assert_non_null(o);
    text = json_dumps(o, JSON_COMPACT);
    assert_string_equal(text,
                        "{\"temperature\":0,\"seed\":0,\"cache_prompt\":false,"
                        "\"max_tokens\":4096,\"enable_thinking\":false}");
    free(text);
    m = json_pack("{s:o}", "request", o);
    assert_int_equal(manifest_request_read(m, &r, msg, sizeof msg), 0);
    assert_int_equal(r.temperature, 0);
    assert_int_equal(r.seed, 0);
    assert_int_equal(r.cache_prompt, 0);
    assert_int_equal(r.max_tokens, 4096);
    assert_int_equal(r.think, 0);
    assert_null(r.extra);
    assert_int_equal(r.in_flight, 1);
    assert_int_equal(r.abort_loops, 0);
    assert_int_equal(r.logprobs, 0);
    assert_int_equal(r.completions, 0);
    json_decref(m);
}

/* A record the reader cannot stand on: refused with one line naming what
 * is missing or wrong. */
static void test_request_refused(void **state)
{
    struct manifest_request r;
    char msg[512];
    json_t *m;

    (void)state;
    m = json_loads("{\"questions\": {\"path\": \"q\"}}", 0, NULL);
    assert_int_equal(manifest_request_read(m, &r, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "no request"));
    json_decref(m);
    m = json_loads("{\"request\": {\"temperature\": 0, \"seed\": 0, "
                   "\"cache_prompt\": false, \"enable_thinking\": false}}",
                   0, NULL);
    assert_int_equal(manifest_request_read(m, &r, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "request has no max_tokens"));
    json_decref(m);
    m = json_loads("{\"request\": {\"temperature\": 0, \"seed\": 0, "
                   "\"cache_prompt\": false, \"max_tokens\": \"9\", "
                   "\"enable_thinking\": false}}",
                   0, NULL);
    assert_int_equal(manifest_request_read(m, &r, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "request.max_tokens is not a whole number"));
    json_decref(m);
    m = json_loads("{\"request\": {\"temperature\": 0, \"seed\": 0, "
                   "\"cache_prompt\": false, \"max_tokens\": 9, "
                   "\"enable_thinking\": false, \"extra\": [1]}}",
                   0, NULL);
    assert_int_equal(manifest_request_read(m, &r, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "request.extra is not an object"));
    json_decref(m);
    m = json_loads("{\"request\": {\"temperature\": 0, \"seed\": 0, "
                   "\"cache_prompt\": false, \"max_tokens\": 9, "
                   "\"enable_thinking\": false, \"endpoint\": \"chat\"}}",
                   0, NULL);
    assert_int_equal(manifest_request_read(m, &r, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "request.endpoint is not \"completions\""));
    json_decref(m);
}

/* The shared record's server and the rungs' records (a local rung on its
 * own server, a served model) written through manifest_check and read
 * back by manifest.h's and run.h's readers. */
static void test_rungs_round_trip(void **state)
{
    struct manifest_request w;
    struct manifest_shared s = {.graveyard = "9.9.9",
                                .questions = "q.jsonl",
                                .questions_sha256 = "ef34",
                                .prompt = "",
                                .request = &w,
                                .server_version = "version: 1 (abc)",
                                .binary_sha256 = "aa",
                                .binary_path = "/bin/llama-server"};
    const char vocab[] = "369d1f0e399c0ec37adda4150452519d5643752592bd483d2de"
                         "2253af036782d";
    struct rundir_run run;
    struct manifest_file file;
    const char *names[4];
    json_t *m, *e;

    (void)state;
    remove_manifest();
    manifest_request_init(&w, 512, 1);
    w.logprobs = 3;
    s.task = json_object();
    record("Q8_0", manifest_shared_json(&s),
           manifest_rung_json(&(struct manifest_rung){
               .model = "/m/q8.gguf",
               .bytes = 123456789012LL,
               .sha256 = "bb",
               .local = 1,
               .ctx = 8192,
               .ngl = -1,
               .server_args = json_pack("[s]", "-fa"),
               .server_env = json_pack("{s:s}", "X", "1"),
               .vocab = vocab}));
    s.task = json_object();
    record("api", manifest_shared_json(&s),
           manifest_rung_json(
               &(struct manifest_rung){.model = "https://h/v1",
                                       .sha256 = "",
                                       .endpoint_url = "https://h/v1",
                                       .allow_plain_http = 1,
                                       .api_key_env = "KEY",
                                       .api_key_sha256 = "cc"}));
    m = load();
    memset(&run, 0, sizeof run);
    run.manifest = m;
    assert_string_equal(rundir_run_server(&run), "version: 1 (abc)");
    assert_string_equal(rundir_run_questions(&run), "q.jsonl");
    assert_string_equal(rundir_run_questions_sha256(&run), "ef34");
    assert_int_equal(rundir_run_thinking(&run), 1);
    assert_int_equal(rundir_run_max_tokens(&run), 512);
    assert_int_equal(rundir_run_logprobs(&run), 3);
    assert_string_equal(manifest_rung_model(m, "Q8_0"), "/m/q8.gguf");
    assert_string_equal(manifest_rung_model(m, "api"), "https://h/v1");
    /* verify's readers of a bundle's manifest: a rung's file, the
     * question file's hash */
    assert_int_equal(manifest_rung_file(m, "Q8_0", &file), 0);
    assert_string_equal(file.model, "/m/q8.gguf");
    assert_string_equal(file.sha256, "bb");
    assert_true(file.bytes == 123456789012LL);
    assert_int_equal(manifest_rung_file(m, "api", &file), 0);
    assert_string_equal(file.model, "https://h/v1");
    assert_true(file.bytes == 0); /* a served model: no file's bytes */
    assert_int_equal(manifest_rung_file(m, "Q2_K", &file), -1);
    assert_string_equal(manifest_questions_sha256(m), "ef34");
    assert_string_equal(rundir_run_vocab(&run, "Q8_0"), vocab);
    assert_null(rundir_run_vocab(&run, "api"));
    /* the served model is not a local rung */
    assert_int_equal(manifest_local_rungs(m, names, 4), 1);
    assert_string_equal(names[0], "Q8_0");
    /* report.json's view: the six shared keys, in their order */
    e = json_object();
    assert_int_equal(manifest_settings_into(m, e), 0);
    assert_int_equal(json_object_size(e), 6);
    assert_true(
        json_equal(json_object_get(e, "request"), manifest_request_raw(m)));
    json_decref(e);
    json_decref(m);
}

/* A resume that changes a setting is refused naming the key the table
 * spells: the writer's key is the one the check reports. */
static void test_resume_differs(void **state)
{
    struct manifest_request w;
    struct manifest_shared s = {.graveyard = "9.9.9",
                                .questions = "q.jsonl",
                                .questions_sha256 = "ef34",
                                .prompt = "",
                                .request = &w};
    json_t *shared, *rung;
    char msg[1024];

    (void)state;
    remove_manifest();
    manifest_request_init(&w, 512, 0);
    s.task = json_object();
    record("Q8_0", manifest_shared_json(&s),
           manifest_rung_json(
               &(struct manifest_rung){.model = "/m", .sha256 = "bb"}));
    w.max_tokens = 1024;
    s.task = json_object();
    shared = manifest_shared_json(&s);
    rung = manifest_rung_json(
        &(struct manifest_rung){.model = "/m", .sha256 = "bb"});
    errno = 0;
    assert_int_equal(
        manifest_check(test_dir, "Q8_0", shared, rung, 0, msg, sizeof msg),
        -1);
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(msg, "manifest.request differs"));
    json_decref(shared);
    json_decref(rung);
}

/* What may be published: a manifest with a path's folders, server
 * arguments, argv and environment, an endpoint's URL and key hash, the
 * server binary's path and a forced log reduced to the kept keys, each
 * path cut to its file name. */
static void test_public(void **state)
{
    struct manifest_request w;
    struct manifest_shared s = {.graveyard = "9.9.9",
                                .questions = "/data/q/gsm8k.jsonl",
                                .questions_sha256 = "ef34",
                                .prompt = "P",
                                .request = &w,
                                .server_version = "version: 1 (abc)",
                                .binary_sha256 = "aa",
                                .binary_path = "/opt/secret/llama-server"};
    json_t *m, *v;
    char *text;

    (void)state;
    manifest_request_init(&w, 64, 0);
    s.task = json_pack("{s:s}", "name", "t");
    m = manifest_shared_json(&s);
    assert_non_null(m);
    json_object_set_new(m, "forced", json_pack("[{s:s}]", "where", "x"));
    json_object_set_new(
        m, "rungs",
        json_pack("{s:o,s:o}", "Q8_0",
                  manifest_rung_json(&(struct manifest_rung){
                      .model = "/home/me/models/q8.gguf",
                      .bytes = 9,
                      .sha256 = "bb",
                      .local = 1,
                      .ctx = 4096,
                      .ngl = 99,
                      .server_args = json_pack("[s,s]", "--api-key", "sekrit"),
                      .server_argv = json_pack("[s]", "/opt/secret/run"),
                      .server_env = json_pack("{s:s}", "TOKEN", "sekrit"),
                      .server_version = "version: 2 (def)",
                      .binary_sha256 = "cc",
                      .binary_path = "/opt/secret/own"}),
                  "api",
                  manifest_rung_json(&(struct manifest_rung){
                      .model = "https://user:sekrit@h/v1",
                      .sha256 = "",
                      .endpoint_url = "https://user:sekrit@h/v1",
                      .api_key_env = "KEY",
                      .api_key_sha256 = "dd"})));
    v = manifest_public(m);
    assert_non_null(v);
    text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
    assert_string_equal(
        text,
        "{\"graveyard\":\"9.9.9\",\"prompt\":\"P\",\"questions\":{\"path\":"
        "\"gsm8k.jsonl\",\"sha256\":\"ef34\"},\"request\":{\"cache_prompt\":"
        "false,\"enable_thinking\":false,\"max_tokens\":64,\"seed\":0,"
        "\"temperature\":0},\"rungs\":{\"Q8_0\":{\"bytes\":9,\"ctx\":4096,"
        "\"model\":\"q8.gguf\",\"ngl\":99,\"server_version\":\"version: 2 "
        "(def)\",\"sha256\":\"bb\"},\"api\":{\"bytes\":0,\"model\":\"v1\","
        "\"sha256\":\"\"}},\"server\":{\"version\":\"version: 1 (abc)\"},"
        "\"task\":{\"name\":\"t\"}}");
    assert_null(strstr(text, "sekrit"));
    assert_null(strstr(text, "/opt"));
    free(text);
    json_decref(v);
    json_decref(m);
    /* no manifest: an empty view */
    v = manifest_public(NULL);
    text = json_dumps(v, JSON_COMPACT);
    assert_string_equal(text, "{\"rungs\":{}}");
    free(text);
    json_decref(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request_round_trip),
        cmocka_unit_test(test_request_defaults),
        cmocka_unit_test(test_request_refused),
        cmocka_unit_test(test_rungs_round_trip),
        cmocka_unit_test(test_resume_differs),
        cmocka_unit_test(test_public),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
