/*
 * done.c - rows/<RUNG>.done's writer and reader (done.h).
 */
#include "done.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "../util/util.h"

/* The summary's keys: spelt here alone. */
#define DK_RUNG       "rung"
#define DK_N          "n"
#define DK_RIGHT      "right"
#define DK_ERRORS     "errors"
#define DK_TRUNCATED  "truncated"
#define DK_TPS        "median_decode_tps"
#define DK_TOKENS     "mean_tokens"
#define DK_BYTES      "bytes"
#define DK_SERVER     "server"
#define DK_PINNED     "pinned"
#define DK_STEP_LIMIT "step_limit"
#define DK_GPU_BEFORE "gpu_mib_before"
#define DK_GPU_LOADED "gpu_mib_loaded"
#define DK_GPU_NAME   "gpu_name"
#define DK_LAYERS     "layers_offloaded"
#define DK_BUFFERS    "model_buffers_mib"
#define DK_RUN        "run"

void rundir_done_buffer(struct rundir_done *d, const char *name, double mib)
{
    size_t i, len = strlen(name);

    if (len == 0 || len >= sizeof(d->buffers[0].name))
        return;
    for (i = 0; i < d->nbuffers; i++)
        if (strcmp(d->buffers[i].name, name) == 0) {
            d->buffers[i].mib = mib;
            return;
        }
    if (d->nbuffers == RUNDIR_DONE_BUFFERS_MAX)
        return;
    memcpy(d->buffers[d->nbuffers].name, name, len + 1);
    d->buffers[d->nbuffers++].mib = mib;
}

static json_t *opt_real(double v)
{
    return v >= 0 ? json_real(v) : json_null();
}

static json_t *opt_int(long v)
{
    return v >= 0 ? json_integer(v) : json_null();
}

/* The cost of the process that wrote it. */
static json_t *run_json(const struct rundir_done *d)
{
    return json_pack("{s:f,s:I,s:I,s:i,s:I}", "cpu_s", d->cpu_s, "peak_rss_kb",
                     (json_int_t)d->peak_rss_kb, "rows_bytes_written",
                     (json_int_t)d->rows_bytes_written, "server_starts",
                     d->server_starts, "server_log_dropped",
                     (json_int_t)d->log_dropped);
}

json_t *rundir_done_json(const struct rundir_done *d)
{
    json_t *o = json_object(), *b;
    int ok = o != NULL;
    size_t i;

#define PUT(key, value) (ok = ok && json_object_set_new(o, key, value) == 0)
    PUT(DK_RUNG, json_string(d->rung));
    PUT(DK_N, json_integer(d->n));
    PUT(DK_RIGHT, json_integer(d->right));
    PUT(DK_ERRORS, json_integer(d->errors));
    PUT(DK_TRUNCATED, json_integer(d->truncated));
    PUT(DK_TPS, opt_real(d->median_tps));
    PUT(DK_TOKENS, opt_real(d->mean_tokens));
    PUT(DK_BYTES,
        d->served ? json_null() : json_integer((json_int_t)d->bytes));
    PUT(DK_SERVER, json_string(d->server));
    if (d->served)
        PUT(DK_PINNED, json_false());
    if (d->step_limit > 0)
        PUT(DK_STEP_LIMIT, json_integer(d->step_limit));
    PUT(DK_GPU_BEFORE, opt_int(d->gpu_before));
    PUT(DK_GPU_LOADED, opt_int(d->gpu_loaded));
    PUT(DK_GPU_NAME, d->gpu_name != NULL && d->gpu_name[0]
                         ? json_string(d->gpu_name)
                         : json_null());
    if (d->layers[0])
        PUT(DK_LAYERS, json_string(d->layers));
    if (d->nbuffers > 0) {
        PUT(DK_BUFFERS, b = json_object());
        for (i = 0; ok && i < d->nbuffers; i++)
            ok = json_object_set_new(b, d->buffers[i].name,
                                     json_real(d->buffers[i].mib)) == 0;
    }
    PUT(DK_RUN, run_json(d));
#undef PUT
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

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
    static const char *const counts[] = {DK_N, DK_RIGHT, DK_ERRORS,
                                         DK_TRUNCATED};
    json_t *r = json_object_get(o, DK_RUNG);
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

int rundir_done_meta(const char *path, struct grader_meta *m, char *msg,
                     size_t msgsize)
{
    json_t *o, *g;
    int rc = rundir_done_load(path, NULL, NULL, &o, msg, msgsize);

    if (rc != 0)
        return rc == 1 ? 0 : -1;
    g = json_object_get(o, DK_GPU_NAME);
    if (g != NULL && !json_is_null(g) && !json_is_string(g)) {
        snprintf(msg, msgsize, "%s: \"%s\" must be a string", path,
                 DK_GPU_NAME);
        json_decref(o);
        return -1;
    }
    if (json_is_string(g))
        snprintf(m->gpu_name, sizeof(m->gpu_name), "%s", json_string_value(g));
    m->unpinned = json_is_false(json_object_get(o, DK_PINNED));
    if (done_field(o, DK_BYTES, &m->bytes, path, msg, msgsize) != 0 ||
        done_field(o, DK_GPU_LOADED, &m->gpu_mib_loaded, path, msg, msgsize) !=
            0 ||
        done_field(o, DK_GPU_BEFORE, &m->gpu_mib_before, path, msg, msgsize) !=
            0) {
        json_decref(o);
        return -1;
    }
    json_decref(o);
    return 0;
}
