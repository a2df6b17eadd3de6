/*
 * repeat.h - is the run deterministic? Two runs of one rung compared
 * question by question.
 */
#ifndef GRADER_REPEAT_H
#define GRADER_REPEAT_H

#include <stddef.h>

#include "error.h"
#include "qset.h"
#include "rows.h"

enum {
    /* Compare only the questions present in both runs; otherwise a
     * question in one run only is an error naming the rung. */
    GRADER_COMMON = 1 << 0,
};

struct grader_repeat_line {
    const struct grader_rung *a, *b; /* borrowed */
    size_t n;                        /* questions compared */
    size_t mismatched_extracted;     /* different extracted number */
    size_t mismatched_text;          /* content or reasoning_content differs */
    size_t mismatched_right;         /* right in one run, wrong in the other */
    size_t right_a, right_b;         /* over the compared questions */
    size_t only_a, only_b;           /* questions in one run only */
    const char *first_text;          /* the first question (in a's rows'
                                        order) whose text differs, owned
                                        by the qset; NULL when none */
};

/*
 * Compare runs a and b (read with GRADER_READ_TEXT into one qset). Text is
 * compared through 64-bit hashes of content and of reasoning_content: two
 * different texts match with chance about 2^-64. The same comparison
 * counts a speculative rung's answers against its rung without the draft
 * (greedy: zero expected). Errors: GRADER_EMISSING
 * without GRADER_COMMON, GRADER_EARG when a rung was read without text.
 */
int grader_repeat(const struct grader_rung *a, const struct grader_rung *b,
                  const struct grader_qset *qs, unsigned flags,
                  struct grader_repeat_line *out, struct grader_error *err);

#endif
