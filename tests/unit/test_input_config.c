/*
 * test_input_config.c - what a config (or graveyard run's flags) may say:
 * never --host or --port for the server; templates that bind 127.0.0.1;
 * GPU ids that are safe as folder names; numbers in range, never
 * truncated; the command line's --llama standing in for a server.binary
 * whose ${VAR} is unset. And the manifest: secrets recorded as hashes.
 *
 * Tests: orchestrator/input/config.c
 * Tests: orchestrator/input/config_check.c
 * Tests: orchestrator/input/config_rungs.c
 * Tests: orchestrator/input/config_request.c
 * Tests: orchestrator/input/redact.c
 * Tests: orchestrator/input/config_long.c
 */
#include "helpers.h"

#include <jansson.h>
#include <stdlib.h>

#include "../../orchestrator/forge/build.h"
#include "../../orchestrator/input/config.h"
#include "../../orchestrator/input/redact.h"
#include "grader.h"

static void test_server_args(void **state)
{
    char *ok[] = {"--jinja", "-fa", "on", "--threads", "8"};
    char *host[] = {"--jinja", "--host", "0.0.0.0"};
    char *host_eq[] = {"--host=0.0.0.0"};
    char *port[] = {"--port", "80"};
    char *ctl[] = {"--alias", "a\nb"};
    char msg[256];

    (void)state;
    assert_int_equal(config_check_server_args(ok, 5, "w", msg, sizeof(msg)),
                     0);
    assert_int_equal(config_check_server_args(host, 3, "w", msg, sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "'--host' is graveyard's to set"));
    assert_int_equal(
        config_check_server_args(host_eq, 1, "w", msg, sizeof(msg)), -1);
    assert_int_equal(config_check_server_args(port, 2, "w", msg, sizeof(msg)),
                     -1);
    assert_int_equal(config_check_server_args(ctl, 2, "w", msg, sizeof(msg)),
                     -1);
}

static int argv_ok(const char *json)
{
    json_t *a = json_loads(json, 0, NULL);
    char msg[256];
    int rc;

    assert_non_null(a);
    rc = config_check_argv_template(a, "argv", msg, sizeof(msg));
    json_decref(a);
    return rc;
}

static void test_argv_template(void **state)
{
    (void)state;
    assert_int_equal(argv_ok("[\"-m\", \"{model}\", \"--port\", \"{port}\"]"),
                     0);
    assert_int_equal(argv_ok("[\"-m\", \"{model}\", \"--port\", \"{port}\", "
                             "\"--host\", \"127.0.0.1\"]"),
                     0);
    /* a second --host after the right one: llama-server takes the last */
    assert_int_equal(argv_ok("[\"-m\", \"{model}\", \"--port\", \"{port}\", "
                             "\"--host\", \"127.0.0.1\", \"--host\", "
                             "\"0.0.0.0\"]"),
                     -1);
    assert_int_equal(argv_ok("[\"-m\", \"{model}\", \"--port=8080\", "
                             "\"{port}\"]"),
                     -1);
    assert_int_equal(argv_ok("[\"-m\", \"{model}\"]"), -1);
    assert_int_equal(argv_ok("[\"-m\", \"{model}\", \"--port\", \"{port}\", "
                             "\"--host\"]"),
                     -1);
}

static void test_env_template(void **state)
{
    json_t *good =
               json_loads("{\"CUDA_VISIBLE_DEVICES\": \"{gpu}\"}", 0, NULL),
           *host = json_loads("{\"LLAMA_ARG_HOST\": \"0.0.0.0\"}", 0, NULL),
           *eq = json_loads("{\"A=B\": \"x\"}", 0, NULL);
    char msg[256];

    (void)state;
    assert_int_equal(config_check_env_template(good, "env", msg, sizeof(msg)),
                     0);
    assert_int_equal(config_check_env_template(host, "env", msg, sizeof(msg)),
                     -1);
    assert_int_equal(config_check_env_template(eq, "env", msg, sizeof(msg)),
                     -1);
    json_decref(good);
    json_decref(host);
    json_decref(eq);
}

static void test_gpu_and_paths(void **state)
{
    (void)state;
    assert_true(config_gpu_ok("0"));
    assert_true(config_gpu_ok("0,1"));
    assert_true(config_gpu_ok("GPU-8f6c2e1a-0b1c-4d2e-9f00-112233445566"));
    assert_true(config_gpu_ok("MIG-5c5d4a1b-aaaa-bbbb-cccc-ddddeeeeffff"));
    assert_false(config_gpu_ok("../x"));
    assert_false(config_gpu_ok("0/../../x"));
    assert_false(config_gpu_ok(".hidden"));
    assert_false(config_gpu_ok(""));
    assert_false(config_gpu_ok("0 1"));
    assert_true(config_path_ok("/models/e2b Q4_0.gguf"));
    assert_false(config_path_ok("/models/a\nb.gguf"));
    assert_false(config_path_ok("/models/a\tb.gguf"));
}

/* A config in the test folder; returns its path. */
static const char *config(const char *name, const char *body)
{
    static char path[256];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", test_dir, name);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(body, f);
    fclose(f);
    return path;
}

#define BASE                                                                  \
    "{\"name\": \"t\", \"questions\": \"q.jsonl\", \"run_dir\": \"r\", "      \
    "\"rungs\": [{\"name\": \"A\", \"model\": \"a.gguf\"}], "

/* Arguments that make the server load other weights than the rung's
 * model (issue 33: a Q8_0 rung answered as the Q4_0 file), that turn
 * every request into a 401 (an API key), or that pick its devices past
 * the scheduler: refused in every spelling the servers read (the "="
 * form, "_" for "-" in a long name). */
