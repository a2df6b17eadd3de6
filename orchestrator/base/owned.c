/*
 * owned.c - what a server graveyard starts may not be told (owned.h).
 */
#include "owned.h"

#include <string.h>

static const char *const why_text[] = {
    [OWN_BIND] = "is graveyard's to set: the server binds 127.0.0.1 on a "
                 "port graveyard chooses",
    [OWN_WEIGHTS] = "would make the server load other weights than the "
                    "rung's model, which the manifest, ladder.tsv and the "
                    "reports name and hash; set the rung's \"model\"",
    [OWN_KEY] = "would make the server refuse graveyard's requests (every "
                "answer a 401 row)",
    [OWN_DEVICE] = "picks the server's devices past the scheduler, which "
                   "gives each rung its GPU (the config's \"gpus\", or "
                   "--gpu)",
    [OWN_OURS] = "is graveyard's own variable, never handed to a server",
};

/* Flags of both lineages (upstream common/arg.cpp, ik_llama.cpp
 * common/common.cpp) that bind the server elsewhere, choose which
 * weights it loads, ask for an API key, or name its devices (docs/
 * config.md, "What the server may not be told"). -mg and -ts pick among
 * the devices the rung was given, so they stay allowed. */
static const struct owned_name owned_flags[] = {
    {"--host", OWN_BIND},
    {"--port", OWN_BIND},
    {"-m", OWN_WEIGHTS},
    {"--model", OWN_WEIGHTS},
    {"-mu", OWN_WEIGHTS},
    {"--model-url", OWN_WEIGHTS},
    {"-dr", OWN_WEIGHTS},
    {"--docker-repo", OWN_WEIGHTS},
    {"-hf", OWN_WEIGHTS},
    {"-hfr", OWN_WEIGHTS},
    {"--hf-repo", OWN_WEIGHTS},
    {"-hff", OWN_WEIGHTS},
    {"--hf-file", OWN_WEIGHTS},
    {"--models-dir", OWN_WEIGHTS},
    {"--models-preset", OWN_WEIGHTS},
    {"--api-key", OWN_KEY},
    {"--api-key-file", OWN_KEY},
    {"-dev", OWN_DEVICE},
    {"--device", OWN_DEVICE},
    {"-devd", OWN_DEVICE},
    {"--device-draft", OWN_DEVICE},
    {"--spec-draft-device", OWN_DEVICE},
    {NULL, OWN_BIND}};

/* The same through the environment (the servers read LLAMA_ARG_* before
 * the command line, and -hf's variable overrides -m). */
static const struct owned_name owned_vars[] = {
    {"LLAMA_ARG_HOST", OWN_BIND},
    {"LLAMA_ARG_PORT", OWN_BIND},
    {"LLAMA_ARG_MODEL", OWN_WEIGHTS},
    {"LLAMA_ARG_MODEL_URL", OWN_WEIGHTS},
    {"LLAMA_ARG_DOCKER_REPO", OWN_WEIGHTS},
    {"LLAMA_ARG_HF_REPO", OWN_WEIGHTS},
    {"LLAMA_ARG_HF_FILE", OWN_WEIGHTS},
    {"LLAMA_ARG_MODELS_DIR", OWN_WEIGHTS},
    {"LLAMA_ARG_MODELS_PRESET", OWN_WEIGHTS},
    {"LLAMA_API_KEY", OWN_KEY},
    {"LLAMA_ARG_DEVICE", OWN_DEVICE},
    {"GRAVEYARD_", OWN_OURS}, /* a prefix: every GRAVEYARD_* */
    {NULL, OWN_BIND}};

static const char *const gpu_vars[] = {
    "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
    "GGML_VK_VISIBLE_DEVICES", NULL};

/* Whether argument a is flag f, alone or as "f=...": both servers read
 * a long flag with '_' for '-' ("--api_key"). */
static int is_flag(const char *a, const char *f)
{
    int lng = strncmp(f, "--", 2) == 0;
    size_t i;

    for (i = 0; f[i] != '\0'; i++)
        if (a[i] != f[i] && !(lng && a[i] == '_' && f[i] == '-'))
            return 0;
    return a[i] == '\0' || a[i] == '=';
}

const struct owned_name *owned_flag(const char *a)
{
    for (size_t i = 0; owned_flags[i].name; i++)
        if (is_flag(a, owned_flags[i].name))
            return &owned_flags[i];
    return NULL;
}

const struct owned_name *owned_var(const char *name)
{
    for (size_t i = 0; owned_vars[i].name; i++) {
        const char *v = owned_vars[i].name;
        size_t n = strlen(v);
        if (v[n - 1] == '_' ? strncmp(name, v, n) == 0 : strcmp(name, v) == 0)
            return &owned_vars[i];
    }
    return NULL;
}

int owned_gpu_var(const char *name)
{
    for (size_t i = 0; gpu_vars[i]; i++)
        if (strcmp(name, gpu_vars[i]) == 0)
            return 1;
    return 0;
}

const char *owned_why(enum owned why)
{
    return why_text[why];
}
