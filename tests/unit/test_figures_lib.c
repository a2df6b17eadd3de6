/*
 * test_figures_lib.c - the figures library the commands and the ladder
 * call (figures.h), on the golden cases' run folders: each function
 * computes from loaded inputs and writes nothing; its writer writes; a
 * bad input is an exit status with nothing behind; a rung name the
 * ladder hands in is checked as one typed on a command line.
 *
 * Tests: orchestrator/figures/figures.c
 * Tests: orchestrator/figures/figures_compare.c
 * Tests: orchestrator/figures/figures_report.c
 */
#include "helpers.h"

#include <math.h>
#include "../../orchestrator/base/cli.h"
#include "../../orchestrator/figures/figures.h"

#define DATA "tests/golden/data/"

static const char *const ladder[] = {"BF16", "Q8_0", "Q4_0", "Q2_K"};

static int exists(const char *dir, const char *name)
{
    char path[512];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* bury: the figures in the result, the tombstones file only from the
 * writer. */
static void test_bury(void **state)
{
    struct figures_bury_opts o = {0};
    struct figures_bury r;
    char dir[64], json[128];

    (void)state;
    tmpdir_make(dir, sizeof(dir));
    snprintf(json, sizeof(json), "%s/g.json", dir);
    o.rundir = DATA "ladder";
    o.rungs = ladder;
    o.nrungs = 4;
    o.json_path = json;
    assert_int_equal(figures_bury(&o, &r), 0);
    assert_int_equal(r.b.nrungs, 4);
    assert_int_equal(r.b.lines[1].dead, 1); /* Q8_0, as bury-ladder says */
    assert_int_equal(r.b.lines[3].dead, 5); /* Q2_K */
    assert_int_equal(r.b.ntombs, 5);
    assert_int_equal(r.metas[0].bytes, -1); /* no ladder.tsv: unknown */
    assert_false(exists(dir, "g.json"));    /* computing wrote nothing */
    assert_int_equal(figures_bury_write(&o, &r), 0);
    assert_true(exists(dir, "g.json"));
    figures_bury_release(&r);
    assert_null(r.s.qs); /* released and zeroed: a second release is safe */
    figures_bury_release(&r);
    tmpdir_remove(dir);
}

/* A rung short of questions: EXIT_USAGE without --partial, figures with
 * it; a name that is a path is refused before any file is opened. */
static void test_bury_refusals(void **state)
{
    static const char *const partial[] = {"BF16", "Q4_0"};
    static const char *const path[] = {"BF16", "../../etc/passwd"};
    static const char *const twice[] = {"BF16", "Q4_0", "Q4_0"};
    struct figures_bury_opts o = {0};
    struct figures_bury r;

    (void)state;
    o.rundir = DATA "partial";
    o.rungs = partial;
    o.nrungs = 2;
    assert_int_equal(figures_bury(&o, &r), EXIT_USAGE);
    figures_bury_release(&r);
    o.partial = 1;
    assert_int_equal(figures_bury(&o, &r), 0);
    assert_int_equal(r.b.nrungs, 2);
    figures_bury_release(&r);
    o.rundir = DATA "ladder";
    o.rungs = path;
    assert_int_equal(figures_bury(&o, &r), EXIT_USAGE);
    assert_null(r.s.qs); /* refused before a rows file was read */
    figures_bury_release(&r);
    o.rungs = twice;
    o.nrungs = 3;
    assert_int_equal(figures_bury(&o, &r), EXIT_USAGE);
    figures_bury_release(&r);
}

static void test_autopsy(void **state)
{
    struct figures_bury_opts o = {0};
    struct figures_autopsy r;

    (void)state;
    o.rundir = DATA "ladder";
    o.rungs = ladder;
    o.nrungs = 4;
    assert_int_equal(figures_autopsy(&o, &r), 0);
    assert_int_equal(r.n, 4);
    assert_int_equal(r.lines[1].first_deaths, 1);
    assert_int_equal(r.lines[1].first_deaths_right_again_lower, 1);
    figures_autopsy_release(&r);
}

static void test_repeat(void **state)
{
    static const char *const rungs[] = {"Q4_0", "Q8_0"};
    struct figures_repeat_opts o = {0};
    struct figures_repeat r;

    (void)state;
    o.dir_a = DATA "ladder";
    o.dir_b = DATA "ladder-again";
    o.rungs = rungs;
    o.nrungs = 2;
    assert_int_equal(figures_repeat(&o, &r), 0);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.lines[0].mismatched_text, 1);
    assert_int_equal(r.lines[1].mismatched_right, 1);
    assert_int_equal(r.lines[1].right_b, 8);
    figures_repeat_release(&r);
}

