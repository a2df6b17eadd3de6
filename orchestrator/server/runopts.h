/*
 * runopts.h - what a rung runs with: one set of options for graveyard run
 * and graveyard ladder, given by flags or by a config (config.h), read by
 * the runner and by what it is made of (launch.h, record.h, request.h).
 */
#ifndef RUNOPTS_H
#define RUNOPTS_H

#include <jansson.h>
#include <stddef.h>

#include "../../grader/grader.h"

struct run_opts {
    const char *rung, *model, *questions, *rundir;
    const char *llama; /* the llama-server binary */
    long limit;        /* first N questions, 0 all */
    int think;         /* thinking on */
    int ngl;           /* -ngl value, -1 to leave it off (auto) */
    long max_tokens, ctx;
    const char *gpu;          /* CUDA_VISIBLE_DEVICES, or NULL */
    const char **server_args; /* extra server arguments */
    size_t n_server_args;
    json_t *request;        /* extra request fields (borrowed) */
    long health_timeout_s;  /* give up starting after this long */
    long idle_s;            /* no token for this long: the server hung */
    long request_timeout_s; /* no whole answer in this long: a
                               "deadline" error row */
    unsigned grace_ms;      /* SIGTERM to SIGKILL */
    size_t log_cap;         /* bytes of server log kept */
    int force;              /* resume despite a changed setting */
    const char *prompt;     /* with {question}; NULL: the task's */
    const struct grader_task *task; /* what is asked and how it is graded
                                       (borrowed; NULL: answer-line) */
    json_t *argv_template; /* server argv after the binary, with {model}
                              {port} {ngl} {ctx} {seed}; NULL: ours */
    json_t *env_template;  /* extra server environment, with {gpu} */
    int quiet;
    int no_summary;  /* keep the rung's summary line off stdout (graveyard
                        canary's verdict is the line a script reads there) */
    int abort_loops; /* close a reply that loops (loopwatch.h) and write
                        what arrived, finish_reason "loop" */
    long parallel;   /* requests in flight at once: 1, or the server's slots
                        under batching (docs/run.md, "Batching") */
    int logprobs;    /* the top N log-probabilities asked of every token
                        (1..GRADER_PROBS_TOPN_MAX), kept in the rung's
                        probs file; 0: off */
    /* a rung's own build ("binary" with "version"): the --version line it
     * must answer, or NULL; own_binary: its version is pinned with the
     * rung, not as the folder's (the manifest's "server_version") */
    const char *want_version;
    int own_binary;
    const char *endpoint;    /* a served model's base URL: no server is
                                started (docs/run.md, "A served model");
                                NULL: one is */
    const char *api_key_env; /* the variable holding its key, or NULL */
    int allow_plain_http;    /* http to another machine (endpoint.h) */
    /* a code task's executions (docs/sandbox.md): how many at once (0:
     * the cores), each one's wall-clock limit in s (0: the sandbox's
     * default), and --unsafe-exec (no sandbox, knowingly) */
    long exec_jobs, exec_timeout_s;
    int unsafe_exec;
    const char *ref_rung, *ref_model; /* --config: the reference rung and
                                         its file, whose vocabulary a
                                         rung's must match with logprobs
                                         on; NULL: none known */
};

/*
 * The defaults every rung starts from, given by flags or by a config: one
 * set for graveyard run and graveyard ladder (docs/run.md). The token cap
 * and the context depend on thinking (4096 and 8192 with it, else 1024
 * and 4096). Call run_opts_finish once the caller's settings are in.
 */
void run_opts_defaults(struct run_opts *o, int think);

/* What depends on other settings: the request's deadline when not given
 * (request_timeout_s 0): the idle limit, then the whole token cap at a
 * floor of 2 tokens a second. */
void run_opts_finish(struct run_opts *o);

#endif
