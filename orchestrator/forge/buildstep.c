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
 * This file has a step's life and the loop; what a step runs and leaves
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

static void schedule(struct bld *b);
static void step_next(struct step *s);

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

    if (b->c->rungs[i].recipe != RECIPE_QUANTIZE || b->s[i].st != ST_HAVE)
        return NULL;
    sha = json_string_value(
        json_object_get(build_record(b, i), "source_sha256"));
    return sha != NULL && strlen(sha) == 64 ? sha : NULL;
}

/* Rung i is made (hex: its new file's sha256), or will not be (NULL).
 * What is there made from it, and waited for it (recheck), is made again
 * when i came out different from what it was made from: a file
 * quantized from a BF16 that no longer exists is not the rung the config
 * says. The rest is kept, and what waited for that is settled in turn. */
static void settle(struct bld *b, size_t i, const char *hex)
{
    size_t k;

    for (k = 0; k < b->c->nrungs; k++) {
        const struct config_rung *r = &b->c->rungs[k];
        const char *was;
        if (!b->s[k].recheck || r->recipe != RECIPE_QUANTIZE || r->from != i)
            continue;
        b->s[k].recheck = 0;
        was = build_made_from(b, k);
        if (hex != NULL && was != NULL && strcmp(was, hex) != 0) {
            b->s[k].st = ST_PENDING;
            build_note(b,
                       "%s: made from %s as it was before this build "
                       "(sha256 %.12s); %s is now %.12s: making it again",
                       r->name, b->c->rungs[i].name, was, b->c->rungs[i].name,
                       hex);
        } else
            settle(b, k, NULL);
    }
}

static void block_dependents(struct bld *b, size_t i)
{
    size_t k;

    settle(b, i, NULL);
    for (k = 0; k < b->c->nrungs; k++)
        if (b->c->rungs[k].recipe == RECIPE_QUANTIZE &&
            b->c->rungs[k].from == i && b->s[k].st == ST_PENDING) {
            b->s[k].st = ST_BLOCKED;
            build_error(b, "%s: not made: its source %s was not made",
                        b->c->rungs[k].name, b->c->rungs[i].name);
            block_dependents(b, k);
        }
}

static void step_fail(struct step *s)
{
    s->st = ST_FAILED;
    /* what the tool left there, a folder it made included */
    if (s->tmp.p != NULL && build_remove_at(AT_FDCWD, s->tmp.p, 0) != 0)
        build_error(s->b, "%s: cannot remove %s: %s", build_rname(s), s->tmp.p,
                    strerror(errno));
    block_dependents(s->b, s->i);
    schedule(s->b);
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
        step_fail(s);
        return;
    }
    memcpy(s->source_sha, job->hex, sizeof s->source_sha);
    /* hash_source made this path already: it fits */
    if (rundir_path_buf(&cache, s->b->c->run_dir, RD_HASH_CACHE, NULL) == 0)
        (void)sha_cache_put(cache.p, job->path.p, job->hex, msg, sizeof msg);
    buf_release(&cache);
    s->ph = PH_RANGE;
    step_next(s);
    schedule(s->b); /* those of its source waited for this hash */
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
        step_fail(s);
    } else if (sha_cache_get(cache.p, src, s->source_sha, &bytes)) {
        s->ph = PH_RANGE;
        step_next(s);
    } else {
        hash_release(&s->hash);
        memset(&s->hash, 0, sizeof s->hash);
        if (hash_file_async(&s->b->sup.loop, &s->hash, src, source_hashed,
                            s) != 0) {
            build_error(s->b, "%s: cannot hash %s", build_rname(s), src);
            step_fail(s);
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
        step_fail(s);
        return;
    }
    /* range_work wrote there: it fits */
    (void)rundir_path_buf(&out, s->b->c->run_dir, RD_F16_RANGE, NULL);
    build_note(s->b, "%s: what the F16 cast costs, per tensor: %s",
               build_rname(s), out.p);
    buf_release(&out);
    s->ph = PH_TOOL;
    step_next(s);
}

