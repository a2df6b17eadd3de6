/*
 * runner.h - graveyard run: one rung, end to end, on the libuv loop.
 *
 * Start one llama-server for one GGUF, wait until /health says ready, ask
 * every question not yet answered (one at a time, streamed), append one
 * row per answer, stop the server, write the rung's summary. Resumable:
 * the rows file is the state (store.h). Faults: a server that dies on a
 * question is restarted and asked again; after 3 deaths on one question
 * that question becomes an error row; a server that cannot start, or dies
 * on 3 different questions in a row, stops the rung with an error. The
 * runner computes no statistic: the summary comes from the grader.
 */
#ifndef RUNNER_H
#define RUNNER_H

#include <jansson.h>
#include <stddef.h>

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
    json_t *request;       /* extra request fields (borrowed) */
    long health_timeout_s; /* give up starting after this long */
    long idle_s;           /* a stream silent this long has hung */
    unsigned grace_ms;     /* SIGTERM to SIGKILL */
    size_t log_cap;        /* bytes of server log kept */
    int force;             /* resume despite a changed setting */
    const char *prompt;    /* with {question}; NULL: questions_prompt */
    json_t *argv_template; /* server argv after the binary, with {model}
                              {port} {ngl} {ctx} {seed}; NULL: ours */
    json_t *env_template;  /* extra server environment, with {gpu} */
    int quiet;
};

/* Run the rung; returns the exit status (0 finished, 1 failed, 2 bad
 * input), having printed the summary line or one error line. */
int runner_run(const struct run_opts *o);

#endif
