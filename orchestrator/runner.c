/*
 * runner.c - one rung's run as a chain of libuv callbacks.
 *
 * The order: check what was given without creating anything (questions,
 * model, the binary and its --version); take the rung's lock; read the
 * rows (store); hash the model off the loop (or find it in the cache) and
 * check the manifest, for a finished rung too; a finished rung prints its
 * summary and stops there. Else stop a server an earlier run left, ask
 * nvidia-smi what is in use, start the server, poll /health, ask, append,
 * and at the end stop the server and write rows/<RUNG>.done. Every failure
 * ends in finish(), which stops the server first; and the server dies
 * with this process however it dies (spawn.h). No child is waited for
 * without a time limit.
 */
#include "runner.h"

#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "../report/emit.h"
#include "../grader/extract.h"
#include "../grader/rows.h"
#include "../grader/stats.h"
#include "caplog.h"
#include "cli.h"
#include "config.h"
#include "../rundir/files.h"
#include "gpu.h"
#include "hash.h"
#include "http.h"
#include "../rundir/ladderfile.h"
#include "../rundir/manifest.h"
#include "../rundir/outfile.h"
#include "../rundir/pidfile.h"
#include "proc.h"
#include "progress.h"
#include "questions.h"
#include "redact.h"
#include "reply.h"
#include "spawn.h"
#include "sse.h"
#include "../rundir/rundir.h"
#include "../rundir/store.h"
#include "rowsfile.h"

#define MAX_DEATHS     3 /* deaths on one question before an error row */
#define MAX_STREAK     3 /* questions in a row with deaths: give up */
#define HEALTH_POLL_MS 250
#define VERSION_MS     30000 /* --version may take this long */
#define EXIT_WAIT_MS   1000  /* after a broken stream, for the exit */
#define ERRBODY_CAP    65536 /* an HTTP error's body kept */
/* a reply's content and reasoning, escaped, leave this much of a row for
 * the other fields (the id is at most 256 bytes, 1.5 KiB escaped) */
#define ROW_SLACK (64u << 10)
#define REPLY_CAP (GRADER_ROW_MAX - ROW_SLACK)

enum phase { P_PREPARE, P_STARTING, P_ASKING, P_STOPPING, P_DONE };

struct runner {
    const struct run_opts *o;
    uv_loop_t loop;
    struct questions qs;
    struct store store;
    struct grader_qset *answered; /* ids the rows file had at the start */
    size_t rows, right;           /* rows in the file, graded right */
    struct caplog log;
    int log_open;
    struct http *http;
    struct http_req *req; /* the request in flight */
    struct proc *server;
    struct proc *probe;                   /* nvidia-smi in flight */
    void (*after_probe)(struct runner *); /* what follows it */
    int probe_loaded;                     /* it asks for gpu_loaded */
    uv_timer_t timer;    /* health polls; the wait for an exit */
    uv_timer_t watch;    /* a request's idle limit and deadline */
    uv_signal_t sigs[3]; /* SIGINT, SIGTERM, SIGHUP (the terminal went) */
    int handles;         /* the loop's handles are initialised */
    struct hash_job model_hash;
    int hashing;     /* an async hash is in flight */
    int hash_cached; /* it came from RUNDIR/sha256.cache */
    int lock_fd;     /* RUNDIR/locks/RUNG.lock, held while we run */
    int complete;    /* every question answered and .done written */
    char cache_path[4200];
    char version[256];
    char url[64];
    int port, port_tries;
    enum phase phase;
    size_t next;        /* question being asked */
    size_t current;     /* question the attempt count belongs to */
    int attempts;       /* of this question */
    int streak;         /* questions in a row that saw a server fault */
    int died_here;      /* this question saw one */
    int server_dead;    /* the server's exit was reported */
    int ready;          /* /health said ok */
    int retry_on_exit;  /* a failed request waits for the exit */
    int awaiting_exit;  /* a broken stream: did the server die? */
    int hung, overtime; /* the watch cancelled the request, and why */
    const char *death;  /* "died" or "hung": the last server fault */
    const char *fault;  /* a refused stream's error_kind, or NULL */
    char fault_msg[512];
    uint64_t started_ms, last_token_ms, health_deadline;
    uint64_t idle_ms, deadline_ms;
    unsigned long progress_seen;
    struct reply reply;
    struct sse sse;
    long http_status;
    struct buf errbody; /* an HTTP error's body */
    int exit_code;
    char err[1024];
    char pid_path[4200], log_path[4200];
    unsigned long long asked;
    long gpu_before, gpu_loaded; /* MiB from nvidia-smi, -1 unknown */
    char gpu_name[128];          /* nvidia-smi's name, or "" */
    int progress_fd;             /* a ladder's pipe, or -1 */
    size_t asked_here;           /* rows added by this process */
    uint64_t first_ask_ms;
    int server_starts;
    char **env;          /* the server's environment */
    char pool[48][1024]; /* the server's templated arguments */
};

static void start_server(struct runner *r);
static void ask(struct runner *r);
static void finish(struct runner *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

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
        r->req = NULL;
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

/* The server is gone (or never was): end the loop. */
static void finished(struct runner *r)
{
    r->phase = P_DONE;
    if (r->server != NULL) {
        drop_server(r);
        unlink(r->pid_path);
    }
    close_all(r);
}

/* Stop everything; the exit status is code. The server, if running, is
 * stopped first and the loop ends when it is gone. */
static void finish(struct runner *r, int code, const char *fmt, ...)
{
    va_list ap;

    if (r->phase == P_DONE || r->phase == P_STOPPING) {
        if (code != 0 && r->exit_code == 0)
            r->exit_code = code;
        return;
    }
    r->exit_code = code;
    if (fmt != NULL) {
        va_start(ap, fmt);
        vsnprintf(r->err, sizeof(r->err), fmt, ap);
        va_end(ap);
    }
    uv_timer_stop(&r->timer);
    uv_timer_stop(&r->watch);
    if (r->server != NULL && !r->server_dead) {
        r->phase = P_STOPPING;
        proc_stop(r->server, r->o->grace_ms);
        return; /* server_exit comes back to finished() */
    }
    finished(r);
}

/* ---- rows -------------------------------------------------------------- */

static json_t *str_or_null(const struct buf *b)
{
    return b->len > 0 ? json_stringn(b->p, b->len) : json_null();
}

static json_t *num_or_null(double v)
{
    return v >= 0 ? json_real(v) : json_null();
}

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
    r->asked_here++;
    p.done = (long)r->rows;
    p.total = (long)r->qs.n;
    p.right = (long)r->right;
    p.tps = r->reply.decode_tps > 0 ? r->reply.decode_tps : 0.0;
    p.sec_per_q = (double)(uv_now(&r->loop) - r->first_ask_ms) / 1000.0 /
                  (double)r->asked_here;
    n = progress_format(&p, line, sizeof(line));
    if (write(r->progress_fd, line, n) < 0 && errno != EAGAIN)
        r->progress_fd = -1;
}

