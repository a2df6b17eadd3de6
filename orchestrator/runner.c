/*
 * runner.c - one rung's run as a chain of libuv callbacks.
 *
 * The order: read the questions and the rows (store), and if every
 * question is answered and the summary exists, print it and stop. Else
 * ask the binary for its --version, hash the model off the loop (or find
 * it in the cache), check the manifest, start the server, poll /health,
 * ask, append, and at the end stop the server and write rows/<RUNG>.done.
 * Every failure ends in finish(), which stops the server first: no child
 * outlives us.
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
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "../grader/emit.h"
#include "../grader/extract.h"
#include "../grader/stats.h"
#include "cli.h"
#include "gpu.h"
#include "hash.h"
#include "http.h"
#include "ladderfile.h"
#include "manifest.h"
#include "outfile.h"
#include "proc.h"
#include "questions.h"
#include "reply.h"
#include "sse.h"
#include "store.h"

#define MAX_DEATHS     3 /* deaths on one question before an error row */
#define MAX_STREAK     3 /* questions in a row with deaths: give up */
#define REPLY_CAP      (4u << 20)
#define HEALTH_POLL_MS 250

enum phase { P_PREPARE, P_STARTING, P_ASKING, P_STOPPING, P_DONE };

struct runner {
    const struct run_opts *o;
    uv_loop_t *loop;
    struct questions qs;
    struct store store;
    struct http *http;
    struct proc *server;
    uv_timer_t timer;
    uv_signal_t sigs[3]; /* SIGINT, SIGTERM, SIGHUP (the terminal went) */
    struct hash_job model_hash;
    int hash_cached; /* it came from RUNDIR/sha256.cache */
    int lock_fd;     /* RUNDIR/locks/RUNG.lock, held while we run */
    char cache_path[4200];
    char version[256];
    char url[64];
    int port, port_tries;
    enum phase phase;
    size_t next;       /* question being asked */
    size_t current;    /* question the attempt count belongs to */
    int attempts;      /* of this question */
    int streak;        /* questions in a row that saw a death */
    int died_here;     /* this question saw a death */
    int server_dead;   /* the server's exit was reported */
    int retry_on_exit; /* a failed request waits for the exit */
    uint64_t started_ms, health_deadline;
    struct reply reply;
    struct sse sse;
    long http_status;
    int exit_code;
    char err[1024];
    char pid_path[4200], log_path[4200];
    unsigned long long asked;
    unsigned long long log_dropped; /* server log bytes over the cap */
    long gpu_before, gpu_loaded;    /* MiB from nvidia-smi, -1 unknown */
    char gpu_name[128];             /* nvidia-smi's name, or "" */
    int progress_fd;                /* a ladder's pipe, or -1 */
    size_t asked_here;              /* rows added by this process */
    uint64_t first_ask_ms;
    int server_starts;
};

static void start_server(struct runner *r);
static void hashed(struct hash_job *job);

/* Free a server that is gone, keeping the count of log bytes it dropped. */
static void drop_server(struct runner *r)
{
    r->log_dropped += proc_dropped(r->server);
    proc_free(r->server);
    r->server = NULL;
}
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

/* ---- the end ----------------------------------------------------------- */

static void close_all(struct runner *r)
{
    if (r->http) {
        http_free(r->http, NULL, NULL);
        r->http = NULL;
    }
    if (!uv_is_closing((uv_handle_t *)&r->timer))
        uv_close((uv_handle_t *)&r->timer, NULL);
    for (int i = 0; i < 3; i++)
        uv_close((uv_handle_t *)&r->sigs[i], NULL);
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
    if (r->server != NULL && !r->server_dead) {
        r->phase = P_STOPPING;
        proc_stop(r->server, r->o->grace_ms);
        return; /* server_exit_cb comes back here */
    }
    r->phase = P_DONE;
    if (r->server != NULL) {
        drop_server(r);
        unlink(r->pid_path);
    }
    close_all(r);
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
    char line[256];
    double secs;
    int n;

    if (r->progress_fd < 0)
        return;
    r->asked_here++;
    secs = (double)(uv_now(r->loop) - r->first_ask_ms) / 1000.0;
    n = snprintf(line, sizeof(line),
                 "{\"done\": %zu, \"total\": %zu, \"right\": %zu, "
                 "\"tps\": %.1f, \"sec_per_q\": %.3f}\n",
                 r->store.rows, r->qs.n, r->store.right,
                 r->reply.decode_tps > 0 ? r->reply.decode_tps : 0.0,
                 secs / (double)r->asked_here);
    if (write(r->progress_fd, line, (size_t)n) < 0 && errno != EAGAIN)
        r->progress_fd = -1;
}

