/*
 * md_differs.h - REPORT.md's pieces for a ladder of settings (rungs that
 * share a file and differ by their server arguments, environment or
 * build; docs/report.md, "A ladder of settings"): the "What differs"
 * cell, the bytes cell that makes no claim for a rung on the reference's
 * file, and the speculative rungs' table. Nothing here for a plain
 * ladder, whose report stays byte for byte as it was.
 */
#ifndef REPORT_MD_DIFFERS_H
#define REPORT_MD_DIFFERS_H

#include <jansson.h>

#include "doc.h"
#include "render.h"

/* 1 when run is a ladder of settings against ref (rundir/differs.h). */
int md_settings_ladder(const struct rundir_run *run, const char *ref);
/* The "What differs" cell of rung: "reference" for ref. */
void md_differs_cell(struct doc *d, const struct rundir_run *run,
                     const char *rung, const char *ref);
/* 1 when x, not the reference, is on the reference's file (its sha256). */
int md_same_file(const struct grader_figures *x,
                 const struct grader_figures *ref);
/* "Speculative decoding": each speculative rung's answers that differ
 * from its rung without the draft, and the first that does. */
void md_speculative(struct doc *d, const struct grader_ladder *rep);
/* Under pareto.svg: the rungs left off its bytes panel, if any. */
void md_same_file_note(struct doc *d, const struct grader_ladder *rep);

/* report.json (o, its rungs and side_rungs made): each rung's
 * "what_differs" and "same_file", and "speculative" (the lines of
 * md_speculative), only for a ladder of settings. 0, or -1 out of
 * memory. */
int render_differs_json(json_t *o, const struct rundir_run *run,
                        const struct grader_ladder *rep);

#endif
