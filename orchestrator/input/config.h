/*
 * config.h - a ladder config (docs/config.md, schemas/config.schema.json):
 * what graveyard ladder runs. Parsed and checked whole before anything
 * starts: an unknown key, a value of the wrong type, or a ${VAR} that is
 * not set is one line naming the file and the key.
 */
#ifndef CONFIG_H
#define CONFIG_H

#include <jansson.h>
#include <stddef.h>

#define CONFIG_MAX_RUNGS   64
#define CONFIG_MAX_DUELS   64 /* rundir/run.h's RUNDIR_DUELS_MAX */
#define CONFIG_MAX_GPUS    64
#define CONFIG_MAX_ARGS    32
#define CONFIG_MAX_LENGTHS 16 /* the grader's GRADER_MAX_LENGTHS */

/* How graveyard build makes a rung's file (docs/build.md). */
enum config_recipe {
    RECIPE_NONE,     /* a file the user brings */
    RECIPE_CONVERT,  /* from the checkpoint, by the converter */
    RECIPE_QUANTIZE, /* from another rung's file, by llama-quantize */
};

struct config_rung {
    char *name, *model;
    int ngl; /* -1 auto, -2 not given (the ladder's) */
    char *args[CONFIG_MAX_ARGS];
    size_t nargs;
    int side;   /* outside the chain: buried beside it */
    long slots; /* the server's -np (config_slots): requests in flight
                   under batching */
    enum config_recipe recipe;
    char *convert; /* "bf16", "f16", "f32", "q8_0" */
    size_t from;   /* quantize: the source rung's index */
    char *qtype;   /* quantize: "Q4_K_M", as llama-quantize
                      spells it */
    char *imatrix; /* quantize: or NULL */
    char *qargs[CONFIG_MAX_ARGS];
    size_t nqargs;
    json_t *env;       /* "env": over server.env for this rung, or NULL */
    char *binary;      /* "binary": this rung's own server build, or NULL */
    char *version;     /* "version": its --version line pinned, or NULL */
    char *endpoint;    /* "endpoint.url": a served model, or NULL */
    char *api_key_env; /* "endpoint.api_key_env", or NULL */
    int allow_plain_http;
};

/* The top-level "build" object. Its strings are ${VAR}-expanded when
 * graveyard build needs them (config_build_expand), so that a ladder whose
 * files all exist runs without the build's variables set. */
struct config_build {
    int present;
    json_t *raw; /* the object as written */
    char *quantize, *convert, *python, *checkpoint, *tmpdir; /* expanded */
    long threads;                                            /* 0: not given */
    long stall_s; /* a tool silent this long is stopped (default 1800) */
};

