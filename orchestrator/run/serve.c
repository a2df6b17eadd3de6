/*
 * serve.c - the rung's server on the loop (runner_int.h): started with
 * what launch.h gives it, its /health polled until ready, its exit turned
 * into the rung's event; and nvidia-smi asked, with a time limit, what
 * GPU memory is in use before and after the model is loaded.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../rundir/pidfile.h"
#include "../base/cli.h"
#include "../night/gpu.h"
#include "../server/launch.h"
#include "record.h"
#include "runner_int.h"
#include "../server/spawn.h"

#define HEALTH_POLL_MS    250
#define EXIT_WAIT_MS      1000 /* after a broken stream, for the exit */
#define HEALTH_BACKOFF_MS 4000 /* an endpoint's polls back off to this */
#define SAID_LOCK_MS      1000 /* files.lock for the endpoint's word: a note */

/* A broken stream, a second on: the server has not exited. */
static void exit_wait_cb(uv_timer_t *t)
{
    struct runner *r = t->data;
    struct rung_event ev;

    memset(&ev, 0, sizeof(ev));
    ev.type = EV_EXIT_WAIT_OVER;
    runner_event(r, &ev);
}

/* How long nvidia-smi may take: GPU_PROBE_MS, or GRAVEYARD_PROBE_MS
 * (milliseconds, 100 to 600000: for a slow driver, and for the tests). */
static uint64_t probe_ms(void)
{
    long v;

    return cli_whole(getenv("GRAVEYARD_PROBE_MS"), 100, 600000, &v) == 0
               ? (uint64_t)v
               : GPU_PROBE_MS;
}

static void probe_exit(void *ctx, long long status, int sig)
{
    struct runner *r = ctx;
    long mib = -1;
    void (*next)(struct runner *) = r->srv.after_probe;

    if (status == 0 && sig == 0)
        gpu_parse(proc_output(r->srv.probe, NULL), &mib,
                  r->srv.probe_loaded ? NULL : r->srv.gpu_name,
                  sizeof(r->srv.gpu_name));
    else if (proc_timed_out(r->srv.probe))
        runner_say(
            r, "nvidia-smi did not answer in %.1f s; GPU memory not recorded",
            (double)probe_ms() / 1000);
    if (r->srv.probe_loaded)
        r->srv.gpu_loaded = mib;
    else
        r->srv.gpu_before = mib;
    proc_free(r->srv.probe);
    r->srv.probe = NULL;
    if (!r->ended)
        next(r);
}

/* Ask nvidia-smi (killed after probe_ms()) what is in use, then next.
 * Without nvidia-smi, next at once. */
void serve_probe(struct runner *r, int loaded, void (*next)(struct runner *))
{
    const char *argv[8];
    struct proc_opts po;
    char msg[256];

    if (r->o->endpoint != NULL) {
        next(r); /* not our GPU: nothing to read */
        return;
    }
    gpu_query_argv(r->o->gpu, !loaded, argv);
    gpu_probe_opts(&po, argv, 4096, probe_ms());
    r->srv.probe_loaded = loaded;
    r->srv.after_probe = next;
    r->srv.probe =
        proc_start(&r->sup.loop, &po, probe_exit, r, msg, sizeof(msg));
    if (r->srv.probe == NULL)
        next(r); /* no nvidia-smi: null in .done */
}

static void health_poll(uv_timer_t *t);

static void healthy(struct runner *r)
{
    struct rung_event ev;

    memset(&ev, 0, sizeof(ev));
    ev.type = EV_HEALTHY;
    runner_event(r, &ev);
}

static void said_next(struct runner *r);
static void said_locked(struct lockwait *lw, int rc, int fd);

/* The body of what the runner asks before the rung (an endpoint's model
 * list, a started server's /props), into r->srv.said. */
static int said_body(void *ctx, long status, const char *p, size_t n)
{
    struct runner *r = ctx;
    size_t room = ENDPOINT_SAID_CAP - r->srv.said.len;

    (void)status;
    /* the first ENDPOINT_SAID_CAP bytes: more is cut (not JSON then) */
    return buf_add(&r->srv.said, p, n < room ? n : room) == 0 ? 0 : 1;
}

static void said_done(void *ctx, long status, const char *err)
{
    struct runner *r = ctx;
    const char *key = r->o->api_key_env ? getenv(r->o->api_key_env) : NULL;
    json_t *v;

    if (r->ended || r->rung.state != RS_STARTING || !r->srv.served)
        return;
    if (status == 200 && err == NULL)
        v = endpoint_said(r->srv.said.p ? r->srv.said.p : "", r->srv.said.len,
                          key);
    else
        v = json_pack("{s:i,s:s}", "http_status", (int)status, "error",
                      err ? err : "not 200");
    json_object_set_new(r->srv.said_obj,
                        r->srv.said_step == 0 ? "props" : "models", v);
    buf_release(&r->srv.said);
    r->srv.said_step++;
    said_next(r);
}

