/*
 * svg.c - the cover: the graveyard as a picture.
 *
 * One row per rung, the reference at the top; one cell per question in
 * the grid's stable order (the reference's rows, which is the question
 * file's order, so two runs' covers line up cell for cell). A row's run of
 * same-coloured cells is one rectangle: a 10 x 1,319 cover stays small.
 * The geometry is fixed here and in docs/report.md, so a test can render
 * the SVG and read a known cell's colour.
 */
#include <string.h>

#include "render.h"

#define LEFT  96 /* rung labels */
#define TOP   40 /* title */
#define ROW_H 18
#define GAP   2    /* between rows */
#define WIDTH 1000 /* the grid's width, before rounding to whole cells */

static const char *colour(unsigned cell)
{
    switch (cell) {
    case GRADER_CELL_RIGHT:
        return REPORT_MARIGOLD;
    case GRADER_CELL_WRONG:
        return REPORT_GREY;
    case GRADER_CELL_SPLIT:
        return REPORT_VIOLET;
    default:
        return REPORT_MISSING;
    }
}

/* XML text: the five entities. */
static void text(FILE *f, const char *s)
{
    for (; *s != '\0'; s++) {
        switch (*s) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&apos;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

static void legend(FILE *f, int x, int y, const char *fill, const char *what)
{
    fprintf(f,
            "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" "
            "fill=\"%s\"/><text x=\"%d\" y=\"%d\">",
            x, y, fill, x + 20, y + 12);
    text(f, what);
    fputs("</text>\n", f);
}

void render_cover(FILE *f, const char *title, const char *const *names,
                  size_t nrungs, size_t nruns, size_t nq, const uint8_t *cells)
{
    size_t cw = nq ? WIDTH / nq : 1, i, j, k;
    size_t gw, width, height, ly, gap;

    if (cw < 1)
        cw = 1;
    if (cw > 16)
        cw = 16;
    gap = cw >= 4;
    gw = cw * nq;
    width = LEFT + (gw > 460 ? gw : 460) + 16;
    if (width < 16 + 8 * strlen(title)) /* about 8 px a character */
        width = 16 + 8 * strlen(title);
    ly = TOP + nrungs * (ROW_H + GAP) + 12;
    height = ly + 30;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%zu\" "
            "height=\"%zu\" viewBox=\"0 0 %zu %zu\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
            "<text x=\"8\" y=\"24\" font-size=\"15\">",
            width, height, width, height);
    text(f, title);
    fputs("</text>\n", f);
    for (i = 0; i < nrungs; i++) {
        size_t y = TOP + i * (ROW_H + GAP);
        fprintf(f, "<text x=\"%d\" y=\"%zu\" text-anchor=\"end\">", LEFT - 8,
                y + 13);
        text(f, names[i]);
        fputs("</text>\n", f);
        for (j = 0; j < nq; j = k) {
            unsigned cell = cells[i * nq + j];
            /* cells 4 px wide or more are headstones with a 1 px gap;
             * narrower ones merge into runs of one colour */
            for (k = j + 1; gap == 0 && k < nq && cells[i * nq + k] == cell;
                 k++)
                ;
            fprintf(f,
                    "<rect x=\"%zu\" y=\"%zu\" width=\"%zu\" height=\"%d\" "
                    "fill=\"%s\"/>\n",
                    LEFT + j * cw, y, (k - j) * cw - gap, ROW_H, colour(cell));
        }
    }
    legend(f, LEFT, (int)ly, REPORT_MARIGOLD,
           nruns > 1 ? "right on every run" : "right");
    legend(f, LEFT + 150, (int)ly, REPORT_GREY,
           nruns > 1 ? "wrong on every run" : "wrong");
    if (nruns > 1)
        legend(f, LEFT + 300, (int)ly, REPORT_VIOLET, "the runs disagree");
    if (memchr(cells, GRADER_CELL_MISSING, nrungs * nq) != NULL) {
        /* a partial report: say what the white cells are */
        int x = LEFT + (nruns > 1 ? 450 : 300);
        fprintf(f,
                "<rect x=\"%d\" y=\"%zu\" width=\"13\" height=\"13\" "
                "fill=\"%s\" stroke=\"%s\"/>",
                x, ly, REPORT_MISSING, REPORT_GREY);
        fprintf(f, "<text x=\"%d\" y=\"%zu\">not answered yet</text>\n",
                x + 20, ly + 12);
    }
    fputs("</svg>\n", f);
}
