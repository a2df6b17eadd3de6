/*
 * md_epitaph.h - REPORT.md's tombstones and ghosts (md_epitaph.c).
 */
#ifndef REPORT_MD_EPITAPH_H
#define REPORT_MD_EPITAPH_H

#include "doc.h"
#include "render.h"

/* "Tombstones": each question's first death, what the rung said, where
 * it rose again. */
void md_tombstones(struct doc *d, const struct grader_ladder *rep,
                   const struct grader_qset *qs);

/* "Ghosts": each question the reference got wrong and a rung right. */
void md_ghosts(struct doc *d, const struct grader_ladder *rep,
               const struct grader_qset *qs);

#endif
