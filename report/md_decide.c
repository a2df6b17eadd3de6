/*
 * md_decide.c - the answer first: "Which file?", the decision block that
 * opens REPORT.md, the page (above the grid) and the terminal's summary
 * of graveyard report and ladder (render_decision_lines). Every figure is
 * the grader's: the picks and the questions that would tell at each
 * margin (decide.h), each rung's change, verdict and dead (ladder.h) and
 * its cost per right answer (cost.h); this only words them, the same
 * words in all three.
 */
#include "md_decide.h"

#include <string.h>

#include "fmt.h"
#include "md_differs.h"

/* The terminal's width. */
#define COLS 80

static const char *name_of(const struct grader_ladder *rep, long p)
{
    return grader_ladder_point(rep, (size_t)p)->line->rung->name;
}

/* One margin's answer on one axis (speed: the fastest, else the
 * smallest) in words, into out[FMT_SIZE * 2]. */
static char *answer(char *out, const struct grader_ladder *rep,
                    const struct grader_decide *dc,
                    const struct grader_decision *x, int speed)
{
    long pick = speed ? x->fastest : x->smallest;
    long long n = speed ? x->fast_n : x->small_n;
    long by = speed ? x->fast_by : x->small_by;
    size_t better = speed ? x->n_faster : x->n_smaller;
    char a[FMT_SIZE], b[FMT_SIZE];
    const size_t size = FMT_SIZE * 2;

    fmt_count(a, (long long)dc->questions);
    if (pick < 0) {
        snprintf(out, size, "%s not known",
                 speed ? "decode speeds" : "file sizes");
    } else if (pick > 0) {
        const struct grader_figures *f = grader_ladder_point(rep, pick);
        snprintf(out, size, "%.40s: %s %% of the bytes, %s tok/s",
                 name_of(rep, pick), fmt_fixed(a, f->pct_bytes, 1),
                 fmt_fixed(b, f->line->sum.median_tps, 1));
    } else if (better == 0) {
        snprintf(out, size, "no file is %s than %.40s",
                 speed ? "faster" : "smaller", name_of(rep, 0));
    } else if (n < 0) {
        snprintf(out, size,
                 "none can be told with %s questions, nor would more tell "
                 "one",
                 a);
    } else {
        snprintf(out, size,
                 "none can be told with %s questions; %s would tell %.40s", a,
                 fmt_count(b, n), name_of(rep, by));
    }
    return out;
}

/* "±2", "±1 (raised to ±3.2 by the floor)" into out[FMT_SIZE]. */
static char *margin_words(char *out, const struct grader_decision *x)
{
    char a[FMT_SIZE], b[FMT_SIZE];

    fmt_margin(a, x->asked);
    if (x->margin_raised)
        snprintf(out, FMT_SIZE,
                 "\xc2\xb1%.24s (raised to \xc2\xb1%.24s by the floor)", a,
                 fmt_margin(b, x->margin));
    else
        snprintf(out, FMT_SIZE, "\xc2\xb1%.24s", a);
    return out;
}

/* A rung's cost per right answer as the cost panel counts it. */
static char *cost_words(char *out, const struct grader_figures *f, int wh)
{
    double x = grader_cost_x(f, wh);

    if (x < 0)
        return strcpy(out, FMT_DASH);
    if (!wh)
        return fmt_fixed(out, x, 2);
    return fmt_fixed(out, x, x < 0.01 ? 5 : x < 0.1 ? 4 : 3);
}

static void margin_table(struct doc *d, const struct grader_ladder *rep,
                         const struct grader_decide *dc)
{
    char w[FMT_SIZE * 2], f[FMT_SIZE * 2], m[FMT_SIZE];

    doc_table(d, "lll");
    doc_row(d);
    doc_cellf(d, "Margin, points");
    doc_cellf(d, "Smallest equivalent");
    doc_cellf(d, "Fastest equivalent");
    for (size_t i = 0; i < dc->n; i++) {
        const struct grader_decision *x = &dc->d[i];
        doc_row(d);
        doc_cell(d);
        if (x->own) {
            doc_bold(d, "%s", margin_words(m, x));
            doc_raw(d, " (this run's)");
        } else {
            doc_raw(d, "%s", margin_words(m, x));
        }
        doc_cellf(d, "%s", answer(w, rep, dc, x, 0));
        /* the same words twice are said once */
        if (strcmp(w, answer(f, rep, dc, x, 1)) == 0)
            doc_cellf(d, "the same");
        else
            doc_cellf(d, "%s", f);
    }
}

