/*
 * buildstep.c - graveyard build's steps on the libuv loop (build.h).
 *
 * A step goes: hash its source (the sha cache spares a second hash) ->
 * for a "convert": "f16" rung, f16-range on the checkpoint -> the tool ->
 * check its output is a GGUF, sync, rename -> hash the file -> record it
 * in ladder.tsv, the sha cache and build.json. Work longer than a
 * moment (hashes, f16-range, fsync) runs on libuv's thread pool: nothing
 * waits on the loop thread, so a signal stops the tools at once.
 *
 * Which phase comes next, and what a step's end does to the others, is
 * buildjobs.c's (events in, actions out, over the scheduler's one table
 * of states): this file turns what happens on the loop into its events
 * and carries out its actions.
 *
 * This file has a step's work and the loop; what a step runs and leaves
 * (the tool's argv, its log, its build line, the disk, temporary files
 * and the groups an earlier build left, the messages) is buildtool.c's.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <strings.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <uv.h>

#include "../../rundir/buildrec.h"
#include "../../rundir/files.h"
#include "../../rundir/ladderfile.h"
#include "../../rundir/pidfile.h"
#include "../../rundir/rundir.h"
#include "../../weights/f16range.h"
#include "../../weights/tensors.h"
#include "build_int.h"
#include "../base/cli.h"
#include "../base/lockwait.h"
#include "../server/proc.h"
#include "../server/spawn.h"

/* ---- the steps ----------------------------------------------------- */

static void feed(struct bld *b, enum bj_ev type, size_t i, int ok,
                 const char *hex);
static void carry_out(struct bld *b, const struct bj_action *a, size_t n);

json_t *build_record(const struct bld *b, size_t i)
{
    json_t *rec = json_object_get(b->recs, b->c->rungs[i].name);
    const char *file = json_string_value(json_object_get(rec, "file"));

    return file != NULL && strcmp(file, b->c->rungs[i].model) == 0 ? rec
                                                                   : NULL;
}

const char *build_made_from(const struct bld *b, size_t i)
{
    const char *sha;

    if (b->c->rungs[i].recipe != RECIPE_QUANTIZE ||
        b->jobs.job[i].got != BJ_HAVE)
        return NULL;
    sha = json_string_value(
        json_object_get(build_record(b, i), "source_sha256"));
    return sha != NULL && strlen(sha) == 64 ? sha : NULL;
}

/* A step failed: what its tool left there, a folder it made included,
 * is removed. */
static void remove_tmp(struct step *s)
{
    if (s->tmp.p != NULL && build_remove_at(AT_FDCWD, s->tmp.p, 0) != 0)
        build_error(s->b, "%s: cannot remove %s: %s", build_rname(s), s->tmp.p,
                    strerror(errno));
}

/* -- source hash -- */

/* The file a conversion or quantization reads, b holding it when it is
 * the checkpoint's; NULL when that path passes the path cap. */
static const char *source_file(const struct step *s, struct buf *b)
{
    const struct config *c = s->b->c;
    const struct config_rung *r = &c->rungs[s->i];
    struct stat st;

    if (r->recipe == RECIPE_QUANTIZE)
        return c->rungs[r->from].model;
    /* a checkpoint: its index (which names the shards), else its one
     * file */
    if (buf_path(b, "%s/model.safetensors.index.json", c->build.checkpoint))
        return NULL;
    if (build_is_file(b->p, &st))
        return b->p;
    return buf_path(b, "%s/model.safetensors", c->build.checkpoint) ? NULL
                                                                    : b->p;
}

