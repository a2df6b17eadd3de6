/*
 * loopwatch.h - a looping reply, seen while it streams (abort_loops).
 *
 * Most of a quantized ladder's night can go to answers already lost: on
 * the study's T4 ladder Q2_K cut off 246 of 250 answers at the 1,024-
 * token cap, 228 of them looping, and every loop costs the whole cap.
 * With "abort_loops" on, the runner feeds each streamed piece of text
 * (one SSE delta: a token on llama-server) here, and closes the request
 * as soon as the reply loops in one of two ways:
 *
 *   lines:  the study's own rule, the grader's (grader_looped): a trimmed
 *           non-blank line occurs GRADER_LOOP_REPEATS (5) times in
 *           content and reasoning together. Checked each time a line
 *           ends, so the aborted row is graded "looped" exactly as the
 *           full one would be.
 *   tokens: a span of 1 to LOOPWATCH_MAX_PERIOD pieces repeated back to
 *           back, without a line break to catch it: the last
 *           max(LOOPWATCH_MIN_SPAN, LOOPWATCH_MIN_REPEATS x period)
 *           pieces all equal the piece one period before. Every reply in
 *           the golden folders and the test suites' replies leave it
 *           silent (tests/unit/test_server_loopwatch.c); a normal GSM8K
 *           answer has no 200-token stretch that repeats itself.
 *
 * Pieces are compared by 64-bit hash. Memory is fixed: a ring of the last
 * LOOPWATCH_MAX_PERIOD hashes and a run length per period; the line
 * check borrows the grader's scratch table.
 */
#ifndef LOOPWATCH_H
#define LOOPWATCH_H

#include <stddef.h>
#include <stdint.h>

#include "../../grader/grader.h"

#define LOOPWATCH_MAX_PERIOD  64
#define LOOPWATCH_MIN_SPAN    200
#define LOOPWATCH_MIN_REPEATS 5

enum loop_kind { LOOP_NONE, LOOP_LINES, LOOP_TOKENS };

struct loopwatch {
    uint64_t ring[LOOPWATCH_MAX_PERIOD];    /* the last pieces' hashes */
    uint32_t run[LOOPWATCH_MAX_PERIOD + 1]; /* run[p]: pieces in a row
                                               equal to the one p back */
    size_t pieces;                          /* pieces seen */
    struct grader_loop_scratch scratch;
};

void loopwatch_init(struct loopwatch *w);
void loopwatch_release(struct loopwatch *w);

/* Start again for a new reply (the scratch is kept). */
void loopwatch_reset(struct loopwatch *w);

/*
 * One piece of text (p, n) arrived, of the reasoning (in_reasoning) or
 * of the content; content and reasoning are the reply's texts so far,
 * the piece included. Returns the loop seen, LOOP_NONE, or -1 out of
 * memory.
 */
int loopwatch_piece(struct loopwatch *w, const char *p, size_t n,
                    int in_reasoning, const char *content, size_t clen,
                    const char *reasoning, size_t rlen);

/* "lines" or "tokens", for messages and rows. */
const char *loopwatch_name(int kind);

#endif