/* The row for the current question as text (new, free()); kind and error
 * are NULL for an answer. *right says how it was graded. */
static char *row_text(struct runner *r, const char *kind, const char *error,
                      int *right)
{
    const struct question *q = &r->qs.q[r->next];
    struct grader_num said, ref;
    long long tokens = reply_tokens(&r->reply);
    int has = !error &&
              grader_extract(r->reply.content.p, r->reply.content.len, &said);
    char *text;
    json_t *row;

    grader_num_parse(q->answer, strlen(q->answer), &ref);
    *right = has && strcmp(said.s, ref.s) == 0;
    row = json_pack(
        "{s:s,s:s,s:s,s:o,s:o,s:o,s:b,s:o,s:o,s:o,s:o,s:o,s:b,s:o,s:o,s:o,"
        "s:o,s:i,s:I}",
        "id", q->id, "rung", r->o->rung, "reference", q->answer, "content",
        error ? json_null() : str_or_null(&r->reply.content),
        "reasoning_content",
        error ? json_null() : str_or_null(&r->reply.reasoning),
        "finish_reason",
        r->reply.finish[0] ? json_string(r->reply.finish) : json_null(),
        "truncated", !error && reply_truncated(&r->reply, r->o->max_tokens),
        "completion_tokens", tokens >= 0 ? json_integer(tokens) : json_null(),
        "decode_tps", num_or_null(r->reply.decode_tps), "error",
        error ? json_string(error) : json_null(), "error_kind",
        kind ? json_string(kind) : json_null(), "extracted",
        has ? emit_number(said.s) : json_null(), "right", *right,
        "prompt_tokens",
        r->reply.prompt_n >= 0 ? json_integer(r->reply.prompt_n) : json_null(),
        "prompt_ms", num_or_null(r->reply.prompt_ms), "predicted_ms",
        num_or_null(r->reply.predicted_ms), "http_status",
        r->http_status ? json_integer(r->http_status) : json_null(),
        "attempts", r->attempts, "latency_ms",
        (json_int_t)(uv_now(&r->loop) - r->started_ms));
    if (row == NULL)
        util_oom("a row");
    text = json_dumps(row, JSON_COMPACT | JSON_REAL_PRECISION(10));
    json_decref(row);
    if (text == NULL)
        util_oom("a row");
    return text;
}

/* Append the row for the current question; kind and error are NULL for an
 * answer. */
static int append_row(struct runner *r, const char *kind, const char *error)
{
    int right;
    char msg[1024], *text = row_text(r, kind, error, &right);
    size_t len = strlen(text);

    /* the reply's cap leaves room for the rest, so this cannot happen;
     * if it did, the reader would refuse the row and the rung for ever */
    if (len + 1 > GRADER_ROW_MAX) {
        free(text);
        text = row_text(r, "too_long",
                        "the row would be longer than the row reader's cap",
                        &right);
        len = strlen(text);
    }
    if (store_append(&r->store, text, len, msg, sizeof(msg)) != 0) {
        free(text);
        finish(r, files_exit_code(r->store.err), "%s", msg);
        return -1;
    }
    free(text);
    r->rows++;
    r->right += (size_t)right;
    progress(r);
    return 0;
}

/* Whether the rows file had a row for id when the run started (rows added
 * since are behind r->next). */
static int answered_before(const struct runner *r, const char *id)
{
    uint32_t q;

    return grader_qset_find(r->answered, id, strlen(id), &q) == 0;
}

/* Move to the next question not yet answered, or finish the rung. */
static void next_question(struct runner *r)
{
    while (r->next < r->qs.n && answered_before(r, r->qs.q[r->next].id))
        r->next++;
    if (r->next == r->qs.n) {
        finish(r, EXIT_OK, NULL);
        return;
    }
    /* a new question starts its count; after a restart the same one goes
     * on with its attempts */
    if (r->next != r->current) {
        r->current = r->next;
        r->attempts = 0;
        r->died_here = 0;
    }
    ask(r);
}

/* A row for the current question (an answer when kind is NULL), then the
 * next question. */
static void answered(struct runner *r, const char *kind, const char *error)
{
    if (append_row(r, kind, error) != 0)
        return;
    if (!r->died_here)
        r->streak = 0;
    r->asked++;
    if (!r->o->quiet && r->asked % 25 == 0)
        say(r, "%zu/%zu answered", r->rows, r->qs.n);
    r->next++;
    next_question(r);
}

/* ---- asking ------------------------------------------------------------ */

static int sse_event(void *ctx, const char *data, size_t len)
{
    struct runner *r = ctx;
    int rc =
        reply_event(&r->reply, data, len, r->fault_msg, sizeof(r->fault_msg));

    if (rc != 0) {
        r->fault = reply_error_kind(rc);
        return 1;
    }
    /* progress is counted in tokens: comments, empty events and a
     * byte-at-a-time trickle do not keep a request alive */
    if (r->reply.progress != r->progress_seen) {
        r->progress_seen = r->reply.progress;
        r->last_token_ms = uv_now(&r->loop);
    }
    return 0;
}