static void source_hashed(struct hash_job *job)
{
    struct step *s = job->ctx;
    struct buf cache = {0};
    char msg[256];

    if (job->err[0] != '\0') {
        build_error(s->b, "%s: cannot hash its source: %s", build_rname(s),
                    job->err);
        feed(s->b, BJ_EV_HASHED, s->i, 0, NULL);
        return;
    }
    memcpy(s->source_sha, job->hex, sizeof s->source_sha);
    /* hash_source made this path already: it fits */
    if (rundir_path_buf(&cache, s->b->c->run_dir, RD_HASH_CACHE, NULL) == 0)
        (void)sha_cache_put(cache.p, job->path.p, job->hex, msg, sizeof msg);
    buf_release(&cache);
    /* those of its source waited for this hash: a pass */
    feed(s->b, BJ_EV_HASHED, s->i, 1, NULL);
}

static void hash_source(struct step *s)
{
    struct buf b = {0}, cache = {0};
    const char *src = source_file(s, &b);
    unsigned long long bytes;

    if (src == NULL ||
        rundir_path_buf(&cache, s->b->c->run_dir, RD_HASH_CACHE, NULL) != 0) {
        build_error(s->b, "%s: path too long: '%.200s...'", build_rname(s),
                    src == NULL ? s->b->c->build.checkpoint
                                : s->b->c->run_dir);
        feed(s->b, BJ_EV_HASHED, s->i, 0, NULL);
    } else if (sha_cache_get(cache.p, src, s->source_sha, &bytes)) {
        /* at once: the next of its source goes in the pass after the
         * others started with it have begun (carry_out) */
        struct bj_action a[BJ_MAX_ACTIONS];
        struct bj_event ev = {
            .type = BJ_EV_HASHED, .job = s->i, .ok = 1, .cached = 1};
        carry_out(s->b, a, buildjobs_step(&s->b->jobs, &ev, a));
    } else {
        hash_release(&s->hash);
        memset(&s->hash, 0, sizeof s->hash);
        if (hash_file_async(&s->b->sup.loop, &s->hash, src, source_hashed,
                            s) != 0) {
            build_error(s->b, "%s: cannot hash %s", build_rname(s), src);
            feed(s->b, BJ_EV_HASHED, s->i, 0, NULL);
        }
    }
    buf_release(&b);
    buf_release(&cache);
}

/* -- f16-range before an F16 conversion -- */

static void range_work(uv_work_t *w)
{
    struct step *s = w->data;
    struct buf out = {0}, tmp = {0};
    FILE *f;
    int fd;

    if (rundir_path_buf(&out, s->b->c->run_dir, RD_F16_RANGE, NULL) != 0 ||
        buf_path(&tmp, "%s.tmp.%ld", out.p, (long)getpid()) != 0) {
        snprintf(s->work_msg, sizeof s->work_msg, "path too long: '%.200s...'",
                 s->b->c->run_dir);
        s->work_rc = F16R_EIO;
        goto out;
    }
    /* in the run folder: never through a planted link (files.h) */
    fd = files_open(tmp.p, O_WRONLY | O_CREAT | O_TRUNC, 0644, s->work_msg,
                    sizeof s->work_msg);
    f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL) {
        if (fd >= 0) {
            snprintf(s->work_msg, sizeof s->work_msg, "%s: %s", tmp.p,
                     strerror(errno));
            close(fd);
        }
        s->work_rc = F16R_EIO;
        goto out;
    }
    s->work_rc = f16range_run(s->b->c->build.checkpoint, f, NULL, NULL, NULL,
                              s->work_msg, sizeof s->work_msg);
    if ((fflush(f) != 0 || fsync(fileno(f)) != 0) && s->work_rc == 0) {
        snprintf(s->work_msg, sizeof s->work_msg, "%s: %s", tmp.p,
                 files_strerror(errno));
        s->work_rc = F16R_EIO;
    }
    fclose(f);
    if (s->work_rc == 0 && rename(tmp.p, out.p) != 0) {
        snprintf(s->work_msg, sizeof s->work_msg, "%s: %s", out.p,
                 strerror(errno));
        s->work_rc = F16R_EIO;
    }
    if (s->work_rc != 0)
        unlink(tmp.p);
