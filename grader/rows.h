/*
 * rows.h - a rung's rows (the lines of its rows file, docs/rows.md) into
 * graded answers.
 *
 * Each row is parsed, graded from its content and reference, and reduced to
 * a struct grader_answer of a few dozen bytes: the reply's text is dropped
 * as soon as the row is graded, so memory grows with the number of
 * questions, never with the length of the replies. docs/rows.md and
 * schemas/row.schema.json define the format.
 *
 * The reader is resumable (nginx's style): feed it any slices of the file's
 * bytes, then finish it. The grader opens no file: reading one from disk
 * is the caller's (orchestrator/rows/rowsfile.h).
 */
#ifndef GRADER_ROWS_H
#define GRADER_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "extract.h"
#include "qset.h"
#include "rowscan.h"
#include "task.h"

/* A row (one line) longer than this is an error: a 4,096-token reply is
 * about 20 KB, so 8 MiB is far past any real row and still bounded. */
#define GRADER_ROW_MAX (8u * 1024 * 1024)

#define GRADER_NONE UINT32_MAX

/* A decode speed past this is no measurement (the fastest decoders make
 * thousands of tokens a second): the runner stores null for it, and the
 * reader reads it as unknown, as null, so a server's absurd timing can
 * never leave a rung that cannot be summed or printed (1e40 tokens/s is
 * inf as the answer's float, and no JSON holds inf). docs/rows.md. */
#define GRADER_TPS_MAX 1e9

/* A server time past this (10^12 ms, the runner's own bound) is no
 * measurement either: read as unknown. */
#define GRADER_MS_MAX 1e12

/* What the grader found in one row. */
enum grader_answer_flag {
    GRADER_A_RIGHT = 1 << 0,   /* extracted number equals the reference */
    GRADER_A_SAID = 1 << 1,    /* a number was extracted */
    GRADER_A_ERROR = 1 << 2,   /* the row carries an error: graded wrong */
    GRADER_A_CUT_OFF = 1 << 3, /* truncated, or finish_reason "length" */
    GRADER_A_LOOPED = 1 << 4,  /* a line repeats GRADER_LOOP_REPEATS times */
    GRADER_A_THOUGHT = 1 << 5, /* non-blank reasoning_content */
    GRADER_A_EMPTY = 1 << 6,   /* no error, content null or blank */
    GRADER_A_RIGHT_IN_REASONING = 1 << 7, /* empty, and the reasoning's
                                             answer is the reference */
    GRADER_A_CHECKED = 1 << 8,            /* the reply was checked against the
                                             constraint its request carried */
    GRADER_A_VIOLATED = 1 << 9,           /* and did not hold to it */
    GRADER_A_ABORTED = 1 << 10,    /* cut short as a loop while it streamed
                                      (finish_reason "loop", abort_loops) */
    GRADER_A_STEP_LIMIT = 1 << 11, /* the rule's pattern ran past its step
                                      budget on the content: graded by the
                                      rule's fallback (task.h) */
    GRADER_A_CALLED = 1 << 12,     /* a tool item's reply made a call */
    GRADER_A_EXECUTED = 1 << 13,   /* a code item's row: its recorded
                                      outcome is in the top byte */
};

/* A tool item's answer keeps its verdict's bucket (toolcall.h's enum
 * toolcall_bucket) plus one in the flags' top byte: 0 for every other
 * answer and for an error row (no verdict on calls a server never sent).
 * A code item's answer keeps its outcome (task.h's enum
 * grader_exec_outcome) plus one there, with GRADER_A_EXECUTED set. */
#define GRADER_A_BUCKET_SHIFT 24

struct grader_answer {
    uint32_t q;       /* question index in the qset */
    uint32_t line;    /* 1-based line of the row in its file */
    uint32_t said;    /* offset of the extracted number in the rung's
                         pool, or GRADER_NONE */
    uint32_t flags;   /* enum grader_answer_flag */
    int32_t tokens;   /* completion_tokens, -1 when unknown */
    int32_t saved;    /* tokens_saved of an aborted answer, else 0 */
    float tps;        /* decode tokens/s, negative when unknown */
    float ms;         /* the server's prompt_ms + predicted_ms, negative
                         when either is unknown (cost.h); it fills what
                         was padding before text */
    uint64_t text[2]; /* hashes of content and reasoning_content, only
                         with GRADER_READ_TEXT (for repeat) */
};

/* Memory follows the questions (docs/performance.md): an answer stays 48
 * bytes, so a field added here must fit or be weighed there. */
_Static_assert(sizeof(struct grader_answer) == 48,
               "struct grader_answer grew past 48 bytes");

/* The texts of one answer kept with GRADER_READ_KEEP (for the page): an
 * offset into the rung's texts and a length per field; GRADER_KEPT_NULL
 * for a null field. */
enum {
    GRADER_KEEP_CONTENT,
    GRADER_KEEP_REASONING,
    GRADER_KEEP_FINISH,
    GRADER_KEEP_ERROR,
    GRADER_KEEP_CALLS,  /* a tool row's "tool_calls" as JSON text */
    GRADER_KEEP_OUTPUT, /* a code row's "exec_output" */
    GRADER_KEEP_FIELDS
};
#define GRADER_KEPT_NULL UINT64_MAX
struct grader_kept {
    uint64_t off[GRADER_KEEP_FIELDS];
    uint32_t len[GRADER_KEEP_FIELDS];
};