static void rung_table(struct doc *d, const struct grader_ladder *rep)
{
    const char *ref = name_of(rep, 0);
    size_t p, n = rep->chain.nrungs + rep->nsides;
    char a[FMT_SIZE], m[FMT_SIZE];
    struct grader_cost_pick cp;

    grader_cost_pick(rep, &cp);
    doc_table(d, "lrlrlr");
    doc_row(d);
    doc_cellf(d, "Rung");
    doc_cellf(d, "%% of %s bytes", ref);
    doc_cellf(d, "Change, points (95 %% CI)");
    doc_cellf(d, "Dead");
    doc_cellf(d, "Verdict at \xc2\xb1%s", fmt_margin(m, rep->margin_used));
    doc_cellf(d, "%s per right", cp.wh ? "Wh" : "Seconds");
    for (p = 0; p < n; p++) {
        const struct grader_figures *f = grader_ladder_point(rep, p);
        doc_row(d);
        doc_cell(d);
        doc_rung(d, f->line->rung->name, 0);
        if (p > 0 && md_same_file(f, &rep->rungs[0]))
            doc_cellf(d, "same file");
        else
            doc_cellf(d, "%s", fmt_fixed(a, f->pct_bytes, 1));
        if (p == 0) {
            doc_cellf(d, "%s", FMT_DASH);
            doc_cellf(d, "%s", FMT_DASH);
            doc_cellf(d, "%s", FMT_DASH);
        } else {
            doc_cellf(d, "%s",
                      fmt_pp_ci(a, f->delta, f->delta_lo, f->delta_hi));
            doc_cellf(d, "%zu", f->line->dead);
            doc_cellf(d, "%s", render_verdict_words(a, &f->verdict));
        }
        doc_cellf(d, "%s", cost_words(a, f, cp.wh));
    }
}

void md_decision(struct doc *d, const struct grader_ladder *rep)
{
    struct grader_decide dc;

    grader_decide_ladder(rep, &dc);
    doc_top_begin(d);
    doc_heading(d, 2);
    doc_raw(d, "Which file?");
    doc_para(d);
    doc_raw(d,
            "Equivalent to %s: the change's paired 90 %% interval lies "
            "inside \xc2\xb1margin (docs/grading.md, \"Verdicts\"). "
            "\"Would tell\": the questions at which it would, if the "
            "rung's change and discordant share held.",
            name_of(rep, 0));
    margin_table(d, rep, &dc);
    rung_table(d, rep);
    doc_top_end(d);
}

/* ---- the terminal ------------------------------------------------------ */

/* Columns s takes: its UTF-8 characters (each of the report's is one
 * column wide). */
