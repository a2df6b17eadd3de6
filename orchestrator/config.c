/*
 * config.c - read a ladder config and check every key.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../rundir/files.h"
#include "cli.h"
#include "taskfile.h"

char *config_expand(const char *s, char *msg, size_t msgsize)
{
    struct buf b = {0};

    buf_append(&b, "", 0);
    while (*s) {
        const char *start = strstr(s, "${"), *end;
        char name[128], *v;
        if (start == NULL) {
            buf_puts(&b, s);
            break;
        }
        buf_append(&b, s, (size_t)(start - s));
        end = strchr(start, '}');
        if (end == NULL || (size_t)(end - start - 2) >= sizeof(name) ||
            end == start + 2) {
            snprintf(msg, msgsize, "unterminated or empty ${...} in '%s'",
                     start);
            buf_release(&b);
            return NULL;
        }
        memcpy(name, start + 2, (size_t)(end - start - 2));
        name[end - start - 2] = '\0';
        v = getenv(name);
        if (v == NULL) {
            snprintf(msg, msgsize, "${%s} is not set in the environment",
                     name);
            buf_release(&b);
            return NULL;
        }
        buf_puts(&b, v);
        s = end + 1;
    }
    return b.p;
}

struct ctx {
    const char *path;
    char *msg;
    size_t msgsize;
};

#define BAD(...)                                                              \
    do {                                                                      \
        int k_ = snprintf(x->msg, x->msgsize, "%s: ", x->path);               \
        snprintf(x->msg + k_, x->msgsize - (size_t)k_, __VA_ARGS__);          \
        return -1;                                                            \
    } while (0)

/* Refuse keys not in allowed (NULL-terminated). */
static int known_keys(struct ctx *x, json_t *o, const char *where,
                      const char *const *allowed)
{
    const char *key;
    json_t *v;
    size_t i;

    json_object_foreach(o, key, v)
    {
        for (i = 0; allowed[i] && strcmp(allowed[i], key) != 0; i++)
            ;
        if (allowed[i] == NULL)
            BAD("unknown key '%s%s%s'", where, *where ? "." : "", key);
    }
    return 0;
}

/* A string value (required or not), ${VAR}s expanded. */
static int str(struct ctx *x, json_t *o, const char *key, const char *where,
               int required, char **out)
{
    json_t *v = json_object_get(o, key);
    char sub[256];

    *out = NULL;
    if (v == NULL) {
        if (required)
            BAD("missing key '%s%s%s'", where, *where ? "." : "", key);
        return 0;
    }
    if (!json_is_string(v) || json_string_length(v) == 0)
        BAD("'%s%s%s' must be a non-empty string", where, *where ? "." : "",
            key);
    *out = config_expand(json_string_value(v), sub, sizeof(sub));
    if (*out == NULL)
        BAD("'%s%s%s': %s", where, *where ? "." : "", key, sub);
    return 0;
}

static int integer(struct ctx *x, json_t *o, const char *key,
                   const char *where, long min, long max, long *out)
{
    json_t *v = json_object_get(o, key);

    if (v == NULL)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < min ||
        json_integer_value(v) > max)
        BAD("'%s%s%s' must be an integer from %ld to %ld", where,
            *where ? "." : "", key, min, max);
    *out = (long)json_integer_value(v);
    return 0;
}

/* ngl: an integer, or "auto". */
static int ngl_of(struct ctx *x, json_t *o, const char *where, int *out)
{
    json_t *v = json_object_get(o, "ngl");
    long n;

    if (v == NULL)
        return 0;
    if (json_is_string(v) && strcmp(json_string_value(v), "auto") == 0) {
        *out = -1;
        return 0;
    }
    if (integer(x, o, "ngl", where, 0, CONFIG_NGL_MAX, &n) != 0)
        return -1;
    *out = (int)n;
    return 0;
}

static int strings(struct ctx *x, json_t *o, const char *key,
                   const char *where, char **out, size_t *n, size_t max)
{
    json_t *v = json_object_get(o, key), *e;
    char sub[256];
    size_t i;

    *n = 0;
    if (v == NULL)
        return 0;
    if (!json_is_array(v) || json_array_size(v) > max)
        BAD("'%s%s%s' must be a list of at most %zu strings", where,
            *where ? "." : "", key, max);
    json_array_foreach(v, i, e)
    {
        if (!json_is_string(e))
            BAD("'%s%s%s[%zu]' must be a string", where, *where ? "." : "",
                key, i);
        out[i] = config_expand(json_string_value(e), sub, sizeof(sub));
        if (out[i] == NULL)
            BAD("'%s%s%s[%zu]': %s", where, *where ? "." : "", key, i, sub);
        (*n)++;
    }
    return 0;
}

