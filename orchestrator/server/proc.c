/*
 * proc.c - start, watch, read, stop.
 */
#define _GNU_SOURCE /* pipe2() */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caplog.h"
#include "../base/cli.h"
#include "spawn.h"
#include "../../util/util.h"

#define LAST_LINE  512
#define READ_CHUNK 65536

struct proc {
    uv_loop_t *loop;
    pid_t pid;
    int group;  /* signals go to -pid */
    int out_fd; /* the read end of its output, or -1 */
    uv_poll_t poll;
    uv_signal_t chld;
    uv_timer_t kill_timer, limit_timer;
    struct caplog *log;
    char *cap; /* a capture, NUL-terminated */
    size_t cap_len, cap_max;
    char line[LAST_LINE], last[4 * LAST_LINE]; /* last: escaped */
    size_t line_len;
    int polling, exited, reported, timed_out, open_handles, freed;
    int cap_kill, overflowed;
    long long status;
    int signal;
    proc_exit_cb exit_cb;
    void *ctx;
};

/* Remember the last complete non-blank line, printable: it is quoted on
 * a terminal and in the rung's files (util_printable). */
static void track_lines(struct proc *p, const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (s[i] == '\n' || s[i] == '\r') {
            if (p->line_len > 0)
                util_printable(p->line, p->line_len, p->last, sizeof(p->last));
            p->line_len = 0;
        } else if (p->line_len + 1 < LAST_LINE) {
            p->line[p->line_len++] = s[i];
        }
    }
}

static void signal_child(struct proc *p, int sig);

static void take(struct proc *p, const char *s, size_t n)
{
    track_lines(p, s, n);
    if (p->log != NULL)
        caplog_write(p->log, s, n);
    if (p->cap != NULL && p->cap_len < p->cap_max) {
        size_t k = p->cap_max - p->cap_len < n ? p->cap_max - p->cap_len : n;
        memcpy(p->cap + p->cap_len, s, k);
        p->cap_len += k;
        p->cap[p->cap_len] = '\0';
        n -= k;
    }
    if (p->cap != NULL && n > 0 && p->cap_kill && !p->overflowed) {
        p->overflowed = 1;
        signal_child(p, SIGKILL);
    }
}

/* Read what is there now (the pipe is non-blocking). Returns 0 when it
 * is empty for now, 1 when more may be waiting (a bounded number of reads,
 * so a flood of output cannot starve the loop), -1 at EOF or an error. */
