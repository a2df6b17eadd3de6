/*
 * mdhtml.h - the reports' Markdown as HTML, for the page (page.h).
 */
#ifndef REPORT_MDHTML_H
#define REPORT_MDHTML_H

#include <stddef.h>
#include <stdio.h>

/* Markdown of the reports' own subset (headings, paragraphs, tables,
 * bullets, images, **bold**, `code`, backslash escapes and entities) as
 * HTML. A table row whose first cell is a rung in names links to the
 * grid's filter of its deaths (#f=dead&r=NAME; under a "First deaths"
 * heading, its tombstones); a bullet that opens with a bold question id
 * links to that question (#q=ID, the id read back from its Markdown as
 * fmt_id wrote it, percent-encoded). The first-level heading is left out (the page
 * has its own), the image named image is replaced by svg, any other image
 * is left out (the grid stands for the cover). */
void render_md_html(FILE *f, const char *md, size_t len,
                    const char *const *names, size_t nnames, const char *image,
                    const char *svg, size_t svg_len);

#endif
