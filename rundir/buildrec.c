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

#define BUILDREC_MAX (16u << 20)

int buildrec_load(const char *rundir, json_t **rungs, char *msg,
                  size_t msgsize)
{
    char path[4200];
    json_error_t err;
    json_t *root, *r;
    FILE *f;

    *rungs = NULL;
    if (rundir_path(path, sizeof path, rundir, RD_BUILD_JSON, NULL) != 0) {
        snprintf(msg, msgsize, "%.200s...: path too long", rundir);
        return -1;
    }
    f = files_fopen_read(path, 1, msg, msgsize);
    if (f == NULL && errno == ENOENT) {
        *rungs = json_object();
        return *rungs != NULL ? 0 : -1;
    }
    if (f == NULL)
        return -1;
    root = json_loadf(f, JSON_REJECT_DUPLICATES, &err);
    fclose(f);
    r = json_object_get(root, "rungs");
    if (root == NULL || !json_is_object(r)) {
        snprintf(msg, msgsize, "%s:%d: %s", path, root ? 1 : err.line,
                 root ? "no \"rungs\" object" : err.text);
        json_decref(root);
        return -1;
    }
    *rungs = json_incref(r);
    json_decref(root);
    return 0;
}

int buildrec_put(const char *rundir, const char *rung, json_t *rec, char *msg,
                 size_t msgsize)
{
    char path[4200], *text;
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
    rundir_path(path, sizeof path, rundir, RD_BUILD_JSON, NULL);
    rc = outfile_write(path, text, strlen(text), msg, msgsize);
    free(text);
    return rc;
}
