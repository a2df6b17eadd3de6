/*
 * pages.h - REPORT.html, COMPARE.html and THINK.html (report/page.h),
 * assembled from what the report commands already hold: the grader's
 * results, the rungs read with GRADER_READ_KEEP, the report's doc (the
 * one its Markdown was written from) and the question file the manifest names.
 *
 * Nothing here counts: the cells' facts come from grader_bury_cells, the
 * overlay from grader_grid / grader_compare, the marks from
 * grader_grid_marks. The caller owns every input; each function renders
 * into f and returns 0, or -1 out of memory.
 */
#ifndef PAGES_H
#define PAGES_H

#include <stdint.h>
#include <stdio.h>

#include "../../grader/grader.h"
#include "../../report/render.h"
#include "../../rundir/run.h"

/* The report's doc (report/doc.h), the one its Markdown was written
 * from, and the picture it shows inline (pareto.svg), or NULL, for the
 * page's lower half. */
struct doc_svg;
struct page_duel;

struct page_doc {
    const struct doc *doc;
    const struct doc_svg *svgs; /* the pictures shown inline, by src */
    size_t nsvgs;
    /* REPORT.html only: the folder's duels (report/page.h's page_duel, a
     * ladder config's "duels"), A against B by rung name; NULL, 0: none,
     * and the page is what it was without them */
    const struct page_duel *duels;
    size_t nduels;
};

/* One run folder: chain[0..nchain) then side[0..nside) as the report read
 * them. */
int pages_report(FILE *f, const struct rundir_run *run,
                 const struct grader_ladder *rep, const struct grader_qset *qs,
                 const struct grader_rung *const *chain,
                 const struct grader_rung *const *side,
                 const struct page_doc *doc);

/* Runs of one ladder: rungs[k * nrungs + i], as grader_compare took them. */
int pages_compare(FILE *f, const struct render_compare *rc,
                  const struct grader_rung *const *rungs,
                  const struct page_doc *doc);

/* Thinking off (off[0..n)) against on (on[0..n)): the two passes as two
 * runs of the grid, overlaid by grader_compare. */
int pages_think(FILE *f, const struct render_think *t,
                const struct grader_qset *qs,
                const struct grader_rung *const *off,
                const struct grader_rung *const *on,
                const struct page_doc *doc);

/* The question texts of the rows' questions, from the file the manifest
 * names (as the report's page reads them; graveyard export's input too):
 * new, or NULL out of memory. pages_qtext gives question q's text (q below
 * nq), or NULL when the file does not have it; the note says which file
 * and how many were found, or why none. */
struct pages_qtexts;
struct pages_qtexts *pages_qtexts_new(const struct rundir_run *run,
                                      const struct grader_qset *qs, size_t nq);
const char *pages_qtext(const struct pages_qtexts *t, uint32_t q);
const char *pages_qtexts_note(const struct pages_qtexts *t);
void pages_qtexts_free(struct pages_qtexts *t);

#endif
