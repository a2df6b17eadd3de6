/*
 * cmd_report.c - the reports people read: report (one run folder),
 * compare (one ladder on several GPUs or machines) and think (thinking
 * off against on). Each parses its flags and calls the figures library
 * (figures.h), which reads the rows, has the grader compute and writes
 * what report/ renders.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "../base/cli.h"
#include "commands.h"
#include "../figures/figures.h"

/* ---- report ---------------------------------------------------------- */

/* --margin D: the verdicts' equivalence margin, points above 0 and below
 * 100 (docs/grading.md, "Verdicts"); NULL leaves *out 0, the default. 0,
 * or EXIT_USAGE after one line. */
static int margin_arg(const char *cmd, const char *s, double *out)
{
    double d;

    if (s == NULL)
        return 0;
    if (cli_decimal(s, &d) != 0 || !(d > 0.0 && d < 100.0)) {
        cli_error(cmd,
                  "--margin wants a number of points above 0 and below 100, "
                  "not '%.40s'",
                  s);
        return EXIT_USAGE;
    }
    *out = d;
    return 0;
}

static const char report_help[] =
    "usage: graveyard report RUNDIR [--out DIR] [--rungs REF,RUNG,...]\n"
    "                        [--side RUNG,...] [--repeat DIR] [--partial]\n"
    "                        [--no-html] [--rule NAME] [--margin D]\n"
    "\n"
    "The report of one run folder, computed from its rows: REPORT.md (the\n"
    "run's settings, the ladder table with accuracy and its Wilson 95 %\n"
    "interval, dead, ghosts, the paired 95 % interval of each rung's change\n"
    "against the reference, McNemar p, speed and GPU memory; first deaths,\n"
    "the autopsy, side rungs, repeat checks, every tombstone's epitaph),\n"
    "cover.svg (one row per rung, one cell per question: marigold right,\n"
    "grey wrong), pareto.svg (right against file size and decode speed,\n"
    "each rung a point with its interval, the Pareto front, and which file\n"
    "to run), report.json (the same figures, for scripts) and REPORT.html:\n"
    "one self-contained page to open every answer behind a cell (hover a\n"
    "cell, click it for the question, the reply and its answer at every\n"
    "rung; filter by tombstones, ghosts, deaths at a rung, cut off, looped\n"
    "or errors; arrows and Enter work). docs/page.md describes it.\n"
    "\n"
    "  --out DIR     where the files go (default RUNDIR)\n"
    "  --rungs LIST  the chain, reference first, in ladder order (default:\n"
    "                RUNDIR/ladder.json, else the rungs graveyard bury\n"
    "                recorded in RUNDIR/graveyard.json)\n"
    "  --side LIST   rungs beside the chain, such as a QAT file (default:\n"
    "                ladder.json's side_rungs, else graveyard-side.json's)\n"
    "  --repeat DIR  a second run of some rungs, compared question by\n"
    "                question (default RUNDIR/repeat when it exists)\n"
    "  --partial     report a ladder still running: a rung short of some of\n"
    "                the reference's questions is counted on those it has,\n"
    "                and its missing cells are white on the cover\n"
    "  --no-html     leave REPORT.html out (it holds every reply: about the\n"
    "                size of the rows, and the rows are read twice as "
    "slowly)\n"
    "  --rule NAME   grade by this rule of the folder's task (docs/tasks.md;\n"
    "                default: its first); a task with several rules also\n"
    "                gets every rule side by side (\"By rule\")\n"
    "  --margin D    the verdicts' equivalence margin in points (default 2):\n"
    "                a rung is equivalent when its paired 90 % interval\n"
    "                lies inside +-D (docs/grading.md, \"Verdicts\")\n"
    "\n"
    "example: graveyard report runs/t4\n"
    "Exit status: 0 ok, 1 a file could not be written, 2 bad input (nothing\n"
    "is written).\n";

int cmd_report(int argc, char **argv)
{
    const char *pos[2];
    struct figures_report_opts o = {0};
    const char *margin = NULL;
    int no_html = 0;
    const struct cli_flag flags[] = {
        {"--margin", &margin, NULL, NULL, NULL, 0},
        {"--out", &o.out_dir, NULL, NULL, NULL, 0},
        {"--rungs", &o.rungs, NULL, NULL, NULL, 0},
        {"--side", &o.side, NULL, NULL, NULL, 0},
        {"--repeat", &o.repeat, NULL, NULL, NULL, 0},
        {"--partial", NULL, &o.partial, NULL, NULL, 0},
        {"--no-html", NULL, &no_html, NULL, NULL, 0},
        {"--rule", &o.rule, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, 0}};
    struct figures_report r;
    size_t npos;
    int help, rc;

    rc = cli_parse("report", argc, argv, flags, pos, 2, &npos, &help);
    if (rc != 0)
        return rc;
    if (help) {
        fputs(report_help, stdout);
        return EXIT_OK;
    }
    if (npos != 1) {
        cli_error("report", "needs one RUNDIR (see --help)");
        return EXIT_USAGE;
    }
    if ((rc = margin_arg("report", margin, &o.margin)) != 0)
        return rc;
    o.rundir = pos[0];
    o.html = !no_html;
    if ((rc = figures_report(&o, &r)) == 0)
        rc = figures_report_write(&o, &r);
    figures_report_release(&r);
    return rc;
}

/* ---- compare --------------------------------------------------------- */

