/*
 * doc.c - the report's pieces, stored (doc.h); doc_md.c and doc_html.c
 * write them.
 *
 * A doc is a flat sequence of symbols, as git's diff.c buffers its
 * emitted symbols: a block opens with its symbol and holds the runs that
 * follow it. The strings live in a few large chunks, not one allocation
 * each: a report of 1,319 questions holds thousands of runs.
 */
#include "doc.h"
#include "doc_int.h"

#include <stdarg.h>
#include <string.h>

#include "../grader/grader.h"

#define CHUNK 65536

struct chunk {
    struct chunk *next;
    size_t used, size;
    char text[];
};

struct doc *doc_new(void)
{
    struct doc *d = grader_alloc_malloc(sizeof(*d));

    if (d != NULL)
        memset(d, 0, sizeof(*d));
    return d;
}

void doc_free(struct doc *d)
{
    struct chunk *c, *next;

    if (d == NULL)
        return;
    for (c = d->chunks; c != NULL; c = next) {
        next = c->next;
        grader_alloc_free(c);
    }
    grader_alloc_free(d->sym);
    grader_alloc_free(d);
}

int doc_ok(const struct doc *d)
{
    return d != NULL && !d->nomem;
}

void doc_fail(struct doc *d)
{
    d->nomem = 1;
}

/* Room for len bytes and a NUL in the chunks; NULL when out of memory. */
static char *room(struct doc *d, size_t len)
{
    struct chunk *c = d->chunks;
    char *p;

    if (c == NULL || c->size - c->used < len + 1) {
        size_t size = len + 1 > CHUNK ? len + 1 : CHUNK;
        c = grader_alloc_malloc(sizeof(*c) + size);
        if (c == NULL) {
            d->nomem = 1;
            return NULL;
        }
        c->size = size;
        c->used = 0;
        c->next = d->chunks;
        d->chunks = c;
    }
    p = c->text + c->used;
    c->used += len + 1;
    return p;
}

static const char *keep(struct doc *d, const char *s)
{
    size_t len = strlen(s);
    char *p = room(d, len);

    if (p != NULL)
        memcpy(p, s, len + 1);
    return p;
}

/* A new symbol at the end, zeroed; NULL when out of memory (or after). */
static struct doc_sym *add(struct doc *d, enum doc_kind kind)
{
    struct doc_sym *s;

    if (d->nomem)
        return NULL;
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 256;
        s = grader_alloc_malloc(cap * sizeof(*s));
        if (s == NULL) {
            d->nomem = 1;
            return NULL;
        }
        if (d->n > 0)
            memcpy(s, d->sym, d->n * sizeof(*s));
        grader_alloc_free(d->sym);
        d->sym = s;
        d->cap = cap;
    }
    s = &d->sym[d->n++];
    memset(s, 0, sizeof(*s));
    s->kind = kind;
    return s;
}

static void block(struct doc *d, enum doc_kind kind, int n)
{
    struct doc_sym *s = add(d, kind);

    if (s != NULL)
        s->n = n;
}

void doc_heading(struct doc *d, int level)
{
    block(d, DOC_HEADING, level);
}

void doc_top_begin(struct doc *d)
{
    d->top_begin = d->n;
}

void doc_top_end(struct doc *d)
{
    d->top_end = d->n;
}

void doc_para(struct doc *d)
{
    block(d, DOC_PARA, 0);
}

void doc_para_last(struct doc *d)
{
    block(d, DOC_PARA, 1);
}

void doc_table(struct doc *d, const char *align)
{
    struct doc_sym *s = add(d, DOC_TABLE);

    if (s != NULL && (s->s = keep(d, align)) == NULL)
        d->n--;
}

void doc_row(struct doc *d)
{
    block(d, DOC_ROW, 0);
}

void doc_cell(struct doc *d)
{
    block(d, DOC_CELL, 0);
}

void doc_list(struct doc *d)
{
    block(d, DOC_LIST, 0);
}

void doc_item(struct doc *d)
{
    block(d, DOC_ITEM, 0);
}

void doc_image(struct doc *d, const char *alt, const char *src, int inline_svg)
{
    struct doc_sym *s = add(d, DOC_IMAGE);

    if (s == NULL)
        return;
    s->n = inline_svg;
    s->s = keep(d, alt);
    s->target = keep(d, src);
    if (s->s == NULL || s->target == NULL)
        d->n--;
}

/* A run of s (copied), its text kind, its Markdown cut, style and link. */
static void run(struct doc *d, const char *s, enum doc_text text, size_t cap,
                unsigned style, enum doc_link link)
{
    struct doc_sym *r = add(d, DOC_RUN);

    if (r == NULL)
        return;
    r->text = text;
    r->cap = cap;
    r->style = style;
    r->link = link;
    if ((r->s = keep(d, s != NULL ? s : "")) == NULL)
        d->n--;
}

/* A printf-style run: formatted straight into the chunks. */
static void vrun(struct doc *d, unsigned style, const char *fmt, va_list ap)
{
    struct doc_sym *r;
    va_list again;
    char *p;
    int len;

    va_copy(again, ap);
    len = vsnprintf(NULL, 0, fmt, ap);
    if (len < 0 || d->nomem || (p = room(d, (size_t)len)) == NULL) {
        va_end(again);
        return;
    }
    vsnprintf(p, (size_t)len + 1, fmt, again);
    va_end(again);
    if ((r = add(d, DOC_RUN)) != NULL) {
        r->text = DOC_OWN;
        r->style = style;
        r->s = p;
    }
}

void doc_raw(struct doc *d, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vrun(d, 0, fmt, ap);
    va_end(ap);
}

void doc_cellf(struct doc *d, const char *fmt, ...)
{
    va_list ap;

    doc_cell(d);
    va_start(ap, fmt);
    vrun(d, 0, fmt, ap);
    va_end(ap);
}

void doc_bold(struct doc *d, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vrun(d, DOC_BOLD, fmt, ap);
    va_end(ap);
}

void doc_tick(struct doc *d, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vrun(d, DOC_TICKS, fmt, ap);
    va_end(ap);
}

void doc_text(struct doc *d, const char *s, size_t cap)
{
    run(d, s, DOC_OUTSIDE, cap, 0, DOC_NOLINK);
}

void doc_celltext(struct doc *d, const char *s, size_t cap)
{
    run(d, s, DOC_CELLTEXT, cap, 0, DOC_NOLINK);
}

void doc_code(struct doc *d, const char *s, size_t cap)
{
    run(d, s, DOC_CODE, cap, DOC_TICKS, DOC_NOLINK);
}

void doc_rung(struct doc *d, const char *name, int tomb)
{
    run(d, name, DOC_OWN, 0, 0, tomb ? DOC_LINK_TOMB : DOC_LINK_DEAD);
}

void doc_question(struct doc *d, const char *id, size_t cap)
{
    run(d, id, DOC_ID, cap, DOC_BOLD, DOC_LINK_QUESTION);
}
