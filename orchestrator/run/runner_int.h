/*
 * runner_int.h - what the files of one rung's run share: the runner's
 * state, in the parts each file owns, and what each gives the others.
 * Not for other modules: runner.h is the interface.
 *
 *   runner.c   the glue: the rung's events in and its actions carried
 *              out (rung.c decides), its rows, the loop, the signals, the
 *              summary
 *   runner_int.c  what the parts share: an event raised, a line said, a
 *              failure of ours
 *   prepare.c  before the server: the model's hash, the manifest under
 *              files.lock, a server an earlier run left stopped
 *   serve.c    the server on the loop: started, /health polled, its
 *              exit, and nvidia-smi asked what is in use
 *   ask.c      the requests in flight: one question each, streamed into
 *              its reply, watched for its idle limit and deadline, and
 *              the row it makes
 *   energy.c   the GPU's power read once a second while it answers
 *   execs.c    a code task's executions: each answer's code run in the
 *              sandbox, its row written once it has run
 */
#ifndef RUNNER_INT_H
#define RUNNER_INT_H

#include <stdatomic.h>
#include <stdint.h>
#include <uv.h>

#include "../../rundir/power.h"
#include "../../rundir/manifest.h"
#include "../../rundir/probsfile.h"
#include "../../rundir/store.h"
#include "../../util/util.h"
#include "../server/caplog.h"
#include "../base/endpoint.h"
#include "../base/hash.h"
#include "../base/lockwait.h"
#include "../server/http.h"
#include "../server/loopwatch.h"
#include "../night/super.h"
#include "../server/proc.h"
#include "../input/questions.h"
#include "../server/reply.h"
#include "../rows/rowwrite.h"
#include "rung.h"
#include "../server/runopts.h"
#include "../server/sse.h"
#include "../sandbox/sandbox.h"

#define REPLY_CAP REPLY_ROW_CAP /* reply.h: every row writer's budget */

struct runner;

/* An event waiting while another is being carried out: actions may
 * call back at once (http_cancel, a probe that cannot start). */
struct queued {
    struct rung_event ev;
    char kind[32], text[RUNG_TEXT];
};

/* runner.c's pump: the event being stepped and its actions, kept here
 * (not on the stack) so that a row on the thread pool can hold the rest
 * of its step until it is written. */
struct pump {
    struct queued cur;                         /* the event stepped */
    struct rung_action acts[RUNG_MAX_ACTIONS]; /* what it asked for */
    size_t n, next; /* how many; the next to carry out */
};

/* A row graded and written on the thread pool: a user's pattern can take
 * about a second a rule (docs/tasks.md, "Past the step limit"), which on
 * the loop would hold every timer, request and signal. The rest of its
 * step waits for it, so rows keep their order and each is fsync'd before
 * the next question is asked. */
struct rowjob {
    uv_work_t work;
    struct runner *r;
    struct store *store;
    struct row w; /* borrows from its slot and its action (stable: the
                     slot is held, the action is in struct pump) */
    const struct grader_task *task;
    atomic_int stop; /* a stop signal came: no rule more, no row */
    int stop_code;   /* 128 + the first such signal */
    int busy;        /* queued or running */
    int rc;          /* row_append_until's: 0, 1 stopped, -1 failed */
    int right;
    char *text; /* a code task's: the line made (execs.c's then) */
    double tps;
    char msg[RUNG_TEXT]; /* its failure */
};

/* One question's request, from its ask until its row is written: up to
 * the rung's width of them at once (rung.h). */
struct slot {
    struct runner *r;
    int busy; /* holds question `asked` until its row is written */
    size_t asked;
    struct http_req *req; /* in flight, or NULL */
    int cancelling;       /* its done callback is ours to ignore */
    const char *fault;    /* a refused stream's error_kind, or NULL */
    char fault_msg[512];
    uint64_t started_ms, last_token_ms;
    unsigned long progress_seen;
    struct reply reply;
    struct sse sse;
    long http_status;
    struct buf errbody;  /* an HTTP error's body */
    struct loopwatch lw; /* abort_loops: is the reply looping? */
    int looped;          /* it was, so the request was closed: LOOP_* */
    uv_timer_t later;    /* a 429's wait before the same ask again */
    int later_open;      /* that timer is initialised */
    int busy_tries;      /* 429s on this ask so far */
    size_t got;          /* body bytes of this ask so far */
};

/* ask.c's: the requests in flight. */
struct flights {
    struct slot slots[RUNG_MAX_WIDTH];
    size_t width;                  /* requests in flight at most */
    uv_timer_t watch;              /* a request's idle limit and deadline */
    uint64_t idle_ms, deadline_ms; /* from the options */
    uint64_t first_ask_ms;         /* for progress's seconds a question */
};

