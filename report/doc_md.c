/*
 * doc_md.c - a doc as Markdown (doc.h): REPORT.md, COMPARE.md and
 * THINK.md, byte for byte as md.c once printed them. Outside text is
 * escaped here by fmt.h's rules, at the cut each run carries.
 */
#include "doc.h"
#include "doc_int.h"
#include "fmt.h"

/* The largest cut any report asks for (a canary's rows path: 4,200). */
#define MD_CUT 8192

struct md {
    FILE *f;
    enum doc_kind open; /* the open block: DOC_PARA (or a heading), table,
                           list, or DOC_RUN for none */
    const char *end;    /* what closes a heading or paragraph */
    const char *align;  /* the open table's */
    long row;           /* its open row, -1 before the first */
    int cell, item;     /* a cell, an item open */
};

static void run_md(FILE *f, const struct doc_sym *r)
{
    char buf[MD_CUT];
    size_t cap = r->cap < sizeof(buf) ? r->cap : sizeof(buf);
    const char *s = r->s;

    switch (r->text) {
    case DOC_OUTSIDE:
        fmt_text(buf, cap, r->s);
        s = buf;
        break;
    case DOC_ID:
        fmt_id(buf, cap, r->s);
        s = buf;
        break;
    case DOC_CELLTEXT:
        fmt_cell(buf, cap, r->s);
        s = buf;
        break;
    case DOC_CODE:
        fmt_code(buf, cap, r->s);
        s = buf;
        break;
    case DOC_OWN:
        break;
    }
    if (r->style & DOC_BOLD)
        fputs("**", f);
    if (r->style & DOC_TICKS)
        fputc('`', f);
    fputs(s, f);
    if (r->style & DOC_TICKS)
        fputc('`', f);
    if (r->style & DOC_BOLD)
        fputs("**", f);
}

/* "|---|---:|" from the table's alignment letters. */
static void rule(FILE *f, const char *align)
{
    fputc('|', f);
    for (; *align != '\0'; align++)
        fputs(*align == 'r' || *align == 'R' ? "---:|" : "---|", f);
    fputc('\n', f);
}

static void end_row(struct md *m)
{
    if (m->row < 0)
        return;
    fputs(m->cell ? " |\n" : "\n", m->f);
    m->cell = 0;
    if (m->row == 0)
        rule(m->f, m->align);
}

/* Close the open block: every block is followed by a blank line. */
static void close_block(struct md *m)
{
    switch (m->open) {
    case DOC_HEADING:
    case DOC_PARA:
        fputs(m->end, m->f);
        break;
    case DOC_TABLE:
        end_row(m);
        fputc('\n', m->f);
        break;
    case DOC_LIST:
        fputs(m->item ? "\n\n" : "\n", m->f);
        break;
    default:
        break;
    }
    m->open = DOC_RUN;
}

static void open_block(struct md *m, const struct doc_sym *s)
{
    int i;

    close_block(m);
    m->open = s->kind;
    switch (s->kind) {
    case DOC_HEADING:
        for (i = 0; i < s->n; i++)
            fputc('#', m->f);
        fputc(' ', m->f);
        m->end = "\n\n";
        break;
    case DOC_PARA:
        m->end = s->n ? "\n" : "\n\n";
        break;
    case DOC_TABLE:
        m->align = s->s;
        m->row = -1;
        m->cell = 0;
        break;
    case DOC_LIST:
        m->item = 0;
        break;
    case DOC_IMAGE:
        fprintf(m->f, "![%s](%s)\n\n", s->s, s->target);
        m->open = DOC_RUN;
        break;
    default:
        break;
    }
}

void doc_md(FILE *f, const struct doc *d)
{
    struct md m = {f, DOC_RUN, "", "", -1, 0, 0};
    size_t i;

    for (i = 0; i < d->n; i++) {
        const struct doc_sym *s = &d->sym[i];
        switch (s->kind) {
        case DOC_ROW:
            end_row(&m);
            m.row++;
            fputc('|', f);
            break;
        case DOC_CELL:
            fputs(m.cell ? " | " : " ", f);
            m.cell = 1;
            break;
        case DOC_ITEM:
            fputs(m.item ? "\n- " : "- ", f);
            m.item = 1;
            break;
        case DOC_RUN:
            run_md(f, s);
            break;
        default:
            open_block(&m, s);
            break;
        }
    }
    close_block(&m);
}