static int body_cb(void *ctx, long status, const char *p, size_t n)
{
    struct runner *r = ctx;
    int rc;

    r->http_status = status;
    if (status >= 400) {
        /* an error body is JSON, not SSE: its first ERRBODY_CAP bytes are
         * kept for the row (a message is short; more is noise) */
        size_t room = ERRBODY_CAP - r->errbody.len;
        return buf_add(&r->errbody, p, n < room ? n : room) == 0 ? 0 : 1;
    }
    rc = sse_feed(&r->sse, p, n);
    if (rc == SSE_ETOOBIG && r->fault == NULL) {
        r->fault = "too_long";
        snprintf(r->fault_msg, sizeof(r->fault_msg),
                 "a stream line or event longer than %u bytes",
                 (unsigned)REPLY_CAP);
    }
    return rc == 0 ? 0 : 1;
}

/* The watch: no token for idle_ms (hung), or the deadline passed. */
static void watch_cb(uv_timer_t *t)
{
    struct runner *r = t->data;
    uint64_t now = uv_now(&r->loop);
    uint64_t idle_at = r->last_token_ms + r->idle_ms;
    uint64_t late_at = r->started_ms + r->deadline_ms;

    if (r->req == NULL)
        return;
    if (now >= idle_at)
        r->hung = 1;
    else if (now >= late_at)
        r->overtime = 1;
    else {
        uv_timer_start(&r->watch, watch_cb,
                       (idle_at < late_at ? idle_at : late_at) - now, 0);
        return;
    }
    http_cancel(r->http, r->req); /* request_done runs now */
}

/* The server is gone, having died (or hung and been stopped) on this
 * question: restart it and ask again, or after MAX_DEATHS write the
 * question's error row. */
static void server_died(struct runner *r)
{
    char last[512], error[900];
    int hung = strcmp(r->death, "hung") == 0;

    r->retry_on_exit = r->awaiting_exit = 0;
    snprintf(last, sizeof(last), "%s", proc_last_line(r->server));
    drop_server(r);
    if (!r->died_here) {
        r->died_here = 1;
        if (++r->streak >= MAX_STREAK) {
            finish(r, EXIT_FAILED,
                   "the server %s on %d questions in a row, the last "
                   "'%s': %s",
                   hung ? "hung" : "died", MAX_STREAK, r->qs.q[r->next].id,
                   last);
            return;
        }
    }
    if (r->attempts >= MAX_DEATHS) {
        if (hung)
            snprintf(error, sizeof(error),
                     "no token from the server for %llu s, %d times (it "
                     "was restarted each time); its last log line: %.600s",
                     (unsigned long long)(r->idle_ms / 1000), MAX_DEATHS,
                     last);
        else
            snprintf(error, sizeof(error),
                     "the server died %d times on this question; its last "
                     "log line: %.600s",
                     MAX_DEATHS, last);
        say(r, "%s: %s", r->qs.q[r->next].id, error);
        /* an error row for it, then the next question on a new server */
        r->http_status = 0;
        reply_release(&r->reply);
        reply_init(&r->reply, REPLY_CAP);
        if (append_row(r, r->death, error) != 0)
            return;
        r->next++;
    } else {
        say(r, "the server %s on %s (attempt %d): %s; restarting",
            hung ? "hung" : "died", r->qs.q[r->next].id, r->attempts, last);
    }
    start_server(r);
}

/* A broken stream: after EXIT_WAIT_MS the server has not exited. */
static void exit_wait_cb(uv_timer_t *t)
{
    struct runner *r = t->data;

    if (!r->awaiting_exit || r->phase != P_ASKING)
        return;
    r->awaiting_exit = 0;
    /* alive: not restarted, but a fault in the streak all the same */
    if (!r->died_here) {
        r->died_here = 1;
        if (++r->streak >= MAX_STREAK) {
            finish(r, EXIT_FAILED,
                   "the stream broke off on %d questions in a row, the "
                   "last '%s'",
                   MAX_STREAK, r->qs.q[r->next].id);
            return;
        }
    }
    answered(r, "cut",
             "the stream broke off before the answer ended, and the "
             "server stayed up");
}

static void request_done(void *ctx, long status, const char *err)
{
    struct runner *r = ctx;
    enum reply_outcome out = reply_outcome(&r->reply);
    char error[800];

    r->req = NULL;
    uv_timer_stop(&r->watch);
    if (r->phase != P_ASKING)
        return;
    if (r->hung) {
        /* stuck: it is stopped, and asked again on a new one */
        r->hung = 0;
        r->death = "hung";
        r->retry_on_exit = 1;
        if (r->server_dead)
            server_died(r);
        else
            proc_stop(r->server, r->o->grace_ms);
        return;
    }
    if (r->overtime) {
        r->overtime = 0;
        snprintf(error, sizeof(error),
                 "no whole answer within the request's deadline of %llu s",
                 (unsigned long long)(r->deadline_ms / 1000));
        answered(r, "deadline", error);
        return;
    }
    if (r->fault != NULL) {
        /* the server is alive and said something we cannot take: a row
         * that names it, and the same server goes on */
        answered(r, r->fault, r->fault_msg);
        return;
    }
    if (status >= 400) {
        /* the server answered with an error: an error row, not a retry */
        json_t *body = json_loadb(r->errbody.p ? r->errbody.p : "",
                                  r->errbody.len, 0, NULL);
        const char *m = json_string_value(
            json_object_get(json_object_get(body, "error"), "message"));
        snprintf(error, sizeof(error), "HTTP %ld: %.500s", status,
                 m ? m : (r->errbody.len ? r->errbody.p : ""));
        json_decref(body);
        answered(r, "http", error);
        return;
    }
    if (err == NULL && !sse_pending(&r->sse) && out == REPLY_FINISHED) {
        answered(r, NULL, NULL);
        return;
    }
    if (err == NULL && out == REPLY_ERROR) {
        snprintf(error, sizeof(error), "stream error: %.500s", r->reply.error);
        answered(r, "stream_error", error);
        return;
    }
    if (err == NULL) {
        answered(r, "bad_stream",
                 "the stream ended without a finish_reason or [DONE]");
        return;
    }
    /* the connection broke: a server that died does that. Retry from its
     * exit callback; if it has not exited within EXIT_WAIT_MS, it is up
     * and the question gets a "cut" row instead */
    r->death = "died";
    if (r->server_dead) {
        server_died(r);
        return;
    }
    r->awaiting_exit = 1;
    uv_timer_start(&r->timer, exit_wait_cb, EXIT_WAIT_MS, 0);
}