static void test_server_args_owned(void **state)
{
    static const char *const bad[] = {"-m",
                                      "--model",
                                      "--model=/x.gguf",
                                      "-mu",
                                      "--model-url",
                                      "--model_url",
                                      "-hf",
                                      "-hfr",
                                      "--hf-repo",
                                      "--hf_repo=a/b",
                                      "-hff",
                                      "--hf-file",
                                      "-dr",
                                      "--docker-repo",
                                      "--models-dir",
                                      "--models-preset",
                                      "--api-key",
                                      "--api_key",
                                      "--api-key=k",
                                      "--api-key-file",
                                      "-dev",
                                      "--device",
                                      "--device=CUDA1",
                                      "-devd",
                                      "--device-draft",
                                      "--spec-draft-device",
                                      NULL};
    char *args[3], msg[512];

    (void)state;
    for (size_t i = 0; bad[i]; i++) {
        args[0] = "-fa";
        args[1] = (char *)bad[i];
        args[2] = "x";
        assert_int_equal(
            config_check_server_args(args, 3, "w", msg, sizeof(msg)), -1);
        assert_non_null(strstr(msg, "w: '"));
        assert_non_null(strstr(msg, bad[i]));
    }
    assert_int_equal(config_check_server_args((char *[]){"-m", "/o.gguf"}, 2,
                                              "w", msg, sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "other weights than the rung's model"));
    assert_int_equal(config_check_server_args((char *[]){"--api-key", "k"}, 2,
                                              "w", msg, sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "401"));
    /* what only looks like them: a draft model, the main GPU of the
     * rung's own devices, a tensor split, -mg, a model alias */
    assert_int_equal(
        config_check_server_args((char *[]){"-md", "d.gguf", "-mg", "0", "-ts",
                                            "1,1", "-a", "m", "--mmproj",
                                            "p.gguf", "-ngl", "99"},
                                 12, "w", msg, sizeof(msg)),
        0);
}

static int env_ok(const char *json, char *msg, size_t size)
{
    json_t *o = json_loads(json, 0, NULL);
    int rc;

    assert_non_null(o);
    rc = config_check_env_template(o, "env", msg, size);
    json_decref(o);
    return rc;
}

/* The same in the environment, and what the environment may not set
 * besides: a GPU other than the scheduler's (CUDA_VISIBLE_DEVICES and
 * kin only as "{gpu}"), graveyard's own GRAVEYARD_* variables. */
static void test_env_owned(void **state)
{
    static const char *const bad[] = {"LLAMA_ARG_MODEL",
                                      "LLAMA_ARG_MODEL_URL",
                                      "LLAMA_ARG_HF_REPO",
                                      "LLAMA_ARG_HF_FILE",
                                      "LLAMA_ARG_DOCKER_REPO",
                                      "LLAMA_ARG_MODELS_DIR",
                                      "LLAMA_ARG_MODELS_PRESET",
                                      "LLAMA_API_KEY",
                                      "LLAMA_ARG_DEVICE",
                                      "GRAVEYARD_PROGRESS_FD",
                                      "GRAVEYARD_X",
                                      NULL};
    static const char *const gpu[] = {
        "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
        "GGML_VK_VISIBLE_DEVICES", NULL};
    char json[256], msg[512];

    (void)state;
    for (size_t i = 0; bad[i]; i++) {
        snprintf(json, sizeof(json), "{\"A\": \"1\", \"%s\": \"v\"}", bad[i]);
        assert_int_equal(env_ok(json, msg, sizeof(msg)), -1);
        assert_non_null(strstr(msg, bad[i]));
    }
    for (size_t i = 0; gpu[i]; i++) {
        snprintf(json, sizeof(json), "{\"%s\": \"0\"}", gpu[i]);
        assert_int_equal(env_ok(json, msg, sizeof(msg)), -1);
        assert_non_null(strstr(msg, gpu[i]));
        assert_non_null(strstr(msg, "{gpu}"));
        snprintf(json, sizeof(json), "{\"%s\": \"1{gpu}\"}", gpu[i]);
        assert_int_equal(env_ok(json, msg, sizeof(msg)), -1);
        snprintf(json, sizeof(json), "{\"%s\": \"{gpu}\"}", gpu[i]);
        assert_int_equal(env_ok(json, msg, sizeof(msg)), 0);
    }
    assert_int_equal(env_ok("{\"LLAMA_ARG_MAIN_GPU\": \"0\", "
                            "\"GGML_CUDA_NO_PINNED\": \"1\", "
                            "\"HF_TOKEN\": \"t\"}",
                            msg, sizeof(msg)),
                     0);
}

/* A template places the rung's model once, as "-m {model}" (or
 * --model): a second -m, or another model flag, loads other weights. */
static void test_argv_template_model(void **state)
{
    (void)state;
    assert_int_equal(argv_ok("[\"--model\", \"{model}\", \"--port\", "
                             "\"{port}\"]"),
                     0);
    assert_int_equal(argv_ok("[\"-m\", \"{model}\", \"--port\", \"{port}\", "
                             "\"-m\", \"/other.gguf\"]"),
                     -1);
    assert_int_equal(argv_ok("[\"-m\", \"{model}\", \"--port\", \"{port}\", "
                             "\"-hf\", \"a/b\"]"),
                     -1);
    assert_int_equal(argv_ok("[\"-m\", \"{model}\", \"--port\", \"{port}\", "
                             "\"--api-key\", \"k\"]"),
                     -1);
    assert_int_equal(argv_ok("[\"-m\", \"{model}\", \"--port\", \"{port}\", "
                             "\"-dev\", \"CUDA1\"]"),
                     -1);
}

