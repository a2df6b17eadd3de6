/*
 * cost.h - what a rung's right answers cost: completion tokens and the
 * server's seconds per right answer, the share that hit the token cap,
 * the thinking tokens per answer, tokens against the reference's, and
 * the GPU's energy per right answer when nvidia-smi told its power.
 *
 * A quant that rambles costs more per answer even when it decodes
 * faster, and a wrong answer costs as much as a right one: each figure
 * is the rung's whole spend over its right answers. docs/report.md
 * ("What an answer costs") says how each is computed, and how thinking
 * tokens are estimated (llama-server reports none apart).
 *
 * The power samples are the runner's rows/<RUNG>.power (rundir/ reads
 * the file, the grader integrates its bytes): lines of ASCII,
 *
 *   b UNIX_MS      the rung began answering (a run, or a resume, or a
 *                  server restarted)
 *   MS WATTS       a reading, MS milliseconds after the b line, WATTS
 *                  the rung's GPUs' power.draw summed
 *   e MS           the rung stopped answering, MS after the b line
 *
 * A segment (b to e) without an e line (the run was killed) ends at its
 * last reading. A last line without a newline is a torn write, skipped.
 */
#ifndef GRADER_COST_H
#define GRADER_COST_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "meta.h"
#include "rows.h"

/* A power file past this is not the runner's (it caps its own at
 * 2 MiB, about 38 hours of a reading a second). */
#define GRADER_POWER_MAX (2u * 1024 * 1024 + 64 * 1024)

/* A reading over this many watts is no reading (the largest GPUs draw
 * about a kilowatt; eight of them summed stay far below). */
#define GRADER_WATTS_MAX 1e5

/*
 * Integrate the power samples in p[0..len) (the format above) into *out:
 * per segment, the trapezoid between consecutive readings, the first
 * reading held from the segment's start and the last to its end (a
 * reading a second leaves at most a second at each edge); a segment with
 * no reading is counted in unsampled_s and priced at the mean power of
 * the sampled time. 0; GRADER_EPARSE with the line in err for a line
 * that is not one of the three (path names the file in the message).
 * out->samples is 0 when the file holds no reading (joules then -1).
 */
int grader_power_integrate(const char *p, size_t len, const char *path,
                           struct grader_power *out, struct grader_error *err);

/* One rung's costs. A figure nobody knows is -1. */
struct grader_cost {
    size_t n, right;
    size_t cut_off;           /* answers that hit the token cap */
    double cap_hit;           /* cut_off / n; 0 when n is 0 */
    size_t tokens_known;      /* answers whose completion_tokens is known */
    uint64_t tokens;          /* their completion tokens */
    double tokens_per_right;  /* tokens / tokens_known * n / right */
    size_t ms_known;          /* answers with the server's prompt and
                                 decode time */
    double seconds;           /* their prompt + decode seconds */
    double seconds_per_right; /* seconds / ms_known * n / right */
    size_t thought;           /* answers with a thinking block */
    double think_per_answer;  /* estimated thinking tokens per answer
                                 (of tokens_known); -1 when none thought */
    double tokens_x;          /* the rung's completion tokens over the
                                 reference's, summed over the questions
                                 both answered with tokens known; 1 for
                                 the reference */
    double joules;            /* meta's power over the answering time */
    double wh_per_right;      /* joules / 3600 / right */
};

/*
 * The costs of rung r (ref: the reference's rung, for tokens_x; may be r
 * itself) with power from its meta (samples 0 or less: unknown).
 */
void grader_cost_of(const struct grader_rung *r, const struct grader_rung *ref,
                    const struct grader_power *power, struct grader_cost *c);

/*
 * pareto.svg's third panel, right against cost per right answer: x is Wh
 * per right answer when the reference and at least one other point know
 * it, else the server's seconds per right answer. front: the points no
 * other beats (at most its cost and at least its accuracy, one of the two
 * strictly; points past 64 on no front, as ladder.h's); unknown: the
 * points without the figure, on no front.
 */
struct grader_cost_pick {
    int wh;
    uint64_t front;
    size_t known, unknown;
};
struct grader_ladder;
struct grader_figures;
void grader_cost_pick(const struct grader_ladder *l,
                      struct grader_cost_pick *cp);

/* A point's x on that panel: Wh (wh) or seconds per right; -1 unknown. */
double grader_cost_x(const struct grader_figures *f, int wh);

#endif
