/*
 * store.c - append-and-fsync rows, torn-line recovery.
 */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/util.h"
#include "files.h"
#include "rundir.h"

/* bytes read at a time, backwards, to the last newline */
#define CUT_CHUNK 4096

/* Cut a last line that has no newline; returns bytes cut, or -1. */
static long long cut_torn(int fd)
{
    char chunk[CUT_CHUNK];
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

int store_open_file(const char *rundir, int which, const char *rung,
                    struct buf *path, int *err, char *msg, size_t msgsize)
{
    struct buf dir = {0};
    int fd = -1;

    if (rundir_path_buf(&dir, rundir, RD_ROWS_DIR, NULL) != 0 ||
        rundir_path_buf(path, rundir, which, rung) != 0) {
        files_too_long(rundir, msg, msgsize);
        *err = ENAMETOOLONG;
        goto out;
    }
    if (files_mkdir(rundir, 1, msg, msgsize) != 0 ||
        files_mkdir(dir.p, 0, msg, msgsize) != 0) {
        *err = errno;
        goto out;
    }
    fd = files_open(path->p, O_RDWR | O_CREAT | O_APPEND, 0644, msg, msgsize);
    if (fd < 0)
        *err = errno;
out:
    buf_release(&dir);
    return fd;
}

int store_write_synced(int fd, const char *path, const void *data, size_t len,
                       int *err, char *msg, size_t msgsize)
{
    struct stat st;
    const char *p = data;
    size_t off = 0;
    ssize_t n;
    int e = 0;

    if (fstat(fd, &st) != 0) {
        *err = errno;
        snprintf(msg, msgsize, "cannot stat '%s': %s", path,
                 files_strerror(errno));
        return -1;
    }
    /* one write: O_APPEND puts the whole of it at the end at once. A
     * short one means the disk filled up midway: the next write says so. */
    while (off < len) {
        n = write(fd, p + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            e = n < 0 ? errno : EIO;
            break;
        }
        off += (size_t)n;
    }
    if (e == 0 && fsync(fd) != 0)
        e = errno;
    if (e != 0) {
        /* leave nothing partial: cut back to where the file was */
        if (ftruncate(fd, st.st_size) != 0 && e == 0)
            e = errno;
        *err = e;
        snprintf(msg, msgsize, "cannot append to '%s': %s", path,
                 files_strerror(e));
        return -1;
    }
    return 0;
}

int store_open(struct store *s, const char *rundir, const char *rung,
               char *msg, size_t msgsize)
{
    return store_open_as(s, rundir, RD_ROWS, rung, msg, msgsize);
}

int store_open_as(struct store *s, const char *rundir, int which,
                  const char *rung, char *msg, size_t msgsize)
{
    long long cut;

    memset(s, 0, sizeof(*s));
    s->fd =
        store_open_file(rundir, which, rung, &s->path, &s->err, msg, msgsize);
    if (s->fd < 0) {
        store_close(s);
        return -1;
    }
    if ((cut = cut_torn(s->fd)) < 0) {
        s->err = errno;
        snprintf(msg, msgsize, "cannot recover '%s': %s", s->path.p,
                 files_strerror(errno));
        store_close(s);
        return -1;
    }
    s->cut = (size_t)cut;
    return 0;
}

int store_append(struct store *s, const char *row, size_t len, char *msg,
                 size_t msgsize)
{
    char *line = xrealloc(NULL, len + 1);
    int rc;

    memcpy(line, row, len);
    line[len] = '\n';
    rc = store_write_synced(s->fd, s->path.p, line, len + 1, &s->err, msg,
                            msgsize);
    free(line);
    if (rc != 0)
        return -1;
    s->rows++;
    s->written += len + 1;
    return 0;
}

void store_close(struct store *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    buf_release(&s->path);
}
