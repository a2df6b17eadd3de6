/*
 * md_verdict.c - the verdicts in REPORT.md: can a rung stand in for the
 * reference at the margin, and how many questions it would take to tell
 * (docs/grading.md, "Verdicts"). Every figure is the grader's (verdict.h);
 * this only words them.
 */
#include "md_verdict.h"

#include <stdio.h>

#include "fmt.h"

/* The question sets a count is set against: the 250 held-out questions
 * the project ships (data/gsm8k/heldout-250.jsonl) and GSM8K's test
 * split, 1,319, which docs/grading.md names. */
#define SHIPPED    250
#define GSM8K_TEST 1319

/* A margin as people write it: 2, 7.5, 12.5 (fmt_margin). */
static char *margin(char *out, double points)
{
    return fmt_margin(out, points);
}

char *render_verdict_words(char *out, const struct grader_verdict *v)
{
    char a[FMT_SIZE];
    const char *dir = v->shift < 0 ? "down" : "up";

    /* RENDER_VERDICT_SIZE is FMT_SIZE: the callers' buffers hold either */
    fmt_fixed(a, v->least, 1);
    switch (v->kind) {
    case GRADER_VERDICT_EQUIVALENT:
        if (v->shift != 0)
            snprintf(out, FMT_SIZE, "equivalent (\xe2\x89\xa5 %.20s %s)", a,
                     dir);
        else
            snprintf(out, FMT_SIZE, "equivalent");
        break;
    case GRADER_VERDICT_WORSE:
    case GRADER_VERDICT_BETTER:
        snprintf(out, FMT_SIZE, "%s, by \xe2\x89\xa5 %.20s",
                 grader_verdict_word(v->kind), a);
        break;
    case GRADER_VERDICT_CANNOT_TELL:
        snprintf(out, FMT_SIZE, "cannot tell");
        break;
    default:
        snprintf(out, FMT_SIZE, "%s", FMT_DASH);
    }
    return out;
}

void md_verdict_head(struct doc *d, const struct grader_ladder *rep)
{
    char m[FMT_SIZE];

    doc_cellf(d, "Verdict at \xc2\xb1%s points", margin(m, rep->margin_used));
}

void md_verdict_note(struct doc *d, const struct grader_ladder *rep)
{
    const char *ref = rep->chain.lines[0].rung->name;
    char m[FMT_SIZE], u[FMT_SIZE];

    margin(m, rep->margin);
    margin(u, rep->margin_used);
    doc_raw(d,
            " Verdict: equivalent when the change's paired 90 %% interval "
            "lies inside \xc2\xb1%s points (two one-sided tests at 5 %%); "
            "worse or better when its 95 %% interval lies below or above "
            "zero, by at least the end nearest zero; otherwise cannot "
            "tell (docs/grading.md, \"Verdicts\"). An interval that only "
            "includes zero may include a large loss as well.",
            u);
    if (rep->margin_raised)
        doc_raw(d,
                " The margin asked was \xc2\xb1%s points, but %s, run a "
                "second time, grades %s points' worth of questions "
                "differently on its own (the noise floor, below): a margin "
                "smaller than that cannot be claimed, so the verdicts use "
                "\xc2\xb1%s.",
                m, ref, u, u);
}

/* A count of questions and the sets that reach it. */
static void needed_cell(struct doc *d, long long n)
{
    char a[FMT_SIZE];

    if (n < 0)
        doc_cellf(d, "%s", FMT_DASH);
    else if (n <= SHIPPED)
        doc_cellf(d, "%s (within the %d shipped)", fmt_count(a, n), SHIPPED);
    else if (n <= GSM8K_TEST)
        doc_cellf(d, "%s (within GSM8K's 1,319)", fmt_count(a, n));
    else
        doc_cellf(d, "%s (past GSM8K's 1,319)", fmt_count(a, n));
}

static void needed_row(struct doc *d, const struct grader_figures *x)
{
    const struct grader_verdict *v = &x->verdict;
    char a[FMT_SIZE], b[FMT_SIZE];

    doc_row(d);
    doc_cell(d);
    doc_rung(d, x->line->rung->name, 0);
    doc_cellf(d, "%s", fmt_count(a, (long long)x->line->sum.n));
    doc_cellf(d, "%s %%", fmt_fixed(b, 100.0 * v->discordant, 1));
    doc_cellf(d, "%s", fmt_pp_ci(a, x->delta, v->lo90, v->hi90));
    needed_cell(d, v->n_power);
    needed_cell(d, v->n_equiv);
}

void md_verdict_table(struct doc *d, const struct grader_ladder *rep)
{
    static const char *const cols[] = {"Rung",
                                       "Questions",
                                       "Discordant (dead + ghosts)",
                                       "Change, points (90 % CI)",
                                       "Questions for McNemar at 80 % power",
                                       "Questions for the equivalence test"};
    size_t n = rep->chain.nrungs + rep->nsides, p, k, some = 0;
    char u[FMT_SIZE];

    for (p = 1; p < n; p++)
        some += grader_ladder_point(rep, p)->verdict.kind ==
                GRADER_VERDICT_CANNOT_TELL;
    if (some == 0)
        return;
    margin(u, rep->margin_used);
    doc_heading(d, 2);
    doc_raw(d, "How many questions would tell?");
    doc_para(d);
    doc_raw(d,
            "For each rung that cannot tell yet, from its share of "
            "discordant questions: the questions at which McNemar's test "
            "(5 %%, two-sided) would find a %s-point change with 80 %% "
            "power (Connor 1987), and those at which the equivalence test "
            "would conclude if the change and the discordant share held "
            "(none when the change is already \xc2\xb1%s or more). In "
            "brackets, whether the %d questions the project ships or "
            "GSM8K's 1,319 reach it.",
            u, u, SHIPPED);
    doc_table(d, "lrrrrr");
    doc_row(d);
    for (k = 0; k < sizeof(cols) / sizeof(cols[0]); k++)
        doc_cellf(d, "%s", cols[k]);
    for (p = 1; p < n; p++) {
        const struct grader_figures *x = grader_ladder_point(rep, p);
        if (x->verdict.kind == GRADER_VERDICT_CANNOT_TELL)
            needed_row(d, x);
    }
}
