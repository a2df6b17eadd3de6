/*
 * power.c - rows/<RUNG>.power written in batches and read whole
 * (power.h).
 */
#include "power.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../grader/grader.h"
#include "files.h"
#include "rundir.h"

int power_file_init(struct power_file *pf, const char *rundir,
                    const char *rung)
{
    struct stat st;

    memset(pf, 0, sizeof(*pf));
    buf_init(&pf->pending, RUNDIR_POWER_CAP + RUNDIR_POWER_MARKS);
    if (rundir_path_buf(&pf->path, rundir, RD_POWER, rung) != 0)
        return -1;
    /* a resume appends: the cap counts what is there */
    if (lstat(pf->path.p, &st) == 0) {
        pf->exists = 1;
        pf->size = st.st_size > 0 ? (size_t)st.st_size : 0;
    }
    return 0;
}

/* One line pending, when it fits under limit. */
static int add(struct power_file *pf, const char *line, size_t n, size_t limit)
{
    if (pf->size + n > limit || buf_add(&pf->pending, line, n) != 0)
        return -1;
    pf->size += n;
    return 0;
}

void power_file_begin(struct power_file *pf, long long unix_ms)
{
    char line[48];
    int n = snprintf(line, sizeof(line), "b %lld\n", unix_ms);

    (void)add(pf, line, (size_t)n, RUNDIR_POWER_CAP + RUNDIR_POWER_MARKS);
}

void power_file_reading(struct power_file *pf, unsigned long long ms,
                        double watts)
{
    char line[64];
    int n = snprintf(line, sizeof(line), "%llu %.2f\n", ms, watts);

    if (n <= 0 || (size_t)n >= sizeof(line) ||
        add(pf, line, (size_t)n, RUNDIR_POWER_CAP) != 0) {
        pf->capped = 1;
        return;
    }
    pf->readings++;
}

void power_file_end(struct power_file *pf, unsigned long long ms)
{
    char line[48];
    int n = snprintf(line, sizeof(line), "e %llu\n", ms);

    (void)add(pf, line, (size_t)n, RUNDIR_POWER_CAP + RUNDIR_POWER_MARKS);
}

int power_file_due(const struct power_file *pf)
{
    return pf->readings >= POWER_BATCH;
}

int power_file_flush(struct power_file *pf, int sync, char *msg,
                     size_t msgsize)
{
    const char *p = pf->pending.p;
    size_t left = pf->pending.len;
    ssize_t w;
    int fd, e = 0;

    if (left == 0)
        return 0;
    if (!pf->exists && pf->readings == 0) {
        /* no reading yet: no file (nvidia-smi absent or silent) */
        pf->size -= left;
        pf->pending.len = 0;
        return 0;
    }
    fd = files_open(pf->path.p, O_WRONLY | O_CREAT | O_APPEND, 0644, msg,
                    msgsize);
    if (fd >= 0) {
        pf->exists = 1;
        while (left > 0 &&
               ((w = write(fd, p, left)) > 0 || (w < 0 && errno == EINTR)))
            if (w > 0)
                p += w, left -= (size_t)w;
        if (left > 0 || (sync && fsync(fd) != 0)) {
            e = errno;
            snprintf(msg, msgsize, "cannot write '%s': %s", pf->path.p,
                     strerror(e));
        }
        close(fd);
    } else
        e = errno;
    pf->pending.len = 0;
    pf->readings = 0;
    if (e != 0) {
        errno = e;
        return -1;
    }
    return 0;
}

void power_file_release(struct power_file *pf)
{
    buf_release(&pf->path);
    buf_release(&pf->pending);
}

int rundir_power_read(const char *rundir, const char *rung, char **out,
                      size_t *len, char *msg, size_t msgsize)
{
    struct buf path = {0};
    char why[4400], *b = NULL;
    ssize_t got = 0;
    size_t n = 0;
    int fd, e;

    *out = NULL;
    *len = 0;
    if (rundir_path_buf(&path, rundir, RD_POWER, rung) != 0) {
        snprintf(msg, msgsize, "path too long: '%.200s...'", rundir);
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = files_open_read(path.p, 1, why, sizeof(why));
    if (fd < 0) {
        e = errno;
        buf_release(&path);
        if (e == ENOENT)
            return 1;
        snprintf(msg, msgsize, "power samples: %s", why);
        errno = e;
        return -1;
    }
    b = malloc(GRADER_POWER_MAX + 2); /* one past the cap, and a NUL */
    while (b != NULL && n <= GRADER_POWER_MAX &&
           ((got = read(fd, b + n, GRADER_POWER_MAX + 1 - n)) > 0 ||
            (got < 0 && errno == EINTR)))
        n += got > 0 ? (size_t)got : 0;
    e = b == NULL              ? ENOMEM
        : got < 0              ? errno
        : n > GRADER_POWER_MAX ? EFBIG
                               : 0;
    close(fd);
    if (e != 0) {
        snprintf(msg, msgsize, "%s: %s", path.p,
                 e == EFBIG ? "over the power samples' cap" : strerror(e));
        buf_release(&path);
        free(b);
        errno = e;
        return -1;
    }
    b[n] = '\0';
    buf_release(&path);
    *out = b;
    *len = n;
    return 0;
}
