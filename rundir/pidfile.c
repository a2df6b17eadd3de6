/*
 * pidfile.c - pid, start time and boot id; stop only a perfect match.
 */
#include "pidfile.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "files.h"
#include "outfile.h"

static void boot_id(char *out, size_t size)
{
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

    out[0] = '\0';
    if (f == NULL)
        return;
    if (fgets(out, (int)size, f) == NULL)
        out[0] = '\0';
    out[strcspn(out, "\r\n")] = '\0';
    fclose(f);
}

/* From /proc/PID/stat: the process group (field 5) and the start time
 * (field 22, clock ticks since boot). Returns 0, or -1 when the process is
 * gone or a zombie (a dead process waiting to be reaped counts as gone). */
static int read_stat(long pid, long *pgrp, long long *start)
{
    char path[64], buf[1024], *p, *save = NULL, *tok;
    size_t n;
    int field;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    if ((f = fopen(path, "r")) == NULL)
        return -1;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* "pid (comm) state ..."; comm may hold spaces and ')' */
    if ((p = strrchr(buf, ')')) == NULL)
        return -1;
    for (field = 3, tok = strtok_r(p + 1, " ", &save); tok;
         field++, tok = strtok_r(NULL, " ", &save)) {
        if (field == 3 && (tok[0] == 'Z' || tok[0] == 'X'))
            return -1; /* dead, waiting to be reaped */
        if (field == 5)
            *pgrp = strtol(tok, NULL, 10);
        if (field == 22) {
            *start = strtoll(tok, NULL, 10);
            return 0;
        }
    }
    return -1;
}

long long pidfile_start_time(pid_t pid)
{
    long long start = -1;
    long pgrp;

    return read_stat((long)pid, &pgrp, &start) == 0 ? start : -1;
}

int pidfile_group_alive(long pgid, long long start)
{
    struct dirent *e;
    DIR *d = opendir("/proc");
    int found = 0;

    if (d == NULL)
        return 0;
    while (!found && (e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10), pgrp = 0;
        long long t = -1;
        if (*end != '\0' || pid <= 1)
            continue;
        /* a member started no earlier than its leader: one that did came
         * into a group of that id before the recorded leader was born */
        found = read_stat(pid, &pgrp, &t) == 0 && pgrp == pgid && t >= start;
    }
    closedir(d);
    return found;
}

int pidfile_write(const char *path, pid_t pid, char *msg, size_t msgsize)
{
    char text[160], boot[64];
    long long start = pidfile_start_time(pid);

    boot_id(boot, sizeof(boot));
    snprintf(text, sizeof(text), "%ld %lld %s\n", (long)pid, start,
             boot[0] ? boot : "-");
    return outfile_write(path, text, strlen(text), msg, msgsize);
}

long pidfile_find(const char *path, char *msg, size_t msgsize)
{
    char text[256], boot[64], file_boot[64] = "";
    long pid = 0;
    long long start = -1;
    int fd = files_open(path, O_RDONLY, 0, msg, msgsize);
    ssize_t n;

    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    n = read(fd, text, sizeof(text) - 1);
    close(fd);
    text[n > 0 ? n : 0] = '\0';
    boot_id(boot, sizeof(boot));
    /* an old file holds the pid alone: its process cannot be told from
     * another, so it is never named */
    if (sscanf(text, "%ld %lld %63s", &pid, &start, file_boot) == 3 &&
        pid > 1 && start >= 0 && boot[0] && strcmp(boot, file_boot) == 0) {
        long long now = pidfile_start_time((pid_t)pid);
        if (now == start)
            return pid;
        /* the leader (a wrapper script, say) is gone but its group is
         * not: while a process has that group id, the kernel gives the
         * number to no new process, so the group is the recorded one */
        if (now < 0 && pid != (long)getpgrp() &&
            pidfile_group_alive(pid, start))
            return pid; /* (never our own group, whatever the odds) */
    }
    if (unlink(path) != 0 && errno != ENOENT) {
        snprintf(msg, msgsize, "cannot remove '%s': %s", path,
                 strerror(errno));
        return -1;
    }
    return 0;
}
