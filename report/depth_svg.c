/*
 * depth_svg.c - depth.svg: where in the prompt each rung lost its needles,
 * as a picture (render.h, docs/longctx.md). A row per rung (per rung and
 * length when the run has several lengths), a column per tenth of needle
 * depth; each cell names how many of the questions the reference answered
 * right there the rung lost (dead) of those it answered, and is shaded by
 * that share from pale to the cover's dead dark, one hue, so the shade
 * reads the same to every eye and the number says it anyway. A cell with
 * nothing to count (no needle sat there at that length, or the rung
 * answered none of them) is drawn empty: white, dashed, no number. Every
 * figure is grader/lengths.h's. Rungs with no long row, and lengths with
 * no needle (common words only), have no row; so at most
 * (GRADER_MAX_RUNGS - 1) x GRADER_MAX_LENGTHS rows of ten cells.
 */
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "render.h"

#define LEFT    130 /* rung names */
#define LEN_W   110 /* the lengths, when there are several */
#define TOP     86  /* title, caption and the bins */
#define CELL_W  88
#define CELL_H  28
#define BOTTOM  56 /* the legend */
#define NSHADES 5

/* The shades, pale to dark: none lost, under a quarter, under a half,
 * under three quarters, three quarters or more. */
static const struct {
    const char *fill, *ink, *word;
} shades[NSHADES] = {
    {"#eef0f2", "#2e2f33", "none lost"},
    {"#c9cbd0", "#2e2f33", "under 25 %"},
    {"#9a9da3", "#2e2f33",
     "25\xe2\x80\x93"
     "49 %"},
    {"#62656b", "#ffffff",
     "50\xe2\x80\x93"
     "74 %"},
    {REPORT_DEAD, "#ffffff", "75 % or more"},
};

static size_t shade_of(double lost)
{
    if (lost <= 0)
        return 0;
    if (lost < 0.25)
        return 1;
    if (lost < 0.5)
        return 2;
    return lost < 0.75 ? 3 : 4;
}

static void text(FILE *f, const char *s)
{
    fmt_markup(f, s, strlen(s));
}

int render_depth_has(const struct grader_ladder *l)
{
    const struct grader_lengths *g = l->lengths;
    size_t i, k;
    int asked = 0;

    if (g == NULL)
        return 0;
    for (k = 0; k < g->nlengths; k++)
        asked |= g->depth_asked_len[k] > 0;
    for (i = 1; asked && i < g->nrungs; i++)
        if (g->depth_answered[i] > 0)
            return 1;
    return 0;
}

/* "30–39 %" into out (FMT_SIZE) */
static char *bin_words(char *out, size_t b)
{
    snprintf(out, FMT_SIZE, "%zu\xe2\x80\x93%zu %%", b * 10,
             b + 1 == GRADER_DEPTH_BINS ? (size_t)100 : b * 10 + 9);
    return out;
}

/* Cell (rung i, length k, bin b) at x0, y0, with its hover title. */
static void cell(FILE *f, const struct grader_ladder *l, size_t i, size_t k,
                 size_t b, double x0, double y0)
{
    const struct grader_lengths *g = l->lengths;
    double lost = grader_lengths_depth_lost(g, k, i, b);
    size_t asked = g->depth_asked_at[k][b];
    size_t n = g->depth_answered_at[k][i][b], dead = g->depth_dead_at[k][i][b];
    char a[FMT_SIZE], c[FMT_SIZE], bw[FMT_SIZE], p[FMT_SIZE];

    fprintf(f, "<g data-rung=\"%zu\" data-length=\"%zu\" data-bin=\"%zu\"", i,
            k, b);
    if (lost >= 0)
        fprintf(f, " data-dead=\"%zu\" data-answered=\"%zu\"", dead, n);
    else
        fprintf(f, " data-empty=\"%s\"", asked == 0 ? "no needle" : "none");
    fputs("><title>", f);
    text(f, l->chain.lines[i].rung->name);
    fprintf(f, " at %s tokens, needles at %s: ", fmt_count(a, g->lengths[k]),
            bin_words(bw, b));
    if (asked == 0) {
        fputs("no question had its needle here</title>", f);
    } else if (lost < 0) {
        fprintf(f, "answered none of the %s here</title>",
                fmt_count(c, (long long)asked));
    } else {
        fprintf(f, "%s of %s dead (%s %%)</title>",
                fmt_count(a, (long long)dead), fmt_count(c, (long long)n),
                fmt_fixed(p, 100.0 * lost, 1));
    }
    if (lost < 0) {
        fprintf(f,
                "<rect x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"%d\" "
                "fill=\"#ffffff\" stroke=\"#c4c6ca\" "
                "stroke-dasharray=\"3 3\"/></g>\n",
                x0 + 2, y0 + 2, CELL_W - 4, CELL_H - 4);
        return;
    }
    fprintf(f,
            "<rect x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"%d\" "
            "fill=\"%s\" stroke=\"#d9dbdf\"/><text x=\"%.0f\" y=\"%.0f\" "
            "text-anchor=\"middle\" fill=\"%s\">%s of %s</text></g>\n",
            x0 + 2, y0 + 2, CELL_W - 4, CELL_H - 4,
            shades[shade_of(lost)].fill, x0 + CELL_W / 2.0, y0 + 18,
            shades[shade_of(lost)].ink, fmt_count(a, (long long)dead),
            fmt_count(c, (long long)n));
}

