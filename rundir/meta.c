/*
 * meta.c - bytes and GPU figures for a rung, from .done (done.h, its
 * reader) and ladder.tsv (ladderfile.h).
 */
#include "meta.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "done.h"
#include "ladderfile.h"
#include "rundir.h"
#include "../util/util.h"

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
    rc = rundir_done_meta(path.p, m, msg, msgsize) != 0 ||
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
