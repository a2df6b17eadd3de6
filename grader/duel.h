/*
 * duel.h - two files of one type, A against B, answer by answer: the
 * paired 2x2 table over the questions both answered, the exact McNemar
 * p, the change A - B with Newcombe's interval, and the verdict of
 * verdict.h with A in the rung's place (a_only: A right only), so "better"
 * is A better and "worse" is B better. docs/duel.md gives every
 * definition; the renderers only format what is here.
 *
 * A duel may be cut by subject: a folder's task (one duel per run folder,
 * then a pooled one that sums their tables) and, inside a folder of long
 * items, one per prompt length (qset.h's grader_qset_length).
 */
#ifndef GRADER_DUEL_H
#define GRADER_DUEL_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "qset.h"
#include "repeat.h"
#include "rows.h"
#include "verdict.h"

/* A subject's label: a task's name, "N tokens". */
#define GRADER_DUEL_SUBJECT 64

struct grader_duel {
    char subject[GRADER_DUEL_SUBJECT]; /* "" for the whole */
    long length;          /* a length's duel: its tokens; else -1 */
    size_t n;             /* questions both A and B have a row for */
    size_t only_one;      /* questions one of the two has a row for */
    size_t both;          /* both right */
    size_t a_only;        /* A right, B wrong */
    size_t b_only;        /* B right, A wrong */
    size_t neither;       /* both wrong */
    size_t neither_apart; /* of neither, the questions whose extracted
                             answers differ (one said none, or another
                             number): a difference the right/wrong table
                             cannot show */
    double p;             /* exact two-sided McNemar (sign) test, a_only
                             against b_only; 1 with none discordant */
    double change;        /* 100 (a_only - b_only) / n: points, A - B */
    double lo95, hi95;    /* Newcombe's paired interval, points */
    double lo90, hi90;
    struct grader_verdict v; /* kind GRADER_VERDICT_BETTER: A better */
    uint32_t *disagree;      /* the questions right on one side only (qs's
                                indexes, in qs's order); NULL for a pooled
                                duel; owned: grader_duel_release */
    size_t ndisagree;
    const struct grader_qset *qs; /* the set disagree indexes (borrowed);
                                     NULL for a pooled duel */
};

/*
 * A duel with its subjects: one per run folder (length -1, subject the
 * folder's task), each followed by one per prompt length where the
 * folder holds long items; whole pools the folders' tables (disagree
 * NULL: each folder's list is in its subject). Build with
 * grader_duel_set_add per folder, then grader_duel_set_finish.
 */
struct grader_duel_set {
    const char *a, *b;            /* the rungs' names (borrowed) */
    struct grader_duel whole;     /* the pool of the folders */
    struct grader_duel *subjects; /* owned */
    size_t nsubjects, nfolders;
    double floor_points; /* the floor whole was judged at, points; -1
                            none (set by grader_duel_set_finish) */
};

/* One folder's duel (subject its task's name) and its lengths' appended
 * to s (zeroed by the caller first). 0, or GRADER_ENOMEM (s unchanged). */
int grader_duel_set_add(struct grader_duel_set *s, const char *subject,
                        const struct grader_qset *qs,
                        const struct grader_rung *a,
                        const struct grader_rung *b, double margin,
                        double floor_points, struct grader_error *err);

/* whole: the folders' subjects pooled at margin and floor_points. */
void grader_duel_set_finish(struct grader_duel_set *s, double margin,
                            double floor_points);

void grader_duel_set_release(struct grader_duel_set *s);

/*
 * The duel of a against b (read into qs) over every question of qs,
 * judged at margin points (outside (0, 100): GRADER_MARGIN_DEFAULT)
 * raised to floor_points when bigger (< 0: no floor), as the ladder's
 * verdicts. length >= 0 keeps only the questions of that prompt length
 * (and labels the duel "N tokens"); -1 keeps all. 0, or GRADER_ENOMEM (d
 * then needs no release). a and b may be the same rung.
 */
int grader_duel(const struct grader_qset *qs, const struct grader_rung *a,
                const struct grader_rung *b, long length, double margin,
                double floor_points, struct grader_duel *d,
                struct grader_error *err);

/*
 * One duel per prompt length of qs that A or B has a row at, shortest
 * first: *out (free with grader_duel_free_all) and *n. None (0, *out NULL)
 * when qs has no lengths. 0, or GRADER_ENOMEM (nothing to release).
 */
int grader_duel_lengths(const struct grader_qset *qs,
                        const struct grader_rung *a,
                        const struct grader_rung *b, double margin,
                        double floor_points, struct grader_duel **out,
                        size_t *n, struct grader_error *err);

/* Free an array of n duels from grader_duel_lengths (NULL is fine). */
void grader_duel_free_all(struct grader_duel *d, size_t n);

/*
 * p, change, intervals and verdict from d's counts (n = both + a_only +
 * b_only + neither), at margin raised to floor_points as grader_duel
 * does. With n = 0: p 1, change and intervals 0, cannot tell.
 */
void grader_duel_judge(struct grader_duel *d, double margin,
                       double floor_points);

/*
 * The pooled duel of parts[0..n): the counts summed, judged at margin
 * and floor_points (the caller's pick: graveyard duel takes the biggest
 * of its folders' floors), subject "all", no disagreeing list.
 */
void grader_duel_pool(const struct grader_duel *parts, size_t n, double margin,
                      double floor_points, struct grader_duel *out);

/* The noise floor's share in points from the reference's repeat: 100
 * mismatched_right / n (0 with n 0), as grader/ladder.c's floor; -1 when
 * rep is NULL (no repeat). */
double grader_duel_floor(const struct grader_repeat_line *rep);

/* "equivalent", "a better", "b better", "cannot tell" (any other kind). */
const char *grader_duel_word(int kind);

void grader_duel_release(struct grader_duel *d);

#endif
