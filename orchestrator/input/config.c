/*
 * config.c - read a ladder config: the file, the top keys, the server,
 * the canary and each rung's slots. The rungs and recipes are
 * config_rungs.c, the request config_request.c (both through
 * config_int.h), the helpers every part shares config_json.c, the checks
 * the commands share too config_check.c.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../rundir/files.h"
#include "../base/cli.h"
#include "config_int.h"
#include "taskfile.h"

/* The top level's names, paths, rungs and GPUs (the overrides standing
 * in for run_dir and gpus). 0, or -1 with the message. */
static int load_top(struct config_ctx *x, const struct config_over *over,
                    json_t *root, struct config *c)
{
    char dev[130];
    /* with "lengths" the ladder makes them (config_long.c) */
    int need_questions = json_object_get(root, "lengths") == NULL &&
                         json_object_get(root, "long") == NULL;
    static const char *const top[] = {"name",
                                      "questions",
                                      "run_dir",
                                      "reference",
                                      "rungs",
                                      "side_rungs",
                                      "server",
                                      "request",
                                      "thinking",
                                      "gpus",
                                      "ngl",
                                      "ctx",
                                      "limit",
                                      "prompt",
                                      "build",
                                      "repeat_reference",
                                      "canary",
                                      "batching",
                                      "rungs_per_gpu",
                                      "task",
                                      "logprobs",
                                      "margin_points",
                                      "lengths",
                                      "long",
                                      "exec",
                                      "duels",
                                      NULL};

    if (config_known_keys(x, root, "", top) ||
        config_str(x, root, "name", "", 1, &c->name) ||
        config_str(x, root, "questions", "", need_questions, &c->questions) ||
        (over->run_dir == NULL &&
         config_str(x, root, "run_dir", "", 1, &c->run_dir)) ||
        config_rungs(x, c, root, "rungs", 0) ||
        config_rungs(x, c, root, "side_rungs", 1) ||
        (over->gpus == NULL && config_strings(x, root, "gpus", "", c->gpus,
                                              &c->ngpus, CONFIG_MAX_GPUS)) ||
        config_ngl(x, root, "", &c->ngl))
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
    if ((c->questions != NULL && !config_path_ok(c->questions)) ||
        !config_path_ok(c->run_dir) || !config_path_ok(c->name)) {
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
static int load_server(struct config_ctx *x, const struct config_over *over,
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
    if (config_known_keys(x, v, "server", server) ||
        (over->binary == NULL &&
         config_str(x, v, "binary", "server", 1, &c->binary)) ||
        config_str(x, v, "version", "server", 0, &c->version) ||
        config_strings(x, v, "args", "server", c->server_args,
                       &c->nserver_args, CONFIG_MAX_ARGS))
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

/* Each rung's server slots (its args after the server's), checked
 * against "batching", into the rung. 0, or -1 with the message. */
static int rung_slots(struct config_ctx *x, struct config *c)
{
    char *args[2 * CONFIG_MAX_ARGS], where[4200];
    const json_t *env;
    size_t i, j, n;

    for (i = 0; i < c->nrungs; i++) {
        struct config_rung *r = &c->rungs[i];
        n = 0;
        for (j = 0; j < c->nserver_args; j++)
            args[n++] = c->server_args[j];
        for (j = 0; j < r->nargs; j++)
            args[n++] = r->args[j];
        snprintf(where, sizeof(where), "%s: rung '%s'", x->path, r->name);
        /* the rung's env is merged over server.env (runplan.c) */
        env = json_object_get(r->env, "LLAMA_ARG_N_PARALLEL") != NULL
                  ? r->env
                  : c->env_template;
        r->slots = config_slots(args, n, c->argv_template, env, where, x->msg,
                                x->msgsize);
        if (r->slots < 0 || config_check_slots(r->slots, c->batching, where,
                                               x->msg, x->msgsize) != 0)
            return -1;
    }
    return 0;
}

/* "canary": {"rows", "questions", "max_changed"} (cmd_canary.c), and
 * "batching". 0, or -1 with the message. */
static int load_canary(struct config_ctx *x, json_t *root, struct config *c)
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
    if (config_integer(x, root, "rungs_per_gpu", "", 1, CONFIG_MAX_PER_GPU,
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
    if (config_known_keys(x, v, "canary", keys) ||
        config_str(x, v, "rows", "canary", 1, &c->canary_rows) ||
        config_integer(x, v, "questions", "canary", 1, CONFIG_LIMIT_MAX,
                       &c->canary_questions) ||
        config_integer(x, v, "max_changed", "canary", 0, CONFIG_LIMIT_MAX,
                       &c->canary_max_changed))
        return -1;
    if (!config_path_ok(c->canary_rows)) {
        snprintf(x->msg, x->msgsize,
                 "%s: 'canary.rows' may not hold control characters", x->path);
        return -1;
    }
    return 0;
}

/* "margin_points": the verdicts' equivalence margin, a number of points
 * above 0 and below 100 (default GRADER_MARGIN_DEFAULT, 2). 0, or -1 with
 * the message. */
static int load_margin(struct config_ctx *x, json_t *root, struct config *c)
{
    json_t *v = json_object_get(root, "margin_points");
    double d = v != NULL && json_is_number(v) ? json_number_value(v) : 0.0;

    c->margin_points = 2.0;
    if (v == NULL)
        return 0;
    if (!json_is_number(v) || !(d > 0.0 && d < 100.0)) {
        snprintf(x->msg, x->msgsize,
                 "%s: 'margin_points' must be a number of points above 0 "
                 "and below 100 (the equivalence margin of the verdicts)",
                 x->path);
        return -1;
    }
    c->margin_points = d;
    return 0;
}

/* "exec": a code task's executions (docs/code.md): {"jobs": N at once
 * (at most the cores), "timeout_s": each one's wall clock}; absent: the
 * sandbox's defaults. The flags --exec-jobs and --exec-timeout win. */
static int load_exec(struct config_ctx *x, json_t *root, struct config *c)
{
    static const char *const keys[] = {"jobs", "timeout_s", NULL};
    json_t *v = json_object_get(root, "exec");

    if (v == NULL)
        return 0;
    if (!json_is_object(v)) {
        snprintf(x->msg, x->msgsize,
                 "%s: 'exec' must be an object: {\"jobs\": N, "
                 "\"timeout_s\": S}",
                 x->path);
        return -1;
    }
    return config_known_keys(x, v, "exec", keys) ||
                   config_integer(x, v, "jobs", "exec", 1, 64,
                                  &c->exec_jobs) ||
                   config_integer(x, v, "timeout_s", "exec", 1, 3600,
                                  &c->exec_timeout_s)
               ? -1
               : 0;
}

int config_load(const char *path, const struct config_over *over,
                struct config *c, char *msg, size_t msgsize)
{
    static const struct config_over none = {NULL, NULL, NULL};
    struct config_ctx cx = {path, msg, msgsize};
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
             config_load_request(&cx, root, c) == 0 &&
             config_load_long(&cx, root, c) == 0 &&
             load_canary(&cx, root, c) == 0 && rung_slots(&cx, c) == 0 &&
             load_margin(&cx, root, c) == 0 && load_exec(&cx, root, c) == 0 &&
             config_load_duels(&cx, root, c) == 0 &&
             config_load_build(&cx, root, c) == 0 &&
             config_recipes(&cx, c, root) == 0) {
        config_resolve_paths(c, over, root);
        rc = config_long_questions(&cx, c);
    }
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
        free(c->rungs[i].endpoint);
        free(c->rungs[i].api_key_env);
        for (j = 0; j < c->rungs[i].nargs; j++)
            free(c->rungs[i].args[j]);
        free(c->rungs[i].convert);
        free(c->rungs[i].qtype);
        free(c->rungs[i].imatrix);
        for (j = 0; j < c->rungs[i].nqargs; j++)
            free(c->rungs[i].qargs[j]);
        json_decref(c->rungs[i].env);
        free(c->rungs[i].binary);
        free(c->rungs[i].version);
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
