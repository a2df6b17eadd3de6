/*
 * config_int.h - what the parts of the config reader share (config.c,
 * config_rungs.c, config_request.c); not for the rest of the program,
 * which reads config.h.
 */
#ifndef CONFIG_INT_H
#define CONFIG_INT_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "config.h"

/* The file being read, and where its one message goes. */
struct config_ctx {
    const char *path;
    char *msg;
    size_t msgsize;
};

/* Put "path: " and the sentence in x's message, and return -1. */
#define BAD(...)                                                              \
    do {                                                                      \
        int k_ = snprintf(x->msg, x->msgsize, "%s: ", x->path);               \
        snprintf(x->msg + k_, x->msgsize - (size_t)k_, __VA_ARGS__);          \
        return -1;                                                            \
    } while (0)

/* Each below: 0, or -1 with the message naming the key ("where.key"). */
int config_known_keys(struct config_ctx *x, json_t *o, const char *where,
                      const char *const *allowed);
int config_str(struct config_ctx *x, json_t *o, const char *key,
               const char *where, int required, char **out);
int config_integer(struct config_ctx *x, json_t *o, const char *key,
                   const char *where, long min, long max, long *out);
int config_ngl(struct config_ctx *x, json_t *o, const char *where, int *out);
int config_strings(struct config_ctx *x, json_t *o, const char *key,
                   const char *where, char **out, size_t *n, size_t max);

/* The parts config_load reads, in its order (config_rungs.c,
 * config_request.c). */
int config_rungs(struct config_ctx *x, struct config *c, json_t *root,
                 const char *key, int side);
int config_load_request(struct config_ctx *x, json_t *root, struct config *c);
int config_load_build(struct config_ctx *x, json_t *root, struct config *c);
int config_recipes(struct config_ctx *x, struct config *c, json_t *root);

#endif
