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
#include <stdlib.h>
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
#define KLD_H    5    /* the bottom band of a cell shaded by its KLD */

/* The KLD shading (docs/report.md): a question's mean top-N KLD along
 * the shared prefix, in decades, as a band along the bottom of its cell,
 * darker as it grows: the cell's colour (right, wrong) and its cap (dead,
 * ghost) stay as they are. Below 0.001 (a rung that barely moved) and
 * NAN (not compared) have no band. */
#define KLD_LEVELS FMT_KLD_LEVELS
static const char *const kld_colour[KLD_LEVELS] = {"#f2c4ce", "#de7890",
                                                   "#b8325a", "#6e0d2e"};
static const char *const kld_words[KLD_LEVELS] = {
    "mean KLD from the reference, bottom band: 0.001\xe2\x80\x93"
    "0.01",
    "0.01\xe2\x80\x93"
    "0.1",
    "0.1\xe2\x80\x93"
    "1",
    "\xe2\x89\xa5 1"};

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

/* Characters, not bytes, of a UTF-8 string: the legend's widths. */
static size_t chars(const char *s)
{
    size_t n = 0;

    for (; *s != '\0'; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* The legend: entries one after another, each a swatch and its words,
 * wrapped to a new line at the picture's edge. */
struct legend {
    FILE *f;
    size_t x, y, right;
};

static void entry(struct legend *l, const char *fill, const char *mark,
                  const char *band, const char *what, int br)
{
    size_t w = 14 + 6 + CHAR_W * chars(what);

    if (l->x > LEFT && (br || l->x + w > l->right)) {
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
    if (band != NULL)
        fprintf(l->f,
                "<rect x=\"%zu\" y=\"%zu\" width=\"14\" height=\"%d\" "
                "fill=\"%s\"/>",
                l->x, l->y + 14 - KLD_H, KLD_H, band);
    fprintf(l->f, "<text x=\"%zu\" y=\"%zu\">", l->x + 20, l->y + 12);
    text(l->f, what);
    fputs("</text>\n", l->f);
    l->x += w + 22;
}

/* One rung's row at height y: its name, then its nq cells (cw wide,
 * with a 1 px gap when gap) in their colours, dead and ghost cells
 * capped. */
static void draw_row(FILE *f, const char *name, size_t y, size_t nq,
                     const uint8_t *cells, const uint8_t *marks,
                     const uint8_t *levels, size_t cw, size_t gap)
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
    /* the KLD bands over the cells' bottoms, merged into runs of one
     * level on their own, so the cells' runs above stay as long as they
     * are without them */
    for (j = 0; levels != NULL && j < nq; j = k) {
        for (k = j + 1; gap == 0 && k < nq && levels[k] == levels[j]; k++)
            ;
        if (levels[j] > 0)
            fprintf(f,
                    "<rect x=\"%zu\" y=\"%zu\" width=\"%zu\" "
                    "height=\"%d\" fill=\"%s\"/>\n",
                    LEFT + j * cw, y + ROW_H - KLD_H, (k - j) * cw - gap,
                    KLD_H, kld_colour[levels[j] - 1]);
    }
}

/* One entry of the legend: a swatch (its fill, a cap, a bottom band)
 * and its words. */
struct item {
    const char *fill, *mark, *band, *what;
    int br; /* on a new line: the KLD scale is read as one */
};

/* How many legend lines the entries take in width (to size the
 * picture): entry()'s wrapping, counted. */
static size_t legend_lines(const struct item *it, size_t n, size_t width)
{
    size_t x = LEFT, lines = 1, i;

    for (i = 0; i < n; i++) {
        size_t w = 14 + 6 + CHAR_W * chars(it[i].what);
        if (x > LEFT && (it[i].br || x + w > width)) {
            x = LEFT;
            lines++;
        }
        x += w + 22;
    }
    return lines;
}

/* The legend's entries for what the cover shows, in order; how many. */
static size_t legend_items(struct item *it, size_t nruns, int dead, int ghost,
                           int missing, int shaded)
{
    size_t n = 0, i;

    it[n++] = (struct item){REPORT_MARIGOLD, NULL, NULL,
                            nruns > 1 ? "right on every run" : "right", 0};
    it[n++] = (struct item){REPORT_GREY, NULL, NULL,
                            nruns > 1 ? "wrong on every run" : "wrong", 0};
    if (nruns > 1)
        it[n++] =
            (struct item){REPORT_VIOLET, NULL, NULL, "the runs disagree", 0};
    if (dead)
        it[n++] =
            (struct item){REPORT_GREY, REPORT_DEAD, NULL,
                          "dead: the reference right, this rung wrong", 0};
    if (ghost)
        it[n++] =
            (struct item){REPORT_MARIGOLD, REPORT_GHOST, NULL,
                          "ghost: the reference wrong, this rung right", 0};
    if (missing) /* a partial report: say what the white cells are */
        it[n++] =
            (struct item){REPORT_MISSING, NULL, NULL, "not answered yet", 0};
    for (i = 0; shaded && i < KLD_LEVELS; i++) /* the bottom band's scale */
        it[n++] = (struct item){REPORT_GREY, NULL, kld_colour[i], kld_words[i],
                                i == 0};
    return n;
}

/* The cover, its cells shaded by levels (nrungs * nq in the cells'
 * order, 0 no band) when not NULL. */
static void cover(FILE *f, const char *title, const char *const *names,
                  size_t nrungs, size_t nruns, size_t nq, const uint8_t *cells,
                  const uint8_t *marks, const uint8_t *levels)
{
    size_t cw = nq ? WIDTH / nq : 1, i;
    size_t gw, width, height, ly, gap, nwhat;
    int missing = memchr(cells, GRADER_CELL_MISSING, nrungs * nq) != NULL;
    int dead = 0, ghost = 0, shaded = 0;
    struct item it[6 + KLD_LEVELS];
    struct legend l;

    for (i = 0; levels != NULL && i < nrungs * nq; i++)
        shaded |= levels[i] > 0;
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
    nwhat = legend_items(it, nruns, dead, ghost, missing, shaded);
    /* the picture is as wide as the grid (the legend wraps below it), with
     * room for a short legend line and the title */
    width = LEFT + (gw > GRID_MIN ? gw : GRID_MIN) + 16;
    if (width < 16 + 8 * strlen(title)) /* about 8 px a character */
        width = 16 + 8 * strlen(title);
    ly = TOP + nrungs * (ROW_H + GAP) + 12;
    height = ly + 22 * legend_lines(it, nwhat, width - 8) + 8;
    fmt_svg_open(f, (double)width, (double)height, 8, 24, title);
    for (i = 0; i < nrungs; i++)
        draw_row(f, names[i], TOP + i * (ROW_H + GAP), nq, cells + i * nq,
                 marks ? marks + i * nq : NULL,
                 levels ? levels + i * nq : NULL, cw, gap);
    l.f = f;
    l.x = LEFT;
    l.y = ly;
    l.right = width - 8;
    for (i = 0; i < nwhat; i++)
        entry(&l, it[i].fill, it[i].mark, it[i].band, it[i].what, it[i].br);
    fputs("</svg>\n", f);
}

void render_cover(FILE *f, const char *title, const char *const *names,
                  size_t nrungs, size_t nruns, size_t nq, const uint8_t *cells,
                  const uint8_t *marks)
{
    cover(f, title, names, nrungs, nruns, nq, cells, marks, NULL);
}

int render_cover_probs(FILE *f, const char *title, const char *const *names,
                       size_t nrungs, size_t nq, const uint8_t *cells,
                       const uint8_t *marks,
                       const struct grader_probs_ladder *probs,
                       const uint32_t *order)
{
    uint8_t *levels;
    size_t i, j;

    if (probs == NULL || probs->kld == NULL) {
        cover(f, title, names, nrungs, 1, nq, cells, marks, NULL);
        return 0;
    }
    if ((levels = calloc(nrungs * nq + 1, 1)) == NULL)
        return -1;
    /* the cells go in the cover's column order, the KLD by question */
    for (i = 0; i < nrungs && i < probs->nrungs; i++)
        for (j = 0; j < nq; j++)
            if (order[j] < probs->nq)
                levels[i * nq + j] = (uint8_t)fmt_kld_level(
                    probs->kld[i * probs->nq + order[j]]);
    cover(f, title, names, nrungs, 1, nq, cells, marks, levels);
    free(levels);
    return 0;
}