/* report: the ladder's figures computed, the files only from the writer,
 * REPORT.html left out without html. */
static void test_report(void **state)
{
    struct figures_report_opts o = {0};
    struct figures_report r;
    char dir[64];

    (void)state;
    tmpdir_make(dir, sizeof(dir));
    o.rundir = DATA "t4";
    o.out_dir = dir;
    assert_int_equal(figures_report(&o, &r), 0);
    assert_true(r.run.nchain >= 2);
    assert_int_equal(r.rep.nq > 0, 1);
    assert_false(exists(dir, "REPORT.md"));
    assert_int_equal(figures_report_write(&o, &r), 0);
    assert_true(exists(dir, "REPORT.md"));
    assert_true(exists(dir, "report.json"));
    assert_true(exists(dir, "cover.svg"));
    assert_true(exists(dir, "pareto.svg"));
    assert_false(exists(dir, "REPORT.html"));
    figures_report_release(&r);
    o.rundir = DATA "bad"; /* rows, but no ladder: nothing to report */
    assert_int_equal(figures_report(&o, &r), EXIT_USAGE);
    figures_report_release(&r);
    tmpdir_remove(dir);
}

/* compare: the labels given, the runs' figures; think: one line per rung
 * of the thinking-on pass. */
static void test_compare_think(void **state)
{
    static const char *const dirs[] = {DATA "t4", DATA "l4"};
    struct figures_compare_opts o = {0};
    struct figures_think_opts t = {0};
    struct figures_compare *r = malloc(sizeof(*r));
    struct figures_think th;

    (void)state;
    assert_non_null(r);
    o.dirs = dirs;
    o.ndirs = 2;
    o.labels = "T4,L4";
    assert_int_equal(figures_compare(&o, r), 0);
    assert_int_equal(r->nruns, 2);
    assert_string_equal(r->view.runs[1].label, "L4");
    assert_int_equal(r->c.nruns, 2);
    figures_compare_release(r);
    o.labels = "T4"; /* one name for two folders */
    assert_int_equal(figures_compare(&o, r), EXIT_USAGE);
    figures_compare_release(r);
    free(r);
    t.off_dir = DATA "t4";
    t.on_dir = DATA "t4-think";
    assert_int_equal(figures_think(&t, &th), 0);
    assert_int_equal(th.view.n, th.on.nchain);
    figures_think_release(&th);
    t.off_dir = DATA "t4-think"; /* swapped: the manifests say so */
    t.on_dir = DATA "t4";
    assert_int_equal(figures_think(&t, &th), EXIT_USAGE);
    figures_think_release(&th);
}

/* ---- probs: where the rungs split, from probs files beside the rows ---- */

/* Question q's record at rung i of a copy of t4: four tokens, N = 2; the
 * reference chooses 1 2 3 4 with lists {chosen .6, other .3}; a rung
 * splits at position 2 exactly where it flips (dead or a ghost), else
 * chooses as the
 * reference, with lists {chosen .5, other .4}. */
static size_t probs_record(const char *id, int rung, int split,
                           unsigned char *out, size_t size)
{
    struct grader_probs_entry ch[4], top[8];
    struct grader_probs_answer a = {id, strlen(id), 2, 0, 4, ch, top, NULL, 0, NULL};

    for (uint32_t t = 0; t < 4; t++) {
        uint32_t c = split && t == 2 ? 9 : t + 1;
        float lp = (float)log(rung ? .5 : .6);
        ch[t] = (struct grader_probs_entry){c, lp, 1, "x"};
        top[t * 2] = ch[t];
        top[t * 2 + 1] = (struct grader_probs_entry){
            100 + t, (float)log(rung ? .4 : .3), 1, "y"};
    }
    return grader_probs_encode(&a, out, size);
}

