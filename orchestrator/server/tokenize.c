/*
 * tokenize.c - a llama-server's count of a text's tokens (tokenize.h), of
 * a server that runs or of one started here to count.
 */
#include "tokenize.h"

#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "../../util/util.h"
#include "caplog.h"
#include "http.h"
#include "launch.h"
#include "proc.h"
#include "spawn.h"

#define HEALTH_POLL_MS 250
#define HEALTH_ONE_MS                                                         \
    2000 /* one poll: the fork's /health hangs while                          \
            it loads */

struct tokenizer {
    uv_loop_t loop;
    struct http *http;
    char url[512];
    long timeout_ms;
    unsigned long calls;
    double seconds;
    /* the count in flight */
    struct buf body;
    long status;
    int done, over;
    char err[256];
    /* tokenize_serve's server, or NULL */
    struct proc *server;
    struct caplog log;
    int log_open, exited, models; /* models: /health is 404, ask
                                     /v1/models (an old fork) */
    unsigned grace_ms;
    uv_timer_t timer;
    int timer_open;
    char last[512]; /* the server's last line when it exited */
};

struct tokenizer *tokenize_open(const char *base, long timeout_ms, char *msg,
                                size_t msgsize)
{
    struct tokenizer *t = calloc(1, sizeof(*t));
    size_t n = strlen(base);

    if (t == NULL)
        util_oom("a tokenizer");
    while (n > 0 && base[n - 1] == '/')
        n--;
    if (n == 0 || n + sizeof("/tokenize") > sizeof(t->url) ||
        (strncmp(base, "http://", 7) != 0 &&
         strncmp(base, "https://", 8) != 0)) {
        snprintf(msg, msgsize,
                 "'%s' is not a server's address (http://HOST:PORT)", base);
        free(t);
        return NULL;
    }
    memcpy(t->url, base, n);
    memcpy(t->url + n, "/tokenize", sizeof("/tokenize"));
    t->timeout_ms = timeout_ms;
    if (uv_loop_init(&t->loop) != 0) {
        snprintf(msg, msgsize, "cannot start a loop for '%s'", t->url);
        free(t);
        return NULL;
    }
    if ((t->http = http_new(&t->loop, msg, msgsize)) == NULL) {
        (void)uv_loop_close(&t->loop);
        free(t);
        return NULL;
    }
    return t;
}

/* The server stopped (SIGTERM to its group, SIGKILL after the grace)
 * and waited for. */
static void stop_server(struct tokenizer *t)
{
    if (t->server == NULL)
        return;
    if (!t->exited)
        proc_stop(t->server, t->grace_ms);
    while (!t->exited)
        if (uv_run(&t->loop, UV_RUN_ONCE) == 0 && !t->exited)
            break;
    proc_free(t->server);
    t->server = NULL;
}

void tokenize_close(struct tokenizer *t)
{
    if (t == NULL)
        return;
    stop_server(t);
    if (t->timer_open)
        uv_close((uv_handle_t *)&t->timer, NULL);
    if (t->log_open)
        caplog_close(&t->log);
    http_free(t->http, NULL, NULL);
    (void)uv_run(&t->loop, UV_RUN_DEFAULT); /* the handles' closes */
    (void)uv_loop_close(&t->loop);
    buf_release(&t->body);
    free(t);
}

static void server_exit(void *ctx, long long status, int sig)
{
    struct tokenizer *t = ctx;

    (void)status;
    (void)sig;
    snprintf(t->last, sizeof(t->last), "%s", proc_last_line(t->server));
    t->exited = 1;
}

static void health_cb(void *ctx, long status, const char *err)
{
    struct tokenizer *t = ctx;

    (void)err;
    t->status = status;
    t->done = 1;
}

static void timer_cb(uv_timer_t *h)
{
    (void)h;
}

/* Poll /health (or /v1/models) until 200, the server's exit, or the
 * deadline. 0, or -1 with msg. */
static int wait_healthy(struct tokenizer *t, const char *base, long timeout_s,
                        char *msg, size_t msgsize)
{
    uint64_t deadline = uv_now(&t->loop) + (uint64_t)timeout_s * 1000;
    char url[600];

    for (;;) {
        snprintf(url, sizeof(url), "%s%s", base,
                 t->models ? "/v1/models" : "/health");
        t->done = 0;
        t->status = 0;
        if (http_request(t->http, url, NULL, HEALTH_ONE_MS, NULL, health_cb,
                         t) == NULL) {
            snprintf(msg, msgsize, "cannot poll %.200s: %s", url,
                     http_error(t->http));
            return -1;
        }
        while (!t->done)
            if (uv_run(&t->loop, UV_RUN_ONCE) == 0 && !t->done)
                break;
        if (t->status == 200)
            return 0;
        if (t->status == 404 && !t->models) {
            t->models = 1;
            continue;
        }
        if (t->exited || uv_now(&t->loop) > deadline)
            break;
        if (uv_timer_start(&t->timer, timer_cb, HEALTH_POLL_MS, 0) != 0)
            util_oom("a timer");
        while (uv_is_active((uv_handle_t *)&t->timer) && !t->exited)
            (void)uv_run(&t->loop, UV_RUN_ONCE);
    }
    if (t->exited)
        snprintf(msg, msgsize, "the server exited before it was ready: %s",
                 t->last[0] ? t->last : "(it said nothing)");
    else
        snprintf(msg, msgsize, "the server was not ready in %ld s", timeout_s);
    return -1;
}

