/*
 * test_grader_ladder.c - the figures of one run folder's report: the T4
 * article's ladder with its intervals, side rungs set beside the chain
 * rung nearest in bytes, the repeat checks, and out of memory at every
 * allocation of a build.
 *
 * Tests: grader/ladder.c
 * Tests: grader/alloc.c
 */
#include "helpers.h"
#include "study.h"
#include "chaos.h"

#include <math.h>

#include "alloc.h"
#include "ladder.h"
#include "stats.h"

/* ---- (a) the study's ladder -------------------------------------------- */

/* Decode speed of rung i: base 40 + 2i tok/s, spread -1/0/+1 by
 * question so that the median (the base: 84, 83 and 83 rows) is not
 * every row's; Q2_K's rows carry none. */
static double study_tps(size_t i, size_t q)
{
    if (i == NR - 1)
        return -1;
    return 40.0 + 2.0 * (double)i + (double)(q % 3) - 1.0;
}

/* A row answering reference ref with said (NULL: no answer), with a
 * decode speed unless tps < 0. */
static void row(struct text *t, const char *id, const char *ref,
                const char *said, double tps)
{
    text_addf(t, "{\"id\":\"%s\",\"reference\":\"%s\",\"content\":\"%s%s\"",
              id, ref, said ? "work\\nAnswer: " : "I give up",
              said ? said : "");
    if (tps >= 0)
        text_addf(t, ",\"decode_tps\":%.1f", tps);
    text_addf(t, ",\"completion_tokens\":10}\n");
}

static void load_study(struct rungs *x, const char *dir)
{
    size_t i, q;

    x->qs = grader_qset_new();
    assert_non_null(x->qs);
    x->n = NR;
    for (i = 0; i < NR; i++) {
        struct text t = {0};
        for (q = 0; q < NQ; q++) {
            char id[32];
            snprintf(id, sizeof(id), "test-%zu", q);
            row(&t, id, "100", study_right(i, q) ? "100" : "99",
                study_tps(i, q));
        }
        x->r[i] = load_text(x->qs, dir, ladder[i], &t, 0);
        free(t.p);
    }
}

/* Metadata nobody knows: bytes, GPU memory -1, names "". */
static struct grader_meta unknown[32];

static const struct grader_meta *none(void)
{
    size_t i;

    for (i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
        memset(&unknown[i], 0, sizeof(unknown[i]));
        unknown[i].bytes = unknown[i].gpu_mib_loaded =
            unknown[i].gpu_mib_before = -1;
    }
    return unknown;
}

