/*
 * gpu.c - nvidia-smi and the load log.
 */
#include "gpu.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../rundir/done.h"
#include "../base/cli.h"
#include "../server/proc.h"
#include "../server/spawn.h"
#include "../../rundir/files.h"

void gpu_query_argv(const char *gpu, int with_name, const char **argv)
{
    size_t n = 0;

    argv[n++] = "nvidia-smi";
    argv[n++] =
        with_name ? "--query-gpu=memory.used,name" : "--query-gpu=memory.used";
    argv[n++] = "--format=csv,noheader,nounits";
    if (gpu != NULL) {
        argv[n++] = "-i";
        argv[n++] = gpu;
    }
    argv[n] = NULL;
}

int gpu_parse(const char *out, long *mib, char *name, size_t size)
{
    const char *line = out, *end;
    long total = 0, v;
    char *after;
    int lines = 0;

    *mib = -1;
    if (name != NULL && size > 0)
        name[0] = '\0';
    for (; *line; line = *end ? end + 1 : end) {
        end = line + strcspn(line, "\r\n");
        if (end == line)
            continue;
        v = strtol(line, &after, 10);
        if (after == line || v < 0 || after > end)
            return -1;
        if (name != NULL && lines == 0 && *after == ',') {
            const char *nm = after + 1;
            size_t n;
            while (*nm == ' ')
                nm++;
            n = (size_t)(end - nm);
            if (n > 0 && n < size) {
                memcpy(name, nm, n);
                name[n] = '\0';
            }
        }
        total += v;
        lines++;
    }
    if (lines == 0)
        return -1;
    *mib = total;
    return 0;
}

void gpu_free_argv(const char *gpu, const char **argv)
{
    argv[0] = "nvidia-smi";
    argv[1] = "--query-gpu=memory.free";
    argv[2] = "--format=csv,noheader,nounits";
    argv[3] = "-i";
    argv[4] = gpu;
    argv[5] = NULL;
}

void gpu_power_argv(const char *gpu, const char **argv)
{
    size_t n = 0;

    argv[n++] = "nvidia-smi";
    argv[n++] = "--query-gpu=power.draw";
    argv[n++] = "--format=csv,noheader,nounits";
    if (gpu != NULL) {
        argv[n++] = "-i";
        argv[n++] = gpu;
    }
    argv[n] = NULL;
}

int gpu_power_parse(const char *out, double *watts)
{
    const char *line = out, *end;
    double total = 0, v;
    char *after;
    int lines = 0;

    *watts = -1;
    for (; *line; line = *end ? end + 1 : end) {
        end = line + strcspn(line, "\r\n");
        if (end == line)
            continue;
        if (*line < '0' || *line > '9')
            return -1; /* "[N/A]": a GPU that does not tell */
        v = strtod(line, &after);
        while (after < end && *after == ' ')
            after++;
        if (after != end || !(v >= 0 && v < 1e5))
            return -1;
        total += v;
        lines++;
    }
    if (lines == 0)
        return -1;
    *watts = total;
    return 0;
}

int gpu_free_fits(long free_mib, long long need_mib)
{
    long long margin = need_mib / 10 > 512 ? need_mib / 10 : 512;

    if (need_mib < 0 || free_mib < 0)
        return 1;
    return (long long)free_mib >= need_mib + margin;
}

int gpu_log_oom(const char *log_path)
{
    char msg[256], line[1024];
    int fd = files_open(log_path, O_RDONLY, 0, msg, sizeof(msg));
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    int oom = 0;

    if (f == NULL) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        if (strstr(line, "[graveyard: server start") != NULL)
            oom = 0; /* only the last start counts */
        else if (strstr(line, "out of memory") != NULL ||
                 strstr(line, "unable to allocate") != NULL ||
                 strstr(line, "failed to allocate") != NULL)
            oom = 1;
    }
    fclose(f);
    return oom;
}

void gpu_load_lines(const char *log_path, struct rundir_done *out)
{
    char msg[256];
    int fd = files_open(log_path, O_RDONLY, 0, msg, sizeof(msg));
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    char line[1024];

    if (f == NULL) {
        if (fd >= 0)
            close(fd);
        return;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        char *p, name[64];
        double mib;
        int a, b;
        if ((p = strstr(line, "offloaded ")) != NULL &&
            sscanf(p, "offloaded %d/%d layers to GPU", &a, &b) == 2)
            snprintf(out->layers, sizeof(out->layers), "%d/%d", a, b);
        else if ((p = strstr(line, "load_tensors:")) != NULL &&
                 sscanf(p, "load_tensors: %63s model buffer size = %lf MiB",
                        name, &mib) == 2)
            rundir_done_buffer(out, name, mib);
    }
    fclose(f);
}

void gpu_probe_opts(struct proc_opts *po, const char **argv, size_t capture,
                    uint64_t timeout_ms)
{
    memset(po, 0, sizeof(*po));
    po->argv = (char *const *)argv;
    po->capture = capture;
    po->stderr_fd = SPAWN_NULL;
    po->fd3 = SPAWN_CLOSED;
    po->new_session = 1;
    po->pdeathsig = SIGKILL;
    po->timeout_ms = timeout_ms;
}