out:
    buf_release(&out);
    buf_release(&tmp);
}

static void range_done(uv_work_t *w, int status)
{
    struct step *s = w->data;
    struct buf out = {0};

    if (status != 0 || s->work_rc != 0) {
        build_error(s->b, "%s: f16-range on the checkpoint failed: %s",
                    build_rname(s), status != 0 ? "cancelled" : s->work_msg);
        feed(s->b, BJ_EV_RANGED, s->i, 0, NULL);
        return;
    }
    /* range_work wrote there: it fits */
    (void)rundir_path_buf(&out, s->b->c->run_dir, RD_F16_RANGE, NULL);
    build_note(s->b, "%s: what the F16 cast costs, per tensor: %s",
               build_rname(s), out.p);
    buf_release(&out);
    feed(s->b, BJ_EV_RANGED, s->i, 1, NULL);
}

static void f16_range(struct step *s)
{
    build_note(s->b, "%s: f16-range on %s first", build_rname(s),
               s->b->c->build.checkpoint);
    s->work.data = s;
    if (uv_queue_work(&s->b->sup.loop, &s->work, range_work, range_done) !=
        0) {
        build_error(s->b, "%s: cannot queue f16-range", build_rname(s));
        feed(s->b, BJ_EV_RANGED, s->i, 0, NULL);
    }
}

static void result_work(uv_work_t *w);
static void result_done(uv_work_t *w, int status);

static void tool_exit(void *ctx, long long status, int sig)
{
    struct step *s = ctx;
    const char *tool = s->b->c->rungs[s->i].recipe == RECIPE_CONVERT
                           ? "the converter"
                           : "llama-quantize";
    struct buf group = {0};

    caplog_close(&s->log);
    proc_free(s->proc);
    s->proc = NULL;
    /* its group went with it (spawn_reap): no record to stop (the name
     * fit when it started) */
    if (buf_path(&group, "%s.group", s->tmp.p) == 0)
        unlink(group.p);
    buf_release(&group);
    if (s->b->sup.stopping)
        build_note(s->b, "%s: stopped; its partial file is removed",
                   build_rname(s));
    else if (s->stalled) /* said when it was stopped */
        build_quote_log(s);
    else if (status != 0 || sig != 0) {
        if (sig != 0)
            build_error(s->b, "%s: %s was killed by signal %d", build_rname(s),
                        tool, sig);
        else
            build_error(s->b, "%s: %s exited with status %lld", build_rname(s),
                        tool, status);
        build_quote_log(s);
    } else if (s->b->c->rungs[s->i].recipe == RECIPE_QUANTIZE)
        build_tool_identity(s);
    feed(s->b, BJ_EV_TOOL, s->i,
         !s->b->sup.stopping && !s->stalled && status == 0 && sig == 0, NULL);
}

/* The output checked and hashed on the thread pool (BJ_CHECK). */
static void check_result(struct step *s)
{
    s->work.data = s;
    if (uv_queue_work(&s->b->sup.loop, &s->work, result_work, result_done) !=
        0) {
        build_error(s->b, "%s: cannot queue the hash", build_rname(s));
        feed(s->b, BJ_EV_CHECKED, s->i, 0, NULL);
    }
}

/* The step's temporary name gets our pid (preflight kept room for it),
 * its log's path is set and the group file's path made: 0, or -1 (said)
 * past the cap. */
static int tool_paths(struct step *s, struct buf *group)
{
    struct bld *b = s->b;
    struct buf tmp = {0};

    if (buf_path(&tmp, "%s.%ld", s->tmp.p, (long)getpid()) != 0 ||
        buf_path(group, "%s.group", tmp.p) != 0) {
        build_error(b, "%s: path too long: '%.200s...'", build_rname(s),
                    s->tmp.p);
        buf_release(&tmp);
        return -1;
    }
    buf_release(&s->tmp);
    s->tmp = tmp;
    if (rundir_path_buf(&s->logpath, b->c->run_dir, RD_BUILD_LOG,
                        build_rname(s)) != 0) {
        build_error(b, "%s: path too long: '%.200s...'", build_rname(s),
                    b->c->run_dir);
        return -1;
    }
    return 0;
}

