/*
 * bury.h - the study's four records, computed from rungs' graded rows.
 *
 * The first rung is the reference. Against it, per question: dead
 * (reference right, rung wrong), ghost (reference wrong, rung right), the
 * tombstone at the first rung going down where the question is dead, and
 * the lower rungs where it rose again. METHOD.md defines each one.
 *
 * Autopsy (how each rung's answers fail) stands on bury's records, so it
 * lives here too.
 */
#ifndef GRADER_BURY_H
#define GRADER_BURY_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "qset.h"
#include "rows.h"
#include "stats.h"
#include "../toolcall/toolcall.h"
#include "task.h"

/* Rungs in one bury: right_again_at is a bit set of rung indexes. */
#define GRADER_MAX_RUNGS 64

enum {
    /* Bury what is there when a rung lacks some of the reference's
     * questions, or has questions the reference lacks; otherwise both are
     * errors that name the rung and the count. */
    GRADER_PARTIAL = 1 << 0,
};

struct grader_bury_line {
    const struct grader_rung *rung; /* borrowed */
    struct grader_summary sum;
    size_t dead;           /* reference right, this rung wrong */
    size_t ghosts;         /* reference wrong, this rung right */
    size_t answer_changed; /* extracted answer differs from the reference's */
    size_t both_right;     /* right here and at the reference */
    size_t both_wrong;     /* wrong here and at the reference: with dead
                              and ghosts, the paired 2x2 table */
    size_t first_deaths;   /* tombstones at this rung */
    size_t first_deaths_right_again_lower;
    size_t missing, extra; /* questions absent here / absent from the
                              reference (only with GRADER_PARTIAL) */
    double p_mcnemar;      /* sign test of dead vs ghosts */
};

struct grader_tombstone {
    uint32_t q;
    uint32_t died_at;     /* rung index, >= 1 */
    const char *said;     /* the rung's extracted number, or NULL */
    uint64_t right_again; /* rung indexes below died_at, right again */
};

struct grader_ghost {
    uint32_t q;
    const char *reference_said; /* what the reference extracted, or NULL */
    uint64_t right_at;          /* rung indexes where it is right */
};

struct grader_bury {
    size_t nrungs;
    struct grader_bury_line *lines;
    struct grader_tombstone *tombs; /* in the reference's row order */
    size_t ntombs;
    struct grader_ghost *ghosts; /* questions a ghost at >= 1 rung */
    size_t nghosts;
    size_t questions; /* the reference's questions */
};

/*
 * Bury rungs[1..n) against rungs[0]. All rungs must have been read into
 * qs. Errors: GRADER_EMISSING / GRADER_EEXTRA (without GRADER_PARTIAL),
 * GRADER_EARG (no rungs, or more than GRADER_MAX_RUNGS), GRADER_ENOMEM.
 * On success out is filled; release it with grader_bury_release. On error
 * nothing needs releasing.
 */
int grader_bury(const struct grader_qset *qs,
                const struct grader_rung *const *rungs, size_t n,
                unsigned flags, struct grader_bury *out,
                struct grader_error *err);

void grader_bury_release(struct grader_bury *b);

/* What the page says of one cell (one rung, one question): the grade,
 * the bury's records and the autopsy's flags, as bits. */
enum grader_cell_fact {
    GRADER_F_ANSWERED = 1 << 0, /* the rung has a row for the question */
    GRADER_F_RIGHT = 1 << 1,
    GRADER_F_DEAD = 1 << 2,  /* the reference right, this rung wrong */
    GRADER_F_GHOST = 1 << 3, /* the reference wrong, this rung right */
    GRADER_F_TOMB = 1 << 4,  /* the question's first death is here */
    GRADER_F_ROSE = 1 << 5,  /* right again below its tombstone */
    GRADER_F_CUT_OFF = 1 << 6,
    GRADER_F_LOOPED = 1 << 7,
    GRADER_F_ERROR = 1 << 8,
    GRADER_F_EMPTY = 1 << 9,
    GRADER_F_THOUGHT = 1 << 10,
    GRADER_F_SAID = 1 << 11, /* a number was extracted */
};

/*
 * The facts of every cell of b (from rungs, the same rungs in the same
 * order): facts[i * nq + q] for rung i and question q of the qset (nq its
 * count). A question the rung has no row for is 0; dead, ghost, tombstone
 * and rose-again are exactly bury's (a rung's DEAD cells number
 * lines[i].dead, its TOMB cells lines[i].first_deaths).
 */
void grader_bury_cells(const struct grader_bury *b,
                       const struct grader_rung *const *rungs, size_t nq,
                       uint16_t *facts);

/* How one rung's answers fail. */
struct grader_autopsy_line {
    const struct grader_rung *rung; /* borrowed */
    size_t n, errors;
    size_t cut_off, looped, thought, empty_content, empty_right_in_reasoning;
    size_t dead, dead_cut_off, dead_looped, dead_empty_content;
    size_t first_deaths, first_deaths_right_again_lower;
    /* tool items' answers graded by a tool-call rule (docs/toolcalls.md;
     * 0 everywhere on other rungs): how many, how many made a call, and
     * each verdict's bucket (enum toolcall_bucket; an error row has
     * none), of all of them, of the dead, and of those cut off at the
     * token cap (a call cut there is malformed for want of its end,
     * which is the cap's doing before the model's) */
    size_t tool_answers, called;
    size_t buckets[TOOLCALL_NBUCKETS], dead_buckets[TOOLCALL_NBUCKETS];
    size_t cut_buckets[TOOLCALL_NBUCKETS];
    /* code items' answers graded by an exec rule (docs/code.md; 0
     * everywhere on other rungs): how many, and each one's recorded
     * outcome (task.h's enum grader_exec_outcome: the autopsy's causes
     * for code; an error row has none), of all, of the dead, and of
     * those cut off at the token cap (code cut short is often a syntax
     * error: the cap's doing before the model's) */
    size_t code_answers;
    size_t outcomes[GRADER_EXEC_OUTCOMES], dead_outcomes[GRADER_EXEC_OUTCOMES];
    size_t cut_outcomes[GRADER_EXEC_OUTCOMES];
};

/* One line per rung of b (which must come from the same rungs). */
void grader_autopsy(const struct grader_bury *b,
                    const struct grader_rung *const *rungs,
                    struct grader_autopsy_line *out);

#endif
