/*
 * gpu.c - nvidia-smi and the load log.
 */
#include "gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

long gpu_mib_used(const char *gpu)
{
    const char *argv[] = {"nvidia-smi",
                          "--query-gpu=memory.used",
                          "--format=csv,noheader,nounits",
                          NULL,
                          NULL,
                          NULL};
    char buf[1024], *line, *end, *save = NULL;
    int fd[2], status;
    long total = 0, v;
    ssize_t n, got = 0;
    pid_t pid;

    if (gpu != NULL) {
        argv[3] = "-i";
        argv[4] = gpu;
    }
    if (pipe(fd) != 0)
        return -1;
    pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execvp(argv[0], (char **)argv);
        _exit(127);
    }
    close(fd[1]);
    while (pid > 0 && got < (ssize_t)sizeof(buf) - 1 &&
           (n = read(fd[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
        got += n;
    close(fd[0]);
    buf[got > 0 ? got : 0] = '\0';
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return -1;
    for (line = strtok_r(buf, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        v = strtol(line, &end, 10);
        if (end == line || v < 0)
            return -1;
        total += v;
    }
    return got > 0 ? total : -1;
}

void gpu_load_lines(const char *log_path, json_t *out)
{
    FILE *f = fopen(log_path, "r");
    json_t *buffers = json_object();
    char line[1024];

    if (f == NULL) {
        json_decref(buffers);
        return;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        char *p, name[64];
        double mib;
        int a, b;
        if ((p = strstr(line, "offloaded ")) != NULL &&
            sscanf(p, "offloaded %d/%d layers to GPU", &a, &b) == 2) {
            char text[32];
            snprintf(text, sizeof(text), "%d/%d", a, b);
            json_object_set_new(out, "layers_offloaded", json_string(text));
        } else if ((p = strstr(line, "load_tensors:")) != NULL &&
                   sscanf(p, "load_tensors: %63s model buffer size = %lf MiB",
                          name, &mib) == 2) {
            json_object_set_new(buffers, name, json_real(mib));
        }
    }
    fclose(f);
    if (json_object_size(buffers) > 0)
        json_object_set_new(out, "model_buffers_mib", buffers);
    else
        json_decref(buffers);
}