/* A rung's env counts for its slots as server.env does, and may not
 * hand the server graveyard's variables. */
static void test_rung_env_slots(void **state)
{
    static const char *const head =
        "{\"name\": \"t\", \"questions\": \"q\", \"run_dir\": \"r\", "
        "\"server\": {\"binary\": \"x\", \"argv\": [\"-m\", \"{model}\", "
        "\"--port\", \"{port}\"]}, ";
    struct config c;
    char msg[512], text[1024];

    (void)state;
    snprintf(text, sizeof text,
             "%s\"rungs\": [{\"name\": \"Q\", \"model\": \"m\", "
             "\"env\": {\"LLAMA_ARG_N_PARALLEL\": \"4\"}}]}",
             head);
    assert_int_equal(
        config_load(config("np.json", text), NULL, &c, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "rung 'Q': the server would have 4 slots"));
    snprintf(text, sizeof text,
             "%s\"batching\": true, \"rungs\": [{\"name\": \"Q\", "
             "\"model\": \"m\", \"env\": {\"LLAMA_ARG_N_PARALLEL\": "
             "\"4\"}}]}",
             head);
    assert_int_equal(
        config_load(config("npb.json", text), NULL, &c, msg, sizeof(msg)), 0);
    assert_int_equal(c.rungs[0].slots, 4);
    config_release(&c);
}

static void test_ranges(void **state)
{
    struct config c;
    char msg[512];

    (void)state;
    assert_int_equal(
        config_load(config("ngl.json", BASE "\"ngl\": 99999999999, "
                                            "\"server\": {\"binary\": "
                                            "\"x\"}}"),
                    NULL, &c, msg, sizeof(msg)),
        -1);
    assert_non_null(strstr(msg, "'ngl' must be an integer from 0 to 10000"));
    assert_int_equal(
        config_load(config("ctx.json", BASE "\"ctx\": 3000000000, "
                                            "\"server\": {\"binary\": "
                                            "\"x\"}}"),
                    NULL, &c, msg, sizeof(msg)),
        -1);
    assert_int_equal(
        config_load(config("ok.json", BASE "\"ngl\": 999, \"request\": "
                                           "{\"timeout_s\": 600, "
                                           "\"idle_timeout_s\": 30}, "
                                           "\"server\": {\"binary\": "
                                           "\"x\"}}"),
                    NULL, &c, msg, sizeof(msg)),
        0);
    assert_int_equal(c.ngl, 999);
    assert_int_equal(c.timeout_s, 600);
    assert_int_equal(c.idle_s, 30);
    config_release(&c);
}

/* "margin_points" (issue 27): 2 when absent, a number above 0 and below
 * 100 taken as written (an integer too), anything else refused in one
 * line naming the file and the key. */
static void test_margin_points(void **state)
{
    static const char *const bad[] = {"0",     "-1",   "100",  "250.5",
                                      "\"2\"", "true", "null", NULL};
    struct config c;
    char msg[512], body[256];
    size_t i;

    (void)state;
    assert_int_equal(
        config_load(config("m0.json", BASE "\"server\": "
                                           "{\"binary\": \"x\"}}"),
                    NULL, &c, msg, sizeof(msg)),
        0);
    assert_true(c.margin_points == GRADER_MARGIN_DEFAULT);
    config_release(&c);
    assert_int_equal(
        config_load(config("m1.json", BASE "\"margin_points\": 0.5, "
                                           "\"server\": {\"binary\": \"x\"}}"),
                    NULL, &c, msg, sizeof(msg)),
        0);
    assert_true(c.margin_points == 0.5);
    config_release(&c);
    assert_int_equal(
        config_load(config("m2.json", BASE "\"margin_points\": 5, "
                                           "\"server\": {\"binary\": \"x\"}}"),
                    NULL, &c, msg, sizeof(msg)),
        0);
    assert_true(c.margin_points == 5.0);
    config_release(&c);
    for (i = 0; bad[i]; i++) {
        snprintf(body, sizeof(body),
                 BASE "\"margin_points\": %s, \"server\": {\"binary\": "
                      "\"x\"}}",
                 bad[i]);
        assert_int_equal(
            config_load(config("mbad.json", body), NULL, &c, msg, sizeof(msg)),
            -1);
        assert_non_null(strstr(msg, "mbad.json: 'margin_points' must be a "
                                    "number of points above 0 and below 100"));
        assert_null(strchr(msg, '\n'));
    }
}

/* --llama, --run-dir and --gpus stand in for keys whose ${VAR}s are not
 * set; without them the unset variable is an error. */
static void test_overrides(void **state)
{
    struct config c;
    struct config_over over = {"/opt/llama-server", "/runs/x", "2,3"};
    const char *path = config("var.json", BASE
                              "\"server\": {\"binary\": "
                              "\"${GRAVEYARD_TEST_UNSET}/bin/llama-server\"}, "
                              "\"gpus\": [\"${GRAVEYARD_TEST_UNSET}\"]}");
    char msg[512];

    (void)state;
    unsetenv("GRAVEYARD_TEST_UNSET");
    assert_int_equal(config_load(path, NULL, &c, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "GRAVEYARD_TEST_UNSET"));
    assert_int_equal(config_load(path, &over, &c, msg, sizeof(msg)), 0);
    assert_string_equal(c.binary, "/opt/llama-server");
    assert_string_equal(c.run_dir, "/runs/x");
    assert_int_equal(c.ngpus, 2);
    assert_string_equal(c.gpus[1], "3");
    config_release(&c);
    over.gpus = "0,../../x";
    assert_int_equal(config_load(path, &over, &c, msg, sizeof(msg)), -1);
    assert_int_equal(
        config_load("/nonexistent/graveyard.json", NULL, &c, msg, sizeof(msg)),
        -1);
    assert_string_equal(msg, "cannot read config "
                             "'/nonexistent/graveyard.json': No such file or "
                             "directory");
}

