/*
 * rowsfile.c - read a rows file in 1 MiB slices and feed the grader.
 */
#include "rowsfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../rundir/files.h"
#include "../../util/util.h"

#define READ_CHUNK (1u << 20)

static int fail(struct grader_error *err, int code, const char *path,
                const char *fmt, const char *arg)
{
    if (err != NULL) {
        snprintf(err->file, sizeof(err->file), "%s", path);
        err->line = 0;
        snprintf(err->text, sizeof(err->text), fmt, arg);
    }
    return code;
}

int rowsfile_read(struct grader_qset *qs, const char *name, const char *path,
                  unsigned flags, struct grader_rung **out,
                  struct grader_error *err)
{
    return rowsfile_read_rule(qs, name, path, flags, NULL, 0, out, err);
}

int rowsfile_read_rule(struct grader_qset *qs, const char *name,
                       const char *path, unsigned flags,
                       const struct grader_task *task, size_t rule,
                       struct grader_rung **out, struct grader_error *err)
{
    struct grader_reader rd;
    struct grader_rung *r;
    char *buf, why[4400];
    int fd, rc = 0;
    ssize_t got;

    *out = NULL;
    fd = files_open_read(path, 0, why, sizeof(why));
    if (fd < 0 && errno == ENOENT)
        return fail(err, GRADER_ENOENT, path,
                    "no such rows file (has rung '%s' been run?)", name);
    if (fd < 0 && errno == EINVAL) /* a FIFO, a device, a folder */
        return fail(err, GRADER_EARG, path, "%s", "not a regular file");
    if (fd < 0)
        return fail(err, GRADER_EIO, path, "cannot open rows file: %s",
                    strerror(errno));
    r = grader_rung_new(name, path);
    if (r == NULL) {
        close(fd);
        return fail(err, GRADER_ENOMEM, path, "%s", "out of memory");
    }
    buf = xrealloc(NULL, READ_CHUNK);
    grader_reader_init(&rd, qs, r, flags);
    if (task != NULL)
        grader_reader_set_rule(&rd, task, rule);
    for (;;) {
        got = read(fd, buf, READ_CHUNK);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = fail(err, GRADER_EIO, path, "cannot read: %s",
                      strerror(errno));
            break;
        }
        if (got == 0) {
            rc = grader_reader_finish(&rd, err);
            break;
        }
        if ((rc = grader_reader_feed(&rd, buf, (size_t)got, err)) != 0)
            break;
    }
    grader_reader_release(&rd);
    free(buf);
    close(fd);
    if (rc != 0) {
        grader_rung_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

int rowsfile_answered(const char *path, const char *rung,
                      const struct grader_task *task,
                      struct grader_qset **answered, size_t *rows,
                      size_t *right, char *msg, size_t msgsize)
{
    struct grader_rung *r = NULL;
    struct grader_error err;
    size_t i;

    *answered = grader_qset_new();
    if (*answered == NULL)
        util_oom("answered ids");
    if (rowsfile_read_rule(*answered, rung, path, 0, task, 0, &r, &err) != 0) {
        grader_error_format(&err, msg, msgsize);
        grader_qset_free(*answered);
        *answered = NULL;
        return -1;
    }
    *rows = r->n;
    *right = 0;
    for (i = 0; i < r->n; i++)
        *right += (r->answers[i].flags & GRADER_A_RIGHT) != 0;
    grader_rung_free(r);
    return 0;
}
