/*
 * meta.c - bytes and GPU figures for a rung, from .done and ladder.tsv.
 */
#include "meta.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "ladderfile.h"
#include "rundir.h"
#include "../util/util.h"

/* An integer field of the .done object; absent or null leaves *v. */
static int done_field(json_t *o, const char *key, long long *v,
                      const char *path, char *msg, size_t msgsize)
{
    json_t *x = json_object_get(o, key);

    if (x == NULL || json_is_null(x))
        return 0;
    if (!json_is_integer(x) || json_integer_value(x) < 0) {
        snprintf(msg, msgsize, "%s: \"%s\" must be a non-negative integer",
                 path, key);
        return -1;
    }
    *v = json_integer_value(x);
    return 0;
}

/* The counts every summary has (record.c writes them all). */
static int done_counts(json_t *o, const char *rung, const char *path,
                       char *msg, size_t msgsize)
{
    static const char *const counts[] = {"n", "right", "errors", "truncated"};
    json_t *r = json_object_get(o, "rung");
    size_t i;

    if (!json_is_string(r) || strcmp(json_string_value(r), rung) != 0) {
        snprintf(msg, msgsize, "%s: not the summary of rung '%s'", path, rung);
        return -1;
    }
    for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        json_t *x = json_object_get(o, counts[i]);
        if (!json_is_integer(x) || json_integer_value(x) < 0) {
            snprintf(msg, msgsize, "%s: \"%s\" must be a non-negative integer",
                     path, counts[i]);
            return -1;
        }
    }
    return 0;
}

int rundir_done_load(const char *path, const char *rung, char **text,
                     json_t **out, char *msg, size_t msgsize)
{
    char why[4400], *buf = NULL, *nl;
    json_error_t jerr;
    json_t *o = NULL;
    ssize_t got = 0;
    size_t len = 0;
    int fd = files_open_read(path, 1, why, sizeof(why)), e;

    if (fd < 0 && errno == ENOENT)
        return 1;
    if (fd < 0) {
        e = errno;
        snprintf(msg, msgsize, "rung summary: %s", why);
        errno = e;
        return -1;
    }
    buf = malloc(RUNDIR_DONE_MAX + 2); /* one past the cap, and a NUL */
    while (buf != NULL && len <= RUNDIR_DONE_MAX &&
           ((got = read(fd, buf + len, RUNDIR_DONE_MAX + 1 - len)) > 0 ||
            (got < 0 && errno == EINTR)))
        len += got > 0 ? (size_t)got : 0;
    e = errno;
    close(fd);
    if (buf == NULL || got < 0) {
        snprintf(msg, msgsize, "%s: cannot read: %s", path,
                 buf == NULL ? "out of memory" : strerror(e));
        free(buf);
        errno = buf == NULL ? ENOMEM : e;
        return -1;
    }
    buf[len] = '\0';
    errno = EINVAL; /* from here on the file is bad input */
    nl = memchr(buf, '\n', len);
    if (len > RUNDIR_DONE_MAX)
        snprintf(msg, msgsize, "%s: over %u bytes: not a rung summary", path,
                 RUNDIR_DONE_MAX);
    else if (rung != NULL && (len == 0 || nl != buf + len - 1))
        snprintf(msg, msgsize, "%s: not one line: not a rung summary", path);
    else if ((o = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr)) == NULL)
        snprintf(msg, msgsize, "%s:%d: malformed rung summary: %s", path,
                 jerr.line, jerr.text);
    else if (!json_is_object(o))
        snprintf(msg, msgsize, "%s: rung summary is not a JSON object", path);
    if (o == NULL || !json_is_object(o) ||
        (rung != NULL && done_counts(o, rung, path, msg, msgsize) != 0)) {
        json_decref(o);
        free(buf);
        errno = EINVAL;
        return -1;
    }
    if (out != NULL)
        *out = o;
    else
        json_decref(o);
    if (text != NULL)
        *text = buf;
    else
        free(buf);
    return 0;
}

/* Leniently: summaries made by hand or by older versions lack counts. */
static int read_done(const char *path, struct grader_meta *m, char *msg,
                     size_t msgsize)
{
    json_t *o, *g;
    int rc = rundir_done_load(path, NULL, NULL, &o, msg, msgsize);

    if (rc != 0)
        return rc == 1 ? 0 : -1;
    g = json_object_get(o, "gpu_name");
    if (g != NULL && !json_is_null(g) && !json_is_string(g)) {
        snprintf(msg, msgsize, "%s: \"gpu_name\" must be a string", path);
        json_decref(o);
        return -1;
    }
    if (json_is_string(g))
        snprintf(m->gpu_name, sizeof(m->gpu_name), "%s", json_string_value(g));
    m->unpinned = json_is_false(json_object_get(o, "pinned"));
    if (done_field(o, "bytes", &m->bytes, path, msg, msgsize) != 0 ||
        done_field(o, "gpu_mib_loaded", &m->gpu_mib_loaded, path, msg,
                   msgsize) != 0 ||
        done_field(o, "gpu_mib_before", &m->gpu_mib_before, path, msg,
                   msgsize) != 0) {
        json_decref(o);
        return -1;
    }
    json_decref(o);
    return 0;
}

int rundir_meta_read(const char *rundir, const char *rung,
                     struct grader_meta *m, char *msg, size_t msgsize)
{
    struct buf path = {0};
    struct lrow *rows;
    const struct lrow *r;
    size_t n;
    int rc;

    memset(m, 0, sizeof(*m));
    m->bytes = m->gpu_mib_loaded = m->gpu_mib_before = -1;
    if (rundir_path_buf(&path, rundir, RD_DONE, rung) != 0) {
        snprintf(msg, msgsize, "%.200s: path too long", rundir);
        buf_release(&path);
        return -1;
    }
    /* ladder.tsv's path is no longer than rows/RUNG.done's */
    rc = read_done(path.p, m, msg, msgsize) != 0 ||
         rundir_path_buf(&path, rundir, RD_LADDER_TSV, NULL) != 0 ||
         ladderfile_read(path.p, 1, &rows, &n, msg, msgsize) != 0;
    buf_release(&path);
    if (rc != 0)
        return -1;
    if ((r = ladderfile_find(rows, n, rung)) != NULL) {
        /* a served model's row: no file, so no bytes (not 0) */
        if (m->bytes < 0 && !m->unpinned)
            m->bytes = (long long)r->bytes;
        memcpy(m->sha256, r->sha256, sizeof(m->sha256));
    }
    free(rows);
    return 0;
}