/* Rung names that would be taken as flags, and server args in rungs. */
static void test_rungs(void **state)
{
    struct config c;
    char msg[512];

    (void)state;
    assert_int_equal(
        config_load(config("dash.json",
                           "{\"name\": \"t\", \"questions\": \"q\", "
                           "\"run_dir\": \"r\", \"rungs\": [{\"name\": "
                           "\"-h\", \"model\": \"a\"}], \"server\": "
                           "{\"binary\": \"x\"}}"),
                    NULL, &c, msg, sizeof(msg)),
        -1);
    assert_non_null(strstr(msg, "not a usable rung name"));
    assert_int_equal(
        config_load(config("rport.json",
                           "{\"name\": \"t\", \"questions\": \"q\", "
                           "\"run_dir\": \"r\", \"rungs\": [{\"name\": "
                           "\"A\", \"model\": \"a\", \"server_args\": "
                           "[\"--port=1\"]}], \"server\": "
                           "{\"binary\": \"x\"}}"),
                    NULL, &c, msg, sizeof(msg)),
        -1);
    assert_non_null(strstr(msg, "rungs[0].server_args"));
}

/* A ladder of settings (issue 28): two rungs may share a file and differ
 * by their args, their "env" (over server.env, checked as it is) or their
 * own "binary" with its "version"; a name twice stays refused, and a
 * "version" without a "binary" pins nothing. */
static void test_settings_rungs(void **state)
{
    static const char *const head =
        "{\"name\": \"t\", \"questions\": \"q\", \"run_dir\": \"r\", "
        "\"server\": {\"binary\": \"x\", \"env\": {\"A\": \"1\"}}, ";
    struct config c;
    char msg[512], text[1024];

    (void)state;
    snprintf(text, sizeof text,
             "%s\"rungs\": [{\"name\": \"Q\", \"model\": \"m\"}, "
             "{\"name\": \"Q-kv\", \"model\": \"m\", \"server_args\": "
             "[\"-ctk\", \"q8_0\"], \"env\": {\"GGML_X\": \"2\"}}, "
             "{\"name\": \"Q-ik\", \"model\": \"m\", \"binary\": "
             "\"/ik/llama-server\", \"version\": \"version: 4840 (x)\"}]}",
             head);
    assert_int_equal(
        config_load(config("set.json", text), NULL, &c, msg, sizeof(msg)), 0);
    assert_int_equal(c.nrungs, 3);
    assert_string_equal(c.rungs[0].model, c.rungs[1].model);
    assert_null(c.rungs[0].env);
    assert_null(c.rungs[0].binary);
    assert_string_equal(
        json_string_value(json_object_get(c.rungs[1].env, "GGML_X")), "2");
    assert_string_equal(c.rungs[1].args[1], "q8_0");
    assert_string_equal(c.rungs[2].binary, "/ik/llama-server");
    assert_string_equal(c.rungs[2].version, "version: 4840 (x)");
    config_release(&c);

    snprintf(text, sizeof text,
             "%s\"rungs\": [{\"name\": \"Q\", \"model\": \"m\"}, "
             "{\"name\": \"Q\", \"model\": \"m\", \"server_args\": "
             "[\"-fa\", \"on\"]}]}",
             head);
    assert_int_equal(
        config_load(config("twice.json", text), NULL, &c, msg, sizeof(msg)),
        -1);
    assert_non_null(strstr(msg, "rung 'Q' is named twice"));
    snprintf(text, sizeof text,
             "%s\"rungs\": [{\"name\": \"Q\", \"model\": \"m\", "
             "\"env\": {\"LLAMA_ARG_PORT\": \"1\"}}]}",
             head);
    assert_int_equal(
        config_load(config("envport.json", text), NULL, &c, msg, sizeof(msg)),
        -1);
    assert_non_null(strstr(msg, "'rungs[0].env'"));
    assert_non_null(strstr(msg, "LLAMA_ARG_PORT"));
    snprintf(text, sizeof text,
             "%s\"rungs\": [{\"name\": \"Q\", \"model\": \"m\", "
             "\"version\": \"version: 1\"}]}",
             head);
    assert_int_equal(
        config_load(config("ver.json", text), NULL, &c, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "'rungs[0].version' pins a rung's own build"));
    snprintf(text, sizeof text,
             "%s\"rungs\": [{\"name\": \"Q\", \"model\": \"m\", "
             "\"binary\": 3}]}",
             head);
    assert_int_equal(
        config_load(config("bin.json", text), NULL, &c, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "'rungs[0].binary' must be a non-empty"));
}

/* A rung's "endpoint" (docs/config.md): a served model, without a
 * "model" (its URL stands for it), its URL checked as --url's, its key's
 * variable a name, no server setting beside it. */
static const char *ep_config(const char *rung)
{
    static char text[1024];

    snprintf(text, sizeof(text),
             "{\"name\": \"t\", \"questions\": \"q\", \"run_dir\": \"r\", "
             "\"rungs\": [{\"name\": \"A\", \"model\": \"a\"}, %s], "
             "\"server\": {\"binary\": \"x\"}}",
             rung);
    return config("ep.json", text);
}

