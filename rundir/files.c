/*
 * files.c - no links followed where graveyard writes; errors in words.
 */
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rundir.h"
#include "../util/util.h"

const char *files_strerror(int e)
{
    if (e == ENOSPC || e == EDQUOT)
        return "disk full";
    return strerror(e);
}

int files_exit_code(int e)
{
    switch (e) {
    case ENOSPC:
    case EDQUOT:
    case EIO:
    case ENOMEM:
    case EMFILE:
    case ENFILE:
    case EINTR:
        return FILES_RESUMABLE;
    default:
        return FILES_BAD_INPUT;
    }
}

static void link_msg(const char *path, char *msg, size_t msgsize)
{
    snprintf(msg, msgsize,
             "'%s' is a symbolic link; graveyard does not write through "
             "links where its own files go (remove it)",
             path);
}

static int not_plain(int fd, const char *path, char *msg, size_t msgsize)
{
    if (fd >= 0)
        close(fd);
    snprintf(msg, msgsize, "'%s': not a regular file", path);
    errno = EINVAL; /* bad input: files_exit_code gives 2 */
    return -1;
}

/* open(2) that cannot block and hands back only a plain file. O_NONBLOCK
 * makes a FIFO's open return at once (a FIFO opened to read, or to write
 * with no reader, would otherwise wait for the other end forever, and a
 * signal handled on a loop cannot end that wait); fstat on the open file,
 * not lstat before, so nothing can be swapped in between. O_NONBLOCK is
 * cleared again: reads of a plain file never wait anyway. */
static int open_plain(const char *path, int flags, int mode, char *msg,
                      size_t msgsize)
{
    int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC, mode), e, fl;
    struct stat st;

    if (fd < 0) {
        e = errno;
        /* ELOOP is also what a loop of links gives: look before blaming */
        if (e == ELOOP && (flags & O_NOFOLLOW) && lstat(path, &st) == 0 &&
            S_ISLNK(st.st_mode))
            link_msg(path, msg, msgsize);
        else if ((e == ENXIO || e == EISDIR) && stat(path, &st) == 0 &&
                 !S_ISREG(st.st_mode))
            return not_plain(-1, path, msg, msgsize); /* a FIFO to write */
        else
            snprintf(msg, msgsize, "cannot open '%s': %s", path,
                     files_strerror(e));
        errno = e;
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return not_plain(fd, path, msg, msgsize);
    if ((fl = fcntl(fd, F_GETFL)) == -1 ||
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == -1) {
        e = errno;
        close(fd);
        snprintf(msg, msgsize, "cannot open '%s': %s", path,
                 files_strerror(e));
        errno = e;
        return -1;
    }
    return fd;
}

int files_open(const char *path, int flags, int mode, char *msg,
               size_t msgsize)
{
    return open_plain(path, flags | O_NOFOLLOW, mode, msg, msgsize);
}

int files_open_read(const char *path, int nofollow, char *msg, size_t msgsize)
{
    return open_plain(path, O_RDONLY | (nofollow ? O_NOFOLLOW : 0), 0, msg,
                      msgsize);
}

FILE *files_fopen_read(const char *path, int nofollow, char *msg,
                       size_t msgsize)
{
    int fd = files_open_read(path, nofollow, msg, msgsize), e;
    FILE *f;

    if (fd < 0)
        return NULL;
    if ((f = fdopen(fd, "r")) == NULL) {
        e = errno;
        close(fd);
        snprintf(msg, msgsize, "cannot open '%s': %s", path, strerror(e));
        errno = e;
    }
    return f;
}

/* jansson's way of naming a long source: its tail, after "..." */
static void json_source(json_error_t *err, const char *path)
{
    size_t n = strlen(path), max = sizeof(err->source) - 1;

    if (n <= max)
        memcpy(err->source, path, n + 1);
    else
        snprintf(err->source, sizeof(err->source), "...%s",
                 path + n - (max - 3));
}

json_t *files_json_load(const char *path, int nofollow, size_t flags,
                        json_error_t *err)
{
    char msg[4200];
    int fd = files_open_read(path, nofollow, msg, sizeof(msg)), e;
    json_t *j;
    FILE *f;

    if (fd < 0) {
        e = errno;
        memset(err, 0, sizeof(*err));
        err->line = -1;
        err->column = -1;
        snprintf(err->text, sizeof(err->text), "%s",
                 e == EINVAL ? "not a regular file" : files_strerror(e));
        json_source(err, path);
        errno = e;
        return NULL;
    }
    /* through stdio's buffer, as json_load_file reads: json_loadfd reads
     * one byte a call (9,000 reads for a report's two manifests) */
    if ((f = fdopen(fd, "r")) == NULL) {
        e = errno;
        close(fd);
        memset(err, 0, sizeof(*err));
        err->line = -1;
        err->column = -1;
        snprintf(err->text, sizeof(err->text), "%s", files_strerror(e));
        json_source(err, path);
        errno = e;
        return NULL;
    }
    j = json_loadf(f, flags, err);
    e = errno;
    fclose(f);
    if (j == NULL)
        json_source(err, path);
    errno = e;
    return j;
}

