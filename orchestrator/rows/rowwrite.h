/*
 * rowwrite.h - the one writer of rows (docs/rows.md): a run's answers
 * (runner.c) and an import's (import.c) become their JSON lines here.
 *
 * Both keep to the same budget, here and nowhere else: a reply whose
 * content and reasoning would not fit reply.h's REPLY_ROW_CAP once
 * escaped, or a row that would still pass the reader's cap
 * (GRADER_ROW_MAX), is written as an error row of kind "too_long"
 * instead, so the reader never refuses a row graveyard wrote. The row is
 * graded by every rule of its task as it is written (informative only:
 * bury grades again from content).
 */
#ifndef ROWWRITE_H
#define ROWWRITE_H

#include <stdatomic.h>
#include <stddef.h>

#include "../../grader/grader.h"

struct store;
struct reply_call;

/* One answer, as the writer's caller knows it; every pointer borrowed.
 * A NULL string, or a negative number, is written as null. */
struct row {
    const char *id, *rung, *reference;
    const char *content, *reasoning; /* NULL: null ("" stays "") */
    size_t content_len, reasoning_len;
    const char *finish; /* finish_reason */
    int truncated;
    long long tokens;               /* completion_tokens */
    double tps;                     /* decode_tps */
    const char *error, *error_kind; /* both NULL for an answer */

    /* a run's own measurements, written when measured is set:
     * prompt_tokens, prompt_ms, predicted_ms, http_status (0: null),
     * attempts, latency_ms */
    int measured;
    long long prompt_tokens;
    double prompt_ms, predicted_ms;
    long http_status;
    int attempts;
    long long latency_ms;

    int grades; /* write "grades", each rule's grade (a task other than
                   the study's, and every import) */

    /* a request with a constraint (shape.h): its name, the violations
     * (-1: null, not checked) and the first in words (NULL: null) */
    const char *constrained;
    long violations;
    const char *violation;

    /* a reply closed as a loop (loopwatch.h): its kind, and the tokens
     * the cap would have allowed beyond it */
    const char *aborted;
    long long tokens_saved;

    /* a long item (docs/longctx.md): its target length in tokens and its
     * needle's depth in %, and when made here the seed and fill it was
     * made from (-1 each: none, not written) */
    long length;
    int depth;
    long long seed, fill;

    /* a tool item (docs/toolcalls.md): its calls as streamed, ncalls of
     * them in the order of their index ("tool_calls": [] when none, null
     * in an error row); other rows have no "tool_calls" */
    int tool_item;
    const struct reply_call *calls;
    size_t ncalls;

    /* a code item (docs/code.md): code set for each of its rows. Its
     * answer is first written as a candidate (rows/RUNG.candidates:
     * exec NULL, graded by no rule) and becomes its row with the
     * execution's record (row_exec_text) */
    int code;

    const char *imported; /* the tool an import read, or NULL */
    int digits;           /* significant digits of a real: a run's
                             measurements 10, an import's as logged 15 */
    char why[256];        /* room for a message of the caller's (the
                             violation) or of the writer's (too_long) */
};

/* A row with every optional part off and every number null. */
void row_init(struct row *w);

/* Turn *w into the error row "too_long" with the message why (what does
 * not fit is not kept). */
void row_too_long(struct row *w, const char *why);

/*
 * The row's line, without its newline (new: free()), graded by task
 * (required: the runner and import load the study's answer-line when
 * none is given): *right is its verdict by the first rule. Keeps the budget
 * above, changing *w into the too_long row when it does not fit. Never fails:
 * out of memory ends the program.
 */
char *row_text(struct row *w, const struct grader_task *task, int *right);

/* row_text, appended to the rows file with one write and fsync'd
 * (store.h). 0, or -1 with the message in msg (the file is as it was). */
int row_append(struct store *s, struct row *w, const struct grader_task *task,
               int *right, char *msg, size_t msgsize);

/* row_append for a row graded off the loop (a run's, on the thread pool):
 * before each rule it looks at *stop, and when set (a stop signal came)
 * it returns 1 with nothing written, the question to be asked again on
 * resume. 0, 1, or -1 with the message in msg. */
int row_append_until(struct store *s, struct row *w,
                     const struct grader_task *task, int *right,
                     const atomic_int *stop, char *msg, size_t msgsize);

/* What running a candidate's code came to (the sandbox's record). */
struct row_exec {
    struct grader_exec e; /* outcome, tests, exception, code_hash */
    const char *limit;    /* a limit that killed it ("memory"), or NULL */
    long long ms;         /* its wall clock, -1: null */
    const char *output;   /* the tail of what it printed, or NULL */
    size_t output_len;
};

/*
 * A code item's row: its candidate line (row_text of a row with code set,
 * as the candidates file keeps it) graded by task with the execution's
 * record x, whose fields follow the candidate's: "exec", "tests_passed",
 * "tests_total", "exception", "limit", "exec_ms", "exec_output",
 * "code_hash". New text (free()) with *right; NULL with msg when the line
 * is no candidate (not JSON, no id, content or reference, already
 * executed).
 */
char *row_exec_text(const char *candidate, size_t len,
                    const struct row_exec *x, const struct grader_task *task,
                    int *right, char *msg, size_t msgsize);

#endif