static void start_tool(struct step *s)
{
    struct bld *b = s->b;
    struct proc_opts po;
    struct buf group = {0};
    char msg[1024];

    if (b->c->rungs[s->i].recipe == RECIPE_CONVERT)
        snprintf(s->tool, sizeof s->tool, "%s sha256:%s", b->c->build.convert,
                 b->csha);
    s->est = build_estimate(b, s->i);
    if (!build_disk_ok(s)) {
        feed(b, BJ_EV_TOOL, s->i, 0, NULL);
        return;
    }
    build_remove_stale(s);
    if (tool_paths(s, &group) != 0) {
        buf_release(&group);
        feed(b, BJ_EV_TOOL, s->i, 0, NULL);
        return;
    }
    unlink(s->logpath.p); /* each attempt's log on its own */
    if (caplog_open(&s->log, s->logpath.p, LOG_CAP, msg, sizeof msg) != 0) {
        build_error(b, "%s: %s", build_rname(s), msg);
        buf_release(&group);
        feed(b, BJ_EV_TOOL, s->i, 0, NULL);
        return;
    }
    build_make_argv(s);
    memset(&po, 0, sizeof po);
    po.argv = s->argv;
    /* the converter's temporary files go to build.tmpdir */
    po.env =
        b->c->rungs[s->i].recipe == RECIPE_CONVERT ? b->convert_env : NULL;
    po.log = &s->log;
    po.stderr_fd = SPAWN_NULL;
    po.fd3 = SPAWN_CLOSED;
    po.new_session = 1;
    po.pdeathsig = SIGKILL; /* it dies with us, however we die */
    s->tool_t0 = uv_now(&b->sup.loop);
    s->seen = 0;
    s->seen_at = s->tool_t0;
    s->stalled = 0;
    s->proc = proc_start(&b->sup.loop, &po, tool_exit, s, msg, sizeof msg);
    if (s->proc == NULL) {
        build_error(b, "%s: %s", build_rname(s), msg);
        caplog_close(&s->log);
        buf_release(&group);
        feed(b, BJ_EV_TOOL, s->i, 0, NULL);
        return;
    }
    if (pidfile_write(group.p, proc_pid(s->proc), msg, sizeof msg) != 0)
        build_note(b, "%s: %s", build_rname(s), msg);
    buf_release(&group);
    build_note(b, "%s: %s (log: %s)", build_rname(s), s->recipe, s->logpath.p);
}

/* -- the file: a GGUF, synced, renamed, hashed, recorded -- */

/* On the thread pool: a tool that exits 0 may still have written
 * something that is not a model (a bug, a full disk it did not see). */
static void result_work(uv_work_t *w)
{
    struct step *s = w->data;
    struct wtable t = {0};
    struct stat lst;
    char msg[1024];
    int fd;

    s->work_rc = 0;
    if (lstat(s->tmp.p, &lst) != 0 || !S_ISREG(lst.st_mode)) {
        snprintf(s->work_msg, sizeof s->work_msg,
                 "exited 0, but %s is not a plain file it wrote", s->tmp.p);
        s->work_rc = -1;
        return;
    }
    if (tensors_read_gguf(s->tmp.p, &t, msg, sizeof msg) != F16R_OK) {
        snprintf(s->work_msg, sizeof s->work_msg,
                 "exited 0, but what it wrote is not a GGUF: %s", msg);
        s->work_rc = -1;
        return;
    }
    tensors_free(&t);
    fd = files_open_read(s->tmp.p, 1, msg, sizeof msg);
    if (fd < 0 && errno == EINVAL) { /* swapped since the lstat above */
        snprintf(s->work_msg, sizeof s->work_msg, "%s", msg);
        s->work_rc = -1;
        return;
    }
    if (fd < 0 || fsync(fd) != 0) {
        snprintf(s->work_msg, sizeof s->work_msg, "%s: %s", s->tmp.p,
                 files_strerror(errno));
        s->work_rc = -1;
        if (fd >= 0)
            close(fd);
        return;
    }
    close(fd);
    if (hash_file(&s->hash, s->tmp.p) != 0) {
        snprintf(s->work_msg, sizeof s->work_msg, "%s", s->hash.err);
        s->work_rc = -1;
    }
}