static void test_study_figures(void **state)
{
    char rundir[128];
    struct rungs x;
    struct grader_ladder rep;
    struct grader_error err;
    size_t i;

    (void)state;
    /* no bytes known */
    snprintf(rundir, sizeof(rundir), "%s/study", test_dir);
    assert_int_equal(mkdir(rundir, 0700), 0);
    load_study(&x, test_dir);
    assert_int_equal(grader_ladder_build(x.qs, none(), x.r, NR, NULL, 0, NULL,
                                         NULL, 0, 0, &rep, &err),
                     0);
    assert_int_equal(rep.chain.nrungs, NR);
    assert_int_equal(rep.nsides, 0);
    assert_int_equal(rep.side.nrungs, 0);
    assert_int_equal(rep.nrepeats, 0);
    for (i = 0; i < NR; i++) {
        const struct grader_figures *f = &rep.rungs[i];
        const struct grader_bury_line *l = f->line;
        size_t right = (size_t)study[i][0], dead = (size_t)study[i][1],
               ghosts = (size_t)study[i][2];
        double lo, hi, d, dlo, dhi;
        char what[64];

        snprintf(what, sizeof(what), "%s", ladder[i]);
        assert_ptr_equal(l, &rep.chain.lines[i]);
        assert_ptr_equal(l->rung, x.r[i]);
        assert_int_equal(l->sum.n, NQ);
        assert_int_equal(l->sum.right, right);
        assert_int_equal(l->dead, dead);
        assert_int_equal(l->ghosts, ghosts);
        /* right = reference right - dead + ghosts */
        assert_int_equal(l->sum.right, 229 - dead + ghosts);
        /* the paired table the delta stands on (not kept for the
         * reference against itself) */
        if (i > 0) {
            assert_int_equal(l->both_right, 229 - dead);
            assert_int_equal(l->both_wrong, 21 - ghosts);
        }
        assert_int_equal(f->autopsy.n, NQ);
        assert_int_equal(f->autopsy.dead, dead);
        assert_ptr_equal(f->autopsy.rung, x.r[i]);

        /* accuracy and its Wilson interval */
        assert_near(f->acc, (double)right / NQ, 1e-15, what);
        grader_wilson(right, NQ, GRADER_Z95, &lo, &hi);
        assert_true(f->acc_lo == lo && f->acc_hi == hi);
        assert_true(f->acc_lo < f->acc && f->acc < f->acc_hi);

        /* the paired difference against BF16, the rung as a */
        assert_near(f->delta, ((double)ghosts - (double)dead) / NQ, 1e-12,
                    what);
        assert_true(f->delta_lo <= f->delta && f->delta <= f->delta_hi);
        if (i == 0) {
            assert_true(f->delta == 0 && f->delta_lo == 0 && f->delta_hi == 0);
        } else {
            grader_paired_diff(229 - dead, ghosts, dead, 21 - ghosts,
                               GRADER_Z95, &d, &dlo, &dhi);
            assert_true(f->delta == d && f->delta_lo == dlo &&
                        f->delta_hi == dhi);
        }

        /* no bytes anywhere; speeds from the rows but Q2_K's */
        assert_true(f->meta.bytes == -1);
        assert_true(f->meta.gpu_mib_loaded == -1);
        assert_string_equal(f->meta.sha256, "");
        assert_true(f->pct_bytes == -1.0);
        if (i == NR - 1) {
            assert_true(l->sum.median_tps < 0);
            assert_true(f->speed_x == -1.0);
        } else {
            assert_true(l->sum.median_tps == 40.0 + 2.0 * (double)i);
            assert_near(f->speed_x, (40.0 + 2.0 * (double)i) / 40.0, 1e-12,
                        what);
        }
    }
    /* BF16's 229 of 250: (0.875005, 0.944404) */
    assert_near(rep.rungs[0].acc, 0.916, 1e-12, "BF16 acc");
    assert_near(rep.rungs[0].acc_lo, 0.875005, 5e-7, "BF16 lo");
    assert_near(rep.rungs[0].acc_hi, 0.944404, 5e-7, "BF16 hi");
    /* Newcombe's interval worked from the formula (an implementation
     * that gives the Altman and Bentur examples): Q4_0, 8 ghosts against
     * 15 dead, -0.028 in (-0.068651, 0.011044); Q5_K_M, 5 against 3,
     * 0.008 in (-0.017969, 0.035134); Q2_K, 0 against 226, -0.904 in
     * (-0.933485, -0.857149) */
    assert_near(rep.rungs[6].delta, -0.028, 1e-12, "Q4_0 delta");
    assert_near(rep.rungs[6].delta_lo, -0.068651, 5e-7, "Q4_0 lo");
    assert_near(rep.rungs[6].delta_hi, 0.011044, 5e-7, "Q4_0 hi");
    assert_near(rep.rungs[4].delta_lo, -0.017969, 5e-7, "Q5_K_M lo");
    assert_near(rep.rungs[4].delta_hi, 0.035134, 5e-7, "Q5_K_M hi");
    assert_near(rep.rungs[8].delta_lo, -0.933485, 5e-7, "Q2_K lo");
    assert_near(rep.rungs[8].delta_hi, -0.857149, 5e-7, "Q2_K hi");
    /* F16's one for one is no difference at all; Q3_K_M and Q2_K are
     * losses: their intervals lie below 0 */
    assert_true(rep.rungs[1].delta == 0.0);
    assert_true(rep.rungs[1].delta_lo < 0 && rep.rungs[1].delta_hi > 0);
    assert_true(rep.rungs[7].delta_hi < 0);
    assert_true(rep.rungs[8].delta_hi < 0);
    assert_near(rep.rungs[8].delta, -0.904, 1e-12, "Q2_K delta");
    /* Q5_K_M gains 2 and the interval holds 0 */
    assert_near(rep.rungs[4].delta, 0.008, 1e-12, "Q5_K_M delta");
    assert_true(rep.rungs[4].delta_lo < 0 && rep.rungs[4].delta_hi > 0);
    grader_ladder_release(&rep);
    assert_null(rep.rungs);
    free_rungs(&x);
}

