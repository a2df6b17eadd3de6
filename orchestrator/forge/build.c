/*
 * build.c - graveyard build (build.h): the plan and every check made
 * before anything runs, the lock, and the entry point. buildstep.c, below
 * it, runs the steps on the libuv loop and holds the helpers both use
 * (messages, files, the disk estimate): build.c calls into it, never the
 * other way.
 */
#define _GNU_SOURCE /* strcasestr, strncasecmp */
#include <dirent.h>
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
#include <unistd.h>
#include <uv.h>

#include "../../rundir/buildrec.h"
#include "../../rundir/files.h"
#include "../../rundir/ladderfile.h"
#include "../../rundir/rundir.h"
#include "../../weights/f16range.h"
#include "../../weights/tensors.h"
#include "build_int.h"
#include "../base/cli.h"
#include "../server/proc.h"
#include "../server/spawn.h"

char *build_recipe(const struct config *c, size_t i, char *out, size_t size)
{
    const struct config_rung *r = &c->rungs[i];
    size_t k, n;

    if (r->recipe == RECIPE_CONVERT) {
        snprintf(out, size, "convert %s", r->convert);
        return out;
    }
    n = (size_t)snprintf(out, size, "quantize %s from %s", r->qtype,
                         c->rungs[r->from].name);
    if (r->imatrix != NULL && n < size)
        n += (size_t)snprintf(out + n, size - n, " imatrix %s", r->imatrix);
    for (k = 0; k < r->nqargs && n < size; k++)
        n += (size_t)snprintf(out + n, size - n, " %s", r->qargs[k]);
    return out;
}

static int named(const char *const *list, size_t n, const char *name)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0)
            return 1;
    return 0;
}

/* Rung i, there, was quantized by graveyard from a file that is not its
 * source's file now: its record's source_sha256 against the sha cache's
 * for that file (one the cache has not seen at this size and mtime is
 * taken as changed: the build's plan hashes it). Records and the cache
 * only: no file is hashed here. */
static int made_from_other(const struct config *c, json_t *recs, size_t i)
{
    const struct config_rung *r = &c->rungs[i];
    json_t *rec = json_object_get(recs, r->name);
    const char *file = json_string_value(json_object_get(rec, "file")),
               *recipe = json_string_value(json_object_get(rec, "recipe")),
               *was = json_string_value(json_object_get(rec, "source_sha256"));
    struct buf cache = {0};
    char mine[1024], hex[65];
    unsigned long long bytes;
    struct stat st;
    int stale;

    if (r->recipe != RECIPE_QUANTIZE || file == NULL || recipe == NULL ||
        was == NULL || strcmp(file, r->model) != 0 ||
        strcmp(recipe, build_recipe(c, i, mine, sizeof mine)) != 0 ||
        !build_is_file(c->rungs[r->from].model, &st))
        return 0;
    /* past the path cap there is no cache to ask: hashed again */
    stale = rundir_path_buf(&cache, c->run_dir, RD_HASH_CACHE, NULL) != 0 ||
            !sha_cache_get(cache.p, c->rungs[r->from].model, hex, &bytes) ||
            strcmp(hex, was) != 0;
    buf_release(&cache);
    return stale;
}

int build_needed(const struct config *c, const char *const *only, size_t nonly)
{
    struct stat st;
    char msg[512];
    json_t *recs = NULL;
    size_t i;
    int need = 0;

    for (i = 0; i < c->nrungs && !need; i++)
        if (c->rungs[i].recipe != RECIPE_NONE &&
            (nonly == 0 || named(only, nonly, c->rungs[i].name)) &&
            !build_is_file(c->rungs[i].model, &st))
            need = 1;
    /* a build.json that does not read is the build's to say */
    if (need || buildrec_load(c->run_dir, &recs, msg, sizeof msg) != 0)
        return need;
    for (i = 0; i < c->nrungs && !need; i++)
        need = (nonly == 0 || named(only, nonly, c->rungs[i].name)) &&
               made_from_other(c, recs, i);
    json_decref(recs);
    return need;
}