static void record(struct lockwait *lw, int lrc, int fd);

static void result_done(uv_work_t *w, int status)
{
    struct step *s = w->data;
    const char *final = s->b->c->rungs[s->i].model;

    if (status != 0 || s->work_rc != 0) {
        build_error(s->b, "%s: %s", build_rname(s),
                    status != 0 ? "cancelled" : s->work_msg);
        if (s->work_rc != 0)
            build_quote_log(s);
        feed(s->b, BJ_EV_CHECKED, s->i, 0, NULL);
        return;
    }
    if (rename(s->tmp.p, final) != 0 || files_sync_dir(final) != 0) {
        build_error(s->b, "%s: cannot rename %s to %s: %s", build_rname(s),
                    s->tmp.p, final, files_strerror(errno));
        feed(s->b, BJ_EV_CHECKED, s->i, 0, NULL);
        return;
    }
    feed(s->b, BJ_EV_CHECKED, s->i, 1, NULL);
}

/* The file in place: recorded under files.lock (BJ_RECORD). */
static void start_record(struct step *s)
{
    lockwait_init(&s->lock, &s->b->sup.loop);
    if (lockwait_start(&s->lock, s->b->c->run_dir, LOCKWAIT_LONG_MS, record,
                       s) != 0) {
        build_error(s->b, "%s: files.lock is waited for twice",
                    build_rname(s));
        lockwait_close(&s->lock, NULL);
        feed(s->b, BJ_EV_RECORDED, s->i, 0, NULL);
    }
}

static json_t *record_json(struct step *s)
{
    const struct config *c = s->b->c;
    const struct config_rung *r = &c->rungs[s->i];
    struct buf b = {0};
    const char *src;
    json_t *argv = json_array(), *rec;
    size_t k;

    /* hash_source made the source path already: it fits */
    if (r->recipe != RECIPE_CONVERT)
        src = c->rungs[r->from].model;
    else if ((src = source_file(s, &b)) == NULL)
        src = c->build.checkpoint;
    for (k = 0; k < s->argc; k++)
        json_array_append_new(argv, json_string(s->argv[k]));
    rec =
        json_pack("{s:s, s:s, s:s, s:o, s:s, s:s, s:f, s:I, s:s}", "file",
                  r->model, "recipe", s->recipe, "tool", s->tool, "argv", argv,
                  "source", src, "source_sha256", s->source_sha, "seconds",
                  (double)(uv_now(&s->b->sup.loop) - s->tool_t0) / 1000.0,
                  "bytes", (json_int_t)s->hash.bytes, "sha256", s->hash.hex);
    buf_release(&b);
    return rec;
}

/* ladder.tsv is shared with the rungs' runs: under files.lock, which
 * they hold for milliseconds, waited for on the loop (lockwait.h, up to
 * a minute); fd is the lock, or -1 with the reason in lw->msg. */