static void test_endpoint_rungs(void **state)
{
    struct config c;
    char msg[1024];

    (void)state;
    assert_int_equal(
        config_load(ep_config("{\"name\": \"E\", \"endpoint\": {\"url\": "
                              "\"https://h.example/v1x\", \"api_key_env\": "
                              "\"MY_KEY\"}}"),
                    NULL, &c, msg, sizeof(msg)),
        0);
    assert_string_equal(c.rungs[1].endpoint, "https://h.example/v1x");
    assert_string_equal(c.rungs[1].model, "https://h.example/v1x");
    assert_string_equal(c.rungs[1].api_key_env, "MY_KEY");
    assert_int_equal(c.rungs[1].allow_plain_http, 0);
    assert_null(c.rungs[0].endpoint);
    config_release(&c);
    assert_int_equal(
        config_load(ep_config("{\"name\": \"E\", \"endpoint\": {\"url\": "
                              "\"http://10.1.2.3:80\", \"allow_plain_http\": "
                              "true}}"),
                    NULL, &c, msg, sizeof(msg)),
        0);
    assert_int_equal(c.rungs[1].allow_plain_http, 1);
    config_release(&c);
    static const char *const bad[][2] = {
        {"{\"name\": \"E\", \"endpoint\": {\"url\": \"http://10.1.2.3\"}}",
         "plain http to another machine"},
        {"{\"name\": \"E\", \"endpoint\": {\"url\": \"https://h\", "
         "\"api_key_env\": \"sk-live-123\"}}",
         "not a variable's name"},
        {"{\"name\": \"E\", \"endpoint\": {\"url\": \"https://h\", "
         "\"key\": \"x\"}}",
         "unknown key 'rungs[1].endpoint.key'"},
        {"{\"name\": \"E\", \"endpoint\": {\"url\": \"https://h\", "
         "\"allow_plain_http\": 1}}",
         "must be true or false"},
        {"{\"name\": \"E\", \"ngl\": 9, \"endpoint\": {\"url\": "
         "\"https://h\"}}",
         "takes no server_args, ngl"},
        {"{\"name\": \"E\", \"endpoint\": \"https://h\"}",
         "must be an object"},
        {"{\"name\": \"E\"}", "missing key 'rungs[1].model'"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(
            config_load(ep_config(bad[i][0]), NULL, &c, msg, sizeof(msg)), -1);
        if (strstr(msg, bad[i][1]) == NULL)
            fail_msg("%s: %s", bad[i][0], msg);
    }
}

/* The build's keys (docs/build.md): types in both forks' lists, any
 * case; "from"s that make a cycle however long; the recipe text
 * build.json keeps; ${VAR}s in "build" expanded only when asked. */
static void test_build_recipes(void **state)
{
    static const char head[] =
        "{\"name\": \"t\", \"questions\": \"q\", \"run_dir\": \"r\", "
        "\"server\": {\"binary\": \"x\"}, \"build\": {\"quantize\": "
        "\"${GRAVEYARD_TEST_UNSET_Q}/llama-quantize\"}, \"rungs\": [";
    char text[2048], msg[512], recipe[256];
    struct config c;

    (void)state;
    assert_string_equal(config_quant_type("q4_k_m"), "Q4_K_M");
    assert_string_equal(config_quant_type("IQ4_KS"), "IQ4_KS"); /* ik */
    assert_string_equal(config_quant_type("tq1_0"), "TQ1_0");   /* mainline */
    assert_null(config_quant_type("Q9_X"));
    assert_null(config_quant_type("Q4_K_M "));
    /* A <- C <- B <- A: a cycle three long */
    snprintf(text, sizeof text, "%s%s", head,
             "{\"name\": \"A\", \"model\": \"a\", \"quantize\": "
             "{\"from\": \"C\", \"type\": \"Q8_0\"}},"
             "{\"name\": \"B\", \"model\": \"b\", \"quantize\": "
             "{\"from\": \"A\", \"type\": \"Q4_0\"}},"
             "{\"name\": \"C\", \"model\": \"c\", \"quantize\": "
             "{\"from\": \"B\", \"type\": \"Q2_K\"}}]}");
    assert_int_equal(
        config_load(config("cycle.json", text), NULL, &c, msg, sizeof(msg)),
        -1);
    assert_non_null(strstr(msg, "through a cycle"));
    /* a chain is fine, and a "from" may name a rung further down */
    snprintf(text, sizeof text, "%s%s", head,
             "{\"name\": \"Q4\", \"model\": \"q\", \"quantize\": "
             "{\"from\": \"F32\", \"type\": \"q4_0\", \"imatrix\": "
             "\"i.dat\", \"args\": [\"--pure\"]}},"
             "{\"name\": \"F32\", \"model\": \"f\"}]}");
    assert_int_equal(
        config_load(config("chain.json", text), NULL, &c, msg, sizeof(msg)),
        0);
    assert_int_equal(c.rungs[0].recipe, RECIPE_QUANTIZE);
    assert_int_equal(c.rungs[0].from, 1);
    { /* the imatrix is read against the config's folder */
        char want[600];
        snprintf(want, sizeof(want),
                 "quantize Q4_0 from F32 imatrix %s/i.dat --pure", test_dir);
        assert_string_equal(build_recipe(&c, 0, recipe, sizeof recipe), want);
    }
    /* the unset ${VAR} in build.quantize matters only to a build */
    assert_int_equal(config_build_expand(&c, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "${GRAVEYARD_TEST_UNSET_Q} is not set"));
    config_release(&c);
}

/* A GPU named twice shares it with none of rungs_per_gpu's checks: the
 * config's "gpus" and --gpus alike are refused, naming the GPU and
 * pointing at rungs_per_gpu (issue 24, G7). */
static void test_gpus_twice(void **state)
{
    char *twice[] = {"0", "0"}, *overlap[] = {"0,1", "1"},
         *zeros[] = {"0", "00"}, *inlist[] = {"2,3,2"},
         *uuid[] = {"GPU-8F6C", "gpu-8f6c"}, *fine[] = {"0", "1", "10"},
         *lists[] = {"0,1", "2,3", "MIG-a"};
    struct config_over over = {NULL, NULL, "0,1,0"};
    struct config c;
    char dev[130], msg[700];
    const char *path;

    (void)state;
    assert_int_equal(config_gpu_twice(twice, 2, dev, sizeof dev), 1);
    assert_string_equal(dev, "0");
    assert_int_equal(config_gpu_twice(overlap, 2, dev, sizeof dev), 1);
    assert_string_equal(dev, "1");
    assert_int_equal(config_gpu_twice(zeros, 2, dev, sizeof dev), 1);
    assert_int_equal(config_gpu_twice(inlist, 1, dev, sizeof dev), 1);
    assert_string_equal(dev, "2");
    assert_int_equal(config_gpu_twice(uuid, 2, dev, sizeof dev), 1);
    assert_int_equal(config_gpu_twice(fine, 3, dev, sizeof dev), 0);
    assert_int_equal(config_gpu_twice(lists, 3, dev, sizeof dev), 0);
    path = config("twice.json", BASE "\"server\": {\"binary\": \"x\"}, "
                                     "\"gpus\": [\"0\", \"1\", \"0\"]}");
    assert_int_equal(config_load(path, NULL, &c, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "twice.json: 'gpus' names GPU '0' twice"));
    assert_non_null(strstr(msg, "\"rungs_per_gpu\" (or --per-gpu K)"));
    assert_int_equal(config_load(path, &over, &c, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "--gpus names GPU '0' twice"));
    over.gpus = "0,1";
    assert_int_equal(config_load(path, &over, &c, msg, sizeof(msg)), 0);
    assert_int_equal(c.ngpus, 2);
    config_release(&c);
}

/* A path handed to a tool as an argument may not start with '-': bury
 * would read run_dir "-rd" as a flag after the whole ladder ran (issue
 * 24, G9); llama-quantize a model, the converter a checkpoint. */
static void test_dash_paths(void **state)
{
    struct config_over over = {NULL, "-rd", NULL};
    struct config c;
    char msg[700];
    const char *path;

    (void)state;
    path = config("rd.json", "{\"name\": \"t\", \"questions\": \"q\", "
                             "\"run_dir\": \"-rd\", \"rungs\": "
                             "[{\"name\": \"A\", \"model\": \"a\"}], "
                             "\"server\": {\"binary\": \"x\"}}");
    assert_int_equal(config_load(path, NULL, &c, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "rd.json: 'run_dir' '-rd' starts with '-'"));
    assert_non_null(strstr(msg, "write './-rd'"));
    over.run_dir = "./-rd";
    assert_int_equal(config_load(path, &over, &c, msg, sizeof(msg)), 0);
    config_release(&c);
    path = config("ok.json", BASE "\"server\": {\"binary\": \"x\"}}");
    over.run_dir = "-rd";
    assert_int_equal(config_load(path, &over, &c, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "--run-dir '-rd' starts with '-'"));
    path = config("m.json", "{\"name\": \"t\", \"questions\": \"q\", "
                            "\"run_dir\": \"r\", \"rungs\": [{\"name\": "
                            "\"A\", \"model\": \"-a.gguf\"}], "
                            "\"server\": {\"binary\": \"x\"}}");
    assert_int_equal(config_load(path, NULL, &c, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "'rungs[0].model' '-a.gguf' starts with"));
    path = config("ck.json", BASE "\"server\": {\"binary\": \"x\"}, "
                                  "\"build\": {\"checkpoint\": \"-ck\", "
                                  "\"convert\": \"c.py\"}}");
    assert_int_equal(config_load(path, NULL, &c, msg, sizeof(msg)), 0);
    assert_int_equal(config_build_expand(&c, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "'build.checkpoint' '-ck' starts with '-'"));
    config_release(&c);
}

/* "request.extra" and --request may not set what graveyard owns (issue
 * 24, G18): each key refused by name, sampling settings let through. */
static void test_request_owned(void **state)
{
    static const char *const refused[] = {
        "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
        "{\"prompt\": \"hi\"}",
        "{\"stream\": false}",
        "{\"n\": 2}",
        "{\"max_tokens\": 50}",
        "{\"n_predict\": 50}",
        "{\"max_completion_tokens\": 50}",
        "{\"chat_template_kwargs\": {\"enable_thinking\": true}}",
        "{\"chat_template_kwargs\": \"x\"}",
        NULL};
    static const char *const names[] = {
        "'messages'",
        "'prompt'",
        "'stream'",
        "'n'",
        "'max_tokens'",
        "'n_predict'",
        "'max_completion_tokens'",
        "'chat_template_kwargs.enable_thinking'",
        "'chat_template_kwargs'"};
    static const char *const allowed[] = {
        "{\"temperature\": 0.7, \"top_k\": 1, \"seed\": 3}",
        "{\"grammar\": \"root ::= [0-9]+\", \"stop\": [\"\\n\\n\"]}",
        "{\"json_schema\": {\"type\": \"object\"}, \"n_probs\": 2}",
        "{\"response_format\": {\"type\": \"json_object\"}}",
        "{\"logprobs\": true, \"top_logprobs\": 3, \"cache_prompt\": true}",
        "{\"chat_template_kwargs\": {\"reasoning_effort\": \"low\"}}",
        NULL};
    char msg[700], text[900];
    struct config c;
    size_t i;

    (void)state;
    for (i = 0; refused[i]; i++) {
        json_t *o = json_loads(refused[i], 0, NULL);
        assert_non_null(o);
        assert_int_equal(
            config_check_request(o, "--request '", msg, sizeof msg), -1);
        assert_non_null(strstr(msg, names[i] + 1));
        assert_true(strncmp(msg, "--request '", 11) == 0);
        json_decref(o);
        snprintf(text, sizeof text,
                 "%s\"request\": {\"extra\": %s}, "
                 "\"server\": {\"binary\": \"x\"}}",
                 BASE, refused[i]);
        assert_int_equal(
            config_load(config("req.json", text), NULL, &c, msg, sizeof(msg)),
            -1);
        assert_non_null(strstr(msg, "req.json: 'request.extra."));
        assert_non_null(strstr(msg, names[i] + 1));
    }
    for (i = 0; allowed[i]; i++) {
        json_t *o = json_loads(allowed[i], 0, NULL);
        assert_non_null(o);
        assert_int_equal(
            config_check_request(o, "--request '", msg, sizeof msg), 0);
        json_decref(o);
        snprintf(text, sizeof text,
                 "%s\"request\": {\"extra\": %s}, "
                 "\"server\": {\"binary\": \"x\"}}",
                 BASE, allowed[i]);
        assert_int_equal(
            config_load(config("req.json", text), NULL, &c, msg, sizeof(msg)),
            0);
        config_release(&c);
    }
}

/* chat_template_kwargs from the request is merged into graveyard's, not
 * over it: it dropped enable_thinking, so a template thought by default
 * under "thinking": false (issue 24, G18). */
static void test_request_merge(void **state)
{
    json_t *body = json_loads(
        "{\"stream\": true, \"temperature\": 0, \"chat_template_kwargs\": "
        "{\"enable_thinking\": false}}",
        0, NULL);
    json_t *extra = json_loads("{\"temperature\": 0.5, "
                               "\"chat_template_kwargs\": "
                               "{\"reasoning_effort\": \"low\"}}",
                               0, NULL);
    json_t *kw;

    (void)state;
    config_request_merge(body, extra);
    kw = json_object_get(body, "chat_template_kwargs");
    assert_true(json_is_false(json_object_get(kw, "enable_thinking")));
    assert_string_equal(
        json_string_value(json_object_get(kw, "reasoning_effort")), "low");
    assert_true(json_real_value(json_object_get(body, "temperature")) == 0.5);
    assert_true(json_is_true(json_object_get(body, "stream")));
    /* the request's object is left as it was, for the next question */
    assert_null(json_object_get(json_object_get(extra, "chat_template_kwargs"),
                                "enable_thinking"));
    json_decref(body);
    json_decref(extra);
}

static void test_redact(void **state)
{
    char *args[] = {
        "--api-key", "sk-secret", "--threads", "8", "--ssl-key-file=/k.pem",
        "-fa"};
    json_t *a = redact_args(args, 6), *env, *r;
    char *text;

    (void)state;
    text = json_dumps(a, JSON_COMPACT);
    assert_null(strstr(text, "sk-secret"));
    assert_null(strstr(text, "/k.pem"));
    assert_non_null(strstr(text, "\"--threads\",\"8\""));
    assert_non_null(strstr(text, "\"--ssl-key-file=<redacted sha256:"));
    free(text);
    /* the same secret hashes the same: a change is still seen */
    r = redact_args(args, 6);
    assert_true(json_equal(a, r));
    json_decref(r);
    args[1] = "sk-other";
    r = redact_args(args, 6);
    assert_false(json_equal(a, r));
    json_decref(r);
    json_decref(a);
    env = json_loads("{\"HF_TOKEN\": \"hf_x\", \"CUDA_VISIBLE_DEVICES\": "
                     "\"1\", \"GGML_CUDA_NO_PINNED\": \"1\", "
                     "\"LLAMA_ARG_API_KEY\": \"k\", \"MY_THING\": \"v\"}",
                     0, NULL);
    r = redact_env(env);
    text = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS);
    assert_non_null(strstr(text, "\"CUDA_VISIBLE_DEVICES\":\"1\""));
    assert_non_null(strstr(text, "\"GGML_CUDA_NO_PINNED\":\"1\""));
    assert_null(strstr(text, "hf_x"));
    assert_null(strstr(text, "\"k\""));
    assert_null(strstr(text, "\"v\""));
    free(text);
    json_decref(r);
    json_decref(env);
}

