/*
 * cmd_run.c - graveyard run: the command line of one rung's run.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "commands.h"
#include "runner.h"

static const char run_help[] =
    "usage: graveyard run RUNG MODEL QUESTIONS RUNDIR [options]\n"
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
    "  --server-arg ARG    one more server argument (repeat as needed)\n"
    "  --request JSON      fields merged into every request body, e.g.\n"
    "                      '{\"top_k\": 1}' (recorded in the manifest)\n"
    "  --health-timeout S  give up starting the server after S s (600)\n"
    "  --idle-timeout S    a stream silent for S s has hung (120)\n"
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
    "Exit status: 0 the rung finished, 1 it failed (run again to resume),\n"
    "2 bad input. docs/run.md explains rows, resume and faults.\n";

static int number(const char *flag, const char *s, long min, long *out)
{
    char *end;

    errno = 0;
    *out = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || end == s || *out < min) {
        cli_error("run", "%s wants a number of at least %ld, not '%s'", flag,
                  min, s);
        return -1;
    }
    return 0;
}

/* --server-argv: a list of strings with {model} and {port}; any --host
 * must be 127.0.0.1 (the server is never reachable from outside). */
static int check_argv(const char *text, json_t **out)
{
    json_error_t jerr;
    json_t *a = json_loads(text, 0, &jerr), *v;
    int model = 0, port = 0;
    size_t i;

    *out = NULL;
    if (!json_is_array(a) || json_array_size(a) > 48) {
        cli_error("run",
                  "--server-argv must be a JSON list of at most 48 "
                  "strings%s%s",
                  a ? "" : ": ", a ? "" : jerr.text);
        json_decref(a);
        return -1;
    }
    json_array_foreach(a, i, v)
    {
        const char *t = json_string_value(v);
        json_t *next = json_array_get(a, i + 1);
        if (t == NULL || strlen(t) > 900) {
            cli_error("run", "--server-argv item %zu is not a short string",
                      i);
            json_decref(a);
            return -1;
        }
        model |= strstr(t, "{model}") != NULL;
        port |= strstr(t, "{port}") != NULL;
        if (strcmp(t, "--host") == 0 &&
            (!json_is_string(next) ||
             strcmp(json_string_value(next), "127.0.0.1") != 0)) {
            cli_error("run", "--server-argv: the server binds 127.0.0.1 "
                             "only");
            json_decref(a);
            return -1;
        }
    }
    if (!model || !port) {
        cli_error("run", "--server-argv must place {model} and {port}");
        json_decref(a);
        return -1;
    }
    *out = a;
    return 0;
}

static int check_env(const char *text, json_t **out)
{
    json_error_t jerr;
    json_t *o = json_loads(text, 0, &jerr), *v;
    const char *key;

    *out = NULL;
    if (!json_is_object(o)) {
        cli_error("run", "--server-env must be a JSON object%s%s",
                  o ? "" : ": ", o ? "" : jerr.text);
        json_decref(o);
        return -1;
    }
    json_object_foreach(o, key, v)
    {
        if (!json_is_string(v) || key[0] == '\0' || strchr(key, '=')) {
            cli_error("run",
                      "--server-env: '%s' must be a name with a "
                      "string value",
                      key);
            json_decref(o);
            return -1;
        }
    }
    *out = o;
    return 0;
}

int cmd_run(int argc, char **argv)
{
    const char *pos[4], *llama = NULL, *limit = NULL, *ngl = NULL,
                        *max_tokens = NULL, *ctx = NULL, *gpu = NULL,
                        *request = NULL, *health = NULL, *idle = NULL,
                        *log_cap = NULL, *prompt = NULL, *sargv = NULL,
                        *senv = NULL;
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
        {"--log-cap", &log_cap, NULL, NULL, NULL, 0},
        {"--prompt", &prompt, NULL, NULL, NULL, 0},
        {"--server-argv", &sargv, NULL, NULL, NULL, 0},
        {"--server-env", &senv, NULL, NULL, NULL, 0},
        {"--force", NULL, &force, NULL, NULL, 0},
        {"--quiet", NULL, &quiet, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, 0}};
    struct run_opts o;
    char llama_buf[4200];
    long v;
    json_error_t jerr;

    rc = cli_parse("run", argc, argv, flags, pos, 4, &npos, &help);
    if (rc != 0)
        return rc;
    if (help) {
        fputs(run_help, stdout);
        return EXIT_OK;
    }
    if (npos != 4) {
        cli_error("run", "needs RUNG MODEL QUESTIONS RUNDIR (see --help)");
        return EXIT_USAGE;
    }
    if (!cli_rung_name_ok(pos[0])) {
        cli_error("run",
                  "invalid rung name '%s' (letters, digits, '.', '_' "
                  "and '-' only)",
                  pos[0]);
        return EXIT_USAGE;
    }
    memset(&o, 0, sizeof(o));
    o.rung = pos[0];
    o.model = pos[1];
    o.questions = pos[2];
    o.rundir = pos[3];
    o.llama = llama ? cli_llama_path(llama, llama_buf, sizeof(llama_buf))
                    : "llama-server";
    o.think = think;
    o.force = force;
    o.quiet = quiet;
    o.max_tokens = think ? 4096 : 1024;
    o.ctx = think ? 8192 : 4096;
    o.ngl = 99;
    o.health_timeout_s = 600;
    o.idle_s = 120;
    o.grace_ms = 10000;
    o.log_cap = 4u << 20;
    o.server_args = server_args;
    o.n_server_args = nserver;
    if (limit && number("--limit", limit, 1, &o.limit))
        return EXIT_USAGE;
    if (max_tokens && number("--max-tokens", max_tokens, 1, &o.max_tokens))
        return EXIT_USAGE;
    if (ctx && number("--ctx", ctx, 64, &o.ctx))
        return EXIT_USAGE;
    if (health && number("--health-timeout", health, 1, &o.health_timeout_s))
        return EXIT_USAGE;
    if (idle && number("--idle-timeout", idle, 1, &o.idle_s))
        return EXIT_USAGE;
    if (log_cap) {
        if (number("--log-cap", log_cap, 1024, &v))
            return EXIT_USAGE;
        o.log_cap = (size_t)v;
    }
    if (ngl && strcmp(ngl, "auto") == 0)
        o.ngl = -1;
    else if (ngl) {
        if (number("--ngl", ngl, 0, &v))
            return EXIT_USAGE;
        o.ngl = (int)v;
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
    if ((sargv && check_argv(sargv, &o.argv_template) != 0) ||
        (senv && check_env(senv, &o.env_template) != 0)) {
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