static int drain(struct proc *p)
{
    char buf[READ_CHUNK];
    int rounds;

    for (rounds = 0; rounds < 16; rounds++) {
        ssize_t n = read(p->out_fd, buf, sizeof(buf));
        if (n > 0) {
            take(p, buf, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        return -1;
    }
    return 1;
}

static void stop_polling(struct proc *p)
{
    if (p->polling) {
        uv_poll_stop(&p->poll);
        p->polling = 0;
    }
}

static void poll_cb(uv_poll_t *h, int status, int events)
{
    struct proc *p = h->data;

    (void)events;
    if (status < 0 || drain(p) < 0)
        stop_polling(p);
}

static void report(struct proc *p)
{
    if (p->reported)
        return;
    p->reported = 1;
    uv_timer_stop(&p->kill_timer);
    uv_timer_stop(&p->limit_timer);
    uv_signal_stop(&p->chld);
    if (p->out_fd >= 0) {
        /* what it wrote before it died is in the pipe: take it now, and
         * never wait for an EOF that a grandchild could withhold */
        if (p->polling)
            while (drain(p) == 1)
                ;
        stop_polling(p);
    }
    if (p->exit_cb != NULL)
        p->exit_cb(p->ctx, p->status, p->signal);
}

/* Any child's SIGCHLD: is it this one? */
static void chld_cb(uv_signal_t *h, int signum)
{
    struct proc *p = h->data;
    int st;
    pid_t w;

    (void)signum;
    if (p->exited)
        return;
    w = spawn_reap(p->pid, p->group, &st, WNOHANG);
    if (w != p->pid)
        return;
    p->exited = 1;
    p->status = WIFEXITED(st) ? WEXITSTATUS(st) : 0;
    p->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    report(p);
}

static void signal_child(struct proc *p, int sig)
{
    if (p->exited) /* reaped: the pid may be somebody else's now */
        return;
    kill(p->group ? -p->pid : p->pid, sig);
}

static void kill_cb(uv_timer_t *t)
{
    signal_child(t->data, SIGKILL);
}

static void limit_cb(uv_timer_t *t)
{
    struct proc *p = t->data;

    p->timed_out = 1;
    signal_child(p, SIGKILL);
}

static void closed_cb(uv_handle_t *h)
{
    struct proc *p = h->data;

    if (--p->open_handles > 0)
        return;
    if (p->out_fd >= 0)
        close(p->out_fd);
    if (!p->exited) /* given up while running, and killed: reap it if it
                       is gone already; never block on a process stuck in
                       the kernel (a wedged GPU driver) */
        spawn_reap(p->pid, p->group, NULL, WNOHANG);
    free(p->cap);
    free(p);
}

static void close_handles(struct proc *p)
{
    p->open_handles = 3;
    uv_close((uv_handle_t *)&p->chld, closed_cb);
    uv_close((uv_handle_t *)&p->kill_timer, closed_cb);
    uv_close((uv_handle_t *)&p->limit_timer, closed_cb);
    if (p->out_fd >= 0) {
        p->open_handles++;
        uv_close((uv_handle_t *)&p->poll, closed_cb);
    }
}

struct proc *proc_start(uv_loop_t *loop, const struct proc_opts *o,
                        proc_exit_cb cb, void *ctx, char *msg, size_t msgsize)
{
    struct proc *p = xrealloc(NULL, sizeof(*p));
    struct spawn_spec s;
    int out[2] = {-1, -1};

    memset(p, 0, sizeof(*p));
    p->loop = loop;
    p->exit_cb = cb;
    p->ctx = ctx;
    p->log = o->log;
    p->group = o->new_session;
    p->out_fd = -1;
    memset(&s, 0, sizeof(s));
    s.argv = o->argv;
    s.env = o->env;
    s.fd[0] = o->stdin_fd > 0 ? o->stdin_fd : SPAWN_NULL;
    s.fd[1] = SPAWN_NULL;
    s.fd[2] = o->stderr_fd;
    s.fd[3] = o->fd3;
    s.new_session = o->new_session;
    s.pdeathsig = o->pdeathsig;
    s.rlimits = o->rlimits;
    s.nrlimits = o->nrlimits;
    s.uid = o->uid;
    s.gid = o->gid;
    if (o->log != NULL || o->capture > 0) {
        if (pipe2(out, O_CLOEXEC | O_NONBLOCK) != 0) {
            snprintf(msg, msgsize, "cannot start '%s': %s", o->argv[0],
                     strerror(errno));
            free(p);
            return NULL;
        }
        /* the child's end must block like any stdout */
        fcntl(out[1], F_SETFL, 0);
        s.fd[1] = out[1];
        if (o->log != NULL || (o->capture > 0 && o->capture_stderr))
            s.fd[2] = out[1];
        if (o->capture > 0) {
            p->cap_kill = o->capture_kill;
            p->cap_max = o->capture;
            p->cap = xrealloc(NULL, o->capture + 1);
            p->cap[0] = '\0';
        }
        p->out_fd = out[0];
    }
    uv_signal_init(loop, &p->chld);
    p->chld.data = p;
    uv_timer_init(loop, &p->kill_timer);
    p->kill_timer.data = p;
    uv_timer_init(loop, &p->limit_timer);
    p->limit_timer.data = p;
    if (p->out_fd >= 0) {
        uv_poll_init(loop, &p->poll, p->out_fd);
        p->poll.data = p;
    }
    /* watch before the fork: a child that exits at once is not missed */
    uv_signal_start(&p->chld, chld_cb, SIGCHLD);
    if (spawn_start(&s, &p->pid, msg, msgsize) != 0) {
        if (out[1] >= 0)
            close(out[1]);
        p->exited = p->reported = 1;
        close_handles(p);
        return NULL;
    }
    if (out[1] >= 0)
        close(out[1]);
    if (p->out_fd >= 0) {
        uv_poll_start(&p->poll, UV_READABLE, poll_cb);
        p->polling = 1;
    }
    /* the limit counts from the spawn, not from the loop's time cached
     * when this turn began: a turn that spawned others first (a pool's
     * kick) left the child less than its limit (CI saw a 3 s sandbox
     * limit end a program at under 3 s, measured from its spawn) */
    if (o->timeout_ms > 0) {
        uv_update_time(p->loop);
        uv_timer_start(&p->limit_timer, limit_cb, o->timeout_ms, 0);
    }
    return p;
}

void proc_stop(struct proc *p, unsigned grace_ms)
{
    if (p->exited)
        return;
    signal_child(p, SIGTERM);
    if (!uv_is_active((uv_handle_t *)&p->kill_timer))
        uv_timer_start(&p->kill_timer, kill_cb, grace_ms, 0);
}

void proc_kill(struct proc *p)
{
    signal_child(p, SIGKILL);
}

int proc_exited(const struct proc *p)
{
    return p->exited;
}

int proc_timed_out(const struct proc *p)
{
    return p->timed_out;
}

int proc_overflowed(const struct proc *p)
{
    return p->overflowed;
}

int proc_pid(const struct proc *p)
{
    return p->pid;
}

const char *proc_last_line(const struct proc *p)
{
    return p->last;
}

const char *proc_output(const struct proc *p, size_t *len)
{
    if (len != NULL)
        *len = p->cap_len;
    return p->cap ? p->cap : "";
}

void proc_free(struct proc *p)
{
    if (p->freed)
        return;
    p->freed = 1;
    if (!p->exited)
        signal_child(p, SIGKILL); /* closed_cb reaps it */
    p->reported = 1;
    stop_polling(p);
    close_handles(p);
}