/* Every secret-bearing flag of both servers' tables (upstream
 * common/arg.cpp, ik_llama.cpp common/common.cpp), in each form: -hft was
 * kept in clear (issue 24, G11). */
static void test_redact_each_flag(void **state)
{
    static char *args[] = {"-hft",
                           "S_hft",
                           "-hft=S_hfteq",
                           "--hf-token",
                           "S_hftoken",
                           "--hf-token=S_hftokeneq",
                           "--hf_token",
                           "S_hfunder",
                           "--HF-TOKEN",
                           "S_hfcase",
                           "--api-key",
                           "S_key",
                           "--api-key=S_keyeq",
                           "--api_key",
                           "S_keyunder",
                           "-mu",
                           "https://u:S_urluser@host/m.gguf",
                           "--model-url=https://h/m?t=S_urlq",
                           "-mmu",
                           "https://host/plain.gguf",
                           "--alias",
                           "see http://x?y",
                           "-m",
                           "{model}"};
    static const char *const secret[] = {
        "S_hft",      "S_hfteq",   "S_hftoken", "S_hftokeneq",
        "S_hfunder",  "S_hfcase",  "S_key",     "S_keyeq",
        "S_keyunder", "S_urluser", "S_urlq",    NULL};
    json_t *a = redact_args(args, sizeof(args) / sizeof(args[0])), *env, *r,
           *tmpl;
    char *text;
    size_t i;

    (void)state;
    text = json_dumps(a, JSON_COMPACT);
    for (i = 0; secret[i]; i++)
        if (strstr(text, secret[i]) != NULL)
            fail_msg("%s in clear: %s", secret[i], text);
    assert_non_null(strstr(text, "\"-hft\",\"<redacted sha256:"));
    assert_non_null(strstr(text, "\"-hft=<redacted sha256:"));
    assert_non_null(strstr(text, "\"--model-url=<redacted sha256:"));
    /* what is no secret stays as it was */
    assert_non_null(strstr(text, "\"https://host/plain.gguf\""));
    assert_non_null(strstr(text, "\"see http://x?y\""));
    assert_non_null(strstr(text, "\"-m\",\"{model}\""));
    free(text);
    json_decref(a);
    /* the config's server.argv template, recorded the same way */
    tmpl = json_loads("[\"-m\", \"{model}\", \"--port\", \"{port}\", "
                      "\"-hft\", \"S_tmpl\", \"--api-key=S_tmpleq\"]",
                      0, NULL);
    r = redact_argv_json(tmpl);
    text = json_dumps(r, JSON_COMPACT);
    assert_null(strstr(text, "S_tmpl"));
    assert_non_null(
        strstr(text, "\"--port\",\"{port}\",\"-hft\",\"<redacted"));
    free(text);
    json_decref(r);
    json_decref(tmpl);
    /* the environment both servers read: HF_TOKEN, LLAMA_API_KEY, and a
     * URL with a credential in LLAMA_ARG_MODEL_URL */
    env = json_loads("{\"HF_TOKEN\": \"S_env1\", \"LLAMA_API_KEY\": "
                     "\"S_env2\", \"LLAMA_ARG_HF_TOKEN\": \"S_env3\", "
                     "\"LLAMA_ARG_MODEL_URL\": \"https://u:S_env4@h/m\", "
                     "\"LLAMA_ARG_MMPROJ_URL\": \"https://h/p.gguf\"}",
                     0, NULL);
    r = redact_env(env);
    text = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS);
    assert_null(strstr(text, "S_env"));
    assert_non_null(
        strstr(text, "\"LLAMA_ARG_MMPROJ_URL\":\"https://h/p.gguf\""));
    free(text);
    json_decref(r);
    json_decref(env);
}