/* Append the row for the current question; error is NULL for an answer. */
static int append_row(struct runner *r, const char *error)
{
    const struct question *q = &r->qs.q[r->next];
    struct grader_num said, ref;
    char msg[512], *text;
    long long tokens = reply_tokens(&r->reply);
    int has = !error &&
              grader_extract(r->reply.content.p, r->reply.content.len, &said);
    int right;
    json_t *row;

    grader_num_parse(q->answer, strlen(q->answer), &ref);
    right = has && strcmp(said.s, ref.s) == 0;
    row = json_pack(
        "{s:s,s:s,s:s,s:o,s:o,s:o,s:b,s:o,s:o,s:o,s:o,s:b,s:o,s:o,s:o,s:o,"
        "s:i,s:I}",
        "id", q->id, "rung", r->o->rung, "reference", q->answer, "content",
        error ? json_null() : str_or_null(&r->reply.content),
        "reasoning_content",
        error ? json_null() : str_or_null(&r->reply.reasoning),
        "finish_reason",
        r->reply.finish[0] ? json_string(r->reply.finish) : json_null(),
        "truncated", !error && reply_truncated(&r->reply, r->o->max_tokens),
        "completion_tokens", tokens >= 0 ? json_integer(tokens) : json_null(),
        "decode_tps", num_or_null(r->reply.decode_tps), "error",
        error ? json_string(error) : json_null(), "extracted",
        has ? grader_emit_number(said.s) : json_null(), "right", right,
        "prompt_tokens",
        r->reply.prompt_n >= 0 ? json_integer(r->reply.prompt_n) : json_null(),
        "prompt_ms", num_or_null(r->reply.prompt_ms), "predicted_ms",
        num_or_null(r->reply.predicted_ms), "http_status",
        r->http_status ? json_integer(r->http_status) : json_null(),
        "attempts", r->attempts, "latency_ms",
        (json_int_t)(uv_now(r->loop) - r->started_ms));
    if (row == NULL)
        abort();
    text = json_dumps(row, JSON_COMPACT | JSON_REAL_PRECISION(10));
    json_decref(row);
    if (text == NULL)
        abort();
    if (store_append(&r->store, text, strlen(text), msg, sizeof(msg)) != 0) {
        free(text);
        finish(r, EXIT_FAILED, "%s", msg);
        return -1;
    }
    free(text);
    r->store.right += (size_t)right;
    progress(r);
    return 0;
}

