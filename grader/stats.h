/*
 * stats.h - the few statistics the study reports: a rung's summary line
 * and the exact sign (McNemar) test of dead against ghosts.
 */
#ifndef GRADER_STATS_H
#define GRADER_STATS_H

#include <stddef.h>

#include "rows.h"

/* The per-rung summary line of METHOD.md, computed from the rows. */
struct grader_summary {
    size_t n; /* rows */
    size_t right;
    size_t errors;      /* rows with an error */
    size_t truncated;   /* cut off at the token cap */
    size_t step_limit;  /* graded by the rule's fallback: its pattern ran
                           past its step budget on the reply */
    double median_tps;  /* median decode tokens/s over rows that have one,
                           rounded to 0.1; negative when none has */
    double mean_tokens; /* mean completion_tokens over rows that have
                           them, rounded to 0.1; negative when none has */
};

/* Summarize rung r. Returns 0 or GRADER_ENOMEM (the median needs a copy
 * of the speeds). */
int grader_summarize(const struct grader_rung *r, struct grader_summary *s);

/*
 * Exact two-sided sign test: the chance that a fair coin splits b + c
 * discordant questions at least as unevenly as b against c. 1.0 when
 * b + c is 0. 5 ghosts against 3 dead gives 0.7265625.
 */
double grader_mcnemar_p(size_t b, size_t c);

/* The normal quantile of a two-sided 95 % interval. */
#define GRADER_Z95 1.959963984540054

/*
 * Wilson score interval for k successes in n (n > 0) at quantile z: the
 * interval for an accuracy. It stays inside [0, 1] and is not zero-width
 * at 0 or n, unlike the textbook p +- z*se.
 */
void grader_wilson(size_t k, size_t n, double z, double *lo, double *hi);

/*
 * Paired difference of two accuracies on the same questions, p_a - p_b,
 * with Newcombe's (1998) hybrid score interval ("method 10", the one
 * statsmodels and R's contingencytables call square-and-add): Wilson
 * intervals of each accuracy combined with the correlation of the pairs.
 * Counts: both right, a right only, b right only, neither. For a rung
 * against its reference, a is the rung: a_only = ghosts, b_only = dead.
 * *d = (a_only - b_only) / n. All three are 0 when n is 0.
 */
void grader_paired_diff(size_t both, size_t a_only, size_t b_only,
                        size_t neither, double z, double *d, double *lo,
                        double *hi);

#endif
