/*
 * config_int.h - the parts config.c reads a config by (config_rungs.c,
 * config_request.c); not for the rest of the program, which reads
 * config.h. The helpers all of them call are config_json.h, which
 * includes nothing of these, so that the reader's files stand in layers.
 */
#ifndef CONFIG_INT_H
#define CONFIG_INT_H

#include <jansson.h>

#include "config.h"
#include "config_json.h"

/* The parts config_load reads, in its order (config_rungs.c,
 * config_request.c). */
int config_rungs(struct config_ctx *x, struct config *c, json_t *root,
                 const char *key, int side);
int config_load_request(struct config_ctx *x, json_t *root, struct config *c);
int config_load_build(struct config_ctx *x, json_t *root, struct config *c);
int config_recipes(struct config_ctx *x, struct config *c, json_t *root);
/* "duels" (config_duels.c), after the rungs: pairs of their names. */
int config_load_duels(struct config_ctx *x, json_t *root, struct config *c);
/* "lengths" and "long" (config_long.c), after the request (the task);
 * then, once the run folder's path is resolved, the question file they
 * make there as "questions". */
int config_load_long(struct config_ctx *x, json_t *root, struct config *c);
int config_long_questions(struct config_ctx *x, struct config *c);
/* A rung's "endpoint" (config_endpoint.c), into r: 0 when absent. */
int config_endpoint(struct config_ctx *x, json_t *e, const char *where,
                    struct config_rung *r);
/* An endpoint rung without "model": its URL stands for it (ladder.tsv's
 * "file"). */
int config_endpoint_model(struct config_ctx *x, struct config_rung *r);

/* The config's relative paths read against its folder (config_paths.c):
 * config_load's last step, over the paths over leaves to the file; and
 * the build's, once config_build_expand has them. */
void config_resolve_paths(struct config *c, const struct config_over *over,
                          const json_t *root);
void config_resolve_build(struct config *c);

#endif