static int rungs(struct ctx *x, struct config *c, json_t *root,
                 const char *key, int side)
{
    static const char *const allowed[] = {
        "name", "model", "ngl", "server_args", "convert", "quantize", NULL};
    json_t *list = json_object_get(root, key), *e;
    char where[64];
    size_t i;

    if (list == NULL && side)
        return 0;
    if (!json_is_array(list) || (!side && json_array_size(list) == 0))
        BAD("'%s' must be a %slist of rungs", key, side ? "" : "non-empty ");
    json_array_foreach(list, i, e)
    {
        struct config_rung *r;
        size_t j;
        if (c->nrungs == CONFIG_MAX_RUNGS)
            BAD("more than %d rungs", CONFIG_MAX_RUNGS);
        r = &c->rungs[c->nrungs++];
        r->ngl = -2;
        r->side = side;
        snprintf(where, sizeof(where), "%s[%zu]", key, i);
        if (!json_is_object(e))
            BAD("'%s' must be an object", where);
        if (known_keys(x, e, where, allowed) != 0 ||
            str(x, e, "name", where, 1, &r->name) != 0 ||
            str(x, e, "model", where, 1, &r->model) != 0 ||
            ngl_of(x, e, where, &r->ngl) != 0 ||
            strings(x, e, "server_args", where, r->args, &r->nargs,
                    CONFIG_MAX_ARGS) != 0)
            return -1;
        if (!cli_rung_name_ok(r->name))
            BAD("'%s.name' '%s' is not a usable rung name (letters, digits, "
                "'.', '_', '-', not starting with '.' or '-')",
                where, r->name);
        if (!config_path_ok(r->model))
            BAD("'%s.model' has a control character in it", where);
        /* llama-quantize takes a rung's file as an argument */
        if (!config_arg_path_ok(r->model))
            BAD("'%s.model' '%s' starts with '-' and would be read as a "
                "flag; write './%s'",
                where, r->model, r->model);
        snprintf(where + strlen(where), sizeof(where) - strlen(where),
                 ".server_args");
        if (config_check_server_args(r->args, r->nargs, where, x->msg,
                                     x->msgsize) != 0)
            return -1;
        for (j = 0; j + 1 < c->nrungs; j++)
            if (strcmp(c->rungs[j].name, r->name) == 0)
                BAD("rung '%s' is named twice", r->name);
    }
    return 0;
}

/* ---- how a rung's file is made (docs/build.md) --------------------- */

/* Both forks' llama-quantize types (tools/quantize/quantize.cpp,
 * QUANT_OPTIONS): a type neither knows is refused before anything runs. */
static const char *const quant_types[] = {
    "Q1_0",       "Q2_0",       "Q4_0",      "Q4_1",      "MXFP4_MOE",
    "MXFP4",      "MXFP4_R8",   "Q5_0",      "Q5_1",      "Q6_0",
    "IQ2_XXS",    "IQ2_XXS_R4", "IQ2_XS",    "IQ2_XS_R4", "IQ2_S",
    "IQ2_M",      "IQ2_M_R4",   "IQ1_S",     "IQ1_S_R4",  "IQ1_M",
    "IQ1_M_R4",   "IQ1_BN",     "IQ2_BN",    "IQ2_BN_R4", "TQ1_0",
    "TQ2_0",      "Q2_K",       "Q2_K_R4",   "Q2_K_S",    "IQ3_XXS",
    "IQ3_XXS_R4", "IQ3_KT",     "IQ4_KT",    "IQ3_S",     "IQ3_S_R4",
    "IQ3_M",      "Q3_K",       "Q3_K_R4",   "IQ3_XS",    "Q3_K_S",
    "Q3_K_M",     "Q3_K_L",     "IQ4_NL",    "IQ4_NL_R4", "IQ4_XS",
    "IQ4_XS_R8",  "Q4_0_R8",    "Q5_0_R4",   "Q6_0_R4",   "Q8_0_R8",
    "Q8_KV",      "IQ4_KS",     "IQ4_KS_R4", "IQ5_KS_R4", "IQ4_KSS",
    "IQ5_KS",     "IQ2_K",      "IQ2_K_R4",  "IQ2_KS",    "IQ1_KT",
    "IQ2_KT",     "IQ2_KL",     "IQ3_KS",    "IQ3_K",     "IQ3_K_R4",
    "IQ3_KL",     "IQ4_K",      "IQ4_K_R4",  "IQ5_K",     "IQ5_K_R4",
    "IQ6_K",      "Q4_K",       "Q4_K_R4",   "Q4_K_S",    "Q4_K_M",
    "Q5_K",       "Q5_K_R4",    "Q5_K_S",    "Q5_K_M",    "Q6_K",
    "Q6_K_R4",    "Q8_K_R8",    "Q8_KV_R8",  "Q8_0",      "Q4_0_4_4",
    "Q4_0_4_8",   "Q4_0_8_8",   "F16",       "BF16",      "BF16_R16",
    "F32",        "COPY",       NULL};

