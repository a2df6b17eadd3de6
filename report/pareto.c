/*
 * pareto.c - the speed-accuracy picture (pareto.svg): "which file should
 * I run?".
 *
 * Three panels, one under another, each rung a point: x the % of the
 * reference's bytes, the median decode tok/s, or the cost per right answer
 * (Wh when nvidia-smi told the power, else the server's seconds;
 * grader/cost.h), y the accuracy with its Wilson 95 % interval as a bar. The
 * Pareto front joins the rungs no other rung beats on both counts; side rungs
 * are hollow diamonds; the reference is dark. Under the panels, the study's
 * "which one?" in words. Every figure and every choice comes from the grader
 * (ladder.h: grader_ladder_pick); this file places them. The geometry is fixed
 * here and in docs/report.md so that a test can put each point where the
 * figures say and look there.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "render.h"

#define PANEL_W    880
#define PANEL_H    300
#define PAD_L      64 /* y ticks and label */
#define PAD_R      28
#define TOP        64  /* title and the first panel's title */
#define GAP_Y      40  /* between one panel's x label and the next's title */
#define BOTTOM     56  /* x ticks and label */
#define CHAR_W     7.2 /* px a character at font-size 11, a little over */
#define LINE_H     18
#define WORDS_W    140 /* characters a line of words under the panels */
#define MAX_LABELS 300 /* every mark, then every name */
#define MAX_LINES  260 /* the front's segments and the intervals */

struct box {
    double x0, y0, x1, y1;
};

enum { P_BYTES, P_SPEED, P_COST };

struct panel {
    FILE *f;
    int speed; /* P_BYTES: % of bytes, P_SPEED: decode tok/s, P_COST */
    int wh;    /* P_COST: Wh per right answer, else seconds */
    uint64_t cost_front;
    double x0, y0; /* left and top edges of the plot */
    double xmin, xmax, xstep;
    double ymin, ymax, ystep;
    struct box taken[MAX_LABELS];
    size_t ntaken;
    struct box lines[MAX_LINES]; /* from (x0, y0) to (x1, y1): no label
                                    crosses the front or an interval */
    size_t nlines;
    /* each point's sideways shift (dodge): intervals that would lie on
     * one another are drawn apart; the first 64 points (the fronts' bit
     * sets hold no more) */
    double dx[64];
};

/* XML text (fmt.h): the title holds a folder's name. */
static void xml(FILE *f, const char *s)
{
    fmt_markup(f, s, strlen(s));
}

/* Point p's rung name (chain first, then side rungs). */
static const char *name_of(const struct grader_ladder *l, size_t p)
{
    return grader_ladder_point(l, p)->line->rung->name;
}

static double xval(const struct panel *pn, const struct grader_figures *fg)
{
    return pn->speed == P_COST    ? grader_cost_x(fg, pn->wh)
           : pn->speed == P_SPEED ? fg->line->sum.median_tps
                                  : fg->pct_bytes;
}

static int known(const struct panel *pn, const struct grader_figures *fg)
{
    return xval(pn, fg) >= 0;
}

/* A round step giving at most 8 ticks over span. */
static double nice_step(double span)
{
    static const double m[] = {1, 2, 5};
    double p = 1e-3;
    int i;

    for (;; p *= 10)
        for (i = 0; i < 3; i++)
            if (span / (m[i] * p) <= 8)
                return m[i] * p;
}

static double px(const struct panel *pn, double v)
{
    return pn->x0 + (v - pn->xmin) / (pn->xmax - pn->xmin) * PANEL_W;
}

static double py(const struct panel *pn, double acc_pct)
{
    return pn->y0 + (pn->ymax - acc_pct) / (pn->ymax - pn->ymin) * PANEL_H;
}

/* Point p on the floor: more than 20 points under the reference, below
 * the y range (y_range). */
static int floored(const struct panel *pn, const struct grader_figures *fg)
{
    return fg->acc * 100 < pn->ymin;
}

/* Where point p is drawn across: its figure's x, kept 8 px inside the
 * plot (a floored point's figure may lie past it: the cost panel's range
 * leaves those out), then moved by its dodge. *off: -1 past the left
 * edge, 1 past the right, 0 on the scale. */
