/*
 * config_rungs.c - a ladder config's rungs and side rungs, and how
 * graveyard build makes each rung's file ("build" and the recipes).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/cli.h"
#include "config_int.h"

/* A rung's own server settings (a ladder of settings, docs/config.md):
 * "env" over server.env, "binary" (another build or fork) and the
 * "version" that pins it. Two rungs may name one file and differ only
 * here. 0, or -1 with the message. */
static int rung_server(struct config_ctx *x, json_t *e, const char *key,
                       size_t i, struct config_rung *r)
{
    json_t *env = json_object_get(e, "env");
    char where[64], full[4200];

    snprintf(where, sizeof(where), "%s[%zu]", key, i);
    if (env != NULL) {
        snprintf(full, sizeof(full), "%s: '%s.env'", x->path, where);
        if (config_check_env_template(env, full, x->msg, x->msgsize) != 0)
            return -1;
        r->env = json_incref(env);
    }
    if (config_str(x, e, "binary", where, 0, &r->binary) != 0 ||
        config_str(x, e, "version", where, 0, &r->version) != 0)
        return -1;
    if (r->version != NULL && r->binary == NULL)
        BAD("'%s.version' pins a rung's own build: it goes with "
            "'%s.binary' (server.version pins the server's)",
            where, where);
    if (r->binary != NULL && !config_path_ok(r->binary))
        BAD("'%s.binary' has a control character in it", where);
    return 0;
}

int config_rungs(struct config_ctx *x, struct config *c, json_t *root,
                 const char *key, int side)
{
    static const char *const allowed[] = {
        "name", "model",  "ngl",     "server_args", "convert", "quantize",
        "env",  "binary", "version", "endpoint",    NULL};
    json_t *list = json_object_get(root, key), *e;
    char where[64], full[4200];
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
        if (config_known_keys(x, e, where, allowed) != 0 ||
            config_str(x, e, "name", where, 1, &r->name) != 0 ||
            config_endpoint(x, e, where, r) != 0 ||
            config_str(x, e, "model", where, r->endpoint == NULL, &r->model) !=
                0 ||
            config_endpoint_model(x, r) != 0 ||
            config_ngl(x, e, where, &r->ngl) != 0 ||
            config_strings(x, e, "server_args", where, r->args, &r->nargs,
                           CONFIG_MAX_ARGS) != 0 ||
            rung_server(x, e, key, i, r) != 0)
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
        snprintf(full, sizeof(full), "%s: '%s.server_args'", x->path, where);
        if (config_check_server_args(r->args, r->nargs, full, x->msg,
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

static int convert_of(struct config_ctx *x, json_t *v, const char *where,
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

static int quantize_of(struct config_ctx *x, struct config *c, json_t *q,
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
    if (config_known_keys(x, q, w, keys) ||
        config_str(x, q, "from", w, 1, &from))
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
    if (config_str(x, q, "type", w, 1, &type))
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
    if (config_str(x, q, "imatrix", w, 0, &r->imatrix) ||
        config_strings(x, q, "args", w, r->qargs, &r->nqargs, CONFIG_MAX_ARGS))
        return -1;
    return 0;
}

/* The rungs' "convert" and "quantize", once every rung is known (a
 * "from" may name a rung further down the list), then cycles. */
int config_recipes(struct config_ctx *x, struct config *c, json_t *root)
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
int config_load_build(struct config_ctx *x, json_t *root, struct config *c)
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
    if (config_known_keys(x, b, "build", keys) ||
        config_integer(x, b, "threads", "build", 1, 4096, &c->build.threads) ||
        config_integer(x, b, "stall_s", "build", 1, CONFIG_SECONDS_MAX,
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
    struct config_ctx cx = {c->path, msg, msgsize};
    struct config_ctx *x = &cx;
    json_t *b = c->build.raw;

    if (!c->build.present)
        BAD("no \"build\" object: nothing says how to make the files");
    if (c->build.python != NULL) /* done already */
        return 0;
    if (config_str(x, b, "quantize", "build", 0, &c->build.quantize) ||
        config_str(x, b, "convert", "build", 0, &c->build.convert) ||
        config_str(x, b, "python", "build", 0, &c->build.python) ||
        config_str(x, b, "checkpoint", "build", 0, &c->build.checkpoint) ||
        config_str(x, b, "tmpdir", "build", 0, &c->build.tmpdir))
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
    config_resolve_build(c);
    return 0;
}