/* Move to the next question not yet answered, or finish the rung. */
static void next_question(struct runner *r)
{
    while (r->next < r->qs.n && store_has(&r->store, r->qs.q[r->next].id))
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

static void answered(struct runner *r, const char *error)
{
    if (append_row(r, error) != 0)
        return;
    if (!r->died_here)
        r->streak = 0;
    r->asked++;
    if (!r->o->quiet && r->asked % 25 == 0)
        say(r, "%zu/%zu answered", r->store.rows, r->qs.n);
    r->next++;
    next_question(r);
}

/* ---- asking ------------------------------------------------------------ */

static int sse_event(void *ctx, const char *data, size_t len)
{
    struct runner *r = ctx;
    char msg[256];

    if (reply_event(&r->reply, data, len, msg, sizeof(msg)) != 0) {
        snprintf(r->err, sizeof(r->err), "%s", msg);
        return 1;
    }
    return 0;
}

static int body_cb(void *ctx, const char *p, size_t n)
{
    struct runner *r = ctx;

    /* an HTTP error before the stream is JSON, not SSE: keep it */
    if (r->http_status == 0 && n > 0 && p[0] == '{') {
        if (r->reply.content.len + n <= 65536)
            buf_append(&r->reply.content, p, n);
        return 0;
    }
    r->http_status = 200;
    return sse_feed(&r->sse, p, n) == 0 ? 0 : 1;
}

/* The server died (or hung and was killed) on this question. */
static void server_died(struct runner *r)
{
    char last[512], error[800];

    snprintf(last, sizeof(last), "%s", proc_last_line(r->server));
    drop_server(r);
    if (!r->died_here) {
        r->died_here = 1;
        if (++r->streak >= MAX_STREAK) {
            finish(r, EXIT_FAILED,
                   "the server died on %d questions in a row, the last "
                   "'%s': %s",
                   MAX_STREAK, r->qs.q[r->next].id, last);
            return;
        }
    }
    if (r->attempts >= MAX_DEATHS) {
        snprintf(error, sizeof(error),
                 "the server died %d times on this question; its last log "
                 "line: %.600s",
                 MAX_DEATHS, last);
        say(r, "%s: %s", r->qs.q[r->next].id, error);
        /* an error row for it, then the next question on a new server */
        r->http_status = 0;
        reply_release(&r->reply);
        reply_init(&r->reply, REPLY_CAP);
        if (append_row(r, error) != 0)
            return;
        r->next++;
    } else {
        say(r, "the server died on %s (attempt %d): %s; restarting",
            r->qs.q[r->next].id, r->attempts, last);
    }
    start_server(r);
}

static void request_done(void *ctx, long status, const char *err)
{
    struct runner *r = ctx;
    enum reply_outcome out = reply_outcome(&r->reply);
    char error[600];

    if (r->phase != P_ASKING)
        return;
    if (status >= 400) {
        /* the server answered with an error: an error row, not a retry */
        json_t *body = json_loadb(r->reply.content.p ? r->reply.content.p : "",
                                  r->reply.content.len, 0, NULL);
        const char *m = json_string_value(
            json_object_get(json_object_get(body, "error"), "message"));
        snprintf(error, sizeof(error), "HTTP %ld: %.500s", status,
                 m ? m : (r->reply.content.len ? r->reply.content.p : ""));
        json_decref(body);
        r->http_status = status;
        answered(r, error);
        return;
    }
    if (err == NULL && !sse_pending(&r->sse) && out == REPLY_FINISHED) {
        answered(r, NULL);
        return;
    }
    if (err == NULL && out == REPLY_ERROR) {
        snprintf(error, sizeof(error), "stream error: %.500s", r->reply.error);
        answered(r, error);
        return;
    }
    /* cut off: the server died or hung. Make sure it is gone, then retry
     * from its exit callback. */
    r->retry_on_exit = 1;
    if (r->server_dead)
        server_died(r);
    else
        proc_stop(r->server, r->o->grace_ms);
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
        abort();
    if (r->o->request != NULL)
        json_object_update(body, r->o->request);
    text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    if (text == NULL)
        abort();
    return text;
}

static void ask(struct runner *r)
{
    char url[128], *body;

    r->phase = P_ASKING;
    r->attempts++;
    r->http_status = 0;
    reply_release(&r->reply);
    reply_init(&r->reply, REPLY_CAP);
    sse_release(&r->sse);
    sse_init(&r->sse, REPLY_CAP, sse_event, r);
    r->started_ms = uv_now(r->loop);
    if (r->first_ask_ms == 0)
        r->first_ask_ms = r->started_ms;
    body = request_body(r, &r->qs.q[r->next]);
    snprintf(url, sizeof(url), "%s/v1/chat/completions", r->url);
    if (http_request(r->http, url, body, 0, r->o->idle_s, body_cb,
                     request_done, r) == NULL)
        finish(r, EXIT_FAILED, "cannot start a request to %s", url);
    free(body);
}

/* ---- the server -------------------------------------------------------- */

static void health_poll(uv_timer_t *t);

static void health_done(void *ctx, long status, const char *err)
{
    struct runner *r = ctx;

    (void)err;
    if (r->phase != P_STARTING)
        return;
    if (status == 200) {
        say(r, "server ready on port %d (pid %d)", r->port,
            proc_pid(r->server));
        if (r->server_starts == 1)
            r->gpu_loaded = gpu_mib_used(r->o->gpu);
        next_question(r);
        return;
    }
    if (uv_now(r->loop) > r->health_deadline) {
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
    if (http_request(r->http, url, NULL, 2000, 0, NULL, health_done, r) ==
        NULL)
        finish(r, EXIT_FAILED, "cannot poll %s", url);
}

static void server_exit(void *ctx, long long status, int sig)
{
    struct runner *r = ctx;

    r->server_dead = 1;
    if (r->phase == P_STOPPING) {
        r->phase = P_PREPARE; /* let finish() complete */
        finish(r, r->exit_code, NULL);
        return;
    }
    if (r->phase == P_STARTING) {
        const char *last = proc_last_line(r->server);
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
    }
    if (r->phase == P_ASKING && r->retry_on_exit)
        server_died(r);
    /* else: the request in flight fails and request_done retries */
}

/* A free port on 127.0.0.1, from the kernel. */
static int free_port(void)
{
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

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

static void write_pid(struct runner *r)
{
    char text[32];
    char msg[512];

    snprintf(text, sizeof(text), "%d\n", proc_pid(r->server));
    if (outfile_write(r->pid_path, text, strlen(text), msg, sizeof(msg)))
        say(r, "%s", msg);
}

/* Replace {model} {port} {ngl} {ctx} {seed} in s into out. */
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
 * cmd_run: strings, {model} and {port} present, any --host 127.0.0.1).
 * With --ngl auto, a "{ngl}" item goes, and the flag before it. The
 * server always binds 127.0.0.1: without --host in the template, it is
 * added.
 */
static size_t template_argv(struct runner *r, const char **argv, size_t n,
                            const char *port, const char *ctx, const char *ngl)
{
    static char pool[48][1024];
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
        expand(r, t, port, ctx, ngl, pool[i], sizeof(pool[i]));
        argv[n++] = pool[i];
    }
    if (!host) {
        argv[n++] = "--host";
        argv[n++] = "127.0.0.1";
    }
    return n;
}

/* The config's extra server environment, {gpu} and the rest expanded;
 * a variable that needs a GPU when none was given is left out. */
static void template_env(struct runner *r)
{
    const char *key;
    json_t *v;
    char value[1024];

    json_object_foreach(r->o->env_template, key, v)
    {
        const char *t = json_string_value(v);
        if (t == NULL || (r->o->gpu == NULL && strstr(t, "{gpu}")))
            continue;
        expand(r, t, "", "", "", value, sizeof(value));
        setenv(key, value, 1);
    }
}

static void start_server(struct runner *r)
{
    char port[16], ctx[32], ngl[16], msg[512];
    const char *argv[64];
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
    /* inherited by the child; this process itself uses no GPU */
    if (r->o->gpu != NULL)
        setenv("CUDA_VISIBLE_DEVICES", r->o->gpu, 1);
    template_env(r);
    if (r->server_starts == 0) {
        r->gpu_before = gpu_mib_used(r->o->gpu); /* before any load */
        gpu_name(r->o->gpu, r->gpu_name, sizeof(r->gpu_name));
    }
    r->server_dead = 0;
    r->retry_on_exit = 0;
    r->server_starts++;
    r->phase = P_STARTING;
    r->server = proc_spawn(r->loop, (char *const *)argv, NULL, r->log_path,
                           r->o->log_cap, server_exit, r, msg, sizeof(msg));
    if (r->server == NULL) {
        finish(r, EXIT_FAILED, "%s", msg);
        return;
    }
    write_pid(r);
    r->health_deadline =
        uv_now(r->loop) + (uint64_t)r->o->health_timeout_s * 1000;
    uv_timer_start(&r->timer, health_poll, 100, 0);
}

/* ---- before the server: stale server, hash, version, manifest --------- */

/* A server left by a graveyard that was killed: stop its process group. */
static void reap_stale(struct runner *r)
{
    FILE *f = fopen(r->pid_path, "r");
    char cmd[64], line[4096] = "";
    long pid = 0;
    int i;

    if (f == NULL)
        return;
    if (fscanf(f, "%ld", &pid) != 1)
        pid = 0;
    fclose(f);
    snprintf(cmd, sizeof(cmd), "/proc/%ld/cmdline", pid);
    if (pid > 1 && (f = fopen(cmd, "r")) != NULL) {
        size_t n = fread(line, 1, sizeof(line) - 1, f);
        fclose(f);
        line[n] = '\0';
        /* only if it is still the server we started (pids are reused) */
        if (strcmp(line, r->o->llama) == 0) {
            say(r, "stopping server pid %ld left by an earlier run", pid);
            kill((pid_t)-pid, SIGTERM);
            for (i = 0; i < 50 && kill((pid_t)pid, 0) == 0; i++) {
                struct timespec ts = {0, 100000000};
                nanosleep(&ts, NULL);
            }
            if (kill((pid_t)pid, 0) == 0)
                kill((pid_t)-pid, SIGKILL);
        }
    }
    unlink(r->pid_path);
}

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
 * Record what this rung is made with: the sha256 cache, the manifest and
 * ladder.tsv. Several graveyards may share a run folder (a ladder on
 * several GPUs, shards): these read-modify-write files are changed under
 * one lock, RUNDIR/locks/files.lock. Returns 0 or the exit status.
 */
static int record(struct runner *r, const struct hash_job *job, char *msg,
                  size_t msgsize)
{
    static struct hash_job qjob; /* 4 KB of path: not on the stack */
    static struct lrow lrow;
    json_t *shared, *rung, *args;
    char path[4200];
    size_t i;
    int fd, rc, changed;

    snprintf(path, sizeof(path), "%s/locks/files.lock", r->o->rundir);
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || flock(fd, LOCK_EX) != 0) {
        snprintf(msg, msgsize, "cannot lock '%.900s': %s", path,
                 strerror(errno));
        if (fd >= 0)
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
    args = json_array();
    for (i = 0; i < r->o->n_server_args; i++)
        json_array_append_new(args, json_string(r->o->server_args[i]));
    shared = settings(r, qjob.hex);
    rung = json_pack("{s:s,s:I,s:s,s:I,s:i,s:o}", "model", r->o->model,
                     "bytes", (json_int_t)job->bytes, "sha256", job->hex,
                     "ctx", (json_int_t)r->o->ctx, "ngl", r->o->ngl,
                     "server_args", args);
    if (r->o->argv_template)
        json_object_set(rung, "server_argv", r->o->argv_template);
    if (r->o->env_template)
        json_object_set(rung, "server_env", r->o->env_template);
    changed = manifest_check(r->o->rundir, r->o->rung, shared, rung,
                             r->o->force, msg, msgsize);
    json_decref(shared);
    json_decref(rung);
    if (changed != 0)
        goto out;
    snprintf(lrow.rung, sizeof(lrow.rung), "%s", r->o->rung);
    snprintf(lrow.file, sizeof(lrow.file), "%s", r->o->model);
    lrow.bytes = job->bytes;
    memcpy(lrow.sha256, job->hex, sizeof(lrow.sha256));
    snprintf(path, sizeof(path), "%s/ladder.tsv", r->o->rundir);
    rc = ladderfile_upsert(path, &lrow, msg, msgsize) != 0 ? EXIT_FAILED : 0;
out:
    close(fd); /* releases the lock */
    return rc;
}

static void hashed(struct hash_job *job)
{
    struct runner *r = job->ctx;
    char msg[1024];
    int rc;

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
    say(r, "%s, model sha256 %.12s...%s, %zu of %zu questions answered",
        r->version, job->hex, r->hash_cached ? " (cached)" : "", r->store.rows,
        r->qs.n);
    reap_stale(r);
    r->http = http_new(r->loop);
    if (r->http == NULL) {
        finish(r, EXIT_FAILED, "libcurl did not start");
        return;
    }
    start_server(r);
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
        grader_rung_read(qs, r->o->rung, r->store.path, 0, &g, &err) != 0 ||
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
                  (json_int_t)r->log_dropped));
    text = grader_emit_dumps(done);
    json_decref(done);
    if (text == NULL)
        abort();
    snprintf(path, sizeof(path), "%s/rows/%s.done", r->o->rundir, r->o->rung);
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
    grader_emit_free(text);