static double point_x(const struct panel *pn, const struct grader_ladder *l,
                      size_t p, int *off)
{
    double x = px(pn, xval(pn, grader_ladder_point(l, p)));
    int o = x < pn->x0 + 8 ? -1 : x > pn->x0 + PANEL_W - 8 ? 1 : 0;

    if (off != NULL)
        *off = o;
    x = o < 0 ? pn->x0 + 8 : o > 0 ? pn->x0 + PANEL_W - 8 : x;
    return x + (p < 64 ? pn->dx[p] : 0);
}

/* Points whose intervals would be drawn on one another (their bars less
 * than DODGE px apart, their intervals sharing some height) are moved
 * apart sideways, in the order of their figures, each group around where
 * its figures put it: BF16 and F16 at 100 % of the bytes, two Q4 files a
 * tenth of a point of bytes apart. No point moves more than needed, and
 * the SVG says how far each moved (data-dx). */
#define DODGE 6.0
static void dodge(struct panel *pn, const struct grader_ladder *l, size_t n)
{
    size_t ord[64], group[64], m = 0, i, j, k;
    double x[64], lo[64], hi[64];

    for (i = 0; i < n && i < 64; i++) {
        const struct grader_figures *fg = grader_ladder_point(l, i);
        pn->dx[i] = 0;
        if (!known(pn, fg) || floored(pn, fg))
            continue;
        x[i] = point_x(pn, l, i, NULL);
        lo[i] = fg->acc_lo * 100;
        hi[i] = fg->acc_hi * 100;
        for (j = m++; j > 0 && x[ord[j - 1]] > x[i]; j--)
            ord[j] = ord[j - 1];
        ord[j] = i;
    }
    /* left to right: each point at least DODGE right of every earlier one
     * whose interval it shares, joined to its group */
    for (i = 0; i < m; i++) {
        size_t a = ord[i];
        double at = x[a];
        group[i] = i;
        for (j = 0; j < i; j++) {
            size_t b = ord[j];
            if (lo[a] <= hi[b] && lo[b] <= hi[a] &&
                x[b] + pn->dx[b] > at - DODGE) {
                at = x[b] + pn->dx[b] + DODGE;
                group[i] = group[j];
            }
        }
        pn->dx[a] = at - x[a];
    }
    /* each group back around its figures: its mean shift taken off */
    for (i = 0; i < m; i++) {
        double sum = 0;
        size_t cnt = 0;
        for (k = i; k < m; k++)
            if (group[k] == i) {
                sum += pn->dx[ord[k]];
                cnt++;
            }
        for (k = i; k < m && cnt > 1; k++)
            if (group[k] == i)
                pn->dx[ord[k]] -= sum / (double)cnt;
    }
}

/* The y range: every point within 20 points of the reference, and the
 * top of every interval; points further down sit on the floor, marked. */
static void y_range(const struct grader_ladder *l, size_t n, double *lo,
                    double *hi)
{
    double ref = l->rungs[0].acc * 100, a, b;
    size_t p;

    *lo = 100;
    *hi = 0;
    for (p = 0; p < n; p++) {
        const struct grader_figures *fg = grader_ladder_point(l, p);
        a = fg->acc_lo * 100;
        b = fg->acc_hi * 100;
        if (fg->acc * 100 >= ref - 20 && a < *lo)
            *lo = a;
        if (b > *hi)
            *hi = b;
    }
    *lo = floor((*lo - 1) / 5) * 5;
    *hi = ceil((*hi + 0.5) / 5) * 5;
    if (*lo < 0)
        *lo = 0;
    if (*hi > 100)
        *hi = 100;
    if (*hi - *lo < 10)
        *lo = *hi - 10 < 0 ? 0 : *hi - 10;
}

