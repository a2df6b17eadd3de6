/*
 * super.c - the loop, its signals, its tick and its lines (super.h).
 */
#include "super.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../base/cli.h"
#include "gpu.h"
#include "../server/proc.h"
#include "../server/spawn.h"

static const int signums[3] = {SIGINT, SIGTERM, SIGHUP};

void super_init(struct super *s, const char *who, int quiet,
                enum super_second second)
{
    memset(s, 0, sizeof(*s));
    s->who = who;
    s->quiet = quiet;
    s->second = (int)second;
    s->tty = isatty(2);
}

void super_vsay(struct super *s, const char *fmt, va_list ap)
{
    if (s->drawn > 0) { /* the live lines are drawn again at the tick */
        fprintf(stderr, "\033[%dA\033[J", s->drawn);
        s->drawn = 0;
    }
    fprintf(stderr, "graveyard %s: ", s->who);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void super_note(struct super *s, const char *fmt, ...)
{
    va_list ap;

    if (s->quiet)
        return;
    va_start(ap, fmt);
    super_vsay(s, fmt, ap);
    va_end(ap);
}

void super_error(struct super *s, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    super_vsay(s, fmt, ap);
    va_end(ap);
}

void super_line(struct super *s, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, s->tty ? "  " : "graveyard %s: ", s->who);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (s->tty)
        s->drawn++;
}

/* Probes still asking are of no use any more (a stop, or no child left):
 * killed, their answers dropped. */
static void probes_kill(struct super *s)
{
    for (size_t i = 0; i < SUPER_MAX_PROBES; i++)
        if (s->probes[i].proc != NULL)
            proc_kill(s->probes[i].proc);
}

static void signal_cb(uv_signal_t *h, int signum)
{
    struct super *s = h->data;

    if (s->stopping) {
        if (s->second == SUPER_SECOND_AGAIN)
            s->ops->stop(s->ctx, signum);
        return;
    }
    s->stopping = 1;
    s->sig = signum;
    s->ops->stop(s->ctx, signum);
    probes_kill(s);
    /* the ladder: a second signal takes its default course */
    for (size_t i = 0; s->second == SUPER_SECOND_KILLS && i < 3; i++)
        if (!uv_is_closing((uv_handle_t *)&s->sigs[i]))
            uv_close((uv_handle_t *)&s->sigs[i], NULL);
}

static void tick_cb(uv_timer_t *t)
{
    struct super *s = t->data;

    if (!s->stopping && s->ops->watch != NULL)
        s->ops->watch(s->ctx);
    if (s->quiet || s->stopping || s->ops->draw == NULL)
        return;
    if (!s->tty && uv_now(&s->loop) - s->last_plain < 60000)
        return;
    s->last_plain = uv_now(&s->loop);
    if (s->tty && s->drawn > 0)
        fprintf(stderr, "\033[%dA\033[J", s->drawn);
    s->drawn = 0;
    s->ops->draw(s->ctx);
}

int super_open(struct super *s, const struct super_ops *ops, void *ctx)
{
    if (uv_loop_init(&s->loop) != 0) {
        super_error(s, "libuv did not start");
        return -1;
    }
    s->ops = ops;
    s->ctx = ctx;
    for (size_t i = 0; i < 3; i++) {
        uv_signal_init(&s->loop, &s->sigs[i]);
        s->sigs[i].data = s;
        /* under nohup the hangup is not ours to act on */
        if (signums[i] != SIGHUP || !cli_hup_ignored())
            uv_signal_start(&s->sigs[i], signal_cb, signums[i]);
    }
    s->ticking = ops->watch != NULL || ops->draw != NULL;
    if (!s->ticking)
        return 0;
    uv_timer_init(&s->loop, &s->tick);
    s->tick.data = s;
    s->last_plain = uv_now(&s->loop);
    uv_timer_start(&s->tick, tick_cb, 1000, 1000);
    return 0;
}

int super_run(struct super *s)
{
    int alive = 1;

    /* the signal handles keep the loop alive: run until no child is */
    while (alive || !s->closed) {
        if (!s->closed && !s->ops->busy(s->ctx)) {
            for (size_t i = 0; i < 3; i++)
                if (!uv_is_closing((uv_handle_t *)&s->sigs[i]))
                    uv_close((uv_handle_t *)&s->sigs[i], NULL);
            if (s->ticking)
                uv_close((uv_handle_t *)&s->tick, NULL);
            probes_kill(s);
            s->closed = 1;
        }
        alive = uv_run(&s->loop, UV_RUN_ONCE);
    }
    if (uv_loop_close(&s->loop) != 0) {
        super_error(s, "a handle was left open");
        return -1;
    }
    return 0;
}

static void probe_exit(void *ctx, long long status, int sig)
{
    struct super_probe *pr = ctx;
    struct super *s = pr->s;
    const char *out = proc_output(pr->proc, NULL);
    long free_mib = -1; /* unknown, unless nvidia-smi said it in time */

    if (status == 0 && sig == 0 && !proc_timed_out(pr->proc))
        gpu_parse(out, &free_mib, NULL, 0);
    proc_free(pr->proc);
    pr->proc = NULL;
    if (!s->stopping && !s->closed)
        s->ops->probed(s->ctx, pr->slot, free_mib);
}

int super_probe_free(struct super *s, size_t slot, const char *gpu)
{
    struct super_probe *pr;
    const char *argv[6];
    struct proc_opts po;
    char msg[256];

    if (slot >= SUPER_MAX_PROBES || s->stopping || s->closed)
        return -1;
    pr = &s->probes[slot];
    if (pr->proc != NULL)
        return 0;
    gpu_free_argv(gpu, argv);
    gpu_probe_opts(&po, argv, 256, GPU_FREE_MS);
    pr->s = s;
    pr->slot = slot;
    pr->proc = proc_start(&s->loop, &po, probe_exit, pr, msg, sizeof(msg));
    return pr->proc != NULL ? 0 : -1;
}
