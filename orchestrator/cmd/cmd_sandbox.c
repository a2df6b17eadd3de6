/*
 * cmd_sandbox.c - graveyard sandbox: the code ladder's sandbox on its
 * own (docs/sandbox.md). --check says whether executions can run here;
 * otherwise each FILE.py runs with the --test statements in the sandbox,
 * several at once, and each result is one JSON object on stdout, in the
 * FILEs' order. The hostile corpus, the unit of the code ladder's grade
 * and the bench all drive it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../base/cli.h"
#include "commands.h"
#include "../sandbox/sandbox.h"
#include "../../util/util.h"

#define MAX_TESTS 1024
#define MAX_FILES 1024

static const char sandbox_about[] =
    "Runs each FILE (a Python program, as a model's reply yields it) with\n"
    "the --test statements in the sandbox the code ladder grades in:\n"
    "bubblewrap with no network, a read-only /usr and a fresh tmpfs as the\n"
    "only things it sees, no environment, its own PID namespace killed\n"
    "whole at the time limit, rlimits on CPU, memory, processes and file\n"
    "size, as user nobody when graveyard is root. Each result is one JSON\n"
    "object on stdout, in the FILEs' order: file, outcome (passed, failed,\n"
    "error, syntax_error, timeout, killed), passed, total, exception,\n"
    "limit, failed_test, ms, output (the tail of what it printed).\n"
    "\n"
    "  graveyard sandbox --check\n"
    "  graveyard sandbox f.py --test 'assert f(1) == 2'\n"
    "  graveyard sandbox --jobs 4 --timeout 5 a.py b.py c.py --test 'assert "
    "ok()'\n"
    "\n"
    "Where bubblewrap cannot make its namespaces, it refuses and says why;\n"
    "--unsafe-exec runs python3 as a plain child instead (the same limits,\n"
    "no sandbox), only when asked by name.\n";

static const char sandbox_after[] =
    "Exit status: 0 every FILE passed (--check: the sandbox works), 1 one\n"
    "did not or the sandbox cannot run here, 2 a usage error or a FILE that\n"
    "cannot be read.\n";

struct one {
    const char *file;
    struct sandbox_result r;
    int done;
};

static void done_cb(void *ctx, const struct sandbox_result *r)
{
    struct one *o = ctx;

    o->r = *r;
    o->done = 1;
}

/* FILE's text, at most the sandbox's cap, or NULL after a message. */
static char *read_program(const char *file, size_t *len)
{
    FILE *f = fopen(file, "rb");
    char *s;
    size_t n;

    if (f == NULL) {
        cli_error("sandbox", "cannot open '%s': %s", file, strerror(errno));
        return NULL;
    }
    s = xrealloc(NULL, SANDBOX_PROGRAM_MAX + 2);
    n = fread(s, 1, SANDBOX_PROGRAM_MAX + 1, f);
    if (ferror(f) || n > SANDBOX_PROGRAM_MAX) {
        cli_error("sandbox", "cannot read '%s': %s", file,
                  ferror(f) ? strerror(errno) : "over the 1 MiB cap");
        fclose(f);
        free(s);
        return NULL;
    }
    fclose(f);
    s[n] = '\0';
    *len = n;
    return s;
}

static void print_result(const struct one *o)
{
    json_t *j = json_object();
    char *s;

    json_object_set_new(j, "file", json_string_nocheck(o->file));
    json_object_set_new(j, "outcome",
                        json_string(sandbox_outcome_name(o->r.outcome)));
    json_object_set_new(j, "passed", json_integer(o->r.passed));
    json_object_set_new(j, "total", json_integer(o->r.total));
    json_object_set_new(j, "exception", json_string(o->r.exception));
    json_object_set_new(j, "limit", json_string(o->r.limit));
    json_object_set_new(j, "failed_test", json_integer(o->r.failed_test));
    json_object_set_new(j, "ms", json_integer(o->r.ms));
    json_object_set_new(j, "output", json_string(o->r.output));
    s = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII);
    if (s == NULL)
        util_oom("a sandbox result");
    puts(s);
    free(s);
    json_decref(j);
}