/* Ready, for the first time: what the endpoint says about itself (its
 * /props, its /v1/models, 5 s each) goes into the manifest, then the
 * rung is told it is healthy. */
static void said_next(struct runner *r)
{
    char url[ENDPOINT_URL_MAX + 32];

    if (r->srv.said_step < 2) {
        snprintf(url, sizeof(url), "%s%s", r->srv.url,
                 r->srv.said_step == 0 ? "/props" : "/v1/models");
        buf_init(&r->srv.said, ENDPOINT_SAID_CAP);
        if (http_request(r->http, url, NULL, 5000, said_body, said_done, r) ==
            NULL)
            runner_fail(r, EXIT_FAILED, "cannot ask %s: %s", url,
                        http_error(r->http));
        return;
    }
    /* held by the others for milliseconds; the rung asks nothing until
     * this is done, and a signal meanwhile is seen at once */
    if (lockwait_start(&r->files_lock, r->o->rundir, SAID_LOCK_MS, said_locked,
                       r) != 0)
        runner_fail(r, EXIT_FAILED, "files.lock is waited for twice");
}

/* files.lock for what the endpoint said: recorded, or a note (it is not
 * a setting), and the rung is told it is healthy. */
static void said_locked(struct lockwait *lw, int rc, int fd)
{
    struct runner *r = lw->ctx;
    char msg[1200];

    if (rc == LOCKWAIT_HELD) {
        rc = record_endpoint_said(r->o, r->srv.said_obj, msg, sizeof(msg));
        close(fd); /* the lock let go */
    } else {
        snprintf(msg, sizeof(msg), "%s", lw->msg);
        json_decref(r->srv.said_obj);
    }
    r->srv.said_obj = NULL;
    if (r->ended || r->rung.state != RS_STARTING)
        return;
    if (rc != 0)
        runner_say(r, "what the endpoint said was not recorded: %s", msg);
    healthy(r);
}

/* An endpoint's poll: ready (200), refused for good (401/403, a
 * redirect: the rung ends at once), or polled again, backing off, until
 * the health timeout; a /health that is 404 is asked as /v1/models. */
static void endpoint_health(struct runner *r, long status, const char *err)
{
    struct rung_event ev;

    if (status == 200) {
        runner_say(r, "endpoint %s ready (%s answered)", r->srv.url,
                   r->srv.health_models ? "/v1/models" : "/health");
        if (r->rung.started > 1) {
            healthy(r);
            return;
        }
        r->srv.said_step = 0;
        json_decref(r->srv.said_obj);
        r->srv.said_obj = json_object();
        said_next(r);
        return;
    }
    if (status == 401 || status == 403 || (status >= 300 && status < 400)) {
        runner_fail(r, EXIT_FAILED,
                    "the endpoint %s answered HTTP %ld to %s: %s; stopping "
                    "the rung",
                    r->srv.url, status,
                    r->srv.health_models ? "/v1/models" : "/health",
                    status < 400 ? "a redirect, not followed (give the URL "
                                   "it points to)"
                                 : "the key was refused (api_key_env)");
        return;
    }
    if (status == 404 && !r->srv.health_models) {
        r->srv.health_models = 1;
        uv_timer_start(&r->timer, health_poll, 0, 0);
        return;
    }
    if (status != 0)
        snprintf(r->srv.health_last, sizeof(r->srv.health_last), "HTTP %ld",
                 status);
    else
        snprintf(r->srv.health_last, sizeof(r->srv.health_last), "%.190s",
                 err ? err : "no answer");
    if (uv_now(&r->sup.loop) > r->srv.health_deadline) {
        memset(&ev, 0, sizeof(ev));
        ev.type = EV_NOT_READY;
        ev.text = r->srv.health_last;
        ev.seconds = r->o->health_timeout_s;
        runner_event(r, &ev);
        return;
    }
    uv_timer_start(&r->timer, health_poll, r->srv.health_wait, 0);
    if (r->srv.health_wait < HEALTH_BACKOFF_MS)
        r->srv.health_wait *= 2;
}

/* Whether the rung's questions hold a tool item. */
static int tool_items(const struct runner *r)
{
    for (size_t i = 0; i < r->qs.n; i++)
        if (r->qs.q[i].tools != NULL)
            return 1;
    return 0;
}

