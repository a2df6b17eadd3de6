/*
 * doc_html.c - a doc as HTML, for the page's report section (doc.h,
 * page.h). Every run's text goes out through fmt_markup, as text; its
 * kind alone decides what it becomes: a rung at the head of its row
 * links to the grid's filter, an epitaph's id to its question.
 */
#include "doc.h"
#include "doc_int.h"
#include "fmt.h"

#include <ctype.h>
#include <string.h>

struct html {
    FILE *f;
    const char *svg;
    size_t svg_len;
    const char *close; /* what closes the open heading or paragraph */
    const char *align; /* the open table's alignment letters */
    enum doc_kind open;
    long row;       /* the open table's open row, -1 before the first */
    size_t col;     /* the open row's cells so far */
    int item, skip; /* an item open; the runs of the first heading */
};

/* A fragment's value: letters, digits and -_. as they are, the rest as
 * %XX (the script decodes it). */
static void fragment(FILE *f, const char *s)
{
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        if (isalnum(c) || c == '-' || c == '_' || c == '.')
            fputc(c, f);
        else
            fprintf(f, "%%%02X", c);
    }
}

/* s as text, its line ends as nl writes them (a space, or the entities
 * fmt_id writes) and, in code, a backtick as fmt_code writes it. */
static void text(FILE *f, const char *s, int ids, int code)
{
    size_t n;

    while (*s != '\0') {
        n = strcspn(s, code ? "\r\n`" : "\r\n");
        fmt_markup(f, s, n);
        s += n;
        if (*s == '\0')
            break;
        if (*s == '`')
            fputc('\'', f);
        else if (ids)
            fputs(*s == '\n' ? "&#10;" : "&#13;", f);
        else
            fputc(' ', f);
        s++;
    }
}

static void run_html(struct html *h, const struct doc_sym *r)
{
    FILE *f = h->f;

    if (h->skip)
        return;
    if (r->link == DOC_LINK_QUESTION)
        fputs("<a href=\"#q=", f);
    else if (r->link != DOC_NOLINK)
        fprintf(f, "<a href=\"#f=%s&amp;r=",
                r->link == DOC_LINK_TOMB ? "tomb" : "dead");
    if (r->link != DOC_NOLINK) {
        fragment(f, r->s);
        fputs("\">", f);
    }
    fputs(r->style & DOC_BOLD ? "<strong>" : "", f);
    fputs(r->style & DOC_TICKS ? "<code>" : "", f);
    if (r->text == DOC_OWN)
        fmt_markup(f, r->s, strlen(r->s));
    else
        text(f, r->s, r->text == DOC_ID, r->text == DOC_CODE);
    fputs(r->style & DOC_TICKS ? "</code>" : "", f);
    fputs(r->style & DOC_BOLD ? "</strong>" : "", f);
    fputs(r->link != DOC_NOLINK ? "</a>" : "", f);
}

static const char *cell_tag(const struct html *h)
{
    return h->row == 0 ? "th" : "td";
}

static void end_cell(struct html *h)
{
    if (h->col > 0)
        fprintf(h->f, "</%s>", cell_tag(h));
}

static void end_row(struct html *h)
{
    if (h->row < 0)
        return;
    end_cell(h);
    fputs(h->row == 0 ? "</tr></thead><tbody>\n" : "</tr>\n", h->f);
}

static void open_cell(struct html *h)
{
    size_t col = h->col;
    int right = col < strlen(h->align) && h->align[col] == 'r';

    end_cell(h);
    h->col++;
    fprintf(h->f, "<%s%s>", cell_tag(h), right ? " class=\"n\"" : "");
}

static void close_block(struct html *h)
{
    switch (h->open) {
    case DOC_HEADING:
    case DOC_PARA:
        fputs(h->close, h->f);
        break;
    case DOC_TABLE:
        end_row(h);
        fputs("</tbody></table></div>\n", h->f);
        break;
    case DOC_LIST:
        fputs(h->item ? "</li>\n</ul>\n" : "</ul>\n", h->f);
        break;
    default:
        break;
    }
    h->open = DOC_RUN;
    h->skip = 0;
}

static void open_block(struct html *h, const struct doc_sym *s)
{
    static const char *const close_h[] = {"</h2>\n", "</h3>\n", "</h4>\n"};
    int level = s->n > 4 ? 4 : s->n;

    close_block(h);
    h->open = s->kind;
    switch (s->kind) {
    case DOC_HEADING: /* the first level is the page's own */
        h->skip = level <= 1;
        if (!h->skip)
            fprintf(h->f, "<h%d>", level);
        h->close = h->skip ? "" : close_h[level - 2];
        break;
    case DOC_PARA:
        fputs("<p>", h->f);
        h->close = "</p>\n";
        break;
    case DOC_TABLE:
        fputs("<div class=\"tw\"><table>\n", h->f);
        h->align = s->s;
        h->row = -1;
        break;
    case DOC_LIST:
        fputs("<ul>\n", h->f);
        h->item = 0;
        break;
    case DOC_IMAGE:
        if (s->n && h->svg != NULL) {
            fputs("<figure class=\"pic\">", h->f);
            fwrite(h->svg, 1, h->svg_len, h->f);
            fputs("</figure>\n", h->f);
        }
        h->open = DOC_RUN;
        break;
    default:
        break;
    }
}

/* Symbols [from, to) of d into h. */
static void range(struct html *h, const struct doc *d, size_t from, size_t to)
{
    size_t i;

    for (i = from; i < to && i < d->n; i++) {
        const struct doc_sym *s = &d->sym[i];
        switch (s->kind) {
        case DOC_ROW:
            end_row(h);
            h->row++;
            h->col = 0;
            fputs(h->row == 0 ? "<thead><tr>" : "<tr>", h->f);
            break;
        case DOC_CELL:
            open_cell(h);
            break;
        case DOC_ITEM:
            fputs(h->item ? "</li>\n<li>" : "<li>", h->f);
            h->item = 1;
            break;
        case DOC_RUN:
            run_html(h, s);
            break;
        default:
            open_block(h, s);
            break;
        }
    }
    close_block(h);
}

void doc_html(FILE *f, const struct doc *d, const char *svg, size_t svg_len)
{
    struct html h = {f, svg, svg_len, "", "", DOC_RUN, -1, 0, 0, 0};

    if (d->top_end > d->top_begin) { /* the top is the page's, above */
        range(&h, d, 0, d->top_begin);
        range(&h, d, d->top_end, d->n);
    } else {
        range(&h, d, 0, d->n);
    }
}

void doc_html_top(FILE *f, const struct doc *d)
{
    struct html h = {f, NULL, 0, "", "", DOC_RUN, -1, 0, 0, 0};

    if (d->top_end <= d->top_begin)
        return;
    fputs("<section id=\"decide\">\n", f);
    range(&h, d, d->top_begin, d->top_end);
    fputs("</section>\n", f);
}
