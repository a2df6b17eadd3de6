/*
 * decide.h - "which file should I run?", at several margins at once: for
 * each equivalence margin, the smallest and the fastest file shown
 * equivalent to the reference (verdict.h), or, when no file smaller
 * (faster) than the reference is, the fewest questions at which one would
 * be: the least n_equiv among those files at that margin, and which file.
 *
 * Each margin's verdicts are computed here from every rung's paired 2x2
 * table (grader_verdict), into this module's own results: the ladder's
 * own verdicts and pick (ladder.h, at the run's margin) are left as they
 * are. At the run's margin the two agree (tests/unit/test_grader_decide.c
 * checks it). docs/grading.md ("Which file, at each margin") defines
 * every figure.
 */
#ifndef GRADER_DECIDE_H
#define GRADER_DECIDE_H

#include <stddef.h>

/* Margins in one decision: 1, 2 and 5 points, and the run's own. */
#define GRADER_DECIDE_MAX 4

/* One file against the reference: its paired table (as grader_verdict
 * takes it: both right, a_only the file right only, b_only the reference
 * right only, neither), its % of the reference's bytes and its median
 * decode tok/s (-1 each when unknown) and its accuracy (the tie-break).
 * Point 0 is the reference (its table unused). */
struct grader_decide_point {
    size_t both, a_only, b_only, neither;
    double pct_bytes;
    double tps;
    double acc;
};

/* What one margin decides. Points are numbered as given (for a ladder:
 * chain first, then side rungs; 0 the reference). */
struct grader_decision {
    double asked;      /* the margin, points */
    double margin;     /* the margin the verdicts used: asked, or the
                          noise floor's share when bigger */
    int margin_raised; /* 1 when the floor raised it */
    int own;           /* 1: the run's own margin */
    /* as grader_pick's: among the reference and the points whose verdict
     * at this margin is equivalent, the smallest file (fastest; ties:
     * the more accurate, then the earlier point); 0 the reference when no
     * equivalent point is smaller (faster); -1 when none is known */
    long smallest, fastest;
    /* when smallest (fastest) is 0: among the points smaller (faster)
     * than the reference, the least n_equiv at this margin (verdict.h:
     * the questions at which the equivalence test would conclude if the
     * point's observed change and discordant rate held) and that point;
     * -1 and -1 when none would at any n, or when smallest (fastest) is
     * not 0. n_smaller (n_faster) counts the points smaller (faster)
     * than the reference. */
    long long small_n, fast_n;
    long small_by, fast_by;
    size_t n_smaller, n_faster;
};

struct grader_decide {
    size_t questions; /* the questions at hand (the reference's) */
    size_t n;         /* margins, ascending */
    struct grader_decision d[GRADER_DECIDE_MAX];
};

/*
 * The margins to decide at: 1, 2 and 5 points, and own (outside
 * (0, 100): GRADER_MARGIN_DEFAULT) when it is none of them, ascending,
 * into out[0..GRADER_DECIDE_MAX); *own_at the index of own. Returns the
 * count (3 or 4).
 */
size_t grader_decide_margins(double own, double *out, size_t *own_at);

/*
 * Decide over pts[0..npts) (pts[0] the reference; at most 64 points
 * count, as for grader_pick) at margins[0..nmargins) (at most
 * GRADER_DECIDE_MAX, each as grader_verdict takes it), the one at own_at
 * marked own (own_at >= nmargins: none), with floor_points the noise
 * floor's share (< 0: none) and questions the questions at hand.
 */
void grader_decide_points(const struct grader_decide_point *pts, size_t npts,
                          const double *margins, size_t nmargins,
                          size_t own_at, double floor_points, size_t questions,
                          struct grader_decide *out);

struct grader_ladder;
/*
 * The decision of ladder l: its points (chain, then side rungs), at
 * grader_decide_margins(l->margin), with l's floor.
 */
void grader_decide_ladder(const struct grader_ladder *l,
                          struct grader_decide *out);

#endif
