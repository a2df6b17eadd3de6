/*
 * compare.h - one ladder run several times (on several GPUs or machines),
 * compared question by question; and the grid a cover is drawn from.
 *
 * Each run is buried against its own reference, as the study does: a
 * question lost on one card is lost against that card's BF16. METHOD.md
 * ("Across GPUs") defines every count; docs/report.md shows them.
 */
#ifndef GRADER_COMPARE_H
#define GRADER_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "bury.h"
#include "verdict.h"

/* Runs in one comparison: the pair matrix is GRADER_MAX_RUNS squared. */
#define GRADER_MAX_RUNS 16

/* A cell of the grid: one rung, one question. */
enum grader_cell {
    GRADER_CELL_MISSING = 0, /* some run has no row for it */
    GRADER_CELL_RIGHT = 1,   /* right on every run */
    GRADER_CELL_WRONG = 2,   /* wrong on every run */
    GRADER_CELL_SPLIT = 3,   /* right on some runs, wrong on others */
};

struct grader_compare_rung {
    size_t right[GRADER_MAX_RUNS]; /* per run */
    size_t dead[GRADER_MAX_RUNS];  /* per run, against its own reference */
    /* questions graded differently (right on one run, wrong on the
     * other), for every pair; differ[k][k] is 0 */
    size_t differ[GRADER_MAX_RUNS][GRADER_MAX_RUNS];
    size_t closest[2], furthest[2]; /* the pairs (run indexes) with the
                                       fewest and most; both {0, 0} for
                                       one run */
    size_t ghosts[GRADER_MAX_RUNS]; /* per run, against its own reference */
    /* dead + ghosts against the comparison's floor, per run: 1 above it,
     * 0 within it, -1 at the reference or with one run */
    int above_floor[GRADER_MAX_RUNS];
    /* per run, against its own reference at the comparison's margin
     * (raised to the floor's share, as in a report); kind
     * GRADER_VERDICT_NONE at the reference */
    struct grader_verdict verdict[GRADER_MAX_RUNS];
    int verdict_holds; /* 1 when every run has the same verdict; 0 when
                          they differ; -1 at the reference */
    size_t lost_all;   /* dead on every run (0 at the reference) */
    size_t all_right;  /* right on every run */
    size_t all_wrong;  /* wrong on every run */
};

/* A question that dies (has a tombstone) on one run only. */
struct grader_lonely {
    uint32_t q;
    uint32_t run;
    uint32_t died_at; /* rung index */
};

struct grader_compare {
    size_t nruns, nrungs;
    struct grader_bury *bury;          /* one per run, owned */
    struct grader_compare_rung *rungs; /* nrungs */
    size_t died_some;       /* questions that die at some rung on >= 1 run */
    size_t died_every;      /* ... on every run */
    size_t died_every_same; /* ... and first at the same rung on all */
    struct grader_lonely *lonely; /* in the grid's column order */
    size_t nlonely;
    /* the noise floor across runs: the most questions the reference is
     * graded differently on by two runs (its furthest pair, floor_pair);
     * -1 with one run */
    long floor;
    size_t floor_pair[2];
    double floor_points; /* 100 * floor / nq, points; -1 without a floor */
    double margin;       /* the verdicts' margin asked for, points */
    uint32_t *order;     /* the grid's columns: run 0's reference rows order */
    size_t nq;
    uint8_t *cells; /* nrungs * nq, enum grader_cell, row-major */
};

/*
 * Compare nruns runs of the same nrungs rungs: rungs[k * nrungs + i] is
 * rung i of run k, rung 0 the reference, all read into qs. Every rung of
 * every run must hold the questions of run 0's reference: a difference is
 * GRADER_EMISSING / GRADER_EEXTRA naming the rows file. With
 * GRADER_PARTIAL (bury.h) a difference is allowed: a question some run
 * lacks at a rung is a GRADER_CELL_MISSING cell there and is left out of
 * that rung's counts (questions the first reference lacks are left out
 * everywhere). Errors also GRADER_EARG (0 or too many runs or rungs) and
 * GRADER_ENOMEM. Release with grader_compare_release; on error nothing
 * needs releasing.
 */
int grader_compare(const struct grader_qset *qs,
                   const struct grader_rung *const *rungs, size_t nruns,
                   size_t nrungs, unsigned flags, struct grader_compare *out,
                   struct grader_error *err);

void grader_compare_release(struct grader_compare *c);

/*
 * Each rung's verdict on each run against its own reference at margin
 * points (outside (0, 100): GRADER_MARGIN_DEFAULT), raised to the
 * floor's share where that is bigger, and whether it holds on every run.
 * grader_compare gives GRADER_MARGIN_DEFAULT; a caller with another
 * margin calls this after.
 */
void grader_compare_verdicts(struct grader_compare *c, double margin);

/*
 * The grid alone, for a cover that needs no comparison (a report's):
 * cells[i * nq + j] for rung i and question order[j], as struct
 * grader_compare's cells (with one run, right or wrong; missing where a
 * run has no row). rungs as for grader_compare; cells holds nrungs * nq.
 */
void grader_grid(const struct grader_rung *const *rungs, size_t nruns,
                 size_t nrungs, const uint32_t *order, size_t nq,
                 uint8_t *cells);

/* What a cover marks on a cell besides its colour. */
enum grader_mark {
    GRADER_MARK_NONE = 0,
    GRADER_MARK_DEAD = 1,  /* the reference right, this rung wrong */
    GRADER_MARK_GHOST = 2, /* the reference wrong, this rung right */
};

/*
 * The dead and the ghosts of a grid whose row 0 is the reference: a cell
 * wrong where the reference's is right is dead, right where it is wrong a
 * ghost (with several runs: on every run, as the cells are). Row 0 and
 * split or missing cells have none. marks holds nrungs * nq.
 */
void grader_grid_marks(const uint8_t *cells, size_t nrungs, size_t nq,
                       uint8_t *marks);

#endif