static void x_range(const struct grader_ladder *l, size_t n,
                    const struct panel *pn, double *lo, double *hi,
                    double *step)
{
    double mn = 1e300, mx = -1e300, v, span;
    size_t p;

    for (p = 0; p < n; p++) {
        const struct grader_figures *fg = grader_ladder_point(l, p);
        /* a rung with almost no right answer costs without bound per
         * right one: on the cost panel it sits on the floor, at the
         * edge, and sets no range */
        if (!known(pn, fg) ||
            (pn->speed == P_COST && fg->acc * 100 < pn->ymin))
            continue;
        v = xval(pn, fg);
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
    }
    span = mx - mn > 0 ? mx - mn : (mx > 0 ? mx : 1);
    /* a margin each side for the labels; ticks fall on round values */
    *lo = mn - span * 0.08;
    *hi = mx + span * 0.1;
    if (*lo < 0)
        *lo = 0;
    *step = nice_step(*hi - *lo);
}

static void axes(struct panel *pn, const char *title, const char *xlabel)
{
    FILE *f = pn->f;
    double v;

    fprintf(f,
            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" "
            "font-weight=\"bold\">",
            pn->x0, pn->y0 - 14);
    xml(f, title);
    fputs("</text>\n", f);
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%d\" "
            "fill=\"#fbfaf7\" stroke=\"#b9bcc2\"/>\n",
            pn->x0, pn->y0, PANEL_W, PANEL_H);
    for (v = ceil(pn->ymin / pn->ystep - 1e-9) * pn->ystep;
         v <= pn->ymax + 1e-9; v += pn->ystep) {
        double y = py(pn, v);
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#e6e7ea\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
                pn->x0, y, pn->x0 + PANEL_W, y, pn->x0 - 6, y + 4, v);
    }
    for (v = ceil(pn->xmin / pn->xstep - 1e-9) * pn->xstep;
         v <= pn->xmax + 1e-9; v += pn->xstep) {
        double x = px(pn, v);
        fprintf(
            f,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"#e6e7ea\"/>"
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
            x, pn->y0, x, pn->y0 + PANEL_H, x, pn->y0 + PANEL_H + 16, v);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
            pn->x0 + PANEL_W / 2.0, pn->y0 + PANEL_H + 36);
    xml(f, xlabel);
    fputs("</text>\n", f);
    fprintf(f,
            "<text transform=\"translate(%.1f %.1f) rotate(-90)\" "
            "text-anchor=\"middle\">right, %% of questions (95 %% CI)"
            "</text>\n",
            pn->x0 - 44, pn->y0 + PANEL_H / 2.0);
}

/* The segment l crosses box b (Liang and Barsky's clip). */
static int crosses(const struct box *l, struct box b)
{
    double dx = l->x1 - l->x0, dy = l->y1 - l->y0, t0 = 0, t1 = 1;
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {l->x0 - b.x0, b.x1 - l->x0, l->y0 - b.y0,
                         b.y1 - l->y0};
    int i;

    for (i = 0; i < 4; i++) {
        double t;
        if (p[i] == 0) {
            if (q[i] < 0)
                return 0; /* parallel to that edge, outside it */
            continue;
        }
        t = q[i] / p[i];
        if (p[i] < 0 && t > t0)
            t0 = t;
        else if (p[i] > 0 && t < t1)
            t1 = t;
        if (t0 > t1)
            return 0;
    }
    return 1;
}

static int overlaps(const struct panel *pn, struct box b)
{
    size_t i;

    if (b.x0 < pn->x0 + 2 || b.x1 > pn->x0 + PANEL_W - 2 ||
        b.y0 < pn->y0 + 2 || b.y1 > pn->y0 + PANEL_H - 2)
        return 1;
    for (i = 0; i < pn->ntaken; i++) {
        const struct box *t = &pn->taken[i];
        if (b.x0 < t->x1 && t->x0 < b.x1 && b.y0 < t->y1 && t->y0 < b.y1)
            return 1;
    }
    for (i = 0; i < pn->nlines; i++)
        if (crosses(&pn->lines[i], b))
            return 1;
    return 0;
}

static void line_taken(struct panel *pn, double x0, double y0, double x1,
                       double y1)
{
    if (pn->nlines < MAX_LINES)
        pn->lines[pn->nlines++] = (struct box){x0, y0, x1, y1};
}

