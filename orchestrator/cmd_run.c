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
#include "taskfile.h"

static const char run_help[] =
    "usage: graveyard run RUNG MODEL QUESTIONS RUNDIR [options]\n"
    "       graveyard run --config CONFIG --rung NAME [--run-dir DIR]\n"
    "                     [--llama PATH] [--gpu ID] [--force] [--quiet]\n"
    "                     [--question-file FILE]\n"
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
    "  --task NAME|FILE    what is asked and how it is graded: a built-in\n"
    "                      task ('--task help' lists them; default\n"
    "                      answer-line) or a task file (docs/tasks.md)\n"
    "  --prompt TEXT       the prompt, with {question} where the question\n"
    "                      goes (default: the task's; recorded in the\n"
    "                      manifest)\n"
    "  --server-argv JSON  the server's arguments after the binary, a JSON\n"
    "                      list with {model} {port} {ngl} {ctx} {seed}, for\n"
    "                      builds whose flags differ (--host is always\n"
    "                      127.0.0.1)\n"
    "  --server-env JSON   extra server environment, a JSON object; {gpu}\n"
    "                      is the --gpu value\n"
    "  --allow-batching    a server given several slots (--server-arg\n"
    "                      -np N) is sent N questions at once: faster, and\n"
    "                      not the same computation (docs/run.md,\n"
    "                      \"Batching\"); refused without this flag\n"
    "  --abort-loops       close a reply as soon as it loops (a line 5\n"
    "                      times, or a span of tokens repeating) and write\n"
    "                      what arrived, finish_reason \"loop\": a night\n"
    "                      of looping rungs is shorter (docs/run.md)\n"
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
    "config's, and --question-file for its questions (graveyard canary\n"
    "asks its own this way).\n"
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

/* The rung of c called name, or NULL. */
static const struct config_rung *config_rung_named(const struct config *c,
                                                   const char *name)
{
    for (size_t i = 0; i < c->nrungs; i++)
        if (strcmp(c->rungs[i].name, name) == 0)
            return &c->rungs[i];
    return NULL;
}

/* Whether the config at path still has the sha256 the ladder started
 * with; else one line on stderr. */
static int same_config(const char *path, const char *sha256)
{
    char hex[65] = "", herr[256];

    if (hash_path(path, hex, herr, sizeof(herr)) == 0 &&
        strcmp(hex, sha256) == 0)
        return 1;
    cli_error("run",
              "%s changed since the ladder started (sha256 %.12s..., now "
              "%.12s...); run the ladder again",
              path, sha256, hex[0] ? hex : "unreadable");
    return 0;
}

/* The task spec names (a config's "task", or --task), or NULL after one
 * line on stderr naming the config when there is one. */
static struct grader_task *load_task(const char *spec, const char *config)
{
    struct grader_task *t;
    char msg[1024];

    if ((t = taskfile_load(spec, msg, sizeof(msg))) == NULL) {
        if (config != NULL)
            cli_error("run", "%s: 'task': %s", config, msg);
        else
            cli_error("run", "--task %s: %s", spec, msg);
    }
    return t;
}

/* What a task sets in o: itself, and its token cap (lm-eval's 256) unless
 * thinking is on; a config's or --max-tokens' cap is set after this. */
static void task_defaults(struct run_opts *o, const struct grader_task *t)
{
    o->task = t;
    if (t != NULL && grader_task_max_tokens(t) > 0 && !o->think)
        o->max_tokens = grader_task_max_tokens(t);
}

/*
 * One rung of a config, with every setting the config gives: the one way
 * graveyard ladder starts a rung, so a config is read and checked by the
 * code that runs it. sha256, when given (by the ladder), must be the
 * config file's: a config edited since the ladder started is refused.
 */