/* ---- (b) side rungs ---------------------------------------------------- */

/*
 * Six questions q0..q5, '1' right, '0' wrong:
 *
 *   BF16  111110  1000 bytes
 *   C1    111110   800 bytes              no deaths
 *   C2    100111   500 bytes              dead q1 q2, ghost q5
 *   C3    000000   300 bytes              dead q0..q4
 *   S1    101000   490 bytes              nearest C2 (10 away; C3 190,
 *                                         C1 310): dead q1 q3 q4, so
 *                                         both q1, side only q3 q4,
 *                                         beside only q2
 *   S2    011111   310 bytes              nearest C3 (10; C2 190): dead
 *                                         q0, so both q0, beside only
 *                                         q1..q4
 *   S3    111100   unknown                beside nothing (-1), no counts
 *   S4    111110   990 bytes              nearest C1 (the reference, 10
 *                                         away, is never beside)
 */
struct side_rung {
    const char *name, *pattern;
    long long bytes; /* -1: none */
};

static const struct side_rung chain_def[] = {
    {"BF16", "111110", 1000},
    {"C1", "111110", 800},
    {"C2", "100111", 500},
    {"C3", "000000", 300},
};
static const struct side_rung side_def[] = {
    {"S1", "101000", 490},
    {"S2", "011111", 310},
    {"S3", "111100", -1},
    {"S4", "111110", 990},
};
#define NCHAIN (sizeof(chain_def) / sizeof(chain_def[0]))
#define NSIDE  (sizeof(side_def) / sizeof(side_def[0]))

static const struct grader_rung *load_pattern(struct grader_qset *qs,
                                              const char *dir,
                                              const char *name,
                                              const char *pattern)
{
    struct text t = {0};
    const struct grader_rung *r;
    size_t q;

    for (q = 0; pattern[q] != '\0'; q++) {
        char id[32], ref[32], wrong[32];
        snprintf(id, sizeof(id), "q%zu", q);
        snprintf(ref, sizeof(ref), "%zu", 3 * q + 1);
        snprintf(wrong, sizeof(wrong), "%zu", 3 * q + 2);
        row(&t, id, ref, pattern[q] == '1' ? ref : wrong, -1);
    }
    r = load_text(qs, dir, name, &t, 0);
    free(t.p);
    return r;
}

/* The rungs' rows, and their bytes as metadata (chain, then side). */
static void make_side_run(const char *rundir, struct rungs *x,
                          struct grader_meta *metas)
{
    char rows[160];
    size_t i;

    snprintf(rows, sizeof(rows), "%s/rows", rundir);
    assert_int_equal(mkdir(rundir, 0700), 0);
    assert_int_equal(mkdir(rows, 0700), 0);
    x->qs = grader_qset_new();
    assert_non_null(x->qs);
    x->n = 0;
    memcpy(metas, none(), (NCHAIN + NSIDE) * sizeof(*metas));
    for (i = 0; i < NCHAIN + NSIDE; i++) {
        const struct side_rung *s =
            i < NCHAIN ? &chain_def[i] : &side_def[i - NCHAIN];
        x->r[x->n++] = load_pattern(x->qs, rows, s->name, s->pattern);
        metas[i].bytes = s->bytes;
    }
}

