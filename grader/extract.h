/*
 * extract.h - the answer a reply gives, and whether a reply loops.
 *
 * These two rules are the whole of the grading: METHOD.md defines them and
 * docs/grading.md explains them with examples. Both are pure functions of
 * the reply's text, so a rule change needs only a re-bury, never a rerun.
 */
#ifndef GRADER_EXTRACT_H
#define GRADER_EXTRACT_H

#include <stddef.h>
#include <stdint.h>

#include "number.h"

/*
 * The number after the LAST "Answer:" (any case) in text, after optional
 * spaces and tabs, markdown emphasis (* and _) and a currency sign.
 * Returns 1 and fills out when there is such a number; 0 when there is no
 * "Answer:" or the last one is not followed by a number (the reply is then
 * graded wrong; an earlier "Answer:" is never used instead).
 */
int grader_extract(const char *text, size_t len, struct grader_num *out);

/* A line must occur this many times for a reply to count as looping. */
#define GRADER_LOOP_REPEATS 5

/*
 * Scratch space for grader_looped, reused from row to row so that the hot
 * path allocates only when a reply has more lines than any before it.
 */
struct grader_loop_scratch {
    struct grader__line_slot *slots;
    size_t cap;  /* slots allocated: a power of two, or 0 */
    size_t mask; /* slots in use for this reply, minus one */
};

void grader_loop_scratch_init(struct grader_loop_scratch *s);
void grader_loop_scratch_release(struct grader_loop_scratch *s);

/*
 * Whether some non-blank line, compared after trimming surrounding white
 * space, occurs GRADER_LOOP_REPEATS or more times in the texts together
 * (content and reasoning_content: a loop that crosses from one into the
 * other counts). Either text may be NULL. Returns 1 looped, 0 not, or
 * GRADER_ENOMEM.
 */
int grader_looped(struct grader_loop_scratch *s, const char *a, size_t alen,
                  const char *b, size_t blen);

#endif