static int run_config(const char *path, const char *rung, const char *sha256,
                      const struct config_over *over, const char *gpu,
                      const char *qfile, int force, int quiet)
{
    const char *args[2 * CONFIG_MAX_ARGS];
    const struct config_rung *r = NULL;
    struct grader_task *task = NULL;
    struct run_opts o;
    struct config c;
    char msg[4400], llama[4200];
    size_t i, n = 0;
    int rc;

    if (config_load(path, over, &c, msg, sizeof(msg)) != 0) {
        cli_error("run", "%s", msg);
        return EXIT_USAGE;
    }
    if (sha256 != NULL && !same_config(path, sha256)) {
        config_release(&c);
        return EXIT_USAGE;
    }
    if ((r = config_rung_named(&c, rung)) == NULL) {
        cli_error("run", "--rung %s: no such rung in '%s'", rung, path);
        config_release(&c);
        return EXIT_USAGE;
    }
    if (gpu != NULL && !config_gpu_ok(gpu)) {
        cli_error("run", "--gpu '%s' is not a GPU id", gpu);
        config_release(&c);
        return EXIT_USAGE;
    }
    if (c.task != NULL && (task = load_task(c.task, path)) == NULL) {
        config_release(&c);
        return EXIT_USAGE;
    }
    run_opts_defaults(&o, c.think);
    task_defaults(&o, task);
    o.rung = r->name;
    o.model = r->model;
    o.questions = qfile ? qfile : c.questions;
    o.rundir = c.run_dir;
    o.llama = cli_llama_path(c.binary, llama, sizeof(llama));
    o.gpu = gpu;
    o.force = force;
    o.quiet = quiet;
    o.limit = qfile ? 0 : c.limit;
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
    o.parallel = c.batching ? r->slots : 1;
    o.abort_loops = c.abort_loops;
    run_opts_finish(&o);
    rc = runner_run(&o);
    config_release(&c);
    grader_task_free(task);
    return rc;
}

/* The flags of graveyard run, as given (NULL when absent). */
struct run_flags {
    const char *llama, *limit, *ngl, *max_tokens, *ctx, *gpu, *request,
        *health, *idle, *log_cap, *prompt, *sargv, *senv, *deadline, *config,
        *rung, *run_dir, *sha, *qfile, *task;
    const char *server_args[32];
    size_t nserver;
    int think, force, quiet, batching, abort_loops;
};

/* --config CONFIG --rung NAME: the config gives every setting, so a flag
 * that would set one there is an error, never silently one of two
 * values. */
static int config_mode(const struct run_flags *f, size_t npos)
{
    const char *other = f->limit         ? "--limit"
                        : f->ngl         ? "--ngl"
                        : f->max_tokens  ? "--max-tokens"
                        : f->ctx         ? "--ctx"
                        : f->request     ? "--request"
                        : f->health      ? "--health-timeout"
                        : f->idle        ? "--idle-timeout"
                        : f->deadline    ? "--request-timeout"
                        : f->log_cap     ? "--log-cap"
                        : f->prompt      ? "--prompt"
                        : f->sargv       ? "--server-argv"
                        : f->senv        ? "--server-env"
                        : f->nserver     ? "--server-arg"
                        : f->think       ? "--think"
                        : f->batching    ? "--allow-batching"
                        : f->abort_loops ? "--abort-loops"
                        : f->task        ? "--task"
                                         : NULL;
    struct config_over over = {NULL, f->run_dir, ""};
    char buf[4200];

    if (f->qfile != NULL && f->config == NULL) {
        cli_error("run", "--question-file goes with --config (the "
                         "positional form names QUESTIONS)");
        return EXIT_USAGE;
    }
    if (f->config == NULL || f->rung == NULL || npos != 0) {
        cli_error("run", "--config CONFIG and --rung NAME go together, "
                         "without positionals (see --help)");
        return EXIT_USAGE;
    }
    if (other != NULL) {
        cli_error("run",
                  "%s with --config: set it in the config (only --run-dir, "
                  "--llama and --gpu stand in for it)",
                  other);
        return EXIT_USAGE;
    }
    if (f->llama != NULL)
        over.binary = cli_llama_path(f->llama, buf, sizeof(buf));
    return run_config(f->config, f->rung, f->sha, &over, f->gpu, f->qfile,
                      f->force, f->quiet);
}