static void probs_write(const char *dir, const char *rung, int is_rung,
                        const struct figures_report *r, size_t i, long cut)
{
    char path[512];
    unsigned char rec[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/rows/%s.probs", dir, rung);
    assert_non_null(f = fopen(path, "wb"));
    for (uint32_t q = 0; q < grader_qset_count(r->s.qs); q++) {
        const struct grader_answer *ra = grader_rung_find(r->s.r[0], q),
                                   *a = grader_rung_find(r->s.r[i], q);
        if (a == NULL)
            continue;
        size_t n =
            probs_record(grader_qset_id(r->s.qs, q), is_rung,
                         grader_answer_right(ra) != grader_answer_right(a),
                         rec, sizeof(rec));
        assert_true(n > 0);
        assert_int_equal(fwrite(rec, 1, n, f), n);
    }
    if (cut)
        assert_true(fflush(f) == 0 &&
                    ftruncate(fileno(f), ftell(f) - cut) == 0);
    fclose(f);
}

/* The report of a copy of t4 with probs files: per rung, every answered
 * question compared, every dead one split and a cell, the KLD the
 * grader gives for those lists, the reference's repeat at 0; a torn
 * probs file refused; none: rep.probs NULL. */
static void test_report_probs(void **state)
{
    struct figures_report_opts o = {0};
    struct figures_report r;
    struct grader_probs_entry p[2], q[2];
    char dir[64], cmd[256];
    double k, means[3], flips[3];
    size_t ghosts = 0;

    (void)state;
    tmpdir_make(dir, sizeof(dir));
    snprintf(cmd, sizeof(cmd), "cp -r " DATA "t4/. %s/", dir);
    assert_int_equal(system(cmd), 0);
    o.rundir = dir;
    assert_int_equal(figures_report(&o, &r), 0);
    assert_null(r.rep.probs); /* no probs file: as before */
    for (size_t i = 0; i < r.run.nchain; i++)
        probs_write(dir, r.run.chain[i], i > 0, &r, i, 0);
    snprintf(cmd, sizeof(cmd), "%s/repeat", dir);
    probs_write(cmd, "BF16", 0, &r, 0, 0);
    figures_report_release(&r);
    assert_int_equal(figures_report(&o, &r), 0);
    assert_non_null(r.rep.probs);
    const struct grader_probs_ladder *pl = r.rep.probs;
    assert_int_equal(pl->topn, 2);
    assert_int_equal(pl->nrungs, 4);
    p[0] = (struct grader_probs_entry){1, (float)log(.6), 0, NULL};
    p[1] = (struct grader_probs_entry){100, (float)log(.3), 0, NULL};
    q[0] = (struct grader_probs_entry){1, (float)log(.5), 0, NULL};
    q[1] = (struct grader_probs_entry){100, (float)log(.4), 0, NULL};
    k = grader_probs_kld(p, q, 2);
    size_t cells = 0;
    for (size_t i = 1; i < 4; i++) {
        const struct grader_bury_line *l = r.rep.rungs[i].line;
        assert_int_equal(pl->have[i], 1);
        assert_int_equal(pl->rung[i].both, r.s.r[i]->n);
        size_t fl = l->dead + l->ghosts;
        assert_int_equal(pl->rung[i].split, fl);
        assert_int_equal(pl->rung[i].split_died, l->dead);
        assert_int_equal(pl->rung[i].split_rose, l->ghosts);
        assert_int_equal(pl->rung[i].split_survived, 0);
        assert_int_equal(pl->rung[i].flips, fl);
        assert_int_equal(pl->rung[i].tokens, 4 * r.s.r[i]->n - fl);
        /* a dead question's split: {3 .6, 102 .3} against {9 .5, 102 .4} */
        p[0].id = 3, p[1].id = 102, q[0].id = 9, q[1].id = 102;
        double ks = grader_probs_kld(p, q, 2), t = (double)pl->rung[i].tokens;
        p[0].id = q[0].id = 1, p[1].id = q[1].id = 100;
        means[i - 1] = (k * (t - (double)fl) + ks * (double)fl) / t;
        flips[i - 1] = (double)fl;
        ghosts += l->ghosts;
        assert_true(fabs(pl->rung[i].kld_mean - means[i - 1]) < 1e-6);
        for (uint32_t j = 0; j < pl->nq; j++)
            assert_true(isnan(pl->kld[j]) &&
                        (grader_rung_find(r.s.r[i], j) == NULL) ==
                            isnan(pl->kld[i * pl->nq + j]));
        cells += l->dead;
    }
    assert_int_equal(pl->ncells, cells); /* the dead, not the ghosts */
    assert_true(cells > 0 && ghosts > 0);
    assert_int_equal(pl->cells[0].s.split, 2);
    assert_int_equal(pl->cells[0].rung_tok.id, 9);
    assert_string_equal(pl->cells[0].before, "xx");
    assert_int_equal(pl->repeat, 1);
    assert_true(pl->repeat_kld_mean == 0);
    assert_int_equal(pl->repeat_split, 0);
    /* flips against the means worked above, across the three rungs */
    assert_true(fabs(pl->spearman - grader_probs_spearman(flips, means, 3)) <
                1e-12);
    assert_false(isnan(pl->spearman));
    /* a torn last record: refused, nothing to release but the result */
    probs_write(dir, r.run.chain[2], 1, &r, 2, 3);
    figures_report_release(&r);
    assert_int_equal(figures_report(&o, &r), EXIT_USAGE);
    figures_report_release(&r);
    tmpdir_remove(dir);
}

/* Rungs whose manifest records another vocabulary than the reference's
 * get no KLD (have 0, with a warning); one that records none, or the
 * same, keeps its figures; the answers stand as graded. */
static void test_report_probs_vocab(void **state)
{
    static const char ha[] = "369d1f0e399c0ec37adda4150452519d5643752592bd"
                             "483d2de2253af036782d",
                      hb[] = "772d962ea29b32acf79c8f0dc2c29054a08e57612ddb"
                             "475f5a572596a1f9bcbb";
    struct figures_report_opts o = {0};
    struct figures_report r;
    char dir[64], cmd[512];
    json_t *m;

    (void)state;
    tmpdir_make(dir, sizeof(dir));
    snprintf(cmd, sizeof(cmd), "cp -r " DATA "t4/. %s/", dir);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof(cmd), "%s/manifest.json", dir);
    m = json_load_file(cmd, 0, NULL);
    assert_non_null(m);
    /* BF16 and Q8_0 one vocabulary, Q4_0 another, Q2_K none recorded */
    json_object_set_new(m, "rungs",
                        json_pack("{s:{s:s},s:{s:s},s:{s:s},s:{}}", "BF16",
                                  "vocab_sha256", ha, "Q8_0", "vocab_sha256",
                                  ha, "Q4_0", "vocab_sha256", hb, "Q2_K"));
    assert_int_equal(json_dump_file(m, cmd, 0), 0);
    json_decref(m);
    o.rundir = dir;
    assert_int_equal(figures_report(&o, &r), 0);
    for (size_t i = 0; i < r.run.nchain; i++)
        probs_write(dir, r.run.chain[i], i > 0, &r, i, 0);
    figures_report_release(&r);
    assert_int_equal(figures_report(&o, &r), 0);
    assert_non_null(r.rep.probs);
    assert_string_equal(r.run.chain[2], "Q4_0");
    assert_int_equal(r.rep.probs->have[1], 1);
    assert_int_equal(r.rep.probs->have[2], 0);
    assert_int_equal(r.rep.probs->have[3], 1);
    assert_true(r.rep.probs->rung[1].both > 0 &&
                r.rep.probs->rung[3].both > 0);
    assert_int_equal(r.rep.probs->rung[2].both, 0);
    figures_report_release(&r);
    tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bury),
        cmocka_unit_test(test_bury_refusals),
        cmocka_unit_test(test_autopsy),
        cmocka_unit_test(test_repeat),
        cmocka_unit_test(test_report),
        cmocka_unit_test(test_compare_think),
        cmocka_unit_test(test_report_probs),
        cmocka_unit_test(test_report_probs_vocab),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