static const char compare_help[] =
    "usage: graveyard compare RUNDIR RUNDIR... [--rungs REF,RUNG,...]\n"
    "                         [--labels A,B,...] [--out DIR] [--no-html]\n"
    "                         [--rule NAME] [--margin D]\n"
    "\n"
    "The same ladder run on several GPUs or machines, question by question.\n"
    "Each run is buried against its own reference. Per rung: right and\n"
    "lost on each run, questions graded differently by the closest and the\n"
    "furthest pair of runs (every pair in compare.json), lost on all, right\n"
    "on all and wrong on all; questions that die at some rung on every run\n"
    "and how many die first at the same rung everywhere; questions that die\n"
    "on one run only. It first checks that the runs used the same files\n"
    "(sha256 in each ladder.tsv) and warns loudly when they did not.\n"
    "\n"
    "Prints one JSON line per rung and a summary line.\n"
    "  --rungs LIST   the rungs, reference first (default: the first run's\n"
    "                 ladder.json, else its graveyard.json)\n"
    "  --labels LIST  a name per run for the tables (default: each run's\n"
    "                 GPU when they differ, else the folder names)\n"
    "  --out DIR      also write COMPARE.md, compare.json, compare.svg\n"
    "                 (marigold right on every run, grey wrong on every\n"
    "                 run, violet where the runs disagree) and\n"
    "                 COMPARE.html, the overlay as a page whose cells open\n"
    "                 every run's answers (docs/page.md)\n"
    "  --no-html      leave COMPARE.html out\n"
    "  --margin D     the verdicts' equivalence margin in points (default 2)\n"
    "\n"
    "example: graveyard compare runs/t4 runs/l4 --labels T4,L4 --out cmp\n"
    "Exit status: 0 ok, 1 a file could not be written, 2 bad input.\n";

int cmd_compare(int argc, char **argv)
{
    const char *pos[GRADER_MAX_RUNS + 1];
    struct figures_compare_opts o = {0};
    const char *margin = NULL;
    int no_html = 0;
    const struct cli_flag flags[] = {
        {"--margin", &margin, NULL, NULL, NULL, 0},
        {"--rungs", &o.rungs, NULL, NULL, NULL, 0},
        {"--labels", &o.labels, NULL, NULL, NULL, 0},
        {"--out", &o.out_dir, NULL, NULL, NULL, 0},
        {"--no-html", NULL, &no_html, NULL, NULL, 0},
        {"--rule", &o.rule, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, 0}};
    struct figures_compare *r;
    size_t npos;
    int help, rc;

    rc = cli_parse("compare", argc, argv, flags, pos, GRADER_MAX_RUNS + 1,
                   &npos, &help);
    if (rc != 0)
        return rc;
    if (help) {
        fputs(compare_help, stdout);
        return EXIT_OK;
    }
    if (npos < 2 || npos > GRADER_MAX_RUNS) {
        cli_error("compare", "needs 2 to %d run folders (see --help)",
                  GRADER_MAX_RUNS);
        return EXIT_USAGE;
    }
    if ((rc = margin_arg("compare", margin, &o.margin)) != 0)
        return rc;
    o.dirs = pos;
    o.ndirs = npos;
    o.html = !no_html;
    r = xrealloc(NULL, sizeof(*r));
    if ((rc = figures_compare(&o, r)) == 0)
        rc = figures_compare_write(&o, r);
    figures_compare_release(r);
    free(r);
    return rc;
}

/* ---- think ----------------------------------------------------------- */

static const char think_help[] =
    "usage: graveyard think OFF_DIR ON_DIR [--rungs REF,RUNG,...] [--out "
    "DIR]\n"
    "                       [--no-html] [--rule NAME]\n"
    "\n"
    "The same rungs with thinking off (OFF_DIR) and on (ON_DIR), question\n"
    "by question; each pass is buried against its own reference. Per rung:\n"
    "right off and on, right in both, dead off and on, dead in both, the\n"
    "deaths cut off at the token cap with thinking off and how many of them\n"
    "are right with thinking on; tokens and decode speed on over off.\n"
    "\n"
    "Prints one JSON line per rung.\n"
    "  --rungs LIST  the rungs, reference first (default: ON_DIR's chain,\n"
    "                from its ladder.json or graveyard.json)\n"
    "  --out DIR     also write THINK.md, think.json and THINK.html (the\n"
    "                two passes overlaid, violet where they disagree; a\n"
    "                cell opens both passes' answers: docs/page.md)\n"
    "  --no-html     leave THINK.html out\n"
    "\n"
    "example: graveyard think runs/t4 runs/t4-think --out runs/t4-think\n"
    "Exit status: 0 ok, 1 a file could not be written, 2 bad input.\n";

int cmd_think(int argc, char **argv)
{
    const char *pos[2];
    struct figures_think_opts o = {0};
    int no_html = 0;
    const struct cli_flag flags[] = {
        {"--rungs", &o.rungs, NULL, NULL, NULL, 0},
        {"--out", &o.out_dir, NULL, NULL, NULL, 0},
        {"--no-html", NULL, &no_html, NULL, NULL, 0},
        {"--rule", &o.rule, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, 0}};
    struct figures_think r;
    size_t npos;
    int help, rc;

    rc = cli_parse("think", argc, argv, flags, pos, 2, &npos, &help);
    if (rc != 0)
        return rc;
    if (help) {
        fputs(think_help, stdout);
        return EXIT_OK;
    }
    if (npos != 2) {
        cli_error("think", "needs OFF_DIR and ON_DIR (see --help)");
        return EXIT_USAGE;
    }
    o.off_dir = pos[0];
    o.on_dir = pos[1];
    o.html = !no_html;
    if ((rc = figures_think(&o, &r)) == 0)
        rc = figures_think_write(&o, &r);
    figures_think_release(&r);
    return rc;
}