static void test_side_rungs(void **state)
{
    char rundir[128];
    struct rungs x;
    struct grader_ladder rep;
    struct grader_error err;
    struct grader_meta metas[NCHAIN + NSIDE];
    const struct grader_side *s;
    size_t i;

    (void)state;
    snprintf(rundir, sizeof(rundir), "%s/side", test_dir);
    make_side_run(rundir, &x, metas);
    assert_int_equal(grader_ladder_build(x.qs, metas, x.r, NCHAIN,
                                         &x.r[NCHAIN], NSIDE, NULL, NULL, 0, 0,
                                         &rep, &err),
                     0);
    /* the chain's own figures */
    for (i = 0; i < NCHAIN; i++) {
        assert_true(rep.rungs[i].meta.bytes == chain_def[i].bytes);
        assert_near(rep.rungs[i].pct_bytes,
                    100.0 * (double)chain_def[i].bytes / 1000.0, 1e-12,
                    chain_def[i].name);
    }
    assert_int_equal(rep.rungs[2].line->dead, 2);
    assert_int_equal(rep.rungs[2].line->ghosts, 1);
    assert_int_equal(rep.rungs[3].line->dead, 5);
    /* the side bury: the reference, then the side rungs */
    assert_int_equal(rep.side.nrungs, NSIDE + 1);
    assert_ptr_equal(rep.side.lines[0].rung, x.r[0]);
    assert_int_equal(rep.nsides, NSIDE);

    s = &rep.sides[0]; /* S1 */
    assert_ptr_equal(s->f.line, &rep.side.lines[1]);
    assert_ptr_equal(s->f.line->rung, x.r[NCHAIN + 0]);
    assert_true(s->f.meta.bytes == 490);
    assert_near(s->f.pct_bytes, 49.0, 1e-12, "S1 pct");
    assert_int_equal(s->beside, 2);
    assert_int_equal(s->f.line->dead, 3);
    assert_int_equal(s->f.autopsy.dead, 3);
    assert_near(s->f.delta, -3.0 / 6.0, 1e-12, "S1 delta");
    assert_true(s->f.delta_lo <= s->f.delta && s->f.delta <= s->f.delta_hi);
    assert_int_equal(s->dead_both, 1);
    assert_int_equal(s->dead_side_only, 2);
    assert_int_equal(s->dead_beside_only, 1);

    s = &rep.sides[1]; /* S2 */
    assert_true(s->f.meta.bytes == 310);
    assert_near(s->f.pct_bytes, 31.0, 1e-12, "S2 pct");
    assert_int_equal(s->beside, 3);
    assert_int_equal(s->f.line->dead, 1);
    assert_int_equal(s->f.line->ghosts, 1);
    assert_int_equal(s->dead_both, 1);
    assert_int_equal(s->dead_side_only, 0);
    assert_int_equal(s->dead_beside_only, 4);

    s = &rep.sides[2]; /* S3: bytes unknown */
    assert_true(s->f.meta.bytes == -1);
    assert_true(s->f.pct_bytes == -1.0);
    assert_int_equal(s->beside, -1);
    assert_int_equal(s->f.line->dead, 1);
    assert_int_equal(s->dead_both + s->dead_side_only + s->dead_beside_only,
                     0);

    s = &rep.sides[3]; /* S4 */
    assert_int_equal(s->beside, 1);
    assert_int_equal(s->f.line->dead, 0);
    assert_int_equal(s->dead_both + s->dead_side_only + s->dead_beside_only,
                     0);
    grader_ladder_release(&rep);

    /* without the chain's bytes no side rung has a neighbour */
    for (i = 1; i < NCHAIN; i++)
        metas[i].bytes = -1;
    assert_int_equal(grader_ladder_build(x.qs, metas, x.r, NCHAIN,
                                         &x.r[NCHAIN], NSIDE, NULL, NULL, 0, 0,
                                         &rep, &err),
                     0);
    for (i = 0; i < NSIDE; i++)
        assert_int_equal(rep.sides[i].beside, -1);
    assert_true(rep.rungs[1].pct_bytes == -1.0);
    grader_ladder_release(&rep);
    free_rungs(&x);
}