static void record(struct lockwait *lw, int lrc, int fd)
{
    struct step *s = lw->ctx;
    struct bld *b = s->b;
    const struct config_rung *r = &b->c->rungs[s->i];
    struct buf path = {0};
    char msg[1200];
    struct lrow row;
    json_t *rec;
    int ok;

    if (lrc != LOCKWAIT_HELD)
        snprintf(msg, sizeof msg, "%s", lw->msg);
    ok = fd >= 0 &&
         ladderfile_row(&row, r->name, r->model, msg, sizeof msg) == 0;
    row.bytes = s->hash.bytes;
    memcpy(row.sha256, s->hash.hex, sizeof row.sha256);
    if (ok && rundir_path_buf(&path, b->c->run_dir, RD_LADDER_TSV, NULL)) {
        snprintf(msg, sizeof msg, "path too long: '%.200s...'", b->c->run_dir);
        ok = 0;
    }
    ok = ok && ladderfile_upsert(path.p, &row, msg, sizeof msg) == 0;
    if (fd >= 0)
        close(fd);
    if (ok && rundir_path_buf(&path, b->c->run_dir, RD_HASH_CACHE, NULL) == 0)
        (void)sha_cache_put(path.p, r->model, s->hash.hex, msg, sizeof msg);
    buf_release(&path);
    rec = record_json(s);
    ok = ok && buildrec_put(b->c->run_dir, r->name, rec, msg, sizeof msg) == 0;
    json_decref(rec);
    if (!ok) {
        /* the file is whole and in place; only its record failed: the
         * next build sees a file it did not make and uses it as is */
        build_error(b, "%s: made %s, but cannot record it: %s", r->name,
                    r->model, msg);
        /* what is made from it waits for a build that can record it;
         * what is there made from it is refused then (not graveyard's) */
    } else
        build_note(b, "%s: made %s, %s in %.1f s", r->name, r->model,
                   build_human(s->hash.bytes),
                   (double)(uv_now(&b->sup.loop) - s->tool_t0) / 1000.0);
    build_free_argv(s);
    lockwait_close(&s->lock, NULL);
    feed(b, BJ_EV_RECORDED, s->i, ok, s->hash.hex);
}

/* ---- the loop ------------------------------------------------------ */

/* What the step machine decided, done (buildjobs.h): the work of a
 * phase started, or what a step's end or a settle says; after steps
 * started, a pass again. */
static void carry_out(struct bld *b, const struct bj_action *a, size_t n)
{
    const struct config_rung *rungs = b->c->rungs;
    int started = 0;

    for (size_t k = 0; k < n; k++) {
        struct step *s = &b->s[a[k].job];
        switch (a[k].type) {
        case BJ_HASH_SOURCE:
            s->t0 = uv_now(&b->sup.loop);
            hash_source(s);
            started = 1;
            break;
        case BJ_RANGE:
            f16_range(s);
            break;
        case BJ_TOOL:
            start_tool(s);
            break;
        case BJ_CHECK:
            check_result(s);
            break;
        case BJ_RECORD:
            start_record(s);
            break;
        case BJ_REMOVE_TMP:
            remove_tmp(s);
            break;
        case BJ_BLOCKED:
            build_error(b, "%s: not made: its source %s was not made",
                        rungs[a[k].job].name, rungs[a[k].src].name);
            break;
        case BJ_AGAIN:
            build_note(b,
                       "%s: made from %s as it was before this build "
                       "(sha256 %.12s); %s is now %.12s: making it again",
                       rungs[a[k].job].name, rungs[a[k].src].name,
                       b->jobs.job[a[k].job].made_from, rungs[a[k].src].name,
                       b->s[a[k].src].hash.hex);
            break;
        case BJ_HALT:
            if (s->proc != NULL)
                proc_stop(s->proc, GRACE_MS);
            else if (b->jobs.job[s->i].ph == PH_SOURCE ||
                     b->jobs.job[s->i].ph == PH_HASH)
                hash_cancel(&s->hash);
            break;
        }
    }
    if (started)
        feed(b, BJ_EV_PASS, 0, 1, NULL);
}

/* One event to the step machine, and its actions carried out (one that
 * fails is an event in turn: this runs again inside). */