struct config {
    char *path; /* the file it came from */
    char *name, *questions, *run_dir, *reference;
    struct config_rung rungs[CONFIG_MAX_RUNGS];
    size_t nrungs;          /* chain first, in order, then side rungs */
    char *binary, *version; /* server.binary, server.version (or NULL) */
    char *server_args[CONFIG_MAX_ARGS];
    size_t nserver_args;
    char *gpus[CONFIG_MAX_GPUS];
    size_t ngpus;
    int think, ngl;
    int repeat_reference;    /* run the reference a second time, into
                                RUNDIR/repeat/: the report's noise floor */
    char *canary_rows;       /* "canary": a trusted rows file, or NULL */
    long canary_questions;   /* its first N (default 20) */
    long canary_max_changed; /* answers that may change (default 2) */
    int abort_loops;         /* request.abort_loops (loopwatch.h) */
    long rungs_per_gpu;      /* rungs at once on one GPU (default 1) */
    long exec_jobs, exec_timeout_s; /* "exec": a code task's executions
                                       at once and each one's limit in s
                                       (0: the sandbox's defaults) */
    long logprobs;                  /* "logprobs": top N a token, 0 off */
    int batching;                   /* several requests in flight on a server
                                       of several slots: on purpose only */
    long max_tokens, ctx, limit;    /* 0: not given (run_opts_defaults) */
    long timeout_s, idle_s; /* request.timeout_s, request.idle_timeout_s;
                               0: graveyard run's defaults */
    json_t *request;        /* extra request fields, or NULL */
    char *prompt;           /* with {question}, or NULL */
    char *task;             /* a built-in task or a task file, or
                               NULL: answer-line (taskfile.h) */
    json_t *argv_template;  /* server.argv, or NULL */
    json_t *env_template;   /* server.env, or NULL */
    struct config_build build;
    double margin_points; /* the report's equivalence margin, points
                             (default 2; docs/grading.md, "Verdicts") */
    /* "duels": pairs of rungs the report sets against each other
     * (docs/duel.md), as indexes into rungs: A is duels[k][0] */
    int duels[CONFIG_MAX_DUELS][2];
    size_t nduels;
    /* "lengths" (docs/longctx.md, "A ladder of lengths"): the ladder makes
     * its long items itself, into RUNDIR/long.jsonl (then "questions"),
     * fitted in a server of its own files; nlengths 0: none */
    long lengths[CONFIG_MAX_LENGTHS]; /* ascending */
    size_t nlengths;
    unsigned long_kinds; /* "long.kinds": bit k for haystack kind k */
    long long_items;     /* "long.items": of each kind at each length */
    long long long_seed; /* "long.seed" */
};

/* What the command line gives over the config: a key given here is not
 * read from the file, so its ${VAR}s need not be set (--llama over a
 * server.binary of "${LLAMA_CPP}/build/bin/llama-server"). */
struct config_over {
    const char *binary, *run_dir; /* NULL: the file's */
    const char *gpus;             /* NULL: the file's; "": none (a rung's
                                     run, given its one GPU) */
};

/* Load and check path (over may be NULL). Returns 0, or -1 with one line
 * in msg. Everything that can be checked before a rung starts is checked
 * here: server arguments and templates (check_* below), rung names, GPU
 * ids, paths, number ranges; only the files on disk are left to the
 * caller. */
int config_load(const char *path, const struct config_over *over,
                struct config *c, char *msg, size_t msgsize);
void config_release(struct config *c);

/* A --gpus list ("0,1,GPU-8f6c...") into c->gpus. 0, or -1 when empty,
 * too long or holding an id config_gpu_ok refuses. */
int config_parse_gpus(struct config *c, const char *list);

/*
 * The checks config_load makes, for graveyard run's flags too. Each
 * returns 0, or -1 with one line in msg that starts with where.
 *
 * Extra server arguments may not say what a server may not be told
 * (base/owned.h), in any spelling the servers read: --host or --port
 * (the server binds 127.0.0.1 on a port graveyard chooses, and
 * llama-server takes the last --host it is given), a flag that loads
 * other weights than the rung's model (-m, -hf...), an API key, devices.
 */
int config_check_server_args(char *const *args, size_t n, const char *where,
                             char *msg, size_t msgsize);

/* A server argv template: at most 48 strings of at most 900 bytes, with
 * {model} and {port}; --host only as "--host 127.0.0.1", --port only as
 * "--port {port}", -m/--model only as "-m {model}", no other flag of
 * base/owned.h. */
int config_check_argv_template(json_t *a, const char *where, char *msg,
                               size_t msgsize);

/* A server environment template: names (no '=') with string values, none
 * of base/owned.h's variables (LLAMA_ARG_HOST, LLAMA_ARG_MODEL,
 * LLAMA_API_KEY, GRAVEYARD_*...), a GPU variable (CUDA_VISIBLE_DEVICES
 * and kin) only as "{gpu}". */
int config_check_env_template(json_t *o, const char *where, char *msg,
                              size_t msgsize);