/* ---- the plan ------------------------------------------------------ */

/* Rung i is wanted: so is its source when its file must be made. */
static void want(struct bld *b, size_t i)
{
    struct config_rung *r = &b->c->rungs[i];

    if (b->jobs.job[i].got != BJ_SKIP || r->recipe == RECIPE_NONE)
        return;
    buildjobs_set(&b->jobs, i, BJ_MAKE);
    if (r->recipe == RECIPE_QUANTIZE)
        want(b, r->from);
}

/* A file that exists: done (its record has this recipe), used as is (no
 * record: not made by graveyard), or refused (made another way). */
static int existing(struct bld *b, size_t i, const struct stat *st)
{
    struct config_rung *r = &b->c->rungs[i];
    json_t *rec = json_object_get(b->recs, r->name);
    const char *file = json_string_value(json_object_get(rec, "file")),
               *recipe = json_string_value(json_object_get(rec, "recipe"));
    json_int_t bytes = json_integer_value(json_object_get(rec, "bytes"));

    if (named(b->o->force, b->o->nforce, r->name))
        return 0; /* made again */
    buildjobs_set(&b->jobs, i, BJ_HAVE);
    if (rec == NULL || file == NULL || strcmp(file, r->model) != 0) {
        build_note(b,
                   "%s: %s is there, not made by graveyard build: used as is",
                   r->name, r->model);
        return 0;
    }
    if (recipe != NULL && strcmp(recipe, b->s[i].recipe) == 0 &&
        bytes == (json_int_t)st->st_size)
        return 0;
    build_error(
        b,
        "%s: rung %s: %s was made as '%s'%s; the config now says '%s': "
        "give --force %s to make it again",
        b->c->path, r->name, r->model, recipe ? recipe : "?",
        bytes != (json_int_t)st->st_size ? " and has changed since" : "",
        b->s[i].recipe, r->name);
    return -1;
}

/* Rung f's file's sha256 now, into b->s[f].file_sha: from the sha cache
 * when its size and mtime are what the cache saw, else hashed here (once
 * after the file changed) and cached. 0, or -1 said. */
static int sha_now(struct bld *b, size_t f)
{
    const char *path = b->c->rungs[f].model;
    struct buf cache = {0};
    char err[256], msg[512];
    unsigned long long bytes;
    int rc = 0;

    if (b->s[f].file_sha[0] != '\0')
        return 0;
    /* lock_build refused a run folder whose paths pass the cap */
    if (rundir_path_buf(&cache, b->c->run_dir, RD_HASH_CACHE, NULL) != 0 ||
        sha_cache_get(cache.p, path, b->s[f].file_sha, &bytes))
        goto out;
    build_note(b, "%s: hashing %s, to see that what was made from it still is",
               b->c->rungs[f].name, path);
    if (hash_path(path, b->s[f].file_sha, err, sizeof err) != 0) {
        build_error(b, "%s: cannot hash %s: %s", b->c->rungs[f].name, path,
                    err);
        rc = -1;
        goto out;
    }
    (void)sha_cache_put(cache.p, path, b->s[f].file_sha, msg, sizeof msg);
out:
    buf_release(&cache);
    return rc;
}

/* Rung i is there, quantized from rung f's file when it had sha256 was;
 * that file now has another (b->s[f].file_sha). When graveyard made the
 * file now there (its record says so) it made it after i: i is made
 * again, as the build that made f would have, had it not been stopped.
 * Else the file was changed by hand, which graveyard cannot judge: i is
 * refused, as a changed recipe is, until --force names it. */
