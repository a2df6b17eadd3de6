/*
 * test_server_launch.c - what a server is started with (launch.h): the
 * argv graveyard writes itself, a config's template (127.0.0.1 added,
 * -ngl auto dropping "{ngl}" and its flag, placeholders expanded whole),
 * and the environment (GRAVEYARD_* dropped, the GPU set, a template's
 * {gpu} variable left out without a GPU).
 *
 * Tests: orchestrator/server/launch.c
 * Tests: orchestrator/server/runopts.c
 */
#include "helpers.h"
#include "../../orchestrator/server/launch.h"

/* The vector as one line, items joined by spaces. */
static const char *line(char **v)
{
    static char out[16384];
    size_t n = 0;

    out[0] = '\0';
    for (size_t i = 0; v[i]; i++)
        n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%s", i ? " " : "",
                              v[i]);
    return out;
}

static struct run_opts opts(void)
{
    struct run_opts o;

    run_opts_defaults(&o, 0);
    o.llama = "/opt/llama-server";
    o.model = "/m/Q4_0.gguf";
    return o;
}

static void test_ours(void **state)
{
    static const char *extra[] = {"--flash-attn", "on"};
    struct run_opts o = opts();
    char **v;

    (void)state;
    v = launch_argv(&o, 4321);
    assert_string_equal(line(v), "/opt/llama-server -m /m/Q4_0.gguf --host "
                                 "127.0.0.1 --port 4321 -c 4096 -np 1 --seed "
                                 "0 -ngl 99");
    launch_free(v);
    o.ngl = -1; /* auto: no -ngl at all */
    o.server_args = extra;
    o.n_server_args = 2;
    v = launch_argv(&o, 4321);
    assert_string_equal(line(v), "/opt/llama-server -m /m/Q4_0.gguf --host "
                                 "127.0.0.1 --port 4321 -c 4096 -np 1 --seed "
                                 "0 --flash-attn on");
    launch_free(v);
}

static void test_template(void **state)
{
    struct run_opts o = opts();
    char **v, model[3100];
    const char *got;

    (void)state;
    o.argv_template = json_pack("[s,s,s,s,s,s,s,s]", "--model", "{model}",
                                "--port", "{port}", "-ngl", "{ngl}", "--seed",
                                "{seed}");
    v = launch_argv(&o, 99);
    /* no --host in the template: 127.0.0.1 is added */
    assert_string_equal(line(v), "/opt/llama-server --model /m/Q4_0.gguf "
                                 "--port 99 -ngl 99 --seed 0 --host "
                                 "127.0.0.1");
    launch_free(v);
    o.ngl = -1;
    v = launch_argv(&o, 99);
    assert_string_equal(line(v), "/opt/llama-server --model /m/Q4_0.gguf "
                                 "--port 99 --seed 0 --host 127.0.0.1");
    launch_free(v);
    json_decref(o.argv_template);
    /* placeholders expand whole, however long: a 3,000-byte path twice */
    memset(model, 'm', sizeof(model) - 1);
    model[0] = '/';
    model[sizeof(model) - 1] = '\0';
    o.model = model;
    o.argv_template = json_pack("[s,s,s,s,s]", "--host", "127.0.0.1",
                                "--port", "{port}", "{model}:{model}");
    v = launch_argv(&o, 7);
    got = v[5];
    assert_int_equal(strlen(got), 2 * strlen(model) + 1);
    assert_null(v[6]); /* --host given: not added again */
    launch_free(v);
    json_decref(o.argv_template);
}

static void test_env(void **state)
{
    char *ours[] = {"PATH=/bin", "GRAVEYARD_LADDER_PID=12",
                    "GRAVEYARD_PROGRESS_FD=3", "CUDA_VISIBLE_DEVICES=0",
                    "HF_TOKEN=x", NULL};
    struct run_opts o = opts();
    char **v;

    (void)state;
    v = launch_env(&o, ours);
    assert_string_equal(line(v), "PATH=/bin CUDA_VISIBLE_DEVICES=0 HF_TOKEN=x");
    launch_free(v);
    o.gpu = "2";
    v = launch_env(&o, ours);
    assert_string_equal(line(v), "PATH=/bin HF_TOKEN=x CUDA_VISIBLE_DEVICES=2");
    launch_free(v);
    /* the template's variables: its own CUDA_VISIBLE_DEVICES wins, and
     * one that needs {gpu} is left out when no GPU is given */
    o.env_template = json_pack("{s:s,s:s}", "CUDA_VISIBLE_DEVICES", "1{gpu}",
                               "HF_TOKEN", "y");
    v = launch_env(&o, ours);
    assert_string_equal(line(v),
                        "PATH=/bin CUDA_VISIBLE_DEVICES=12 HF_TOKEN=y");
    launch_free(v);
    o.gpu = NULL;
    v = launch_env(&o, ours);
    assert_string_equal(line(v), "PATH=/bin HF_TOKEN=y");
    launch_free(v);
    json_decref(o.env_template);
}

/* What a config may not tell the server is not handed on from
 * graveyard's own environment either: LLAMA_ARG_HF_REPO in the shell
 * overrode -m, LLAMA_API_KEY made every answer a 401 (issue 33). */
static void test_env_inherited(void **state)
{
    char *ours[] = {"PATH=/bin",
                    "LLAMA_ARG_HF_REPO=org/other",
                    "LLAMA_ARG_MODEL=/other.gguf",
                    "LLAMA_API_KEY=k",
                    "LLAMA_ARG_DEVICE=Vulkan1",
                    "LLAMA_ARG_HOST=0.0.0.0",
                    "LLAMA_ARG_N_GPU_LAYERS=9",
                    "HIP_VISIBLE_DEVICES=1",
                    "HF_TOKEN=x",
                    NULL};
    struct run_opts o = opts();
    char **v;

    (void)state;
    v = launch_env(&o, ours);
    assert_string_equal(line(v), "PATH=/bin LLAMA_ARG_N_GPU_LAYERS=9 "
                                 "HIP_VISIBLE_DEVICES=1 HF_TOKEN=x");
    launch_free(v);
}

static void test_port(void **state)
{
    int p = launch_free_port();

    (void)state;
    assert_true(p > 0 && p < 65536);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ours), cmocka_unit_test(test_template),
        cmocka_unit_test(test_env),  cmocka_unit_test(test_env_inherited),
        cmocka_unit_test(test_port),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
