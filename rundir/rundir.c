/*
 * rundir.c - the run folder's names, in one table.
 */
#include "rundir.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "files.h"
#include "../util/util.h"

static const struct {
    const char *fmt; /* %1$s the folder, %2$s the rung */
    int per_rung;
} names[] = {
    [RD_ROWS_DIR] = {"%s/rows", 0},
    [RD_ROWS] = {"%s/rows/%s.jsonl", 1},
    [RD_DONE] = {"%s/rows/%s.done", 1},
    [RD_PROBS] = {"%s/rows/%s.probs", 1},
    [RD_LOCKS_DIR] = {"%s/locks", 0},
    [RD_LOCK] = {"%s/locks/%s.lock", 1},
    [RD_FILES_LOCK] = {"%s/locks/files.lock", 0},
    [RD_LOGS_DIR] = {"%s/logs", 0},
    [RD_LOG] = {"%s/logs/%s.server.log", 1},
    [RD_PID] = {"%s/%s.server.pid", 1},
    [RD_MANIFEST] = {"%s/manifest.json", 0},
    [RD_LADDER_TSV] = {"%s/ladder.tsv", 0},
    [RD_LADDER_JSON] = {"%s/ladder.json", 0},
    [RD_HASH_CACHE] = {"%s/sha256.cache", 0},
    [RD_GRAVEYARD] = {"%s/graveyard.json", 0},
    [RD_GRAVEYARD_SIDE] = {"%s/graveyard-side.json", 0},
    [RD_REPEAT_DIR] = {"%s/repeat", 0},
    [RD_BUILD_JSON] = {"%s/build.json", 0},
    [RD_BUILD_DIR] = {"%s/build", 0},
    [RD_BUILD_LOG] = {"%s/build/%s.log", 1},
    [RD_BUILD_LOCK] = {"%s/locks/build.lock", 0},
    [RD_F16_RANGE] = {"%s/f16-range.jsonl", 0},
    [RD_CANARY_DIR] = {"%s/canary", 0},
    [RD_CANARY_QUESTIONS] = {"%s/canary/questions.jsonl", 0},
    [RD_CANARY_JSON] = {"%s/canary/canary.json", 0},
    [RD_BESIDE] = {"%s/beside.jsonl", 0},
    [RD_POWER] = {"%s/rows/%s.power", 1},
    [RD_AUDIT_DIR] = {"%s/audit", 0},
    [RD_AUDIT] = {"%s/audit/%s", 1},
    [RD_LONG_ITEMS] = {"%s/long.jsonl", 0},
    [RD_LONG_LOG] = {"%s/logs/long.tokenizer.log", 0},
    [RD_CANDIDATES] = {"%s/rows/%s.candidates", 1},
};

const char *rundir_file_name(enum rundir_file what)
{
    const char *f;

    if ((size_t)what >= sizeof(names) / sizeof(names[0]) ||
        names[what].per_rung)
        return NULL;
    f = names[what].fmt;
    return strncmp(f, "%s/", 3) == 0 ? f + 3 : NULL;
}

int rundir_path(char *out, size_t size, const char *rundir,
                enum rundir_file what, const char *rung)
{
    int n;

    if ((size_t)what >= sizeof(names) / sizeof(names[0]) ||
        (names[what].per_rung && rung == NULL)) {
        if (size > 0)
            out[0] = '\0';
        return -1;
    }
    n = names[what].per_rung
            ? snprintf(out, size, names[what].fmt, rundir, rung)
            : snprintf(out, size, names[what].fmt, rundir);
    if (n < 0 || (size_t)n >= size) {
        if (size > 0)
            out[0] = '\0';
        return -1;
    }
    return 0;
}

int rundir_path_buf(struct buf *b, const char *rundir, enum rundir_file what,
                    const char *rung)
{
    const char *f, *arg[2] = {rundir, rung};
    size_t k = 0;
    int rc = 0;

    if (b->max == 0)
        b->max = RUNDIR_PATH_MAX;
    b->len = 0;
    if ((size_t)what >= sizeof(names) / sizeof(names[0]) ||
        (names[what].per_rung && rung == NULL))
        rc = -1;
    /* the table's formats hold only %s, the folder then the rung */
    for (f = rc == 0 ? names[what].fmt : ""; rc == 0 && *f; f++) {
        if (f[0] == '%' && f[1] == 's') {
            rc = buf_add(b, arg[k], strlen(arg[k]));
            k++;
            f++;
        } else
            rc = buf_add(b, f, 1);
    }
    if (rc != 0)
        b->len = 0;
    buf_append(b, "", 0); /* b->p a string whatever happened ("" on -1) */
    return rc == 0 ? 0 : -1;
}

int rundir_gpu_dir_buf(struct buf *b, const char *rundir, const char *gpu)
{
    int rc;

    if (b->max == 0)
        b->max = RUNDIR_PATH_MAX;
    b->len = 0;
    rc = buf_add(b, rundir, strlen(rundir)) || buf_add(b, "/gpu", 4) ||
         buf_add(b, gpu, strlen(gpu));
    if (rc != 0)
        b->len = 0;
    buf_append(b, "", 0); /* b->p a string whatever happened ("" on -1) */
    return rc == 0 ? 0 : -1;
}

int rundir_check_ahead(const char *rundir, const char *rung,
                       const enum rundir_file *what, size_t n, char *msg,
                       size_t msgsize)
{
    struct buf path = {0};
    struct stat st;
    size_t i;
    int rc = 0;

    for (i = 0; i < n && rc == 0; i++) {
        if (rundir_path_buf(&path, rundir, what[i], rung) != 0) {
            snprintf(msg, msgsize, "path too long: '%.200s...'", rundir);
            errno = ENAMETOOLONG;
            rc = -1;
        } else if (lstat(path.p, &st) != 0) {
            rc = 0; /* absent (or its folder is): made when it is due */
        } else if (S_ISLNK(st.st_mode)) {
            rc = files_check_target(path.p, msg, msgsize); /* says so */
        } else if (!S_ISREG(st.st_mode)) {
            snprintf(msg, msgsize, "'%s': not a regular file", path.p);
            errno = EINVAL;
            rc = -1;
        }
    }
    buf_release(&path);
    return rc;
}
