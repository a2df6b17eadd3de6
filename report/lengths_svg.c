/*
 * lengths_svg.c - lengths.svg: a run of long items as a picture (render.h,
 * docs/report.md). A row per rung, a column per prompt length; each cell
 * is coloured by the rung's verdict against the reference at that length
 * (grader/lengths.h) and names its accuracy, its dead and the verdict's
 * glyph; a thick frame marks each rung's first length shown worse, its
 * cliff. The colours carry no meaning the glyphs do not (the page's
 * verdict marks: the same glyphs, docs/page.md).
 */
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "render.h"

#define LEFT   140 /* rung names */
#define TOP    64  /* title and the lengths */
#define CELL_W 150
#define CELL_H 40
#define BOTTOM 70 /* the legend */

struct look {
    const char *fill, *glyph, *word;
};

static struct look look_of(int kind, int ref)
{
    if (ref)
        return (struct look){"#ffffff", "", "the reference"};
    switch (kind) {
    case GRADER_VERDICT_EQUIVALENT:
        return (struct look){"#cfe8cf", "\xe2\x89\x88", "equivalent"};
    case GRADER_VERDICT_WORSE:
        return (struct look){"#f4c7c2", "\xe2\x96\xbc", "worse"};
    case GRADER_VERDICT_BETTER:
        return (struct look){"#cfe0f5", "\xe2\x96\xb2", "better"};
    default:
        return (struct look){"#ececec", "?", "cannot tell"};
    }
}

static void text(FILE *f, const char *s)
{
    fmt_markup(f, s, strlen(s));
}

static void cell(FILE *f, const struct grader_figures *x, size_t i, size_t k,
                 int cliff)
{
    struct look lk = look_of(x->verdict.kind, i == 0);
    double x0 = LEFT + (double)k * CELL_W, y0 = TOP + (double)i * CELL_H;
    char a[FMT_SIZE], b[FMT_SIZE];

    fprintf(f,
            "<rect data-rung=\"%zu\" data-length=\"%zu\" data-verdict=\"%s\" "
            "x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"%s\" "
            "stroke=\"%s\" stroke-width=\"%d\"/>\n",
            i, k, lk.word, x0 + 2, y0 + 2, CELL_W - 4, CELL_H - 4, lk.fill,
            cliff ? REPORT_DEAD : "#d9dbdf", cliff ? 3 : 1);
    if (x->line->sum.n == 0) {
        fprintf(f,
                "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%s"
                "</text>\n",
                x0 + CELL_W / 2.0, y0 + 25, FMT_DASH);
        return;
    }
    fprintf(f,
            "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%s%s%s %%"
            "</text>\n",
            x0 + CELL_W / 2.0, y0 + 18, lk.glyph, lk.glyph[0] ? " " : "",
            fmt_fixed(a, 100.0 * x->acc, 1));
    if (i > 0)
        fprintf(f,
                "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" "
                "font-size=\"10\" fill=\"#5b5f66\">%s dead</text>\n",
                x0 + CELL_W / 2.0, y0 + 31,
                fmt_count(b, (long long)x->line->dead));
}

static void legend(FILE *f, double y)
{
    static const int kinds[] = {GRADER_VERDICT_EQUIVALENT,
                                GRADER_VERDICT_WORSE, GRADER_VERDICT_BETTER,
                                GRADER_VERDICT_CANNOT_TELL};
    double x = LEFT;

    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        struct look lk = look_of(kinds[i], 0);
        fprintf(f,
                "<rect x=\"%.0f\" y=\"%.0f\" width=\"14\" height=\"14\" "
                "fill=\"%s\" stroke=\"#d9dbdf\"/><text x=\"%.0f\" "
                "y=\"%.0f\">%s %s</text>\n",
                x, y, lk.fill, x + 20, y + 12, lk.glyph, lk.word);
        x += 30 + 8.0 * (double)(strlen(lk.word) + 2);
    }
    fprintf(f,
            "<rect x=\"%.0f\" y=\"%.0f\" width=\"14\" height=\"14\" "
            "fill=\"none\" stroke=\"%s\" stroke-width=\"3\"/><text "
            "x=\"%.0f\" y=\"%.0f\">the first length shown worse</text>\n",
            x, y, REPORT_DEAD, x + 20, y + 12);
}

void render_lengths(FILE *f, const char *title, const struct grader_ladder *l)
{
    const struct grader_lengths *g = l->lengths;
    size_t i, k, nl = g ? g->nlengths : 0, nr = g ? g->nrungs : 0;
    double w = LEFT + (double)nl * CELL_W + 20;
    double h = TOP + (double)nr * CELL_H + BOTTOM;
    char a[FMT_SIZE], m[FMT_SIZE];

    if (w < 900)
        w = 900;
    fmt_svg_open(f, w, h, 8, 22, title);
    if (g == NULL || nl == 0) {
        fputs("<text x=\"8\" y=\"50\">not a run of long items</text>\n"
              "</svg>\n",
              f);
        return;
    }
    fprintf(f,
            "<text x=\"8\" y=\"42\" fill=\"#5b5f66\">each rung against %s at "
            "the same length: accuracy, dead, and the verdict at "
            "\xc2\xb1%s points</text>\n",
            l->chain.lines[0].rung->name, fmt_margin(m, g->margin));
    for (k = 0; k < nl; k++)
        fprintf(f,
                "<text x=\"%.0f\" y=\"%d\" text-anchor=\"middle\" "
                "font-weight=\"bold\">%s tokens</text>\n",
                LEFT + (double)k * CELL_W + CELL_W / 2.0, TOP - 6,
                fmt_count(a, g->lengths[k]));
    for (i = 0; i < nr; i++) {
        fprintf(f, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\">", LEFT - 8,
                TOP + (double)i * CELL_H + 24);
        text(f, l->chain.lines[i].rung->name);
        fputs("</text>\n", f);
        for (k = 0; k < nl; k++)
            cell(f, &g->per[k].rungs[i], i, k, g->first_worse[i] == (long)k);
    }
    legend(f, TOP + (double)nr * CELL_H + 24);
    fputs("</svg>\n", f);
}
