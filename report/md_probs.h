/*
 * md_probs.h - REPORT.md's "Where they split" (md_probs.c): the split
 * figures of grader_probs_ladder (probs.h), formatted, for md.c.
 */
#ifndef REPORT_MD_PROBS_H
#define REPORT_MD_PROBS_H

#include "doc.h"
#include "render.h"

/* The section: a row a rung, Spearman's rho, the repeat's check. Nothing
 * when rep->probs is NULL. */
void md_probs(struct doc *d, const struct grader_ladder *rep);

/* The ladder table's "Mean KLD" cell of rung i (a dash for the reference
 * and a rung without a probs file). */
void md_probs_kld_cell(struct doc *d, const struct grader_ladder *rep,
                       size_t i);

#endif
