/*
 * canary.h - before a night: does this build answer as a trusted run did?
 *
 * The reference rung answers the first n questions of a trusted rows file
 * (another machine's, an earlier build's); the answers that changed are
 * counted here. The caller (orchestrator/cmd/cmd_canary.c) runs the rung and
 * decides, from this count and its limit, whether the night may start.
 */
#ifndef GRADER_CANARY_H
#define GRADER_CANARY_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "qset.h"
#include "rows.h"

/* The changed questions kept by index, first ones first: enough to name
 * in a message and a report; the count itself has no cap. */
#define GRADER_CANARY_IDS 64

struct grader_canary {
    size_t wanted;        /* the trusted rows compared: min(n, its rows) */
    size_t compared;      /* of them, answered by the new run */
    size_t missing;       /* of them, not answered by the new run */
    size_t changed;       /* answers that changed: another extracted
                             number (a number against none counts), an
                             error row against an answer, or, when
                             neither has a number, other words
                             (GRADER_READ_TEXT) */
    size_t changed_right; /* graded right in one, wrong in the other */
    size_t right_trusted, right_now; /* over the compared questions */
    size_t same_text; /* the very same reply (GRADER_READ_TEXT) */
    size_t nids;      /* min(changed + missing, GRADER_CANARY_IDS) */
    uint32_t ids[GRADER_CANARY_IDS]; /* question indexes in qs: changed or
                                        missing, in the trusted file's
                                        order */
};

/*
 * Compare the first n rows of trusted (in its file order) with the
 * answers of now, both read into qs. A question now has no row for is
 * missing, and counted among the ids; the caller asked it, so a missing
 * one means the run stopped short. Text is compared only when both were
 * read with GRADER_READ_TEXT (same_text stays 0 otherwise). 0, or
 * GRADER_EARG for n of 0.
 */
int grader_canary(const struct grader_rung *trusted,
                  const struct grader_rung *now, size_t n,
                  struct grader_canary *out, struct grader_error *err);

#endif
