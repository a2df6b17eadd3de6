/*
 * runner.c - one rung's run on its own libuv loop: the rung's decisions
 * are rung.c's, and this file turns what happens on the loop into its
 * events and carries out its actions.
 *
 * The order: check what was given without creating anything (questions,
 * model, the binary and its --version); take the rung's lock; read the
 * rows (store); hash the model off the loop (or find it in the cache) and
 * record it under files.lock (tried without blocking); a finished rung
 * prints its summary and stops there. Else stop a server an earlier run
 * left (on a timer), ask nvidia-smi what is in use, then EV_BEGIN: the
 * rung starts a server, and from there on every step is an event in and
 * actions out, until A_FINISH (after the server is stopped) ends the loop
 * and rows/<RUNG>.done is written. Nothing here sleeps or waits on the
 * loop thread, and no child is waited for without a time limit; the
 * server dies with this process however it dies (spawn.h).
 */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "../grader/grader.h"
#include "../report/emit.h"
#include "../rundir/files.h"
#include "../rundir/ladderfile.h"
#include "../rundir/pidfile.h"
#include "../rundir/rundir.h"
#include "../rundir/store.h"
#include "caplog.h"
#include "cli.h"
#include "config.h"
#include "gpu.h"
#include "hash.h"
#include "http.h"
#include "launch.h"
#include "proc.h"
#include "progress.h"
#include "questions.h"
#include "record.h"
#include "request.h"
#include "reply.h"
#include "rowsfile.h"
#include "rowwrite.h"
#include "taskfile.h"
#include "loopwatch.h"
#include "rung.h"
#include "shape.h"
#include "spawn.h"
#include "sse.h"

#define HEALTH_POLL_MS 250
#define EXIT_WAIT_MS   1000  /* after a broken stream, for the exit */
#define LOCK_POLL_MS   20    /* files.lock is held for milliseconds */
#define LOCK_WAIT_MS   60000 /* ... so a minute means something is wrong */
#define REAP_POLL_MS   50    /* a server left by an earlier run: is it gone? */
#define REAP_GRACE_MS  5000  /* SIGTERM, then SIGKILL */
#define ERRBODY_CAP    65536 /* an HTTP error's body kept */
#define REPLY_CAP      REPLY_ROW_CAP /* reply.h: every row writer's budget */

/* An event waiting while another is being carried out: actions may
 * call back at once (http_cancel, a probe that cannot start). */
struct queued {
    struct rung_event ev;
    char kind[32], text[RUNG_TEXT];
};

struct runner;

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
};

struct runner {
    const struct run_opts *o;
    uv_loop_t loop;
    struct questions qs;
    struct store store;
    uint8_t *had;           /* the rows file answered question i when
                               the run began */
    const char **ids;       /* the questions' ids, by index */
    size_t rows, right;     /* rows in the file, graded right */
    struct rung rung;       /* every decision (rung.h) */
    struct queued queue[8]; /* events met while stepping */
    size_t nqueued;
    int stepping, ended;
    struct caplog log;
    int log_open;
    struct http *http;
    struct slot slots[RUNG_MAX_WIDTH];
    size_t width;    /* requests in flight at most */
    double last_tps; /* the last row's decode speed, for progress */
    struct proc *server;
    struct proc *probe;                   /* nvidia-smi in flight */
    void (*after_probe)(struct runner *); /* what follows it */
    int probe_loaded;                     /* it asks for gpu_loaded */
    uv_timer_t timer;    /* health polls; the wait for an exit */
    uv_timer_t watch;    /* a request's idle limit and deadline */
    uv_signal_t sigs[3]; /* SIGINT, SIGTERM, SIGHUP (the terminal went) */
    int handles;         /* the loop's handles are initialised */
    struct hash_job model_hash;
    int hashing;         /* an async hash is in flight */
    int hash_cached;     /* it came from RUNDIR/sha256.cache */
    int lock_fd;         /* RUNDIR/locks/RUNG.lock, held while we run */
    int complete;        /* every question answered and .done written */
    uint64_t lock_since; /* the first try for files.lock */
    long reaped;         /* a server left by an earlier run, being stopped */
    int reap_killed;     /* ... and SIGKILLed */
    uint64_t reap_since;
    char version[256];
    char url[64];
    int port;
    uint64_t health_deadline;
    uint64_t idle_ms, deadline_ms;
    int exit_code;
    char err[1024];
    char pid_path[4200], log_path[4200];
    unsigned long long rows_added;
    long gpu_before, gpu_loaded; /* MiB from nvidia-smi, -1 unknown */
    char gpu_name[128];          /* nvidia-smi's name, or "" */
    int progress_fd;             /* a ladder's pipe, or -1 */
    uint64_t first_ask_ms;
    char **env; /* the server's environment (launch.h) */
};

static int start_server(struct runner *r);
static int ask(struct runner *r, size_t q);
static void feed(struct runner *r, const struct rung_event *ev);
static struct slot *slot_for(struct runner *r, size_t q);
static void cancel(struct slot *sl);

