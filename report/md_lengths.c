/*
 * md_lengths.c - a run of long items in REPORT.md and the page: each rung
 * at each prompt length against the reference at the same length, the
 * first length where it is not shown equivalent, and where in the prompt
 * its lost needles sat (grader/lengths.h computes every figure).
 */
#include "md_lengths.h"

#include "fmt.h"

/* "16,384 tokens" */
static void length_words(struct doc *d, long length)
{
    char a[FMT_SIZE];

    doc_raw(d, "%s tokens", fmt_count(a, length));
}

/* One cell: accuracy with its interval; for a rung, its dead, its
 * agreement with the reference and its verdict at the margin. */
static void cell(struct doc *d, const struct grader_figures *x, int ref)
{
    char a[FMT_SIZE], b[FMT_SIZE], c[FMT_SIZE], e[FMT_SIZE];

    if (x->line->sum.n == 0) {
        doc_cellf(d, "%s", FMT_DASH);
        return;
    }
    if (ref) {
        doc_cellf(d, "%s", fmt_pct_ci(a, x->acc, x->acc_lo, x->acc_hi));
        return;
    }
    doc_cellf(d, "%s, %s dead, agrees on %s %%, %s",
              fmt_pct_ci(a, x->acc, x->acc_lo, x->acc_hi),
              fmt_count(b, (long long)x->line->dead),
              fmt_fixed(c, 100.0 * (1.0 - x->verdict.discordant), 1),
              render_verdict_words(e, &x->verdict));
}

/* The first length where rung i is not shown equivalent, and what it
 * would take to tell when it cannot be told there. */
static void first_cell(struct doc *d, const struct grader_lengths *l, size_t i)
{
    long k = l->first_not_eq[i];
    const struct grader_verdict *v;
    char a[FMT_SIZE], b[FMT_SIZE];
    long long n;

    doc_cell(d);
    if (i == 0) {
        doc_raw(d, "%s", FMT_DASH);
        return;
    }
    if (k < 0) {
        doc_raw(d, "none: equivalent at every length");
        return;
    }
    v = &l->per[k].rungs[i].verdict;
    length_words(d, l->lengths[k]);
    n = v->n_equiv >= 0 ? v->n_equiv : v->n_power;
    if (v->kind == GRADER_VERDICT_CANNOT_TELL && n > 0)
        doc_raw(d, " (cannot tell; %s questions there would tell)",
                fmt_count(b, n));
    else
        doc_raw(d, " (%s)", render_verdict_words(a, v));
}

/* The first length where rung i is shown worse: its cliff. */
static void worse_cell(struct doc *d, const struct grader_lengths *l, size_t i)
{
    long k = l->first_worse[i];

    doc_cell(d);
    if (i == 0 || k < 0) {
        doc_raw(d, "%s", i == 0 ? FMT_DASH : "none");
        return;
    }
    length_words(d, l->lengths[k]);
}

static void by_length(struct doc *d, const struct grader_ladder *rep)
{
    const struct grader_lengths *l = rep->lengths;
    const char *ref = rep->chain.lines[0].rung->name;
    char align[GRADER_MAX_LENGTHS + 5], m[FMT_SIZE];
    size_t i, k;

    for (k = 0; k < l->nlengths; k++)
        align[1 + k] = 'l';
    align[0] = 'l';
    align[1 + l->nlengths] = 'l';
    align[2 + l->nlengths] = 'l';
    align[3 + l->nlengths] = '\0';
    doc_heading(d, 2);
    doc_raw(d, "Length: where each rung's answers die");
    doc_image(d,
              "Each rung at each prompt length against the reference at the "
              "same length: accuracy, dead and the verdict; a thick frame "
              "marks the first length a rung is shown worse",
              "lengths.svg", 1);
    doc_para(d);
    doc_raw(d,
            "Every rung answered every item at every length; each cell is "
            "graded against %s at the same length: accuracy with its "
            "Wilson 95 %% interval, the questions dead there (%s right, "
            "this rung wrong), the share of questions on which the two "
            "agree, and the verdict at %s%s points on those questions "
            "alone (docs/grading.md, \"Verdicts\"). A length is the "
            "prompt's target in the server's own tokens (docs/longctx.md).",
            ref, ref, "\xc2\xb1", fmt_margin(m, l->margin));
    doc_table(d, align);
    doc_row(d);
    doc_cellf(d, "Rung");
    for (k = 0; k < l->nlengths; k++) {
        doc_cell(d);
        length_words(d, l->lengths[k]);
    }
    doc_cellf(d, "First length not shown equivalent");
    doc_cellf(d, "First length shown worse");
    for (i = 0; i < l->nrungs; i++) {
        doc_row(d);
        doc_cell(d);
        doc_rung(d, rep->chain.lines[i].rung->name, 0);
        for (k = 0; k < l->nlengths; k++)
            cell(d, &l->per[k].rungs[i], i == 0);
        first_cell(d, l, i);
        worse_cell(d, l, i);
    }
    if (l->no_length > 0) {
        doc_para(d);
        doc_raw(d,
                "%zu question%s of no length (a question file mixing long "
                "items with others) are in the ladder above and in no "
                "column here.",
                l->no_length, l->no_length == 1 ? "" : "s");
    }
}

