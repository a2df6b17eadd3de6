/*
 * md_probs.c - "Where they split": per rung, how far its next-token
 * distributions moved from the reference's (top-N KLD along the shared
 * prefix) beside how many answers flipped, where the replies split, and
 * whether the questions that died were those the reference was least
 * sure of. Figures from grader_probs_ladder (probs.h); nothing computed
 * here. docs/report.md says how to read them.
 */
#include "md_probs.h"

#include "fmt.h"

void md_probs_kld_cell(struct doc *d, const struct grader_ladder *rep,
                       size_t i)
{
    const struct grader_probs_ladder *p = rep->probs;
    char a[FMT_SIZE];

    if (p == NULL)
        return;
    if (i == 0 || i >= p->nrungs || i >= 64 || !p->have[i])
        doc_cellf(d, "%s", FMT_DASH);
    else
        doc_cellf(d, "%s", fmt_signed(a, p->rung[i].kld_mean, 4));
}

static void probs_head(struct doc *d)
{
    static const char *const cols[] = {"Rung",
                                       "Flips (dead + ghosts)",
                                       "Mean KLD",
                                       "p99 KLD",
                                       "Answers split",
                                       "Split and died",
                                       "Split and survived",
                                       "Median split position %",
                                       "Fragility AUC"};

    doc_table(d, "lrrrrrrrr");
    doc_row(d);
    for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
        doc_cellf(d, "%s", cols[i]);
}

static void probs_row(struct doc *d, const char *name,
                      const struct grader_probs_rung *r, int have)
{
    char a[FMT_SIZE];

    doc_row(d);
    doc_cell(d);
    doc_rung(d, name, 0);
    if (!have) {
        for (int k = 0; k < 8; k++)
            doc_cellf(d, "%s", FMT_DASH);
        return;
    }
    doc_cellf(d, "%zu", r->flips);
    doc_cellf(d, "%s", fmt_signed(a, r->kld_mean, 4));
    doc_cellf(d, "%s", fmt_signed(a, r->kld_p99, 4));
    doc_cellf(d, "%zu of %zu", r->split, r->both);
    doc_cellf(d, "%zu", r->split_died);
    doc_cellf(d, "%zu", r->split_survived);
    doc_cellf(d, "%s", fmt_signed(a, 100.0 * r->split_pos_median, 1));
    doc_cellf(d, "%s", fmt_signed(a, r->fragility_auc, 2));
}

/* Each rung whose answers lack their records (figures_probs.c counts
 * them): its figures above leave them out, which "0 of 0" or a dash
 * alone would not say. */
static void probs_unrecorded(struct doc *d, const struct grader_ladder *rep,
                             size_t n)
{
    const struct grader_probs_ladder *p = rep->probs;

    for (size_t i = 0; i < n && i < 64; i++) {
        size_t k = p->unrecorded[i];
        if (k == 0)
            continue;
        doc_para(d);
        doc_bold(d, "Warning:");
        doc_raw(d, " rung ");
        doc_rung(d, rep->chain.lines[i].rung->name, 0);
        doc_raw(d,
                ": %zu answer%s no probs record (%s): %s figures leave %s "
                "out. A finished rung's record is gone for good: run the "
                "rung again into another folder to have them.",
                k, k == 1 ? " has" : "s have",
                !p->have[i]          ? "no probs file"
                : p->records[i] == 0 ? "an empty probs file"
                                     : "a record cut back or lost",
                i == 0 ? "every rung's" : "its", k == 1 ? "it" : "them");
    }
}

/* Spearman's rho of flips against mean KLD, and what it is measured
 * against. */
