/*
 * sandbox.h - code a model wrote, run with its tests in a sandbox (issue
 * 38, docs/sandbox.md): the orchestrator's room for executions, beside
 * server/ whose children (proc.h) it starts the same way.
 *
 * A candidate program is Python a model wrote: graveyard treats it as
 * code that may do anything by accident (a fork bomb, an endless loop, a
 * write to a file it should not touch). So it runs under bubblewrap: no
 * network, no view of the machine but /usr and a fresh tmpfs, no
 * environment, its own PID namespace killed whole at the time limit, and
 * rlimits on CPU, memory, processes and file size, as an unprivileged
 * user when graveyard is root. A harness (harness.c, Python compiled
 * into the binary) runs the program and its tests and writes one result
 * line on a channel of its own; this room turns the process's end, that
 * line and what it printed into one sandbox_result. The grader never
 * runs code: it grades the outcome a row records.
 *
 * Ownership: a pool is the caller's (new/free); a program is borrowed
 * by sandbox_submit and copied; a result is lent to the callback.
 */
#ifndef SANDBOX_H
#define SANDBOX_H

#include <stddef.h>
#include <uv.h>

enum sandbox_outcome {
    SANDBOX_PASSED,  /* every test passed */
    SANDBOX_FAILED,  /* a test's assertion failed (AssertionError) */
    SANDBOX_ERROR,   /* another exception (its type in exception), or the
                        process exited without the harness's result */
    SANDBOX_SYNTAX,  /* the code does not compile (SyntaxError,
                        IndentationError...) */
    SANDBOX_TIMEOUT, /* the wall-clock limit: the namespace was killed */
    SANDBOX_KILLED,  /* a limit: limit says which: "cpu", "memory",
                        "processes", "file_size", "output" */
    SANDBOX_NO_CODE, /* nothing to run: decided by the caller, never run */
};
#define SANDBOX_OUTCOMES 7

/* "passed" "failed" "error" "syntax_error" "timeout" "killed" "no_code";
 * and the reverse (-1 for an unknown name) */
const char *sandbox_outcome_name(enum sandbox_outcome o);
int sandbox_outcome_parse(const char *name);

struct sandbox_conf {
    const char *bwrap;       /* "bwrap" (found on PATH) or a path */
    const char *python;      /* "/usr/bin/python3" */
    unsigned timeout_ms;     /* wall clock per execution (default 10000) */
    unsigned cpu_s;          /* RLIMIT_CPU (default: timeout rounded up) */
    unsigned long memory_mb; /* RLIMIT_AS (default 1024) */
    unsigned nproc;          /* RLIMIT_NPROC (default 64) */
    unsigned long fsize_mb;  /* RLIMIT_FSIZE and the tmpfs's --size
                                (default 16) */
    size_t output_cap;       /* stdout+stderr bytes allowed (default 64
                                KiB): past it the execution is killed,
                                "output" */
    unsigned jobs;           /* executions at once (default: the cores;
                                1..64) */
    int unsafe;              /* --unsafe-exec: no bwrap, python3 a plain
                                child with the same rlimits and limits */
    unsigned uid, gid;       /* when graveyard is root, each execution
                                runs as uid+k:gid+k, k a fresh offset in
                                0..SANDBOX_USERS that no running one has
                                (default 2000000000, a range no account
                                uses): RLIMIT_NPROC does not hold for
                                root, and counts a user's processes
                                (zombies too), so each execution has a
                                user of its own; 0: as we are */
};
void sandbox_conf_default(struct sandbox_conf *c);

#define SANDBOX_PROGRAM_MAX (1024 * 1024) /* code + setup + tests */
#define SANDBOX_JOBS_MAX    64
#define SANDBOX_UID_BASE    2000000000u
#define SANDBOX_USERS       65536 /* uid .. uid + SANDBOX_USERS - 1 */

/*
 * Can executions run here? Runs one sandboxed python3 synchronously
 * (before any loop; a few ms): 0 with what ("bwrap 0.8.0, Python 3.11.7";
 * with unsafe "unsafe: no sandbox, Python 3.11.7"), or -1 with why in msg
 * naming the binary and what it said. Never a silent fallback.
 */
int sandbox_probe(const struct sandbox_conf *c, char *what, size_t whatsize,
                  char *msg, size_t msgsize);