const char *config_quant_type(const char *name)
{
    size_t i;

    for (i = 0; quant_types[i] != NULL; i++)
        if (strcasecmp(quant_types[i], name) == 0)
            return quant_types[i];
    return NULL;
}

static int convert_of(struct ctx *x, json_t *v, const char *where,
                      struct config_rung *r)
{
    static const char *const types[] = {"bf16", "f16", "f32", "q8_0", NULL};
    size_t i;

    if (!json_is_string(v))
        BAD("'%s.convert' must be one of \"bf16\", \"f16\", \"f32\", "
            "\"q8_0\"",
            where);
    for (i = 0; types[i] && strcmp(types[i], json_string_value(v)); i++)
        ;
    if (types[i] == NULL)
        BAD("'%s.convert' '%s' is not one of \"bf16\", \"f16\", \"f32\", "
            "\"q8_0\" (the converter's --outtype)",
            where, json_string_value(v));
    r->recipe = RECIPE_CONVERT;
    r->convert = xstrdup(types[i]);
    return 0;
}

static int quantize_of(struct ctx *x, struct config *c, json_t *q,
                       const char *where, struct config_rung *r)
{
    static const char *const keys[] = {"from", "type", "imatrix", "args",
                                       NULL};
    char w[80], *from = NULL, *type = NULL;
    const char *canon;
    size_t i;

    snprintf(w, sizeof w, "%s.quantize", where);
    if (!json_is_object(q))
        BAD("'%s' must be an object: {\"from\": RUNG, \"type\": TYPE}", w);
    if (known_keys(x, q, w, keys) || str(x, q, "from", w, 1, &from))
        return -1;
    for (i = 0; i < c->nrungs && strcmp(c->rungs[i].name, from); i++)
        ;
    r->from = i;
    if (i == c->nrungs || &c->rungs[i] == r) {
        snprintf(x->msg, x->msgsize, "%s: '%s.from' '%s' is not %s", x->path,
                 w, from,
                 i == c->nrungs ? "one of the rungs" : "another rung");
        free(from);
        return -1;
    }
    free(from);
    if (str(x, q, "type", w, 1, &type))
        return -1;
    canon = config_quant_type(type);
    if (canon == NULL) {
        snprintf(x->msg, x->msgsize,
                 "%s: '%s.type' '%s' is not a type llama-quantize knows "
                 "(Q8_0, Q6_K, Q5_K_M, Q4_K_M, Q4_0, Q3_K_M, Q2_K, ...: "
                 "docs/build.md lists them)",
                 x->path, w, type);
        free(type);
        return -1;
    }
    free(type);
    r->qtype = xstrdup(canon);
    r->recipe = RECIPE_QUANTIZE;
    if (str(x, q, "imatrix", w, 0, &r->imatrix) ||
        strings(x, q, "args", w, r->qargs, &r->nqargs, CONFIG_MAX_ARGS))
        return -1;
    return 0;
}

/* The rungs' "convert" and "quantize", once every rung is known (a
 * "from" may name a rung further down the list), then cycles. */
static int recipes(struct ctx *x, struct config *c, json_t *root)
{
    static const char *const keys[2] = {"rungs", "side_rungs"};
    size_t k, i, n = 0, j, hops;
    char where[64];

    for (k = 0; k < 2; k++) {
        json_t *e;
        json_array_foreach(json_object_get(root, keys[k]), i, e)
        {
            struct config_rung *r = &c->rungs[n++];
            json_t *cv = json_object_get(e, "convert"),
                   *q = json_object_get(e, "quantize");
            snprintf(where, sizeof where, "%s[%zu]", keys[k], i);
            if (cv != NULL && q != NULL)
                BAD("'%s' has both \"convert\" and \"quantize\": a file is "
                    "made one way",
                    where);
            if ((cv != NULL && convert_of(x, cv, where, r) != 0) ||
                (q != NULL && quantize_of(x, c, q, where, r) != 0))
                return -1;
            if (r->recipe != RECIPE_NONE &&
                (!c->build.present ||
                 json_object_get(c->build.raw, r->recipe == RECIPE_CONVERT
                                                   ? "convert"
                                                   : "quantize") == NULL))
                BAD("'%s' is made by %s, but 'build.%s' is not set", where,
                    r->recipe == RECIPE_CONVERT ? "the converter"
                                                : "llama-quantize",
                    r->recipe == RECIPE_CONVERT ? "convert" : "quantize");
            if (r->recipe == RECIPE_CONVERT &&
                json_object_get(c->build.raw, "checkpoint") == NULL)
                BAD("'%s' is converted, but 'build.checkpoint' (the Hugging "
                    "Face folder) is not set",
                    where);
        }
    }
    /* each rung has at most one source: a cycle is a walk up the
     * "from"s that is longer than the ladder */
    for (i = 0; i < c->nrungs; i++) {
        for (j = i, hops = 0;
             c->rungs[j].recipe == RECIPE_QUANTIZE && hops <= c->nrungs;
             hops++)
            j = c->rungs[j].from;
        if (hops > c->nrungs)
            BAD("rung '%s' is quantized from itself through a cycle of "
                "\"from\"s",
                c->rungs[i].name);
    }
    return 0;
}