/* "lengths" and "long" (issue 36): the lengths read as numbers or "16K",
 * sorted; the kinds as bits; the defaults; the task ruler; the question
 * file the run folder's long.jsonl, read against the config's folder. */
#define LBASE                                                                 \
    "{\"name\": \"t\", \"run_dir\": \"r\", \"server\": {\"binary\": "         \
    "\"llama-server\"}, \"rungs\": [{\"name\": \"A\", \"model\": "            \
    "\"a.gguf\"}], "

static void test_lengths(void **state)
{
    struct config c;
    char msg[2048], want[512];

    (void)state;
    assert_int_equal(config_load(config("len.json", LBASE
                                        "\"lengths\": [\"16K\", 4096, "
                                        "\"1k\"], \"long\": {\"kinds\": "
                                        "[\"vt\", \"cwe\"], \"items\": 7, "
                                        "\"seed\": 9007199254740991}}"),
                                 NULL, &c, msg, sizeof(msg)),
                     0);
    assert_int_equal(c.nlengths, 3);
    assert_int_equal(c.lengths[0], 1024);
    assert_int_equal(c.lengths[1], 4096);
    assert_int_equal(c.lengths[2], 16384);
    assert_int_equal(c.long_kinds, (1u << 4) | (1u << 5)); /* vt, cwe */
    assert_int_equal(c.long_items, 7);
    assert_true(c.long_seed == 9007199254740991LL);
    assert_string_equal(c.task, "ruler");
    snprintf(want, sizeof(want), "%s/r/long.jsonl", test_dir);
    assert_string_equal(c.questions, want);
    config_release(&c);
    assert_int_equal(
        config_load(config("len2.json", LBASE "\"lengths\": [512]}"), NULL, &c,
                    msg, sizeof(msg)),
        0);
    assert_int_equal(c.long_kinds, (1u << 7) - 1); /* all seven */
    assert_int_equal(c.long_items, 30);
    assert_true(c.long_seed == 1);
    config_release(&c);
    assert_int_equal(
        config_load(config("len3.json", LBASE "\"lengths\": [512], "
                                              "\"long\": {\"seed\": "
                                              "9007199254740992}}"),
                    NULL, &c, msg, sizeof(msg)),
        -1);
    assert_non_null(strstr(msg, "'long.seed'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_server_args),
        cmocka_unit_test(test_argv_template),
        cmocka_unit_test(test_env_template),
        cmocka_unit_test(test_server_args_owned),
        cmocka_unit_test(test_env_owned),
        cmocka_unit_test(test_argv_template_model),
        cmocka_unit_test(test_rung_env_slots),
        cmocka_unit_test(test_gpu_and_paths),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_margin_points),
        cmocka_unit_test(test_overrides),
        cmocka_unit_test(test_rungs),
        cmocka_unit_test(test_settings_rungs),
        cmocka_unit_test(test_endpoint_rungs),
        cmocka_unit_test(test_build_recipes),
        cmocka_unit_test(test_gpus_twice),
        cmocka_unit_test(test_dash_paths),
        cmocka_unit_test(test_request_owned),
        cmocka_unit_test(test_request_merge),
        cmocka_unit_test(test_redact),
        cmocka_unit_test(test_redact_each_flag),
        cmocka_unit_test(test_lengths),
    };

    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