/* The server's /props on its chat template: a template that cannot take
 * tools (upstream's chat_template_caps.supports_tools false: it never
 * renders them) is asked tool items without them, no grammar and no call,
 * and every row is text: the rung stops. Unknown (no /props, no caps: the
 * ik fork's are empty) goes on. */
static void caps_done(void *ctx, long status, const char *err)
{
    struct runner *r = ctx;
    json_t *props = NULL, *tools;

    if (status == 200 && err == NULL && r->srv.said.len > 0)
        props = json_loadb(r->srv.said.p, r->srv.said.len, 0, NULL);
    buf_release(&r->srv.said);
    /* the server gone meanwhile (its exit is the rung's event), or a stop */
    if (r->ended || r->rung.state != RS_STARTING || r->srv.server == NULL) {
        json_decref(props);
        return;
    }
    tools = json_object_get(json_object_get(props, "chat_template_caps"),
                            "supports_tools");
    if (json_is_false(tools)) {
        json_decref(props);
        runner_fail(r, EXIT_FAILED,
                    "the server's chat template cannot take tools (its "
                    "/props: chat_template_caps.supports_tools false), so its "
                    "tool items would be asked without them: give a template "
                    "that renders \"tools\" (--chat-template-file) in the "
                    "rung's server_args (docs/toolcalls.md); stopping the "
                    "rung");
        return;
    }
    json_decref(props);
    healthy(r);
}

/* Ready: with tool items, its /props first (2 s), else healthy now. */
static void ready(struct runner *r)
{
    char url[ENDPOINT_URL_MAX + 32];

    if (!tool_items(r)) {
        healthy(r);
        return;
    }
    snprintf(url, sizeof(url), "%s/props", r->srv.url);
    buf_init(&r->srv.said, ENDPOINT_SAID_CAP);
    if (http_request(r->http, url, NULL, 2000, said_body, caps_done, r) ==
        NULL)
        runner_fail(r, EXIT_FAILED, "cannot ask %s: %s", url,
                    http_error(r->http));
}

static void health_done(void *ctx, long status, const char *err)
{
    struct runner *r = ctx;
    struct rung_event ev;

    if (r->rung.state == RS_STARTING && r->srv.served) {
        endpoint_health(r, status, err);
        return;
    }
    /* after EV_HEALTHY the rung has left RS_STARTING: one per server */
    if (r->rung.state != RS_STARTING || r->srv.server == NULL)
        return;
    memset(&ev, 0, sizeof(ev));
    if (status == 200) {
        runner_say(r, "server ready on port %d (pid %d)", r->srv.port,
                   proc_pid(r->srv.server));
        ready(r);
        return;
    }
    if (uv_now(&r->sup.loop) > r->srv.health_deadline) {
        ev.type = EV_NOT_READY;
        ev.text = proc_last_line(r->srv.server);
        ev.seconds = r->o->health_timeout_s;
        runner_event(r, &ev);
        return;
    }
    uv_timer_start(&r->timer, health_poll, HEALTH_POLL_MS, 0);
}

static void health_poll(uv_timer_t *t)
{
    struct runner *r = t->data;
    char url[ENDPOINT_URL_MAX + 32];

    snprintf(url, sizeof(url), "%s%s", r->srv.url,
             r->srv.health_models ? "/v1/models" : "/health");
    /* a per-poll timeout: the ik fork's /health hangs while loading */
    if (http_request(r->http, url, NULL, 2000, NULL, health_done, r) == NULL)
        runner_fail(r, 1, "cannot poll %s: %s", url, http_error(r->http));
}

static void server_exit(void *ctx, long long status, int sig)
{
    struct runner *r = ctx;
    char last[512];
    struct rung_event ev;

    snprintf(last, sizeof(last), "%s", proc_last_line(r->srv.server));
    serve_drop(r);
    uv_timer_stop(&r->timer); /* health polls, the wait for an exit */
    memset(&ev, 0, sizeof(ev));
    ev.type = EV_EXITED;
    ev.status = status;
    ev.sig = sig;
    ev.text = last;
    ev.port_taken = strstr(last, "bind") != NULL;
    ev.port = r->srv.port;
    ev.oom = r->rung.state == RS_STARTING && gpu_log_oom(r->log_path.p);
    runner_event(r, &ev);
}

/* A served model: nothing to start; its health is polled from now,
 * backing off from HEALTH_POLL_MS, within the health timeout. */
