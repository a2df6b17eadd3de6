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

#include "../util/util.h"
#include "files.h"

static unsigned long long written;

unsigned long long outfile_bytes_written(void)
{
    return written;
}

int outfile_write(const char *path, const char *data, size_t len, char *msg,
                  size_t msgsize)
{
    static unsigned serial;
    struct buf tmp = {0};
    size_t off = 0;
    int fd = -1, e, tries;

    /* a link where the file goes is refused, not replaced or followed */
    if (files_check_target(path, msg, msgsize) != 0)
        return -1;
    /* a temporary name nobody else has: O_EXCL never opens what is there
     * (a planted link included), so on a clash the next name is tried */
    for (tries = 0; fd < 0 && tries < 100; tries++) {
        if (buf_path(&tmp, "%s.tmp.%ld.%u", path, (long)getpid(), serial++) !=
            0) {
            files_too_long(path, msg, msgsize);
            buf_release(&tmp);
            return -1;
        }
        fd = open(tmp.p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  0644);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        snprintf(msg, msgsize, "cannot write '%s': %s", path,
                 files_strerror(errno));
        buf_release(&tmp);
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
    if (rename(tmp.p, path) != 0)
        goto fail;
    buf_release(&tmp);
    written += len;
    if (files_sync_dir(path) != 0) {
        snprintf(msg, msgsize, "cannot sync the folder of '%s': %s", path,
                 files_strerror(errno));
        return -1;
    }
    return 0;
fail:
    e = errno;
    snprintf(msg, msgsize, "cannot write '%s': %s", path, files_strerror(e));
    if (fd >= 0)
        close(fd);
    unlink(tmp.p);
    buf_release(&tmp);
    errno = e;
    return -1;
}