static void take(struct panel *pn, struct box b)
{
    if (pn->ntaken < MAX_LABELS)
        pn->taken[pn->ntaken++] = b;
}

/* A point's name beside it: the first free place of a ring of places
 * near it, then of a ring further out (joined to the point by a thin
 * line); else the first place. r is how far the point's marker reaches
 * (7 a plain point; its ring, when it has one): the places move out by
 * what passes 7, so that no name touches its own ring. */
static void label(struct panel *pn, double x, double y, const char *s,
                  int bold, double r)
{
    /* nearest first; the last rows for a crowded corner (the cost panel
     * packs the cheap rungs against its left edge) */
    static const double dx[] = {
        9,   -9, 0,   0,  9,   9, -9, -9, 28, -28, 0,    0,   24,   24,  -24,
        -24, 44, -44, 64, -64, 0, 0,  44, 44, 104, -104, 144, -144, 104, -104};
    static const double dy[] = {4,   4,  -10, 18, -8,  14, -8, 14, 4,   4,
                                -24, 32, -20, 26, -20, 26, 4,  4,  4,   4,
                                -40, 48, -36, 44, 4,   4,  4,  4,  -28, -28};
    const size_t n = sizeof(dx) / sizeof(dx[0]);
    double w = CHAR_W * (double)strlen(s) + (bold ? 6 : 0);
    double out = r > 7 ? r - 7 : 0, ox, oy;
    size_t k, pick = 0;
    struct box b = {0, 0, 0, 0};

    size_t inside = n; /* the first place within the panel, free or not */
    for (k = 0; k < n; k++) {
        double lx;
        ox = dx[k] + (dx[k] > 0 ? out : dx[k] < 0 ? -out : 0);
        oy = dy[k] + (dy[k] > 4 ? out : dy[k] < 4 ? -out : 0);
        lx = ox > 0 ? x + ox : ox < 0 ? x + ox - w : x - w / 2;
        b = (struct box){lx, y + oy - 10, lx + w, y + oy + 2};
        if (b.x0 >= pn->x0 + 2 && b.x1 <= pn->x0 + PANEL_W - 2) {
            inside = k;
            break;
        }
    }
    for (k = 0; k <= n; k++) {
        /* none free: the first place that stays in the panel */
        size_t c = k < n ? k : inside < n ? inside : 0;
        double lx;
        ox = dx[c] + (dx[c] > 0 ? out : dx[c] < 0 ? -out : 0);
        oy = dy[c] + (dy[c] > 4 ? out : dy[c] < 4 ? -out : 0);
        lx = ox > 0 ? x + ox : ox < 0 ? x + ox - w : x - w / 2;
        b = (struct box){lx, y + oy - 10, lx + w, y + oy + 2};
        pick = c;
        if (k == n || !overlaps(pn, b))
            break;
    }
    take(pn, b);
    if (pick >= 8) /* far from its point: a leader to it */
        fprintf(pn->f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#8a8d91\" stroke-width=\"0.8\"/>\n",
                x + (dx[pick] > 0   ? r - 1
                     : dx[pick] < 0 ? 1 - r
                                    : 0),
                y + (dy[pick] > 4   ? r - 1
                     : dy[pick] < 0 ? 1 - r
                                    : 0),
                dx[pick] > 0   ? b.x0 - 1
                : dx[pick] < 0 ? b.x1 + 1
                               : x,
                dy[pick] > 4   ? b.y0
                : dy[pick] < 0 ? b.y1
                               : y);
    fprintf(pn->f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\"%s>", b.x0,
            y + oy, bold ? " font-weight=\"bold\"" : "");
    xml(pn->f, s);
    fputs("</text>\n", pn->f);
}

