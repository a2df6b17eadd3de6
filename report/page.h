/*
 * page.h - the graveyard page: REPORT.html, COMPARE.html and THINK.html,
 * one self-contained file each (HTML, CSS and JavaScript inline, no
 * request of any kind), to open every answer behind a grid cell.
 *
 * The page shows what the grader computed and nothing it computes itself:
 * each cell's facts (bury.h's grader_bury_cells: right, dead, ghost,
 * tombstone, rose again, cut off, looped, error), the overlay grid
 * (compare.h) and the report's own pieces (doc.h), the very doc REPORT.md
 * was written from, here as HTML (doc_html), so that its tables are
 * REPORT.md's, figure for figure. The script (report/assets/page.js) only
 * draws, filters and sorts.
 *
 * Every string from outside (replies, question texts, ids, names) is
 * written as JSON with '<', '>' and '&' escaped so that nothing in it can
 * close the block that holds it; that JSON is gzipped (zlib) and written
 * in base64 (or, plain, as it is), and the script puts every string on the
 * page as text, never as markup. A Content-Security-Policy allows only the
 * page's own script and style (by hash) and no request at all.
 * docs/page.md describes the page and the data's format.
 */
#ifndef REPORT_PAGE_H
#define REPORT_PAGE_H

#include <stdint.h>
#include <stdio.h>

#include "../grader/grader.h"

struct doc;
struct doc_svg;

/* A duel (a ladder config's "duels": two rungs of one ladder, A against
 * B directly; docs/page.md, "Duels"): the two rungs by their names on the
 * grid's rows, and what the grader said of them, in words, when the caller
 * has it. The page lists the questions A and B disagree on (one right,
 * the other wrong), from the cells' facts; it computes no figure. */
struct page_duel {
    const char *a, *b;   /* rung names, as names[] holds them */
    const char *verdict; /* the verdict in words; NULL: none shown */
    const char *counts;  /* the grader's counts in words ("A right only
                            on 7, B on 3"); NULL: the page says how many
                            questions its list holds each way */
};

/* One run's rungs, in the grid's row order: rungs[i] read with
 * GRADER_READ_KEEP, facts[i * nq + q] its cells (grader_bury_cells). */
struct page_run {
    const char *label;
    const struct grader_rung *const *rungs;
    const uint16_t *facts;
};

struct page {
    const char *kind;     /* "report", "compare" or "think" */
    const char *title;    /* the page's heading */
    const char *subtitle; /* one line: the run's settings; may be NULL */
    const struct grader_qset *qs;
    size_t nq;                /* grader_qset_count(qs) */
    const char *const *names; /* the grid's rows: rung names */
    const int *side;          /* per row: 1 for a side rung; may be NULL */
    size_t nrows;
    const struct page_run *runs;
    size_t nruns;
    const uint32_t *order; /* the grid's columns, ncols question indexes */
    size_t ncols;
    /* the overlay grid: cells[i * ncols + j] (enum grader_cell) and its
     * marks (enum grader_mark) for row i and question order[j] */
    const uint8_t *cells, *marks;
    const char *const *qtext;   /* per question index, NULL unknown; the
                                   array itself may be NULL */
    const char *qnote;          /* where the question texts came from */
    const struct doc *doc;      /* the report, shown below; may be NULL */
    const struct doc_svg *svgs; /* the pictures the doc shows inline
                                   (pareto.svg, lengths.svg), by src */
    size_t nsvgs;
    int plain; /* 1: the data block as JSON; 0 (the default): gzipped and
                  in base64, a fifth of the bytes, which the browser reads
                  three times as fast (the script unpacks it) */
    /* the split figures (probs.h), rung i the grid's row i; NULL: none,
     * and the data block is what it was without them */
    const struct grader_probs_ladder *probs;
    /* per row: the rung's verdict in words at the margin ("cannot tell at
     * \xc2\xb12 points"); NULL, or a NULL entry, for none (the reference,
     * a comparison) */
    const char *const *verdicts;
    /* the duels, on the first run's rows; a pair naming a rung not on
     * the grid is left out. NULL, 0: none, and the data block is what it
     * was without them */
    const struct page_duel *duels;
    size_t nduels;
};

/* Render the whole page. 0, or -1 out of memory. */
int render_page(FILE *f, const struct page *p);

/* A JSON string safe inside a <script> data block: '<', '>', '&', U+2028
 * and U+2029 as \u escapes, control characters escaped, bytes that are
 * not UTF-8 as U+FFFD. */
void page_json_string(FILE *f, const char *s, size_t len);

/* The script and style, and their CSP hashes ("sha256-..."), embedded by
 * the build from report/assets/ (assets/embed.c). */
extern const char page_js[], page_css[];
extern const char page_js_hash[], page_css_hash[];

#endif
