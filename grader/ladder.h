/*
 * ladder.h - every figure of one run folder's ladder, computed from its
 * rows: the ladder table with its intervals, the autopsy, the side rungs
 * beside the chain, and the repeat checks.
 *
 * The renderers (report/) only format what is here: a percentage, a
 * ratio or an interval a report prints is computed in this module, so it
 * is the same number in REPORT.md, report.json and any script's output.
 * docs/report.md says what each field means.
 */
#ifndef GRADER_LADDER_H
#define GRADER_LADDER_H

#include <stddef.h>
#include <stdint.h>

#include "bury.h"
#include "compare.h"
#include "cost.h"
#include "meta.h"
#include "probs.h"
#include "repeat.h"
#include "task.h"
#include "verdict.h"

struct grader_lengths;  /* lengths.h */
struct grader_duel_set; /* duel.h */

/* One rung's figures beside its bury line. */
struct grader_figures {
    const struct grader_bury_line *line; /* borrowed from the report */
    struct grader_autopsy_line autopsy;
    struct grader_meta meta;
    double acc;                /* right / n (0 when n is 0) */
    double acc_lo, acc_hi;     /* Wilson 95 % */
    double delta;              /* accuracy minus the reference's, paired
                                  over the questions both answered; 0 for
                                  the reference */
    double delta_lo, delta_hi; /* Newcombe's paired 95 % interval */
    double pct_bytes;          /* 100 * bytes / reference bytes; -1 unknown */
    double speed_x;            /* median decode tok/s / the reference's; -1 */
    /* censored answers: cut off at the token cap, empty content, or an
     * error (each answer counted once), and the bound they put on right:
     * right as counted, and right_max if every censored answer had been
     * right. Every answer stays in every denominator. */
    size_t censored, censored_right;
    size_t right_max;
    double acc_max; /* right_max / n (0 when n is 0) */
    /* constrained replies (the request carried a grammar or a JSON
     * schema, and the runner checked the reply against it): how many
     * were checked, and how many the server did not hold to it */
    size_t checked, violated;
    /* answers cut short as loops while they streamed (abort_loops), the
     * tokens of the cap they did not spend, and those tokens at the
     * rung's median decode speed (-1 when it has none) */
    size_t aborted;
    uint64_t tokens_saved;
    double seconds_saved;
    int above_floor; /* dead + ghosts against the ladder's floor: 1 above
                        it, 0 within it, -1 no floor (or the reference) */
    /* can it stand in for the reference: the verdict at the ladder's
     * margin (raised to the floor's share), with the questions it would
     * take to tell (verdict.h); kind GRADER_VERDICT_NONE at the
     * reference */
    struct grader_verdict verdict;
    struct grader_cost cost; /* what its right answers cost (cost.h) */
};

/* A side rung (a QAT file) set beside the chain rung nearest in bytes. */
struct grader_side {
    struct grader_figures f;
    long beside;           /* chain rung index, or -1 (bytes unknown) */
    size_t dead_both;      /* dead under both files */
    size_t dead_side_only; /* dead under the side file only */
    size_t dead_beside_only;
};

/*
 * The speed-accuracy picture's choices (report/pareto.c draws them).
 * Points are numbered chain first (0 the reference), then side rungs
 * (nchain + k). A point is on the bytes front when no other point has at
 * most its % of bytes and at least its accuracy with one of the two
 * strictly better; on the speed front likewise with median decode tok/s
 * (higher is better). A point with no bytes (speed) is on neither side's
 * front and counted in no_bytes (no_speed). The pick, the study's "which
 * one?": among the reference and the rungs whose verdict is equivalent
 * (verdict.h: the paired 90 % interval inside the margin; an interval
 * that merely includes zero may include a 10-point loss as well), the
 * smallest file and the fastest (ties: the more accurate, then the higher
 * up); 0 (the reference) when no rung equivalent is smaller (faster); -1
 * when none is known.
 */
struct grader_pick {
    size_t npoints;
    uint64_t bytes_front, speed_front; /* bit sets of points */
    uint64_t equivalent;               /* the reference and the points
                                          whose verdict is equivalent */
    size_t no_bytes, no_speed;
    long smallest, fastest;
};

