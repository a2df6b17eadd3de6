/*
 * runplan.h - what `graveyard run` does, as a value: one rung's run_opts
 * built from run's flags (positional form) or from a ladder config's rung
 * (--config form), with everything the options borrow held in the plan.
 *
 * `run` parses its argv into runplan_flags; `canary` parses the same run
 * options (runplan_options' table, included in its own) or fills the
 * flags from a config. Both then build a plan and execute it, so the
 * canary's rung is run exactly as `run` would run it, without one command
 * calling another.
 */
#ifndef RUNPLAN_H
#define RUNPLAN_H

#include <stddef.h>

#include "../base/cli.h"
#include "../input/config.h"
#include "runner.h"

#define RUNPLAN_SERVER_ARGS 32

/* The flags of graveyard run, as given: NULL or 0 when absent (a number
 * given is never 0: each range starts above it, but --ngl's). All zero is
 * no flag given. */
struct runplan_flags {
    const char *llama, *gpu, *request, *prompt, *sargv, *senv, *config, *rung,
        *run_dir, *sha, *qfile, *task;
    const char *url, *key_env; /* --url, --api-key-env: a served model */
    const char *server_args[RUNPLAN_SERVER_ARGS];
    size_t nserver;
    long limit, max_tokens, ctx, health, idle, deadline;
    size_t log_cap;
    int logprobs;       /* --logprobs N */
    int ngl, ngl_given; /* --ngl N, or -1 for auto */
    int think, force, quiet, batching, abort_loops, plain_http;
    long exec_jobs, exec_timeout; /* --exec-jobs, --exec-timeout */
    int unsafe_exec;              /* --unsafe-exec */
    int serve_only; /* not a flag: graveyard long starts the rung's server
                       to count tokens, and asks nothing, so the question
                       file (the one it makes) is not read */
};

/* One rung's run: o, and what o borrows. */
struct runplan {
    struct run_opts o;
    struct config c; /* the --config form's, when have_config */
    int have_config;
    struct grader_task *task;
    const char *args[2 * CONFIG_MAX_ARGS]; /* the config's server args */
    struct buf llama; /* a llama.cpp folder's server binary */
    json_t *env;      /* server.env with the rung's "env" over it, or
                         NULL (o.env_template then the config's) */
    int owns_json;    /* o's request and templates are the plan's */
    int ctx_given;    /* a config's "ctx" or --ctx: kept, never raised */
};

/* The run options (the server, the request, what is asked) as a table of
 * cli_parse's into opts, pointing into f: graveyard run's, and those
 * graveyard canary passes on to its run. The last entry is CLI_END. */
#define RUNPLAN_OPTS 25
void runplan_options(struct runplan_flags *f,
                     struct cli_opt opts[RUNPLAN_OPTS]);

/* argv (argv[0] the command) into f (zeroed first) and at most 4
 * positionals, as run takes them: the run options and run's own (--limit,
 * --url's, --config's). text gives the usage and the prose its --help
 * shows (its opts and counts are run's); errors are run's ("graveyard
 * run: ..."). CLI_GO, or the exit status (0 after --help). */
int runplan_parse(const struct cli_command *text, int argc, char **argv,
                  struct runplan_flags *f, const char **pos, size_t *npos);

/* The plan of f and pos[0..npos) (RUNG MODEL QUESTIONS RUNDIR, or none
 * with --config): every flag checked, the config read and checked.
 * p borrows f and the strings of f and pos: they outlive it. 0, or the
 * exit status after one line on stderr; release p either way. */
int runplan_build(struct runplan *p, const struct runplan_flags *f,
                  const char **pos, size_t npos);

/* The first flag of f that a config's rung sets itself (--limit,
 * --max-tokens, ... --logprobs), so that run's config form refuses it
 * (only --run-dir, --llama, --gpu, --force and --quiet stand in); NULL
 * when none is given. */
const char *runplan_config_refuses(const struct runplan_flags *f);

/* Run the rung: runner_run's exit status. */
int runplan_execute(struct runplan *p);

void runplan_release(struct runplan *p);

/* Started by graveyard ladder (GRAVEYARD_LADDER_PID): die with it. 0, or
 * 128 + SIGTERM after one line when that ladder is already gone: a rung
 * must not load a model onto a GPU for a ladder that is no longer
 * there. */
int runplan_ladder_gone(void);

#endif
