/*
 * config.h - a ladder config (docs/config.md, schemas/config.schema.json):
 * what graveyard ladder runs. Parsed and checked whole before anything
 * starts: an unknown key, a value of the wrong type, or a ${VAR} that is
 * not set is one line naming the file and the key.
 */
#ifndef CONFIG_H
#define CONFIG_H

#include <jansson.h>
#include <stddef.h>

#define CONFIG_MAX_RUNGS 64
#define CONFIG_MAX_GPUS  64
#define CONFIG_MAX_ARGS  32

struct config_rung {
    char *name, *model;
    int ngl; /* -1 auto, -2 not given (the ladder's) */
    char *args[CONFIG_MAX_ARGS];
    size_t nargs;
    int side; /* outside the chain: buried beside it */
};

struct config {
    char *path; /* the file it came from */
    char *name, *questions, *run_dir, *reference;
    struct config_rung rungs[CONFIG_MAX_RUNGS];
    size_t nrungs;          /* chain first, in order, then side rungs */
    char *binary, *version; /* server.binary, server.version (or NULL) */
    char *server_args[CONFIG_MAX_ARGS];
    size_t nserver_args;
    char *gpus[CONFIG_MAX_GPUS];
    size_t ngpus;
    int think, ngl;
    long max_tokens, ctx, limit;
    json_t *request;       /* extra request fields, or NULL */
    char *prompt;          /* with {question}, or NULL */
    json_t *argv_template; /* server.argv, or NULL */
    json_t *env_template;  /* server.env, or NULL */
};

/* Load and check path. Returns 0, or -1 with one line in msg. */
int config_load(const char *path, struct config *c, char *msg, size_t msgsize);
void config_release(struct config *c);

/* Expand ${VAR} in s from the environment (new string, free()); NULL
 * with msg naming the variable when one is not set. */
char *config_expand(const char *s, char *msg, size_t msgsize);

#endif
