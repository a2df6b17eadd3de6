/*
 * doc.h - a report as typed pieces: REPORT.md, COMPARE.md and THINK.md
 * are built once as a sequence of symbols (headings, paragraphs, tables,
 * lists, pictures, and the runs of text inside them), then written twice:
 * as Markdown (doc_md, the .md file) and as HTML (doc_html, the page's
 * lower half), as git's diff.c emits symbols that its output modes render.
 *
 * A run says what its text is, not how it looks: the program's own words
 * and figures, text from outside (a name, a GPU, a label), a question id,
 * a path in a code span. Each renderer escapes it by its own rules, so
 * the page never reads Markdown back, and a link (a rung's row, an
 * epitaph's question) comes from the run's kind and its target, never
 * from the words around it.
 *
 * Building never fails part way for the caller: an allocation that fails
 * marks the doc, every later call does nothing, and doc_ok says so. The
 * doc allocates through the grader's hooks (alloc.h), so that the chaos
 * test fails its allocations in turn.
 */
#ifndef REPORT_DOC_H
#define REPORT_DOC_H

#include <stddef.h>
#include <stdio.h>

struct doc;

/* A new, empty doc; NULL when out of memory. */
struct doc *doc_new(void);
void doc_free(struct doc *d);
/* 1 while every piece so far was stored; 0 after a failed allocation. */
int doc_ok(const struct doc *d);
/* Mark d out of memory (a caller's own allocation for it failed). */
void doc_fail(struct doc *d);

/* ---- blocks: each closes the one before ---------------------------------
 * Runs then go into the heading, paragraph, cell or item last opened. */
void doc_heading(struct doc *d, int level);
void doc_para(struct doc *d);
/* A paragraph that ends the file with one line end, not a blank line. */
void doc_para_last(struct doc *d);
/* A table; align has one letter a column: 'l' left, 'r' right (figures).
 * Its first row is its header. An upper-case letter ('L', 'R') is a
 * column that folds on the page: a line in its row's drawer, opened from
 * the row's first cell, so that a wide table fits 1280 px without a
 * scrollbar; the Markdown keeps it as a column. */
void doc_table(struct doc *d, const char *align);
void doc_row(struct doc *d);
void doc_cell(struct doc *d);
void doc_list(struct doc *d);
void doc_item(struct doc *d);
/* A picture beside the file (alt, src). inline_svg: the page shows the
 * svg it is given in its place; otherwise the page leaves it out (the
 * grid stands for the cover). */
void doc_image(struct doc *d, const char *alt, const char *src,
               int inline_svg);

/* The page's top: the blocks between doc_top_begin and doc_top_end (the
 * decision block, "Which file?") go above the page's grid, written by
 * doc_html_top; doc_html leaves them out, and doc_md writes them where
 * they stand. Once per doc; each closes the block before it. */
void doc_top_begin(struct doc *d);
void doc_top_end(struct doc *d);

/* ---- runs ----------------------------------------------------------------
 */

/* The program's own words and figures, printf-style: written as they are
 * in the Markdown, as text in the HTML. */
void doc_raw(struct doc *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A new cell of the program's own words and figures. */
void doc_cellf(struct doc *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The same in bold. */
void doc_bold(struct doc *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The program's own words in a code span (a command, a file name). */
void doc_tick(struct doc *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Text from outside, shown as written (fmt_text, cut at cap bytes of
 * Markdown as the report has always cut it). */
void doc_text(struct doc *d, const char *s, size_t cap);
/* Text from outside in a table cell, only '|' escaped (fmt_cell). */
void doc_celltext(struct doc *d, const char *s, size_t cap);
/* Text from outside in a code span (fmt_code). */
void doc_code(struct doc *d, const char *s, size_t cap);
/* A rung's name at the head of its row: on the page, a link to the
 * grid's filter of its deaths (tomb: of its first deaths, its
 * tombstones). */
void doc_rung(struct doc *d, const char *name, int tomb);
/* A question id in bold, at the head of its epitaph: on the page, a link
 * to that question (#q=ID). fmt_id's Markdown, cut at cap. */
void doc_question(struct doc *d, const char *id, size_t cap);

/* ---- the two renderings --------------------------------------------------
 */

/* The Markdown file, byte for byte what the reports have always written. */
void doc_md(FILE *f, const struct doc *d);
/* A picture the page shows in its place: an image whose src is src
 * becomes text[0..len) (an SVG). */
struct doc_svg {
    const char *src;
    const char *text;
    size_t len;
};

/* The HTML of the page's report section: the first heading left out (the
 * page has its own), a picture marked inline_svg replaced by the one of
 * svgs[0..nsvgs) with its src (when there is one), the others left out. */
void doc_html(FILE *f, const struct doc *d, const struct doc_svg *svgs,
              size_t nsvgs);
/* The HTML of the page's top (doc_top_begin) in a <section
 * id="decide">; nothing when the doc has none. */
void doc_html_top(FILE *f, const struct doc *d);

#endif
