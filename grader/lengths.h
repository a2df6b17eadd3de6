/*
 * lengths.h - length as an axis of the ladder (docs/longctx.md): for a
 * run of long items, each rung's figures at each prompt length, graded
 * against the reference at the same length.
 *
 * A long item's rows carry its target length in tokens and its needle's
 * depth (rows.h reads them into the qset: grader_qset_long). For each
 * length the rungs are cut down to that length's questions and buried as
 * a ladder of their own (ladder.h), so every figure of a cell (accuracy
 * and its interval, dead and ghosts, McNemar, the paired interval, the
 * verdict at the margin and the questions it would take) is the one the
 * ladder table computes, on those questions alone. Then each rung's first
 * length where it is not shown equivalent, and where in the prompt the
 * needles of its dead questions sat (by tenth of depth).
 *
 * Owned by the caller: grader_lengths_release. Pure: no file, no clock.
 */
#ifndef GRADER_LENGTHS_H
#define GRADER_LENGTHS_H

#include <stddef.h>

#include "ladder.h"

#define GRADER_MAX_LENGTHS 16 /* lengths of one run */
#define GRADER_DEPTH_BINS  10 /* 0-9 %, 10-19 %, ..., 90-100 % */

struct grader_lengths {
    size_t nlengths;
    long lengths[GRADER_MAX_LENGTHS]; /* ascending */
    size_t nrungs;                    /* chain rungs, the reference first */
    double margin; /* the margin every cell's verdict used, points: the one
                      asked (a length's ladder has no noise floor to raise
                      it, so it may be under the whole ladder's) */
    /* per[k]: the ladder of the questions of lengths[k] alone, its
     * rungs[i] rung i's figures there (with its verdict at the margin) */
    struct grader_ladder per[GRADER_MAX_LENGTHS];
    /* rung i's first length (an index into lengths) where its verdict is
     * not equivalent, -1 when it is equivalent at every length; -1 for
     * the reference */
    long first_not_eq[GRADER_MAX_RUNGS];
    /* and its first length where it is shown worse (the 95 % interval
     * below 0): where its cliff is; -1 when it is worse at none */
    long first_worse[GRADER_MAX_RUNGS];
    /* needles by depth: the reference-right questions (over every
     * length) whose needle sat in bin b, those of them rung i answered (a
     * partial rung may lack some) and those dead at rung i; a question
     * without a depth (common words) is in none */
    size_t asked_by_depth[GRADER_DEPTH_BINS];
    size_t answered_by_depth[GRADER_MAX_RUNGS][GRADER_DEPTH_BINS];
    size_t dead_by_depth[GRADER_MAX_RUNGS][GRADER_DEPTH_BINS];
    /* the same at each length alone (depth.svg): at lengths[k], the
     * reference-right questions whose needle sat in bin b, those of them
     * rung i answered (a partial rung may lack some) and those of them it
     * got wrong, dead; depth_asked_len[k] the first's sum over the bins
     * (0: no needle at that length, common words only), depth_answered[i]
     * the second's over every length and bin (0: a rung with no long row) */
    size_t depth_asked_at[GRADER_MAX_LENGTHS][GRADER_DEPTH_BINS];
    size_t depth_answered_at[GRADER_MAX_LENGTHS][GRADER_MAX_RUNGS]
                            [GRADER_DEPTH_BINS];
    size_t depth_dead_at[GRADER_MAX_LENGTHS][GRADER_MAX_RUNGS]
                        [GRADER_DEPTH_BINS];
    size_t depth_asked_len[GRADER_MAX_LENGTHS];
    size_t depth_answered[GRADER_MAX_RUNGS];
    /* the length at which each item first dies: an item is its question
     * id less an "@LENGTH" suffix that is its length (graveyard long's
     * ids), else the question alone; items_dead_at[i][k] counts the items
     * dead at rung i at lengths[k] and at no shorter length, items the
     * items the reference answered right at every length asked */
    size_t items_dead_at[GRADER_MAX_RUNGS][GRADER_MAX_LENGTHS];
    size_t items;
    /* questions of no length (a mixed file): counted, left out */
    size_t no_length;
    /* the rungs cut down to each length (grader_rung_at_length): the
     * ladders' lines point at them, so they live as long as l */
    struct grader_rung *cut[GRADER_MAX_LENGTHS][GRADER_MAX_RUNGS];
};

/*
 * The length axis of chain[0..nchain) (the reference first), read into
 * qs, with their metas (as grader_ladder_build) and the verdicts at
 * margin points (grader_ladder_verdicts). flags: GRADER_PARTIAL as for
 * bury. 0; GRADER_EARG when qs holds no length (not a long run), more
 * than GRADER_MAX_LENGTHS lengths, or nchain outside 2..GRADER_MAX_RUNGS;
 * GRADER_ENOMEM; or bury's errors for a length's questions (a rung that
 * lacks one the reference has, without GRADER_PARTIAL). On error nothing
 * needs releasing.
 */
int grader_lengths_build(const struct grader_qset *qs,
                         const struct grader_meta *metas,
                         const struct grader_rung *const *chain, size_t nchain,
                         double margin, unsigned flags,
                         struct grader_lengths *out, struct grader_error *err);

void grader_lengths_release(struct grader_lengths *l);

/* The share of the questions rung i answered at lengths[k] with their
 * needle in depth bin b that it lost (dead over answered, 0 to 1); -1
 * when there is none to count (no needle sat there, or the rung answered
 * none of them) or k, i or b is out of range: an empty cell, never 0. */
double grader_lengths_depth_lost(const struct grader_lengths *l, size_t k,
                                 size_t i, size_t b);

/* Rung r cut down to the questions of qs whose length is length (new,
 * grader_rung_free; no kept texts), or NULL out of memory. */
struct grader_rung *grader_rung_at_length(const struct grader_rung *r,
                                          const struct grader_qset *qs,
                                          long length);

#endif
