/*
 * beside.c - RUNDIR/beside.jsonl, which rungs shared a GPU.
 */
#include "beside.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "rundir.h"
#include "../util/util.h"

int rundir_beside_append(const char *rundir, const char *rung, const char *gpu,
                         const char *const *beside, size_t n, char *msg,
                         size_t msgsize)
{
    struct buf path = {0};
    json_t *line =
        json_pack("{s:s,s:s,s:[]}", "rung", rung, "gpu", gpu, "beside");
    char *text;
    size_t len;
    ssize_t w;
    int fd, rc = -1;

    for (size_t i = 0; line != NULL && i < n; i++)
        json_array_append_new(json_object_get(line, "beside"),
                              json_string(beside[i]));
    text = line ? json_dumps(line, JSON_COMPACT) : NULL;
    json_decref(line);
    if (text == NULL || rundir_path_buf(&path, rundir, RD_BESIDE, NULL) != 0) {
        snprintf(msg, msgsize, "cannot record which rungs shared a GPU");
        free(text);
        buf_release(&path);
        return -1;
    }
    len = strlen(text);
    text[len++] = '\n'; /* json_dumps left room for its NUL */
    fd = files_open(path.p, O_WRONLY | O_CREAT | O_APPEND, 0644, msg, msgsize);
    if (fd >= 0) {
        w = write(fd, text, len);
        if (w == (ssize_t)len && fsync(fd) == 0)
            rc = 0;
        else
            snprintf(msg, msgsize, "cannot write '%s': %s", path.p,
                     files_strerror(errno));
        close(fd);
    }
    free(text);
    buf_release(&path);
    return rc;
}

json_t *rundir_beside_read(const char *rundir)
{
    struct buf path = {0};
    char line[8192], msg[4400];
    json_t *all = json_array();
    FILE *f = NULL;

    if (all != NULL && rundir_path_buf(&path, rundir, RD_BESIDE, NULL) == 0)
        f = files_fopen_read(path.p, 1, msg, sizeof(msg));
    buf_release(&path);
    if (f == NULL)
        return all;
    while (fgets(line, sizeof(line), f) != NULL) {
        json_t *o = json_loads(line, 0, NULL);
        if (json_is_string(json_object_get(o, "rung")) &&
            json_is_string(json_object_get(o, "gpu")) &&
            json_is_array(json_object_get(o, "beside")))
            json_array_append(all, o);
        json_decref(o);
    }
    fclose(f);
    return all;
}
