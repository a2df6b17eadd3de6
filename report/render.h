/*
 * render.h - the reports, written from the grader's figures: REPORT.md,
 * report.json and cover.svg for one run folder; COMPARE.md, compare JSON
 * and an overlay cover for runs of one ladder; THINK.md and think JSON.
 *
 * Renderers only format: every count, ratio and interval comes from the
 * grader (ladder.h, compare.h, think.h). They write to a FILE (the
 * caller's memory stream) and return 0, or -1 when out of memory; the
 * caller checks the stream for write errors. The Markdown reports are
 * built as docs (doc.h), written as .md by doc_md and as the page's
 * report by doc_html: a *_doc function returns a new doc (doc_free), or
 * NULL when out of memory.
 */
#ifndef REPORT_RENDER_H
#define REPORT_RENDER_H

#include <stdio.h>

#include "../grader/grader.h"
#include "../rundir/run.h"

/* The cover: one row per rung (names[0] at the top), one cell per
 * question, from a grid (compare.h: cells[rung * nq + question]). Colours:
 * right (marigold), wrong (grey) and, with more than one run, split
 * (violet). marks (compare.h's grader_grid_marks; may be NULL) put a cap
 * on the top MARK_H px of a cell: dark on the dead, pale on the ghosts.
 * docs/report.md gives the geometry.
 */
#define REPORT_MARIGOLD "#eaa221"
#define REPORT_GREY     "#8a8d91"
#define REPORT_VIOLET   "#8f5fbf"
#define REPORT_MISSING  "#ffffff"
#define REPORT_DEAD     "#2e2f33"
#define REPORT_GHOST    "#7fc8e8"

void render_cover(FILE *f, const char *title, const char *const *names,
                  size_t nrungs, size_t nruns, size_t nq, const uint8_t *cells,
                  const uint8_t *marks);
/* The same for one run, each cell with a band along its bottom shaded by
 * its question's mean KLD (probs->kld, question order[j] in column j; a
 * scale in decades, docs/report.md); probs NULL: render_cover's picture,
 * byte for byte. 0, or -1 out of memory (nothing written). */
int render_cover_probs(FILE *f, const char *title, const char *const *names,
                       size_t nrungs, size_t nq, const uint8_t *cells,
                       const uint8_t *marks,
                       const struct grader_probs_ladder *probs,
                       const uint32_t *order);

struct doc;

/* A rung's verdict in words (verdict.h): "equivalent", "equivalent (≥ 0.6
 * down)", "worse, by ≥ 10.2", "better, by ≥ 1.3", "cannot tell"; an em
 * dash at the reference. out holds RENDER_VERDICT_SIZE bytes; returns it.
 * REPORT.md, COMPARE.md and the page say the same. */
#define RENDER_VERDICT_SIZE 96
char *render_verdict_words(char *out, const struct grader_verdict *v);

/* One run folder. */
struct doc *render_report_doc(const struct rundir_run *run,
                              const struct grader_ladder *rep,
                              const struct grader_qset *qs);
/* The answer first, as plain text within 80 columns: for the margins 1,
 * 2, 5 and the run's own (marked *), the smallest and the fastest
 * equivalent file or the questions that would tell one (decide.h); then
 * a line per rung. REPORT.md and the page open with the same block. 0,
 * or -1 when f failed. */
int render_decision_lines(FILE *f, const struct grader_ladder *rep);
int render_report_json(FILE *f, const struct rundir_run *run,
                       const struct grader_ladder *rep,
                       const struct grader_qset *qs);

/* pareto.svg: each rung a point, x its % of the reference's bytes (one
 * panel) and its median decode tok/s (another), y its accuracy with the
 * Wilson interval; the Pareto fronts and the picks of l->pick (ladder.h).
 * A panel whose figure is missing is left out, and the picture says why. */
void render_pareto(FILE *f, const char *title, const struct grader_ladder *l);

/* lengths.svg (lengths_svg.c): a run of long items as a picture, a row
 * per rung and a column per length, each cell coloured by its verdict
 * against the reference at that length and naming its accuracy; the
 * first length each rung is shown worse marked. Nothing but a note when
 * l->lengths is NULL. */
void render_lengths(FILE *f, const char *title, const struct grader_ladder *l);
/* depth.svg (depth_svg.c): where in the prompt each rung lost its
 * needles, a row per rung (per rung and length when there are several), a
 * column per tenth of depth, each cell its dead of those it answered
 * (grader/lengths.h's depth_*_at) and shaded by that share; a cell with
 * nothing to count empty. render_depth_has: 1 when l is a run of long
 * items with a needle and a rung that answered one (the picture has a
 * row: report writes it, REPORT.md shows it), else 0. */
int render_depth_has(const struct grader_ladder *l);
void render_depth(FILE *f, const char *title, const struct grader_ladder *l);
/* The "which one?" under the picture and in REPORT.md, from l->pick. */
void render_pick_words(char *out, size_t size, const struct grader_ladder *l);

/* Runs of one ladder. metas[k * nrungs + i] is rung i of run k. */
struct render_compare {
    const struct rundir_run *runs; /* nruns */
    const char *const *names;      /* nrungs rung names */
    const struct grader_compare *c;
    const struct grader_meta *metas;
    const struct grader_qset *qs;
    const char *files_note; /* the ladder.tsv check, one sentence */
    int files_same;         /* 1 same, 0 differ or unknown */
};
struct doc *render_compare_doc(const struct render_compare *rc);
/* One JSON line per rung, then a summary line (stdout). */
int render_compare_lines(FILE *f, const struct render_compare *rc);
/* The whole comparison as one JSON object (compare.json). */
int render_compare_json(FILE *f, const struct render_compare *rc);

/* Thinking off against on. */
struct render_think {
    const struct rundir_run *off, *on;
    const struct grader_think_line *lines;
    size_t n;
    const char *note; /* the files and build check, one sentence or two */
    int files_same;
};
struct doc *render_think_doc(const struct render_think *t);
int render_think_lines(FILE *f, const struct render_think *t);
int render_think_json(FILE *f, const struct render_think *t);

#endif