/* Run every file on one loop; the exit status. */
static int run_files(const struct sandbox_conf *c, const char **files,
                     size_t nfiles, const char *const *tests, size_t ntests)
{
    struct one *ones = xrealloc(NULL, nfiles * sizeof(*ones));
    struct sandbox_pool *pool;
    uv_loop_t *loop = uv_default_loop();
    size_t i;
    int rc = EXIT_OK;

    memset(ones, 0, nfiles * sizeof(*ones));
    pool = sandbox_pool_new(loop, c);
    for (i = 0; i < nfiles; i++) {
        struct sandbox_program prog;
        char msg[256];
        char *code;

        ones[i].file = files[i];
        memset(&prog, 0, sizeof(prog));
        if ((code = read_program(files[i], &prog.code_len)) == NULL) {
            rc = EXIT_USAGE;
            break;
        }
        prog.code = code;
        prog.tests = tests;
        prog.ntests = ntests;
        if (sandbox_submit(pool, &prog, done_cb, &ones[i], msg, sizeof(msg)) !=
            0) {
            cli_error("sandbox", "cannot run '%s': %s", files[i], msg);
            rc = EXIT_USAGE;
        }
        free(code);
        if (rc != EXIT_OK)
            break;
    }
    if (rc != EXIT_OK)
        sandbox_cancel_all(pool);
    else
        uv_run(loop, UV_RUN_DEFAULT);
    sandbox_pool_free(pool);
    uv_run(loop, UV_RUN_DEFAULT);
    for (i = 0; rc != EXIT_USAGE && i < nfiles; i++) {
        print_result(&ones[i]);
        if (!ones[i].done || ones[i].r.outcome != SANDBOX_PASSED)
            rc = EXIT_FAILED;
    }
    free(ones);
    return rc;
}

int cmd_sandbox(int argc, char **argv)
{
    struct sandbox_conf c;
    const char *files[MAX_FILES], *tests[MAX_TESTS];
    const char *bwrap = NULL, *python = NULL;
    char what[256], msg[1024];
    size_t nfiles = 0, ntests = 0;
    int check = 0, unsafe = 0, timeout_s = 10, cpu_s = 0, rc;
    long memory_mb = 1024, fsize_mb = 16, nproc = 64, output = 64 * 1024;
    int jobs;
    const struct cli_opt opts[] = {
        CLI_SWITCH("--check", &check,
                   "say whether executions can run here (the probe every "
                   "run makes first) and exit"),
        CLI_LIST("--test", "STATEMENT", tests, &ntests, MAX_TESTS,
                 "a test run after the program, in its namespace: an assert "
                 "statement, or a HumanEval check source with its "
                 "check(ENTRY) call; each on its own, in order"),
        CLI_INT("--timeout", "S", &timeout_s, 1, 3600,
                "wall clock per FILE: then its namespace is killed"),
        CLI_INT("--cpu", "S", &cpu_s, 0, 3600,
                "RLIMIT_CPU (0: the timeout's)"),
        CLI_LONG("--memory", "MB", &memory_mb, 16, 1L << 20,
                 "RLIMIT_AS, its address space"),
        CLI_LONG("--nproc", "N", &nproc, 1, 4096,
                 "RLIMIT_NPROC, processes of its user"),
        CLI_LONG("--fsize", "MB", &fsize_mb, 1, 4096,
                 "RLIMIT_FSIZE and its /tmp's size"),
        CLI_LONG("--output", "BYTES", &output, 1024, 64L << 20,
                 "stdout and stderr allowed: past it, killed 'output'"),
        CLI_INT("--jobs", "N", &jobs, 1, SANDBOX_JOBS_MAX,
                "FILEs run at once (default: the cores)"),
        CLI_STRING("--bwrap", "PATH", &bwrap,
                   "bubblewrap's binary (default: bwrap on PATH)"),
        CLI_STRING("--python", "PATH", &python,
                   "python3 (default /usr/bin/python3)"),
        CLI_SWITCH("--unsafe-exec", &unsafe,
                   "no sandbox: python3 a plain child with the same limits; "
                   "for a machine where bubblewrap cannot run, knowingly"),
        CLI_END};
    const struct cli_command cmd = {
        "sandbox",
        "graveyard sandbox --check [--unsafe-exec]\n"
        "graveyard sandbox [--timeout S] [--memory MB] [--jobs N] "
        "[--unsafe-exec] FILE.py... [--test STATEMENT]...",
        sandbox_about,
        sandbox_after,
        opts,
        "FILE.py",
        0,
        MAX_FILES};

    sandbox_conf_default(&c);
    jobs = (int)c.jobs;
    if ((rc = cli_parse(&cmd, argc, argv, files, &nfiles)) != CLI_GO)
        return rc;
    if (!check && nfiles == 0) {
        cli_error("sandbox", "needs FILE.py (or --check)");
        return EXIT_USAGE;
    }
    if (bwrap != NULL)
        c.bwrap = bwrap;
    if (python != NULL)
        c.python = python;
    c.timeout_ms = (unsigned)timeout_s * 1000u;
    c.cpu_s = (unsigned)cpu_s;
    c.memory_mb = (unsigned long)memory_mb;
    c.nproc = (unsigned)nproc;
    c.fsize_mb = (unsigned long)fsize_mb;
    c.output_cap = (size_t)output;
    c.jobs = (unsigned)jobs;
    c.unsafe = unsafe;
    if (sandbox_probe(&c, what, sizeof(what), msg, sizeof(msg)) != 0) {
        cli_error("sandbox", "%s", msg);
        return EXIT_FAILED;
    }
    if (check) {
        printf("sandbox: %s\n", what);
        return EXIT_OK;
    }
    return run_files(&c, files, nfiles, tests, ntests);
}
