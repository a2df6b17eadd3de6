/*
 * test_run_runplan.c - one rung's run as a plan (runplan.h), which
 * graveyard run and graveyard canary both execute: run's flags into
 * run_opts, a config's rung with only --run-dir, --llama and --gpu
 * standing in, a conflicting flag refused, and the flags a canary fills
 * itself giving the same plan as the command line. Nothing is started.
 *
 * Tests: orchestrator/run/runplan.c
 */
#include "helpers.h"
#include "../../orchestrator/base/cli.h"
#include "../../orchestrator/run/runplan.h"

static char test_dir[64];

static int setup(void **state)
{
    (void)state;
    tmpdir_make(test_dir, sizeof(test_dir));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tmpdir_remove(test_dir);
    return 0;
}

/* The config ladder.json in the test folder: two rungs, one with its own
 * server argument; returns its path. */
static const char *config(void)
{
    static char path[256];
    FILE *f;

    snprintf(path, sizeof(path), "%s/ladder.json", test_dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"name\": \"t\", \"questions\": \"q.jsonl\", \"run_dir\": "
          "\"r\", \"limit\": 5, \"request\": {\"max_tokens\": 300}, "
          "\"server\": "
          "{\"binary\": \"/opt/llama-server\", \"args\": [\"--flash-attn\", "
          "\"on\"]}, \"rungs\": [{\"name\": \"A\", \"model\": \"a.gguf\"}, "
          "{\"name\": \"B\", \"model\": \"b.gguf\", \"server_args\": "
          "[\"--mlock\"]}]}",
          f);
    fclose(f);
    return path;
}

/* argv as a command line gives it: parse, then build. */
static int plan(struct runplan *p, struct runplan_flags *f, int argc,
                char **argv)
{
    static const char *pos[4];
    const struct cli_command text = {.name = "run", .usage = "run"};
    size_t npos;
    int rc;

    memset(p, 0, sizeof(*p)); /* released even when the parse refuses */
    if ((rc = runplan_parse(&text, argc, argv, f, pos, &npos)) != CLI_GO)
        return rc;
    return runplan_build(p, f, pos, npos);
}

static void test_positional(void **state)
{
    char *argv[] = {"run",
                    "Q4_0",
                    "m.gguf",
                    "q.jsonl",
                    "runs/x",
                    "--limit",
                    "7",
                    "--server-arg",
                    "--mlock",
                    "--force",
                    "--max-tokens=99",
                    NULL};
    struct runplan_flags f;
    struct runplan p;

    (void)state;
    assert_int_equal(plan(&p, &f, 11, argv), 0);
    assert_string_equal(p.o.rung, "Q4_0");
    assert_string_equal(p.o.model, "m.gguf");
    assert_string_equal(p.o.questions, "q.jsonl");
    assert_string_equal(p.o.rundir, "runs/x");
    assert_string_equal(p.o.llama, "llama-server");
    assert_int_equal(p.o.limit, 7);
    assert_int_equal(p.o.max_tokens, 99);
    assert_int_equal(p.o.force, 1);
    assert_int_equal(p.o.n_server_args, 1);
    assert_string_equal(p.o.server_args[0], "--mlock");
    assert_int_equal(p.o.no_summary, 0); /* run prints its summary */
    runplan_release(&p);
}

static void test_positional_refusals(void **state)
{
    char *few[] = {"run", "Q4_0", "m.gguf", NULL};
    char *bad[] = {"run", "Q4_0", "m.gguf", "q", "d", "--ngl", "x", NULL};
    char *req[] = {"run", "Q4_0",      "m.gguf", "q",
                   "d",   "--request", "[1]",    NULL};
    struct runplan_flags f;
    struct runplan p;

    (void)state;
    assert_int_equal(plan(&p, &f, 3, few), EXIT_USAGE);
    runplan_release(&p);
    assert_int_equal(plan(&p, &f, 7, bad), EXIT_USAGE);
    runplan_release(&p);
    assert_int_equal(plan(&p, &f, 7, req), EXIT_USAGE);
    runplan_release(&p);
}