struct grader_ladder {
    struct grader_bury chain; /* rungs[0] is the reference */
    struct grader_figures *rungs;
    struct grader_bury side;   /* reference + side rungs; nrungs 0 if none */
    struct grader_side *sides; /* side.nrungs - 1 of them */
    size_t nsides;
    struct grader_repeat_line *repeats; /* one per repeated rung */
    size_t nrepeats;
    uint32_t *order; /* the cover's columns: the reference's rows order */
    uint8_t *cells;  /* the chain's grid (compare.h, grader_grid) */
    size_t nq;
    struct grader_pick pick; /* pareto.svg's fronts and "which one?" */
    /* the noise floor: questions the reference grades differently when it
     * runs again (its repeat line's mismatched_right); -1 when there is no
     * repeat of the reference. A rung whose dead + ghosts is at most the
     * floor moved no more than the reference moves on its own. */
    long floor;
    double floor_points; /* the floor's share: 100 * floor / the questions
                            its repeat compared; -1 without a floor */
    double margin;       /* the margin asked for, points
                            (grader_ladder_verdicts) */
    double margin_used;  /* the margin the verdicts used: margin, or the
                            floor's share when bigger */
    int margin_raised;   /* 1 when the floor raised it */
    /* a task with several rules (task.h): every figure above is graded by
     * rules[0]; for each rule, each rung's (chain, then side rungs) right
     * answers, and the questions it grades differently from rules[0] at
     * that rung: the extraction's own noise, next to the quantization's
     * damage. nrules 0 when the report has one rule (grader_ladder_rules
     * fills it). */
    char rule[GRADER_TASK_NAME_MAX]; /* the rule graded by ("" unknown),
                                        a label the caller sets */
    size_t nrules, nrule_rungs;
    struct grader_rule_col {
        char name[GRADER_TASK_NAME_MAX];
        struct grader_rule_cell {
            size_t n, right;
            double acc;        /* right / n, 0 when n is 0 */
            size_t differ;     /* answered under both, right under one */
            size_t step_limit; /* graded by the rule's fallback: its
                                  pattern ran past its step budget */
        } * cells;             /* nrule_rungs */
    } rules[GRADER_TASK_MAX_RULES];
    /* where each rung's replies split from the reference's (probs.h):
     * set by the caller that read the rungs' probs files, NULL when none
     * has one (every report then as without logprobs); not owned */
    const struct grader_probs_ladder *probs;
    /* a ladder of settings: each speculative rung (a draft model) against
     * its rung without the draft, b the speculative one (repeat.h); set
     * by the caller, not owned; nspec 0 when none */
    const struct grader_repeat_line *spec;
    size_t nspec;
    /* a run of long items: each rung at each prompt length (lengths.h),
     * set by the caller that built it, not owned; NULL for any other run */
    const struct grader_lengths *lengths;
    /* the config's duels, A against B (duel.h): set by the caller that
     * built them (graveyard report), not owned; nduels 0 when none */
    const struct grader_duel_set *duels;
    size_t nduels;
};

/*
 * Build the report of chain[0..nchain) (reference first, in ladder
 * order) and side[0..nside) (buried against chain[0]), with metas[0..
 * nchain + nside) their metadata, chain first (the caller reads them:
 * rundir/meta.h). repeat_a/repeat_b[0..nrep) are
 * pairs of runs of one rung read with GRADER_READ_TEXT (may be empty);
 * they are compared on the questions both hold. All rungs must be in qs.
 * flags: GRADER_PARTIAL as for bury. Errors as grader_bury and
 * grader_repeat; on error nothing needs releasing.
 */
int grader_ladder_build(const struct grader_qset *qs,
                        const struct grader_meta *metas,
                        const struct grader_rung *const *chain, size_t nchain,
                        const struct grader_rung *const *side, size_t nside,
                        const struct grader_rung *const *repeat_a,
                        const struct grader_rung *const *repeat_b, size_t nrep,
                        unsigned flags, struct grader_ladder *out,
                        struct grader_error *err);

void grader_ladder_release(struct grader_ladder *r);

/*
 * The report's rules side by side: sets[k][0..nrungs) are the same rungs
 * (chain then side rungs, in the report's order) read in one qset by rule
 * names[k] of the task, sets[0] being the rungs the report was built
 * from. 0, GRADER_EARG (more than GRADER_TASK_MAX_RULES rules, rungs in
 * another order), or GRADER_ENOMEM; released with l.
 */
int grader_ladder_rules(struct grader_ladder *l, const char *const *names,
                        const struct grader_rung *const *const *sets,
                        size_t nrules, size_t nrungs,
                        struct grader_error *err);

/*
 * Every rung's verdict (chain and side rungs) against the reference at
 * margin points (outside (0, 100): GRADER_MARGIN_DEFAULT), raised to the
 * floor's share where that is bigger, and the pick that stands on them.
 * grader_ladder_build gives GRADER_MARGIN_DEFAULT; a caller with another
 * margin calls this after.
 */
void grader_ladder_verdicts(struct grader_ladder *l, double margin);

/* f's verdict from its bury line (f must not be the reference's). */
void grader_figures_verdict(struct grader_figures *f, double margin,
                            double floor_points);

/* The figures of point p (chain first, then side rungs). */
const struct grader_figures *grader_ladder_point(const struct grader_ladder *l,
                                                 size_t p);

/* Fill pk from l's figures (grader_ladder_build does, into l->pick). */
void grader_ladder_pick(const struct grader_ladder *l, struct grader_pick *pk);

/*
 * The figures of rung i of bury b against its reference, with meta and
 * the reference's meta (for % of bytes and speed): exposed for compare
 * and think, which put them in their own tables.
 */
void grader_figures_of(const struct grader_bury *b, size_t i,
                       const struct grader_meta *meta,
                       const struct grader_meta *ref_meta,
                       struct grader_figures *f);

#endif