static int endpoint_start(struct runner *r)
{
    char note[ENDPOINT_URL_MAX + 96];

    snprintf(r->srv.url, sizeof(r->srv.url), "%s", r->o->endpoint);
    /* a trailing '/' would make "//health" */
    for (size_t n = strlen(r->srv.url); n > 0 && r->srv.url[n - 1] == '/';)
        r->srv.url[--n] = '\0';
    snprintf(note, sizeof(note), "[graveyard: endpoint %s, check %d]\n",
             r->srv.url, r->rung.started);
    caplog_write(&r->srv.log, note, strlen(note));
    r->srv.served = 1;
    r->srv.health_wait = HEALTH_POLL_MS;
    r->srv.health_last[0] = '\0';
    r->srv.health_deadline =
        uv_now(&r->sup.loop) + (uint64_t)r->o->health_timeout_s * 1000;
    uv_timer_start(&r->timer, health_poll, 0, 0);
    return 0;
}

/* Start a server (A_START_SERVER) and poll its /health. 0, or -1 with
 * the reason in r->err when it cannot be started. */
int serve_start(struct runner *r)
{
    char msg[512], note[96];
    struct proc_opts po;
    char **argv;

    if (r->o->endpoint != NULL)
        return endpoint_start(r);

    r->srv.port = launch_free_port();
    snprintf(r->srv.url, sizeof(r->srv.url), "http://127.0.0.1:%d",
             r->srv.port);
    argv = launch_argv(r->o, r->srv.port);
    snprintf(note, sizeof(note), "[graveyard: server start %d on port %d]\n",
             r->rung.started, r->srv.port);
    caplog_write(&r->srv.log, note, strlen(note));
    memset(&po, 0, sizeof(po));
    po.argv = argv;
    po.env = r->srv.env;
    po.log = &r->srv.log;
    po.fd3 = SPAWN_CLOSED;
    po.new_session = 1;
    /* a server must not outlive us, however we die: SIGKILL, since nobody
     * is left to wait for a graceful stop */
    po.pdeathsig = SIGKILL;
    r->srv.server =
        proc_start(&r->sup.loop, &po, server_exit, r, msg, sizeof(msg));
    launch_free(argv);
    if (r->srv.server == NULL) {
        snprintf(r->err, sizeof(r->err), "%s", msg);
        return -1;
    }
    if (pidfile_write(r->pid_path.p, proc_pid(r->srv.server), msg,
                      sizeof(msg)))
        runner_say(r, "%s", msg);
    r->srv.health_deadline =
        uv_now(&r->sup.loop) + (uint64_t)r->o->health_timeout_s * 1000;
    uv_timer_start(&r->timer, health_poll, 100, 0);
    return 0;
}

void serve_drop(struct runner *r)
{
    if (r->srv.server == NULL)
        return;
    proc_free(r->srv.server);
    r->srv.server = NULL;
    unlink(r->pid_path.p);
}

void serve_stop(struct runner *r)
{
    struct rung_event ev;

    if (r->srv.served) {
        /* nothing of ours runs: "stopped" at once (the rung asks for a
         * stop to end, or to be asked again after a hang) */
        r->srv.served = 0;
        uv_timer_stop(&r->timer);
        memset(&ev, 0, sizeof(ev));
        ev.type = EV_EXITED;
        ev.text = "the endpoint (not ours to stop)";
        runner_event(r, &ev);
        return;
    }
    if (r->srv.server != NULL)
        proc_stop(r->srv.server, r->o->grace_ms);
}

/* The server's environment, made once (GRAVEYARD_* dropped, the GPU). */
void serve_env(struct runner *r)
{
    extern char **environ;

    r->srv.env = launch_env(r->o, environ);
}

/* A broken stream: the server gets a second to exit (A_WAIT_EXIT). */
void serve_wait_exit(struct runner *r)
{
    uv_timer_stop(&r->timer);
    uv_timer_start(&r->timer, exit_wait_cb, EXIT_WAIT_MS, 0);
}

int serve_open_log(struct runner *r, char *msg, size_t msgsize)
{
    if (caplog_open(&r->srv.log, r->log_path.p, r->o->log_cap, msg, msgsize))
        return -1;
    r->srv.log_open = 1;
    return 0;
}

/* The end: nvidia-smi killed if still running. */
void serve_close(struct runner *r)
{
    if (r->srv.probe) {
        proc_free(r->srv.probe);
        r->srv.probe = NULL;
    }
}

void serve_release(struct runner *r)
{
    json_decref(r->srv.said_obj);
    buf_release(&r->srv.said);
    if (r->srv.log_open)
        caplog_close(&r->srv.log);
    launch_free(r->srv.env);
}