out:
    grader_rung_free(g);
    grader_qset_free(qs);
    return rc;
}

/* An already finished rung: print its summary, start nothing. */
static int print_done(const struct runner *r)
{
    char path[4200], line[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/rows/%s.done", r->o->rundir, r->o->rung);
    if (r->store.rows < r->qs.n || (f = fopen(path, "r")) == NULL)
        return -1;
    if (fgets(line, sizeof(line), f) != NULL)
        fputs(line, stdout);
    fclose(f);
    return 0;
}

/*
 * One graveyard at a time on a rung: an exclusive flock on
 * RUNDIR/locks/RUNG.lock, held until we exit (the kernel drops it when a
 * process dies, so a stale lock is never in the way). The fd is
 * close-on-exec: the server must not hold it after we are gone.
 * Returns 0, EXIT_BUSY when another process holds it, EXIT_USAGE.
 */
static int lock_rung(const struct run_opts *o, int *fd, char *msg,
                     size_t msgsize)
{
    char path[4200], pid[32] = "";
    ssize_t n;

    /* the run folder and its parents, as mkdir -p */
    snprintf(path, sizeof(path), "%s/", o->rundir);
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            goto fail;
        *p = '/';
    }
    snprintf(path, sizeof(path), "%s/locks", o->rundir);
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        goto fail;
    snprintf(path, sizeof(path), "%s/locks/%s.lock", o->rundir, o->rung);
    *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (*fd < 0)
        goto fail;
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
        pwrite(*fd, pid, strlen(pid), 0) != (ssize_t)strlen(pid))
        goto fail;
    return 0;