struct tokenizer *tokenize_serve(const struct run_opts *o, const char *log,
                                 long timeout_ms, char *msg, size_t msgsize)
{
    extern char **environ;
    struct tokenizer *t;
    struct proc_opts po;
    char base[64], why[600], **argv, **env;
    int port = launch_free_port();

    if (port < 0) {
        snprintf(msg, msgsize,
                 "no free port on 127.0.0.1 for a server of '%s'", o->model);
        return NULL;
    }
    snprintf(base, sizeof(base), "http://127.0.0.1:%d", port);
    if ((t = tokenize_open(base, timeout_ms, msg, msgsize)) == NULL)
        return NULL;
    t->grace_ms = o->grace_ms;
    if (uv_timer_init(&t->loop, &t->timer) != 0)
        util_oom("a timer");
    t->timer_open = 1;
    t->timer.data = t;
    if (caplog_open(&t->log, log, o->log_cap, why, sizeof(why)) != 0) {
        snprintf(msg, msgsize, "%s", why);
        tokenize_close(t);
        return NULL;
    }
    t->log_open = 1;
    argv = launch_argv(o, port);
    env = launch_env(o, environ);
    memset(&po, 0, sizeof(po));
    po.argv = argv;
    po.env = env;
    po.log = &t->log;
    po.fd3 = SPAWN_CLOSED;
    po.new_session = 1;
    po.pdeathsig = SIGKILL; /* never outlives us, however we die */
    t->server = proc_start(&t->loop, &po, server_exit, t, why, sizeof(why));
    launch_free(argv);
    launch_free(env);
    if (t->server == NULL) {
        snprintf(msg, msgsize, "%s", why);
        tokenize_close(t);
        return NULL;
    }
    if (wait_healthy(t, base, o->health_timeout_s, why, sizeof(why)) != 0) {
        snprintf(msg, msgsize,
                 "a server of '%s' to count tokens: %s (its log: %s)",
                 o->model, why, log);
        tokenize_close(t);
        return NULL;
    }
    return t;
}

static int data_cb(void *ctx, long status, const char *p, size_t n)
{
    struct tokenizer *t = ctx;

    t->status = status;
    if (buf_add(&t->body, p, n) != 0) {
        t->over = 1;
        return -1; /* past TOKENIZE_REPLY_MAX: abort */
    }
    return 0;
}

static void done_cb(void *ctx, long status, const char *err)
{
    struct tokenizer *t = ctx;

    t->status = status;
    t->done = 1;
    if (err != NULL)
        snprintf(t->err, sizeof(t->err), "%s", err);
}

/* The count in a reply {"tokens": [...]}: -1 with why. */
static long count_of(const struct buf *b, char *why, size_t whysize)
{
    json_error_t jerr;
    json_t *o = json_loadb(b->p ? b->p : "", b->len, 0, &jerr);
    json_t *a = json_object_get(o, "tokens");
    long n = -1;

    if (o == NULL)
        snprintf(why, whysize, "a reply that is not JSON (%s)", jerr.text);
    else if (!json_is_array(a))
        snprintf(why, whysize, "a reply without a \"tokens\" list");
    else
        n = (long)json_array_size(a);
    json_decref(o);
    return n;
}

int tokenize_count(struct tokenizer *t, const char *text, size_t len,
                   long *tokens, char *msg, size_t msgsize)
{
    json_t *req = json_object();
    char *body, why[300] = "";
    uint64_t t0 = uv_hrtime();
    long n = -1;

    if (req == NULL ||
        json_object_set_new(req, "content", json_stringn(text, len)) != 0 ||
        json_object_set_new(req, "add_special", json_false()) != 0 ||
        (body = json_dumps(req, JSON_COMPACT)) == NULL)
        util_oom("a /tokenize request");
    json_decref(req);
    buf_release(&t->body);
    buf_init(&t->body, TOKENIZE_REPLY_MAX);
    t->status = 0;
    t->done = t->over = 0;
    t->err[0] = '\0';
    /* counts share a kept-alive connection; a count that ends inside
     * curl's timer does not leave the UV_RUN_ONCE below asleep (http.c's
     * timer_cb, http.h) */
    if (http_request(t->http, t->url, body, t->timeout_ms, data_cb, done_cb,
                     t) == NULL) {
        snprintf(msg, msgsize, "%s", http_error(t->http));
        free(body);
        return -1;
    }
    while (!t->done)
        if (uv_run(&t->loop, UV_RUN_ONCE) == 0 && !t->done)
            break; /* nothing left to run: cannot happen with a request */
    free(body);
    t->calls++;
    t->seconds += (double)(uv_hrtime() - t0) / 1e9;
    if (t->over)
        snprintf(why, sizeof(why), "a reply over %zu MiB",
                 TOKENIZE_REPLY_MAX >> 20);
    else if (!t->done || t->err[0] != '\0')
        snprintf(why, sizeof(why), "%s", t->done ? t->err : "no answer");
    else if (t->status == 404)
        snprintf(why, sizeof(why),
                 "HTTP 404: this server has no /tokenize (an old build?)");
    else if (t->status != 200)
        snprintf(why, sizeof(why), "HTTP %ld", t->status);
    else
        n = count_of(&t->body, why, sizeof(why));
    if (n < 0 && t->server != NULL && t->exited)
        snprintf(why, sizeof(why), "the server exited: %.200s",
                 t->last[0] ? t->last : "(it said nothing)");
    if (n < 0) {
        snprintf(msg, msgsize, "cannot count tokens at '%s': %s", t->url, why);
        return -1;
    }
    *tokens = n;
    return 0;
}

unsigned long tokenize_calls(const struct tokenizer *t)
{
    return t->calls;
}

double tokenize_seconds(const struct tokenizer *t)
{
    return t->seconds;
}