static void feed(struct bld *b, enum bj_ev type, size_t i, int ok,
                 const char *hex)
{
    struct bj_action a[BJ_MAX_ACTIONS];
    struct bj_event ev = {.type = type, .job = i, .ok = ok, .hex = hex};

    carry_out(b, a, buildjobs_step(&b->jobs, &ev, a));
}

/* The first stop signal: the tools and hashes are stopped; each step
 * then fails, removing what it left. */
static void stop_cb(void *ctx, int signum)
{
    struct bld *b = ctx;

    build_note(b,
               "stopping on signal %d: the tools first; run the same command "
               "to go on",
               signum);
    feed(b, BJ_EV_STOP, 0, 1, NULL);
}

/* A tool that neither logs nor writes for build.stall_s (default 30
 * minutes: a real quantization logs every tensor) is hung: stop it, as a
 * failure of its rung, rather than wait all night. */
static void watch_cb(void *ctx)
{
    struct bld *b = ctx;
    uint64_t now = uv_now(&b->sup.loop),
             limit = 1000 * (uint64_t)(b->c->build.stall_s > 0
                                           ? b->c->build.stall_s
                                           : STALL_S);
    size_t i;

    for (i = 0; i < b->c->nrungs; i++) {
        struct step *s = &b->s[i];
        struct stat st;
        unsigned long long out;
        if (b->jobs.sj[i].state != SJ_RUNNING ||
            b->jobs.job[i].ph != PH_TOOL || s->proc == NULL || s->stalled)
            continue;
        out = s->log.size + s->log.tail_pos +
              (stat(s->tmp.p, &st) == 0 ? (unsigned long long)st.st_size : 0);
        if (out != s->seen) {
            s->seen = out;
            s->seen_at = now;
        } else if (now - s->seen_at >= limit) {
            s->stalled = 1;
            build_error(b,
                        "%s: the tool wrote nothing for %" PRIu64 " s: "
                        "stopped as hung (build.stall_s)",
                        build_rname(s), (now - s->seen_at) / 1000);
            proc_stop(s->proc, GRACE_MS);
        }
    }
}

/* The live lines: each running step, its phase and time. */
static void draw_cb(void *ctx)
{
    struct bld *b = ctx;
    size_t i;

    for (i = 0; i < b->c->nrungs; i++) {
        struct step *s = &b->s[i];
        struct stat st;
        uint64_t sec = (uv_now(&b->sup.loop) - s->t0) / 1000;
        static const char *const what[] = {"hashing its source", "f16-range",
                                           "", "checking and hashing",
                                           "recording"};
        if (b->jobs.sj[i].state != SJ_RUNNING)
            continue;
        if (b->jobs.job[i].ph == PH_TOOL)
            super_line(&b->sup,
                       "%-10s %s  %" PRIu64 "m%02" PRIu64 "s  %s written",
                       build_rname(s), s->recipe, sec / 60, sec % 60,
                       build_human(stat(s->tmp.p, &st) == 0
                                       ? (unsigned long long)st.st_size
                                       : 0));
        else
            super_line(&b->sup, "%-10s %s  %" PRIu64 "m%02" PRIu64 "s",
                       build_rname(s), what[b->jobs.job[i].ph], sec / 60,
                       sec % 60);
    }
}

static int busy_cb(void *ctx)
{
    const struct bld *b = ctx;
    size_t i;

    for (i = 0; i < b->c->nrungs; i++)
        if (b->jobs.sj[i].state == SJ_RUNNING)
            return 1;
    return 0;
}

int build_run_loop(struct bld *b)
{
    static const struct super_ops ops = {stop_cb, watch_cb, draw_cb, busy_cb,
                                         NULL};

    if (buildjobs_open(&b->jobs, (int)b->o->jobs) != 0 ||
        super_open(&b->sup, &ops, b) != 0)
        return EXIT_FAILED;
    feed(b, BJ_EV_BEGIN, 0, 1, NULL);
    super_run(&b->sup);
    return 0;
}