/* The numeric flags into o, each in its range. 0 or EXIT_USAGE. */
static int numbers(const struct run_flags *f, struct run_opts *o)
{
    long v;

    if ((f->limit &&
         number("--limit", f->limit, 1, CONFIG_LIMIT_MAX, &o->limit)) ||
        (f->max_tokens && number("--max-tokens", f->max_tokens, 1,
                                 CONFIG_TOKENS_MAX, &o->max_tokens)) ||
        (f->ctx && number("--ctx", f->ctx, 64, CONFIG_CTX_MAX, &o->ctx)) ||
        (f->health && number("--health-timeout", f->health, 1,
                             CONFIG_SECONDS_MAX, &o->health_timeout_s)) ||
        (f->idle && number("--idle-timeout", f->idle, 1, CONFIG_SECONDS_MAX,
                           &o->idle_s)) ||
        (f->deadline && number("--request-timeout", f->deadline, 1,
                               CONFIG_SECONDS_MAX, &o->request_timeout_s)))
        return EXIT_USAGE;
    run_opts_finish(o);
    if (f->log_cap) {
        if (number("--log-cap", f->log_cap, 1024, 1L << 40, &v))
            return EXIT_USAGE;
        o->log_cap = (size_t)v;
    }
    if (f->ngl && strcmp(f->ngl, "auto") == 0) {
        o->ngl = -1;
    } else if (f->ngl) {
        if (number("--ngl", f->ngl, 0, CONFIG_NGL_MAX, &v))
            return EXIT_USAGE;
        o->ngl = (int)v;
    }
    return 0;
}

/* --server-arg, --gpu, --request, --prompt and the templates into o,
 * each checked. 0 or EXIT_USAGE (o's JSON is the caller's to free). */
static int server_flags(const struct run_flags *f, struct run_opts *o)
{
    char msg[512];
    json_error_t jerr;

    if (config_check_server_args((char *const *)f->server_args, f->nserver,
                                 "--server-arg", msg, sizeof(msg)) != 0) {
        cli_error("run", "%s", msg);
        return EXIT_USAGE;
    }
    if (f->gpu && !config_gpu_ok(f->gpu)) {
        cli_error("run",
                  "--gpu '%s' is not a GPU id (letters, digits, '.', '_', "
                  "':', ',', '-')",
                  f->gpu);
        return EXIT_USAGE;
    }
    o->gpu = f->gpu;
    if (f->request) {
        o->request = json_loads(f->request, 0, &jerr);
        if (!json_is_object(o->request)) {
            cli_error("run", "--request must be a JSON object: %s",
                      o->request ? "not an object" : jerr.text);
            return EXIT_USAGE;
        }
        if (config_check_request(o->request, "--request '", msg,
                                 sizeof(msg)) != 0) {
            cli_error("run", "%s", msg);
            return EXIT_USAGE;
        }
    }
    if (f->prompt && strstr(f->prompt, "{question}") == NULL) {
        cli_error("run", "--prompt must say where the question goes with "
                         "{question}");
        return EXIT_USAGE;
    }
    o->prompt = f->prompt;
    if ((f->sargv &&
         template("--server-argv", f->sargv, 0, &o->argv_template)) ||
        (f->senv && template("--server-env", f->senv, 1, &o->env_template)))
        return EXIT_USAGE;
    o->parallel = config_slots((char *const *)f->server_args, f->nserver,
                               o->argv_template, o->env_template,
                               "the server's arguments", msg, sizeof(msg));
    if (o->parallel < 0 ||
        config_check_slots(o->parallel, f->batching, "the server's arguments",
                           msg, sizeof(msg)) != 0) {
        cli_error("run", "%s", msg);
        return EXIT_USAGE;
    }
    return 0;
}

