/*
 * test_orch_figures.c - the figures library the commands and the ladder
 * call (figures.h), on the golden cases' run folders: each function
 * computes from loaded inputs and writes nothing; its writer writes; a
 * bad input is an exit status with nothing behind; a rung name the
 * ladder hands in is checked as one typed on a command line.
 */
#include "helpers.h"
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bury),    cmocka_unit_test(test_bury_refusals),
        cmocka_unit_test(test_autopsy), cmocka_unit_test(test_repeat),
        cmocka_unit_test(test_report),  cmocka_unit_test(test_compare_think),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
