/*
 * config_duels.c - a config's "duels" (docs/duel.md): [["A", "B"], ...],
 * each name a rung of the config (chain or side), A not B. The report of
 * the folder sets each A against B (ladder.json records the pairs).
 */
#include <stdio.h>
#include <string.h>

#include "config_int.h"

/* The index of the rung called name, or -1. */
static int rung_index(const struct config *c, const char *name)
{
    size_t i;

    for (i = 0; i < c->nrungs; i++)
        if (strcmp(c->rungs[i].name, name) == 0)
            return (int)i;
    return -1;
}

int config_load_duels(struct config_ctx *x, json_t *root, struct config *c)
{
    json_t *v = json_object_get(root, "duels"), *p;
    const char *name[2];
    size_t i, k;
    int idx[2];

    c->nduels = 0;
    if (v == NULL)
        return 0;
    if (!json_is_array(v) || json_array_size(v) > CONFIG_MAX_DUELS) {
        snprintf(x->msg, x->msgsize,
                 "%s: 'duels' must be a list of at most %d pairs of rung "
                 "names: [[\"A\", \"B\"], ...]",
                 x->path, CONFIG_MAX_DUELS);
        return -1;
    }
    json_array_foreach(v, i, p)
    {
        if (!json_is_array(p) || json_array_size(p) != 2 ||
            !json_is_string(json_array_get(p, 0)) ||
            !json_is_string(json_array_get(p, 1))) {
            snprintf(x->msg, x->msgsize,
                     "%s: duels[%zu] must be a pair of rung names: [\"A\", "
                     "\"B\"]",
                     x->path, i);
            return -1;
        }
        for (k = 0; k < 2; k++) {
            name[k] = json_string_value(json_array_get(p, k));
            if ((idx[k] = rung_index(c, name[k])) < 0) {
                snprintf(x->msg, x->msgsize,
                         "%s: duels[%zu]: '%.100s' is no rung of this "
                         "config",
                         x->path, i, name[k]);
                return -1;
            }
        }
        if (idx[0] == idx[1]) {
            snprintf(x->msg, x->msgsize,
                     "%s: duels[%zu]: '%.100s' against itself (A and B "
                     "must be two rungs)",
                     x->path, i, name[0]);
            return -1;
        }
        c->duels[c->nduels][0] = idx[0];
        c->duels[c->nduels][1] = idx[1];
        c->nduels++;
    }
    return 0;
}