static void say(const struct runner *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(const struct runner *r, const char *fmt, ...)
{
    va_list ap;

    if (r->o->quiet)
        return;
    fprintf(stderr, "graveyard run %s: ", r->o->rung);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* Free a server that is gone. */
static void drop_server(struct runner *r)
{
    proc_free(r->server);
    r->server = NULL;
}

/* ---- the end ----------------------------------------------------------- */

static void close_all(struct runner *r)
{
    if (r->http) {
        http_free(r->http, NULL, NULL);
        r->http = NULL;
        for (size_t i = 0; i < r->width; i++)
            r->slots[i].req = NULL;
    }
    if (r->probe) {
        proc_free(r->probe); /* killed if still running */
        r->probe = NULL;
    }
    if (r->hashing)
        hash_cancel(&r->model_hash); /* the loop waits for its end */
    if (!uv_is_closing((uv_handle_t *)&r->timer))
        uv_close((uv_handle_t *)&r->timer, NULL);
    if (!uv_is_closing((uv_handle_t *)&r->watch))
        uv_close((uv_handle_t *)&r->watch, NULL);
    for (int i = 0; i < 3; i++)
        if (!uv_is_closing((uv_handle_t *)&r->sigs[i]))
            uv_close((uv_handle_t *)&r->sigs[i], NULL);
}

/* The rung ended (A_FINISH): no server is up; the loop ends. */
static void finished(struct runner *r, int code, const char *why)
{
    r->ended = 1;
    r->exit_code = code;
    if (why != NULL && why[0] != '\0')
        snprintf(r->err, sizeof(r->err), "%s", why);
    uv_timer_stop(&r->timer);
    uv_timer_stop(&r->watch);
    if (r->server != NULL) {
        drop_server(r);
        unlink(r->pid_path);
    }
    close_all(r);
}

/* A failure of ours, before or during the rung: the rung decides how to
 * end (stopping the server first). */
static void fail(struct runner *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(struct runner *r, int code, const char *fmt, ...)
{
    struct rung_event ev;
    char text[RUNG_TEXT];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    memset(&ev, 0, sizeof(ev));
    ev.type = EV_FAIL;
    ev.code = code;
    ev.text = text;
    feed(r, &ev);
}

/* ---- rows -------------------------------------------------------------- */

/*
 * Tell a ladder how far this rung is: one JSON line per row on the fd it
 * names in GRAVEYARD_PROGRESS_FD (done, total, right so far, the last
 * decode speed, seconds per question in this process). A full pipe drops
 * the line: progress is never worth blocking a run for.
 */
static void progress(struct runner *r)
{
    char line[PROGRESS_LINE];
    struct progress p;
    size_t n;

    if (r->progress_fd < 0)
        return;
    p.done = (long)r->rows;
    p.total = (long)r->qs.n;
    p.right = (long)r->right;
    p.tps = r->last_tps;
    p.sec_per_q = (double)(uv_now(&r->loop) - r->first_ask_ms) / 1000.0 /
                  (double)r->rows_added;
    n = progress_format(&p, line, sizeof(line));
    if (write(r->progress_fd, line, n) < 0 && errno != EAGAIN)
        r->progress_fd = -1;
}

/* The row of question qi from its slot, for the one writer of rows
 * (rowwrite.h); kind and error are NULL for an answer. A request that
 * carried a grammar or a JSON schema has the reply checked against it
 * (shape.h); one without keeps its rows as they were. */
static void slot_row(struct runner *r, const struct slot *sl, size_t qi,
                     int attempts, const char *kind, const char *error,
                     struct row *w)
{
    const struct question *q = &r->qs.q[qi];
    const struct reply *reply = &sl->reply;
    struct shape s;

    row_init(w);
    w->id = q->id;
    w->rung = r->o->rung;
    w->reference = q->answer;
    if (!error && reply->content.len > 0) {
        w->content = reply->content.p;
        w->content_len = reply->content.len;
    }
    if (!error && reply->reasoning.len > 0) {
        w->reasoning = reply->reasoning.p;
        w->reasoning_len = reply->reasoning.len;
    }
    w->finish = reply->finish[0] ? reply->finish : NULL;
    w->truncated =
        !error && (sl->looped || reply_truncated(reply, r->o->max_tokens));
    w->tokens = reply_tokens(reply);
    w->tps = reply->decode_tps;
    w->error = error;
    w->error_kind = kind;
    w->measured = 1;
    w->prompt_tokens = reply->prompt_n;
    w->prompt_ms = reply->prompt_ms;
    w->predicted_ms = reply->predicted_ms;
    w->http_status = sl->http_status;
    w->attempts = attempts;
    w->latency_ms = (long long)(uv_now(&r->loop) - sl->started_ms);
    w->grades = strcmp(grader_task_name(r->o->task), TASKFILE_DEFAULT) != 0;
    shape_of(r->o->request, &s);
    if (s.kind != SHAPE_NONE) {
        w->constrained = s.name;
        if (!error)
            w->violations = shape_check(&s, w->content, w->content_len, w->why,
                                        sizeof(w->why));
        w->violation = w->violations > 0 ? w->why : NULL;
    }
    /* cut short as a loop: what it would have cost at most */
    if (!error && sl->looped) {
        w->aborted = loopwatch_name(sl->looped);
        w->tokens_saved =
            r->o->max_tokens > w->tokens ? r->o->max_tokens - w->tokens : 0;
    }
}

/* Append the row an action asks for (an answer, or an error row).
 * Returns 0, or -1 with the failure in msg and *code. */
static int append_row(struct runner *r, const struct rung_action *a, int *code,
                      char *msg, size_t msgsize)
{
    const char *kind = a->type == A_ERROR_ROW ? a->kind : NULL;
    const char *error = a->type == A_ERROR_ROW ? a->text : NULL;
    struct slot *sl = slot_for(r, a->question), none;
    struct row w;
    int right, rc;

    if (sl == NULL) { /* a question that never reached a server */
        memset(&none, 0, sizeof(none));
        none.r = r;
        reply_init(&none.reply, REPLY_CAP);
        sl = &none;
    }
    slot_row(r, sl, a->question, a->attempts, kind, error, &w);
    rc = row_append(&r->store, &w, r->o->task, &right, msg, msgsize);
    if (sl == &none)
        reply_release(&none.reply);
    if (rc != 0) {
        *code = files_exit_code(r->store.err);
        return -1;
    }
    sl->busy = 0;
    if (!error && sl->reply.decode_tps > 0)
        r->last_tps = sl->reply.decode_tps;
    r->rows++;
    r->rows_added++;
    r->right += (size_t)right;
    progress(r);
    if (!r->o->quiet && r->rows_added % 25 == 0)
        say(r, "%zu/%zu answered", r->rows, r->qs.n);
    return 0;
}

/* ---- the rung's events and actions -------------------------------------- */

static void start_probe(struct runner *r, int loaded,
                        void (*next)(struct runner *));

static void exit_wait_cb(uv_timer_t *t);

static void probed(struct runner *r)
{
    struct rung_event ev;

    memset(&ev, 0, sizeof(ev));
    ev.type = EV_PROBED;
    feed(r, &ev);
}

/* Carry out one action. Returns 0, or -1 (the rest of the step is
 * skipped) with an EV_FAIL in *fail. */
static int carry_out(struct runner *r, const struct rung_action *a,
                     struct queued *fail)
{
    int code = 1, no_server = 0;

    switch (a->type) {
    case A_START_SERVER:
        /* what is still in flight was asked of the server gone */
        for (size_t i = 0; i < r->width; i++)
            cancel(&r->slots[i]);
        if (start_server(r) == 0)
            return 0;
        snprintf(fail->text, sizeof(fail->text), "%.880s", r->err);
        no_server = 1; /* none to stop */
        break;
    case A_PROBE_LOADED:
        start_probe(r, 1, probed);
        return 0;
    case A_ASK:
        if (ask(r, a->question) == 0)
            return 0;
        snprintf(fail->text, sizeof(fail->text),
                 "cannot start a request to %s", r->url);
        break;
    case A_STOP_SERVER:
        if (r->server != NULL)
            proc_stop(r->server, r->o->grace_ms);
        return 0;
    case A_WAIT_EXIT:
        uv_timer_stop(&r->timer);
        uv_timer_start(&r->timer, exit_wait_cb, EXIT_WAIT_MS, 0);
        return 0;
    case A_ANSWER_ROW:
    case A_ERROR_ROW:
        if (a->type == A_ERROR_ROW &&
            (strcmp(a->kind, "died") == 0 || strcmp(a->kind, "hung") == 0)) {
            /* nothing of the broken attempts belongs in the row */
            struct slot *sl = slot_for(r, a->question);
            if (sl != NULL) {
                sl->http_status = 0;
                reply_release(&sl->reply);
                reply_init(&sl->reply, REPLY_CAP);
            }
        }
        if (append_row(r, a, &code, fail->text, sizeof(fail->text)) == 0)
            return 0;
        break;
    case A_SAY:
        say(r, "%s", a->text);
        return 0;
    case A_FINISH:
        finished(r, a->code, a->text);
        return 0;
    }
    memset(&fail->ev, 0, sizeof(fail->ev));
    fail->ev.type = EV_FAIL;
    fail->ev.code = code;
    fail->ev.no_server = no_server;
    return -1;
}

/* Hand an event to the rung and carry out its actions; an event raised
 * meanwhile (a callback that runs at once) waits its turn, and an action
 * that fails skips the rest of its step and is the next event. */
static void feed(struct runner *r, const struct rung_event *ev)
{
    struct rung_action acts[RUNG_MAX_ACTIONS];
    struct queued q, fail;
    size_t n, i;
    int failed;

    if (r->ended)
        return;
    if (r->stepping) {
        struct queued *w = &r->queue[r->nqueued];
        if (r->nqueued == sizeof(r->queue) / sizeof(r->queue[0])) {
            /* a bug: the rung raises a few events at a time */
            fprintf(stderr,
                    "graveyard run %s: internal error: more than %zu "
                    "events while one step is carried out\n",
                    r->o->rung, sizeof(r->queue) / sizeof(r->queue[0]));
            abort();
        }
        r->nqueued++;
        w->ev = *ev;
        snprintf(w->kind, sizeof(w->kind), "%s", ev->kind ? ev->kind : "");
        snprintf(w->text, sizeof(w->text), "%s", ev->text ? ev->text : "");
        return;
    }
    r->stepping = 1;
    q.ev = *ev;
    while (!r->ended) {
        n = rung_step(&r->rung, &q.ev, acts);
        failed = 0;
        for (i = 0; i < n && !r->ended && !failed; i++)
            failed = carry_out(r, &acts[i], &fail) != 0;
        if (failed) {
            q = fail;
            q.ev.text = q.text;
            continue;
        }
        if (r->nqueued == 0)
            break;
        q = r->queue[0];
        memmove(r->queue, r->queue + 1, --r->nqueued * sizeof(r->queue[0]));
        q.ev.kind = q.ev.kind ? q.kind : NULL;
        q.ev.text = q.ev.text ? q.text : NULL;
    }
    r->stepping = 0;
}

/* ---- asking ------------------------------------------------------------ */

static struct slot *slot_for(struct runner *r, size_t q)
{
    size_t i;

    for (i = 0; i < r->width; i++)
        if (r->slots[i].busy && r->slots[i].asked == q)
            return &r->slots[i];
    return NULL;
}

/* abort_loops: the text an event added, to the loop watch; a loop ends
 * the request as an answer with finish_reason "loop" (1). */
static int watch_loop(struct slot *sl, size_t clen, size_t rlen)
{
    const struct reply *y = &sl->reply;
    int in_r = y->reasoning.len > rlen;
    const char *p = in_r ? y->reasoning.p + rlen : y->content.p + clen;
    size_t n = in_r ? y->reasoning.len - rlen : y->content.len - clen;
    int kind =
        loopwatch_piece(&sl->lw, p, n, in_r, y->content.p, y->content.len,
                        y->reasoning.p, y->reasoning.len);

    if (kind < 0)
        util_oom("the loop watch");
    if (kind == LOOP_NONE)
        return 0;
    sl->looped = kind;
    snprintf(sl->reply.finish, sizeof(sl->reply.finish), "loop");
    sl->reply.completion_tokens = (long long)sl->lw.pieces;
    return 1;
}

static int sse_event(void *ctx, const char *data, size_t len)
{
    struct slot *sl = ctx;
    size_t clen = sl->reply.content.len, rlen = sl->reply.reasoning.len;
    int rc = reply_event(&sl->reply, data, len, sl->fault_msg,
                         sizeof(sl->fault_msg));

    if (rc != 0) {
        sl->fault = reply_error_kind(rc);
        return 1;
    }
    if (sl->r->o->abort_loops && sl->reply.finish[0] == '\0' &&
        (sl->reply.content.len > clen || sl->reply.reasoning.len > rlen) &&
        watch_loop(sl, clen, rlen))
        return 1;
    /* progress is counted in tokens: comments, empty events and a
     * byte-at-a-time trickle do not keep a request alive */
    if (sl->reply.progress != sl->progress_seen) {
        sl->progress_seen = sl->reply.progress;
        sl->last_token_ms = uv_now(&sl->r->loop);
    }
    return 0;
}

static int body_cb(void *ctx, long status, const char *p, size_t n)
{
    struct slot *sl = ctx;
    int rc;

    sl->http_status = status;
    if (status >= 400) {
        /* an error body is JSON, not SSE: its first ERRBODY_CAP bytes are
         * kept for the row (a message is short; more is noise) */
        size_t room = ERRBODY_CAP - sl->errbody.len;
        return buf_add(&sl->errbody, p, n < room ? n : room) == 0 ? 0 : 1;
    }
    rc = sse_feed(&sl->sse, p, n);
    if (rc == SSE_ETOOBIG && sl->fault == NULL) {
        sl->fault = "too_long";
        snprintf(sl->fault_msg, sizeof(sl->fault_msg),
                 "a stream line or event longer than %u bytes",
                 (unsigned)REPLY_CAP);
    }
    return rc == 0 ? 0 : 1;
}

/* Cancel a slot's request in flight; its done callback is ignored. */
static void cancel(struct slot *sl)
{
    if (sl->req == NULL)
        return;
    sl->cancelling = 1;
    http_cancel(sl->r->http, sl->req); /* request_done runs now */
    sl->cancelling = 0;
    sl->req = NULL;
}

static void watch_cb(uv_timer_t *t);

/* The watch wakes at the first request's idle limit or deadline. */
static void rearm_watch(struct runner *r)
{
    uint64_t now = uv_now(&r->loop), first = UINT64_MAX;
    size_t i;

    for (i = 0; i < r->width; i++) {
        const struct slot *sl = &r->slots[i];
        uint64_t idle_at = sl->last_token_ms + r->idle_ms;
        uint64_t late_at = sl->started_ms + r->deadline_ms;
        if (sl->req == NULL)
            continue;
        if (idle_at < first)
            first = idle_at;
        if (late_at < first)
            first = late_at;
    }
    uv_timer_stop(&r->watch);
    if (first != UINT64_MAX)
        uv_timer_start(&r->watch, watch_cb, first > now ? first - now : 0, 0);
}

/* The watch: a request with no token for idle_ms (hung), or past its
 * deadline, is cancelled and said to the rung. */
static void watch_cb(uv_timer_t *t)
{
    struct runner *r = t->data;
    uint64_t now = uv_now(&r->loop);
    struct rung_event ev;
    size_t i;

    for (i = 0; i < r->width && !r->ended; i++) {
        struct slot *sl = &r->slots[i];
        uint64_t idle_at = sl->last_token_ms + r->idle_ms;
        uint64_t late_at = sl->started_ms + r->deadline_ms;
        if (sl->req == NULL || (now < idle_at && now < late_at))
            continue;
        cancel(sl);
        memset(&ev, 0, sizeof(ev));
        ev.type = now >= idle_at ? EV_IDLE : EV_DEADLINE;
        ev.question = sl->asked;
        feed(r, &ev);
    }
    if (!r->ended)
        rearm_watch(r);
}

/* A broken stream, a second on: the server has not exited. */
static void exit_wait_cb(uv_timer_t *t)
{
    struct runner *r = t->data;
    struct rung_event ev;

    memset(&ev, 0, sizeof(ev));
    ev.type = EV_EXIT_WAIT_OVER;
    feed(r, &ev);
}

/* How a request that ended (not cancelled) ended, as the rung's event;
 * error holds its text. */
static void outcome(struct slot *sl, const char *err, struct rung_event *ev,
                    char *error, size_t errsize)
{
    enum reply_outcome out = reply_outcome(&sl->reply);
    long status = sl->http_status;

    memset(ev, 0, sizeof(*ev));
    ev->question = sl->asked;
    ev->type = EV_REFUSED;
    ev->text = error;
    error[0] = '\0';
    if (sl->looped) {
        /* closed by us, as a loop: what arrived is the answer */
        ev->type = EV_ANSWER;
    } else if (sl->fault != NULL) {
        /* the server is alive and said something we cannot take */
        ev->kind = sl->fault;
        ev->text = sl->fault_msg;
    } else if (status >= 400) {
        json_t *body = json_loadb(sl->errbody.p ? sl->errbody.p : "",
                                  sl->errbody.len, 0, NULL);
        const char *m = json_string_value(
            json_object_get(json_object_get(body, "error"), "message"));
        snprintf(error, errsize, "HTTP %ld: %.500s", status,
                 m ? m : (sl->errbody.len ? sl->errbody.p : ""));
        json_decref(body);
        ev->kind = "http";
    } else if (err == NULL && !sse_pending(&sl->sse) &&
               out == REPLY_FINISHED) {
        ev->type = EV_ANSWER;
    } else if (err == NULL && out == REPLY_ERROR) {
        snprintf(error, errsize, "stream error: %.500s", sl->reply.error);
        ev->kind = "stream_error";
    } else if (err == NULL) {
        ev->kind = "bad_stream";
        ev->text = "the stream ended without a finish_reason or [DONE]";
    } else {
        /* the connection broke: a server that died does that */
        ev->type = EV_BROKE;
        ev->text = NULL;
    }
}

/* The end of a request, as an event for the rung. */
static void request_done(void *ctx, long status, const char *err)
{
    struct slot *sl = ctx;
    struct runner *r = sl->r;
    struct rung_event ev;
    char error[800];

    (void)status; /* body_cb kept it */
    if (sl->cancelling)
        return;
    sl->req = NULL;
    rearm_watch(r);
    outcome(sl, err, &ev, error, sizeof(error));
    feed(r, &ev);
}

/* Ask question q (A_ASK) on its slot (asked again) or a free one. 0, or
 * -1 when the request cannot start. */
static int ask(struct runner *r, size_t q)
{
    struct slot *sl = slot_for(r, q);
    char url[128], *body;
    size_t i;

    for (i = 0; sl == NULL && i < r->width; i++)
        if (!r->slots[i].busy)
            sl = &r->slots[i];
    if (sl == NULL) /* the rung asks at most width at once */
        return -1;
    cancel(sl);
    sl->busy = 1;
    sl->asked = q;
    sl->http_status = 0;
    sl->fault = NULL;
    buf_release(&sl->errbody);
    reply_release(&sl->reply);
    reply_init(&sl->reply, REPLY_CAP);
    sse_release(&sl->sse);
    sse_init(&sl->sse, REPLY_CAP, sse_event, sl);
    sl->progress_seen = 0;
    sl->looped = LOOP_NONE;
    loopwatch_reset(&sl->lw);
    sl->started_ms = sl->last_token_ms = uv_now(&r->loop);
    if (r->first_ask_ms == 0)
        r->first_ask_ms = sl->started_ms;
    body = request_body(r->o, &r->qs.q[q]);
    snprintf(url, sizeof(url), "%s/v1/chat/completions", r->url);
    sl->req = http_request(r->http, url, body, 0, body_cb, request_done, sl);
    free(body);
    if (sl->req == NULL)
        return -1;
    rearm_watch(r);
    return 0;
}

/* ---- nvidia-smi, on the loop ------------------------------------------- */

/* How long nvidia-smi may take: GPU_PROBE_MS, or GRAVEYARD_PROBE_MS
 * (milliseconds, 100 to 600000: for a slow driver, and for the tests). */
static uint64_t probe_ms(void)
{
    const char *s = getenv("GRAVEYARD_PROBE_MS");
    char *end;
    long v;

    if (s == NULL)
        return GPU_PROBE_MS;
    v = strtol(s, &end, 10);
    return (*end == '\0' && end != s && v >= 100 && v <= 600000)
               ? (uint64_t)v
               : GPU_PROBE_MS;
}

static void probe_exit(void *ctx, long long status, int sig)
{
    struct runner *r = ctx;
    long mib = -1;
    void (*next)(struct runner *) = r->after_probe;

    if (status == 0 && sig == 0)
        gpu_parse(proc_output(r->probe, NULL), &mib,
                  r->probe_loaded ? NULL : r->gpu_name, sizeof(r->gpu_name));
    else if (proc_timed_out(r->probe))
        say(r, "nvidia-smi did not answer in %.1f s; GPU memory not recorded",
            (double)probe_ms() / 1000);
    if (r->probe_loaded)
        r->gpu_loaded = mib;
    else
        r->gpu_before = mib;
    proc_free(r->probe);
    r->probe = NULL;
    if (!r->ended)
        next(r);
}

/* Ask nvidia-smi (killed after probe_ms()) what is in use, then next.
 * Without nvidia-smi, next at once. */
static void start_probe(struct runner *r, int loaded,
                        void (*next)(struct runner *))
{
    const char *argv[8];
    struct proc_opts po;
    char msg[256];

    gpu_query_argv(r->o->gpu, !loaded, argv);
    memset(&po, 0, sizeof(po));
    po.argv = (char *const *)argv;
    po.capture = 4096;
    po.stderr_fd = SPAWN_NULL;
    po.fd3 = SPAWN_CLOSED;
    po.new_session = 1;
    po.pdeathsig = SIGKILL;
    po.timeout_ms = probe_ms();
    r->probe_loaded = loaded;
    r->after_probe = next;
    r->probe = proc_start(&r->loop, &po, probe_exit, r, msg, sizeof(msg));
    if (r->probe == NULL)
        next(r); /* no nvidia-smi: null in .done */
}

/* ---- the server -------------------------------------------------------- */

static void health_poll(uv_timer_t *t);

static void health_done(void *ctx, long status, const char *err)
{
    struct runner *r = ctx;
    struct rung_event ev;

    (void)err;
    /* after EV_HEALTHY the rung has left RS_STARTING: one per server */
    if (r->rung.state != RS_STARTING || r->server == NULL)
        return;
    memset(&ev, 0, sizeof(ev));
    if (status == 200) {
        say(r, "server ready on port %d (pid %d)", r->port,
            proc_pid(r->server));
        ev.type = EV_HEALTHY;
        feed(r, &ev);
        return;
    }
    if (uv_now(&r->loop) > r->health_deadline) {
        ev.type = EV_NOT_READY;
        ev.text = proc_last_line(r->server);
        ev.seconds = r->o->health_timeout_s;
        feed(r, &ev);
        return;
    }
    uv_timer_start(&r->timer, health_poll, HEALTH_POLL_MS, 0);
}

static void health_poll(uv_timer_t *t)
{
    struct runner *r = t->data;
    char url[128];

    snprintf(url, sizeof(url), "%s/health", r->url);
    /* a per-poll timeout: the ik fork's /health hangs while loading */
    if (http_request(r->http, url, NULL, 2000, NULL, health_done, r) == NULL)
        fail(r, 1, "cannot poll %s", url);
}

static void server_exit(void *ctx, long long status, int sig)
{
    struct runner *r = ctx;
    char last[512];
    struct rung_event ev;

    snprintf(last, sizeof(last), "%s", proc_last_line(r->server));
    drop_server(r);
    unlink(r->pid_path);
    uv_timer_stop(&r->timer); /* health polls, the wait for an exit */
    memset(&ev, 0, sizeof(ev));
    ev.type = EV_EXITED;
    ev.status = status;
    ev.sig = sig;
    ev.text = last;
    ev.port_taken = strstr(last, "bind") != NULL;
    ev.port = r->port;
    ev.oom = r->rung.state == RS_STARTING && gpu_log_oom(r->log_path);
    feed(r, &ev);
}

/* Start a server (A_START_SERVER) and poll its /health. 0, or -1 with
 * the reason in r->err when it cannot be started. */
static int start_server(struct runner *r)
{
    char msg[512], note[96];
    struct proc_opts po;
    char **argv;

    r->port = launch_free_port();
    snprintf(r->url, sizeof(r->url), "http://127.0.0.1:%d", r->port);
    argv = launch_argv(r->o, r->port);
    snprintf(note, sizeof(note), "[graveyard: server start %d on port %d]\n",
             r->rung.started, r->port);
    caplog_write(&r->log, note, strlen(note));
    memset(&po, 0, sizeof(po));
    po.argv = argv;
    po.env = r->env;
    po.log = &r->log;
    po.fd3 = SPAWN_CLOSED;
    po.new_session = 1;
    /* a server must not outlive us, however we die: SIGKILL, since nobody
     * is left to wait for a graceful stop */
    po.pdeathsig = SIGKILL;
    r->server = proc_start(&r->loop, &po, server_exit, r, msg, sizeof(msg));
    launch_free(argv);
    if (r->server == NULL) {
        snprintf(r->err, sizeof(r->err), "%s", msg);
        return -1;
    }
    if (pidfile_write(r->pid_path, proc_pid(r->server), msg, sizeof(msg)))
        say(r, "%s", msg);
    r->health_deadline =
        uv_now(&r->loop) + (uint64_t)r->o->health_timeout_s * 1000;
    uv_timer_start(&r->timer, health_poll, 100, 0);
    return 0;
}

/* ---- before the server: hash, manifest, stale server ------------------ */

/* Prepared: the rung begins (its first server, unless every row is
 * there already). */
static void begin(struct runner *r)
{
    struct rung_event ev;

    memset(&ev, 0, sizeof(ev));
    ev.type = EV_BEGIN;
    feed(r, &ev);
}

/* The stale server is gone (or was never there): libcurl, the server's
 * environment, then nvidia-smi's "before" figure and the rung begins. */
static void ready_to_start(struct runner *r)
{
    extern char **environ;

    r->http = http_new(&r->loop);
    if (r->http == NULL) {
        fail(r, EXIT_FAILED, "libcurl did not start");
        return;
    }
    r->env = launch_env(r->o, environ);
    start_probe(r, 0, begin);
}

static void reap_again(uv_timer_t *t);

/*
 * A server an earlier run left (RUNG.server.pid names it, and it is
 * still that process): SIGTERM to its group, SIGKILL after REAP_GRACE_MS,
 * asked again every REAP_POLL_MS on the loop, so that a signal to us is
 * still seen at once.
 */
static void reap(struct runner *r)
{
    char msg[1024];
    long pid = pidfile_find(r->pid_path, msg, sizeof(msg));
    uint64_t now = uv_now(&r->loop);

    if (pid < 0) {
        fail(r, files_exit_code(errno), "%s", msg);
        return;
    }
    if (pid == 0) {
        if (r->reaped > 0)
            say(r, "stopped server pid %ld left by an earlier run", r->reaped);
        ready_to_start(r);
        return;
    }
    if (r->reaped == 0) {
        r->reaped = pid;
        r->reap_since = now;
        kill((pid_t)-pid, SIGTERM);
    } else if (now - r->reap_since >= REAP_GRACE_MS + 1000) {
        say(r,
            "server pid %ld left by an earlier run is still there a "
            "second after SIGKILL; going on",
            pid);
        unlink(r->pid_path);
        ready_to_start(r);
        return;
    } else if (now - r->reap_since >= REAP_GRACE_MS && !r->reap_killed) {
        r->reap_killed = 1;
        kill((pid_t)-pid, SIGKILL);
    }
    uv_timer_start(&r->timer, reap_again, REAP_POLL_MS, 0);
}

static void reap_again(uv_timer_t *t)
{
    reap(t->data);
}

static void prepare_again(uv_timer_t *t);

/* The model is hashed: record it under files.lock (tried again every
 * LOCK_POLL_MS while another graveyard holds it), then a finished rung
 * prints its summary, and any other opens its log and stops a server an
 * earlier run left. */
static void prepare(struct runner *r)
{
    const struct hash_job *job = &r->model_hash;
    char msg[1024], warn[1024];
    int rc = record_made_with(r->o, r->version, job, r->hash_cached, warn,
                              sizeof(warn), msg, sizeof(msg));

    if (warn[0] != '\0')
        say(r, "%s", warn);
    if (rc == RECORD_BUSY) {
        if (uv_now(&r->loop) - r->lock_since < LOCK_WAIT_MS) {
            uv_timer_start(&r->timer, prepare_again, LOCK_POLL_MS, 0);
            return;
        }
        rundir_path(msg, sizeof(msg), r->o->rundir, RD_FILES_LOCK, NULL);
        fail(r, EXIT_FAILED, "'%s' was held by another process for %d s", msg,
             LOCK_WAIT_MS / 1000);
        return;
    }
    if (rc != 0) {
        fail(r, rc, "%s", msg);
        return;
    }
    if (r->complete) {
        /* the settings are the rows' settings: the summary stands */
        rc = record_print_done(r->o, msg, sizeof(msg));
        fail(r, rc, "%s", rc != 0 ? msg : "");
        return;
    }
    say(r, "%s, model sha256 %.12s...%s, %zu of %zu questions answered",
        r->version, job->hex, r->hash_cached ? " (cached)" : "", r->rows,
        r->qs.n);
    if (caplog_open(&r->log, r->log_path, r->o->log_cap, msg, sizeof(msg))) {
        fail(r, files_exit_code(errno), "%s", msg);
        return;
    }
    r->log_open = 1;
    reap(r);
}

static void prepare_again(uv_timer_t *t)
{
    prepare(t->data);
}

static void hashed(struct hash_job *job)
{
    struct runner *r = job->ctx;

    r->hashing = 0;
    if (r->ended || r->rung.state != RS_IDLE)
        return;
    if (job->err[0] != '\0') {
        fail(r, EXIT_USAGE, "%s", job->err);
        return;
    }
    r->lock_since = uv_now(&r->loop);
    prepare(r);
}

static void signal_cb(uv_signal_t *h, int signum)
{
    struct runner *r = h->data;
    struct rung_event ev;

    say(r, "stopping on signal %d; run the same command to resume", signum);
    memset(&ev, 0, sizeof(ev));
    ev.type = EV_STOP;
    ev.code = 128 + signum;
    feed(r, &ev);
}

/* ---- the rung's summary ------------------------------------------------ */

/* rows/<RUNG>.done, with what this process knows beyond the rows. */
static int write_done(struct runner *r)
{
    struct record_done d;

    d.rows_path = r->store.path;
    d.bytes = r->model_hash.bytes;
    d.server = r->version;
    d.gpu_before = r->gpu_before;
    d.gpu_loaded = r->gpu_loaded;
    d.gpu_name = r->gpu_name;
    d.log_path = r->log_path;
    d.rows_bytes_written = r->store.written;
    d.log_dropped = r->log.dropped;
    d.server_starts = r->rung.started;
    return record_done(r->o, &d);
}

/* GRAVEYARD_PROGRESS_FD: a ladder's pipe, if it really is one. It is
 * close-on-exec and non-blocking; -1 when absent or not a pipe. */
static int progress_fd(void)
{
    const char *s = getenv("GRAVEYARD_PROGRESS_FD");
    struct stat st;
    char *end;
    long fd;

    if (s == NULL)
        return -1;
    fd = strtol(s, &end, 10);
    if (*end != '\0' || end == s || fd < 3 || fd > 1024 ||
        fstat((int)fd, &st) != 0 || !S_ISFIFO(st.st_mode))
        return -1;
    if (fcntl((int)fd, F_SETFD, FD_CLOEXEC) != 0 ||
        fcntl((int)fd, F_SETFL, O_NONBLOCK) != 0)
        return -1;
    return (int)fd;
}

void run_opts_defaults(struct run_opts *o, int think)
{
    memset(o, 0, sizeof(*o));
    o->llama = "llama-server";
    o->think = think;
    o->max_tokens = think ? 4096 : 1024;
    o->ctx = think ? 8192 : 4096;
    o->ngl = 99;
    o->health_timeout_s = 600;
    o->idle_s = 120;
    o->grace_ms = 10000;
    o->log_cap = 4u << 20;
}

void run_opts_finish(struct run_opts *o)
{
    /* a CPU-only run of a big model is about 2 tokens a second: a faster
     * server never meets this */
    if (o->request_timeout_s == 0)
        o->request_timeout_s = o->idle_s + (o->max_tokens + 1) / 2;
}

/*
 * Everything before the loop, in order: check what was given (nothing
 * is created yet), take the rung's lock, open the rows file and read
 * what it answers already. Returns 0, or the exit status with the
 * message in msg.
 */
static int open_rung(struct runner *r, char *msg, size_t msgsize)
{
    const struct run_opts *o = r->o;
    struct grader_qset *answered;
    char path[4000];
    int code;

    /* check first, then create: bad input leaves nothing behind */
    if (questions_load_as(o->questions, o->limit,
                          grader_task_ref(o->task) == GRADER_REF_LETTER,
                          &r->qs, msg, msgsize))
        return EXIT_USAGE;
    if ((code = record_inputs(o, r->version, sizeof(r->version), msg,
                              msgsize)) != 0 ||
        (code = record_lock(o, &r->lock_fd, msg, msgsize)) != 0)
        return code;
    if (store_open(&r->store, o->rundir, o->rung, msg, msgsize) != 0)
        return files_exit_code(r->store.err);
    if (r->store.cut > 0)
        say(r, "cut back a torn last row (%zu bytes) in %s", r->store.cut,
            r->store.path);
    /* what the file answers already (every row checked on the way) */
    if (rowsfile_answered(r->store.path, o->rung, o->task, &answered, &r->rows,
                          &r->right, msg, msgsize) != 0)
        return EXIT_USAGE;
    r->had = xrealloc(NULL, r->qs.n ? r->qs.n : 1);
    r->ids = xrealloc(NULL, (r->qs.n ? r->qs.n : 1) * sizeof(*r->ids));
    for (size_t i = 0; i < r->qs.n; i++) {
        const char *id = r->qs.q[i].id;
        uint32_t qi;
        r->had[i] = grader_qset_find(answered, id, strlen(id), &qi) == 0;
        r->ids[i] = id;
    }
    grader_qset_free(answered);
    rung_init(&r->rung, r->qs.n, r->had, r->ids, r->width, o->idle_s,
              o->request_timeout_s);
    rundir_path(path, sizeof(path), o->rundir, RD_DONE, o->rung);
    r->complete = r->rows >= r->qs.n && access(path, F_OK) == 0;
    rundir_path(path, sizeof(path), o->rundir, RD_LOGS_DIR, NULL);
    if (!r->complete && files_mkdir(path, 0, msg, msgsize) != 0)
        return files_exit_code(errno);
    rundir_path(r->log_path, sizeof(r->log_path), o->rundir, RD_LOG, o->rung);
    rundir_path(r->pid_path, sizeof(r->pid_path), o->rundir, RD_PID, o->rung);
    return 0;
}

/* The loop, its timers and signals, and the model's hash (from the cache
 * or on the thread pool) to start the chain. 0, or -1 when libuv does
 * not start. */
static int start_loop(struct runner *r)
{
    static const int signums[3] = {SIGINT, SIGTERM, SIGHUP};
    char cache[4200];

    if (uv_loop_init(&r->loop) != 0)
        return -1;
    r->handles = 1;
    uv_timer_init(&r->loop, &r->timer);
    r->timer.data = r;
    uv_timer_init(&r->loop, &r->watch);
    r->watch.data = r;
    for (int i = 0; i < 3; i++) {
        uv_signal_init(&r->loop, &r->sigs[i]);
        r->sigs[i].data = r;
        /* under nohup the hangup is not ours to act on */
        if (signums[i] != SIGHUP || !cli_hup_ignored())
            uv_signal_start(&r->sigs[i], signal_cb, signums[i]);
    }
    rundir_path(cache, sizeof(cache), r->o->rundir, RD_HASH_CACHE, NULL);
    if (sha_cache_get(cache, r->o->model, r->model_hash.hex,
                      &r->model_hash.bytes)) {
        /* hashed before, and the file's size and mtime are unchanged */
        r->model_hash.ctx = r;
        r->hash_cached = 1;
        hashed(&r->model_hash);
    } else if (hash_file_async(&r->loop, &r->model_hash, r->o->model, hashed,
                               r) != 0) {
        fail(r, EXIT_FAILED, "cannot queue the model's hash");
    } else {
        r->hashing = 1;
    }
    return 0;
}

static void runner_free(struct runner *r)
{
    if (r->log_open)
        caplog_close(&r->log);
    if (r->lock_fd >= 0)
        close(r->lock_fd); /* releases the lock */
    store_close(&r->store);
    free(r->had);
    free(r->ids);
    questions_release(&r->qs);
    for (size_t i = 0; i < RUNG_MAX_WIDTH; i++) {
        reply_release(&r->slots[i].reply);
        sse_release(&r->slots[i].sse);
        buf_release(&r->slots[i].errbody);
        loopwatch_release(&r->slots[i].lw);
    }
    launch_free(r->env);
    if (r->handles) {
        uv_run(&r->loop, UV_RUN_DEFAULT); /* close callbacks */
        if (uv_loop_close(&r->loop) != 0)
            fprintf(stderr, "graveyard run %s: a handle was left open\n",
                    r->o->rung);
    }
    http_global_cleanup();
    free(r);
}

int runner_run(const struct run_opts *given)
{
    struct runner *r = xrealloc(NULL, sizeof(*r));
    struct grader_task *task = NULL;
    struct run_opts local = *given;
    const struct run_opts *o = &local;
    char msg[1024];
    int code;

    if (local.task == NULL) {
        if ((task = taskfile_load(TASKFILE_DEFAULT, msg, sizeof(msg))) == NULL)
            util_oom("the default task");
        local.task = task;
    }
    memset(r, 0, sizeof(*r));
    r->o = o;
    r->lock_fd = -1;
    r->log.fd = -1;
    r->gpu_before = r->gpu_loaded = -1;
    r->idle_ms = (uint64_t)o->idle_s * 1000;
    r->deadline_ms = (uint64_t)o->request_timeout_s * 1000;
    r->progress_fd = progress_fd();
    /* a write to a ladder that is gone must fail, not kill us */
    signal(SIGPIPE, SIG_IGN);
    r->width = o->parallel < 1 ? 1 : (size_t)o->parallel;
    for (size_t i = 0; i < RUNG_MAX_WIDTH; i++) {
        struct slot *sl = &r->slots[i];
        sl->r = r;
        reply_init(&sl->reply, REPLY_CAP);
        sse_init(&sl->sse, REPLY_CAP, sse_event, sl);
        buf_init(&sl->errbody, ERRBODY_CAP);
        loopwatch_init(&sl->lw);
    }
    if ((code = open_rung(r, msg, sizeof(msg))) != 0) {
        fprintf(stderr, "graveyard run %s: %s\n", o->rung, msg);
        runner_free(r);
        grader_task_free(task);
        return code;
    }
    if (start_loop(r) != 0) {
        fprintf(stderr, "graveyard run %s: libuv did not start\n", o->rung);
        runner_free(r);
        grader_task_free(task);
        return EXIT_FAILED;
    }
    uv_run(&r->loop, UV_RUN_DEFAULT);
    code = r->exit_code;
    if (r->err[0] != '\0')
        fprintf(stderr, "graveyard run %s: %s\n", o->rung, r->err);
    if (code == EXIT_OK && !r->complete && write_done(r) != 0)
        code = EXIT_FAILED;
    if (code != EXIT_OK && code != EXIT_USAGE)
        fprintf(stderr,
                "graveyard run %s: %zu of %zu questions answered; run the "
                "same command to resume\n",
                o->rung, r->rows, r->qs.n);
    runner_free(r);
    grader_task_free(task);
    return code;
}