/* "build": its keys and their types; the strings are expanded later. */
static int load_build(struct ctx *x, json_t *root, struct config *c)
{
    static const char *const keys[] = {"quantize",   "convert", "python",
                                       "checkpoint", "tmpdir",  "threads",
                                       "stall_s",    NULL};
    json_t *b = json_object_get(root, "build"), *v;
    const char *k;

    if (b == NULL)
        return 0;
    if (!json_is_object(b))
        BAD("'build' must be an object");
    if (known_keys(x, b, "build", keys) ||
        integer(x, b, "threads", "build", 1, 4096, &c->build.threads) ||
        integer(x, b, "stall_s", "build", 1, CONFIG_SECONDS_MAX,
                &c->build.stall_s))
        return -1;
    json_object_foreach(b, k, v)
    {
        if (strcmp(k, "threads") != 0 && strcmp(k, "stall_s") != 0 &&
            (!json_is_string(v) || json_string_length(v) == 0))
            BAD("'build.%s' must be a non-empty string", k);
    }
    c->build.present = 1;
    c->build.raw = json_incref(b);
    return 0;
}

int config_build_expand(struct config *c, char *msg, size_t msgsize)
{
    struct ctx cx = {c->path, msg, msgsize};
    struct ctx *x = &cx;
    json_t *b = c->build.raw;

    if (!c->build.present)
        BAD("no \"build\" object: nothing says how to make the files");
    if (c->build.python != NULL) /* done already */
        return 0;
    if (str(x, b, "quantize", "build", 0, &c->build.quantize) ||
        str(x, b, "convert", "build", 0, &c->build.convert) ||
        str(x, b, "python", "build", 0, &c->build.python) ||
        str(x, b, "checkpoint", "build", 0, &c->build.checkpoint) ||
        str(x, b, "tmpdir", "build", 0, &c->build.tmpdir))
        return -1;
    /* the converter takes the checkpoint as an argument (python unset
     * again: a call after this one checks again) */
    if (c->build.checkpoint != NULL &&
        !config_arg_path_ok(c->build.checkpoint)) {
        free(c->build.python);
        c->build.python = NULL;
        BAD("'build.checkpoint' '%s' starts with '-' and would be read as "
            "a flag; write './%s'",
            c->build.checkpoint, c->build.checkpoint);
    }
    if (c->build.python == NULL)
        c->build.python = xstrdup("python3");
    return 0;
}

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

/* "--host" and "--port", alone or as "--host=...": graveyard's own. */
static const char *own_flag(const char *a)
{
    static const char *const own[] = {"--host", "--port", NULL};

    for (size_t i = 0; own[i]; i++) {
        size_t n = strlen(own[i]);
        if (strncmp(a, own[i], n) == 0 && (a[n] == '\0' || a[n] == '='))
            return own[i];
    }
    return NULL;
}

