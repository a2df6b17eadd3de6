/*
 * doc_int.h - a doc's symbols, for doc.c, which stores them, and its two
 * renderers (doc_md.c, doc_html.c); callers build docs through doc.h only.
 */
#ifndef REPORT_DOC_INT_H
#define REPORT_DOC_INT_H

#include <stddef.h>

enum doc_kind {
    DOC_HEADING, /* n: its level */
    DOC_PARA,    /* n: 1 for the file's last, one line end after it */
    DOC_TABLE,   /* s: the alignment letters */
    DOC_ROW,     /* the table's first is its header */
    DOC_CELL,
    DOC_LIST,
    DOC_ITEM,
    DOC_IMAGE, /* s: alt, target: src, n: 1 inline_svg */
    DOC_RUN
};

/* What a run's text is, and so how each renderer escapes it. */
enum doc_text {
    DOC_OWN,      /* the program's words: Markdown as is */
    DOC_OUTSIDE,  /* fmt_text */
    DOC_ID,       /* fmt_id */
    DOC_CELLTEXT, /* fmt_cell */
    DOC_CODE      /* fmt_code */
};

enum doc_link { DOC_NOLINK, DOC_LINK_DEAD, DOC_LINK_TOMB, DOC_LINK_QUESTION };

#define DOC_BOLD  1u
#define DOC_TICKS 2u /* a code span */

struct doc_sym {
    enum doc_kind kind;
    enum doc_text text;
    enum doc_link link; /* the target is s itself */
    unsigned style;
    int n;
    size_t cap;         /* the Markdown's cut (fmt.h), for outside text */
    const char *s;      /* in the doc's chunks */
    const char *target; /* an image's src */
};

struct chunk;

struct doc {
    struct doc_sym *sym;
    size_t n, cap;
    struct chunk *chunks;
    int nomem;
    /* the page's top: sym[top_begin..top_end), both 0 when none */
    size_t top_begin, top_end;
};

#endif
