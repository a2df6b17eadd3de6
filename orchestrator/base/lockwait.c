/*
 * lockwait.c - waiting for files.lock (lockwait.h): one decision
 * (lockwait_next) under two waiters, a timer on a loop and a blocking
 * loop of tries for commands without one. The try is rundir/'s.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../rundir/files.h"
#include "../../rundir/rundir.h"
#include "../../util/util.h"
#include "lockwait.h"

int lockwait_next(int try_rc, uint64_t waited, uint64_t limit_ms)
{
    if (try_rc == 0)
        return LOCKWAIT_HELD;
    if (try_rc == -1)
        return LOCKWAIT_EOPEN;
    if (try_rc != 1)
        return LOCKWAIT_ELOCK;
    return waited >= limit_ms ? LOCKWAIT_GAVE_UP : LOCKWAIT_AGAIN;
}

/* The words for a lock held past the limit, naming the file. */
static void gave_up(const char *rundir, uint64_t limit_ms, char *msg,
                    size_t msgsize)
{
    struct buf path = {0};
    int whole = limit_ms >= 1000 && limit_ms % 1000 == 0;

    /* files_try_lock made the path already: it fits the cap */
    if (rundir_path_buf(&path, rundir, RD_FILES_LOCK, NULL) != 0)
        snprintf(msg, msgsize, "path too long: '%.200s...'", rundir);
    else
        snprintf(msg, msgsize,
                 "'%.900s' was held by another process for %llu %s", path.p,
                 (unsigned long long)(whole ? limit_ms / 1000 : limit_ms),
                 whole ? "s" : "ms");
    buf_release(&path);
}

/* One try and its decision; *fd and msg as files_try_lock leaves them. */
static int try_once(const char *rundir, uint64_t waited, uint64_t limit_ms,
                    int *fd, int *err, char *msg, size_t msgsize)
{
    int rc = files_try_lock(rundir, fd, msg, msgsize);

    *err = errno;
    rc = lockwait_next(rc, waited, limit_ms);
    if (rc == LOCKWAIT_GAVE_UP)
        gave_up(rundir, limit_ms, msg, msgsize);
    return rc;
}

static void tick_cb(uv_timer_t *t)
{
    struct lockwait *lw = t->data;
    uint64_t waited = uv_now(t->loop) - lw->since;
    int fd = -1;
    int rc = try_once(lw->rundir, waited, lw->limit_ms, &fd, &lw->err, lw->msg,
                      sizeof(lw->msg));

    if (rc == LOCKWAIT_AGAIN) {
        uv_timer_start(&lw->timer, tick_cb, LOCKWAIT_POLL_MS, 0);
        return;
    }
    lw->waiting = 0;
    if (rc != LOCKWAIT_HELD)
        fd = -1;
    lw->done(lw, rc, fd);
}

void lockwait_init(struct lockwait *lw, uv_loop_t *loop)
{
    memset(lw, 0, sizeof(*lw));
    uv_timer_init(loop, &lw->timer);
    lw->timer.data = lw;
}

int lockwait_start(struct lockwait *lw, const char *rundir, uint64_t limit_ms,
                   lockwait_cb done, void *ctx)
{
    if (lw->waiting || uv_is_closing((uv_handle_t *)&lw->timer))
        return -1;
    lw->rundir = rundir;
    lw->limit_ms = limit_ms;
    lw->done = done;
    lw->ctx = ctx;
    lw->err = 0;
    lw->msg[0] = '\0';
    uv_update_time(lw->timer.loop); /* the limit counts from now */
    lw->since = uv_now(lw->timer.loop);
    lw->waiting = 1;
    uv_timer_start(&lw->timer, tick_cb, 0, 0);
    return 0;
}

void lockwait_cancel(struct lockwait *lw)
{
    lw->waiting = 0;
    if (!uv_is_closing((uv_handle_t *)&lw->timer))
        uv_timer_stop(&lw->timer);
}

void lockwait_close(struct lockwait *lw, uv_close_cb cb)
{
    lockwait_cancel(lw);
    if (!uv_is_closing((uv_handle_t *)&lw->timer))
        uv_close((uv_handle_t *)&lw->timer, cb);
}

static uint64_t mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int lockwait_block(const char *rundir, uint64_t limit_ms, int *fd, char *msg,
                   size_t msgsize)
{
    const struct timespec poll = {0, LOCKWAIT_POLL_MS * 1000000L};
    uint64_t since = mono_ms();
    int rc, err = 0;

    *fd = -1;
    while ((rc = try_once(rundir, mono_ms() - since, limit_ms, fd, &err, msg,
                          msgsize)) == LOCKWAIT_AGAIN)
        nanosleep(&poll, NULL); /* no loop here: nothing else to see */
    if (rc != LOCKWAIT_HELD)
        *fd = -1;
    errno = err;
    return rc;
}