/* GRADER_PARTIAL: a rung that lacks questions has its accuracy over the
 * rows it has, and its delta paired over the questions both answered. */
static void test_partial(void **state)
{
    char rundir[128];
    struct rungs x;
    struct grader_ladder rep;
    struct grader_error err;
    const struct grader_figures *f;
    double lo, hi, d, dlo, dhi;

    (void)state;
    snprintf(rundir, sizeof(rundir), "%s/partial", test_dir);
    assert_int_equal(mkdir(rundir, 0700), 0);
    x.qs = grader_qset_new();
    x.n = 2;
    x.r[0] = load_pattern(x.qs, rundir, "BF16", "1111100");
    /* the first five questions only: q0 q1 right, q2..q4 dead */
    x.r[1] = load_pattern(x.qs, rundir, "Q3", "11000");
    assert_int_equal(grader_ladder_build(x.qs, none(), x.r, 2, NULL, 0, NULL,
                                         NULL, 0, 0, &rep, &err),
                     GRADER_EMISSING);
    assert_non_null(strstr(err.file, "Q3.jsonl"));
    assert_int_equal(grader_ladder_build(x.qs, none(), x.r, 2, NULL, 0, NULL,
                                         NULL, 0, GRADER_PARTIAL, &rep, &err),
                     0);
    f = &rep.rungs[1];
    assert_int_equal(f->line->missing, 2);
    assert_near(f->acc, 2.0 / 5.0, 1e-15, "Q3 acc");
    grader_wilson(2, 5, GRADER_Z95, &lo, &hi);
    assert_true(f->acc_lo == lo && f->acc_hi == hi);
    /* 2 both right, 0 ghosts, 3 dead, 0 both wrong: -3/5 */
    assert_near(f->delta, -0.6, 1e-12, "Q3 delta");
    grader_paired_diff(2, 0, 3, 0, GRADER_Z95, &d, &dlo, &dhi);
    assert_true(f->delta_lo == dlo && f->delta_hi == dhi);
    assert_near(rep.rungs[0].acc, 5.0 / 7.0, 1e-15, "BF16 acc");
    grader_ladder_release(&rep);
    free_rungs(&x);
}

/* ---- (c) repeats ------------------------------------------------------- */

/* Two runs of Q4_0: r0 the same; r1 the same number in other words; r2
 * right, then wrong; r3 wrong both times, with another number; r4 in the
 * first only, r5 in the second only. */
static const char rep_a[] =
    "{\"id\":\"r0\",\"reference\":\"10\",\"content\":\"Answer: 10\"}\n"
    "{\"id\":\"r1\",\"reference\":\"20\",\"content\":\"so\\nAnswer: 20\"}\n"
    "{\"id\":\"r2\",\"reference\":\"30\",\"content\":\"Answer: 30\"}\n"
    "{\"id\":\"r3\",\"reference\":\"40\",\"content\":\"Answer: 41\"}\n"
    "{\"id\":\"r4\",\"reference\":\"50\",\"content\":\"Answer: 50\"}\n";
static const char rep_b[] =
    "{\"id\":\"r0\",\"reference\":\"10\",\"content\":\"Answer: 10\"}\n"
    "{\"id\":\"r1\",\"reference\":\"20\",\"content\":\"thus\\nAnswer: 20\"}\n"
    "{\"id\":\"r2\",\"reference\":\"30\",\"content\":\"Answer: 31\"}\n"
    "{\"id\":\"r3\",\"reference\":\"40\",\"content\":\"Answer: 42\"}\n"
    "{\"id\":\"r5\",\"reference\":\"60\",\"content\":\"Answer: 60\"}\n";

