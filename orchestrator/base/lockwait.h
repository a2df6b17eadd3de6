/*
 * lockwait.h - the one way to wait for RUNDIR/locks/files.lock. Other
 * graveyards hold it for milliseconds while they change the shared files
 * (the manifest, ladder.tsv, the sha256 cache), so a wait is a few tries
 * LOCKWAIT_POLL_MS apart, up to a limit the caller sets:
 *
 *   lockwait_start  on a loop: each try on the loop's timer, so a signal
 *                   is seen between tries (run, build)
 *   lockwait_block  for a command without a loop (import): the same
 *                   tries, napping between them on its own thread
 *
 * Both try with rundir/'s files_try_lock (never a blocking flock) and
 * decide with lockwait_next, so they give up, fail and name the file in
 * the same words.
 */
#ifndef LOCKWAIT_H
#define LOCKWAIT_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#define LOCKWAIT_POLL_MS 20    /* between two tries */
#define LOCKWAIT_LONG_MS 60000 /* a minute means something is wrong */

/* What comes of a wait (and of one try, for lockwait_next). */
enum lockwait_rc {
    LOCKWAIT_HELD = 0,    /* the lock is ours: close its fd to let go */
    LOCKWAIT_GAVE_UP = 1, /* another process held it past the limit */
    LOCKWAIT_EOPEN = -1,  /* it cannot be opened (errno kept in err) */
    LOCKWAIT_ELOCK = -2   /* it cannot be locked */
};

/* The decision after one try: files_try_lock returned try_rc (0 held, 1
 * busy, -1 or -2 a failure) when waited ms have gone since the first try.
 * LOCKWAIT_AGAIN: try again in LOCKWAIT_POLL_MS; else the wait's end. A
 * try past the limit that finds the lock free takes it. */
#define LOCKWAIT_AGAIN 2
int lockwait_next(int try_rc, uint64_t waited, uint64_t limit_ms);

struct lockwait;

/* The wait's end, on the loop: rc from enum lockwait_rc, fd the lock's
 * descriptor (rc LOCKWAIT_HELD, the callee closes it) or -1, and lw->msg
 * the reason otherwise. */
typedef void (*lockwait_cb)(struct lockwait *lw, int rc, int fd);

/* Plain data, embedded in its owner (container_of or ctx back to it). */
struct lockwait {
    uv_timer_t timer;   /* lockwait_init's; lockwait_close closes it */
    const char *rundir; /* borrowed for the wait */
    uint64_t since;     /* the loop's time at the first try */
    uint64_t limit_ms;
    lockwait_cb done;
    void *ctx;
    int waiting; /* started, done not yet called */
    int err;     /* errno of a failed open or lock */
    char msg[1100];
};

/* The timer on loop; the wait idle. */
void lockwait_init(struct lockwait *lw, uv_loop_t *loop);

/* Wait for rundir's files.lock for up to limit_ms: the first try on the
 * loop's next turn, then every LOCKWAIT_POLL_MS. done runs once, on the
 * loop, never from within this call; never when the wait is cancelled
 * or closed first. 0, or -1 when a wait is already under way (done will
 * not run for this call). */
int lockwait_start(struct lockwait *lw, const char *rundir, uint64_t limit_ms,
                   lockwait_cb done, void *ctx);

/* The wait stopped, done not called; nothing is held. */
void lockwait_cancel(struct lockwait *lw);

/* The wait cancelled and its timer closed (the loop runs until it is);
 * cb as uv_close's, or NULL. Safe to call twice. */
void lockwait_close(struct lockwait *lw, uv_close_cb cb);

/* For a command without a loop: the same tries, napping between them,
 * for up to limit_ms. LOCKWAIT_HELD with *fd locked, or the rc and a
 * message naming the file in msg (errno kept for files_exit_code). */
int lockwait_block(const char *rundir, uint64_t limit_ms, int *fd, char *msg,
                   size_t msgsize);

#endif
