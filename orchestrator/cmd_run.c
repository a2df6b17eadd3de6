/*
 * cmd_run.c - graveyard run: the command line of one rung's run.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "cli.h"
#include "commands.h"
#include "config.h"
#include "hash.h"
#include "runner.h"

static const char run_help[] =
    "usage: graveyard run RUNG MODEL QUESTIONS RUNDIR [options]\n"
    "       graveyard run --config CONFIG --rung NAME [--run-dir DIR]\n"
    "                     [--llama PATH] [--gpu ID] [--force] [--quiet]\n"
    "\n"
    "Start one llama-server for the GGUF file MODEL, wait until it is\n"
    "healthy, ask it every question of QUESTIONS (JSONL: id, question,\n"
    "answer; or GSM8K's own test.jsonl) one at a time, greedily, and append\n"
    "one row per answer to RUNDIR/rows/RUNG.jsonl. Running the same command\n"
    "again continues where it stopped; a finished rung prints its summary.\n"
    "\n"
    "  --llama PATH        llama-server binary, or a llama.cpp folder\n"
    "                      (build/bin/llama-server inside); default: the\n"
    "                      llama-server on PATH. No recompile to swap builds\n"
    "  --limit N           the first N questions only\n"
    "  --think             thinking on (4096 tokens, -c 8192 unless given)\n"
    "  --ngl N|auto        layers on the GPU (default 99; auto: leave -ngl\n"
    "                      off and let the server decide)\n"
    "  --max-tokens N      token cap per answer (default 1024)\n"
    "  --ctx N             server context -c (default 4096)\n"
    "  --gpu ID            CUDA_VISIBLE_DEVICES for the server\n"
    "  --server-arg ARG    one more server argument (repeat as needed;\n"
    "                      not --host or --port: graveyard's own)\n"
    "  --request JSON      fields merged into every request body, e.g.\n"
    "                      '{\"top_k\": 1}' (recorded in the manifest)\n"
    "  --health-timeout S  give up starting the server after S s (600)\n"
    "  --idle-timeout S    no token for S s: the server hung (120)\n"
    "  --request-timeout S no whole answer in S s: a \"deadline\" error\n"
    "                      row (default: idle timeout + max tokens / 2)\n"
    "  --log-cap BYTES     server log kept per rung: the first and last\n"
    "                      halves (default 4194304)\n"
    "  --prompt TEXT       the prompt, with {question} where the question\n"
    "                      goes (recorded in the manifest)\n"
    "  --server-argv JSON  the server's arguments after the binary, a JSON\n"
    "                      list with {model} {port} {ngl} {ctx} {seed}, for\n"
    "                      builds whose flags differ (--host is always\n"
    "                      127.0.0.1)\n"
    "  --server-env JSON   extra server environment, a JSON object; {gpu}\n"
    "                      is the --gpu value\n"
    "  --force             resume although a setting changed (recorded)\n"
    "  --quiet             no progress lines on stderr\n"
    "\n"
    "Every request: temperature 0, seed 0, cache_prompt false, stream, and\n"
    "chat_template_kwargs.enable_thinking; the server: -c, -np 1, --seed 0,\n"
    "-ngl, --host 127.0.0.1 and a free port. Prints one JSON line: rung, n,\n"
    "right, errors, truncated, median_decode_tps, mean_tokens.\n"
    "With --config, one rung of a ladder config (docs/config.md) is run\n"
    "with every setting the config gives: what graveyard ladder starts for\n"
    "each rung. Only --run-dir, --llama and --gpu may stand in for the\n"
    "config's.\n"
    "\n"
    "A finished rung is checked against the manifest like any other, and\n"
    "prints its summary. Exit status: 0 the rung finished, 1 it failed\n"
    "(run again to resume; a full disk is one), 2 bad input, 3 another\n"
    "graveyard runs the rung. docs/run.md explains rows, resume and\n"
    "faults.\n";

static int number(const char *flag, const char *s, long min, long max,
                  long *out)
{
    char *end;

    errno = 0;
    *out = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || end == s || *out < min || *out > max) {
        cli_error("run", "%s wants a whole number from %ld to %ld, not '%s'",
                  flag, min, max, s);
        return -1;
    }
    return 0;
}

/* --server-argv and --server-env: JSON, checked as a config's are. */
static int template(const char *flag, const char *text, int object,
                    json_t **out)
{
    json_error_t jerr;
    json_t *v = json_loads(text, 0, &jerr);
    char msg[512];
    int rc;

    *out = NULL;
    if (v == NULL) {
        cli_error("run", "%s is not JSON: %s", flag, jerr.text);
        return -1;
    }
    rc = object ? config_check_env_template(v, flag, msg, sizeof(msg))
                : config_check_argv_template(v, flag, msg, sizeof(msg));
    if (rc != 0) {
        cli_error("run", "%s", msg);
        json_decref(v);
        return -1;
    }
    *out = v;
    return 0;
}

