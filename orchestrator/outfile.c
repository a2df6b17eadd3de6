/*
 * outfile.c - temporary file, fsync, rename, fsync the folder.
 */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static unsigned long long written;

unsigned long long outfile_bytes_written(void)
{
    return written;
}

/* Sync the folder that holds path, so the rename itself is durable. */
static int sync_dir(const char *path)
{
    char copy[4096];
    int fd, rc;

    snprintf(copy, sizeof(copy), "%s", path);
    fd = open(dirname(copy), O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return -1;
    rc = fsync(fd);
    close(fd);
    return rc;
}

int outfile_write(const char *path, const char *data, size_t len, char *msg,
                  size_t msgsize)
{
    char tmp[4096];
    size_t off = 0;
    int fd;

    if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path,
                         (long)getpid()) >= sizeof(tmp)) {
        snprintf(msg, msgsize, "cannot write '%s': path too long", path);
        return -1;
    }
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(msg, msgsize, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    while (off < len) {
        ssize_t n = write(fd, data + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            goto fail;
        off += (size_t)n;
    }
    if (fsync(fd) != 0)
        goto fail;
    if (close(fd) != 0) {
        fd = -1;
        goto fail;
    }
    fd = -1;
    if (rename(tmp, path) != 0)
        goto fail;
    written += len;
    if (sync_dir(path) != 0) {
        snprintf(msg, msgsize, "cannot sync the folder of '%s': %s", path,
                 strerror(errno));
        return -1;
    }
    return 0;
fail:
    snprintf(msg, msgsize, "cannot write '%s': %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    return -1;
}
