/*
 * proc.c - spawn, capture, stop.
 */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define LAST_LINE 512

struct proc {
    uv_process_t process;
    uv_pipe_t out[2]; /* stdout, stderr */
    uv_timer_t kill_timer;
    int log_fd;
    size_t head_cap, head_written; /* bytes written before the cap */
    char *tail;                    /* ring of the last head_cap bytes */
    size_t tail_len, tail_pos;
    unsigned long long dropped;
    char line[LAST_LINE], last[LAST_LINE];
    size_t line_len;
    int open_pipes, exited, reported, closing, open_handles;
    long long status;
    int signal;
    proc_exit_cb exit_cb;
    void *ctx;
};

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return; /* a log that cannot be written must not stop a run */
        p += k;
        n -= (size_t)k;
    }
}

/* Remember the last complete non-blank line. */
static void track_lines(struct proc *p, const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (s[i] == '\n' || s[i] == '\r') {
            if (p->line_len > 0) {
                memcpy(p->last, p->line, p->line_len);
                p->last[p->line_len] = '\0';
            }
            p->line_len = 0;
        } else if (p->line_len + 1 < LAST_LINE) {
            p->line[p->line_len++] = s[i];
        }
    }
}

static void take_output(struct proc *p, const char *s, size_t n)
{
    size_t room = p->head_cap - p->head_written, k;

    track_lines(p, s, n);
    if (room > 0) {
        k = n < room ? n : room;
        write_all(p->log_fd, s, k);
        p->head_written += k;
        s += k;
        n -= k;
    }
    /* past the head: keep a ring of the tail */
    while (n > 0) {
        size_t at = p->tail_pos % p->head_cap;
        k = p->head_cap - at < n ? p->head_cap - at : n;
        if (p->tail_len == p->head_cap)
            p->dropped += k;
        memcpy(p->tail + at, s, k);
        p->tail_pos += k;
        p->tail_len =
            p->tail_len + k > p->head_cap ? p->head_cap : p->tail_len + k;
        s += k;
        n -= k;
    }
}

static void flush_tail(struct proc *p)
{
    char note[128];
    size_t start;

    if (p->tail_len == 0)
        return;
    snprintf(note, sizeof(note),
             "\n[graveyard: %llu bytes of server output dropped here "
             "(log cap)]\n",
             p->dropped);
    if (p->dropped > 0)
        write_all(p->log_fd, note, strlen(note));
    start = (p->tail_pos - p->tail_len) % p->head_cap;
    if (start + p->tail_len <= p->head_cap) {
        write_all(p->log_fd, p->tail + start, p->tail_len);
    } else {
        write_all(p->log_fd, p->tail + start, p->head_cap - start);
        write_all(p->log_fd, p->tail, p->tail_len - (p->head_cap - start));
    }
    p->tail_len = 0;
}

static void maybe_report(struct proc *p)
{
    if (!p->exited || p->open_pipes > 0 || p->reported)
        return;
    p->reported = 1;
    flush_tail(p);
    fsync(p->log_fd);
    uv_timer_stop(&p->kill_timer);
    p->exit_cb(p->ctx, p->status, p->signal);
}

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    static char chunk[65536];

    (void)h;
    (void)suggested;
    /* one loop thread: a static buffer is safe and costs nothing */
    *buf = uv_buf_init(chunk, sizeof(chunk));
}

static void read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    struct proc *p = s->data;

    if (n > 0) {
        take_output(p, buf->base, (size_t)n);
        return;
    }
    if (n < 0) {
        uv_read_stop(s);
        p->open_pipes--;
        maybe_report(p);
    }
}

static void exit_cb(uv_process_t *h, int64_t status, int signal)
{
    struct proc *p = h->data;

    p->exited = 1;
    p->status = status;
    p->signal = signal;
    maybe_report(p);
}

struct proc *proc_spawn(uv_loop_t *loop, char *const *argv, char *const *env,
                        const char *log_path, size_t log_cap, proc_exit_cb cb,
                        void *ctx, char *msg, size_t msgsize)
{
    struct proc *p = xrealloc(NULL, sizeof(*p));
    uv_process_options_t o;
    uv_stdio_container_t stdio[3];
    int rc, i;

    memset(p, 0, sizeof(*p));
    p->exit_cb = cb;
    p->ctx = ctx;
    p->head_cap = log_cap / 2 > 0 ? log_cap / 2 : 1;
    p->tail = xrealloc(NULL, p->head_cap);
    p->log_fd =
        open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (p->log_fd < 0) {
        snprintf(msg, msgsize, "cannot open server log '%s': %s", log_path,
                 strerror(errno));
        free(p->tail);
        free(p);
        return NULL;
    }
    for (i = 0; i < 2; i++) {
        uv_pipe_init(loop, &p->out[i], 0);
        p->out[i].data = p;
    }
    uv_timer_init(loop, &p->kill_timer);
    p->kill_timer.data = p;
    memset(&o, 0, sizeof(o));
    stdio[0].flags = UV_IGNORE;
    stdio[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
    stdio[1].data.stream = (uv_stream_t *)&p->out[0];
    stdio[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
    stdio[2].data.stream = (uv_stream_t *)&p->out[1];
    o.file = argv[0];
    o.args = (char **)argv;
    o.env = (char **)env;
    o.stdio = stdio;
    o.stdio_count = 3;
    o.exit_cb = exit_cb;
    /* its own session, so its process group is its pid: one signal to
     * -pid reaches anything it started too */
    o.flags = UV_PROCESS_DETACHED;
    p->process.data = p;
    rc = uv_spawn(loop, &p->process, &o);
    /* the process handle is initialised even when spawning fails, and
     * must be closed like the others */
    p->open_handles = 4;
    if (rc != 0) {
        snprintf(msg, msgsize, "cannot start '%s': %s", argv[0],
                 uv_strerror(rc));
        p->exited = p->reported = 1;
        proc_free(p);
        return NULL;
    }
    for (i = 0; i < 2; i++) {
        uv_read_start((uv_stream_t *)&p->out[i], alloc_cb, read_cb);
        p->open_pipes++;
    }
    return p;
}

static void kill_cb(uv_timer_t *t)
{
    struct proc *p = t->data;

    if (!p->exited)
        uv_kill(-p->process.pid, SIGKILL);
}

void proc_stop(struct proc *p, unsigned grace_ms)
{
    if (p->exited)
        return;
    uv_kill(-p->process.pid, SIGTERM);
    uv_timer_start(&p->kill_timer, kill_cb, grace_ms, 0);
}

int proc_pid(const struct proc *p)
{
    return p->process.pid;
}

const char *proc_last_line(const struct proc *p)
{
    return p->last;
}

unsigned long long proc_dropped(const struct proc *p)
{
    return p->dropped;
}

static void closed_cb(uv_handle_t *h)
{
    struct proc *p = h->data;

    if (--p->open_handles == 0) {
        close(p->log_fd);
        free(p->tail);
        free(p);
    }
}

void proc_free(struct proc *p)
{
    int i;

    uv_close((uv_handle_t *)&p->process, closed_cb);
    for (i = 0; i < 2; i++)
        uv_close((uv_handle_t *)&p->out[i], closed_cb);
    uv_close((uv_handle_t *)&p->kill_timer, closed_cb);
}