/* serve.c's: the server, its log, and nvidia-smi. */
struct serving {
    struct proc *server;
    struct proc *probe;                   /* nvidia-smi in flight */
    void (*after_probe)(struct runner *); /* what follows it */
    int probe_loaded;                     /* it asks for gpu_loaded */
    char url[ENDPOINT_URL_MAX + 1];       /* the server's, or the endpoint's */
    int port;
    int served;            /* an endpoint is in use (no process of ours) */
    int health_models;     /* its /health was 404: /v1/models instead */
    unsigned health_wait;  /* ms to the next poll: an endpoint backs off */
    char health_last[200]; /* what its last poll got, for messages */
    struct buf said;       /* /props or /v1/models being read */
    json_t *said_obj;      /* what it said, for the manifest */
    int said_step;         /* 0 /props, 1 /v1/models, 2 both asked */
    uint64_t health_deadline;
    long gpu_before, gpu_loaded; /* MiB from nvidia-smi, -1 unknown */
    char gpu_name[128];          /* nvidia-smi's name, or "" */
    char **env;                  /* the server's environment (launch.h) */
    struct caplog log;           /* the server's log, capped */
    int log_open;
};

/* energy.c's: the GPU's power while the rung answers (rows/RUNG.power). */
struct sampling {
    struct power_file file;
    uv_timer_t tick;         /* once a second while on */
    struct proc *smi;        /* nvidia-smi in flight */
    int open;                /* tick initialised */
    int on;                  /* answering: a segment is open */
    int ending;              /* it ended, its e line waiting for a reading */
    int off;                 /* no nvidia-smi: not asked again */
    unsigned seg, asked_seg; /* segments begun; the one asked in */
    uint64_t seg_start;      /* the loop's time at the segment's b line */
    uint64_t asked_at;       /* ... at the reading in flight */
    uint64_t end_ms;         /* the segment's end, after seg_start */
    int said_slow, said_cap, said_write;
};

/* execs.c's: a code task's executions (docs/code.md). */
struct exec_entry;
struct executing {
    int on;                     /* the task is a code task */
    enum grader_rule_kind kind; /* its exec rule's: how code is taken */
    struct sandbox_conf conf;
    struct manifest_sandbox record; /* for the manifest: where it ran */
    char runs_in[200];              /* sandbox_probe's words */
    struct sandbox_pool *pool;
    struct store cands;    /* rows/RUNG.candidates */
    struct exec_entry **v; /* in the candidates' order: each row is
                              written when it and all before it are */
    size_t n, cap;
    uv_work_t work; /* the first one's row, appended on the pool */
    int writing, write_rc;
    char write_msg[RUNG_TEXT];
    int stopped; /* a stop: no more runs, no more rows */
    int holding; /* the rung ended (A_FINISH), its rows not all out */
    int hold_code;
    char hold_text[RUNG_TEXT];
};

/* prepare.c's: the model's hash, files.lock, a left server. */
struct preparing {
    struct hash_job model_hash;
    int hashing;     /* an async hash is in flight */
    int hash_cached; /* it came from RUNDIR/sha256.cache */
    long reaped;     /* a server left by an earlier run, being stopped */
    int reap_killed; /* ... and SIGKILLed */
    uint64_t reap_since;
};

struct runner {
    const struct run_opts *o;
    struct super sup; /* the loop and its stop signals (super.h) */
    char who[300];    /* "run RUNG", for its messages */
    struct questions qs;
    struct store store;
    struct probsfile probs; /* "logprobs" on: the rung's probs file */
    int probs_asked;        /* an answer with tokens has been checked
                               for log-probabilities */
    uint8_t *had;           /* the rows file answered question i when
                               the run began */
    const char **ids;       /* the questions' ids, by index */
    size_t rows, right;     /* rows in the file, graded right */
    struct rung rung;       /* every decision (rung.h) */
    /* events met while stepping, or while a row is on the thread pool:
     * each flight's end, the server's, the wait's, and one stop */
    struct queued queue[2 * RUNG_MAX_WIDTH + 8];
    size_t nqueued;
    struct pump pump;
    struct rowjob rowjob;
    int stepping, ended;
    struct http *http;          /* libcurl on the loop: /health and requests */
    uv_timer_t timer;           /* one wait at a time: a left server, health
                                   polls, the wait for an exit */
    struct lockwait files_lock; /* RUNDIR's files.lock, waited for on the
                                   loop: prepare.c's, then serve.c's */
    int lock_fd;                /* RUNDIR/locks/RUNG.lock, held while we run */
    int complete;               /* every question answered and .done written */
    char version[256];          /* the server's --version */
    char binary_sha[65];        /* its binary's sha256, or "" (served) */
    char vocab[65]; /* the vocabulary's sha256 (logprobs on), or "" */
    int exit_code;
    char err[1024];
    struct buf pid_path, log_path; /* set by open_rung; runner_free */
    unsigned long long rows_added;
    double last_tps; /* the last row's decode speed, for progress */
    int progress_fd; /* a ladder's pipe, or -1 */
    int live;        /* a terminal and no ladder: a live progress line */
    struct flights asks;
    struct serving srv;
    struct preparing prep;
    struct sampling power;
    struct executing execs;
    /* runner.c's pump: the rung's step for an event, its actions carried
     * out. The parts raise events through it and never call runner.c by
     * name, so the files stand in layers: runner.c over prepare.c,
     * serve.c and ask.c, over runner_int.c. */
    void (*feed)(struct runner *r, const struct rung_event *ev);
    /* the rung's end, which execs.c held until its rows were out */
    void (*finish)(struct runner *r, int code, const char *why);
};