/*
 * Started by graveyard ladder (GRAVEYARD_LADDER_PID): die with it. The
 * ladder set a parent-death signal between fork and exec; this sets it
 * again for a ladder of another build, and if the ladder is already gone
 * returns 0, before anything starts: a rung must not load a model onto a
 * GPU for a ladder that is no longer there.
 */
static int ladder_alive(void)
{
    const char *p = getenv("GRAVEYARD_LADDER_PID");

    if (p == NULL)
        return 1;
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
    return (long)getppid() == atol(p);
}

/*
 * One rung of a config, with every setting the config gives: the one way
 * graveyard ladder starts a rung, so a config is read and checked by the
 * code that runs it. sha256, when given (by the ladder), must be the
 * config file's: a config edited since the ladder started is refused.
 */
static int run_config(const char *path, const char *rung, const char *sha256,
                      const struct config_over *over, const char *gpu,
                      int force, int quiet)
{
    char hex[65], herr[256];
    const char *args[2 * CONFIG_MAX_ARGS];
    const struct config_rung *r = NULL;
    struct run_opts o;
    struct config c;
    char msg[4400], llama[4200];
    size_t i, n = 0;
    int rc;

    if (config_load(path, over, &c, msg, sizeof(msg)) != 0) {
        cli_error("run", "%s", msg);
        return EXIT_USAGE;
    }
    if (sha256 != NULL &&
        (hash_path(path, hex, herr, sizeof(herr)) != 0 ||
         strcmp(hex, sha256) != 0)) {
        cli_error("run",
                  "%s changed since the ladder started (sha256 %.12s..., "
                  "now %.12s...); run the ladder again",
                  path, sha256, hex[0] ? hex : "unreadable");
        config_release(&c);
        return EXIT_USAGE;
    }
    for (i = 0; i < c.nrungs && r == NULL; i++)
        if (strcmp(c.rungs[i].name, rung) == 0)
            r = &c.rungs[i];
    if (r == NULL) {
        cli_error("run", "--rung %s: no such rung in '%s'", rung, path);
        config_release(&c);
        return EXIT_USAGE;
    }
    if (gpu != NULL && !config_gpu_ok(gpu)) {
        cli_error("run", "--gpu '%s' is not a GPU id", gpu);
        config_release(&c);
        return EXIT_USAGE;
    }
    run_opts_defaults(&o, c.think);
    o.rung = r->name;
    o.model = r->model;
    o.questions = c.questions;
    o.rundir = c.run_dir;
    o.llama = cli_llama_path(c.binary, llama, sizeof(llama));
    o.gpu = gpu;
    o.force = force;
    o.quiet = quiet;
    o.limit = c.limit;
    if (c.max_tokens > 0)
        o.max_tokens = c.max_tokens;
    if (c.ctx > 0)
        o.ctx = c.ctx;
    o.ngl = r->ngl != -2 ? r->ngl : c.ngl;
    if (c.idle_s > 0)
        o.idle_s = c.idle_s;
    o.request_timeout_s = c.timeout_s;
    o.request = c.request;
    o.prompt = c.prompt;
    o.argv_template = c.argv_template;
    o.env_template = c.env_template;
    for (i = 0; i < c.nserver_args; i++)
        args[n++] = c.server_args[i];
    for (i = 0; i < r->nargs; i++)
        args[n++] = r->args[i];
    o.server_args = args;
    o.n_server_args = n;
    run_opts_finish(&o);
    rc = runner_run(&o);
    config_release(&c);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    const char *pos[4],
        *llama = NULL, *limit = NULL, *ngl = NULL, *max_tokens = NULL,
        *ctx = NULL, *gpu = NULL, *request = NULL, *health = NULL,
        *idle = NULL, *log_cap = NULL, *prompt = NULL, *sargv = NULL,
        *senv = NULL, *deadline = NULL, *config = NULL, *rung = NULL,
        *run_dir = NULL, *sha = NULL;
    const char *server_args[32];
    size_t npos, nserver = 0;
    int think = 0, force = 0, quiet = 0, help = 0, rc;
    const struct cli_flag flags[] = {
        {"--llama", &llama, NULL, NULL, NULL, 0},
        {"--limit", &limit, NULL, NULL, NULL, 0},
        {"--think", NULL, &think, NULL, NULL, 0},
        {"--ngl", &ngl, NULL, NULL, NULL, 0},
        {"--max-tokens", &max_tokens, NULL, NULL, NULL, 0},
        {"--ctx", &ctx, NULL, NULL, NULL, 0},
        {"--gpu", &gpu, NULL, NULL, NULL, 0},
        {"--server-arg", NULL, NULL, server_args, &nserver, 32},
        {"--request", &request, NULL, NULL, NULL, 0},
        {"--health-timeout", &health, NULL, NULL, NULL, 0},
        {"--idle-timeout", &idle, NULL, NULL, NULL, 0},
        {"--request-timeout", &deadline, NULL, NULL, NULL, 0},
        {"--log-cap", &log_cap, NULL, NULL, NULL, 0},
        {"--prompt", &prompt, NULL, NULL, NULL, 0},
        {"--server-argv", &sargv, NULL, NULL, NULL, 0},
        {"--server-env", &senv, NULL, NULL, NULL, 0},
        {"--force", NULL, &force, NULL, NULL, 0},
        {"--quiet", NULL, &quiet, NULL, NULL, 0},
        {"--config", &config, NULL, NULL, NULL, 0},
        {"--rung", &rung, NULL, NULL, NULL, 0},
        {"--run-dir", &run_dir, NULL, NULL, NULL, 0},
        {"--config-sha256", &sha, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, 0}};
    struct run_opts o;
    char llama_buf[4200], msg[512];
    long v;
    json_error_t jerr;

    if (!ladder_alive()) {
        fprintf(stderr, "graveyard run: the ladder that started it is gone; "
                        "not starting\n");
        return 128 + SIGTERM;
    }
    rc = cli_parse("run", argc, argv, flags, pos, 4, &npos, &help);
    if (rc != 0)
        return rc;
    if (help) {
        fputs(run_help, stdout);
        return EXIT_OK;
    }
    if (config != NULL || rung != NULL || run_dir != NULL || sha != NULL) {
        /* the config gives every setting: a flag that would set one there
         * is an error, never silently one of two values */
        const char *other = limit        ? "--limit"
                            : ngl        ? "--ngl"
                            : max_tokens ? "--max-tokens"
                            : ctx        ? "--ctx"
                            : request    ? "--request"
                            : health     ? "--health-timeout"
                            : idle       ? "--idle-timeout"
                            : deadline   ? "--request-timeout"
                            : log_cap    ? "--log-cap"
                            : prompt     ? "--prompt"
                            : sargv      ? "--server-argv"
                            : senv       ? "--server-env"
                            : nserver    ? "--server-arg"
                            : think      ? "--think"
                                         : NULL;
        struct config_over over = {NULL, run_dir, ""};
        char buf[4200];
        if (config == NULL || rung == NULL || npos != 0) {
            cli_error("run", "--config CONFIG and --rung NAME go together, "
                             "without positionals (see --help)");
            return EXIT_USAGE;
        }
        if (other != NULL) {
            cli_error("run",
                      "%s with --config: set it in the config (only "
                      "--run-dir, --llama and --gpu stand in for it)",
                      other);
            return EXIT_USAGE;
        }
        if (llama != NULL)
            over.binary = cli_llama_path(llama, buf, sizeof(buf));
        return run_config(config, rung, sha, &over, gpu, force, quiet);
    }
    if (npos != 4) {
        cli_error("run", "needs RUNG MODEL QUESTIONS RUNDIR (see --help)");
        return EXIT_USAGE;
    }
    if (!cli_rung_name_ok(pos[0])) {
        cli_error("run",
                  "invalid rung name '%s' (letters, digits, '.', '_' "
                  "and '-' only, not starting with '.' or '-')",
                  pos[0]);
        return EXIT_USAGE;
    }
    run_opts_defaults(&o, think);
    o.rung = pos[0];
    o.model = pos[1];
    o.questions = pos[2];
    o.rundir = pos[3];
    if (llama != NULL)
        o.llama = cli_llama_path(llama, llama_buf, sizeof(llama_buf));
    o.force = force;
    o.quiet = quiet;
    o.server_args = server_args;
    o.n_server_args = nserver;
    if (limit && number("--limit", limit, 1, CONFIG_LIMIT_MAX, &o.limit))
        return EXIT_USAGE;
    if (max_tokens && number("--max-tokens", max_tokens, 1, CONFIG_TOKENS_MAX,
                             &o.max_tokens))
        return EXIT_USAGE;
    if (ctx && number("--ctx", ctx, 64, CONFIG_CTX_MAX, &o.ctx))
        return EXIT_USAGE;
    if (health && number("--health-timeout", health, 1, CONFIG_SECONDS_MAX,
                         &o.health_timeout_s))
        return EXIT_USAGE;
    if (idle &&
        number("--idle-timeout", idle, 1, CONFIG_SECONDS_MAX, &o.idle_s))
        return EXIT_USAGE;
    if (deadline && number("--request-timeout", deadline, 1,
                           CONFIG_SECONDS_MAX, &o.request_timeout_s))
        return EXIT_USAGE;
    run_opts_finish(&o);
    if (log_cap) {
        if (number("--log-cap", log_cap, 1024, 1L << 40, &v))
            return EXIT_USAGE;
        o.log_cap = (size_t)v;
    }
    if (ngl && strcmp(ngl, "auto") == 0)
        o.ngl = -1;
    else if (ngl) {
        if (number("--ngl", ngl, 0, CONFIG_NGL_MAX, &v))
            return EXIT_USAGE;
        o.ngl = (int)v;
    }
    if (config_check_server_args((char *const *)server_args, nserver,
                                 "--server-arg", msg, sizeof(msg)) != 0) {
        cli_error("run", "%s", msg);
        return EXIT_USAGE;
    }
    if (gpu && !config_gpu_ok(gpu)) {
        cli_error("run",
                  "--gpu '%s' is not a GPU id (letters, digits, '.', '_', "
                  "':', ',', '-')",
                  gpu);
        return EXIT_USAGE;
    }
    o.gpu = gpu;
    if (request) {
        o.request = json_loads(request, 0, &jerr);
        if (!json_is_object(o.request)) {
            cli_error("run", "--request must be a JSON object: %s",
                      o.request ? "not an object" : jerr.text);
            json_decref(o.request);
            return EXIT_USAGE;
        }
    }
    if (prompt && strstr(prompt, "{question}") == NULL) {
        cli_error("run", "--prompt must say where the question goes with "
                         "{question}");
        json_decref(o.request);
        return EXIT_USAGE;
    }
    o.prompt = prompt;
    if ((sargv && template("--server-argv", sargv, 0, &o.argv_template)) ||
        (senv && template("--server-env", senv, 1, &o.env_template))) {
        json_decref(o.request);
        json_decref(o.argv_template);
        return EXIT_USAGE;
    }
    rc = runner_run(&o);
    json_decref(o.request);
    json_decref(o.argv_template);
    json_decref(o.env_template);
    return rc;
}
