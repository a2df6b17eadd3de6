/*
 * owned.h - what a llama-server graveyard starts may not be told by a
 * config or the command line, and why: where it listens, which weights it
 * loads, an API key, its devices (the flags of both lineages, upstream
 * common/arg.cpp and ik_llama.cpp common/common.cpp, and their
 * LLAMA_ARG_* variables), and graveyard's own GRAVEYARD_* variables. The
 * GPU variables (CUDA_VISIBLE_DEVICES and kin) are the rung's GPU only.
 * One table: input/config_check.c refuses these in a config and on the
 * command line, server/launch.c drops the variables from the environment
 * graveyard hands its servers (docs/config.md, "What the server may not
 * be told").
 */
#ifndef OWNED_H
#define OWNED_H

enum owned { OWN_BIND, OWN_WEIGHTS, OWN_KEY, OWN_DEVICE, OWN_OURS };

struct owned_name {
    const char *name; /* "--model", "LLAMA_ARG_MODEL" */
    enum owned why;
};

/* The owned flag argument a is, alone or as "FLAG=...", a long flag with
 * '_' for '-' too ("--api_key": both servers read it so); or NULL. */
const struct owned_name *owned_flag(const char *a);

/* The owned variable name is (GRAVEYARD_* all of them), or NULL. */
const struct owned_name *owned_var(const char *name);

/* Whether name makes GPUs visible to a backend (CUDA_VISIBLE_DEVICES,
 * HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, GGML_VK_VISIBLE_DEVICES):
 * a config may give it only as "{gpu}", the rung's GPU. */
int owned_gpu_var(const char *name);

/* Why, in words that follow the name ("'-m' would make the server load
 * other weights than the rung's model, ..."). */
const char *owned_why(enum owned why);

#endif
