/*
 * md_lengths.h - a run of long items (md_lengths.c): each rung at each
 * prompt length, graded against the reference at the same length
 * (grader/lengths.h), and where in the prompt its lost needles sat.
 */
#ifndef REPORT_MD_LENGTHS_H
#define REPORT_MD_LENGTHS_H

#include "doc.h"
#include "render.h"

/* "Length: where the answers die" and "Where the lost needles sat", when
 * rep->lengths is set; nothing otherwise. */
void md_lengths(struct doc *d, const struct grader_ladder *rep);

#endif
