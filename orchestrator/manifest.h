/*
 * manifest.h - RUNDIR/manifest.json: what the rows were made with.
 *
 * Shared by every rung of a run folder: the question file (path, sha256),
 * the prompt, the request settings, the server build (--version line), the
 * tool's version. Per rung: the model file (path, bytes, sha256) and the
 * server arguments. Resuming with any of these changed would mix rows made
 * two ways, so it stops with a message naming what differs; --force goes on
 * and records that it did.
 */
#ifndef MANIFEST_H
#define MANIFEST_H

#include <jansson.h>
#include <stddef.h>

/*
 * Merge this run's settings into RUNDIR/manifest.json: shared is the
 * folder-wide object, rung the per-rung one (both borrowed). A value that
 * differs from the recorded one is an error (-1, msg names the key, the
 * old and new values) unless force, when the difference is recorded under
 * "forced". The file is written atomically. Returns 0 or -1.
 */
int manifest_check(const char *rundir, const char *rung_name, json_t *shared,
                   json_t *rung, int force, char *msg, size_t msgsize);

/*
 * A manifest is read by whoever gets the run folder, and is meant to be
 * shared: secrets given to the server are recorded as a short sha256, so
 * that a change is still seen and the value is not. Server arguments:
 * the value of a flag whose name holds key, token, secret, pass, auth,
 * cred or cookie (--api-key K, --api-key=K). Environment: every value but
 * those of the GPU selectors (CUDA_VISIBLE_DEVICES and kin),
 * OMP_NUM_THREADS, and LLAMA_ARG_* / GGML_* settings whose names do not
 * look secret. Both return a new reference.
 */
json_t *manifest_redact_args(char *const *args, size_t n);
json_t *manifest_redact_env(json_t *env);

#endif