static int source_changed(struct bld *b, size_t i, size_t f, const char *was)
{
    const struct config_rung *r = &b->c->rungs[i], *src = &b->c->rungs[f];
    const char *cur = b->s[f].file_sha,
               *ours = json_string_value(
                   json_object_get(build_record(b, f), "sha256"));

    if (ours != NULL && strcmp(ours, cur) == 0) {
        build_note(b,
                   "%s: %s was made from an earlier %s (sha256 %.12s); "
                   "graveyard build has made %s again since (sha256 %.12s): "
                   "making it again",
                   r->name, r->model, src->name, was, src->name, cur);
        buildjobs_set(&b->jobs, i, BJ_MAKE);
        return 0;
    }
    build_error(b,
                "%s: rung %s: %s was made from %s when its file had sha256 "
                "%.12s; %s now has sha256 %.12s, not from graveyard build: "
                "give --force %s to make it again from it",
                b->c->path, r->name, r->model, src->name, was, src->model, cur,
                r->name);
    return -1;
}

/* What is there and was quantized from another rung's file, against that
 * file as it is now: on every build, so that a source made again (--force,
 * or a build stopped before it made the rest again) or replaced by hand
 * never leaves a file made from bytes that are gone "there already".
 * What waits on a source this build makes is settled once that is made
 * (recheck; buildjobs.c's settle). 0, or -1 when something is refused. */
static int check_sources(struct bld *b)
{
    const struct config *c = b->c;
    struct stat st;
    size_t i;
    int bad = 0, more;

    for (i = 0; i < c->nrungs; i++) {
        const char *was = build_made_from(b, i);
        size_t f = c->rungs[i].from;
        if (was == NULL || b->jobs.sj[f].state == SJ_PENDING ||
            !build_is_file(c->rungs[f].model, &st))
            continue;
        if (sha_now(b, f) != 0 || (strcmp(was, b->s[f].file_sha) != 0 &&
                                   source_changed(b, i, f, was) != 0))
            bad = 1;
    }
    do { /* down the chains: Q2_K from Q8_0 from a BF16 made again */
        more = 0;
        for (i = 0; i < c->nrungs; i++) {
            size_t f = c->rungs[i].from;
            const char *was = build_made_from(b, i);
            if (!b->jobs.job[i].recheck && was != NULL &&
                (b->jobs.sj[f].state == SJ_PENDING ||
                 b->jobs.job[f].recheck)) {
                buildjobs_recheck(&b->jobs, i, was);
                more = 1;
            }
        }
    } while (more);
    return bad ? -1 : 0;
}

/* Rung i's step as the scheduler sees it, once (buildjobs.h): a
 * quantization waits for its source rung (gate), which counts as done
 * when made or there (but not while it may be made again: recheck);
 * steps of one source file (a rung's model, or the one checkpoint every
 * conversion reads) are of one key; an F16 conversion runs f16-range
 * first. */
static void plan_job(struct bld *b, size_t i)
{
    const struct config_rung *rungs = b->c->rungs, *r = &rungs[i];
    struct sched_job *j = &b->jobs.sj[i];
    size_t k;

    j->gate = r->recipe == RECIPE_QUANTIZE ? (int)r->from : -1;
    j->key = (int)b->c->nrungs; /* the checkpoint */
    for (k = 0; r->recipe == RECIPE_QUANTIZE && k <= r->from; k++)
        if (strcmp(rungs[k].model, rungs[r->from].model) == 0) {
            j->key = (int)k;
            break;
        }
    b->jobs.job[i].range =
        r->recipe == RECIPE_CONVERT && strcmp(r->convert, "f16") == 0;
}

