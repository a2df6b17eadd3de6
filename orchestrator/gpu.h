/*
 * gpu.h - what the study reads about GPUs: memory in use (nvidia-smi, when
 * the machine has it) and what the server's load log says it put where
 * ("offloaded 36/36 layers to GPU", "CUDA0 model buffer size = 4384.87
 * MiB").
 */
#ifndef GPU_H
#define GPU_H

#include <jansson.h>
#include <stddef.h>

/*
 * MiB of GPU memory in use on gpu (a CUDA_VISIBLE_DEVICES value; NULL: the
 * sum over all GPUs), from `nvidia-smi --query-gpu=memory.used`. -1 when
 * nvidia-smi is not there or says nothing usable. Blocks for the few tens
 * of milliseconds nvidia-smi takes.
 */
long gpu_mib_used(const char *gpu);

/*
 * The name of gpu ("Tesla T4"; NULL: the first GPU) from `nvidia-smi
 * --query-gpu=name` into out. 0, or -1 (out "") without nvidia-smi.
 */
int gpu_name(const char *gpu, char *out, size_t size);

/*
 * From a server log: "layers_offloaded" ("36/36") and "model_buffers_mib"
 * ({"CPU_Mapped": 768.0, "CUDA0": 4384.87}) set on out when found.
 */
void gpu_load_lines(const char *log_path, json_t *out);

#endif