static void probs_spearman(struct doc *d, const struct grader_probs_ladder *p,
                           size_t with)
{
    char a[FMT_SIZE];

    doc_para(d);
    if (p->spearman == p->spearman) {
        doc_raw(d,
                "Across the %zu rungs with a probs file, Spearman's \xcf\x81 "
                "of flips against mean KLD is %s. Dutta et al. (\"Accuracy "
                "is Not All You Need\", 2024) found about 0.98 across "
                "quantization schemes; a \xcf\x81 well below that says KLD "
                "does not order these rungs as their answers do, and the "
                "flips are the figure to read.",
                with, fmt_signed(a, p->spearman, 2));
        return;
    }
    doc_raw(d,
            "Spearman's \xcf\x81 of flips against mean KLD: %s (it needs "
            "three rungs with a probs file or more, here %zu, whose flips "
            "and KLD are not all tied).",
            FMT_DASH, with);
}

/* The repeat's check: the reference run again with logprobs must give
 * KLD 0 and no split, or every figure above holds the server's own
 * noise. */
static void probs_repeat(struct doc *d, const struct grader_probs_ladder *p,
                         const char *ref)
{
    char a[FMT_SIZE];

    doc_para(d);
    if (!p->repeat) {
        doc_raw(d,
                "No repeat of %s with log-probabilities here: nothing "
                "checks that a second run of it gives KLD 0 and no split (",
                ref);
        doc_tick(d, "graveyard ladder --repeat-reference");
        doc_raw(d, " with ");
        doc_tick(d, "logprobs");
        doc_raw(d, " on makes one).");
        return;
    }
    if (p->repeat_kld_mean == 0.0 && p->repeat_split == 0) {
        doc_raw(d, "A repeat of the reference gave mean KLD 0 and no split: "
                   "the run is deterministic.");
        return;
    }
    doc_bold(d, "Warning:");
    doc_raw(d,
            " a repeat of the reference (%s) gave mean KLD %s and %zu "
            "answer%s split, where a deterministic run gives 0 and none: "
            "part of each rung's KLD and splits above is the server's own "
            "noise.",
            ref, fmt_signed(a, p->repeat_kld_mean, 4), p->repeat_split,
            p->repeat_split == 1 ? "" : "s");
}

void md_probs(struct doc *d, const struct grader_ladder *rep)
{
    const struct grader_probs_ladder *p = rep->probs;
    const char *ref = rep->chain.lines[0].rung->name;
    size_t i, with = 0, n;

    if (p == NULL)
        return;
    n = rep->chain.nrungs < p->nrungs ? rep->chain.nrungs : p->nrungs;
    doc_heading(d, 2);
    doc_raw(d, "Where they split");
    doc_para(d);
    doc_raw(d,
            "Every token came with the server's top %u log-probabilities. "
            "Greedy decoding gives a rung and %s the same context up to the "
            "first token where their replies differ, the split; the KLD is "
            "KL(%s \xe2\x80\x96 rung) of the two top-%u distributions at "
            "each token of that shared prefix, the split included, natural "
            "log, a token in both lists a bucket of its own and all else "
            "one \"other\" bucket a side (a lower bound "
            "of the full KLD: docs/grading.md, \"Where they split\").",
            p->topn, ref, ref, p->topn);
    probs_head(d);
    for (i = 1; i < n && i < 64; i++) {
        with += p->have[i] != 0;
        probs_row(d, rep->chain.lines[i].rung->name, &p->rung[i], p->have[i]);
    }
    doc_para(d);
    doc_raw(d,
            "Flips: dead + ghosts among the answers compared. Mean and p99 "
            "KLD: over every shared-prefix token of the rung's answers. "
            "Answers split: replies whose tokens differ somewhere, of those "
            "compared. Split and died: %s right, the rung wrong; split and "
            "survived: the replies differ but the graded answer does not "
            "change. Median split position: where the split falls, as a "
            "share of %s's reply. Fragility AUC: how well %s's smallest "
            "margin (top-1 minus top-2 log-probability) along its reply "
            "predicts which of its right answers die at the rung: 0.5 is "
            "chance, 1 the least sure always die first. %s: not measured "
            "(no probs file, no death or no survivor, or N = 1).",
            ref, ref, ref, FMT_DASH);
    probs_unrecorded(d, rep, n);
    probs_spearman(d, p, with);
    probs_repeat(d, p, ref);
}