static int plan(struct bld *b)
{
    struct config *c = b->c;
    struct stat st;
    size_t i, k;
    int bad = 0;

    buildjobs_init(&b->jobs, c->nrungs);
    for (k = 0; k < b->o->nonly + b->o->nforce; k++) {
        const char *n =
            k < b->o->nonly ? b->o->only[k] : b->o->force[k - b->o->nonly];
        for (i = 0; i < c->nrungs && strcmp(c->rungs[i].name, n); i++)
            ;
        if (i == c->nrungs || c->rungs[i].recipe == RECIPE_NONE) {
            build_error(b, "%s: %s: %s", c->path, n,
                        i == c->nrungs ? "no such rung"
                                       : "has no \"convert\" or \"quantize\": "
                                         "graveyard does not make its file");
            return EXIT_USAGE;
        }
    }
    for (i = 0; i < c->nrungs; i++) {
        b->s[i].b = b;
        b->s[i].i = i;
        plan_job(b, i);
        if (c->rungs[i].recipe != RECIPE_NONE)
            build_recipe(c, i, b->s[i].recipe, sizeof b->s[i].recipe);
    }
    for (i = 0; i < c->nrungs; i++)
        if (b->o->nonly == 0 ||
            named(b->o->only, b->o->nonly, c->rungs[i].name) ||
            named(b->o->force, b->o->nforce, c->rungs[i].name))
            want(b, i);
    for (i = 0; i < c->nrungs; i++)
        if (b->jobs.sj[i].state == SJ_PENDING &&
            build_is_file(c->rungs[i].model, &st) && existing(b, i, &st) != 0)
            bad = 1;
    if (!bad && check_sources(b) != 0)
        bad = 1;
    /* two rungs made into one file would write one temporary name at
     * once and record each other's bytes */
    for (i = 0; i < c->nrungs; i++)
        for (k = i + 1; k < c->nrungs; k++)
            if ((b->jobs.sj[i].state == SJ_PENDING ||
                 b->jobs.sj[k].state == SJ_PENDING) &&
                strcmp(c->rungs[i].model, c->rungs[k].model) == 0) {
                build_error(b, "%s: rungs %s and %s name the same file %s",
                            c->path, c->rungs[i].name, c->rungs[k].name,
                            c->rungs[i].model);
                return EXIT_USAGE;
            }
    /* a source the build needs and cannot make */
    for (i = 0; i < c->nrungs; i++) {
        struct config_rung *r = &c->rungs[i];
        if (b->jobs.sj[i].state != SJ_PENDING || r->recipe != RECIPE_QUANTIZE)
            continue;
        if (c->rungs[r->from].recipe == RECIPE_NONE &&
            !build_is_file(c->rungs[r->from].model, &st)) {
            build_error(b,
                        "%s: rung %s is quantized from %s, whose file %s is "
                        "missing and has no recipe",
                        c->path, r->name, c->rungs[r->from].name,
                        c->rungs[r->from].model);
            bad = 1;
        }
    }
    return bad ? EXIT_USAGE : 0;
}

/* ---- before anything runs ------------------------------------------ */

static int dir_writable(const char *dir)
{
    struct stat st;

    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
           access(dir, W_OK | X_OK) == 0;
}

/* Every file of the checkpoint folder is a plain file (or a link to one,
 * as in Hugging Face's cache): a FIFO or a device there is bad input now,
 * not a failed step later. 0 or EXIT_USAGE. */
static int checkpoint_plain(struct bld *b, const char *dir)
{
    struct buf path = {0};
    struct dirent *e;
    struct stat st;
    int rc = 0;
    DIR *d = opendir(dir);

    if (d == NULL)
        return 0; /* the converter says why */
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (buf_path(&path, "%s/%s", dir, e->d_name) != 0) {
            build_error(b,
                        "%s: 'build.checkpoint': path too long: '%.200s...'",
                        b->c->path, dir);
            rc = EXIT_USAGE;
        } else if (stat(path.p, &st) == 0 && !S_ISREG(st.st_mode) &&
                   !S_ISDIR(st.st_mode)) {
            build_error(b, "%s: 'build.checkpoint': '%s': not a regular file",
                        b->c->path, path.p);
            rc = EXIT_USAGE;
        }
    }
    closedir(d);
    buf_release(&path);
    return rc;
}

/* The tool a config field names, found (into path, which the caller
 * releases): 0, or -1 said ("cannot find", or a path past the cap). */
static int tool_found(struct bld *b, const char *field, const char *name,
                      struct buf *path)
{
    int e = spawn_resolve(name, path);

    if (e == 0)
        return 0;
    if (e == ENAMETOOLONG)
        build_error(b, "%s: '%s': path too long: '%.200s...'", b->c->path,
                    field, name);
    else
        build_error(b, "%s: '%s': cannot find '%s'", b->c->path, field, name);
    buf_release(path);
    return -1;
}

