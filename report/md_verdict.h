/*
 * md_verdict.h - REPORT.md's verdicts (md_verdict.c): the ladder table's
 * verdict column, its note, and "How many questions would tell?", from
 * the figures grader_ladder_verdicts filled (verdict.h), for md.c.
 */
#ifndef REPORT_MD_VERDICT_H
#define REPORT_MD_VERDICT_H

#include "doc.h"
#include "render.h"

/* The column's header cell: "Verdict at ±D points", D the margin used. */
void md_verdict_head(struct doc *d, const struct grader_ladder *rep);

/* What the column means, and the floor's raise when there is one: a
 * paragraph's sentences after the ladder table's. */
void md_verdict_note(struct doc *d, const struct grader_ladder *rep);

/* "How many questions would tell?": every rung that cannot tell (chain,
 * then side rungs), the questions each n needed asks for and which
 * question set reaches it. Nothing when every rung is told. */
void md_verdict_table(struct doc *d, const struct grader_ladder *rep);

#endif
