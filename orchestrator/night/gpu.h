/*
 * gpu.h - what the study reads about GPUs: memory in use (nvidia-smi, when
 * the machine has it) and what the server's load log says it put where
 * ("offloaded 36/36 layers to GPU", "CUDA0 model buffer size = 4384.87
 * MiB").
 */
#ifndef GPU_H
#define GPU_H

#include <stddef.h>
#include <stdint.h>

struct rundir_done;

/* How long nvidia-smi may take before it is killed: a wedged driver can
 * hang it for ever, and a run must not hang with it. */
#define GPU_PROBE_MS 15000

/*
 * nvidia-smi's argv asking the memory in use (and the name when
 * with_name) of gpu (a CUDA_VISIBLE_DEVICES value; NULL: every GPU), as
 * CSV without header or units. argv needs 8 slots.
 */
void gpu_query_argv(const char *gpu, int with_name, const char **argv);

/*
 * Its output: MiB in use (summed over the GPUs listed) into *mib, and the
 * first GPU's name into name (when name is not NULL). Returns 0, or -1
 * (*mib -1, name "") when the output is not what nvidia-smi prints.
 */
int gpu_parse(const char *out, long *mib, char *name, size_t size);

/*
 * From a server log: the layers offloaded ("36/36") and the model
 * buffers (CPU_Mapped 768.0, CUDA0 4384.87 MiB) into out, the rung's
 * summary (rundir/done.h), when found.
 */
void gpu_load_lines(const char *log_path, struct rundir_done *out);

/*
 * Whether the server's log, since its last start ("[graveyard: server
 * start"), says the model did not fit: CUDA's "out of memory", or
 * llama.cpp's "unable to allocate <buffer>" / "failed to allocate". A rung
 * that shares its GPU (rungs_per_gpu) is then tried again later, not
 * failed.
 */
int gpu_log_oom(const char *log_path);

/* How long the ladder lets nvidia-smi take to say the free memory: it
 * runs as a child on the ladder's loop (never waited for there), and a
 * slow answer is an unknown one. */
#define GPU_FREE_MS 5000

/* nvidia-smi's argv asking gpu's free memory (MiB, CSV without header or
 * units), for gpu_parse. argv needs 6 slots. */
void gpu_free_argv(const char *gpu, const char **argv);

/* How often a running rung reads its GPU's power, and how long one
 * reading may take before nvidia-smi is killed and that second goes
 * unread (a hung nvidia-smi never holds the loop: it is a child). */
#define GPU_POWER_EVERY_MS 1000
#define GPU_POWER_MS       3000

/* nvidia-smi's argv asking gpu's power draw (watts; gpu a
 * CUDA_VISIBLE_DEVICES value, NULL: every GPU), as CSV without header or
 * units. argv needs 6 slots. */
void gpu_power_argv(const char *gpu, const char **argv);

/* Its output: watts summed over the GPUs listed into *watts. 0, or -1
 * (*watts -1) when a line is no number ("[N/A]", "[Not Supported]"). */
int gpu_power_parse(const char *out, double *watts);

/* How nvidia-smi runs as a child of the loop, for the run's probe and the
 * supervisor's alike: argv (gpu_query_argv or gpu_free_argv), capture
 * bytes of its answer kept, stderr to /dev/null, its own session, killed
 * with graveyard and after timeout_ms. po is filled whole. */
struct proc_opts;
void gpu_probe_opts(struct proc_opts *po, const char **argv, size_t capture,
                    uint64_t timeout_ms);

/*
 * Whether need_mib (a rung's GPU memory when it last ran; negative:
 * unknown) fits in free_mib (nvidia-smi memory.free; negative: unknown),
 * with a margin of a tenth or 512 MiB, whichever is more. Either unknown
 * (no nvidia-smi, a hung one): 1, and rungs_per_gpu alone decides.
 */
int gpu_free_fits(long free_mib, long long need_mib);

#endif
