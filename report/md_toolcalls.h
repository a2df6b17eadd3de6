/*
 * md_toolcalls.h - a run of tool items in REPORT.md and the page
 * (md_toolcalls.c): how each rung's calls fail, by the checker's buckets
 * (toolcall/toolcall.h), all of them and the dead.
 */
#ifndef REPORT_MD_TOOLCALLS_H
#define REPORT_MD_TOOLCALLS_H

#include "doc.h"
#include "render.h"

/* "Tool calls: how each rung's calls fail", when a rung of the chain
 * graded tool items; nothing otherwise. */
void md_toolcalls(struct doc *d, const struct grader_ladder *rep);

#endif