static int check_tools(struct bld *b, int convert, int quantize)
{
    struct config *c = b->c;
    struct buf path = {0};
    char err[256];
    struct stat st;

    if (quantize) {
        if (tool_found(b, "build.quantize", c->build.quantize, &path) != 0)
            return EXIT_USAGE;
        /* "version: ..." from a build that has one; neither fork's does
         * today (usage, exit 1): tool_identity reads the run's log */
        (void)spawn_version(path.p, VERSION_MS, b->qversion,
                            sizeof b->qversion);
        buf_release(&path);
    }
    if (!convert)
        return 0;
    if (c->build.convert == NULL || !build_is_file(c->build.convert, &st) ||
        hash_path(c->build.convert, b->csha, err, sizeof err) != 0) {
        build_error(b, "%s: 'build.convert': cannot read the converter '%s'",
                    c->path, c->build.convert ? c->build.convert : "");
        return EXIT_USAGE;
    }
    if (tool_found(b, "build.python", c->build.python, &path) != 0)
        return EXIT_USAGE;
    buf_release(&path);
    if (stat(c->build.checkpoint, &st) != 0 || !S_ISDIR(st.st_mode)) {
        build_error(b, "%s: 'build.checkpoint': '%s' is not a folder", c->path,
                    c->build.checkpoint);
        return EXIT_USAGE;
    }
    if (checkpoint_plain(b, c->build.checkpoint) != 0)
        return EXIT_USAGE;
    if (c->build.tmpdir != NULL && !dir_writable(c->build.tmpdir)) {
        build_error(b, "%s: 'build.tmpdir': '%s' is not a folder we can write",
                    c->path, c->build.tmpdir);
        return EXIT_USAGE;
    }
    return 0;
}

static int preflight(struct bld *b)
{
    struct config *c = b->c;
    struct buf dir = {0};
    struct stat st;
    size_t i;
    int convert = 0, quantize = 0, rc = 0;

    for (i = 0; i < c->nrungs; i++) {
        struct config_rung *r = &c->rungs[i];
        if (b->jobs.sj[i].state != SJ_PENDING &&
            !b->jobs.job[i].recheck) /* may run */
            continue;
        convert |= r->recipe == RECIPE_CONVERT;
        quantize |= r->recipe == RECIPE_QUANTIZE;
        /* its temporary name (the folder, ".", the file's name and
         * ".graveyard-tmp"), with room for what start_tool appends: past
         * the cap, refused before a folder is made (a cut path would name
         * another file) */
        if (build_folder_of(r->model, &dir) != 0 ||
            buf_path(&b->s[i].tmp, "%s/.%s.graveyard-tmp", dir.p,
                     strrchr(r->model, '/') ? strrchr(r->model, '/') + 1
                                            : r->model) != 0 ||
            b->s[i].tmp.len > BUF_PATH_MAX - TMP_SUFFIX_ROOM) {
            build_error(b, "%s: rung %s: path too long: '%.200s...'", c->path,
                        r->name, r->model);
            rc = EXIT_USAGE;
            break;
        }
        /* a missing folder is made (as mkdir -p); one we cannot write
         * into is refused */
        if (stat(dir.p, &st) != 0 && errno == ENOENT) {
            char msg[512];
            if (files_mkdir(dir.p, 1, msg, sizeof msg) != 0) {
                build_error(b, "%s: rung %s: %s", c->path, r->name, msg);
                rc = EXIT_USAGE;
                break;
            }
        }
        if (!dir_writable(dir.p)) {
            build_error(b,
                        "%s: rung %s: cannot write into '%s' (the folder of "
                        "its \"model\")",
                        c->path, r->name, dir.p);
            rc = EXIT_USAGE;
            break;
        }
        /* a folder (or a FIFO) where the file goes is refused: it is
         * never renamed over, or written into */
        if (stat(r->model, &st) == 0 && !S_ISREG(st.st_mode)) {
            build_error(b, "%s: rung %s: its \"model\" '%s' is %s", c->path,
                        r->name, r->model,
                        S_ISDIR(st.st_mode) ? "a folder, not a file"
                                            : "not a regular file");
            rc = EXIT_USAGE;
            break;
        }
        if (r->imatrix != NULL && !build_is_file(r->imatrix, &st)) {
            build_error(b,
                        "%s: rung %s: 'quantize.imatrix' '%s' is not a file",
                        c->path, r->name, r->imatrix);
            rc = EXIT_USAGE;
            break;
        }
    }
    buf_release(&dir);
    return rc == 0 ? check_tools(b, convert, quantize) : rc;
}