/* runner_int.c: an event for the rung (r->feed); a line on stderr
 * unless quiet; a failure of ours, as an event (EV_FAIL). */
void runner_event(struct runner *r, const struct rung_event *ev);
void runner_say(struct runner *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void runner_fail(struct runner *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* runner_int.c: a row written (runner.c's or execs.c's), counted and
 * told to a ladder (GRAVEYARD_PROGRESS_FD) and, off a terminal, each 25;
 * how far the rung is, from its rows so far. */
struct progress;
void runner_counted(struct runner *r, int right);
void runner_progress(struct runner *r, struct progress *p);

/* prepare.c: the model's hash (cached, or on the thread pool), then the
 * chain to EV_BEGIN. */
void prepare_start(struct runner *r);
void prepare_close(struct runner *r);

/* serve.c */
int serve_start(struct runner *r); /* 0, or -1 with r->err */
void serve_stop(struct runner *r);
void serve_env(struct runner *r);
void serve_drop(struct runner *r); /* a server gone, and its pid file */
void serve_wait_exit(struct runner *r);
void serve_probe(struct runner *r, int loaded, void (*next)(struct runner *));
int serve_open_log(struct runner *r, char *msg, size_t msgsize);
void serve_close(struct runner *r);
void serve_release(struct runner *r);

/* energy.c: a segment begins with the first ask, ends when the server
 * is stopped or restarted, or the rung ends (close) */
void energy_init(struct runner *r);
void energy_begin(struct runner *r);
void energy_end(struct runner *r);
void energy_close(struct runner *r);
void energy_release(struct runner *r);

/* execs.c: execs_probe in open_rung before anything is made (can code
 * run here?); execs_open once the rows are read (the candidates a stop
 * left held: their questions are not asked again); execs_start
 * when the loop runs; execs_candidate on the thread pool (an answer's
 * line, synced); execs_add on the loop once it is (text owned: the
 * candidate, or an error row to append in order); execs_hold at A_FINISH
 * (1: the end waits for the rows); execs_signal on a stop (1: it was
 * holding, and ends now); execs_stop kills every sandbox. Each 0 or the
 * exit status / -1 with the message as named. */
int execs_on(const struct runner *r);
int execs_probe(struct runner *r, char *msg, size_t msgsize);
int execs_open(struct runner *r, char *msg, size_t msgsize);
/* whether id is a candidate held for its row (its question answered) */
int execs_holds(const struct runner *r, const char *id, size_t len);
int execs_start(struct runner *r);
int execs_candidate(struct runner *r, const char *text, char *msg,
                    size_t msgsize);
void execs_add(struct runner *r, size_t q, char *text, int error_row);
int execs_hold(struct runner *r, int code, const char *why);
int execs_signal(struct runner *r, int code);
void execs_stop(struct runner *r);
void execs_close(struct runner *r);
void execs_release(struct runner *r);

/* ask.c */
void ask_init(struct runner *r);
int ask_start(struct runner *r, size_t q); /* 0, or -1 */
void ask_cancel_all(struct runner *r);
void ask_forget(struct runner *r, size_t q); /* a broken attempt's reply */
/* question q's row from its slot (or none), into *w, which borrows from
 * the slot until ask_written; returns the reply's decode speed, or -1 */
double ask_row(struct runner *r, size_t q, int attempts, const char *kind,
               const char *error, struct row *w);
void ask_written(struct runner *r, size_t q);
/* question q's reply while its slot holds it, or NULL */
const struct reply *ask_reply(struct runner *r, size_t q);
void ask_close(struct runner *r);
void ask_release(struct runner *r);

#endif