/* One folder: made if missing; a link or a file there is refused. full is
 * the folder asked for, for the message. */
static int one_dir(const char *path, const char *full, int final, char *msg,
                   size_t msgsize)
{
    struct stat st;
    int e;

    if (mkdir(path, 0755) == 0)
        return 0;
    e = errno;
    if (e != EEXIST) {
        if (strcmp(path, full) == 0 || e != ENOTDIR)
            snprintf(msg, msgsize, "cannot create '%s': %s", full,
                     files_strerror(e));
        else
            snprintf(msg, msgsize, "cannot create '%s': '%s' is not a folder",
                     full, path);
        errno = e;
        return -1;
    }
    /* a parent given by the user may be a link; the folder itself not */
    if ((final ? lstat(path, &st) : stat(path, &st)) != 0) {
        e = errno;
        snprintf(msg, msgsize, "cannot create '%s': %s", full,
                 files_strerror(e));
        errno = e;
        return -1;
    }
    if (final && S_ISLNK(st.st_mode)) {
        snprintf(msg, msgsize,
                 "'%s' is a symbolic link; graveyard does not write "
                 "through links where its own folders go (remove it)",
                 path);
        errno = ELOOP;
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(msg, msgsize, "cannot create '%s': '%s' is not a folder",
                 full, path);
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

void files_too_long(const char *path, char *msg, size_t msgsize)
{
    snprintf(msg, msgsize, "path too long (over %d bytes): '%.200s...'",
             BUF_PATH_MAX, path);
    errno = ENAMETOOLONG;
}

int files_mkdir(const char *path, int link_ok, char *msg, size_t msgsize)
{
    struct buf b = {0};
    size_t n = strlen(path);
    int rc = -1;

    if (n == 0) {
        snprintf(msg, msgsize, "cannot create a folder: its path is empty");
        errno = ENAMETOOLONG;
        return -1;
    }
    if (buf_path(&b, "%s", path) != 0) {
        files_too_long(path, msg, msgsize);
        buf_release(&b);
        return -1;
    }
    while (n > 1 && b.p[n - 1] == '/')
        b.p[--n] = '\0';
    for (char *p = b.p + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (one_dir(b.p, path, 0, msg, msgsize) != 0)
            goto out;
        *p = '/';
    }
    rc = one_dir(b.p, path, !link_ok, msg, msgsize);
out:
    buf_release(&b);
    return rc;
}

int files_check_target(const char *path, char *msg, size_t msgsize)
{
    struct stat st;

    if (lstat(path, &st) != 0)
        return 0; /* absent: it will be created */
    if (S_ISLNK(st.st_mode)) {
        link_msg(path, msg, msgsize);
        errno = ELOOP;
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(msg, msgsize, "cannot replace '%s': not a plain file", path);
        errno = EISDIR;
        return -1;
    }
    return 0;
}

int files_sync_dir(const char *path)
{
    struct buf copy = {0};
    int fd, rc = -1, e;

    if (buf_path(&copy, "%s", path) != 0) {
        buf_release(&copy);
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = open(dirname(copy.p), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        rc = fsync(fd);
        e = errno;
        close(fd);
        errno = e;
    }
    e = errno;
    buf_release(&copy);
    errno = e;
    return rc;
}

int files_try_lock(const char *rundir, int *fd, char *msg, size_t msgsize)
{
    struct buf path = {0};
    int e;

    if (rundir_path_buf(&path, rundir, RD_FILES_LOCK, NULL) != 0) {
        snprintf(msg, msgsize, "%.200s...: path too long", rundir);
        buf_release(&path);
        errno = ENAMETOOLONG;
        return -1;
    }
    *fd = files_open(path.p, O_RDWR | O_CREAT, 0644, msg, msgsize);
    if (*fd < 0) {
        e = errno; /* files_exit_code reads it */
        buf_release(&path);
        errno = e;
        return -1;
    }
    if (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
        e = errno;
        close(*fd);
        *fd = -1;
        if (e != EWOULDBLOCK)
            snprintf(msg, msgsize, "cannot lock '%.900s': %s", path.p,
                     strerror(e));
        buf_release(&path);
        errno = e;
        return e == EWOULDBLOCK ? 1 : -2;
    }
    buf_release(&path);
    return 0;
}
