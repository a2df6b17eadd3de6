/*
 * md_recipes.c - "Recipes" (md_recipes.h): formatting only; the entries
 * are figures_recipes.c's (docs/report.md).
 */
#include "md_recipes.h"

#include <string.h>

#include "fmt.h"

/* The kinds shown, in recipe.h's order; a rung without one: a dash. */
static const char *const shown[] = {"attn_q",   "attn_k",     "attn_v",
                                    "attn_o",   "ffn_up",     "ffn_gate",
                                    "ffn_down", "embeddings", "output"};
#define NSHOWN (sizeof shown / sizeof *shown)

static void bpw_cell(struct doc *d, json_t *v)
{
    char a[FMT_SIZE];

    if (json_is_number(v))
        doc_cellf(d, "%s", fmt_fixed(a, json_number_value(v), 2));
    else
        doc_cellf(d, "\xe2\x80\x94");
}

static void recipe_row(struct doc *d, json_t *e)
{
    json_t *kinds = json_object_get(e, "kinds");
    char a[FMT_SIZE];
    size_t k;

    doc_row(d);
    doc_cell(d);
    doc_rung(d, json_string_value(json_object_get(e, "rung")), 0);
    doc_cellf(d, "%s",
              fmt_count(a, (long long)json_integer_value(
                               json_object_get(e, "dead"))));
    if (!json_is_true(json_object_get(e, "here"))) {
        doc_cellf(d, "file not here");
        for (k = 0; k <= NSHOWN; k++)
            doc_cellf(d, " ");
        return;
    }
    bpw_cell(d, json_object_get(e, "bpw"));
    for (k = 0; k < NSHOWN; k++)
        bpw_cell(d, json_object_get(kinds, shown[k]));
    if (json_object_get(e, "beside") == NULL)
        doc_cellf(d, " ");
    else if (json_object_get(e, "differ") == NULL)
        doc_cellf(d, "beside %s: its file not here",
                  json_string_value(json_object_get(e, "beside")));
    else {
        json_t *b = json_object_get(e, "differ_bytes");
        doc_cellf(d,
                  "beside %s: %lld tensors differ, %lld bytes against "
                  "%lld",
                  json_string_value(json_object_get(e, "beside")),
                  (long long)json_integer_value(json_object_get(e, "differ")),
                  (long long)json_integer_value(json_array_get(b, 0)),
                  (long long)json_integer_value(json_array_get(b, 1)));
    }
}

void md_recipes(struct doc *d, const struct rundir_run *run)
{
    size_t i, k;
    json_t *e;

    if (run->recipes == NULL)
        return;
    doc_heading(d, 2);
    doc_raw(d, "Recipes");
    doc_table(d, "lrrrrrrrrrrrl");
    doc_row(d);
    doc_cellf(d, "Rung");
    doc_cellf(d, "Dead");
    doc_cellf(d, "Bits / weight");
    for (k = 0; k < NSHOWN; k++)
        doc_cellf(d, "%s", shown[k]);
    doc_cellf(d, "Against the chain");
    json_array_foreach(run->recipes, i, e) recipe_row(d, e);
    doc_para(d);
    doc_raw(d, "Each rung's GGUF read by its tensor table alone (the file "
               "ladder.tsv names; graveyard tensors, docs/tensors.md): bits "
               "per weight in all and by tensor kind (norms and others are "
               "in the total only), beside the questions the rung killed. A "
               "side rung's tensors whose type differs from the chain rung "
               "nearest in bytes, and the bytes those take in each file.");
}
