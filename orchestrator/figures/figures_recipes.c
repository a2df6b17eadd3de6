/*
 * figures_recipes.c - the report's "Recipes" (docs/report.md): each
 * rung's GGUF, found by ladder.tsv's path, read by its tensor table
 * (weights/recipe.h), and each side rung's tensors that differ from the
 * chain rung beside it. Nothing when no file is reachable, so a report of
 * a folder whose files are gone is what it was.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../grader/grader.h"
#include "../../rundir/ladderfile.h"
#include "../../rundir/rundir.h"
#include "../../util/util.h"
#include "../../weights/f16range.h"
#include "../../weights/recipe.h"
#include "figures_int.h"

/* One rung's entry; *recipe the file's recipe when it was read. */
static json_t *entry(const struct grader_figures *x, const struct lrow *row,
                     json_t **recipe)
{
    json_t *e = json_object(), *kinds = json_object(), *k;
    char msg[1024];
    size_t i;

    *recipe = NULL;
    json_object_set_new(e, "rung", json_string(x->line->rung->name));
    json_object_set_new(e, "dead", json_integer((json_int_t)x->line->dead));
    json_object_set_new(e, "file", row ? json_string(row->file) : json_null());
    if (row != NULL && access(row->file, R_OK) == 0 &&
        recipe_of(row->file, recipe, msg, sizeof msg) != F16R_OK)
        json_object_set_new(e, "error", json_string(msg));
    json_object_set_new(e, "here", json_boolean(*recipe != NULL));
    if (*recipe == NULL) {
        json_decref(kinds);
        return e;
    }
    json_object_set(e, "bytes", json_object_get(*recipe, "bytes"));
    json_object_set(e, "bpw", json_object_get(*recipe, "bpw"));
    json_array_foreach(json_object_get(*recipe, "kinds"), i, k)
        json_object_set(kinds, json_string_value(json_object_get(k, "kind")),
                        json_object_get(k, "bpw"));
    json_object_set_new(e, "kinds", kinds);
    return e;
}

/* A side rung's difference from the chain rung beside it. */
static void beside(json_t *e, json_t *side, json_t *chain, const char *name)
{
    json_t *pair[2] = {side, chain}, *d;

    json_object_set_new(e, "beside", json_string(name));
    if (side == NULL || chain == NULL || (d = recipe_diff(pair, 2)) == NULL)
        return;
    json_object_set_new(e, "differ",
                        json_integer((json_int_t)json_array_size(
                            json_object_get(d, "differ"))));
    json_object_set(e, "differ_bytes", json_object_get(d, "bytes"));
    json_decref(d);
}

int figures__recipes(struct rundir_run *run, const struct grader_ladder *rep)
{
    size_t nc = rep->chain.nrungs, n = nc + rep->nsides, i, nrows = 0;
    json_t **recipes = calloc(n ? n : 1, sizeof *recipes), *rungs;
    struct lrow *rows = NULL;
    struct buf path = {0};
    char msg[4400];
    int here = 0;

    if (recipes == NULL)
        return -1;
    if (rundir_path_buf(&path, run->dir, RD_LADDER_TSV, NULL) != 0 ||
        ladderfile_read(path.p, 1, &rows, &nrows, msg, sizeof msg) != 0) {
        buf_release(&path);
        free(recipes);
        return 0; /* no ladder.tsv to read: no recipes, as before */
    }
    buf_release(&path);
    rungs = json_array();
    for (i = 0; i < n; i++) {
        const struct grader_figures *x = grader_ladder_point(rep, i);
        json_t *e = entry(x, ladderfile_find(rows, nrows, x->line->rung->name),
                          &recipes[i]);
        here |= recipes[i] != NULL;
        if (i >= nc && rep->sides[i - nc].beside >= 0) {
            size_t b = (size_t)rep->sides[i - nc].beside;
            beside(e, recipes[i], recipes[b],
                   grader_ladder_point(rep, b)->line->rung->name);
        }
        json_array_append_new(rungs, e);
    }
    for (i = 0; i < n; i++)
        json_decref(recipes[i]);
    free(recipes);
    free(rows);
    if (here)
        run->recipes = rungs;
    else
        json_decref(rungs);
    return 0;
}
