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
    const struct doc_svg *svgs;
    size_t nsvgs;
    const char *close; /* what closes the open heading or paragraph */
    const char *align; /* the open table's alignment letters */
    enum doc_kind open;
    long row;       /* the open table's open row, -1 before the first */
    size_t col;     /* the open row's cells so far */
    int item, skip; /* an item open; the runs of the first heading */
    /* a table with folding columns: its header row's symbols, whose
     * cells name the drawer's lines; 1 when the open row is written whole
     * (fold_row) */
    size_t head_from, head_to;
    int folding, row_done;
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
    if (h->row < 0 || h->row_done)
        return;
    end_cell(h);
    fputs(h->row == 0 ? "</tr></thead><tbody>\n" : "</tr>\n", h->f);
}

static void open_cell(struct html *h)
{
    size_t col = h->col;
    int right = col < strlen(h->align) && tolower(h->align[col]) == 'r';

    end_cell(h);
    h->col++;
    fprintf(h->f, "<%s%s>", cell_tag(h), right ? " class=\"n\"" : "");
}

/* ---- folding columns ------------------------------------------------------
 * A table's column whose alignment letter is upper-case ('R', 'L') folds
 * on the page: its header and its cells are not columns but lines in the
 * row's drawer, a row of its own under it, shown when the row's fold
 * (a <details> before its first cell's text) is open. The CSS opens it
 * (tr:has(details[open]) + tr.drawer), so it works without the script,
 * and a wide table fits the page without a scrollbar. The Markdown keeps
 * every column. */

static int folds(const char *align, size_t col)
{
    return col < strlen(align) && isupper((unsigned char)align[col]);
}

/* The symbols of cell col of the row [from, to): its runs [*a, *b). */
static int cell_runs(const struct doc *d, size_t from, size_t to, size_t col,
                     size_t *a, size_t *b)
{
    size_t i, k = 0;

    for (i = from; i < to; i++)
        if (d->sym[i].kind == DOC_CELL && k++ == col) {
            for (*a = *b = i + 1; *b < to && d->sym[*b].kind == DOC_RUN;)
                ++*b;
            return 1;
        }
    return 0;
}

static void runs(struct html *h, const struct doc *d, size_t a, size_t b)
{
    for (; a < b; a++)
        run_html(h, &d->sym[a]);
}

/* The row [from, to) of a folding table, written whole: its columns that
 * stay, then (a body row) its drawer. */
static void fold_row(struct html *h, const struct doc *d, size_t from,
                     size_t to)
{
    size_t ncol = 0, shown = 0, col, a, b, ha, hb;
    int head = h->row == 0;

    for (size_t i = from; i < to; i++)
        ncol += d->sym[i].kind == DOC_CELL;
    if (head) {
        h->head_from = from;
        h->head_to = to;
    }
    fputs(head ? "<thead><tr>" : "<tr>", h->f);
    for (col = 0; col < ncol; col++) {
        if (folds(h->align, col) || !cell_runs(d, from, to, col, &a, &b))
            continue;
        shown++;
        fprintf(h->f, "<%s%s>", head ? "th" : "td",
                tolower(h->align[col]) == 'r' ? " class=\"n\"" : "");
        if (col == 0 && !head)
            fputs("<details class=\"fold\"><summary title=\"the row's "
                  "other figures\" aria-label=\"the row's other figures\">"
                  "</summary></details>",
                  h->f);
        runs(h, d, a, b);
        fprintf(h->f, "</%s>", head ? "th" : "td");
    }
    fputs(head ? "</tr></thead><tbody>\n" : "</tr>\n", h->f);
    if (!head) {
        fprintf(h->f, "<tr class=\"drawer\"><td colspan=\"%zu\"><dl>", shown);
        for (col = 0; col < ncol; col++) {
            if (!folds(h->align, col) || !cell_runs(d, from, to, col, &a, &b))
                continue;
            fputs("<div><dt>", h->f);
            if (cell_runs(d, h->head_from, h->head_to, col, &ha, &hb))
                runs(h, d, ha, hb);
            fputs("</dt><dd>", h->f);
            runs(h, d, a, b);
            fputs("</dd></div>", h->f);
        }
        fputs("</dl></td></tr>\n", h->f);
    }
    h->row_done = 1;
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
        h->align = s->s;
        h->row = -1;
        h->row_done = 0;
        h->folding = strpbrk(s->s, "LR") != NULL;
        fputs(h->folding ? "<div class=\"tw\"><table class=\"folds\">\n"
                         : "<div class=\"tw\"><table>\n",
              h->f);
        break;
    case DOC_LIST:
        fputs("<ul>\n", h->f);
        h->item = 0;
        break;
    case DOC_IMAGE:
        for (size_t k = 0; s->n && k < h->nsvgs; k++)
            if (strcmp(h->svgs[k].src, s->target) == 0 &&
                h->svgs[k].text != NULL) {
                fputs("<figure class=\"pic\">", h->f);
                fwrite(h->svgs[k].text, 1, h->svgs[k].len, h->f);
                fputs("</figure>\n", h->f);
                break;
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
            h->row_done = 0;
            if (h->folding) { /* the row whole, to its last run */
                size_t e = i + 1;
                while (
                    e < to && e < d->n &&
                    (d->sym[e].kind == DOC_CELL || d->sym[e].kind == DOC_RUN))
                    e++;
                fold_row(h, d, i + 1, e);
                i = e - 1;
                break;
            }
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

void doc_html(FILE *f, const struct doc *d, const struct doc_svg *svgs,
              size_t nsvgs)
{
    struct html h = {.f = f,
                     .svgs = svgs,
                     .nsvgs = nsvgs,
                     .close = "",
                     .align = "",
                     .open = DOC_RUN,
                     .row = -1};

    if (d->top_end > d->top_begin) { /* the top is the page's, above */
        range(&h, d, 0, d->top_begin);
        range(&h, d, d->top_end, d->n);
    } else {
        range(&h, d, 0, d->n);
    }
}

void doc_html_top(FILE *f, const struct doc *d)
{
    struct html h = {
        .f = f, .close = "", .align = "", .open = DOC_RUN, .row = -1};

    if (d->top_end <= d->top_begin)
        return;
    fputs("<section id=\"decide\">\n", f);
    range(&h, d, d->top_begin, d->top_end);
    fputs("</section>\n", f);
}
