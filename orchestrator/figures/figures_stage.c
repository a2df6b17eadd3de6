/*
 * figures_stage.c - the folder a bundle's inputs are rendered from
 * (figures_int.h, docs/publish.md). publish makes it inside its output
 * folder, verify under $TMPDIR; either way its name carries the process
 * id (PREFIX.PID.XXXXXX), so that a run killed before it could remove it
 * (SIGKILL, SIGTERM) leaves something the next run can tell is nobody's:
 * each start removes the leftovers of dead processes of its own user,
 * and the temporary files of an unfinished bundle.tar.gz beside them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "../../rundir/outfile.h"
#include "../../util/util.h"
#include "figures_int.h"

#define TREE_DEPTH 8 /* a stage is bundle/repeat/rows/FILE deep */

/* dirfd/name removed with all it holds, no link followed (a link is
 * removed, not its target), at most TREE_DEPTH folders down. */
static void remove_tree(int dirfd, const char *name, int depth)
{
    int fd;
    DIR *d;
    struct dirent *e;

    if (unlinkat(dirfd, name, 0) == 0 || (errno != EISDIR && errno != EPERM))
        return;
    fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    if (depth >= TREE_DEPTH || (d = fdopendir(fd)) == NULL) {
        close(fd);
        return;
    }
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            remove_tree(fd, e->d_name, depth + 1);
    closedir(d);
    (void)unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* The process id in name after prefix ("PREFIX1234.rest"), or 0. */
static long name_pid(const char *name, const char *prefix)
{
    size_t k = strlen(prefix);
    char *end;
    long pid;

    if (strncmp(name, prefix, k) != 0 || name[k] < '1' || name[k] > '9')
        return 0;
    pid = strtol(name + k, &end, 10);
    return *end == '.' && pid > 0 ? pid : 0;
}

/* 1 when no process pid is running (kill(2): ESRCH). */
static int dead(long pid)
{
    return pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

void figures__stale_remove(const char *dir, const char *prefix)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct dirent *e;
    struct stat st;
    DIR *d;

    if (fd < 0)
        return; /* not there yet: nothing left in it */
    if ((d = fdopendir(fd)) == NULL) {
        close(fd);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        long pid = name_pid(e->d_name, prefix);
        if (pid == 0 || !dead(pid) ||
            fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            st.st_uid != geteuid() ||
            !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
            continue;
        remove_tree(fd, e->d_name, 0);
    }
    closedir(d);
}

int figures__stage_make(struct figures__stage *s, const char *parent,
                        const char *prefix, char *msg, size_t msgsize)
{
    figures__stale_remove(parent, prefix);
    if (buf_path(&s->dir, "%s/%s%ld.XXXXXX", parent, prefix, (long)getpid()) !=
        0) {
        snprintf(msg, msgsize, "path too long (over %d bytes): '%.200s...'",
                 BUF_PATH_MAX, parent);
        buf_release(&s->dir);
        return -1;
    }
    if (mkdtemp(s->dir.p) == NULL) {
        snprintf(msg, msgsize, "cannot make a folder in '%.900s': %s", parent,
                 strerror(errno));
        buf_release(&s->dir);
        return -1;
    }
    return 0;
}

int figures__stage_put(struct figures__stage *s, const char *name,
                       const char *p, size_t n, char *msg, size_t msgsize)
{
    struct buf path = {0};
    char *slash;
    int rc = -1;

    if (buf_path(&path, "%s/bundle/%s", s->dir.p, name) != 0) {
        snprintf(msg, msgsize, "path too long (over %d bytes): '%.200s...'",
                 BUF_PATH_MAX, s->dir.p);
        buf_release(&path);
        return -1;
    }
    /* each folder on the way, inside the stage (names are checked) */
    for (slash = path.p + s->dir.len + 1; (slash = strchr(slash, '/'));
         slash++) {
        *slash = '\0';
        if (mkdir(path.p, 0700) != 0 && errno != EEXIST) {
            snprintf(msg, msgsize, "cannot stage '%.900s': %s", path.p,
                     strerror(errno));
            goto out;
        }
        *slash = '/';
    }
    rc = outfile_write(path.p, p, n, msg, msgsize);
out:
    buf_release(&path);
    return rc;
}

void figures__stage_remove(struct figures__stage *s)
{
    if (s->dir.len != 0)
        remove_tree(AT_FDCWD, s->dir.p, 0);
    buf_release(&s->dir);
}
