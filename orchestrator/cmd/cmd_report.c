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

/* --margin, as report and compare take it */
#define MARGIN_HELP                                                           \
    "the verdicts' equivalence margin in points (default 2): a rung is "      \
    "equivalent when its paired 90 % interval lies inside +-D "               \
    "(docs/grading.md, \"Verdicts\")"

static const char report_usage[] =
    "graveyard report RUNDIR [--out DIR] [--rungs REF,RUNG,...]\n"
    "                        [--side RUNG,...] [--repeat DIR] [--partial]\n"
    "                        [--no-html] [--rule NAME] [--margin D]";

static const char report_about[] =
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
    "or errors; arrows and Enter work). docs/page.md describes it.\n";

static const char report_after[] =
    "example: graveyard report runs/t4\n"
    "Exit status: 0 ok, 1 a file could not be written, 2 bad input (nothing\n"
    "is written).\n";

int cmd_report(int argc, char **argv)
{
    const char *pos[1];
    struct figures_report_opts o = {0};
    int no_html = 0;
    const struct cli_opt opts[] = {
        CLI_STRING("--out", "DIR", &o.out_dir,
                   "where the files go (default RUNDIR)"),
        CLI_STRING("--rungs", "LIST", &o.rungs,
                   "the chain, reference first, in ladder order (default: "
                   "RUNDIR/ladder.json, else the rungs graveyard bury "
                   "recorded in RUNDIR/graveyard.json)"),
        CLI_STRING("--side", "LIST", &o.side,
                   "rungs beside the chain, such as a QAT file (default: "
                   "ladder.json's side_rungs, else graveyard-side.json's)"),
        CLI_STRING("--repeat", "DIR", &o.repeat,
                   "a second run of some rungs, compared question by "
                   "question (default RUNDIR/repeat when it exists)"),
        CLI_SWITCH("--partial", &o.partial,
                   "report a ladder still running: a rung short of some of "
                   "the reference's questions is counted on those it has, "
                   "and its missing cells are white on the cover"),
        CLI_SWITCH("--no-html", &no_html,
                   "leave REPORT.html out (it holds every reply: about the "
                   "size of the rows, and the rows are read twice as "
                   "slowly)"),
        CLI_STRING("--rule", "NAME", &o.rule,
                   "grade by this rule of the folder's task (docs/tasks.md; "
                   "default: its first); a task with several rules also "
                   "gets every rule side by side (\"By rule\")"),
        CLI_DECIMAL("--margin", "D", &o.margin, 0, 100, "points", MARGIN_HELP),
        CLI_END};
    const struct cli_command cmd = {"report",
                                    report_usage,
                                    report_about,
                                    report_after,
                                    opts,
                                    "one RUNDIR",
                                    1,
                                    1};
    struct figures_report r;
    size_t npos;
    int rc;

    if ((rc = cli_parse(&cmd, argc, argv, pos, &npos)) != CLI_GO)
        return rc;
    o.rundir = pos[0];
    o.html = !no_html;
    if ((rc = figures_report(&o, &r)) == 0)
        rc = figures_report_write(&o, &r);
    figures_report_release(&r);
    return rc;
}

/* ---- compare --------------------------------------------------------- */

static const char compare_usage[] =
    "graveyard compare RUNDIR RUNDIR... [--rungs REF,RUNG,...]\n"
    "                         [--labels A,B,...] [--out DIR] [--no-html]\n"
    "                         [--rule NAME] [--margin D]";

static const char compare_about[] =
    "The same ladder run on several GPUs or machines, question by question.\n"
    "Each run is buried against its own reference. Per rung: right and\n"
    "lost on each run, questions graded differently by the closest and the\n"
    "furthest pair of runs (every pair in compare.json), lost on all, right\n"
    "on all and wrong on all; questions that die at some rung on every run\n"
    "and how many die first at the same rung everywhere; questions that die\n"
    "on one run only. It first checks that the runs used the same files\n"
    "(sha256 in each ladder.tsv) and warns loudly when they did not.\n"
    "\n"
    "Prints one JSON line per rung and a summary line.\n";

