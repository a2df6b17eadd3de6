/*
 * md_settings.h - the parts of REPORT.md's doc that md_settings.c builds
 * for md.c (render_report_doc): each appends its pieces to d.
 */
#ifndef REPORT_MD_SETTINGS_H
#define REPORT_MD_SETTINGS_H

#include "doc.h"
#include "render.h"

/* "# graveyard: NAME" and the line under it. */
void md_head_matter(struct doc *d, const struct rundir_run *run);
/* The settings table: what the rows were made with, stated once. */
void md_settings(struct doc *d, const struct rundir_run *run,
                 const struct grader_ladder *rep);
/* The canary's verdict, when the folder has one. */
void md_canary(struct doc *d, const struct rundir_run *run);
/* What the F16 rung's cast cost, when f16-range counted it. */
void md_f16_note(struct doc *d, const struct rundir_run *run,
                 const struct grader_ladder *rep);

#endif