static const struct grader_rung *load_rows(struct grader_qset *qs,
                                           const char *sub, const char *name,
                                           const char *rows, unsigned flags)
{
    char dir[160];
    struct text t = {0};
    const struct grader_rung *r;

    snprintf(dir, sizeof(dir), "%s/%s", test_dir, sub);
    mkdir(dir, 0700);
    text_addf(&t, "%s", rows);
    r = load_text(qs, dir, name, &t, flags);
    free(t.p);
    return r;
}

static void test_repeats(void **state)
{
    char rundir[128];
    struct rungs x;
    struct grader_ladder rep;
    struct grader_error err;
    const struct grader_rung *ra[2], *rb[2];
    const struct grader_repeat_line *l;
    const struct grader_rung *notext;

    (void)state;
    snprintf(rundir, sizeof(rundir), "%s/repeat", test_dir);
    mkdir(rundir, 0700);
    x.qs = grader_qset_new();
    x.n = 3;
    x.r[0] = load_pattern(x.qs, rundir, "BF16", "111111");
    x.r[1] = load_rows(x.qs, "repeat-1", "Q4_0", rep_a, GRADER_READ_TEXT);
    x.r[2] = load_rows(x.qs, "repeat-2", "Q4_0", rep_b, GRADER_READ_TEXT);
    /* two pairs: (1, 2) and the same the other way round */
    ra[0] = x.r[1];
    rb[0] = x.r[2];
    ra[1] = x.r[2];
    rb[1] = x.r[1];
    assert_int_equal(grader_ladder_build(x.qs, none(), x.r, 1, NULL, 0, ra, rb,
                                         2, 0, &rep, &err),
                     0);
    assert_int_equal(rep.nrepeats, 2);
    l = &rep.repeats[0];
    assert_ptr_equal(l->a, x.r[1]);
    assert_ptr_equal(l->b, x.r[2]);
    assert_int_equal(l->n, 4);                    /* r0..r3 */
    assert_int_equal(l->mismatched_extracted, 2); /* r2 r3 */
    assert_int_equal(l->mismatched_text, 3);      /* r1 r2 r3 */
    assert_int_equal(l->mismatched_right, 1);     /* r2 */
    assert_int_equal(l->right_a, 3);
    assert_int_equal(l->right_b, 2);
    assert_int_equal(l->only_a, 1); /* r4 */
    assert_int_equal(l->only_b, 1); /* r5 */
    l = &rep.repeats[1];
    assert_ptr_equal(l->a, x.r[2]);
    assert_int_equal(l->n, 4);
    assert_int_equal(l->mismatched_extracted, 2);
    assert_int_equal(l->mismatched_text, 3);
    assert_int_equal(l->mismatched_right, 1);
    assert_int_equal(l->right_a, 2);
    assert_int_equal(l->right_b, 3);
    grader_ladder_release(&rep);

    /* a run read without its text cannot be compared: an error, and
     * nothing to release */
    notext = load_rows(x.qs, "repeat-3", "Q4_0", rep_b, 0);
    rb[0] = notext;
    assert_int_equal(grader_ladder_build(x.qs, none(), x.r, 1, NULL, 0, ra, rb,
                                         1, 0, &rep, &err),
                     GRADER_EARG);
    assert_null(rep.rungs);
    assert_null(rep.repeats);
    assert_int_equal(rep.nrepeats, 0);
    grader_rung_free((struct grader_rung *)notext);
    free_rungs(&x);
}

/* ---- out of memory ----------------------------------------------------- */

/* Every allocation of a build with side rungs and repeats fails in turn:
 * the build reports out of memory (or, where jansson absorbed it while
 * reading a .done, succeeds with the same figures) and leaks nothing. */
/* Censored answers and their bound, and the noise floor from a repeat of
 * the reference, rung by rung (counted by hand below). */
