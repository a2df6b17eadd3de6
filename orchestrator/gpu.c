/*
 * gpu.c - nvidia-smi and the load log.
 */
#include "gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

long gpu_mib_used(const char *gpu)
{
    const char *argv[] = {"nvidia-smi",
                          "--query-gpu=memory.used",
                          "--format=csv,noheader,nounits",
                          NULL,
                          NULL,
                          NULL};
    char buf[1024], *line, *end, *save = NULL;
    long total = 0, v;

    if (gpu != NULL) {
        argv[3] = "-i";
        argv[4] = gpu;
    }
    if (cli_capture(argv, 0, buf, sizeof(buf)) != 0 || buf[0] == '\0')
        return -1;
    for (line = strtok_r(buf, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        v = strtol(line, &end, 10);
        if (end == line || v < 0)
            return -1;
        total += v;
    }
    return total;
}

int gpu_name(const char *gpu, char *out, size_t size)
{
    const char *argv[] = {
        "nvidia-smi", "--query-gpu=name", "--format=csv,noheader",
        "-i",         gpu ? gpu : "0",    NULL};
    char buf[512];
    size_t len;

    out[0] = '\0';
    if (cli_capture(argv, 0, buf, sizeof(buf)) != 0)
        return -1;
    len = strcspn(buf, "\r\n");
    if (len == 0 || len >= size)
        return -1;
    memcpy(out, buf, len);
    out[len] = '\0';
    return 0;
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
