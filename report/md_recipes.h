/*
 * md_recipes.h - REPORT.md's "Recipes" (md_recipes.c): each rung's bits
 * per weight by tensor kind, from run->recipes (figures_recipes.c reads
 * the GGUFs), beside the questions it killed, and each side rung's
 * tensors that differ from the chain rung beside it.
 */
#ifndef REPORT_MD_RECIPES_H
#define REPORT_MD_RECIPES_H

#include "doc.h"
#include "render.h"

/* The section, or nothing when run->recipes is NULL (no rung's file could
 * be read: the report stays byte for byte what it was). */
void md_recipes(struct doc *d, const struct rundir_run *run);

#endif
