/*
 * md_cost.h - REPORT.md's "What an answer costs" (md_cost.c): each
 * rung's grader_cost (grader/cost.h), formatted, for md.c.
 */
#ifndef REPORT_MD_COST_H
#define REPORT_MD_COST_H

#include "doc.h"
#include "render.h"

/* The section: a row a rung (chain, then side rungs), the thinking
 * column only when some rung thought, the Wh column only when some rung
 * has power readings (else a line that says there were none). */
void md_cost(struct doc *d, const struct grader_ladder *rep);

#endif
