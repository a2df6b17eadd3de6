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

#include "fmt.h"
#include "render.h"

#define LEFT     96 /* rung labels */
#define TOP      40 /* title */
#define ROW_H    18
#define GAP      2    /* between rows */
#define WIDTH    1000 /* the grid's width, before rounding to whole cells */
#define CELL_MAX 40   /* a few questions still fill the picture */
#define MARK_H   4    /* the top of a dead or ghost cell */
#define CHAR_W   7    /* about 7 px a character at font-size 12 */
#define GRID_MIN 320  /* the narrowest picture, less the labels */

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

/* XML text (fmt.h): a folder's name in the title may hold anything. */
static void text(FILE *f, const char *s)
{
    fmt_markup(f, s, strlen(s));
}

/* The legend: entries one after another, each a swatch and its words,
 * wrapped to a new line at the picture's edge. */
struct legend {
    FILE *f;
    size_t x, y, right;
};

static void entry(struct legend *l, const char *fill, const char *mark,
                  const char *what)
{
    size_t w = 14 + 6 + CHAR_W * strlen(what);

    if (l->x > LEFT && l->x + w > l->right) {
        l->x = LEFT;
        l->y += 22;
    }
    fprintf(l->f,
            "<rect x=\"%zu\" y=\"%zu\" width=\"14\" height=\"14\" "
            "fill=\"%s\"%s/>",
            l->x, l->y, fill,
            strcmp(fill, REPORT_MISSING) == 0 ? " stroke=\"" REPORT_GREY "\""
                                              : "");
    if (mark != NULL)
        fprintf(l->f,
                "<rect x=\"%zu\" y=\"%zu\" width=\"14\" height=\"%d\" "
                "fill=\"%s\"/>",
                l->x, l->y, MARK_H, mark);
    fprintf(l->f, "<text x=\"%zu\" y=\"%zu\">", l->x + 20, l->y + 12);
    text(l->f, what);
    fputs("</text>\n", l->f);
    l->x += w + 22;
}

/* How many legend lines fit in width (to size the picture). */
static size_t legend_lines(const char *const *what, size_t n, size_t width)
{
    size_t x = LEFT, lines = 1, i;

    for (i = 0; i < n; i++) {
        size_t w = 14 + 6 + CHAR_W * strlen(what[i]);
        if (x > LEFT && x + w > width) {
            x = LEFT;
            lines++;
        }
        x += w + 22;
    }
    return lines;
}

/* One rung's row at height y: its name, then its nq cells (cw wide,
 * with a 1 px gap when gap) in their colours, dead and ghost cells
 * capped. */
static void draw_row(FILE *f, const char *name, size_t y, size_t nq,
                     const uint8_t *cells, const uint8_t *marks, size_t cw,
                     size_t gap)
{
    size_t j, k;

    fprintf(f, "<text x=\"%d\" y=\"%zu\" text-anchor=\"end\">", LEFT - 8,
            y + 13);
    text(f, name);
    fputs("</text>\n", f);
    for (j = 0; j < nq; j = k) {
        unsigned cell = cells[j];
        unsigned mark = marks ? marks[j] : GRADER_MARK_NONE;
        /* cells 4 px wide or more are headstones with a 1 px gap;
         * narrower ones merge into runs of one colour and mark */
        for (k = j + 1; gap == 0 && k < nq && cells[k] == cell &&
                        (marks ? marks[k] : GRADER_MARK_NONE) == mark;
             k++)
            ;
        fprintf(f,
                "<rect x=\"%zu\" y=\"%zu\" width=\"%zu\" height=\"%d\" "
                "fill=\"%s\"/>\n",
                LEFT + j * cw, y, (k - j) * cw - gap, ROW_H, colour(cell));
        /* a dead cell wears a dark cap, a ghost a pale one: the colour
         * below stays right or wrong */
        if (mark != GRADER_MARK_NONE)
            fprintf(f,
                    "<rect x=\"%zu\" y=\"%zu\" width=\"%zu\" "
                    "height=\"%d\" fill=\"%s\"/>\n",
                    LEFT + j * cw, y, (k - j) * cw - gap, MARK_H,
                    mark == GRADER_MARK_DEAD ? REPORT_DEAD : REPORT_GHOST);
    }
}

void render_cover(FILE *f, const char *title, const char *const *names,
                  size_t nrungs, size_t nruns, size_t nq, const uint8_t *cells,
                  const uint8_t *marks)
{
    size_t cw = nq ? WIDTH / nq : 1, i;
    size_t gw, width, height, ly, gap, nwhat = 0;
    int missing = memchr(cells, GRADER_CELL_MISSING, nrungs * nq) != NULL;
    int dead = 0, ghost = 0;
    const char *what[6];
    struct legend l;

    for (i = 0; marks != NULL && i < nrungs * nq; i++) {
        dead |= marks[i] == GRADER_MARK_DEAD;
        ghost |= marks[i] == GRADER_MARK_GHOST;
    }
    if (cw < 1)
        cw = 1;
    if (cw > CELL_MAX)
        cw = CELL_MAX;
    gap = cw >= 4;
    gw = cw * nq;
    what[nwhat++] = nruns > 1 ? "right on every run" : "right";
    what[nwhat++] = nruns > 1 ? "wrong on every run" : "wrong";
    if (nruns > 1)
        what[nwhat++] = "the runs disagree";
    if (dead)
        what[nwhat++] = "dead: the reference right, this rung wrong";
    if (ghost)
        what[nwhat++] = "ghost: the reference wrong, this rung right";
    if (missing)
        what[nwhat++] = "not answered yet";
    /* the picture is as wide as the grid (the legend wraps below it), with
     * room for a short legend line and the title */
    width = LEFT + (gw > GRID_MIN ? gw : GRID_MIN) + 16;
    if (width < 16 + 8 * strlen(title)) /* about 8 px a character */
        width = 16 + 8 * strlen(title);
    ly = TOP + nrungs * (ROW_H + GAP) + 12;
    height = ly + 22 * legend_lines(what, nwhat, width - 8) + 8;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%zu\" "
            "height=\"%zu\" viewBox=\"0 0 %zu %zu\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
            "<text x=\"8\" y=\"24\" font-size=\"15\">",
            width, height, width, height);
    text(f, title);
    fputs("</text>\n", f);
    for (i = 0; i < nrungs; i++)
        draw_row(f, names[i], TOP + i * (ROW_H + GAP), nq, cells + i * nq,
                 marks ? marks + i * nq : NULL, cw, gap);
    l.f = f;
    l.x = LEFT;
    l.y = ly;
    l.right = width - 8;
    entry(&l, REPORT_MARIGOLD, NULL, what[0]);
    entry(&l, REPORT_GREY, NULL, what[1]);
    if (nruns > 1)
        entry(&l, REPORT_VIOLET, NULL, "the runs disagree");
    if (dead)
        entry(&l, REPORT_GREY, REPORT_DEAD,
              "dead: the reference right, this rung wrong");
    if (ghost)
        entry(&l, REPORT_MARIGOLD, REPORT_GHOST,
              "ghost: the reference wrong, this rung right");
    if (missing) /* a partial report: say what the white cells are */
        entry(&l, REPORT_MISSING, NULL, "not answered yet");
    fputs("</svg>\n", f);
}
