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

/* Median of v[0..n) (reorders v); n must be > 0. */
double grader__median(float *v, size_t n);

#endif