/* One build at a time in a run folder: an exclusive flock held until we
 * exit (the kernel drops it when we die). */
static int lock_held(struct bld *b, int fd, const char *path);

static int lock_build(struct bld *b)
{
    struct buf locks = {0}, dir = {0}, path = {0};
    char msg[512];
    int fd, rc;

    /* a run folder whose paths pass the cap: refused before anything is
     * made (a cut path would name another file) */
    if (rundir_path_buf(&locks, b->c->run_dir, RD_LOCKS_DIR, NULL) != 0 ||
        rundir_path_buf(&dir, b->c->run_dir, RD_BUILD_DIR, NULL) != 0 ||
        rundir_path_buf(&path, b->c->run_dir, RD_BUILD_LOCK, NULL) != 0) {
        build_error(b, "path too long: '%.200s...'", b->c->run_dir);
        rc = EXIT_USAGE;
    } else if (files_mkdir(b->c->run_dir, 1, msg, sizeof msg) != 0 ||
               files_mkdir(locks.p, 0, msg, sizeof msg) != 0 ||
               files_mkdir(dir.p, 0, msg, sizeof msg) != 0 ||
               (fd = files_open(path.p, O_RDWR | O_CREAT, 0644, msg,
                                sizeof msg)) < 0) {
        build_error(b, "%s", msg);
        rc = files_exit_code(errno);
    } else {
        rc = lock_held(b, fd, path.p);
    }
    buf_release(&locks);
    buf_release(&dir);
    buf_release(&path);
    return rc;
}

/* The build lock at path, open as fd, taken (waiting for it with
 * --wait-lock): 0, 1 when it was waited for, or EXIT_BUSY. */
static int lock_held(struct bld *b, int fd, const char *path)
{
    if (flock(fd, LOCK_EX | LOCK_NB) != 0 && b->o->wait_lock) {
        /* nothing runs yet, so nothing waits on a loop: a signal ends us
         * as it would any command */
        build_note(b,
                   "another graveyard build is making the files of %s: "
                   "waiting for it",
                   b->c->run_dir);
        if (flock(fd, LOCK_EX) == 0)
            return 1; /* it may have made what we were about to */
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        build_error(b,
                    "another graveyard build is making the files of %s (%s is "
                    "locked); wait for it",
                    b->c->run_dir, path);
        close(fd);
        return EXIT_BUSY;
    }
    return 0; /* fd stays open, and locked, until we exit */
}

static int the_end(struct bld *b)
{
    size_t i, made = 0, had = 0, failed = 0;

    for (i = 0; i < b->c->nrungs; i++) {
        const struct sched_job *j = &b->jobs.sj[i];
        made += b->jobs.job[i].got == BJ_MAKE && j->state == SJ_DONE;
        had += b->jobs.job[i].got == BJ_HAVE;
        failed += j->state == SJ_FAILED || j->state == SJ_BLOCKED;
    }
    if (b->sup.stopping)
        return 128 + b->sup.sig;
    if (made + failed > 0 || !b->o->quiet)
        build_note(b, "%zu made, %zu there already, %zu not made%s", made, had,
                   failed,
                   failed ? " (see above; the same command tries again)" : "");
    return failed ? EXIT_FAILED : EXIT_OK;
}

static size_t count_pending(const struct bld *b)
{
    size_t i, n = 0;

    for (i = 0; i < b->c->nrungs; i++)
        n += b->jobs.sj[i].state == SJ_PENDING;
    return n;
}

