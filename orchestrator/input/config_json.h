/*
 * config_json.h - reading one value of a ladder config (config_json.c):
 * the file's context with its one message, and a reader for each kind of
 * value. It is the bottom of the config reader: config.c, config_rungs.c
 * and config_request.c include it, and it includes none of them, nor
 * config_int.h.
 */
#ifndef CONFIG_JSON_H
#define CONFIG_JSON_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

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

#endif