int cmd_run(int argc, char **argv)
{
    struct run_flags f;
    const char *pos[4];
    size_t npos;
    int help = 0, rc;
    const struct cli_flag flags[] = {
        {"--llama", &f.llama, NULL, NULL, NULL, 0},
        {"--limit", &f.limit, NULL, NULL, NULL, 0},
        {"--think", NULL, &f.think, NULL, NULL, 0},
        {"--ngl", &f.ngl, NULL, NULL, NULL, 0},
        {"--max-tokens", &f.max_tokens, NULL, NULL, NULL, 0},
        {"--ctx", &f.ctx, NULL, NULL, NULL, 0},
        {"--gpu", &f.gpu, NULL, NULL, NULL, 0},
        {"--server-arg", NULL, NULL, f.server_args, &f.nserver, 32},
        {"--request", &f.request, NULL, NULL, NULL, 0},
        {"--health-timeout", &f.health, NULL, NULL, NULL, 0},
        {"--idle-timeout", &f.idle, NULL, NULL, NULL, 0},
        {"--request-timeout", &f.deadline, NULL, NULL, NULL, 0},
        {"--log-cap", &f.log_cap, NULL, NULL, NULL, 0},
        {"--prompt", &f.prompt, NULL, NULL, NULL, 0},
        {"--server-argv", &f.sargv, NULL, NULL, NULL, 0},
        {"--server-env", &f.senv, NULL, NULL, NULL, 0},
        {"--force", NULL, &f.force, NULL, NULL, 0},
        {"--quiet", NULL, &f.quiet, NULL, NULL, 0},
        {"--config", &f.config, NULL, NULL, NULL, 0},
        {"--rung", &f.rung, NULL, NULL, NULL, 0},
        {"--run-dir", &f.run_dir, NULL, NULL, NULL, 0},
        {"--config-sha256", &f.sha, NULL, NULL, NULL, 0},
        {"--question-file", &f.qfile, NULL, NULL, NULL, 0},
        {"--allow-batching", NULL, &f.batching, NULL, NULL, 0},
        {"--abort-loops", NULL, &f.abort_loops, NULL, NULL, 0},
        {"--task", &f.task, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, 0}};
    struct run_opts o;
    struct grader_task *task = NULL;
    char llama_buf[4200];

    memset(&f, 0, sizeof(f));
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
    if (f.task != NULL && strcmp(f.task, "help") == 0) {
        const char *name;
        for (size_t i = 0; (name = grader_task_builtin_name(i)) != NULL; i++)
            printf("%-28s %s\n", name, grader_task_builtin_about(i));
        return EXIT_OK;
    }
    if (f.config != NULL || f.rung != NULL || f.run_dir != NULL ||
        f.sha != NULL || f.qfile != NULL)
        return config_mode(&f, npos);
    if (npos != 4) {
        cli_error("run", "needs RUNG MODEL QUESTIONS RUNDIR (see --help)");
        return EXIT_USAGE;
    }
    if ((rc = cli_rung_name_check("run", pos[0])) != 0)
        return rc;
    run_opts_defaults(&o, f.think);
    if (f.task != NULL && (task = load_task(f.task, NULL)) == NULL)
        return EXIT_USAGE;
    task_defaults(&o, task);
    o.rung = pos[0];
    o.model = pos[1];
    o.questions = pos[2];
    o.rundir = pos[3];
    if (f.llama != NULL)
        o.llama = cli_llama_path(f.llama, llama_buf, sizeof(llama_buf));
    o.force = f.force;
    o.quiet = f.quiet;
    o.abort_loops = f.abort_loops;
    o.server_args = f.server_args;
    o.n_server_args = f.nserver;
    if ((rc = numbers(&f, &o)) == 0 && (rc = server_flags(&f, &o)) == 0)
        rc = runner_run(&o);
    json_decref(o.request);
    json_decref(o.argv_template);
    json_decref(o.env_template);
    grader_task_free(task);
    return rc;
}