static void by_depth(struct doc *d, const struct grader_ladder *rep)
{
    const struct grader_lengths *l = rep->lengths;
    size_t i, b, asked = 0;
    char a[FMT_SIZE], c[FMT_SIZE];

    for (b = 0; b < GRADER_DEPTH_BINS; b++)
        asked += l->asked_by_depth[b];
    if (asked == 0)
        return;
    doc_heading(d, 2);
    doc_raw(d, "Where the lost needles sat");
    if (render_depth_has(rep))
        doc_image(d,
                  "Each rung (at each length) by where in the prompt the "
                  "needle sat: of the questions the reference answered "
                  "right there, those the rung lost, darker the more; a "
                  "dashed empty cell has nothing to count",
                  "depth.svg", 1);
    doc_para(d);
    doc_raw(d,
            "The questions %s answered right, over every length, by where "
            "in the prompt their needle sat (0 %% the start, 100 %% the "
            "end), and of those each rung answered the ones it lost (a "
            "dash: it answered none there). Common-words items have no "
            "needle and are left out.",
            rep->chain.lines[0].rung->name);
    doc_table(d, "lrrrrrrrrrr");
    doc_row(d);
    doc_cellf(d, "Rung");
    for (b = 0; b < GRADER_DEPTH_BINS; b++)
        doc_cellf(d, "%zu\xe2\x80\x93%zu %%", b * 10,
                  b + 1 == GRADER_DEPTH_BINS ? 100 : b * 10 + 9);
    for (i = 0; i < l->nrungs; i++) {
        doc_row(d);
        doc_cell(d);
        doc_rung(d, rep->chain.lines[i].rung->name, 0);
        for (b = 0; b < GRADER_DEPTH_BINS; b++) {
            if (i == 0)
                doc_cellf(d, "%s asked",
                          fmt_count(a, (long long)l->asked_by_depth[b]));
            else if (l->answered_by_depth[i][b] == 0) /* none answered */
                doc_cellf(d, "%s", FMT_DASH);
            else
                doc_cellf(d, "%s of %s",
                          fmt_count(a, (long long)l->dead_by_depth[i][b]),
                          fmt_count(c, (long long)l->answered_by_depth[i][b]));
        }
    }
}

/* The length at which each item first dies, at each rung. */
static void first_deaths(struct doc *d, const struct grader_ladder *rep)
{
    const struct grader_lengths *l = rep->lengths;
    char align[GRADER_MAX_LENGTHS + 3], a[FMT_SIZE];
    size_t i, k;

    if (l->items == 0 || l->nlengths < 2)
        return;
    align[0] = 'l';
    for (k = 0; k <= l->nlengths; k++)
        align[1 + k] = 'r';
    align[2 + l->nlengths] = '\0';
    doc_heading(d, 2);
    doc_raw(d, "The length where each item first dies");
    doc_para(d);
    doc_raw(d,
            "Each of the %zu items %s answered right at every length, by "
            "the shortest length at which it died at each rung (an item is "
            "one question asked at every length).",
            l->items, rep->chain.lines[0].rung->name);
    doc_table(d, align);
    doc_row(d);
    doc_cellf(d, "Rung");
    for (k = 0; k < l->nlengths; k++) {
        doc_cell(d);
        doc_raw(d, "First dead at ");
        length_words(d, l->lengths[k]);
    }
    doc_cellf(d, "Never dead");
    for (i = 1; i < l->nrungs; i++) {
        size_t dead = 0;
        doc_row(d);
        doc_cell(d);
        doc_rung(d, rep->chain.lines[i].rung->name, 1);
        for (k = 0; k < l->nlengths; k++) {
            dead += l->items_dead_at[i][k];
            doc_cellf(d, "%s",
                      fmt_count(a, (long long)l->items_dead_at[i][k]));
        }
        doc_cellf(d, "%s", fmt_count(a, (long long)(l->items - dead)));
    }
}

void md_lengths(struct doc *d, const struct grader_ladder *rep)
{
    if (rep->lengths == NULL || rep->lengths->nlengths == 0)
        return;
    by_length(d, rep);
    first_deaths(d, rep);
    by_depth(d, rep);
}
