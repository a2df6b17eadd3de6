/*
 * redact.c - secret values as short hashes, for the manifest.
 */
#include "redact.h"

#include <stdio.h>
#include <string.h>

#include "../base/hash.h"

/*
 * Flags whose value is a secret, read from both servers' argument tables
 * (ggml-org/llama.cpp common/arg.cpp, ikawrakow/ik_llama.cpp
 * common/common.cpp): --api-key KEY and -hft/--hf-token TOKEN in both.
 * The long forms are caught by the words in their names, as is any
 * flag a later build adds with such a name; a short form says nothing,
 * so it is listed. Paths named so (--api-key-file, --ssl-key-file) are
 * hashed too: a change is still seen. Upstream reads "--hf_token" as
 * "--hf-token", and both cases are compared alike.
 */
static int secret_name(const char *name)
{
    static const char *const words[] = {"key",  "token", "secret", "pass",
                                        "auth", "cred",  "cookie", NULL};
    static const char *const shorts[] = {"-hft", NULL};
    char low[128];
    size_t i, n = strlen(name);

    if (n >= sizeof(low))
        n = sizeof(low) - 1;
    for (i = 0; i < n; i++)
        low[i] = (char)((name[i] >= 'A' && name[i] <= 'Z') ? name[i] + 32
                                                           : name[i]);
    low[n] = '\0';
    for (i = 0; shorts[i]; i++)
        if (strcmp(low, shorts[i]) == 0)
            return 1;
    for (i = 0; words[i]; i++)
        if (strstr(low, words[i]) != NULL)
            return 1;
    return 0;
}

/* A URL that carries a credential: a user (https://user:token@host/) or
 * a query (a signed link, ?token=...), as -mu/--model-url,
 * -mmu/--mmproj-url or LLAMA_ARG_MODEL_URL may hold. */
static int secret_url(const char *v)
{
    const char *host = v;
    size_t n;

    /* a value that starts with a scheme, not one that mentions a URL */
    while ((*host >= 'a' && *host <= 'z') || (*host >= 'A' && *host <= 'Z') ||
           (host > v && ((*host >= '0' && *host <= '9') || *host == '+' ||
                         *host == '.' || *host == '-')))
        host++;
    if (host == v || strncmp(host, "://", 3) != 0)
        return 0;
    host += 3;
    n = strcspn(host, "/?#");
    return memchr(host, '@', n) != NULL || strchr(host, '?') != NULL;
}

static json_t *redacted(const char *value)
{
    char hex[65], text[96];

    hash_bytes(value, strlen(value), hex);
    snprintf(text, sizeof(text), "<redacted sha256:%.16s>", hex);
    return json_string(text);
}

json_t *redact_args(char *const *args, size_t n)
{
    json_t *a = json_array();
    size_t i;

    for (i = 0; i < n; i++) {
        const char *eq = strchr(args[i], '=');
        if (args[i][0] == '-' && eq != NULL) {
            char flag[128];
            snprintf(flag, sizeof(flag), "%.*s", (int)(eq - args[i]), args[i]);
            if (secret_name(flag) || secret_url(eq + 1)) {
                json_t *r = redacted(eq + 1);
                char text[256];
                snprintf(text, sizeof(text), "%s=%s", flag,
                         json_string_value(r));
                json_decref(r);
                json_array_append_new(a, json_string(text));
                continue;
            }
        }
        if ((i > 0 && args[i - 1][0] == '-' &&
             strchr(args[i - 1], '=') == NULL && secret_name(args[i - 1])) ||
            secret_url(args[i]))
            json_array_append_new(a, redacted(args[i]));
        else
            json_array_append_new(a, json_string(args[i]));
    }
    return a;
}

json_t *redact_argv_json(const json_t *argv)
{
    char *args[64];
    size_t i, n = json_array_size(argv);

    if (n > sizeof(args) / sizeof(args[0]))
        n = sizeof(args) / sizeof(args[0]);
    for (i = 0; i < n; i++) {
        const char *s = json_string_value(json_array_get(argv, i));
        args[i] = (char *)(s ? s : "");
    }
    return redact_args(args, n);
}

json_t *redact_env(json_t *env)
{
    static const char *const clear[] = {"CUDA_VISIBLE_DEVICES",
                                        "HIP_VISIBLE_DEVICES",
                                        "ROCR_VISIBLE_DEVICES",
                                        "GPU_DEVICE_ORDINAL",
                                        "ONEAPI_DEVICE_SELECTOR",
                                        "OMP_NUM_THREADS",
                                        NULL};
    json_t *o = json_object(), *v;
    const char *key;
    size_t i;

    json_object_foreach(env, key, v)
    {
        const char *t = json_string_value(v);
        int plain = 0;
        for (i = 0; clear[i]; i++)
            plain |= strcmp(key, clear[i]) == 0;
        /* llama.cpp's and ggml's own settings, unless they name a key */
        if ((strncmp(key, "LLAMA_ARG_", 10) == 0 ||
             strncmp(key, "GGML_", 5) == 0) &&
            !secret_name(key) && !secret_url(t ? t : ""))
            plain = 1;
        json_object_set_new(
            o, key, plain ? json_string(t ? t : "") : redacted(t ? t : ""));
    }
    return o;
}
