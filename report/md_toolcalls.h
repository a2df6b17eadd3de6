/*
 * md_toolcalls.h - a run of tool items in REPORT.md and the page
 * (md_toolcalls.c): how each rung's calls fail, by the checker's buckets
 * (toolcall/toolcall.h), all of them and the dead; and a run of code
 * items (md_code.c): how each rung's code fails, by the sandbox's
 * outcomes.
 */
#ifndef REPORT_MD_TOOLCALLS_H
#define REPORT_MD_TOOLCALLS_H

#include "doc.h"
#include "render.h"

/* "Tool calls: how each rung's calls fail", when a rung of the chain
 * graded tool items; nothing otherwise. */
void md_toolcalls(struct doc *d, const struct grader_ladder *rep);

/* A cause's cell, the tool calls' and the code's: "n", or "n (d dead)",
 * "n (c cut off)", "n (d dead, c cut off)": a reply cut at the token cap
 * is counted where its verdict puts it (a call cut short is malformed,
 * code cut short a syntax error), and said to be cut. */
void md_cause_cell(struct doc *d, size_t n, size_t dead, size_t cut);

/* A table of causes, one row a rung of the chain: its name, its leading
 * cells (lead), then one cell a cause (md_cause_cell) from counts(l, 0)
 * all, 1 the dead, 2 those cut off, each an array of n. */
struct md_causes {
    const char *const *heads; /* the leading columns' heads */
    size_t nheads;
    const char *const *words; /* each cause's column head */
    int n;
    void (*lead)(struct doc *d, const struct grader_autopsy_line *l);
    const size_t *(*counts)(const struct grader_autopsy_line *l, int which);
};
void md_causes_table(struct doc *d, const struct grader_ladder *rep,
                     const struct md_causes *c);

/* "Code: how each rung's code fails" (md_code.c), when a rung of the
 * chain ran code items; nothing otherwise. */
void md_code(struct doc *d, const struct grader_ladder *rep);

#endif