/* A rung's kept texts are capped: a page of more is no page to open. */
#define GRADER_KEEP_MAX (1024u * 1024 * 1024)

/* A rung's graded rows. Owned by the caller: grader_rung_free. */
struct grader_rung {
    char *name;
    char *path;
    struct grader_answer *answers; /* in file order */
    size_t n, cap;
    uint32_t *by_q; /* question index -> answer index, GRADER_NONE */
    size_t by_q_len;
    unsigned read_flags; /* the GRADER_READ_* flags it was read with */
    char *pool;          /* extracted numbers, NUL-terminated */
    size_t pool_len, pool_cap;
    struct grader_kept *kept; /* parallel to answers, GRADER_READ_KEEP */
    char *texts;              /* the kept texts, back to back */
    size_t texts_len, texts_cap;
    /* thinking tokens, estimated as each row is read (its text is gone
     * after): completion_tokens times the thinking block's share of the
     * reply's bytes, summed over the rows with both known (cost.h) */
    double think_tokens;
};

/* Read flags. */
enum {
    GRADER_READ_TEXT = 1 << 0, /* hash content and reasoning (repeat) */
    GRADER_READ_KEEP = 1 << 1, /* keep content, reasoning, finish_reason,
                                  error and tool_calls (the page shows
                                  them) */
};

void grader_rung_free(struct grader_rung *r);

/* The rung's answer to question q, or NULL when it has no row for it. */
const struct grader_answer *grader_rung_find(const struct grader_rung *r,
                                             uint32_t q);

/* Whether a (possibly absent) answer is graded right: a question a rung
 * has no row for is not right. */
static inline int grader_answer_right(const struct grader_answer *a)
{
    return a != NULL && (a->flags & GRADER_A_RIGHT);
}

/* A tool item's answer's bucket (enum toolcall_bucket), or -1: not a
 * tool item's, an error row, or no answer. */
static inline int grader_answer_bucket(const struct grader_answer *a)
{
    return a == NULL || (a->flags & GRADER_A_EXECUTED)
               ? -1
               : (int)(a->flags >> GRADER_A_BUCKET_SHIFT) - 1;
}

/* A code item's answer's outcome (enum grader_exec_outcome), or -1: not
 * a code item's, an error row, or no answer. */
static inline int grader_answer_outcome(const struct grader_answer *a)
{
    return a == NULL || !(a->flags & GRADER_A_EXECUTED)
               ? -1
               : (int)(a->flags >> GRADER_A_BUCKET_SHIFT) - 1;
}

/* The canonical number a graded answer extracted, or NULL. */
const char *grader_rung_said(const struct grader_rung *r,
                             const struct grader_answer *a);

/* A kept text of answer a (GRADER_KEEP_*): NULL when the field was null
 * or the rung was read without GRADER_READ_KEEP; *len its length (texts
 * may hold NUL bytes, escaped in the row). */
const char *grader_rung_kept(const struct grader_rung *r,
                             const struct grader_answer *a, int field,
                             size_t *len);

/* ---- the resumable reader --------------------------------------------- */

/* The grader reads no file: a caller feeds it a rows file's bytes, in any
 * slices (orchestrator/rows/rowsfile.h reads one from disk). Errors name the
 * rung's path and the line: GRADER_EPARSE (a malformed line, a row without
 * an id, a field of the wrong type), GRADER_ETOOBIG, GRADER_EDUPID,
 * GRADER_EREFMISMATCH, GRADER_ENOMEM. */

struct grader_reader {
    struct grader_qset *qs;
    struct grader_rung *rung;
    unsigned flags;
    long line;   /* lines started so far */
    char *carry; /* a line split across feeds */
    size_t carry_len, carry_cap;
    int failed;
    struct grader_loop_scratch loop;
    struct grader_rowscan scan;
    const struct grader_task *task; /* borrowed; NULL: answer-line */
    size_t rule;                    /* the task's rule this reader grades */
};

/* Start reading rows for rung (owned by the caller) into qs. */
void grader_reader_init(struct grader_reader *rd, struct grader_qset *qs,
                        struct grader_rung *rung, unsigned flags);

/* Grade by rule of task (borrowed, outlives the reader) instead of the
 * study's answer-line rule; call before the first feed. References are
 * then read as the task reads them (a letter for a choice task), and
 * what is kept as said is the rule's extracted text. */
void grader_reader_set_rule(struct grader_reader *rd,
                            const struct grader_task *task, size_t rule);

/* Grade every complete line in buf[0..len), keeping a partial last line
 * for the next call. Returns 0 or an error code; after an error the
 * reader only accepts grader_reader_release. */
int grader_reader_feed(struct grader_reader *rd, const char *buf, size_t len,
                       struct grader_error *err);

/* Grade a last line without a newline. A torn last line (the writer
 * stopped mid-row) is a GRADER_EPARSE error that says so. */
int grader_reader_finish(struct grader_reader *rd, struct grader_error *err);

void grader_reader_release(struct grader_reader *rd);

/* A new empty rung named name, reading path (path only for messages). */
struct grader_rung *grader_rung_new(const char *name, const char *path);

#endif