static void f16_range(struct step *s)
{
    const struct config_rung *r = &s->b->c->rungs[s->i];

    if (s->b->sup.stopping || r->recipe != RECIPE_CONVERT ||
        strcmp(r->convert, "f16") != 0) {
        s->ph = PH_TOOL;
        step_next(s);
        return;
    }
    build_note(s->b, "%s: f16-range on %s first", build_rname(s),
               s->b->c->build.checkpoint);
    s->work.data = s;
    if (uv_queue_work(&s->b->sup.loop, &s->work, range_work, range_done) !=
        0) {
        build_error(s->b, "%s: cannot queue f16-range", build_rname(s));
        step_fail(s);
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
    if (s->b->sup.stopping) {
        build_note(s->b, "%s: stopped; its partial file is removed",
                   build_rname(s));
        step_fail(s);
        return;
    }
    if (s->stalled) { /* said when it was stopped */
        build_quote_log(s);
        step_fail(s);
        return;
    }
    if (status != 0 || sig != 0) {
        if (sig != 0)
            build_error(s->b, "%s: %s was killed by signal %d", build_rname(s),
                        tool, sig);
        else
            build_error(s->b, "%s: %s exited with status %lld", build_rname(s),
                        tool, status);
        build_quote_log(s);
        step_fail(s);
        return;
    }
    if (s->b->c->rungs[s->i].recipe == RECIPE_QUANTIZE)
        build_tool_identity(s);
    s->ph = PH_HASH;
    s->work.data = s;
    if (uv_queue_work(&s->b->sup.loop, &s->work, result_work, result_done) !=
        0) {
        build_error(s->b, "%s: cannot queue the hash", build_rname(s));
        step_fail(s);
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
        step_fail(s);
        return;
    }
    build_remove_stale(s);
    if (tool_paths(s, &group) != 0) {
        buf_release(&group);
        step_fail(s);
        return;
    }
    unlink(s->logpath.p); /* each attempt's log on its own */
    if (caplog_open(&s->log, s->logpath.p, LOG_CAP, msg, sizeof msg) != 0) {
        build_error(b, "%s: %s", build_rname(s), msg);
        buf_release(&group);
        step_fail(s);
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
        step_fail(s);
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
        step_fail(s);
        return;
    }
    if (rename(s->tmp.p, final) != 0 || files_sync_dir(final) != 0) {
        build_error(s->b, "%s: cannot rename %s to %s: %s", build_rname(s),
                    s->tmp.p, final, files_strerror(errno));
        step_fail(s);
        return;
    }
    s->ph = PH_RECORD;
    lockwait_init(&s->lock, &s->b->sup.loop);
    if (lockwait_start(&s->lock, s->b->c->run_dir, LOCKWAIT_LONG_MS, record,
                       s) != 0) {
        build_error(s->b, "%s: files.lock is waited for twice",
                    build_rname(s));
        lockwait_close(&s->lock, NULL);
        step_fail(s);
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
        s->st = ST_FAILED;
        /* what is made from it waits for a build that can record it;
         * what is there made from it is refused then (not graveyard's) */
        block_dependents(b, s->i);
    } else {
        s->st = ST_DONE;
        build_note(b, "%s: made %s, %s in %.1f s", r->name, r->model,
                   build_human(s->hash.bytes),
                   (double)(uv_now(&b->sup.loop) - s->tool_t0) / 1000.0);
        settle(b, s->i, s->hash.hex);
    }
    build_free_argv(s);
    lockwait_close(&s->lock, NULL);
    schedule(b);
}

/* ---- the loop ------------------------------------------------------ */

static void step_next(struct step *s)
{
    if (s->b->sup.stopping && s->ph != PH_RECORD) {
        step_fail(s);
        return;
    }
    switch (s->ph) {
    case PH_SOURCE:
        hash_source(s);
        break;
    case PH_RANGE:
        f16_range(s);
        break;
    case PH_TOOL:
        start_tool(s);
        break;
    default:
        break;
    }
}

/* The steps as the scheduler sees them (sched.h): a quantization waits
 * for its source rung, which counts as done when made or there (but not
 * while it may be made again: recheck, settle); steps of one source file
 * (source_file: a rung's model, or the one checkpoint every conversion
 * reads) are of one key, and a step hashing its source is early. */
static void sched_sync(struct bld *b)
{
    static const enum sched_state of[] = {
        [ST_SKIP] = SJ_DONE,       [ST_HAVE] = SJ_DONE,
        [ST_PENDING] = SJ_PENDING, [ST_RUNNING] = SJ_RUNNING,
        [ST_DONE] = SJ_DONE,       [ST_FAILED] = SJ_FAILED,
        [ST_BLOCKED] = SJ_BLOCKED};
    const struct config_rung *rungs = b->c->rungs;
    size_t i, k;

    for (i = 0; i < b->c->nrungs; i++) {
        const struct config_rung *r = &rungs[i];
        const struct step *s = &b->s[i];
        struct sched_job *j = &b->sj[i];
        j->state = s->st == ST_HAVE && s->recheck ? SJ_OTHER : of[s->st];
        j->gate = r->recipe == RECIPE_QUANTIZE ? (int)r->from : -1;
        j->early = s->st == ST_RUNNING && s->ph == PH_SOURCE;
        j->key = (int)b->c->nrungs; /* the checkpoint */
        for (k = 0; r->recipe == RECIPE_QUANTIZE && k <= r->from; k++)
            if (strcmp(rungs[k].model, rungs[r->from].model) == 0) {
                j->key = (int)k;
                break;
            }
    }
}

/* In the config's order, up to --jobs at once: the ladder's first rungs
 * are made first, and a source always comes before what is made from
 * it. Each step started is marked before any goes on (a step that fails
 * at once schedules again); one that left its source hash at once (the
 * sha cache) lets the next of its source go: a pass again. */
static void schedule(struct bld *b)
{
    struct sched_action a[CONFIG_MAX_RUNGS + 1];
    struct sched_event ev = {.type = SE_PASS};
    size_t i, n;

    if (b->sup.stopping)
        return;
    sched_sync(b);
    n = sched_step(&b->sched, &ev, a, CONFIG_MAX_RUNGS + 1);
    for (i = 0; i < n; i++) {
        struct step *s = &b->s[a[i].job];
        s->st = ST_RUNNING;
        s->ph = PH_SOURCE;
        s->t0 = uv_now(&b->sup.loop);
    }
    for (i = 0; i < n; i++)
        if (b->s[a[i].job].st == ST_RUNNING && b->s[a[i].job].ph == PH_SOURCE)
            step_next(&b->s[a[i].job]);
    if (n > 0)
        schedule(b);
}

/* The first stop signal: the tools and hashes are stopped; each step
 * then fails, removing what it left. */
static void stop_cb(void *ctx, int signum)
{
    struct bld *b = ctx;
    size_t i;

    build_note(b,
               "stopping on signal %d: the tools first; run the same command "
               "to go on",
               signum);
    for (i = 0; i < b->c->nrungs; i++) {
        struct step *s = &b->s[i];
        if (s->st != ST_RUNNING)
            continue;
        if (s->proc != NULL)
            proc_stop(s->proc, GRACE_MS);
        else if (s->ph == PH_SOURCE || s->ph == PH_HASH)
            hash_cancel(&s->hash);
    }
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
        if (s->st != ST_RUNNING || s->ph != PH_TOOL || s->proc == NULL ||
            s->stalled)
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
        if (s->st != ST_RUNNING)
            continue;
        if (s->ph == PH_TOOL)
            super_line(&b->sup,
                       "%-10s %s  %" PRIu64 "m%02" PRIu64 "s  %s written",
                       build_rname(s), s->recipe, sec / 60, sec % 60,
                       build_human(stat(s->tmp.p, &st) == 0
                                       ? (unsigned long long)st.st_size
                                       : 0));
        else
            super_line(&b->sup, "%-10s %s  %" PRIu64 "m%02" PRIu64 "s",
                       build_rname(s), what[s->ph], sec / 60, sec % 60);
    }
}

static int busy_cb(void *ctx)
{
    const struct bld *b = ctx;
    size_t i;

    for (i = 0; i < b->c->nrungs; i++)
        if (b->s[i].st == ST_RUNNING)
            return 1;
    return 0;
}

int build_run_loop(struct bld *b)
{
    static const struct super_ops ops = {stop_cb, watch_cb, draw_cb, busy_cb,
                                         NULL};

    if (sched_init(&b->sched, b->sj, b->c->nrungs, 0, 1, (int)b->o->jobs) !=
            0 ||
        super_open(&b->sup, &ops, b) != 0)
        return EXIT_FAILED;
    schedule(b);
    super_run(&b->sup);
    return 0;
}
