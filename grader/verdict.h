/*
 * verdict.h - can a rung stand in for its reference? From the paired 2x2
 * table of a rung against the reference (both right, rung right only,
 * reference right only, neither), the verdict at an equivalence margin of
 * d points, and how many questions it would take to tell when the
 * questions at hand cannot. docs/grading.md ("Verdicts") gives the
 * formulas and their sources.
 *
 * Every interval is Newcombe's paired score interval (stats.h,
 * grader_paired_diff), the one the report prints: at 95 % for better and
 * worse, at 90 % for the two one-sided tests of equivalence.
 */
#ifndef GRADER_VERDICT_H
#define GRADER_VERDICT_H

#include <stddef.h>

/* The margin when nothing sets one (config "margin_points", --margin). */
#define GRADER_MARGIN_DEFAULT 2.0

/* The normal quantiles: two-sided 90 % (one-sided 95 %, each of the two
 * one-sided tests), and one-sided 80 % (the power the sample size aims
 * at). GRADER_Z95 is in stats.h. */
#define GRADER_Z90 1.6448536269514722
#define GRADER_Z80 0.8416212335729143

/* A question count past this is "none": no question set will reach it. */
#define GRADER_N_NEEDED_MAX 1000000000LL

/* A bound within this many points of the margin (or of 0) touches it;
 * a touching bound is not inside (the tests are strict), and the
 * tolerance keeps a bound that is exactly on the margin in exact
 * arithmetic from landing on either side by rounding. */
#define GRADER_VERDICT_EPS 1e-9

enum grader_verdict_kind {
    GRADER_VERDICT_NONE = 0,    /* the reference itself, or not computed */
    GRADER_VERDICT_EQUIVALENT,  /* the 90 % interval inside +-margin */
    GRADER_VERDICT_BETTER,      /* the 95 % interval above 0 */
    GRADER_VERDICT_WORSE,       /* the 95 % interval below 0 */
    GRADER_VERDICT_CANNOT_TELL, /* none of these (also: no questions) */
};

struct grader_verdict {
    int kind;          /* enum grader_verdict_kind */
    double asked;      /* the margin asked for, points */
    double margin;     /* the margin the verdict used, points: asked,
                          or the noise floor's share when bigger */
    int margin_raised; /* 1 when the floor raised it */
    double lo90, hi90; /* Newcombe's paired 90 % interval, fractions */
    int shift;         /* the 95 % interval: -1 below 0, 1 above, 0
                          holding 0 (an equivalent rung may be either) */
    double least;      /* shift -1: the least loss the 95 % interval
                          shows (points, > 0); 1: the least gain; 0 */
    double discordant; /* (dead + ghosts) / n */
    long long n_power; /* questions at which McNemar's test finds a
                          margin-point change at 80 % power (alpha 0.05,
                          two-sided) at the observed discordant rate;
                          -1 none (no questions) */
    long long n_equiv; /* questions at which the equivalence test would
                          conclude if the observed change and
                          discordant rate held; -1 none (|change| >=
                          margin, no questions, or past
                          GRADER_N_NEEDED_MAX) */
};

/*
 * The verdict from the bounds alone (fractions; margin in points, > 0):
 * equivalent when -margin < 100 lo90 and 100 hi90 < margin, else worse
 * when 100 hi95 < 0, else better when 100 lo95 > 0, else cannot tell.
 * Equivalence is asked first: a loss that is real but surely smaller than
 * the margin is what the margin says one accepts (least still says it).
 * Each comparison is strict by GRADER_VERDICT_EPS.
 */
int grader_verdict_kind(double lo90, double hi90, double lo95, double hi95,
                        double margin);

/*
 * The verdict of a rung against its reference: both right, a_only (the
 * rung right only: ghosts), b_only (the reference right only: dead),
 * neither. margin in points (> 0; GRADER_MARGIN_DEFAULT otherwise);
 * floor_points the noise floor's share in points, or < 0 for none. With
 * n = 0 the verdict is cannot tell and every n needed is -1.
 */
void grader_verdict(size_t both, size_t a_only, size_t b_only, size_t neither,
                    double margin, double floor_points,
                    struct grader_verdict *v);

/*
 * Connor (1987) for McNemar's test: the questions needed to find a
 * change delta (a fraction, > 0) at two-sided level alpha (z_alpha its
 * 1 - alpha/2 quantile) with power (z_beta its quantile), when a share
 * psi of the pairs is discordant:
 *   n = (z_alpha sqrt(psi) + z_beta sqrt(psi - delta^2))^2 / delta^2,
 * rounded up. psi below delta is raised to delta (a change of delta needs
 * at least that many discordant pairs). -1 when delta <= 0 or the
 * answer passes GRADER_N_NEEDED_MAX.
 */
long long grader_mcnemar_n(double psi, double delta, double z_alpha,
                           double z_beta);

/*
 * The least n at which Newcombe's interval at quantile z, from the shares
 * both, a_only, b_only, neither (summing to 1) scaled to n questions,
 * lies strictly inside +-margin points. -1 when |a_only - b_only| is at
 * least the margin or no n up to GRADER_N_NEEDED_MAX does.
 */
long long grader_equiv_n(double both, double a_only, double b_only,
                         double neither, double z, double margin);

/* "equivalent", "better", "worse", "cannot tell", or "" (none). */
const char *grader_verdict_word(int kind);

#endif
