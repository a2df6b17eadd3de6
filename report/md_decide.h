/*
 * md_decide.h - the answer first (md_decide.c): "Which file?", the
 * decision block that opens REPORT.md and the page (above the grid), from
 * the grader's decision (decide.h) and the ladder's figures.
 */
#ifndef REPORT_MD_DECIDE_H
#define REPORT_MD_DECIDE_H

#include "doc.h"
#include "render.h"

/* The block, marked as the page's top (doc_top_begin): a table of the
 * margins (1, 2, 5 and the run's own, marked) with the smallest and the
 * fastest equivalent file at each, or the questions that would tell one;
 * then one line per rung: % of bytes, change with its 95 % interval, the
 * verdict at the run's margin, dead, cost per right answer. */
void md_decision(struct doc *d, const struct grader_ladder *rep);

#endif