fail:
    snprintf(msg, msgsize, "cannot lock the rung in '%.900s': %s", path,
             strerror(errno));
    return EXIT_USAGE;
}

/* Started by graveyard ladder: die with it, stopping our server, rather
 * than run on as an orphan after a SIGKILL of the ladder. */
static void follow_parent(void)
{
#ifdef __linux__
    const char *p = getenv("GRAVEYARD_LADDER_PID");

    if (p == NULL)
        return;
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if ((long)getppid() != atol(p))
        raise(SIGTERM); /* it died before prctl took effect */
#endif
}

int runner_run(const struct run_opts *o)
{
    struct runner *r = xrealloc(NULL, sizeof(*r));
    char msg[1024], logs[4096];
    int code, rc;

    memset(r, 0, sizeof(*r));
    r->o = o;
    r->lock_fd = -1;
    r->gpu_before = r->gpu_loaded = -1;
    r->progress_fd = getenv("GRAVEYARD_PROGRESS_FD")
                         ? atoi(getenv("GRAVEYARD_PROGRESS_FD"))
                         : -1;
    if (r->progress_fd >= 0)
        fcntl(r->progress_fd, F_SETFL, O_NONBLOCK);
    r->current = (size_t)-1;
    r->loop = uv_default_loop();
    reply_init(&r->reply, REPLY_CAP);
    sse_init(&r->sse, REPLY_CAP, sse_event, r);
    if ((code = lock_rung(o, &r->lock_fd, msg, sizeof(msg))) != 0) {
        fprintf(stderr, "graveyard run %s: %s\n", o->rung, msg);
        goto out;
    }
    if (questions_load(o->questions, o->limit, &r->qs, msg, sizeof(msg))) {
        fprintf(stderr, "graveyard run %s: %s\n", o->rung, msg);
        code = EXIT_USAGE;
        goto out;
    }
    if (store_open(&r->store, o->rundir, o->rung, msg, sizeof(msg)) != 0) {
        fprintf(stderr, "graveyard run %s: %s\n", o->rung, msg);
        code = EXIT_USAGE;
        goto out;
    }
    if (r->store.cut > 0)
        say(r, "cut back a torn last row (%zu bytes) in %s", r->store.cut,
            r->store.path);
    if (print_done(r) == 0) {
        code = EXIT_OK;
        goto out;
    }
    if (strlen(o->rundir) + strlen(o->rung) > 3900) {
        fprintf(stderr, "graveyard run %s: path too long: '%s'\n", o->rung,
                o->rundir);
        code = EXIT_USAGE;
        goto out;
    }
    snprintf(logs, sizeof(logs), "%s/logs", o->rundir);
    if (mkdir(logs, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "graveyard run %s: cannot create '%s': %s\n", o->rung,
                logs, strerror(errno));
        code = EXIT_FAILED;
        goto out;
    }
    snprintf(r->log_path, sizeof(r->log_path), "%s/%s.server.log", logs,
             o->rung);
    snprintf(r->pid_path, sizeof(r->pid_path), "%s/%s.server.pid", o->rundir,
             o->rung);
    uv_timer_init(r->loop, &r->timer);
    r->timer.data = r;
    {
        static const int signums[3] = {SIGINT, SIGTERM, SIGHUP};
        for (int i = 0; i < 3; i++) {
            uv_signal_init(r->loop, &r->sigs[i]);
            r->sigs[i].data = r;
            uv_signal_start(&r->sigs[i], signal_cb, signums[i]);
        }
    }
    follow_parent();
    /* the build, before anything else: --version takes milliseconds */
    rc = cli_version(o->llama, r->version, sizeof(r->version));
    if (rc == 127 || rc < 0)
        finish(r, EXIT_USAGE,
               "cannot run '%s --version': is it a "
               "llama-server binary?",
               o->llama);
    else if (rc != 0)
        finish(r, EXIT_FAILED,
               "'%s --version' failed (status %d): is it a llama-server?",
               o->llama, rc);
    else if (r->version[0] == '\0')
        finish(r, EXIT_FAILED, "'%s --version' printed no 'version:' line",
               o->llama);
    snprintf(r->cache_path, sizeof(r->cache_path), "%s/sha256.cache",
             o->rundir);
    if (r->phase == P_PREPARE &&
        sha_cache_get(r->cache_path, o->model, r->model_hash.hex,
                      &r->model_hash.bytes)) {
        /* hashed before, and the file's size and mtime are unchanged */
        r->model_hash.ctx = r;
        r->hash_cached = 1;
        hashed(&r->model_hash);
    } else if (r->phase == P_PREPARE &&
               hash_file_async(r->loop, &r->model_hash, o->model, hashed, r) !=
                   0)
        finish(r, EXIT_FAILED, "cannot queue the model's hash");
    uv_run(r->loop, UV_RUN_DEFAULT);
    code = r->exit_code;
    if (r->err[0] != '\0')
        fprintf(stderr, "graveyard run %s: %s\n", o->rung, r->err);
    if (code == EXIT_OK && write_done(r) != 0)
        code = EXIT_FAILED;
    if (code != EXIT_OK && code != EXIT_USAGE)
        fprintf(stderr,
                "graveyard run %s: %zu of %zu questions answered; run the "
                "same command to resume\n",
                o->rung, r->store.rows, r->qs.n);
out:
    if (r->lock_fd >= 0)
        close(r->lock_fd); /* releases the lock */
    store_close(&r->store);
    questions_release(&r->qs);
    reply_release(&r->reply);
    sse_release(&r->sse);
    uv_loop_close(r->loop);
    free(r);
    return code;
}