/* The harness's text and its sha256 (hex, 65 bytes): the manifest
 * records it, so a run made with another harness is noticed. */
const char *sandbox_harness(void);
const char *sandbox_harness_sha256(void);

struct sandbox_program { /* borrowed until sandbox_submit returns (copied) */
    const char *code;
    size_t code_len;          /* the candidate program, whole */
    const char *setup;        /* run after code, before the tests, or NULL */
    const char *const *tests; /* each run on its own, in order: an assert
                                 statement, or a HumanEval test source
                                 ending with its check(ENTRY) call */
    size_t ntests;
};

struct sandbox_result {
    enum sandbox_outcome outcome;
    int passed, total;  /* tests passed of total (0 of N when none ran) */
    char exception[64]; /* SANDBOX_ERROR's (or SYNTAX's) exception type,
                           "" else */
    char limit[16];     /* SANDBOX_KILLED's, "" else */
    int failed_test;    /* index of the first test not passed, -1 when
                           none */
    unsigned ms;        /* wall clock */
    char output[2048];  /* the tail of what it printed (stdout+stderr, the
                           harness's traceback of the first failure),
                           printable (control characters but \n and \t
                           shown as \xNN), cut at a UTF-8 boundary */
};

struct sandbox_pool;
typedef void (*sandbox_done_cb)(void *ctx, const struct sandbox_result *r);

/* A pool on loop with c's limits (copied; c->bwrap and c->python are
 * borrowed for the pool's life). */
struct sandbox_pool *sandbox_pool_new(uv_loop_t *loop,
                                      const struct sandbox_conf *c);

/* Queue one; cb runs on the loop when it has ended (never from inside
 * submit), in any order. 0, or -1 with msg (program over its cap: 1 MiB
 * of code + tests); cb never runs then. */
/* The program's bytes (code, setup and tests; past the cap, more than
 * SANDBOX_PROGRAM_MAX without counting on): what sandbox_submit refuses
 * over SANDBOX_PROGRAM_MAX. A caller with a model's reply records such a
 * program as killed by its size rather than fail. */
size_t sandbox_program_size(const struct sandbox_program *prog);

int sandbox_submit(struct sandbox_pool *p, const struct sandbox_program *prog,
                   sandbox_done_cb cb, void *ctx, char *msg, size_t msgsize);

size_t sandbox_pending(const struct sandbox_pool *p); /* queued or running */

/* SIGKILL every running one (its namespace goes with it), drop the
 * queued; no cb runs after. */
void sandbox_cancel_all(struct sandbox_pool *p);

/* After cancel_all or with none pending: handles closed on the loop (run
 * it once more). */
void sandbox_pool_free(struct sandbox_pool *p);

/* ---- the parts, for the tests (sandbox.c) ---- */

/* The argv that runs the harness (bwrap's, or python3's alone with
 * unsafe), NULL-terminated, into argv[0..most); fills the numbers into
 * nums (at least 96 bytes). Returns the count, or -1 when it would not
 * fit. Borrowed strings: c's, the harness's, nums'. */
int sandbox__argv(const struct sandbox_conf *c, const char **argv, size_t most,
                  char *nums, size_t numsize);

/* The harness's result line (line[0..n)), checked against nonce, into r
 * (outcome, passed, total, exception, limit, failed_test). 0, or -1
 * with why in msg: not JSON, a field missing or of the wrong type, an
 * unknown outcome, a count out of range, another nonce. */
int sandbox__parse_result(const char *line, size_t n, const char *nonce,
                          struct sandbox_result *r, char *msg, size_t msgsize);

/* What a process's end says, with the result line when there was one:
 * the final outcome into r. timed_out, overflowed: killed by us; status
 * and sig: its exit; line, n: fd 3's content (or NULL). */
struct sandbox_end {
    int timed_out, overflowed;
    long long status;
    int sig;
    unsigned cpu_s, ms;
    int unsafe;
    const char *line;
    size_t n;
    const char *nonce;
    int ntests;
};
void sandbox__decide(const struct sandbox_end *e, struct sandbox_result *r);

/* The tail of out[0..n) into r->output, printable (\n, \t kept). */
void sandbox__output(const char *out, size_t n, struct sandbox_result *r);

#endif