/* Fields merged into every request body ("request.extra", --request)
 * may not set what graveyard owns: the question (messages, prompt), the
 * stream it reads (stream), one choice (n), the token cap it records and
 * counts cut-off replies by (max_tokens, n_predict,
 * max_completion_tokens: request.max_tokens, --max-tokens), and thinking
 * (chat_template_kwargs.enable_thinking: "thinking", --think). The rest
 * of chat_template_kwargs, which must be an object, is merged into
 * graveyard's. where starts the message: "CONFIG: 'request.extra." or
 * "--request '". */
int config_check_request(const json_t *extra, const char *where, char *msg,
                         size_t msgsize);

/* extra (checked by config_check_request) merged over a request body:
 * its fields replace the body's, but chat_template_kwargs is merged into
 * the body's own, so enable_thinking stays what the manifest says. */
void config_request_merge(json_t *body, const json_t *extra);

/* A GPU id (a CUDA_VISIBLE_DEVICES value, and a folder name under
 * --replicate): 1 to 128 of [A-Za-z0-9._:,-], not starting with '.'. */
int config_gpu_ok(const char *id);

/* A GPU named twice among ids, in two ids or in one list ("0,0";
 * "0,1" and "1"; "0" and "00"; a UUID in either case): 1 with its name
 * in dev, else 0. Two rungs would share it with none of the checks of
 * rungs_per_gpu (free memory, "(shared)", the report's "Shared GPUs"). */
int config_gpu_twice(char *const *ids, size_t n, char *dev, size_t size);

/* A path graveyard hands a tool as an argument (run_dir to bury and
 * report, a model to llama-quantize) may not start with '-': it would be
 * read as a flag. 1 when it is fine. */
int config_arg_path_ok(const char *path);

/* Rungs graveyard runs at once on one GPU (rungs_per_gpu). */
#define CONFIG_MAX_PER_GPU 8

/* Server slots graveyard can keep busy at once under batching. */
#define CONFIG_MAX_SLOTS 16

/*
 * The slots a server is started with: the last -np/--parallel in
 * argv_template (when given) or in ours ("-np 1") followed by args; with
 * none, LLAMA_ARG_N_PARALLEL in env_template; else 1. -1 ("auto") is 4,
 * as new upstream builds make it. Returns the count, or -1 with a message
 * naming where for a value that is not a whole number.
 */
long config_slots(char *const *args, size_t n, const json_t *argv_template,
                  const json_t *env_template, const char *where, char *msg,
                  size_t msgsize);

/*
 * Batching on purpose only (docs/run.md, "Batching"): slots > 1 without
 * batching, or more slots than CONFIG_MAX_SLOTS, is refused with a
 * message naming where. Returns 0 or -1.
 */
int config_check_slots(long slots, int batching, const char *where, char *msg,
                       size_t msgsize);

/* A path graveyard writes into its files (ladder.tsv is tab-separated,
 * rows and logs are lines): no control characters. */
int config_path_ok(const char *path);

/* The ranges of numbers (docs/config.md): out of range is an error,
 * never a silently truncated value. */
#define CONFIG_NGL_MAX     10000L
#define CONFIG_TOKENS_MAX  2147483647L /* llama.cpp counts in int32 */
#define CONFIG_CTX_MAX     2147483647L
#define CONFIG_LIMIT_MAX   2147483647L
#define CONFIG_SECONDS_MAX 2592000L /* 30 days */

/* Expand the "build" object's strings into c->build (python defaults to
 * "python3"). 0, or -1 with "CONFIG: 'build.KEY': ${X} is not set". */
int config_build_expand(struct config *c, char *msg, size_t msgsize);

/* A quantization type llama-quantize knows (mainline's or ik_llama.cpp's
 * list, case as they take it: any): its canonical spelling, or NULL. */
const char *config_quant_type(const char *name);

/* Expand ${VAR} in s from the environment (new string, free()); NULL
 * with msg naming the variable when one is not set. */
char *config_expand(const char *s, char *msg, size_t msgsize);

#endif