static char *request_body(struct runner *r, const struct question *q)
{
    char *prompt = questions_prompt_for(
             r->o->prompt ? r->o->prompt : questions_prompt, q),
         *text;
    json_t *body = json_pack(
        "{s:[{s:s,s:s}],s:b,s:i,s:i,s:b,s:I,s:{s:b}}", "messages", "role",
        "user", "content", prompt, "stream", 1, "temperature", 0, "seed", 0,
        "cache_prompt", 0, "max_tokens", (json_int_t)r->o->max_tokens,
        "chat_template_kwargs", "enable_thinking", r->o->think);

    free(prompt);
    if (body == NULL)
        util_oom("a request");
    if (r->o->request != NULL)
        json_object_update(body, r->o->request);
    text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    if (text == NULL)
        util_oom("a request");
    return text;
}

static void ask(struct runner *r)
{
    char url[128], *body;

    r->phase = P_ASKING;
    r->attempts++;
    r->http_status = 0;
    r->fault = NULL;
    r->hung = r->overtime = 0;
    buf_release(&r->errbody);
    reply_release(&r->reply);
    reply_init(&r->reply, REPLY_CAP);
    sse_release(&r->sse);
    sse_init(&r->sse, REPLY_CAP, sse_event, r);
    r->progress_seen = 0;
    r->started_ms = r->last_token_ms = uv_now(&r->loop);
    if (r->first_ask_ms == 0)
        r->first_ask_ms = r->started_ms;
    body = request_body(r, &r->qs.q[r->next]);
    snprintf(url, sizeof(url), "%s/v1/chat/completions", r->url);
    r->req = http_request(r->http, url, body, 0, body_cb, request_done, r);
    free(body);
    if (r->req == NULL) {
        finish(r, EXIT_FAILED, "cannot start a request to %s", url);
        return;
    }
    uv_timer_start(&r->watch, watch_cb,
                   r->idle_ms < r->deadline_ms ? r->idle_ms : r->deadline_ms,
                   0);
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
    if (r->phase != P_DONE && r->phase != P_STOPPING)
        next(r);
}

/* Ask nvidia-smi (killed after probe_ms()) what is in use, then next.
 * Without nvidia-smi, next at once. */