static const char compare_after[] =
    "example: graveyard compare runs/t4 runs/l4 --labels T4,L4 --out cmp\n"
    "Exit status: 0 ok, 1 a file could not be written, 2 bad input.\n";

int cmd_compare(int argc, char **argv)
{
    const char *pos[GRADER_MAX_RUNS];
    struct figures_compare_opts o = {0};
    int no_html = 0;
    const struct cli_opt opts[] = {
        CLI_STRING("--rungs", "LIST", &o.rungs,
                   "the rungs, reference first (default: the first run's "
                   "ladder.json, else its graveyard.json)"),
        CLI_STRING("--labels", "LIST", &o.labels,
                   "a name per run for the tables (default: each run's GPU "
                   "when they differ, else the folder names)"),
        CLI_STRING("--out", "DIR", &o.out_dir,
                   "also write COMPARE.md, compare.json, compare.svg "
                   "(marigold right on every run, grey wrong on every run, "
                   "violet where the runs disagree) and COMPARE.html, the "
                   "overlay as a page whose cells open every run's answers "
                   "(docs/page.md)"),
        CLI_SWITCH("--no-html", &no_html, "leave COMPARE.html out"),
        CLI_STRING("--rule", "NAME", &o.rule,
                   "grade by this rule of the runs' task (docs/tasks.md; "
                   "default: its first)"),
        CLI_DECIMAL("--margin", "D", &o.margin, 0, 100, "points", MARGIN_HELP),
        CLI_END};
    _Static_assert(GRADER_MAX_RUNS == 16, "compare's \"2 to 16\"");
    const struct cli_command cmd = {"compare",
                                    compare_usage,
                                    compare_about,
                                    compare_after,
                                    opts,
                                    "2 to 16 run folders",
                                    2,
                                    GRADER_MAX_RUNS};
    struct figures_compare *r;
    size_t npos;
    int rc;

    if ((rc = cli_parse(&cmd, argc, argv, pos, &npos)) != CLI_GO)
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

static const char think_usage[] =
    "graveyard think OFF_DIR ON_DIR [--rungs REF,RUNG,...] [--out DIR]\n"
    "                       [--no-html] [--rule NAME]";

static const char think_about[] =
    "The same rungs with thinking off (OFF_DIR) and on (ON_DIR), question\n"
    "by question; each pass is buried against its own reference. Per rung:\n"
    "right off and on, right in both, dead off and on, dead in both, the\n"
    "deaths cut off at the token cap with thinking off and how many of them\n"
    "are right with thinking on; tokens and decode speed on over off.\n"
    "\n"
    "Prints one JSON line per rung.\n";

static const char think_after[] =
    "example: graveyard think runs/t4 runs/t4-think --out runs/t4-think\n"
    "Exit status: 0 ok, 1 a file could not be written, 2 bad input.\n";

int cmd_think(int argc, char **argv)
{
    const char *pos[2];
    struct figures_think_opts o = {0};
    int no_html = 0;
    const struct cli_opt opts[] = {
        CLI_STRING("--rungs", "LIST", &o.rungs,
                   "the rungs, reference first (default: ON_DIR's chain, "
                   "from its ladder.json or graveyard.json)"),
        CLI_STRING("--out", "DIR", &o.out_dir,
                   "also write THINK.md, think.json and THINK.html (the two "
                   "passes overlaid, violet where they disagree; a cell "
                   "opens both passes' answers: docs/page.md)"),
        CLI_SWITCH("--no-html", &no_html, "leave THINK.html out"),
        CLI_STRING("--rule", "NAME", &o.rule,
                   "grade by this rule of the passes' task (docs/tasks.md; "
                   "default: its first)"),
        CLI_END};
    const struct cli_command cmd = {
        "think", think_usage,          think_about, think_after,
        opts,    "OFF_DIR and ON_DIR", 2,           2};
    struct figures_think r;
    size_t npos;
    int rc;

    if ((rc = cli_parse(&cmd, argc, argv, pos, &npos)) != CLI_GO)
        return rc;
    o.off_dir = pos[0];
    o.on_dir = pos[1];
    o.html = !no_html;
    if ((rc = figures_think(&o, &r)) == 0)
        rc = figures_think_write(&o, &r);
    figures_think_release(&r);
    return rc;
}
