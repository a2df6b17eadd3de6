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

int files_open(const char *path, int flags, int mode, char *msg,
               size_t msgsize)
{
    int fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC, mode), e;
    struct stat st;

    if (fd >= 0)
        return fd;
    e = errno;
    /* ELOOP is also what a loop of links gives: look before blaming */
    if (e == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
        link_msg(path, msg, msgsize);
    else
        snprintf(msg, msgsize, "cannot open '%s': %s", path,
                 files_strerror(e));
    errno = e;
    return -1;
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

int files_mkdir(const char *path, int link_ok, char *msg, size_t msgsize)
{
    char buf[4096];
    size_t n = strlen(path);

    if (n == 0 || n >= sizeof(buf)) {
        snprintf(msg, msgsize, "cannot create '%.200s': path too long", path);
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, n + 1);
    while (n > 1 && buf[n - 1] == '/')
        buf[--n] = '\0';
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (one_dir(buf, path, 0, msg, msgsize) != 0)
            return -1;
        *p = '/';
    }
    return one_dir(buf, path, !link_ok, msg, msgsize);
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
    char copy[4096];
    int fd, rc;

    if ((size_t)snprintf(copy, sizeof(copy), "%s", path) >= sizeof(copy)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    rc = fsync(fd);
    close(fd);
    return rc;
}

int files_try_lock(const char *rundir, int *fd, char *msg, size_t msgsize)
{
    char path[4200];

    if (rundir_path(path, sizeof(path), rundir, RD_FILES_LOCK, NULL) != 0) {
        snprintf(msg, msgsize, "%.200s...: path too long", rundir);
        errno = ENAMETOOLONG;
        return -1;
    }
    *fd = files_open(path, O_RDWR | O_CREAT, 0644, msg, msgsize);
    if (*fd < 0)
        return -1;
    if (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(*fd);
        *fd = -1;
        if (e == EWOULDBLOCK)
            return 1;
        snprintf(msg, msgsize, "cannot lock '%.900s': %s", path, strerror(e));
        errno = e;
        return -2;
    }
    return 0;
}
