/*
 * test_input_config_paths.c - a config's relative paths read against the
 * config's own folder (docs/config.md, "Paths"): the same files from any
 * working folder; absolute paths, ${VAR} paths, commands found on PATH
 * and the command line's overrides kept as given; "NAME/.." taken out
 * only where NAME is a real folder, not a link.
 * Tests: orchestrator/input/config_paths.c
 */
#include "helpers.h"

#include <stdlib.h>
#include <unistd.h>

#include "../../orchestrator/input/config.h"

static char top[256], sub[300], cfg[400];

static void write_cfg(const char *dir, const char *body)
{
    FILE *f;

    snprintf(cfg, sizeof(cfg), "%s/ladder.json", dir);
    f = fopen(cfg, "w");
    assert_non_null(f);
    fputs(body, f);
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
    (void)state;
    tmpdir_make(top, sizeof(top));
    snprintf(sub, sizeof(sub), "%s/configs", top);
    assert_int_equal(mkdir(sub, 0755), 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tmpdir_remove(top);
    return 0;
}

static const char body[] =
    "{\"name\": \"n\", \"questions\": \"q.jsonl\", \"run_dir\": "
    "\"../runs/x\", \"reference\": \"A\", \"rungs\": ["
    "{\"name\": \"A\", \"model\": \"models/a.gguf\"},"
    "{\"name\": \"B\", \"model\": \"/abs/b.gguf\", \"binary\": \"llama-b\"},"
    "{\"name\": \"C\", \"model\": \"${PATHS_TEST_DIR}/c.gguf\","
    " \"binary\": \"bin/llama-c\"}],"
    "\"side_rungs\": [{\"name\": \"S\", \"model\": \"s/../s.gguf\"}],"
    "\"server\": {\"binary\": \"llama-server\"}}";

static void test_against_its_folder(void **state)
{
    struct config c;
    char msg[512], want[600];

    (void)state;
    setenv("PATHS_TEST_DIR", "rel", 1);
    write_cfg(sub, body);
    assert_int_equal(config_load(cfg, NULL, &c, msg, sizeof(msg)), 0);
    snprintf(want, sizeof(want), "%s/q.jsonl", sub);
    assert_string_equal(c.questions, want);
    /* configs/../runs/x: configs is a real folder, so top/runs/x */
    snprintf(want, sizeof(want), "%s/runs/x", top);
    assert_string_equal(c.run_dir, want);
    snprintf(want, sizeof(want), "%s/models/a.gguf", sub);
    assert_string_equal(c.rungs[0].model, want);
    assert_string_equal(c.rungs[1].model, "/abs/b.gguf");
    assert_string_equal(c.rungs[1].binary, "llama-b");   /* on PATH */
    assert_string_equal(c.rungs[2].model, "rel/c.gguf"); /* the variable's */
    snprintf(want, sizeof(want), "%s/bin/llama-c", sub);
    assert_string_equal(c.rungs[2].binary, want);
    /* s/.. where s does not exist: kept as written, the kernel decides */
    snprintf(want, sizeof(want), "%s/s/../s.gguf", sub);
    assert_string_equal(c.rungs[3].model, want);
    assert_string_equal(c.binary, "llama-server");
    config_release(&c);
}

/* A link's ".." is not its folder's: never taken out across one. */
static void test_not_across_a_link(void **state)
{
    struct config c;
    char msg[512], link[400], want[700], real[400];

    (void)state;
    snprintf(real, sizeof(real), "%s/elsewhere", top);
    assert_int_equal(mkdir(real, 0755), 0);
    snprintf(link, sizeof(link), "%s/linked", top);
    assert_int_equal(symlink(real, link), 0);
    write_cfg(link, body);
    assert_int_equal(config_load(cfg, NULL, &c, msg, sizeof(msg)), 0);
    snprintf(want, sizeof(want), "%s/../runs/x", link);
    assert_string_equal(c.run_dir, want);
    config_release(&c);
}

/* The command line's run folder and binary are the user's, and a config
 * in the working folder keeps every path as written. */
static void test_overrides_and_here(void **state)
{
    struct config_over over = {"./my-server", "my-runs", NULL};
    struct config c;
    char msg[512], cwd[512];

    (void)state;
    write_cfg(sub, body);
    assert_int_equal(config_load(cfg, &over, &c, msg, sizeof(msg)), 0);
    assert_string_equal(c.run_dir, "my-runs");
    assert_string_equal(c.binary, "./my-server");
    config_release(&c);
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    assert_int_equal(chdir(sub), 0);
    assert_int_equal(config_load("ladder.json", NULL, &c, msg, sizeof(msg)),
                     0);
    assert_string_equal(c.questions, "q.jsonl");
    assert_string_equal(c.run_dir, "../runs/x");
    assert_string_equal(c.rungs[0].model, "models/a.gguf");
    config_release(&c);
    assert_int_equal(chdir(cwd), 0);
}

/* The build's paths: the checkpoint and the converter's script are
 * files, python and llama-quantize commands. */
static void test_build_paths(void **state)
{
    struct config c;
    char msg[512], want[600];

    (void)state;
    write_cfg(sub,
              "{\"name\": \"n\", \"questions\": \"q.jsonl\", \"run_dir\": "
              "\"r\", \"reference\": \"A\", \"build\": {\"checkpoint\": "
              "\"ck\", \"convert\": \"convert_hf_to_gguf.py\", "
              "\"python\": \"python3\", \"quantize\": \"../t/q\"}, "
              "\"rungs\": [{\"name\": \"A\", \"model\": \"a.gguf\", "
              "\"convert\": \"bf16\"}], "
              "\"server\": {\"binary\": \"llama-server\"}}");
    assert_int_equal(config_load(cfg, NULL, &c, msg, sizeof(msg)), 0);
    assert_int_equal(config_build_expand(&c, msg, sizeof(msg)), 0);
    snprintf(want, sizeof(want), "%s/ck", sub);
    assert_string_equal(c.build.checkpoint, want);
    snprintf(want, sizeof(want), "%s/convert_hf_to_gguf.py", sub);
    assert_string_equal(c.build.convert, want);
    assert_string_equal(c.build.python, "python3");
    snprintf(want, sizeof(want), "%s/t/q", top);
    assert_string_equal(c.build.quantize, want);
    config_release(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_against_its_folder, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_not_across_a_link, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_overrides_and_here, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_build_paths, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