static void test_censored_and_floor(void **state)
{
    struct grader_ladder rep;
    struct grader_error err;
    const struct grader_rung *ra[1], *rb[1];
    struct rungs x;
    struct text t[4] = {{0}, {0}, {0}, {0}};
    size_t i, q;

    (void)state;
    x.qs = grader_qset_new();
    x.n = 3;
    for (q = 0; q < 6; q++) {
        /* REF: right on q0..q4, wrong on q5 */
        text_addf(&t[0],
                  "{\"id\":\"q%zu\",\"reference\":\"1\","
                  "\"content\":\"Answer: %d\"}\n",
                  q, q < 5 ? 1 : 2);
        /* REF again: q4 now wrong, q5 now right: 2 graded differently */
        text_addf(&t[1],
                  "{\"id\":\"q%zu\",\"reference\":\"1\","
                  "\"content\":\"Answer: %d\"}\n",
                  q, q < 4 || q == 5 ? 1 : 2);
    }
    /* LOW: q0 right, q1 cut off but right, q2 cut off without an answer,
     * q3 empty, q4 an error, q5 wrong: censored q1..q4 (4), one of them
     * right; right 2, at most 2 + 4 - 1 = 5 */
    text_addf(&t[2], "{\"id\":\"q0\",\"reference\":\"1\",\"content\":"
                     "\"Answer: 1\"}\n");
    text_addf(&t[2], "{\"id\":\"q1\",\"reference\":\"1\",\"content\":"
                     "\"Answer: 1 and on\",\"finish_reason\":\"length\"}\n");
    text_addf(&t[2], "{\"id\":\"q2\",\"reference\":\"1\",\"content\":"
                     "\"and on\",\"truncated\":true}\n");
    text_addf(&t[2], "{\"id\":\"q3\",\"reference\":\"1\",\"content\":"
                     "\" \"}\n");
    text_addf(&t[2], "{\"id\":\"q4\",\"reference\":\"1\",\"content\":"
                     "null,\"error\":\"HTTP 500\"}\n");
    text_addf(&t[2], "{\"id\":\"q5\",\"reference\":\"1\",\"content\":"
                     "\"Answer: 2\"}\n");
    /* MID: wrong on q0 and q1: dead 2, ghosts 0, exactly the floor of 2,
     * so within it */
    for (q = 0; q < 6; q++)
        text_addf(&t[3],
                  "{\"id\":\"q%zu\",\"reference\":\"1\","
                  "\"content\":\"Answer: %d\"}\n",
                  q, q <= 1 || q == 5 ? 2 : 1);
    x.r[0] = load_text(x.qs, test_dir, "REF", &t[0], GRADER_READ_TEXT);
    x.r[1] = load_text(x.qs, test_dir, "MID", &t[3], 0);
    x.r[2] = load_text(x.qs, test_dir, "LOW", &t[2], 0);
    ra[0] = x.r[0];
    rb[0] = load_text(x.qs, test_dir, "REF", &t[1], GRADER_READ_TEXT);
    for (i = 0; i < 4; i++)
        free(t[i].p);
    assert_int_equal(grader_ladder_build(x.qs, none(), x.r, 3, NULL, 0, ra, rb,
                                         1, 0, &rep, &err),
                     0);
    assert_int_equal(rep.floor, 2);
    assert_int_equal(rep.rungs[0].censored, 0);
    assert_int_equal(rep.rungs[0].right_max, 5);
    assert_int_equal(rep.rungs[0].above_floor, -1);
    assert_int_equal(rep.rungs[1].line->dead + rep.rungs[1].line->ghosts, 2);
    assert_int_equal(rep.rungs[1].above_floor, 0);
    assert_int_equal(rep.rungs[2].censored, 4);
    assert_int_equal(rep.rungs[2].censored_right, 1);
    assert_int_equal(rep.rungs[2].line->sum.right, 2);
    assert_int_equal(rep.rungs[2].right_max, 5);
    assert_near(rep.rungs[2].acc_max, 5.0 / 6.0, 1e-12, "LOW accuracy_max");
    /* LOW: dead 3 (q2 q3 q4), ghosts 0: above a floor of 2 */
    assert_int_equal(rep.rungs[2].line->dead, 3);
    assert_int_equal(rep.rungs[2].above_floor, 1);
    grader_ladder_release(&rep);

    /* without a repeat of the reference: no floor, no verdicts */
    assert_int_equal(grader_ladder_build(x.qs, none(), x.r, 3, NULL, 0, NULL,
                                         NULL, 0, 0, &rep, &err),
                     0);
    assert_int_equal(rep.floor, -1);
    assert_int_equal(rep.rungs[2].above_floor, -1);
    grader_ladder_release(&rep);
    grader_rung_free((struct grader_rung *)rb[0]);
    free_rungs(&x);
}