/* The front: its points joined from left to right. */
static void front(struct panel *pn, const struct grader_ladder *l, size_t n,
                  uint64_t set)
{
    size_t order[128], m = 0, i, j;
    double x_prev = 0, y_prev = 0;

    for (i = 0; i < n && i < 64; i++)
        if (set & (1ULL << i))
            order[m++] = i;
    for (i = 1; i < m; i++)
        for (j = i; j > 0 && xval(pn, grader_ladder_point(l, order[j - 1])) >
                                 xval(pn, grader_ladder_point(l, order[j]));
             j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    if (m < 2)
        return;
    fprintf(pn->f,
            "<polyline data-front=\"%s\" fill=\"none\" stroke=\"#2e2f33\" "
            "stroke-width=\"1.5\" stroke-dasharray=\"5 3\" points=\"",
            pn->speed == P_COST    ? "cost"
            : pn->speed == P_SPEED ? "speed"
                                   : "bytes");
    for (i = 0; i < m; i++) {
        const struct grader_figures *fg = grader_ladder_point(l, order[i]);
        double y = fg->acc * 100 < pn->ymin ? pn->ymin : fg->acc * 100;
        double x = point_x(pn, l, order[i], NULL), yy = py(pn, y);
        fprintf(pn->f, "%s%.1f,%.1f", i ? " " : "", x, yy);
        if (i > 0) /* no name is written across the front */
            line_taken(pn, x_prev, y_prev, x, yy);
        x_prev = x;
        y_prev = yy;
    }
    fputs("\"/>\n", pn->f);
}

/* How far point p's mark reaches from its centre: its ring, if any. */
static double reach(const struct panel *pn, const struct grader_pick *pk,
                    size_t p)
{
    int on = ((pn->speed == P_COST    ? pn->cost_front
               : pn->speed == P_SPEED ? pk->speed_front
                                      : pk->bytes_front) >>
              p) &
             1;
    int chosen = pn->speed != P_COST &&
                 (long)p == (pn->speed ? pk->fastest : pk->smallest);

    return chosen ? 12 : on ? 9 : 7;
}

/* Every point's mark and interval, before any name is placed: no name is
 * written on a point drawn after it, nor across an interval (as point()
 * draws them: clamped to the panel, none for a point on the floor). */
static void marks_taken(struct panel *pn, const struct grader_ladder *l,
                        size_t n)
{
    size_t p;

    for (p = 0; p < n; p++) {
        const struct grader_figures *fg = grader_ladder_point(l, p);
        double x, y, r, lo = fg->acc_lo * 100, hi = fg->acc_hi * 100;
        if (!known(pn, fg))
            continue;
        x = point_x(pn, l, p, NULL);
        if (floored(pn, fg)) { /* the floor's marker */
            y = pn->y0 + PANEL_H - 8;
            take(pn, (struct box){x - 7, y - 5, x + 7, y + 5});
            continue;
        }
        y = py(pn, fg->acc * 100);
        r = reach(pn, &l->pick, p);
        take(pn, (struct box){x - r, y - r, x + r, y + r});
        lo = lo < pn->ymin ? pn->ymin : lo;
        hi = hi > pn->ymax ? pn->ymax : hi;
        line_taken(pn, x, py(pn, lo), x, py(pn, hi));
    }
}

static void point(struct panel *pn, const struct grader_ladder *l,
                  const struct grader_pick *pk, size_t p, const char *name)
{
    const struct grader_figures *fg = grader_ladder_point(l, p);
    int side = p >= l->chain.nrungs;
    int on = ((pn->speed == P_COST    ? pn->cost_front
               : pn->speed == P_SPEED ? pk->speed_front
                                      : pk->bytes_front) >>
              p) &
             1;
    int chosen = pn->speed != P_COST &&
                 (long)p == (pn->speed ? pk->fastest : pk->smallest);
    int off;
    double x = point_x(pn, l, p, &off), acc = fg->acc * 100;
    double lo = fg->acc_lo * 100, hi = fg->acc_hi * 100, y, r;
    const char *fill = p == 0 ? REPORT_DEAD
                       : side ? "#ffffff"
                              : REPORT_MARIGOLD;
    char text[200], a[FMT_SIZE], b[FMT_SIZE];

    if (floored(pn, fg)) {
        /* far below the others: on the floor, pointing down, its
         * accuracy in its name; past an edge of the x scale (the cost
         * panel leaves such points out of its range) at that edge, its
         * figure and an arrow in its name too: off the scale, said so on
         * each axis */
        double xv = xval(pn, fg);
        y = pn->y0 + PANEL_H - 8;
        fprintf(pn->f,
                "<path data-rung=\"%s\" data-below=\"1\"%s d=\"M%.1f %.1f "
                "l-6 -8 h12 z\" fill=\"%s\" stroke=\"#2e2f33\"/>\n",
                name,
                off > 0   ? " data-off=\"right\""
                : off < 0 ? " data-off=\"left\""
                          : "",
                x, y + 4, fill);
        if (off == 0)
            snprintf(text, sizeof(text), "%s %s %% \xe2\x86\x93", name,
                     fmt_fixed(a, acc, 1));
        else
            snprintf(text, sizeof(text), "%s%s %s %% \xe2\x86\x93, %s %s%s",
                     off < 0 ? "\xe2\x86\x90 " : "", name,
                     fmt_fixed(a, acc, 1),
                     fmt_fixed(b, xv,
                               pn->speed == P_COST && pn->wh ? 4
                               : pn->speed == P_COST         ? 2
                                                             : 1),
                     pn->speed == P_COST    ? (pn->wh ? "Wh" : "s")
                     : pn->speed == P_SPEED ? "tok/s"
                                            : "% of the bytes",
                     off > 0 ? " \xe2\x86\x92" : "");
        label(pn, x, y - 4, text, chosen, 7); /* its mark: marks_taken */
        return;
    }
    y = py(pn, acc);
    lo = lo < pn->ymin ? pn->ymin : lo;
    hi = hi > pn->ymax ? pn->ymax : hi;
    fprintf(pn->f,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"%s\" stroke-width=\"2\" stroke-opacity=\"0.55\"/>\n",
            x, py(pn, lo), x, py(pn, hi), side ? REPORT_VIOLET : "#5b5f66");
    if (p < 64 && pn->dx[p] != 0) /* moved apart: how far (dodge) */
        snprintf(b, sizeof(b), " data-dx=\"%.1f\"", pn->dx[p]);
    else
        b[0] = '\0';
    if (side)
        fprintf(pn->f,
                "<path data-rung=\"%s\"%s data-cx=\"%.1f\" "
                "data-cy=\"%.1f\" d=\"M%.1f %.1f l6 6 l-6 6 l-6 -6 z\" "
                "fill=\"%s\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                name, b, x, y, x, y - 6, fill, REPORT_VIOLET);
    else
        fprintf(pn->f,
                "<circle data-rung=\"%s\"%s cx=\"%.1f\" cy=\"%.1f\" "
                "r=\"5\" fill=\"%s\" stroke=\"#2e2f33\" "
                "stroke-width=\"1.2\"/>\n",
                name, b, x, y, fill);
    if (on || chosen)
        fprintf(pn->f,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"none\" "
                "stroke=\"#2e2f33\" stroke-width=\"1.2\"/>\n",
                x, y, chosen ? 11 : 8);
    r = reach(pn, pk, p); /* taken with every mark (marks_taken) */
    label(pn, x, y, name, chosen, r);
}

static const char *const panel_names[] = {"bytes", "speed", "cost"};
static const char *const panel_titles[] = {
    "Right against file size", "Right against decode speed",
    "Right against cost per right answer"};

static void draw_panel(FILE *f, const struct grader_ladder *l, int speed,
                       double y0)
{
    const struct grader_pick *pk = &l->pick;
    struct grader_cost_pick cp;
    struct panel pn;
    size_t n = pk->npoints, p;

    memset(&pn, 0, sizeof(pn));
    grader_cost_pick(l, &cp);
    pn.f = f;
    pn.speed = speed;
    pn.wh = cp.wh;
    pn.cost_front = cp.front;
    pn.x0 = PAD_L;
    pn.y0 = y0;
    y_range(l, n, &pn.ymin, &pn.ymax);
    x_range(l, n, &pn, &pn.xmin, &pn.xmax, &pn.xstep);
    pn.ystep = nice_step(pn.ymax - pn.ymin);
    dodge(&pn, l, n);
    fprintf(f,
            "<g data-panel=\"%s\" data-xmin=\"%g\" data-xmax=\"%g\" "
            "data-ymin=\"%g\" data-ymax=\"%g\" data-x0=\"%.1f\" "
            "data-y0=\"%.1f\" data-w=\"%d\" data-h=\"%d\"%s>\n",
            panel_names[speed], pn.xmin, pn.xmax, pn.ymin, pn.ymax, pn.x0, y0,
            PANEL_W, PANEL_H,
            speed != P_COST ? ""
            : pn.wh         ? " data-unit=\"Wh\""
                            : " data-unit=\"s\"");
    axes(&pn, panel_titles[speed],
         speed == P_COST
             ? (pn.wh ? "Wh per right answer (GPU power.draw, lower is "
                        "better)"
                      : "server seconds per right answer (prompt + decode, "
                        "lower is better)")
         : speed ? "median decode tok/s on this GPU"
                 : "% of the reference's bytes");
    front(&pn, l, n,
          speed == P_COST ? cp.front
          : speed         ? pk->speed_front
                          : pk->bytes_front);
    marks_taken(&pn, l, n);
    /* points with the reference last, on top */
    for (p = n; p-- > 0;)
        if (known(&pn, grader_ladder_point(l, p)))
            point(&pn, l, pk, p, name_of(l, p));
    fputs("</g>\n", f);
}

/* Words wrapped into lines of at most WORDS_W characters (UTF-8 counted
 * as bytes: a little short, never long). */
static size_t wrap(FILE *f, const char *s, double x, double y)
{
    size_t lines = 0, len = strlen(s), start = 0;

    while (start < len) {
        size_t end = start + WORDS_W < len ? start + WORDS_W : len, cut = end;
        if (end < len)
            for (cut = end; cut > start && s[cut] != ' '; cut--)
                ;
        if (cut == start)
            cut = end;
        if (f != NULL) {
            char line[WORDS_W + 8];
            snprintf(line, sizeof(line), "%.*s", (int)(cut - start),
                     s + start);
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x,
                    y + (double)lines * LINE_H);
            xml(f, line);
            fputs("</text>\n", f);
        }
        lines++;
        start = cut < len && s[cut] == ' ' ? cut + 1 : cut;
    }
    return lines;
}

/* Points on the reference's own file (a ladder of settings): the grader
 * gives them no % of bytes, so the bytes panel leaves them off. */
static size_t same_file_points(const struct grader_ladder *l)
{
    const char *ref = grader_ladder_point(l, 0)->meta.sha256;
    size_t i, n = 0;

    for (i = 1; ref[0] != '\0' && i < l->pick.npoints; i++)
        n += strcmp(grader_ladder_point(l, i)->meta.sha256, ref) == 0;
    return n;
}

void render_pareto(FILE *f, const char *title, const struct grader_ladder *l)
{
    const struct grader_pick *pk = &l->pick;
    char words[1300], why[900] = "";
    int bytes = pk->npoints - pk->no_bytes >= 2 &&
                grader_ladder_point(l, 0)->pct_bytes >= 0;
    int speed = pk->npoints - pk->no_speed >= 2 &&
                grader_ladder_point(l, 0)->line->sum.median_tps >= 0;
    struct grader_cost_pick cp;
    int cost, panels;
    double width = PAD_L + PANEL_W + PAD_R + 16;
    double step = PANEL_H + BOTTOM + GAP_Y; /* one panel under the other */
    double y;
    size_t lines;

    grader_cost_pick(l, &cp);
    cost =
        cp.known >= 2 && grader_cost_x(grader_ladder_point(l, 0), cp.wh) >= 0;
    panels = bytes + speed + cost;
    memcpy(words, "Which one? ", 12);
    render_pick_words(words + 11, sizeof(words) - 11, l);
    if (!bytes && same_file_points(l) > 0)
        snprintf(why, sizeof(why),
                 "No file-size panel: %zu of the rungs run the reference's "
                 "own file (a ladder of settings) and save no bytes. ",
                 same_file_points(l));
    else if (!bytes)
        snprintf(why, sizeof(why),
                 "No file-size panel: the folder gives no bytes for %s "
                 "(ladder.tsv or rows/*.done). ",
                 grader_ladder_point(l, 0)->pct_bytes < 0 ? "the reference"
                                                          : "enough rungs");
    if (!speed)
        snprintf(why + strlen(why), sizeof(why) - strlen(why),
                 "No speed panel: %s no decode speed (decode_tps). ",
                 grader_ladder_point(l, 0)->line->sum.median_tps < 0
                     ? "the reference's rows give"
                     : "too few rungs' rows give");
    if (!cost)
        snprintf(why + strlen(why), sizeof(why) - strlen(why),
                 "No cost panel: %s no right answer with the server's "
                 "timings (prompt_ms, predicted_ms). ",
                 grader_cost_x(grader_ladder_point(l, 0), cp.wh) < 0
                     ? "the reference has"
                     : "too few rungs have");
    for (size_t k = strlen(why); k > 0 && why[k - 1] == ' ';)
        why[--k] = '\0'; /* each reason ends in a space for the next */
    lines = wrap(NULL, words, 0, 0) + (why[0] ? wrap(NULL, why, 0, 0) : 0);
    y = TOP + panels * step - (panels ? GAP_Y : 0) + 12;
    fmt_svg_open(f, width, y + (double)lines * LINE_H + 8, 16, 24, title);
    if (bytes)
        draw_panel(f, l, P_BYTES, TOP);
    if (speed)
        draw_panel(f, l, P_SPEED, TOP + (bytes ? step : 0));
    if (cost)
        draw_panel(f, l, P_COST, TOP + (bytes + speed) * step);
    y += LINE_H * (double)wrap(f, words, 16, y);
    if (why[0])
        wrap(f, why, 16, y);
    fputs("</svg>\n", f);
}

void render_pick_words(char *out, size_t size, const struct grader_ladder *l)
{
    const struct grader_pick *pk = &l->pick;
    const char *ref_name = name_of(l, 0);
    const struct grader_figures *ref = grader_ladder_point(l, 0), *s, *q;
    char a[FMT_SIZE], b[FMT_SIZE], c[FMT_SIZE], m[FMT_SIZE];
    size_t len;

    fmt_margin(m, l->margin_used);
    snprintf(out, size,
             "Equivalent means the rung's paired 90 %% interval of its "
             "change against %s lies inside \xc2\xb1%s points (two "
             "one-sided tests; docs/grading.md): an interval that merely "
             "includes zero may include a large loss as well. ",
             ref_name, m);
    len = strlen(out);
    if (pk->smallest < 0) {
        snprintf(out + len, size - len, "File sizes are not known. ");
    } else if (pk->smallest == 0) {
        snprintf(out + len, size - len,
                 "No smaller file is shown equivalent within \xc2\xb1%s "
                 "points. ",
                 m);
    } else {
        s = grader_ladder_point(l, (size_t)pk->smallest);
        snprintf(out + len, size - len,
                 "The smallest equivalent file: %s, %s %% of the "
                 "bytes, %s right against %s's %s. ",
                 name_of(l, (size_t)pk->smallest),
                 fmt_fixed(a, s->pct_bytes, 1),
                 fmt_count(b, (long long)s->line->sum.right), ref_name,
                 fmt_count(c, (long long)ref->line->sum.right));
    }
    len = strlen(out);
    if (pk->fastest < 0) {
        snprintf(out + len, size - len, "Decode speeds are not known.");
    } else if (pk->fastest == 0) {
        snprintf(out + len, size - len,
                 "No faster file is shown equivalent within \xc2\xb1%s "
                 "points.",
                 m);
    } else {
        q = grader_ladder_point(l, (size_t)pk->fastest);
        snprintf(out + len, size - len,
                 "The fastest equivalent file: %s, %s tok/s (%s\xc3\x97 "
                 "%s's), %s right.",
                 name_of(l, (size_t)pk->fastest),
                 fmt_fixed(a, q->line->sum.median_tps, 1),
                 fmt_fixed(b, q->speed_x, 2), ref_name,
                 fmt_count(c, (long long)q->line->sum.right));
    }
}
