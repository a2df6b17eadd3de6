/*
 * launch.c - a server's port, argv and environment (launch.h).
 */
#include "launch.h"

#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../util/util.h"
#include "../base/owned.h"

int launch_free_port(void)
{
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;

    if (fd < 0)
        return -1;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}

/* The values a template's placeholders stand for. */
struct vals {
    const char *model, *port, *ngl, *ctx, *gpu;
};

/* s with {model} {port} {ngl} {ctx} {seed} {gpu} replaced (new). */
static char *expand(const struct vals *v, const char *s)
{
    static const char *const keys[] = {"{model}", "{port}", "{ngl}",
                                       "{ctx}",   "{seed}", "{gpu}"};
    const char *vals[6] = {v->model, v->port, v->ngl, v->ctx, "0", v->gpu};
    struct buf out;
    size_t i;

    /* config.h keeps an item under 900 bytes and a path under 4 KiB:
     * 128 placeholders of 4 KiB fit */
    buf_init(&out, 1u << 20);
    while (*s) {
        for (i = 0; i < 6; i++)
            if (strncmp(s, keys[i], strlen(keys[i])) == 0)
                break;
        if (i < 6) {
            buf_puts(&out, vals[i]);
            s += strlen(keys[i]);
        } else {
            buf_append(&out, s++, 1);
        }
    }
    buf_append(&out, "", 0);
    return out.p != NULL ? out.p : xstrdup("");
}

/* A vector being filled: at most LAUNCH_MAX_ARGV - 1 items. */
struct vec {
    char **v;
    size_t n;
};

static void push(struct vec *a, char *s)
{
    if (a->n + 1 >= LAUNCH_MAX_ARGV) {
        free(s); /* config.h caps templates and arguments well below */
        return;
    }
    a->v[a->n++] = s;
    a->v[a->n] = NULL;
}

static void pop(struct vec *a)
{
    free(a->v[--a->n]);
    a->v[a->n] = NULL;
}

/* The config's template (checked by config_check_argv_template: {model}
 * and {port} present, --host only 127.0.0.1). */
static void template_argv(const struct run_opts *o, const struct vals *v,
                          struct vec *a)
{
    json_t *item;
    size_t i;
    int host = 0;

    json_array_foreach(o->argv_template, i, item)
    {
        const char *t = json_string_value(item);
        if (t == NULL)
            continue;
        if (o->ngl < 0 && strcmp(t, "{ngl}") == 0) {
            if (a->n > 1 && a->v[a->n - 1][0] == '-')
                pop(a);
            continue;
        }
        host |= strcmp(t, "--host") == 0;
        push(a, expand(v, t));
    }
    if (!host) {
        push(a, xstrdup("--host"));
        push(a, xstrdup("127.0.0.1"));
    }
}

char **launch_argv(const struct run_opts *o, int port)
{
    static const char *const ours[] = {
        "-m", "{model}", "--host", "127.0.0.1", "--port", "{port}",
        "-c", "{ctx}",   "-np",    "1",         "--seed", "0"};
    char sport[16], sctx[32], sngl[16];
    struct vals v = {o->model, sport, sngl, sctx, o->gpu ? o->gpu : ""};
    struct vec a = {xrealloc(NULL, LAUNCH_MAX_ARGV * sizeof(char *)), 0};
    size_t i;

    snprintf(sport, sizeof(sport), "%d", port);
    snprintf(sctx, sizeof(sctx), "%ld", o->ctx);
    snprintf(sngl, sizeof(sngl), "%d", o->ngl);
    a.v[0] = NULL;
    push(&a, xstrdup(o->llama));
    if (o->argv_template != NULL) {
        template_argv(o, &v, &a);
    } else {
        for (i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
            push(&a, expand(&v, ours[i]));
        if (o->ngl >= 0) {
            push(&a, xstrdup("-ngl"));
            push(&a, xstrdup(sngl));
        }
    }
    for (i = 0; i < o->n_server_args; i++)
        push(&a, xstrdup(o->server_args[i]));
    return a.v;
}

static int env_named(const char *entry, const char *name)
{
    size_t n = strlen(name);

    return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

/* An entry of graveyard's own environment that a config could not
 * give the server either (owned.h: GRAVEYARD_*, LLAMA_ARG_MODEL,
 * LLAMA_ARG_HF_REPO, LLAMA_API_KEY...): not handed on. */
static int inherited_owned(const char *entry)
{
    char name[64];
    size_t n = strcspn(entry, "=");

    if (n >= sizeof(name))
        return 0; /* longer than any owned name */
    memcpy(name, entry, n);
    name[n] = '\0';
    return owned_var(name) != NULL;
}

static char *joined(const char *key, const char *value)
{
    size_t len = strlen(key) + strlen(value) + 2;
    char *s = xrealloc(NULL, len);

    snprintf(s, len, "%s=%s", key, value);
    return s;
}

char **launch_env(const struct run_opts *o, char *const *env)
{
    struct vals vals = {o->model, "", "", "", o->gpu ? o->gpu : ""};
    size_t n = 0, k = 0, i;
    const char *key;
    char **out, *value;
    json_t *v;

    while (env[n])
        n++;
    out = xrealloc(NULL,
                   (n + json_object_size(o->env_template) + 2) * sizeof(*out));
    for (i = 0; i < n; i++) {
        const char *e = env[i];
        int drop = inherited_owned(e) ||
                   (o->gpu && env_named(e, "CUDA_VISIBLE_DEVICES"));
        json_object_foreach(o->env_template, key, v) drop |= env_named(e, key);
        if (!drop)
            out[k++] = xstrdup(e);
    }
    /* the template's own CUDA_VISIBLE_DEVICES ("1{gpu}") wins */
    if (o->gpu != NULL &&
        json_object_get(o->env_template, "CUDA_VISIBLE_DEVICES") == NULL)
        out[k++] = joined("CUDA_VISIBLE_DEVICES", o->gpu);
    json_object_foreach(o->env_template, key, v)
    {
        const char *t = json_string_value(v);
        if (t == NULL || (o->gpu == NULL && strstr(t, "{gpu}")))
            continue;
        value = expand(&vals, t);
        out[k++] = joined(key, value);
        free(value);
    }
    out[k] = NULL;
    return out;
}

void launch_free(char **v)
{
    if (v == NULL)
        return;
    for (size_t i = 0; v[i]; i++)
        free(v[i]);
    free(v);
}
