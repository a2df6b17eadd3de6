/*
 * config_check.c - the checks a config shares with the commands' flags:
 * GPU ids, paths, the server's arguments and templates, and slots.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/cli.h"
#include "../base/owned.h"

int config_gpu_ok(const char *id)
{
    size_t i, n = strlen(id);

    if (n == 0 || n > 128 || id[0] == '.')
        return 0;
    for (i = 0; i < n; i++) {
        char c = id[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
              c == ':' || c == ','))
            return 0;
    }
    return 1;
}

static int all_digits(const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return n > 0;
}

/* Two names of one device: CUDA reads "00" as 0, and a UUID in any case. */
static int same_device(const char *a, size_t na, const char *b, size_t nb)
{
    if (all_digits(a, na) && all_digits(b, nb)) {
        for (; na > 1 && *a == '0'; na--)
            a++;
        for (; nb > 1 && *b == '0'; nb--)
            b++;
    }
    return na > 0 && na == nb && strncasecmp(a, b, na) == 0;
}

/* The next device of a list: from *p to the comma or the end. */
static const char *next_device(const char *p)
{
    return *p == ',' ? p + 1 : p;
}

int config_gpu_twice(char *const *ids, size_t n, char *dev, size_t size)
{
    size_t i, j;

    for (i = 0; i < n; i++) {
        const char *a, *ae, *b, *be;
        for (a = ids[i]; *a; a = next_device(ae)) {
            ae = a + strcspn(a, ",");
            for (j = i; j < n; j++)
                for (b = j == i ? next_device(ae) : ids[j]; *b;
                     b = next_device(be)) {
                    be = b + strcspn(b, ",");
                    if (same_device(a, (size_t)(ae - a), b,
                                    (size_t)(be - b))) {
                        snprintf(dev, size, "%.*s", (int)(ae - a), a);
                        return 1;
                    }
                }
        }
    }
    return 0;
}

int config_arg_path_ok(const char *path)
{
    return path[0] != '-';
}

int config_path_ok(const char *path)
{
    for (; *path; path++)
        if ((unsigned char)*path < 0x20 || *path == 0x7f)
            return 0;
    return 1;
}

int config_check_server_args(char *const *args, size_t n, const char *where,
                             char *msg, size_t msgsize)
{
    for (size_t i = 0; i < n; i++) {
        const struct owned_name *f = owned_flag(args[i]);
        if (f != NULL) {
            snprintf(msg, msgsize, "%s: '%s' %s", where, args[i],
                     owned_why(f->why));
            return -1;
        }
        if (!config_path_ok(args[i])) {
            snprintf(msg, msgsize, "%s: argument %zu has a control character",
                     where, i);
            return -1;
        }
    }
    return 0;
}

/* What an owned flag t must be followed by in a template (its one place
 * there: "--host 127.0.0.1", "--port {port}", "-m {model}"), or NULL
 * when a template may not hold it at all. */
static const char *template_pair(const char *t)
{
    if (strcmp(t, "--host") == 0)
        return "127.0.0.1";
    if (strcmp(t, "--port") == 0)
        return "{port}";
    if (strcmp(t, "-m") == 0 || strcmp(t, "--model") == 0)
        return "{model}";
    return NULL;
}

int config_check_argv_template(json_t *a, const char *where, char *msg,
                               size_t msgsize)
{
    json_t *v;
    int model = 0, port = 0;
    size_t i;

    if (!json_is_array(a) || json_array_size(a) > 48) {
        snprintf(msg, msgsize, "%s must be a list of at most 48 strings",
                 where);
        return -1;
    }
    json_array_foreach(a, i, v)
    {
        const char *t = json_string_value(v), *pair;
        const struct owned_name *f;
        const char *next = json_string_value(json_array_get(a, i + 1));
        if (t == NULL || strlen(t) > 900 || !config_path_ok(t)) {
            snprintf(msg, msgsize,
                     "%s[%zu] must be a string of at most 900 bytes, "
                     "without control characters",
                     where, i);
            return -1;
        }
        model |= strstr(t, "{model}") != NULL;
        port |= strstr(t, "{port}") != NULL;
        f = owned_flag(t);
        if (f == NULL)
            continue;
        pair = template_pair(t);
        if (pair != NULL && next != NULL && strcmp(next, pair) == 0) {
            port |= strcmp(pair, "{port}") == 0;
            model |= strcmp(pair, "{model}") == 0;
            i++;
            continue;
        }
        if (pair == NULL)
            snprintf(msg, msgsize, "%s[%zu]: '%s' %s", where, i, t,
                     owned_why(f->why));
        else if (f->why == OWN_BIND)
            snprintf(msg, msgsize,
                     "%s[%zu]: the server binds 127.0.0.1 only, on {port} "
                     "('%s' must be followed by \"%s\")",
                     where, i, t, pair);
        else
            snprintf(msg, msgsize,
                     "%s[%zu]: '%s' must be followed by \"{model}\": "
                     "anything else %s",
                     where, i, t, owned_why(OWN_WEIGHTS));
        return -1;
    }
    if (!model || !port) {
        snprintf(msg, msgsize, "%s must place {model} and {port}", where);
        return -1;
    }
    return 0;
}

