/*
 * store.c - append-and-fsync rows, torn-line recovery, answered ids.
 */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../grader/rows.h"
#include "cli.h"
#include "files.h"

/* Cut a last line that has no newline; returns bytes cut, or -1. */
static long long cut_torn(int fd)
{
    char chunk[4096];
    struct stat st;
    off_t end, pos;

    if (fstat(fd, &st) != 0)
        return -1;
    end = st.st_size;
    pos = end;
    while (pos > 0) {
        size_t n = pos < (off_t)sizeof(chunk) ? (size_t)pos : sizeof(chunk);
        ssize_t i;
        if (pread(fd, chunk, n, pos - (off_t)n) != (ssize_t)n)
            return -1;
        for (i = (ssize_t)n - 1; i >= 0; i--)
            if (chunk[i] == '\n')
                goto found;
        pos -= (off_t)n;
        continue;
    found:
        pos = pos - (off_t)n + i + 1;
        break;
    }
    if (pos == end)
        return 0;
    if (ftruncate(fd, pos) != 0 || fsync(fd) != 0)
        return -1;
    return (long long)(end - pos);
}

int store_open(struct store *s, const char *rundir, const char *rung,
               char *msg, size_t msgsize)
{
    struct grader_rung *r = NULL;
    struct grader_error err;
    char dir[4096];
    long long cut;

    memset(s, 0, sizeof(*s));
    s->fd = -1;
    snprintf(dir, sizeof(dir), "%s/rows", rundir);
    if ((size_t)snprintf(s->path, sizeof(s->path), "%s/%s.jsonl", dir, rung) >=
        sizeof(s->path)) {
        snprintf(msg, msgsize, "path too long: '%s'", rundir);
        return -1;
    }
    if (files_mkdir(rundir, 1, msg, msgsize) != 0 ||
        files_mkdir(dir, 0, msg, msgsize) != 0) {
        s->err = errno;
        return -1;
    }
    s->fd =
        files_open(s->path, O_RDWR | O_CREAT | O_APPEND, 0644, msg, msgsize);
    if (s->fd < 0) {
        s->err = errno;
        return -1;
    }
    if ((cut = cut_torn(s->fd)) < 0) {
        s->err = errno;
        snprintf(msg, msgsize, "cannot recover '%s': %s", s->path,
                 files_strerror(errno));
        store_close(s);
        return -1;
    }
    s->cut = (size_t)cut;
    s->answered = grader_qset_new();
    if (s->answered == NULL)
        util_oom("answered ids");
    if (grader_rung_read(s->answered, rung, s->path, 0, &r, &err) != 0) {
        grader_error_format(&err, msg, msgsize);
        s->err = EINVAL; /* a bad row is bad input */
        store_close(s);
        return -1;
    }
    s->rows = r->n;
    for (size_t i = 0; i < r->n; i++)
        s->right += (r->answers[i].flags & GRADER_A_RIGHT) != 0;
    grader_rung_free(r);
    return 0;
}

int store_has(const struct store *s, const char *id)
{
    uint32_t q;

    return grader_qset_find(s->answered, id, strlen(id), &q) == 0;
}

int store_append(struct store *s, const char *row, size_t len, char *msg,
                 size_t msgsize)
{
    struct stat st;
    char *line = xrealloc(NULL, len + 1);
    size_t off = 0;
    ssize_t n = 0;
    int e = 0;

    memcpy(line, row, len);
    line[len] = '\n';
    if (fstat(s->fd, &st) != 0) {
        s->err = errno;
        free(line);
        snprintf(msg, msgsize, "cannot stat '%s': %s", s->path,
                 files_strerror(errno));
        return -1;
    }
    /* one write: O_APPEND puts the whole row at the end at once. A short
     * one means the disk filled up mid-row: the next write says so. */
    while (off < len + 1) {
        n = write(s->fd, line + off, len + 1 - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            e = n < 0 ? errno : EIO;
            break;
        }
        off += (size_t)n;
    }
    free(line);
    if (e == 0 && fsync(s->fd) != 0)
        e = errno;
    if (e != 0) {
        /* leave no partial row: cut back to where the file was */
        if (ftruncate(s->fd, st.st_size) != 0 && e == 0)
            e = errno;
        s->err = e;
        snprintf(msg, msgsize, "cannot append to '%s': %s", s->path,
                 files_strerror(e));
        return -1;
    }
    s->rows++;
    s->written += len + 1;
    return 0;
}

void store_close(struct store *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    grader_qset_free(s->answered);
    s->answered = NULL;
}