/* The plan and every check, then the lock: 0 with *pending steps to
 * run, or the exit status. */
static int prepare(struct bld *b, size_t *pending)
{
    char msg[1024];
    int rc;

    if (config_build_expand(b->c, msg, sizeof msg) != 0) {
        build_error(b, "%s", msg);
        return EXIT_USAGE;
    }
    if (f16_init() != 0) {
        build_error(b, "the binary16 reference is not monotone (a bug)");
        return EXIT_FAILED;
    }
    if (buildrec_load(b->c->run_dir, &b->recs, msg, sizeof msg) != 0) {
        build_error(b, "%s", msg);
        return EXIT_USAGE;
    }
    rc = plan(b);
    *pending = count_pending(b);
    if (rc == 0 && *pending > 0)
        rc = preflight(b);
    if (rc == 0 && *pending > 0)
        rc = lock_build(b);
    if (rc == 1) { /* waited for another build: plan again */
        json_decref(b->recs);
        b->recs = NULL;
        for (size_t i = 0; i < b->c->nrungs; i++)
            build_free_step(&b->s[i]);
        memset(b->s, 0, sizeof b->s);
        rc = buildrec_load(b->c->run_dir, &b->recs, msg, sizeof msg) != 0
                 ? (build_error(b, "%s", msg), EXIT_USAGE)
                 : plan(b);
        *pending = count_pending(b);
        /* what the other build left: prepared as the first plan's were
         * (each step's temporary name is set there) */
        if (rc == 0 && *pending > 0)
            rc = preflight(b);
    }
    return rc;
}

static int run(struct bld *b, size_t pending)
{
    const struct config *c = b->c;
    long cores = (long)uv_available_parallelism();
    size_t i, maybe = 0, most;
    char more[128] = "";
    int rc;

    for (i = 0; i < c->nrungs; i++)
        maybe += (size_t)b->jobs.job[i].recheck;
    if (maybe > 0)
        snprintf(more, sizeof more,
                 "; %zu more if what they are made from comes out different",
                 maybe);
    most = pending + maybe;
    b->threads = (c->build.threads > 0 ? c->build.threads : cores) /
                 (b->o->jobs < (long)most ? b->o->jobs : (long)most);
    if (b->threads < 1)
        b->threads = 1;
    if (c->build.tmpdir != NULL) {
        /* the converter's temporary files go to build.tmpdir */
        size_t n = strlen(c->build.tmpdir) + 8;
        char *tmp = xrealloc(NULL, n);
        const char *set[1] = {tmp};
        snprintf(tmp, n, "TMPDIR=%s", c->build.tmpdir);
        b->convert_env = spawn_env_with(set, 1);
        free(tmp);
    }
    build_note(b, "%zu file%s to make, %ld at a time, %ld thread%s each%s%s%s",
               pending, pending == 1 ? "" : "s", b->o->jobs, b->threads,
               b->threads == 1 ? "" : "s", more, b->qversion[0] ? "; " : "",
               b->qversion);
    signal(SIGPIPE, SIG_IGN);
    rc = build_run_loop(b);
    return rc == 0 ? the_end(b) : rc;
}

int build_ladder(struct config *c, const struct build_opts *o)
{
    struct bld *b;
    size_t i, pending = 0;
    int rc;

    b = xrealloc(NULL, sizeof *b);
    memset(b, 0, sizeof *b);
    b->c = c;
    b->o = o;
    /* a second stop signal is not acted on: the tools are stopped and
     * their partial files removed first */
    super_init(&b->sup, o->who, o->quiet, SUPER_SECOND_IGNORED);
    rc = prepare(b, &pending);
    if (rc == 0)
        rc = pending > 0 ? run(b, pending) : the_end(b);
    for (i = 0; i < c->nrungs; i++)
        build_free_step(&b->s[i]);
    spawn_env_free(b->convert_env);
    json_decref(b->recs);
    free(b);
    return rc;
}