/* "N" (or "-1", auto: 4) as a slot count, or -1. */
static long slot_value(const char *v)
{
    long n;

    if (cli_whole(v, -1, 1 << 20, &n) != 0 || n == 0)
        return -1;
    return n == -1 ? 4 : n;
}

/* The last -np/--parallel value in a[0..n) (NULL strings end it), into
 * *slots; -1 when one is not a number, 0 when none was given. */
static int last_slots(const char *const *a, size_t n, long *slots,
                      const char **bad)
{
    for (size_t i = 0; i < n && a[i] != NULL; i++) {
        const char *v = NULL;
        if ((strcmp(a[i], "-np") == 0 || strcmp(a[i], "--parallel") == 0) &&
            i + 1 < n)
            v = a[++i];
        else if (strncmp(a[i], "--parallel=", 11) == 0)
            v = a[i] + 11;
        else
            continue;
        if ((*slots = slot_value(v)) < 0) {
            *bad = v ? v : "";
            return -1;
        }
    }
    return 0;
}

long config_slots(char *const *args, size_t n, const json_t *argv_template,
                  const json_t *env_template, const char *where, char *msg,
                  size_t msgsize)
{
    const char *tpl[64], *bad = NULL;
    long slots = 0;
    size_t k = 0;
    const json_t *v;

    if (argv_template != NULL) {
        json_array_foreach(argv_template, k, v) if (k < 64) tpl[k] =
            json_string_value(v);
        k = json_array_size(argv_template) < 64
                ? json_array_size(argv_template)
                : 64;
        if (last_slots(tpl, k, &slots, &bad) != 0)
            goto bad;
    } else {
        slots = 1; /* ours: -np 1 */
    }
    if (last_slots((const char *const *)args, n, &slots, &bad) != 0)
        goto bad;
    if (slots == 0) {
        const char *e = json_string_value(
            json_object_get(env_template, "LLAMA_ARG_N_PARALLEL"));
        slots = e ? slot_value(e) : 1;
        if (slots < 0) {
            bad = e;
            goto bad;
        }
    }
    return slots;
bad:
    snprintf(msg, msgsize,
             "%s: '%s' is not a number of server slots (-np/--parallel)",
             where, bad);
    return -1;
}

int config_check_slots(long slots, int batching, const char *where, char *msg,
                       size_t msgsize)
{
    if (slots > 1 && !batching) {
        snprintf(msg, msgsize,
                 "%s: the server would have %ld slots (-np/--parallel), "
                 "and graveyard asks one question at a time unless "
                 "batching is on purpose "
                 "(\"batching\": true, or --allow-batching), because "
                 "batched decoding is not the same computation and changes "
                 "answers (docs/run.md, \"Batching\"); say -np 1 or turn it "
                 "on",
                 where, slots);
        return -1;
    }
    if (slots > CONFIG_MAX_SLOTS) {
        snprintf(msg, msgsize,
                 "%s: the server would have %ld slots, and graveyard keeps "
                 "at most %d requests in flight",
                 where, slots, CONFIG_MAX_SLOTS);
        return -1;
    }
    return 0;
}

/* Whether variable key=value is not the config's to give: one line in
 * msg and -1, else 0. */
static int env_owned(const char *key, const char *value, const char *where,
                     char *msg, size_t msgsize)
{
    const struct owned_name *v = owned_var(key);

    if (v != NULL) {
        snprintf(msg, msgsize, "%s: '%s' %s", where, key, owned_why(v->why));
        return -1;
    }
    if (owned_gpu_var(key) && strcmp(value, "{gpu}") != 0) {
        snprintf(msg, msgsize,
                 "%s: '%s' may only be \"{gpu}\", the rung's GPU: "
                 "'%s' %s, and would put rungs on one GPU with no "
                 "check of its memory and no \"(shared)\" mark",
                 where, key, value, owned_why(OWN_DEVICE));
        return -1;
    }
    return 0;
}

int config_check_env_template(json_t *o, const char *where, char *msg,
                              size_t msgsize)
{
    const char *key;
    json_t *v;

    if (!json_is_object(o)) {
        snprintf(msg, msgsize, "%s must be an object", where);
        return -1;
    }
    json_object_foreach(o, key, v)
    {
        if (!json_is_string(v) || key[0] == '\0' || strchr(key, '=') ||
            !config_path_ok(key) || !config_path_ok(json_string_value(v))) {
            snprintf(msg, msgsize,
                     "%s: '%s' must be a name with a string value, "
                     "without control characters",
                     where, key);
            return -1;
        }
        if (env_owned(key, json_string_value(v), where, msg, msgsize) != 0)
            return -1;
    }
    return 0;
}
