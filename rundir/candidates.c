/*
 * candidates.c - reading rows/<RUNG>.candidates (candidates.h).
 */
#include "candidates.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "../grader/grader.h"
#include "../util/util.h"
#include "files.h"
#include "rundir.h"

int candidates_each(const char *rundir, const char *rung,
                    int (*each)(void *ctx, const char *line, size_t len,
                                long lineno),
                    void *ctx, char *msg, size_t msgsize)
{
    struct buf path = {0};
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    ssize_t n;
    FILE *f;
    int rc = 0;

    if (rundir_path_buf(&path, rundir, RD_CANDIDATES, rung) != 0) {
        files_too_long(rundir, msg, msgsize);
        return -1;
    }
    if ((f = files_fopen_read(path.p, 1, msg, msgsize)) == NULL) {
        rc = errno == ENOENT ? 0 : -1;
        buf_release(&path);
        return rc;
    }
    errno = 0;
    while (rc == 0 && (n = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[n - 1] != '\n') /* torn: the writer cuts it */
            break;
        if ((size_t)n > GRADER_ROW_MAX) {
            snprintf(msg, msgsize,
                     "%.600s:%ld: a line of %zd bytes, over the "
                     "cap of %u",
                     path.p, lineno, n, GRADER_ROW_MAX);
            errno = EINVAL;
            rc = -1;
            break;
        }
        rc = each(ctx, line, (size_t)n - 1, lineno);
    }
    if (rc == 0 && ferror(f)) {
        snprintf(msg, msgsize, "cannot read '%.600s': %s", path.p,
                 files_strerror(errno));
        rc = -1;
    }
    free(line);
    fclose(f);
    buf_release(&path);
    return rc;
}