/* --config: every setting from the config, the rung's own server args
 * after the ladder's, --run-dir and --llama standing in. */
static void test_config(void **state)
{
    char *argv[] = {"run",       "--config",  NULL,    "--rung", "B",
                    "--run-dir", "elsewhere", "--gpu", "1",      NULL};
    struct runplan_flags f;
    struct runplan p;

    (void)state;
    argv[2] = (char *)config();
    assert_int_equal(plan(&p, &f, 9, argv), 0);
    assert_string_equal(p.o.rung, "B");
    /* the config's paths are read against its folder (config_paths.c);
     * --run-dir is the user's */
    {
        char want[512];
        snprintf(want, sizeof(want), "%s/b.gguf", test_dir);
        assert_string_equal(p.o.model, want);
        snprintf(want, sizeof(want), "%s/q.jsonl", test_dir);
        assert_string_equal(p.o.questions, want);
    }
    assert_string_equal(p.o.rundir, "elsewhere");
    assert_string_equal(p.o.llama, "/opt/llama-server");
    assert_string_equal(p.o.gpu, "1");
    assert_int_equal(p.o.limit, 5);
    assert_int_equal(p.o.max_tokens, 300);
    assert_int_equal(p.o.n_server_args, 3);
    assert_string_equal(p.o.server_args[0], "--flash-attn");
    assert_string_equal(p.o.server_args[2], "--mlock");
    runplan_release(&p);
}

static void test_config_refusals(void **state)
{
    char *limit[] = {"run", "--config", NULL, "--rung",
                     "A",   "--limit",  "3",  NULL};
    char *rung[] = {"run", "--config", NULL, "--rung", "Z", NULL};
    char *pos[] = {"run", "--config", NULL, "--rung", "A", "extra", NULL};
    char *sha[] = {"run", "--config",        NULL, "--rung",
                   "A",   "--config-sha256", "00", NULL};
    struct runplan_flags f;
    struct runplan p;

    (void)state;
    limit[2] = rung[2] = pos[2] = sha[2] = (char *)config();
    assert_int_equal(plan(&p, &f, 7, limit), EXIT_USAGE);
    runplan_release(&p);
    assert_int_equal(plan(&p, &f, 5, rung), EXIT_USAGE);
    runplan_release(&p);
    assert_int_equal(plan(&p, &f, 6, pos), EXIT_USAGE);
    runplan_release(&p);
    assert_int_equal(plan(&p, &f, 7, sha), EXIT_USAGE); /* edited since */
    runplan_release(&p);
}

/* The canary's config form fills the flags itself: the same plan as the
 * command line that says the same, its questions its own (no limit). */
static void test_filled_flags(void **state)
{
    char *argv[] = {"run",       "--config",  NULL,       "--rung",
                    "A",         "--run-dir", "r/canary", "--question-file",
                    "sub.jsonl", "--force",   NULL};
    struct runplan_flags f, g;
    struct runplan p, q;

    (void)state;
    argv[2] = (char *)config();
    assert_int_equal(plan(&p, &f, 10, argv), 0);
    memset(&g, 0, sizeof(g));
    g.config = argv[2];
    g.rung = "A";
    g.run_dir = "r/canary";
    g.qfile = "sub.jsonl";
    g.force = 1;
    assert_int_equal(runplan_build(&q, &g, NULL, 0), 0);
    assert_string_equal(p.o.questions, "sub.jsonl");
    assert_string_equal(q.o.questions, "sub.jsonl");
    assert_int_equal(q.o.limit, 0);
    assert_int_equal(q.o.limit, p.o.limit);
    assert_string_equal(q.o.rundir, p.o.rundir);
    assert_int_equal(q.o.force, p.o.force);
    assert_int_equal(q.o.max_tokens, p.o.max_tokens);
    assert_int_equal(q.o.n_server_args, p.o.n_server_args);
    runplan_release(&p);
    runplan_release(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_positional),
        cmocka_unit_test(test_positional_refusals),
        cmocka_unit_test(test_config),
        cmocka_unit_test(test_config_refusals),
        cmocka_unit_test(test_filled_flags),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