static void test_out_of_memory(void **state)
{
    char rundir[128];
    struct rungs x;
    struct grader_ladder rep, clean;
    struct grader_error err;
    const struct grader_rung *ra[1], *rb[1];
    struct grader_meta metas[NCHAIN + NSIDE];
    long total, held, absorbed = 0;
    size_t i;
    int rc;

    (void)state;
    grader_set_alloc(chaos_malloc, chaos_realloc, chaos_free);
    fail_at = -1;
    snprintf(rundir, sizeof(rundir), "%s/chaos", test_dir);
    make_side_run(rundir, &x, metas);
    x.r[x.n++] = load_rows(x.qs, "chaos-1", "Q4_0", rep_a, GRADER_READ_TEXT);
    x.r[x.n++] = load_rows(x.qs, "chaos-2", "Q4_0", rep_b, GRADER_READ_TEXT);
    ra[0] = x.r[x.n - 2];
    rb[0] = x.r[x.n - 1];
    calls = 0;
    rc = grader_ladder_build(x.qs, metas, x.r, NCHAIN, &x.r[NCHAIN], NSIDE, ra,
                             rb, 1, 0, &clean, &err);
    if (rc != 0)
        fail_msg("the build fails without failing allocations: %s", err.text);
    total = calls;
    held = live; /* the rungs and the clean report */
    assert_true(total > 10);
    for (fail_at = 1; fail_at <= total; fail_at++) {
        calls = 0;
        memset(&err, 0, sizeof(err));
        rc = grader_ladder_build(x.qs, metas, x.r, NCHAIN, &x.r[NCHAIN], NSIDE,
                                 ra, rb, 1, 0, &rep, &err);
        if (rc == 0) {
            absorbed++;
            for (i = 0; i < NSIDE; i++)
                assert_int_equal(rep.sides[i].beside, clean.sides[i].beside);
            for (i = 0; i < NCHAIN; i++)
                assert_true(rep.rungs[i].meta.bytes ==
                            clean.rungs[i].meta.bytes);
            grader_ladder_release(&rep);
        } else if (rc != GRADER_ENOMEM) {
            fail_msg("failing allocation %ld gave %s: %s", fail_at,
                     grader_err_name(rc), err.text);
        }
        if (live != held)
            fail_msg("failing allocation %ld leaks %ld blocks", fail_at,
                     live - held);
    }
    fail_at = -1;
    /* nearly every failure must reach us: jansson absorbs a few */
    assert_true(absorbed * 10 < total);
    print_message("report: %ld allocations failed in turn, %ld absorbed\n",
                  total, absorbed);
    grader_ladder_release(&clean);
    free_rungs(&x);
    assert_int_equal(live, 0);
    grader_set_alloc(NULL, NULL, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_study_figures),
        cmocka_unit_test(test_partial),
        cmocka_unit_test(test_side_rungs),
        cmocka_unit_test(test_repeats),
        cmocka_unit_test(test_censored_and_floor),
        cmocka_unit_test(test_out_of_memory),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