static void legend(FILE *f, double x, double y)
{
    for (size_t s = 0; s < NSHADES; s++) {
        fprintf(f,
                "<rect x=\"%.0f\" y=\"%.0f\" width=\"14\" height=\"14\" "
                "fill=\"%s\" stroke=\"#d9dbdf\"/><text x=\"%.0f\" "
                "y=\"%.0f\">%s</text>\n",
                x, y, shades[s].fill, x + 20, y + 12, shades[s].word);
        x += 40 + 7.0 * (double)strlen(shades[s].word);
    }
    fprintf(f,
            "<rect x=\"%.0f\" y=\"%.0f\" width=\"14\" height=\"14\" "
            "fill=\"#ffffff\" stroke=\"#c4c6ca\" stroke-dasharray=\"3 3\"/>"
            "<text x=\"%.0f\" y=\"%.0f\">nothing to count</text>\n",
            x, y, x + 20, y + 12);
}

/* The rows: each rung with a long row, at each length with a needle. */
static double rows(FILE *f, const struct grader_ladder *l, double left,
                   int several)
{
    const struct grader_lengths *g = l->lengths;
    double y = TOP;
    char a[FMT_SIZE];

    for (size_t i = 1; i < g->nrungs; i++) {
        int first = 1;
        if (g->depth_answered[i] == 0)
            continue;
        if (y > TOP)
            fprintf(f,
                    "<line x1=\"8\" x2=\"%.0f\" y1=\"%.0f\" y2=\"%.0f\" "
                    "stroke=\"#d9dbdf\"/>\n",
                    left + GRADER_DEPTH_BINS * CELL_W, y, y);
        for (size_t k = 0; k < g->nlengths; k++) {
            if (g->depth_asked_len[k] == 0)
                continue;
            if (first) {
                fprintf(f, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\">",
                        LEFT - 8, y + 19);
                text(f, l->chain.lines[i].rung->name);
                fputs("</text>\n", f);
                first = 0;
            }
            if (several)
                fprintf(f,
                        "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\" "
                        "fill=\"#5b5f66\">%s tokens</text>\n",
                        left - 8, y + 19, fmt_count(a, g->lengths[k]));
            for (size_t b = 0; b < GRADER_DEPTH_BINS; b++)
                cell(f, l, i, k, b, left + (double)b * CELL_W, y);
            y += CELL_H;
        }
    }
    return y;
}

void render_depth(FILE *f, const char *title, const struct grader_ladder *l)
{
    const struct grader_lengths *g = l->lengths;
    size_t i, k, b, nrows = 0, nlen = 0;
    double left, w, h, y;
    char bw[FMT_SIZE];

    for (k = 0; g != NULL && k < g->nlengths; k++)
        nlen += g->depth_asked_len[k] > 0;
    for (i = 1; g != NULL && i < g->nrungs; i++)
        nrows += g->depth_answered[i] > 0 ? nlen : 0;
    left = LEFT + (nlen > 1 ? LEN_W : 0);
    w = left + GRADER_DEPTH_BINS * CELL_W + 20;
    h = TOP + (double)nrows * CELL_H + BOTTOM;
    fmt_svg_open(f, w, h, 8, 22, title);
    if (!render_depth_has(l)) {
        fputs("<text x=\"8\" y=\"50\">no needle of a long item to place"
              "</text>\n</svg>\n",
              f);
        return;
    }
    fputs("<text x=\"8\" y=\"42\" fill=\"#5b5f66\">each cell: of the "
          "questions ",
          f);
    text(f, l->chain.lines[0].rung->name);
    fputs(" answered right at that length with the needle in that tenth of "
          "the prompt, those the rung lost (dead) of those it answered; "
          "darker, more lost</text>\n"
          "<text x=\"8\" y=\"58\" fill=\"#5b5f66\">0 % the prompt's start, "
          "100 % its end; a dashed empty cell has nothing to count</text>\n",
          f);
    for (b = 0; b < GRADER_DEPTH_BINS; b++)
        fprintf(f,
                "<text x=\"%.0f\" y=\"%d\" text-anchor=\"middle\" "
                "font-weight=\"bold\">%s</text>\n",
                left + (double)b * CELL_W + CELL_W / 2.0, TOP - 8,
                bin_words(bw, b));
    y = rows(f, l, left, nlen > 1);
    legend(f, LEFT, y + 22);
    fputs("</svg>\n", f);
}
