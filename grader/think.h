/*
 * think.h - the same rungs with thinking off and with thinking on,
 * question by question (METHOD.md, "Thinking on vs off").
 *
 * Each pass is buried against its own reference (BF16 thinking off,
 * BF16 thinking on), as the study does.
 */
#ifndef GRADER_THINK_H
#define GRADER_THINK_H

#include <stddef.h>

#include "bury.h"

struct grader_think_line {
    const struct grader_rung *off, *on; /* borrowed */
    size_t n;
    size_t right_off, right_on;
    size_t right_both;        /* right in both passes */
    size_t dead_off, dead_on; /* against each pass's own reference */
    size_t dead_both;         /* the same question dead in both */
    size_t dead_off_cut_off;  /* dead with thinking off, cut off there */
    size_t cut_off_right_on;  /* ... and right with thinking on */
    double mean_tokens_off, mean_tokens_on; /* -1 unknown */
    double median_tps_off, median_tps_on;   /* -1 unknown */
    double tokens_x; /* mean tokens on / off; -1 unknown */
    double speed_x;  /* median decode tok/s on / off; -1 unknown */
};

/*
 * off[0..n) and on[0..n) are the same rungs in the same order, [0] the
 * reference, all read into qs. Every rung of both passes must hold the
 * off reference's questions (GRADER_EMISSING / GRADER_EEXTRA naming the
 * file). out has n lines. Errors also GRADER_EARG and GRADER_ENOMEM.
 */
int grader_think(const struct grader_qset *qs,
                 const struct grader_rung *const *off,
                 const struct grader_rung *const *on, size_t n,
                 struct grader_think_line *out, struct grader_error *err);

#endif