static void probe_gpu(struct runner *r, int loaded,
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

    (void)err;
    if (r->phase != P_STARTING || r->ready)
        return;
    if (status == 200) {
        r->ready = 1;
        say(r, "server ready on port %d (pid %d)", r->port,
            proc_pid(r->server));
        if (r->server_starts == 1)
            probe_gpu(r, 1, next_question);
        else
            next_question(r);
        return;
    }
    if (uv_now(&r->loop) > r->health_deadline) {
        finish(r, EXIT_FAILED,
               "the server was not ready after %ld s; its last log line: %s",
               r->o->health_timeout_s, proc_last_line(r->server));
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
        finish(r, EXIT_FAILED, "cannot poll %s", url);
}

static void server_exit(void *ctx, long long status, int sig)
{
    struct runner *r = ctx;
    const char *last;

    r->server_dead = 1;
    switch (r->phase) {
    case P_STOPPING:
        finished(r);
        return;
    case P_STARTING:
        if (r->ready) {
            /* it died while nvidia-smi was asked: a death on the next
             * question, which finds no server */
            if (r->probe != NULL) {
                proc_free(r->probe);
                r->probe = NULL;
            }
            next_question(r);
            return;
        }
        last = proc_last_line(r->server);
        uv_timer_stop(&r->timer);
        if (strstr(last, "bind") && ++r->port_tries < 5) {
            say(r, "port %d is taken; trying another", r->port);
            drop_server(r);
            start_server(r);
            return;
        }
        finish(r, EXIT_FAILED,
               "the server exited (status %lld, signal %d) before it was "
               "ready; its last log line: %s",
               status, sig, last);
        return;
    case P_ASKING:
        if (r->retry_on_exit || r->awaiting_exit) {
            uv_timer_stop(&r->timer);
            server_died(r);
        }
        /* else: the request in flight fails, and request_done sees it */
        return;
    default:
        return;
    }
}

/* A free port on 127.0.0.1, from the kernel. */
static int free_port(void)
{
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;

    if (fd < 0)
        return -1;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}

/* Replace {model} {port} {ngl} {ctx} {seed} {gpu} in s into out. */
static void expand(const struct runner *r, const char *s, const char *port,
                   const char *ctx, const char *ngl, char *out, size_t size)
{
    static const char *const keys[] = {"{model}", "{port}", "{ngl}",
                                       "{ctx}",   "{seed}", "{gpu}"};
    const char *vals[6] = {r->o->model, port, ngl,
                           ctx,         "0",  r->o->gpu ? r->o->gpu : ""};
    size_t n = 0, i;

    while (*s && n + 1 < size) {
        for (i = 0; i < 6; i++)
            if (strncmp(s, keys[i], strlen(keys[i])) == 0)
                break;
        if (i < 6) {
            n += (size_t)snprintf(out + n, size - n, "%s", vals[i]);
            if (n >= size)
                n = size - 1;
            s += strlen(keys[i]);
        } else {
            out[n++] = *s++;
        }
    }
    out[n] = '\0';
}

/*
 * The server's arguments from the config's template (checked by
 * config_check_argv_template: {model} and {port} present, --host only
 * 127.0.0.1). With --ngl auto, a "{ngl}" item goes, and the flag before
 * it. The server always binds 127.0.0.1: without --host in the template,
 * it is added.
 */
static size_t template_argv(struct runner *r, const char **argv, size_t n,
                            const char *port, const char *ctx, const char *ngl)
{
    json_t *item;
    size_t i, host = 0;

    json_array_foreach(r->o->argv_template, i, item)
    {
        const char *t = json_string_value(item);
        if (i >= 48 || n >= 58)
            break;
        if (r->o->ngl < 0 && strcmp(t, "{ngl}") == 0) {
            if (n > 1 && argv[n - 1][0] == '-')
                n--;
            continue;
        }
        host |= strcmp(t, "--host") == 0;
        expand(r, t, port, ctx, ngl, r->pool[i], sizeof(r->pool[i]));
        argv[n++] = r->pool[i];
    }
    if (!host) {
        argv[n++] = "--host";
        argv[n++] = "127.0.0.1";
    }
    return n;
}

static int env_named(const char *entry, const char *name)
{
    size_t n = strlen(name);

    return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

/*
 * The server's environment: ours, less graveyard's own variables (the
 * ladder's pid and progress fd are not the server's business), with
 * CUDA_VISIBLE_DEVICES for --gpu and the config's templates expanded (a
 * variable that needs a GPU when none was given is left out).
 */
static char **server_env(const struct runner *r)
{
    extern char **environ;
    size_t n = 0, k = 0, i;
    char **env, value[1024];
    const char *key;
    json_t *v;

    while (environ[n])
        n++;
    env = xrealloc(NULL, (n + json_object_size(r->o->env_template) + 2) *
                             sizeof(*env));
    for (i = 0; i < n; i++) {
        const char *e = environ[i];
        int drop = strncmp(e, "GRAVEYARD_", 10) == 0 ||
                   (r->o->gpu && env_named(e, "CUDA_VISIBLE_DEVICES"));
        json_object_foreach(r->o->env_template, key, v) drop |=
            env_named(e, key);
        if (!drop)
            env[k++] = xstrdup(e);
    }
    /* the template's own CUDA_VISIBLE_DEVICES ("1{gpu}") wins */
    if (r->o->gpu != NULL &&
        json_object_get(r->o->env_template, "CUDA_VISIBLE_DEVICES") == NULL) {
        size_t len = strlen(r->o->gpu) + 22;
        env[k] = xrealloc(NULL, len);
        snprintf(env[k++], len, "CUDA_VISIBLE_DEVICES=%s", r->o->gpu);
    }
    json_object_foreach(r->o->env_template, key, v)
    {
        const char *t = json_string_value(v);
        size_t len;
        if (t == NULL || (r->o->gpu == NULL && strstr(t, "{gpu}")))
            continue;
        expand(r, t, "", "", "", value, sizeof(value));
        len = strlen(key) + strlen(value) + 2;
        env[k] = xrealloc(NULL, len);
        snprintf(env[k++], len, "%s=%s", key, value);
    }
    env[k] = NULL;
    return env;
}

static void start_server(struct runner *r)
{
    char port[16], ctx[32], ngl[16], msg[512], note[96];
    const char *argv[64];
    struct proc_opts po;
    size_t n = 0, i;

    r->port = free_port();
    snprintf(port, sizeof(port), "%d", r->port);
    snprintf(ctx, sizeof(ctx), "%ld", r->o->ctx);
    snprintf(ngl, sizeof(ngl), "%d", r->o->ngl);
    snprintf(r->url, sizeof(r->url), "http://127.0.0.1:%d", r->port);
    argv[n++] = r->o->llama;
    if (r->o->argv_template != NULL) {
        n = template_argv(r, argv, n, port, ctx, ngl);
    } else {
        argv[n++] = "-m";
        argv[n++] = r->o->model;
        argv[n++] = "--host";
        argv[n++] = "127.0.0.1";
        argv[n++] = "--port";
        argv[n++] = port;
        argv[n++] = "-c";
        argv[n++] = ctx;
        argv[n++] = "-np";
        argv[n++] = "1";
        argv[n++] = "--seed";
        argv[n++] = "0";
        if (r->o->ngl >= 0) {
            argv[n++] = "-ngl";
            argv[n++] = ngl;
        }
    }
    for (i = 0; i < r->o->n_server_args && n < 62; i++)
        argv[n++] = r->o->server_args[i];
    argv[n] = NULL;
    r->server_dead = 0;
    r->ready = 0;
    r->retry_on_exit = r->awaiting_exit = 0;
    r->server_starts++;
    r->phase = P_STARTING;
    snprintf(note, sizeof(note), "[graveyard: server start %d on port %d]\n",
             r->server_starts, r->port);
    caplog_write(&r->log, note, strlen(note));
    memset(&po, 0, sizeof(po));
    po.argv = (char *const *)argv;
    po.env = r->env;
    po.log = &r->log;
    po.fd3 = SPAWN_CLOSED;
    po.new_session = 1;
    /* a server must not outlive us, however we die: SIGKILL, since nobody
     * is left to wait for a graceful stop */
    po.pdeathsig = SIGKILL;
    r->server = proc_start(&r->loop, &po, server_exit, r, msg, sizeof(msg));
    if (r->server == NULL) {
        finish(r, EXIT_FAILED, "%s", msg);
        return;
    }
    if (pidfile_write(r->pid_path, proc_pid(r->server), msg, sizeof(msg)))
        say(r, "%s", msg);
    r->health_deadline =
        uv_now(&r->loop) + (uint64_t)r->o->health_timeout_s * 1000;
    uv_timer_start(&r->timer, health_poll, 100, 0);
}

/* ---- before the server: hash, manifest, stale server ------------------ */

static json_t *settings(struct runner *r, const char *qhash)
{
    json_t *req = json_pack("{s:i,s:i,s:b,s:I,s:b}", "temperature", 0, "seed",
                            0, "cache_prompt", 0, "max_tokens",
                            (json_int_t)r->o->max_tokens, "enable_thinking",
                            r->o->think);

    if (r->o->request != NULL)
        json_object_set(req, "extra", r->o->request);
    return json_pack("{s:s,s:{s:s,s:s},s:s,s:o,s:{s:s}}", "graveyard",
                     GRAVEYARD_VERSION, "questions", "path", r->o->questions,
                     "sha256", qhash, "prompt",
                     r->o->prompt ? r->o->prompt : questions_prompt, "request",
                     req, "server", "version", r->version);
}

/*
 * Record what this rung is made with, or check it for a finished rung:
 * the sha256 cache, the manifest and ladder.tsv, each written only when
 * something in it is new. Several graveyards may share a run folder (a
 * ladder on several GPUs, shards): these read-modify-write files are
 * changed under one lock, RUNDIR/locks/files.lock. Returns 0 or the exit
 * status.
 */
static int record(struct runner *r, const struct hash_job *job, char *msg,
                  size_t msgsize)
{
    static struct hash_job qjob; /* 4 KB of path: not on the stack */
    static struct lrow lrow;
    json_t *shared, *rung;
    char path[4200];
    int fd, rc, changed;

    rundir_path(path, sizeof(path), r->o->rundir, RD_FILES_LOCK, NULL);
    fd = files_open(path, O_RDWR | O_CREAT, 0644, msg, msgsize);
    if (fd < 0)
        return files_exit_code(errno);
    /* the others hold it for milliseconds */
    if (flock(fd, LOCK_EX) != 0) {
        snprintf(msg, msgsize, "cannot lock '%.900s': %s", path,
                 strerror(errno));
        close(fd);
        return EXIT_FAILED;
    }
    if (!r->hash_cached &&
        sha_cache_put(r->cache_path, r->o->model, job->hex, msg, msgsize))
        say(r, "%s", msg); /* only a cache: the run goes on */
    rc = EXIT_USAGE;
    if (hash_file(&qjob, r->o->questions) != 0) {
        snprintf(msg, msgsize, "%s", qjob.err);
        goto out;
    }
    shared = settings(r, qjob.hex);
    rung = json_pack(
        "{s:s,s:I,s:s,s:I,s:i,s:o}", "model", r->o->model, "bytes",
        (json_int_t)job->bytes, "sha256", job->hex, "ctx",
        (json_int_t)r->o->ctx, "ngl", r->o->ngl, "server_args",
        redact_args((char *const *)r->o->server_args, r->o->n_server_args));
    if (r->o->argv_template)
        json_object_set(rung, "server_argv", r->o->argv_template);
    if (r->o->env_template)
        json_object_set_new(rung, "server_env",
                            redact_env(r->o->env_template));
    changed = manifest_check(r->o->rundir, r->o->rung, shared, rung,
                             r->o->force, msg, msgsize);
    json_decref(shared);
    json_decref(rung);
    if (changed != 0)
        goto out; /* a setting differs: bad input, whatever the rung's state */
    snprintf(lrow.rung, sizeof(lrow.rung), "%s", r->o->rung);
    snprintf(lrow.file, sizeof(lrow.file), "%s", r->o->model);
    lrow.bytes = job->bytes;
    memcpy(lrow.sha256, job->hex, sizeof(lrow.sha256));
    rundir_path(path, sizeof(path), r->o->rundir, RD_LADDER_TSV, NULL);
    rc = ladderfile_upsert(path, &lrow, msg, msgsize) != 0
             ? files_exit_code(errno)
             : 0;
out:
    close(fd); /* releases the lock */
    return rc;
}

/* An already finished rung: print its summary, start nothing. */
static int print_done(const struct runner *r)
{
    char path[4200], line[4096];
    FILE *f;

    rundir_path(path, sizeof(path), r->o->rundir, RD_DONE, r->o->rung);
    if ((f = fopen(path, "r")) == NULL)
        return -1;
    if (fgets(line, sizeof(line), f) != NULL)
        fputs(line, stdout);
    fclose(f);
    return 0;
}

static void first_start(struct runner *r)
{
    start_server(r);
}

static void hashed(struct hash_job *job)
{
    struct runner *r = job->ctx;
    char msg[1024];
    long stale;
    int rc;

    r->hashing = 0;
    if (r->phase != P_PREPARE)
        return;
    if (job->err[0] != '\0') {
        finish(r, EXIT_USAGE, "%s", job->err);
        return;
    }
    if ((rc = record(r, job, msg, sizeof(msg))) != 0) {
        finish(r, rc, "%s", msg);
        return;
    }
    if (r->complete) {
        /* the settings are the rows' settings: the summary stands */
        print_done(r);
        finish(r, EXIT_OK, NULL);
        return;
    }
    say(r, "%s, model sha256 %.12s...%s, %zu of %zu questions answered",
        r->version, job->hex, r->hash_cached ? " (cached)" : "", r->rows,
        r->qs.n);
    if (caplog_open(&r->log, r->log_path, r->o->log_cap, msg, sizeof(msg))) {
        finish(r, files_exit_code(errno), "%s", msg);
        return;
    }
    r->log_open = 1;
    stale = pidfile_reap(r->pid_path, 5000, msg, sizeof(msg));
    if (stale < 0) {
        finish(r, files_exit_code(errno), "%s", msg);
        return;
    }
    if (stale > 0)
        say(r, "stopped server pid %ld left by an earlier run", stale);
    r->http = http_new(&r->loop);
    if (r->http == NULL) {
        finish(r, EXIT_FAILED, "libcurl did not start");
        return;
    }
    r->env = server_env(r);
    probe_gpu(r, 0, first_start);
}

static void signal_cb(uv_signal_t *h, int signum)
{
    struct runner *r = h->data;

    say(r, "stopping on signal %d; run the same command to resume", signum);
    finish(r, 128 + signum, NULL);
}

/* ---- the rung's summary ------------------------------------------------ */

/* Write rows/<RUNG>.done from the rows (the grader computes it) and print
 * the summary line. */
static int write_done(struct runner *r)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *g = NULL;
    struct grader_summary sum;
    struct grader_error err;
    char path[4200], msg[1024] = "", *text;
    struct rusage ru;
    json_t *done;
    int rc = -1;

    if (qs == NULL ||
        rowsfile_read(qs, r->o->rung, r->store.path, 0, &g, &err) != 0 ||
        grader_summarize(g, &sum) != 0) {
        if (qs != NULL && g == NULL)
            grader_error_format(&err, msg, sizeof(msg));
        fprintf(stderr, "graveyard run %s: %s\n", r->o->rung, msg);
        goto out;
    }
    done = json_pack(
        "{s:s,s:I,s:I,s:I,s:I,s:o,s:o,s:I,s:s}", "rung", r->o->rung, "n",
        (json_int_t)sum.n, "right", (json_int_t)sum.right, "errors",
        (json_int_t)sum.errors, "truncated", (json_int_t)sum.truncated,
        "median_decode_tps",
        sum.median_tps >= 0 ? json_real(sum.median_tps) : json_null(),
        "mean_tokens",
        sum.mean_tokens >= 0 ? json_real(sum.mean_tokens) : json_null(),
        "bytes", (json_int_t)r->model_hash.bytes, "server", r->version);
    /* GPU memory (null without nvidia-smi) and what the load log says */
    json_object_set_new(done, "gpu_mib_before",
                        r->gpu_before >= 0 ? json_integer(r->gpu_before)
                                           : json_null());
    json_object_set_new(done, "gpu_mib_loaded",
                        r->gpu_loaded >= 0 ? json_integer(r->gpu_loaded)
                                           : json_null());
    json_object_set_new(done, "gpu_name",
                        r->gpu_name[0] ? json_string(r->gpu_name)
                                       : json_null());
    gpu_load_lines(r->log_path, done);
    /* what this process cost: the figures docs/performance.md reports */
    getrusage(RUSAGE_SELF, &ru);
    json_object_set_new(
        done, "run",
        json_pack("{s:f,s:I,s:I,s:i,s:I}", "cpu_s",
                  (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                      (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
                  "peak_rss_kb", (json_int_t)ru.ru_maxrss,
                  "rows_bytes_written", (json_int_t)r->store.written,
                  "server_starts", r->server_starts, "server_log_dropped",
                  (json_int_t)r->log.dropped));
    text = emit_dumps(done);
    json_decref(done);
    if (text == NULL)
        util_oom("the rung's summary");
    rundir_path(path, sizeof(path), r->o->rundir, RD_DONE, r->o->rung);
    {
        size_t n = strlen(text);
        char *line = xrealloc(NULL, n + 2);
        memcpy(line, text, n);
        line[n] = '\n';
        line[n + 1] = '\0';
        if (outfile_write(path, line, n + 1, msg, sizeof(msg)) != 0)
            fprintf(stderr, "graveyard run %s: %s\n", r->o->rung, msg);
        else {
            fputs(line, stdout);
            fflush(stdout);
            rc = 0;
        }
        free(line);
    }
    emit_free(text);
out:
    grader_rung_free(g);
    grader_qset_free(qs);
    return rc;
}

/*
 * One graveyard at a time on a rung: an exclusive flock on
 * RUNDIR/locks/RUNG.lock, held until we exit (the kernel drops it when a
 * process dies, so a stale lock is never in the way). The fd is
 * close-on-exec, and every child's descriptors are closed anyway: a
 * server never holds it after we are gone.
 * Returns 0, EXIT_BUSY when another process holds it, or the exit status
 * for the failure (1 for a full disk, 2 for a bad folder).
 */
static int lock_rung(const struct run_opts *o, int *fd, char *msg,
                     size_t msgsize)
{
    char path[4200], pid[32] = "";
    ssize_t n;

    if (files_mkdir(o->rundir, 1, msg, msgsize) != 0)
        return files_exit_code(errno);
    rundir_path(path, sizeof(path), o->rundir, RD_LOCKS_DIR, NULL);
    if (files_mkdir(path, 0, msg, msgsize) != 0)
        return files_exit_code(errno);
    rundir_path(path, sizeof(path), o->rundir, RD_LOCK, o->rung);
    *fd = files_open(path, O_RDWR | O_CREAT, 0644, msg, msgsize);
    if (*fd < 0)
        return files_exit_code(errno);
    if (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
        n = pread(*fd, pid, sizeof(pid) - 1, 0);
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        snprintf(msg, msgsize,
                 "rung %s is being run by another graveyard (pid %s)", o->rung,
                 pid[0] ? pid : "?");
        close(*fd);
        *fd = -1;
        return EXIT_BUSY;
    }
    snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
    if (ftruncate(*fd, 0) != 0 ||
        pwrite(*fd, pid, strlen(pid), 0) != (ssize_t)strlen(pid)) {
        int e = errno;
        snprintf(msg, msgsize, "cannot write '%.900s': %s", path,
                 files_strerror(e));
        return files_exit_code(e);
    }
    return 0;
}

/*
 * Everything that can be checked before anything is created: the model
 * is a file we can read, the binary is there and answers --version (in
 * VERSION_MS; it dies with us), the paths hold no control character.
 * Returns 0 or the exit status, with the message in msg.
 */
static int check_inputs(struct runner *r, char *msg, size_t msgsize)
{
    const struct run_opts *o = r->o;
    char path[4200], status[64];
    struct stat st;
    int fd, rc, e;

    if (!config_path_ok(o->model) || !config_path_ok(o->rundir)) {
        snprintf(msg, msgsize,
                 "the model and run folder paths may not hold "
                 "control characters");
        return EXIT_USAGE;
    }
    /* ladder.tsv and the manifest keep these whole: never a cut path */
    if (strlen(o->rundir) + strlen(o->rung) > 3900 ||
        strlen(o->model) > 4000 || strlen(o->questions) > 4000) {
        snprintf(msg, msgsize, "path too long: '%.200s...'",
                 strlen(o->model) > 4000 ? o->model : o->rundir);
        return EXIT_USAGE;
    }
    if ((fd = open(o->model, O_RDONLY | O_CLOEXEC)) < 0 ||
        fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        e = fd < 0 ? errno : EISDIR;
        if (fd >= 0)
            close(fd);
        snprintf(msg, msgsize, "cannot read model '%s': %s", o->model,
                 e == EISDIR ? "not a file" : strerror(e));
        return EXIT_USAGE;
    }
    close(fd);
    if ((e = spawn_resolve(o->llama, path, sizeof(path))) != 0) {
        snprintf(msg, msgsize, "cannot run '%s': %s (give --llama)", o->llama,
                 strerror(e));
        return EXIT_USAGE;
    }
    rc = spawn_version(o->llama, VERSION_MS, r->version, sizeof(r->version));
    if (rc == SPAWN_ENOEXEC || rc == 127) {
        snprintf(msg, msgsize,
                 "cannot run '%s --version': is it a llama-server binary?",
                 o->llama);
        return EXIT_USAGE;
    }
    if (rc != 0) {
        snprintf(msg, msgsize, "'%s --version' %s: is it a llama-server?",
                 o->llama, spawn_status_text(rc, status, sizeof(status)));
        return EXIT_FAILED;
    }
    if (r->version[0] == '\0') {
        snprintf(msg, msgsize, "'%s --version' printed no 'version:' line",
                 o->llama);
        return EXIT_FAILED;
    }
    return 0;
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

static void free_env(char **env)
{
    if (env == NULL)
        return;
    for (size_t i = 0; env[i]; i++)
        free(env[i]);
    free(env);
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

int runner_run(const struct run_opts *o)
{
    struct runner *r = xrealloc(NULL, sizeof(*r));
    static const int signums[3] = {SIGINT, SIGTERM, SIGHUP};
    char msg[1024], path[4000];
    int code;

    memset(r, 0, sizeof(*r));
    r->o = o;
    r->lock_fd = -1;
    r->log.fd = -1;
    r->gpu_before = r->gpu_loaded = -1;
    r->current = (size_t)-1;
    r->death = "died";
    r->idle_ms = (uint64_t)o->idle_s * 1000;
    r->deadline_ms = (uint64_t)o->request_timeout_s * 1000;
    r->progress_fd = progress_fd();
    /* a write to a ladder that is gone must fail, not kill us */
    signal(SIGPIPE, SIG_IGN);
    reply_init(&r->reply, REPLY_CAP);
    sse_init(&r->sse, REPLY_CAP, sse_event, r);
    buf_init(&r->errbody, ERRBODY_CAP);
    /* check first, then create: bad input leaves nothing behind */
    if (questions_load(o->questions, o->limit, &r->qs, msg, sizeof(msg))) {
        fprintf(stderr, "graveyard run %s: %s\n", o->rung, msg);
        code = EXIT_USAGE;
        goto out;
    }
    if ((code = check_inputs(r, msg, sizeof(msg))) != 0) {
        fprintf(stderr, "graveyard run %s: %s\n", o->rung, msg);
        goto out;
    }
    if ((code = lock_rung(o, &r->lock_fd, msg, sizeof(msg))) != 0) {
        fprintf(stderr, "graveyard run %s: %s\n", o->rung, msg);
        goto out;
    }
    if (store_open(&r->store, o->rundir, o->rung, msg, sizeof(msg)) != 0) {
        fprintf(stderr, "graveyard run %s: %s\n", o->rung, msg);
        code = files_exit_code(r->store.err);
        goto out;
    }
    if (r->store.cut > 0)
        say(r, "cut back a torn last row (%zu bytes) in %s", r->store.cut,
            r->store.path);
    /* what the file answers already (every row checked on the way) */
    if (rowsfile_answered(r->store.path, o->rung, &r->answered, &r->rows,
                          &r->right, msg, sizeof(msg)) != 0) {
        fprintf(stderr, "graveyard run %s: %s\n", o->rung, msg);
        code = EXIT_USAGE;
        goto out;
    }
    rundir_path(path, sizeof(path), o->rundir, RD_DONE, o->rung);
    r->complete = r->rows >= r->qs.n && access(path, F_OK) == 0;
    rundir_path(path, sizeof(path), o->rundir, RD_LOGS_DIR, NULL);
    if (!r->complete && files_mkdir(path, 0, msg, sizeof(msg)) != 0) {
        fprintf(stderr, "graveyard run %s: %s\n", o->rung, msg);
        code = files_exit_code(errno);
        goto out;
    }
    rundir_path(r->log_path, sizeof(r->log_path), o->rundir, RD_LOG, o->rung);
    rundir_path(r->pid_path, sizeof(r->pid_path), o->rundir, RD_PID, o->rung);
    rundir_path(r->cache_path, sizeof(r->cache_path), o->rundir, RD_HASH_CACHE,
                NULL);
    if (uv_loop_init(&r->loop) != 0) {
        fprintf(stderr, "graveyard run %s: libuv did not start\n", o->rung);
        code = EXIT_FAILED;
        goto out;
    }
    r->handles = 1;
    uv_timer_init(&r->loop, &r->timer);
    r->timer.data = r;
    uv_timer_init(&r->loop, &r->watch);
    r->watch.data = r;
    for (int i = 0; i < 3; i++) {
        uv_signal_init(&r->loop, &r->sigs[i]);
        r->sigs[i].data = r;
        uv_signal_start(&r->sigs[i], signal_cb, signums[i]);
    }
    if (sha_cache_get(r->cache_path, o->model, r->model_hash.hex,
                      &r->model_hash.bytes)) {
        /* hashed before, and the file's size and mtime are unchanged */
        r->model_hash.ctx = r;
        r->hash_cached = 1;
        hashed(&r->model_hash);
    } else if (hash_file_async(&r->loop, &r->model_hash, o->model, hashed,
                               r) != 0) {
        finish(r, EXIT_FAILED, "cannot queue the model's hash");
    } else {
        r->hashing = 1;
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
out:
    if (r->log_open)
        caplog_close(&r->log);
    if (r->lock_fd >= 0)
        close(r->lock_fd); /* releases the lock */
    store_close(&r->store);
    grader_qset_free(r->answered);
    questions_release(&r->qs);
    reply_release(&r->reply);
    sse_release(&r->sse);
    buf_release(&r->errbody);
    free_env(r->env);
    if (r->handles) {
        uv_run(&r->loop, UV_RUN_DEFAULT); /* close callbacks */
        if (uv_loop_close(&r->loop) != 0)
            fprintf(stderr, "graveyard run %s: a handle was left open\n",
                    o->rung);
    }
    free(r);
    return code;
}
