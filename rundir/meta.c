/*
 * meta.c - bytes and GPU figures for a rung, from .done and ladder.tsv.
 */
#include "meta.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ladderfile.h"
#include "rundir.h"

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

static int read_done(const char *path, struct grader_meta *m, char *msg,
                     size_t msgsize)
{
    json_error_t jerr;
    json_t *o, *g;
    FILE *f = fopen(path, "r");

    if (f == NULL && errno == ENOENT)
        return 0;
    if (f == NULL) {
        snprintf(msg, msgsize, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    o = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
    fclose(f);
    if (o == NULL) {
        snprintf(msg, msgsize, "%s:%d: malformed rung summary: %s", path,
                 jerr.line, jerr.text);
        return -1;
    }
    if (!json_is_object(o)) {
        snprintf(msg, msgsize, "%s: rung summary is not a JSON object", path);
        json_decref(o);
        return -1;
    }
    g = json_object_get(o, "gpu_name");
    if (g != NULL && !json_is_null(g) && !json_is_string(g)) {
        snprintf(msg, msgsize, "%s: \"gpu_name\" must be a string", path);
        json_decref(o);
        return -1;
    }
    if (json_is_string(g))
        snprintf(m->gpu_name, sizeof(m->gpu_name), "%s", json_string_value(g));
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
    char path[4200];
    struct lrow *rows;
    size_t n, i;

    memset(m, 0, sizeof(*m));
    m->bytes = m->gpu_mib_loaded = m->gpu_mib_before = -1;
    if (rundir_path(path, sizeof(path), rundir, RD_DONE, rung) != 0) {
        snprintf(msg, msgsize, "%.200s: path too long", rundir);
        return -1;
    }
    if (read_done(path, m, msg, msgsize) != 0)
        return -1;
    rundir_path(path, sizeof(path), rundir, RD_LADDER_TSV, NULL);
    if (ladderfile_read(path, 1, &rows, &n, msg, msgsize) != 0)
        return -1;
    for (i = 0; i < n; i++)
        if (strcmp(rows[i].rung, rung) == 0) {
            if (m->bytes < 0)
                m->bytes = (long long)rows[i].bytes;
            memcpy(m->sha256, rows[i].sha256, sizeof(m->sha256));
            break;
        }
    free(rows);
    return 0;
}
