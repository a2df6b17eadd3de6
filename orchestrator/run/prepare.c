/*
 * prepare.c - before the server (runner_int.h): the model hashed off the
 * loop (or found in the cache), what the rung is made with recorded under
 * files.lock (waited for on the loop's timer, lockwait.h), a finished
 * rung's summary printed again, the server's log opened, and a server an
 * earlier run left stopped on a timer; then nvidia-smi's "before" figure
 * and EV_BEGIN.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../rundir/files.h"
#include "../../rundir/ladderfile.h"
#include "../../rundir/pidfile.h"
#include "../../rundir/rundir.h"
#include "../../util/util.h"
#include "../base/cli.h"
#include "record.h"
#include "runner_int.h"

#define REAP_POLL_MS  50   /* a server left by an earlier run: is it gone? */
#define REAP_GRACE_MS 5000 /* SIGTERM, then SIGKILL */

/* Prepared: the rung begins (its first server, unless every row is
 * there already). */
static void begin(struct runner *r)
{
    struct rung_event ev;

    memset(&ev, 0, sizeof(ev));
    ev.type = EV_BEGIN;
    runner_event(r, &ev);
}

/* The stale server is gone (or was never there): libcurl, the server's
 * environment, then nvidia-smi's "before" figure and the rung begins. */
static void ready_to_start(struct runner *r)
{
    char why[512];

    r->http = http_new(&r->sup.loop, why, sizeof(why));
    if (r->http == NULL) {
        runner_fail(r, EXIT_FAILED, "%s", why);
        return;
    }
    /* the key, from the environment only: libcurl's header holds it, and
     * nothing else of ours (record_inputs checked it is set) */
    if (r->o->api_key_env != NULL &&
        http_set_bearer(r->http, getenv(r->o->api_key_env)) != 0) {
        runner_fail(r, EXIT_USAGE,
                    "the key in '%.100s' is empty, too long or holds a line "
                    "break",
                    r->o->api_key_env);
        return;
    }
    serve_env(r);
    serve_probe(r, 0, begin);
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
    long pid = pidfile_find(r->pid_path.p, msg, sizeof(msg));
    uint64_t now = uv_now(&r->sup.loop);

    if (pid < 0) {
        runner_fail(r, files_exit_code(errno), "%s", msg);
        return;
    }
    if (pid == 0) {
        if (r->prep.reaped > 0)
            runner_say(r, "stopped server pid %ld left by an earlier run",
                       r->prep.reaped);
        ready_to_start(r);
        return;
    }
    if (r->prep.reaped == 0) {
        r->prep.reaped = pid;
        r->prep.reap_since = now;
        kill((pid_t)-pid, SIGTERM);
    } else if (now - r->prep.reap_since >= REAP_GRACE_MS + 1000) {
        runner_say(r,
                   "server pid %ld left by an earlier run is still there a "
                   "second after SIGKILL; going on",
                   pid);
        unlink(r->pid_path.p);
        ready_to_start(r);
        return;
    } else if (now - r->prep.reap_since >= REAP_GRACE_MS &&
               !r->prep.reap_killed) {
        r->prep.reap_killed = 1;
        kill((pid_t)-pid, SIGKILL);
    }
    uv_timer_start(&r->timer, reap_again, REAP_POLL_MS, 0);
}

static void reap_again(uv_timer_t *t)
{
    reap(t->data);
}

/* files.lock is ours (lockwait.h: tried on the loop's timer while
 * another graveyard holds it, for up to a minute): record what the rung
 * is made with, then a finished rung prints its summary, and any other
 * opens its log and stops a server an earlier run left. */
static void locked(struct lockwait *lw, int lrc, int fd)
{
    struct runner *r = lw->ctx;
    const struct hash_job *job = &r->prep.model_hash;
    char msg[1024], warn[1024];
    int rc;

    if (r->ended) {
        if (fd >= 0)
            close(fd);
        return;
    }
    if (lrc != LOCKWAIT_HELD) {
        runner_fail(
            r, lrc == LOCKWAIT_EOPEN ? files_exit_code(lw->err) : EXIT_FAILED,
            "%s", lw->msg);
        return;
    }
    rc = record_made_with(r->o, r->version, r->binary_sha, job, r->vocab,
                          r->execs.on ? &r->execs.record : NULL,
                          r->prep.hash_cached, warn, sizeof(warn), msg,
                          sizeof(msg));
    close(fd); /* the lock let go */
    if (warn[0] != '\0')
        runner_say(r, "%s", warn);
    if (rc != 0) {
        runner_fail(r, rc, "%s", msg);
        return;
    }
    if (r->complete) {
        /* the settings are the rows' settings: the summary stands */
        rc = record_print_done(r->o, msg, sizeof(msg));
        runner_fail(r, rc, "%s", rc != 0 ? msg : "");
        return;
    }
    if (r->o->endpoint != NULL)
        runner_say(r, "%s (not pinned), %zu of %zu questions answered",
                   r->version, r->rows, r->qs.n);
    else
        runner_say(r,
                   "%s, model sha256 %.12s...%s, %zu of %zu questions "
                   "answered",
                   r->version, job->hex,
                   r->prep.hash_cached ? " (cached)" : "", r->rows, r->qs.n);
    if (serve_open_log(r, msg, sizeof(msg)) != 0) {
        runner_fail(r, files_exit_code(errno), "%s", msg);
        return;
    }
    reap(r);
}

static void hashed(struct hash_job *job)
{
    struct runner *r = job->ctx;

    r->prep.hashing = 0;
    if (r->ended || r->rung.state != RS_IDLE)
        return;
    if (job->err[0] != '\0') {
        runner_fail(r, EXIT_USAGE, "%s", job->err);
        return;
    }
    if (lockwait_start(&r->files_lock, r->o->rundir, LOCKWAIT_LONG_MS, locked,
                       r) != 0)
        runner_fail(r, EXIT_FAILED, "files.lock is waited for twice");
}

/* The model's hash, from RUNDIR/sha256.cache when its size and mtime are
 * unchanged, else on the thread pool; then the chain above. */
void prepare_start(struct runner *r)
{
    struct buf cache = {0};
    int hit;

    if (r->o->endpoint != NULL) {
        /* a served model: no file of ours to hash (its manifest says so) */
        r->prep.model_hash.ctx = r;
        r->prep.model_hash.hex[0] = '\0';
        r->prep.model_hash.bytes = 0;
        r->prep.hash_cached = 1;
        hashed(&r->prep.model_hash);
        return;
    }
    /* record_inputs kept the folder's paths under the cap already */
    if (rundir_path_buf(&cache, r->o->rundir, RD_HASH_CACHE, NULL) != 0) {
        buf_release(&cache);
        runner_fail(r, EXIT_USAGE, "path too long: '%.200s...'", r->o->rundir);
        return;
    }
    hit = sha_cache_get(cache.p, r->o->model, r->prep.model_hash.hex,
                        &r->prep.model_hash.bytes);
    buf_release(&cache);
    if (hit) {
        r->prep.model_hash.ctx = r;
        r->prep.hash_cached = 1;
        hashed(&r->prep.model_hash);
    } else if (hash_file_async(&r->sup.loop, &r->prep.model_hash, r->o->model,
                               hashed, r) != 0) {
        runner_fail(r, EXIT_FAILED, "cannot queue the model's hash");
    } else {
        r->prep.hashing = 1;
    }
}

/* The end: a hash in flight is cancelled (the loop waits for its end). */
void prepare_close(struct runner *r)
{
    if (r->prep.hashing)
        hash_cancel(&r->prep.model_hash);
}
