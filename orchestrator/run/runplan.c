/*
 * runplan.c - one rung's run as a plan: run's flags or a config's rung
 * into run_opts, each checked, then the runner.
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "../../grader/grader.h"
#include "../base/cli.h"
#include "../input/config.h"
#include "../input/longitem.h"
#include "../input/questions.h"
#include "../base/hash.h"
#include "runner.h"
#include "runplan.h"
#include "../input/taskfile.h"
#include "../input/tooldocs.h"

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
    long pid;

    if (p == NULL)
        return 1;
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
    /* not a process id: that ladder is not our parent either */
    return cli_whole(p, 1, LONG_MAX, &pid) == 0 && (long)getppid() == pid;
}

int runplan_ladder_gone(void)
{
    if (ladder_alive())
        return 0;
    fprintf(stderr, "graveyard run: the ladder that started it is gone; "
                    "not starting\n");
    return 128 + SIGTERM;
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

/* The rung's server: its own binary (or the config's) with the version
 * it pins, and its environment over server.env (a ladder of settings,
 * docs/config.md). 0, or the exit status after one line. */
static int rung_server(struct runplan *p, const struct config_rung *r)
{
    struct run_opts *o = &p->o;
    const struct config *c = &p->c;

    if ((o->llama = cli_llama_path(r->binary ? r->binary : c->binary,
                                   &p->llama)) == NULL) {
        cli_error("run", "path too long: '%.200s...'",
                  r->binary ? r->binary : c->binary);
        return EXIT_USAGE;
    }
    o->own_binary = r->binary != NULL;
    o->want_version = r->version;
    o->env_template = c->env_template;
    if (r->env != NULL) { /* the rung's variables over the server's */
        p->env =
            c->env_template ? json_deep_copy(c->env_template) : json_object();
        if (p->env == NULL || json_object_update(p->env, r->env) != 0) {
            cli_error("run", "out of memory");
            return EXIT_FAILED;
        }
        o->env_template = p->env;
    }
    return 0;
}

/* A rung's endpoint (a served model) into o: NULL for a local one. */
static void endpoint_opts(struct run_opts *o, const struct config_rung *r)
{
    o->endpoint = r->endpoint;
    o->api_key_env = r->api_key_env;
    o->allow_plain_http = r->allow_plain_http;
}

/* The reference rung and its file into o, for the vocabulary check. */
static void reference_of(struct run_opts *o, const struct config *c)
{
    for (size_t i = 0; i < c->nrungs; i++)
        if (strcmp(c->rungs[i].name, c->reference) == 0) {
            o->ref_rung = c->rungs[i].name;
            o->ref_model = c->rungs[i].model;
        }
}

/* A config's "lengths": its items made before a rung runs alone (the
 * ladder makes them first). 0, or EXIT_USAGE after one line. */
static int long_made(const struct runplan_flags *f, const struct config *c,
                     const char *questions)
{
    if (f->serve_only || f->qfile != NULL || c->nlengths == 0 ||
        access(questions, F_OK) == 0)
        return 0;
    cli_error("run",
              "%s: the long items of its \"lengths\" are not made yet "
              "('%s'): 'graveyard ladder %s' makes them first, or "
              "'graveyard long --config %s'",
              f->config, questions, f->config, f->config);
    return EXIT_USAGE;
}

/*
 * One rung of a config, with every setting the config gives: the one way
 * graveyard ladder starts a rung, so a config is read and checked by the
 * code that runs it. f->sha, when given (by the ladder), must be the
 * config file's: a config edited since the ladder started is refused.
 */
static int config_plan(struct runplan *p, const struct runplan_flags *f,
                       const struct config_over *over)
{
    const struct config_rung *r = NULL;
    struct run_opts *o = &p->o;
    struct config *c = &p->c;
    char msg[4400];
    size_t i, n = 0;
    int rc;

    if (config_load(f->config, over, c, msg, sizeof(msg)) != 0) {
        cli_error("run", "%s", msg);
        return EXIT_USAGE;
    }
    p->have_config = 1;
    if (f->sha != NULL && !same_config(f->config, f->sha))
        return EXIT_USAGE;
    if ((r = config_rung_named(c, f->rung)) == NULL) {
        cli_error("run", "--rung %s: no such rung in '%s'", f->rung,
                  f->config);
        return EXIT_USAGE;
    }
    if (f->gpu != NULL && !config_gpu_ok(f->gpu)) {
        cli_error("run", "--gpu '%s' is not a GPU id", f->gpu);
        return EXIT_USAGE;
    }
    if (c->task != NULL && (p->task = load_task(c->task, f->config)) == NULL)
        return EXIT_USAGE;
    run_opts_defaults(o, c->think);
    task_defaults(o, p->task);
    o->rung = r->name;
    o->model = r->model;
    endpoint_opts(o, r);
    o->questions = f->qfile ? f->qfile : c->questions;
    if ((rc = long_made(f, c, o->questions)) != 0)
        return rc;
    o->rundir = c->run_dir;
    if ((rc = rung_server(p, r)) != 0)
        return rc;
    o->gpu = f->gpu;
    o->force = f->force;
    o->quiet = f->quiet;
    /* a canary's few questions whole; a config's long items (the
     * ladder's folder's, given to its repeat) as the config limits them */
    o->limit = f->qfile && c->nlengths == 0 ? 0 : c->limit;
    if (c->max_tokens > 0)
        o->max_tokens = c->max_tokens;
    if (c->ctx > 0)
        o->ctx = c->ctx;
    p->ctx_given = c->ctx > 0;
    o->ngl = r->ngl != -2 ? r->ngl : c->ngl;
    if (c->idle_s > 0)
        o->idle_s = c->idle_s;
    o->request_timeout_s = c->timeout_s;
    o->request = c->request;
    o->prompt = c->prompt;
    o->argv_template = c->argv_template;
    for (i = 0; i < c->nserver_args; i++)
        p->args[n++] = c->server_args[i];
    for (i = 0; i < r->nargs; i++)
        p->args[n++] = r->args[i];
    o->server_args = p->args;
    o->n_server_args = n;
    o->parallel = c->batching ? r->slots : 1;
    o->abort_loops = c->abort_loops;
    o->logprobs = (int)c->logprobs;
    reference_of(o, c);
    run_opts_finish(o);
    return 0;
}

/* --config CONFIG --rung NAME: the config gives every setting, so a flag
 * that would set one there is an error, never silently one of two
 * values. */
const char *runplan_config_refuses(const struct runplan_flags *f)
{
    return f->limit         ? "--limit"
           : f->ngl_given   ? "--ngl"
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
           : f->logprobs    ? "--logprobs"
                            : NULL;
}

static int config_mode(struct runplan *p, const struct runplan_flags *f,
                       size_t npos)
{
    const char *other = runplan_config_refuses(f);
    struct config_over over = {NULL, f->run_dir, ""};
    struct buf buf = {0};
    int rc;

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
    if (f->llama != NULL &&
        (over.binary = cli_llama_path(f->llama, &buf)) == NULL) {
        cli_error("run", "path too long: '%.200s...'", f->llama);
        buf_release(&buf);
        return EXIT_USAGE;
    }
    rc = config_plan(p, f, &over);
    buf_release(&buf);
    return rc;
}

/* The numbers given into o (cli_parse checked each range). */
static void numbers(const struct runplan_flags *f, struct run_opts *o)
{
    if (f->limit)
        o->limit = f->limit;
    if (f->max_tokens)
        o->max_tokens = f->max_tokens;
    if (f->ctx)
        o->ctx = f->ctx;
    if (f->health)
        o->health_timeout_s = f->health;
    if (f->idle)
        o->idle_s = f->idle;
    if (f->deadline)
        o->request_timeout_s = f->deadline;
    if (f->logprobs)
        o->logprobs = f->logprobs;
    run_opts_finish(o);
    if (f->log_cap)
        o->log_cap = f->log_cap;
    if (f->ngl_given)
        o->ngl = f->ngl;
}

/* --server-arg, --gpu, --request, --prompt and the templates into o,
 * each checked. 0 or EXIT_USAGE (o's JSON is the caller's to free). */
static int server_flags(const struct runplan_flags *f, struct run_opts *o)
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

void runplan_options(struct runplan_flags *f,
                     struct cli_opt opts[RUNPLAN_OPTS])
{
    const struct cli_opt o[RUNPLAN_OPTS] = {
        CLI_STRING("--llama", "PATH", &f->llama,
                   "llama-server binary, or a llama.cpp folder "
                   "(build/bin/llama-server inside); default: the "
                   "llama-server on PATH. No recompile to swap builds"),
        CLI_SWITCH("--think", &f->think,
                   "thinking on (4096 tokens, -c 8192 unless given)"),
        {.type = CLI_T_INT,
         .name = "--ngl",
         .arg = "N|auto",
         .dest = &f->ngl,
         .min = 0,
         .max = CONFIG_NGL_MAX,
         .word = "auto",
         .word_value = -1,
         .seen = &f->ngl_given,
         .help = "layers on the GPU (default 99; auto: leave -ngl off and "
                 "let the server decide)"},
        CLI_LONG("--max-tokens", "N", &f->max_tokens, 1, CONFIG_TOKENS_MAX,
                 "token cap per answer (default 1024)"),
        CLI_LONG("--ctx", "N", &f->ctx, 64, CONFIG_CTX_MAX,
                 "server context -c (default 4096)"),
        CLI_STRING("--gpu", "ID", &f->gpu,
                   "CUDA_VISIBLE_DEVICES for the server"),
        CLI_LIST("--server-arg", "ARG", f->server_args, &f->nserver,
                 RUNPLAN_SERVER_ARGS,
                 "one more server argument (repeat as needed; not --host or "
                 "--port: graveyard's own)"),
        CLI_STRING("--request", "JSON", &f->request,
                   "fields merged into every request body, e.g. "
                   "'{\"top_k\": 1}' (recorded in the manifest)"),
        CLI_LONG("--health-timeout", "S", &f->health, 1, CONFIG_SECONDS_MAX,
                 "give up starting the server after S s (600)"),
        CLI_LONG("--idle-timeout", "S", &f->idle, 1, CONFIG_SECONDS_MAX,
                 "no token for S s: the server hung (120)"),
        CLI_LONG("--request-timeout", "S", &f->deadline, 1, CONFIG_SECONDS_MAX,
                 "no whole answer in S s: a \"deadline\" error row "
                 "(default: idle timeout + max tokens / 2)"),
        CLI_SIZE("--log-cap", "BYTES", &f->log_cap, 1024, 1L << 40,
                 "server log kept per rung: the first and last halves "
                 "(default 4194304)"),
        CLI_STRING("--task", "NAME|FILE", &f->task,
                   "what is asked and how it is graded: a built-in task "
                   "('--task help' lists them; default answer-line) or a "
                   "task file (docs/tasks.md)"),
        CLI_STRING("--prompt", "TEXT", &f->prompt,
                   "the prompt, with {question} where the question goes "
                   "(default: the task's; recorded in the manifest)"),
        CLI_STRING("--server-argv", "JSON", &f->sargv,
                   "the server's arguments after the binary, a JSON list "
                   "with {model} {port} {ngl} {ctx} {seed}, for builds whose "
                   "flags differ (--host is always 127.0.0.1)"),
        CLI_STRING("--server-env", "JSON", &f->senv,
                   "extra server environment, a JSON object; {gpu} is the "
                   "--gpu value"),
        CLI_SWITCH("--allow-batching", &f->batching,
                   "a server given several slots (--server-arg -np N) is "
                   "sent N questions at once: faster, and not the same "
                   "computation (docs/run.md, \"Batching\"); refused "
                   "without this flag"),
        CLI_SWITCH("--abort-loops", &f->abort_loops,
                   "close a reply as soon as it loops (a line 5 times, or a "
                   "span of tokens repeating) and write what arrived, "
                   "finish_reason \"loop\": a night of looping rungs is "
                   "shorter (docs/run.md)"),
        CLI_INT("--logprobs", "N", &f->logprobs, 1, GRADER_PROBS_TOPN_MAX,
                "ask every token's top N log-probabilities and keep them in "
                "rows/RUNG.probs beside the rows (docs/rows.md, \"The probs "
                "file\")"),
        CLI_LONG("--exec-jobs", "N", &f->exec_jobs, 1, 64,
                 "a code task: run up to N answers' code at once, at most "
                 "the cores (the default; docs/sandbox.md)"),
        CLI_LONG("--exec-timeout", "S", &f->exec_timeout, 1, 3600,
                 "a code task: each answer's code and tests get S s of wall "
                 "clock, then the sandbox is killed (default 10)"),
        CLI_SWITCH("--unsafe-exec", &f->unsafe_exec,
                   "a code task where bubblewrap cannot run: run the code as "
                   "a plain child with rlimits only, knowingly (never the "
                   "default; docs/sandbox.md)"),
        CLI_SWITCH("--force", &f->force,
                   "resume although a setting changed (recorded)"),
        CLI_SWITCH("--quiet", &f->quiet, "no progress lines on stderr"),
        CLI_END};

    memcpy(opts, o, sizeof(o));
}

int runplan_parse(const struct cli_command *text, int argc, char **argv,
                  struct runplan_flags *f, const char **pos, size_t *npos)
{
    struct cli_opt run[RUNPLAN_OPTS];
    const struct cli_opt opts[] = {
        CLI_LONG("--limit", "N", &f->limit, 1, CONFIG_LIMIT_MAX,
                 "the first N questions only"),
        CLI_INCLUDE(run),
        CLI_GROUP("A served model (no server is started):"),
        CLI_STRING("--url", "URL", &f->url,
                   "URL's /health (or /v1/models) is waited for and its "
                   "/v1/chat/completions asked (docs/run.md, \"A served "
                   "model\"); https, or http to this machine"),
        CLI_STRING("--api-key-env", "VAR", &f->key_env,
                   "with --url: the key is $VAR, sent as a Bearer token and "
                   "never written (the manifest keeps its sha256)"),
        CLI_SWITCH("--allow-plain-http", &f->plain_http,
                   "with --url: http to another machine"),
        CLI_GROUP("A rung of a ladder config:"),
        CLI_STRING("--config", "CONFIG", &f->config,
                   "the ladder config (docs/config.md) whose rung is run, "
                   "with every setting it gives"),
        CLI_STRING("--rung", "NAME", &f->rung, "the rung of CONFIG to run"),
        CLI_STRING("--run-dir", "DIR", &f->run_dir,
                   "over the config's run_dir"),
        CLI_STRING("--question-file", "FILE", &f->qfile,
                   "over the config's questions, all of them (graveyard "
                   "canary asks its own this way)"),
        CLI_HIDDEN("--config-sha256", &f->sha), /* the ladder's */
        CLI_END};
    struct cli_command cmd = *text;

    memset(f, 0, sizeof(*f));
    runplan_options(f, run);
    cmd.opts = opts;
    cmd.args = "RUNG MODEL QUESTIONS RUNDIR";
    cmd.min_args = 0; /* as the form wants: runplan_build */
    cmd.max_args = 4;
    return cli_parse(&cmd, argc, argv, pos, npos);
}

/* What a rung from the command line sets, served or started: its name
 * checked, the defaults, the task, the folders; then the flags both take. */
static int positional(struct runplan *p, const struct runplan_flags *f,
                      const char *rung, const char *model,
                      const char *questions, const char *rundir)
{
    int rc;

    if ((rc = cli_rung_name_check("run", rung)) != 0)
        return rc;
    run_opts_defaults(&p->o, f->think);
    if (f->task != NULL && (p->task = load_task(f->task, NULL)) == NULL)
        return EXIT_USAGE;
    task_defaults(&p->o, p->task);
    p->owns_json = 1;
    p->o.rung = rung;
    p->o.model = model;
    p->o.questions = questions;
    p->o.rundir = rundir;
    p->o.force = f->force;
    p->o.quiet = f->quiet;
    p->o.abort_loops = f->abort_loops;
    return 0;
}

/* --url URL RUNG QUESTIONS RUNDIR: a served model (docs/run.md, "A
 * served model"). No server, so no server flag; the request's flags as
 * for a local rung, so that its rows ask the same. */
static int served_plan(struct runplan *p, const struct runplan_flags *f,
                       const char **pos, size_t npos)
{
    const char *server = f->llama       ? "--llama"
                         : f->ngl_given ? "--ngl"
                         : f->ctx       ? "--ctx"
                         : f->gpu       ? "--gpu"
                         : f->nserver   ? "--server-arg"
                         : f->sargv     ? "--server-argv"
                         : f->senv      ? "--server-env"
                         : f->batching  ? "--allow-batching"
                         : f->logprobs  ? "--logprobs"
                                        : NULL;
    int rc;

    if (server != NULL) {
        cli_error("run", "%s with --url: no server is started", server);
        return EXIT_USAGE;
    }
    if (npos != 3) {
        cli_error("run", "--url URL needs RUNG QUESTIONS RUNDIR (see --help)");
        return EXIT_USAGE;
    }
    /* the URL is the manifest's and ladder.tsv's "file" */
    if ((rc = positional(p, f, pos[0], f->url, pos[1], pos[2])) != 0)
        return rc;
    p->o.endpoint = f->url;
    p->o.api_key_env = f->key_env;
    p->o.allow_plain_http = f->plain_http;
    p->o.server_args = p->args;
    numbers(f, &p->o);
    return server_flags(f, &p->o);
}

/* A question file of long items: the server's context raised to hold
 * the longest prompt, or a given one refused that cannot, and a length
 * past the model's trained context refused (longitem.h), before anything
 * starts. 0, or EXIT_USAGE after one line. */
static int long_context(struct runplan *p)
{
    const char *rope;
    char msg[1400];

    if (p->o.endpoint != NULL)
        return 0;
    if (longitem_context(p->o.rung, p->o.questions, p->o.max_tokens,
                         p->ctx_given, &p->o.ctx, p->o.model, p->o.server_args,
                         p->o.n_server_args, &rope, msg, sizeof(msg)) != 0) {
        cli_error("run", "%s", msg);
        return EXIT_USAGE;
    }
    return 0;
}

/* A tool item a started llama-server cannot ask as written: its chat
 * templates off (--no-jinja last of --jinja and --no-jinja: its calls
 * would never be parsed), or a function named in "tool_choice" (an
 * object, which both lineages read as "auto": json_value with a text
 * default). Without either flag the build's default holds, which
 * graveyard cannot know before the server runs (on in newer upstream
 * builds, off in older ones and the ik fork: docs/toolcalls.md). An
 * endpoint may be another server: nothing refused. 0, or EXIT_USAGE after
 * one line. */
static int tool_item_refused(const struct runplan *p, const struct question *q,
                             int off)
{
    if (off)
        cli_error("run",
                  "rung %s: tool item '%.256s' ('%.300s' line %ld) "
                  "offers tools, and the server args turn templates off "
                  "(--no-jinja): llama-server parses tool calls only "
                  "with --jinja (docs/toolcalls.md)",
                  p->o.rung, q->id, p->o.questions, q->line);
    else if (q->tool_choice != NULL && q->tool_choice[0] == '{')
        cli_error("run",
                  "rung %s: tool item '%.256s' ('%.300s' line %ld) names its "
                  "function in \"tool_choice\" (an object), which "
                  "llama-server reads as \"auto\" (it takes tool_choice only "
                  "as text): give \"required\" and only that function in "
                  "\"tools\" (docs/toolcalls.md)",
                  p->o.rung, q->id, p->o.questions, q->line);
    else
        return 0;
    return EXIT_USAGE;
}

static int tool_jinja(struct runplan *p)
{
    struct questions qs;
    char msg[1400];
    int off = 0, rc = 0;

    if (p->o.endpoint != NULL)
        return 0;
    for (size_t i = 0; i < p->o.n_server_args; i++)
        if (strcmp(p->o.server_args[i], "--no-jinja") == 0 ||
            strcmp(p->o.server_args[i], "--jinja") == 0)
            off = strcmp(p->o.server_args[i], "--no-jinja") == 0;
    /* a file that does not load is refused by the runner, in its words
     * (and a long item's prompt made there: only "tools" are read here) */
    /* no task given: the default, which reads numbers */
    if (questions_load_texts(p->o.questions, p->o.limit,
                             p->o.task ? grader_task_ref(p->o.task)
                                       : GRADER_REF_NUMBER,
                             &qs, msg, sizeof(msg)) != 0)
        return 0;
    for (size_t i = 0; i < qs.n && rc == 0; i++)
        if (qs.q[i].tools != NULL)
            rc = tool_item_refused(p, &qs.q[i], off);
    questions_release(&qs);
    return rc;
}

/* "logprobs" with a task asked by /v1/completions: refused by name, not
 * left unread (docs/code.md, "Completion style"). 0 or EXIT_USAGE. */
static int completion_logprobs(const struct runplan *p)
{
    if (p->o.logprobs <= 0 || p->o.task == NULL ||
        !grader_task_completions(p->o.task))
        return 0;
    cli_error("run",
              "\"logprobs\" with task '%s': its answers come from "
              "/v1/completions, whose log-probabilities graveyard does not "
              "read (docs/code.md, \"Completion style\"); leave out "
              "--logprobs and the config's \"logprobs\"",
              grader_task_name(p->o.task));
    return EXIT_USAGE;
}

/* A tool-call task's function docs, from the file the run asks (each
 * item's "tools"): the runner grades each reply against them as it writes
 * its row. 0, or EXIT_USAGE after one line (a file that does not load is
 * refused here in the loader's words, as the runner would). */
static int tool_docs(struct runplan *p)
{
    char msg[1400];

    if (p->task == NULL || grader_task_ref(p->task) != GRADER_REF_CALLS)
        return 0;
    if (tooldocs_load(p->task, p->o.questions, msg, sizeof(msg)) != 0) {
        cli_error("run", "%s", msg);
        return EXIT_USAGE;
    }
    return 0;
}

static int build_plan(struct runplan *p, const struct runplan_flags *f,
                      const char **pos, size_t npos)
{
    int rc;

    memset(p, 0, sizeof(*p));
    if (f->config != NULL || f->rung != NULL || f->run_dir != NULL ||
        f->sha != NULL || f->qfile != NULL)
        return (rc = config_mode(p, f, npos)) != 0 ? rc
               : f->serve_only                     ? 0
               : (rc = long_context(p)) != 0       ? rc
               : (rc = tool_jinja(p)) != 0         ? rc
                                                   : tool_docs(p);
    if (f->url != NULL)
        return served_plan(p, f, pos, npos);
    if (f->key_env != NULL || f->plain_http) {
        cli_error("run", "%s goes with --url",
                  f->key_env ? "--api-key-env" : "--allow-plain-http");
        return EXIT_USAGE;
    }
    if (npos != 4) {
        cli_error("run", "needs RUNG MODEL QUESTIONS RUNDIR (see --help)");
        return EXIT_USAGE;
    }
    if ((rc = positional(p, f, pos[0], pos[1], pos[2], pos[3])) != 0)
        return rc;
    if (f->llama != NULL &&
        (p->o.llama = cli_llama_path(f->llama, &p->llama)) == NULL) {
        cli_error("run", "path too long: '%.200s...'", f->llama);
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < f->nserver; i++)
        p->args[i] = f->server_args[i];
    p->o.server_args = p->args;
    p->o.n_server_args = f->nserver;
    numbers(f, &p->o);
    p->ctx_given = f->ctx != 0;
    return (rc = server_flags(f, &p->o)) != 0   ? rc
           : (rc = long_context(p)) != 0        ? rc
           : (rc = tool_jinja(p)) != 0          ? rc
           : (rc = completion_logprobs(p)) != 0 ? rc
                                                : tool_docs(p);
}

int runplan_build(struct runplan *p, const struct runplan_flags *f,
                  const char **pos, size_t npos)
{
    int rc = build_plan(p, f, pos, npos);

    /* the flags, or a config's "exec" (docs/code.md) */
    p->o.exec_jobs = f->exec_jobs     ? f->exec_jobs
                     : p->have_config ? p->c.exec_jobs
                                      : 0;
    p->o.exec_timeout_s = f->exec_timeout  ? f->exec_timeout
                          : p->have_config ? p->c.exec_timeout_s
                                           : 0;
    p->o.unsafe_exec = f->unsafe_exec;
    return rc;
}

int runplan_execute(struct runplan *p)
{
    return runner_run(&p->o);
}

void runplan_release(struct runplan *p)
{
    if (p->owns_json) {
        json_decref(p->o.request);
        json_decref(p->o.argv_template);
        json_decref(p->o.env_template);
    }
    json_decref(p->env);
    if (p->have_config)
        config_release(&p->c);
    grader_task_free(p->task);
    buf_release(&p->llama);
    memset(p, 0, sizeof(*p));
}
