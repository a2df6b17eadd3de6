/*
 * redact.h - secrets given to a server, kept out of the run folder.
 *
 * A manifest is read by whoever gets the run folder, and is meant to be
 * shared: secrets given to the server are recorded as a short sha256, so
 * that a change is still seen and the value is not. Server arguments:
 * the value of a flag whose name holds key, token, secret, pass, auth,
 * cred or cookie (--api-key K, --api-key=K), of -hft (--hf-token's short
 * form in both servers), and a URL with a user or a query. Environment:
 * every value but those of the GPU selectors (CUDA_VISIBLE_DEVICES and
 * kin), OMP_NUM_THREADS, and LLAMA_ARG_* / GGML_* settings whose names do
 * not look secret and whose values are no such URL. Each returns a new
 * reference.
 */
#ifndef REDACT_H
#define REDACT_H

#include <jansson.h>
#include <stddef.h>

json_t *redact_args(char *const *args, size_t n);
json_t *redact_env(json_t *env);
/* The config's server.argv template, a JSON list of strings, as
 * redact_args records it (at most 64 of them: the template has 48). */
json_t *redact_argv_json(const json_t *argv);

#endif