int config_check_server_args(char *const *args, size_t n, const char *where,
                             char *msg, size_t msgsize)
{
    for (size_t i = 0; i < n; i++) {
        const char *f = own_flag(args[i]);
        if (f != NULL) {
            snprintf(msg, msgsize,
                     "%s: '%s' is graveyard's to set: the server binds "
                     "127.0.0.1 on a port graveyard chooses",
                     where, args[i]);
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
        const char *t = json_string_value(v), *f;
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
        f = own_flag(t);
        if (f == NULL)
            continue;
        if (strcmp(t, "--host") == 0 && next != NULL &&
            strcmp(next, "127.0.0.1") == 0) {
            i++;
            continue;
        }
        if (strcmp(t, "--port") == 0 && next != NULL &&
            strcmp(next, "{port}") == 0) {
            port = 1;
            i++;
            continue;
        }
        snprintf(msg, msgsize,
                 "%s[%zu]: the server binds 127.0.0.1 only, on {port} ('%s' "
                 "must be followed by %s)",
                 where, i, t,
                 strcmp(f, "--host") == 0 ? "\"127.0.0.1\"" : "\"{port}\"");
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
    char *end;
    long n;

    if (v == NULL)
        return -1;
    errno = 0;
    n = strtol(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || n == 0 || n < -1 ||
        n > 1 << 20)
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
        if (strcmp(key, "LLAMA_ARG_HOST") == 0 ||
            strcmp(key, "LLAMA_ARG_PORT") == 0) {
            snprintf(msg, msgsize,
                     "%s: '%s' is graveyard's to set: the server binds "
                     "127.0.0.1 on a port graveyard chooses",
                     where, key);
            return -1;
        }
    }
    return 0;
}

/* The top level's names, paths, rungs and GPUs (the overrides standing
 * in for run_dir and gpus). 0, or -1 with the message. */
static int load_top(struct ctx *x, const struct config_over *over,
                    json_t *root, struct config *c)
{
    char dev[130];
    static const char *const top[] = {
        "name",     "questions",  "run_dir",       "reference",
        "rungs",    "side_rungs", "server",        "request",
        "thinking", "gpus",       "ngl",           "ctx",
        "limit",    "prompt",     "build",         "repeat_reference",
        "canary",   "batching",   "rungs_per_gpu", "task",
        NULL};

    if (known_keys(x, root, "", top) ||
        str(x, root, "name", "", 1, &c->name) ||
        str(x, root, "questions", "", 1, &c->questions) ||
        (over->run_dir == NULL &&
         str(x, root, "run_dir", "", 1, &c->run_dir)) ||
        rungs(x, c, root, "rungs", 0) || rungs(x, c, root, "side_rungs", 1) ||
        (over->gpus == NULL &&
         strings(x, root, "gpus", "", c->gpus, &c->ngpus, CONFIG_MAX_GPUS)) ||
        ngl_of(x, root, "", &c->ngl))
        return -1;
    if (over->run_dir != NULL)
        c->run_dir = xstrdup(over->run_dir);
    if (over->gpus != NULL && over->gpus[0] != '\0' &&
        config_parse_gpus(c, over->gpus) != 0) {
        snprintf(x->msg, x->msgsize,
                 "--gpus wants a list such as 0,1 of GPU ids (letters, "
                 "digits, '.', '_', ':', '-'), not '%s'",
                 over->gpus);
        return -1;
    }
    for (size_t i = 0; i < c->ngpus; i++)
        if (!config_gpu_ok(c->gpus[i])) {
            snprintf(x->msg, x->msgsize,
                     "%s: 'gpus[%zu]' '%s' is not a GPU id (letters, "
                     "digits, '.', '_', ':', ',', '-'; a MIG device by "
                     "its MIG-<uuid>)",
                     x->path, i, c->gpus[i]);
            return -1;
        }
    if (config_gpu_twice(c->gpus, c->ngpus, dev, sizeof(dev))) {
        snprintf(x->msg, x->msgsize,
                 "%s%s names GPU '%s' twice: its rungs would share it with "
                 "none of the checks of sharing (free memory, \"(shared)\", "
                 "the report's \"Shared GPUs\"); name each GPU once, and "
                 "set \"rungs_per_gpu\" (or --per-gpu K) to run several "
                 "rungs on one",
                 over->gpus != NULL ? "--gpus" : x->path,
                 over->gpus != NULL ? "" : ": 'gpus'", dev);
        return -1;
    }
    /* bury and report take the run folder as an argument */
    if (!config_arg_path_ok(c->run_dir)) {
        snprintf(x->msg, x->msgsize,
                 "%s%s '%s' starts with '-' and would be read as a flag; "
                 "write './%s'",
                 over->run_dir != NULL ? "--run-dir" : x->path,
                 over->run_dir != NULL ? "" : ": 'run_dir'", c->run_dir,
                 c->run_dir);
        return -1;
    }
    if (!config_path_ok(c->questions) || !config_path_ok(c->run_dir) ||
        !config_path_ok(c->name)) {
        snprintf(x->msg, x->msgsize,
                 "%s: 'name', 'questions' and 'run_dir' may not hold "
                 "control characters",
                 x->path);
        return -1;
    }
    return 0;
}

/* "server": the binary (or the override), version, args, and the argv
 * and env templates, each checked here so that a bad one fails before
 * anything starts. 0, or -1 with the message. */
static int load_server(struct ctx *x, const struct config_over *over,
                       json_t *root, struct config *c)
{
    static const char *const server[] = {"binary", "version", "args",
                                         "argv",   "env",     NULL};
    json_t *v = json_object_get(root, "server");
    char where[4200];

    if (!json_is_object(v)) {
        snprintf(x->msg, x->msgsize,
                 "%s: missing key 'server' (an object with 'binary')",
                 x->path);
        return -1;
    }
    if (known_keys(x, v, "server", server) ||
        (over->binary == NULL &&
         str(x, v, "binary", "server", 1, &c->binary)) ||
        str(x, v, "version", "server", 0, &c->version) ||
        strings(x, v, "args", "server", c->server_args, &c->nserver_args,
                CONFIG_MAX_ARGS))
        return -1;
    if (over->binary != NULL)
        c->binary = xstrdup(over->binary);
    snprintf(where, sizeof(where), "%s: 'server.args'", x->path);
    if (config_check_server_args(c->server_args, c->nserver_args, where,
                                 x->msg, x->msgsize) != 0)
        return -1;
    if (json_object_get(v, "argv") != NULL) {
        snprintf(where, sizeof(where), "%s: 'server.argv'", x->path);
        if (config_check_argv_template(json_object_get(v, "argv"), where,
                                       x->msg, x->msgsize) != 0)
            return -1;
        c->argv_template = json_incref(json_object_get(v, "argv"));
    }
    if (json_object_get(v, "env") != NULL) {
        snprintf(where, sizeof(where), "%s: 'server.env'", x->path);
        if (config_check_env_template(json_object_get(v, "env"), where, x->msg,
                                      x->msgsize) != 0)
            return -1;
        c->env_template = json_incref(json_object_get(v, "env"));
    }
    return 0;
}

int config_check_request(const json_t *extra, const char *where, char *msg,
                         size_t msgsize)
{
    static const char question[] =
        "graveyard asks each question itself (the question file, the "
        "task, \"prompt\" or --prompt)";
    static const char cap[] =
        "the token cap is \"request.max_tokens\" (--max-tokens), which "
        "graveyard records and counts replies at the cap by";
    static const struct {
        const char *key, *why;
    } owned[] = {
        {"messages", question},
        {"prompt", question},
        {"stream", "graveyard reads every reply as it streams"},
        {"n", "graveyard reads one choice per question"},
        {"max_tokens", cap},
        {"n_predict", cap},
        {"max_completion_tokens", cap},
    };
    const json_t *kw = json_object_get(extra, "chat_template_kwargs");
    size_t i;

    for (i = 0; i < sizeof(owned) / sizeof(owned[0]); i++)
        if (json_object_get(extra, owned[i].key) != NULL) {
            snprintf(msg, msgsize, "%s%s' is graveyard's to set: %s", where,
                     owned[i].key, owned[i].why);
            return -1;
        }
    if (kw != NULL && !json_is_object(kw)) {
        snprintf(msg, msgsize, "%schat_template_kwargs' must be an object",
                 where);
        return -1;
    }
    if (json_object_get(kw, "enable_thinking") != NULL) {
        snprintf(msg, msgsize,
                 "%schat_template_kwargs.enable_thinking' is graveyard's to "
                 "set: thinking is \"thinking\" (--think), recorded as such",
                 where);
        return -1;
    }
    return 0;
}

void config_request_merge(json_t *body, const json_t *extra)
{
    json_t *kw = json_object_get(extra, "chat_template_kwargs");
    json_t *ours =
        json_deep_copy(json_object_get(body, "chat_template_kwargs"));

    if (json_object_update(body, (json_t *)extra) != 0)
        util_oom("a request");
    if (ours == NULL)
        return;
    if ((json_is_object(kw) && json_object_update(ours, kw) != 0) ||
        json_object_set_new(body, "chat_template_kwargs", ours) != 0)
        util_oom("a request");
}

/* The prompt, thinking, ctx, limit, "request" and the reference rung.
 * 0, or -1 with the message. */
static int load_request(struct ctx *x, json_t *root, struct config *c)
{
    static const char *const request[] = {"max_tokens",  "extra",
                                          "timeout_s",   "idle_timeout_s",
                                          "abort_loops", NULL};
    char where[4200];
    json_t *v;
    size_t i;

    if (str(x, root, "prompt", "", 0, &c->prompt) ||
        str(x, root, "task", "", 0, &c->task))
        return -1;
    if (c->task != NULL) { /* checked whole now; each run loads its own */
        char why[900];
        struct grader_task *t = taskfile_load(c->task, why, sizeof(why));
        if (t == NULL) {
            snprintf(x->msg, x->msgsize, "%s: 'task': %s", x->path, why);
            return -1;
        }
        grader_task_free(t);
    }
    if (c->prompt && strstr(c->prompt, "{question}") == NULL) {
        snprintf(x->msg, x->msgsize,
                 "%s: 'prompt' must say where the question goes with "
                 "{question}",
                 x->path);
        return -1;
    }
    v = json_object_get(root, "thinking");
    if (v != NULL && !json_is_boolean(v)) {
        snprintf(x->msg, x->msgsize, "%s: 'thinking' must be true or false",
                 x->path);
        return -1;
    }
    c->think = json_is_true(v);
    v = json_object_get(root, "repeat_reference");
    if (v != NULL && !json_is_boolean(v)) {
        snprintf(x->msg, x->msgsize,
                 "%s: 'repeat_reference' must be true or false", x->path);
        return -1;
    }
    c->repeat_reference = json_is_true(v);
    /* max_tokens and ctx stay 0 when not given: their defaults are
     * run_opts_defaults' (runner.h), the one set for run and ladder */
    if (integer(x, root, "ctx", "", 64, CONFIG_CTX_MAX, &c->ctx) ||
        integer(x, root, "limit", "", 0, CONFIG_LIMIT_MAX, &c->limit))
        return -1;
    v = json_object_get(root, "request");
    if (v != NULL &&
        (!json_is_object(v) || known_keys(x, v, "request", request) ||
         integer(x, v, "max_tokens", "request", 1, CONFIG_TOKENS_MAX,
                 &c->max_tokens) ||
         integer(x, v, "timeout_s", "request", 1, CONFIG_SECONDS_MAX,
                 &c->timeout_s) ||
         integer(x, v, "idle_timeout_s", "request", 1, CONFIG_SECONDS_MAX,
                 &c->idle_s)))
        return -1;
    if (json_object_get(v, "abort_loops") != NULL &&
        !json_is_boolean(json_object_get(v, "abort_loops"))) {
        snprintf(x->msg, x->msgsize,
                 "%s: 'request.abort_loops' must be true or false", x->path);
        return -1;
    }
    c->abort_loops = json_is_true(json_object_get(v, "abort_loops"));
    if (json_object_get(v, "extra") != NULL) {
        c->request = json_incref(json_object_get(v, "extra"));
        if (!json_is_object(c->request)) {
            snprintf(x->msg, x->msgsize,
                     "%s: 'request.extra' must be an object", x->path);
            return -1;
        }
        snprintf(where, sizeof(where), "%s: 'request.extra.", x->path);
        if (config_check_request(c->request, where, x->msg, x->msgsize))
            return -1;
    }
    if (str(x, root, "reference", "", 0, &c->reference))
        return -1;
    if (c->reference == NULL)
        c->reference = xstrdup(c->rungs[0].name);
    for (i = 0; i < c->nrungs && strcmp(c->rungs[i].name, c->reference); i++)
        ;
    if (i == c->nrungs) {
        snprintf(x->msg, x->msgsize,
                 "%s: 'reference' '%s' is not one of the rungs", x->path,
                 c->reference);
        return -1;
    }
    return 0;
}

/* Each rung's server slots (its args after the server's), checked
 * against "batching", into the rung. 0, or -1 with the message. */
static int rung_slots(struct ctx *x, struct config *c)
{
    char *args[2 * CONFIG_MAX_ARGS], where[4200];
    size_t i, j, n;

    for (i = 0; i < c->nrungs; i++) {
        struct config_rung *r = &c->rungs[i];
        n = 0;
        for (j = 0; j < c->nserver_args; j++)
            args[n++] = c->server_args[j];
        for (j = 0; j < r->nargs; j++)
            args[n++] = r->args[j];
        snprintf(where, sizeof(where), "%s: rung '%s'", x->path, r->name);
        r->slots = config_slots(args, n, c->argv_template, c->env_template,
                                where, x->msg, x->msgsize);
        if (r->slots < 0 || config_check_slots(r->slots, c->batching, where,
                                               x->msg, x->msgsize) != 0)
            return -1;
    }
    return 0;
}

/* "canary": {"rows", "questions", "max_changed"} (cmd_canary.c), and
 * "batching". 0, or -1 with the message. */
static int load_canary(struct ctx *x, json_t *root, struct config *c)
{
    static const char *const keys[] = {"rows", "questions", "max_changed",
                                       NULL};
    json_t *v = json_object_get(root, "batching");

    if (v != NULL && !json_is_boolean(v)) {
        snprintf(x->msg, x->msgsize, "%s: 'batching' must be true or false",
                 x->path);
        return -1;
    }
    c->batching = json_is_true(v);
    c->rungs_per_gpu = 1;
    if (integer(x, root, "rungs_per_gpu", "", 1, CONFIG_MAX_PER_GPU,
                &c->rungs_per_gpu))
        return -1;
    c->canary_questions = 20;
    c->canary_max_changed = 2;
    v = json_object_get(root, "canary");
    if (v == NULL)
        return 0;
    if (!json_is_object(v)) {
        snprintf(x->msg, x->msgsize,
                 "%s: 'canary' must be an object with 'rows' (a trusted "
                 "rows file)",
                 x->path);
        return -1;
    }
    if (known_keys(x, v, "canary", keys) ||
        str(x, v, "rows", "canary", 1, &c->canary_rows) ||
        integer(x, v, "questions", "canary", 1, CONFIG_LIMIT_MAX,
                &c->canary_questions) ||
        integer(x, v, "max_changed", "canary", 0, CONFIG_LIMIT_MAX,
                &c->canary_max_changed))
        return -1;
    if (!config_path_ok(c->canary_rows)) {
        snprintf(x->msg, x->msgsize,
                 "%s: 'canary.rows' may not hold control characters", x->path);
        return -1;
    }
    return 0;
}

int config_load(const char *path, const struct config_over *over,
                struct config *c, char *msg, size_t msgsize)
{
    static const struct config_over none = {NULL, NULL, NULL};
    struct ctx cx = {path, msg, msgsize};
    json_error_t jerr;
    json_t *root;
    int rc = -1;

    memset(c, 0, sizeof(*c));
    if (over == NULL)
        over = &none;
    c->ngl = 99;
    c->path = xstrdup(path);
    root = files_json_load(path, 0, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL) {
        if (jerr.line < 1) /* not a syntax error: the file itself */
            snprintf(msg, msgsize, "cannot read config '%s': %s", path,
                     jerr.text);
        else
            snprintf(msg, msgsize, "%s:%d: %s", path, jerr.line, jerr.text);
        free(c->path);
        c->path = NULL;
        return -1;
    }
    if (!json_is_object(root))
        snprintf(msg, msgsize, "%s: a config is a JSON object", path);
    else if (load_top(&cx, over, root, c) == 0 &&
             load_server(&cx, over, root, c) == 0 &&
             load_request(&cx, root, c) == 0 &&
             load_canary(&cx, root, c) == 0 && rung_slots(&cx, c) == 0 &&
             load_build(&cx, root, c) == 0 && recipes(&cx, c, root) == 0)
        rc = 0;
    json_decref(root);
    if (rc != 0)
        config_release(c);
    return rc;
}

int config_parse_gpus(struct config *c, const char *list)
{
    const char *p = list, *end;
    size_t i;

    for (i = 0; i < c->ngpus; i++)
        free(c->gpus[i]);
    c->ngpus = 0;
    for (; *p; p = *end ? end + 1 : end) {
        size_t n;
        end = strchr(p, ',');
        if (end == NULL)
            end = p + strlen(p);
        n = (size_t)(end - p);
        if (n == 0)
            continue;
        if (c->ngpus == CONFIG_MAX_GPUS)
            return -1;
        c->gpus[c->ngpus] = xrealloc(NULL, n + 1);
        memcpy(c->gpus[c->ngpus], p, n);
        c->gpus[c->ngpus][n] = '\0';
        if (!config_gpu_ok(c->gpus[c->ngpus++]))
            return -1;
    }
    return c->ngpus > 0 ? 0 : -1;
}

void config_release(struct config *c)
{
    size_t i, j;

    for (i = 0; i < c->nrungs; i++) {
        free(c->rungs[i].name);
        free(c->rungs[i].model);
        for (j = 0; j < c->rungs[i].nargs; j++)
            free(c->rungs[i].args[j]);
        free(c->rungs[i].convert);
        free(c->rungs[i].qtype);
        free(c->rungs[i].imatrix);
        for (j = 0; j < c->rungs[i].nqargs; j++)
            free(c->rungs[i].qargs[j]);
    }
    json_decref(c->build.raw);
    free(c->build.quantize);
    free(c->build.convert);
    free(c->build.python);
    free(c->build.checkpoint);
    free(c->build.tmpdir);
    for (i = 0; i < c->nserver_args; i++)
        free(c->server_args[i]);
    for (i = 0; i < c->ngpus; i++)
        free(c->gpus[i]);
    free(c->path);
    free(c->name);
    free(c->questions);
    free(c->run_dir);
    free(c->reference);
    free(c->canary_rows);
    free(c->binary);
    free(c->version);
    json_decref(c->request);
    json_decref(c->argv_template);
    json_decref(c->env_template);
    free(c->prompt);
    free(c->task);
    memset(c, 0, sizeof(*c));
}
