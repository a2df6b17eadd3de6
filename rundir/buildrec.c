/*
 * buildrec.c - RUNDIR/build.json (buildrec.h).
 */
#include "buildrec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "outfile.h"
#include "rundir.h"
#include "../util/util.h"

#define BUILDREC_MAX (16u << 20)

int buildrec_load(const char *rundir, json_t **rungs, char *msg,
                  size_t msgsize)
{
    struct buf path = {0};
    json_error_t err;
    json_t *root, *r;
    FILE *f;

    *rungs = NULL;
    if (rundir_path_buf(&path, rundir, RD_BUILD_JSON, NULL) != 0) {
        snprintf(msg, msgsize, "%.200s...: path too long", rundir);
        buf_release(&path);
        return -1;
    }
    f = files_fopen_read(path.p, 1, msg, msgsize);
    if (f == NULL) {
        int absent = errno == ENOENT;
        buf_release(&path);
        if (!absent)
            return -1;
        *rungs = json_object();
        return *rungs != NULL ? 0 : -1;
    }
    root = json_loadf(f, JSON_REJECT_DUPLICATES, &err);
    fclose(f);
    r = json_object_get(root, "rungs");
    if (root == NULL || !json_is_object(r)) {
        snprintf(msg, msgsize, "%s:%d: %s", path.p, root ? 1 : err.line,
                 root ? "no \"rungs\" object" : err.text);
        json_decref(root);
        buf_release(&path);
        return -1;
    }
    *rungs = json_incref(r);
    json_decref(root);
    buf_release(&path);
    return 0;
}

int buildrec_put(const char *rundir, const char *rung, json_t *rec, char *msg,
                 size_t msgsize)
{
    struct buf path = {0};
    char *text;
    json_t *rungs, *root;
    int rc;

    if (buildrec_load(rundir, &rungs, msg, msgsize) != 0)
        return -1;
    json_object_set(rungs, rung, rec);
    root = json_pack("{s:i, s:o}", "graveyard_build", 1, "rungs", rungs);
    text = root ? json_dumps(root, JSON_INDENT(1) | JSON_SORT_KEYS) : NULL;
    json_decref(root);
    if (text == NULL || strlen(text) > BUILDREC_MAX) {
        snprintf(msg, msgsize, "build.json: out of memory or over %u MiB",
                 BUILDREC_MAX >> 20);
        free(text);
        return -1;
    }
    /* buildrec_load made the same path above, so this one fits */
    rc = -1;
    if (rundir_path_buf(&path, rundir, RD_BUILD_JSON, NULL) != 0)
        snprintf(msg, msgsize, "%.200s...: path too long", rundir);
    else
        rc = outfile_write(path.p, text, strlen(text), msg, msgsize);
    free(text);
    buf_release(&path);
    return rc;
}