static size_t cols(const char *s)
{
    size_t n = 0;

    for (; *s != '\0'; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* s, then spaces to width columns. */
static void pad(FILE *f, const char *s, size_t width, int right)
{
    size_t c = cols(s);

    if (right)
        for (; c < width; c++)
            fputc(' ', f);
    fputs(s, f);
    if (!right)
        for (; c < width; c++)
            fputc(' ', f);
}

/* lead (indent columns, padded), then text's words, a line at most COLS
 * columns: the lines after the first indented as far as the text. */
static void wrapped(FILE *f, const char *lead, size_t indent, const char *text)
{
    size_t at = indent;
    const char *w = text;

    pad(f, lead, indent, 0);
    while (*w != '\0') {
        size_t len = strcspn(w, " "), c;
        char word[FMT_SIZE * 2];
        snprintf(word, sizeof(word), "%.*s", (int)len, w);
        c = cols(word);
        if (at > indent && at + 1 + c > COLS) {
            fprintf(f, "\n%*s", (int)indent, "");
            at = indent;
        } else if (at > indent) {
            fputc(' ', f);
            at++;
        }
        fputs(word, f);
        at += c;
        w += len;
        while (*w == ' ')
            w++;
    }
    fputc('\n', f);
}

/* The per-rung lines: columns as wide as their widest cell; a verdict
 * past COLS goes on a line of its own. */
static void rung_lines(FILE *f, const struct grader_ladder *rep)
{
    size_t p, n = rep->chain.nrungs + rep->nsides, wn = 4, wc = 6;
    char a[FMT_SIZE], c[FMT_SIZE], v[FMT_SIZE], k[FMT_SIZE], m[FMT_SIZE];
    struct grader_cost_pick cp;
    size_t at;

    grader_cost_pick(rep, &cp);
    for (p = 0; p < n; p++) {
        const struct grader_figures *x = grader_ladder_point(rep, p);
        size_t w = cols(x->line->rung->name);
        wn = w > wn ? (w > 24 ? 24 : w) : wn;
        w = p ? cols(fmt_pp_ci(c, x->delta, x->delta_lo, x->delta_hi)) : 0;
        wc = w > wc ? w : wc;
    }
    at = 2 + wn + 2 + 7 + 2 + wc + 2 + 4 + 2 + 9 + 2;
    snprintf(v, sizeof(v), "verdict at \xc2\xb1%s",
             fmt_margin(m, rep->margin_used));
    fputs("  ", f);
    pad(f, "rung", wn, 0);
    fprintf(f, "  %% bytes  ");
    pad(f, "change", wc, 0);
    fprintf(f, "  dead  %9s%s%s\n", cp.wh ? "Wh/right" : "s/right",
            at + cols(v) > COLS ? "\n    " : "  ", v);
    for (p = 0; p < n; p++) {
        const struct grader_figures *x = grader_ladder_point(rep, p);
        snprintf(a, sizeof(a), "%.24s", x->line->rung->name);
        fputs("  ", f);
        pad(f, a, wn, 0);
        fputs("  ", f);
        pad(f, fmt_fixed(a, x->pct_bytes, 1), 7, 1);
        fputs("  ", f);
        pad(f, p ? fmt_pp_ci(c, x->delta, x->delta_lo, x->delta_hi) : FMT_DASH,
            wc, 0);
        snprintf(k, sizeof(k), "%zu", x->line->dead);
        fputs("  ", f);
        pad(f, p ? k : FMT_DASH, 4, 1);
        fputs("  ", f);
        pad(f, cost_words(a, x, cp.wh), 9, 1);
        render_verdict_words(v, &x->verdict);
        if (at + cols(v) > COLS)
            fprintf(f, "\n%*s", 4, "");
        else
            fputs("  ", f);
        fprintf(f, "%s\n", v);
    }
}

int render_decision_lines(FILE *f, const struct grader_ladder *rep)
{
    struct grader_decide dc;
    char w[FMT_SIZE * 3], ans[FMT_SIZE * 2], m[FMT_SIZE];
    char lead[FMT_SIZE + 16];

    grader_decide_ladder(rep, &dc);
    snprintf(w, sizeof(w),
             "Equivalent to %.40s: the change's paired 90 %% interval "
             "inside \xc2\xb1margin (docs/grading.md).",
             name_of(rep, 0));
    wrapped(f, "Which file?", 12, w);
    for (size_t i = 0; i < dc.n; i++) {
        const struct grader_decision *x = &dc.d[i];
        snprintf(lead, sizeof(lead), "  %s%s", margin_words(m, x),
                 x->own ? " *" : "");
        if (cols(lead) > 12) { /* a raised margin: a line of its own */
            fprintf(f, "%s\n", lead);
            lead[0] = '\0';
        }
        snprintf(w, sizeof(w), "smallest: %s", answer(ans, rep, &dc, x, 0));
        wrapped(f, lead, 12, w);
        /* the same words twice are said once, as in REPORT.md */
        if (strcmp(w + 10, answer(ans, rep, &dc, x, 1)) == 0)
            snprintf(w, sizeof(w), "fastest: the same");
        else
            snprintf(w, sizeof(w), "fastest: %s", ans);
        wrapped(f, "", 12, w);
    }
    fprintf(f, "  (* this run's margin)\n");
    rung_lines(f, rep);
    return ferror(f) ? -1 : 0;
}
