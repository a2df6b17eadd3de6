/*
 * cmd_grade.c - the grading commands: bury, autopsy, repeat. Each parses
 * its flags and calls the figures library (figures.h), which reads the
 * rows, has the grader compute and prints one JSON object per line.
 */
#include <stdio.h>

#include "../base/cli.h"
#include "commands.h"
#include "../figures/figures.h"

#define MAX_POS (GRADER_MAX_RUNGS + 2)

/* --rule, as the three take it */
#define RULE_HELP                                                             \
    "grade by this rule of the folder's task (docs/tasks.md; default: the "   \
    "task's first)"

static const char bury_usage[] =
    "graveyard bury RUNDIR REF RUNG... [--json FILE] [--partial]\n"
    "                      [--rule NAME]";

static const char bury_about[] =
    "Bury every RUNG against the reference rung REF, question by question,\n"
    "from RUNDIR/rows/<RUNG>.jsonl. Rungs are named in ladder order, from\n"
    "the biggest file down: a question's tombstone is at the first rung\n"
    "going down where it is dead.\n"
    "\n"
    "Prints one JSON line per rung (rung, n, right, errors, truncated,\n"
    "median_decode_tps, mean_tokens, dead, ghosts, answer_changed,\n"
    "p_mcnemar, bytes, gpu_mib_loaded, gpu_mib_before), then\n"
    "{\"first_deaths_by_rung\": {...}, \"tombstones\": N, \"ghosts\": M}.\n"
    "\n"
    "  dead       the reference is right, this rung wrong\n"
    "  ghosts     the reference is wrong, this rung right\n"
    "  p_mcnemar  exact two-sided sign test of dead vs ghosts: how often\n"
    "             two equally good models split that unevenly by chance\n";

static const char bury_after[] =
    "example: graveyard bury runs/t4 BF16 F16 Q8_0 Q4_0 Q2_K\n"
    "Exit status: 0 ok, 1 the output could not be written, 2 bad input.\n";

int cmd_bury(int argc, char **argv)
{
    const char *pos[MAX_POS];
    struct figures_bury_opts o = {0};
    const struct cli_opt opts[] = {
        CLI_STRING("--json", "FILE", &o.json_path,
                   "write the per-question tombstones and ghosts to FILE "
                   "(none without it: a bury by hand never writes over the "
                   "run folder's own graveyard.json, which the ladder "
                   "writes)"),
        CLI_SWITCH("--partial", &o.partial,
                   "bury what is there when a rung lacks some of the "
                   "reference's questions (otherwise an error)"),
        CLI_STRING("--rule", "NAME", &o.rule, RULE_HELP), CLI_END};
    const struct cli_command cmd = {
        "bury",     bury_usage, bury_about,
        bury_after, opts,       "RUNDIR and the reference rung",
        2,          MAX_POS};
    struct figures_bury r;
    size_t npos;
    int rc;

    if ((rc = cli_parse(&cmd, argc, argv, pos, &npos)) != CLI_GO)
        return rc;
    o.rundir = pos[0];
    o.rungs = pos + 1;
    o.nrungs = npos - 1;
    if ((rc = figures_bury(&o, &r)) == 0)
        rc = figures_bury_write(&o, &r);
    figures_bury_release(&r);
    return rc;
}

static const char autopsy_usage[] =
    "graveyard autopsy RUNDIR REF RUNG... [--partial] [--rule NAME]";

static const char autopsy_about[] =
    "How each rung's answers fail, from RUNDIR/rows/<RUNG>.jsonl. The first\n"
    "rung named is the reference for the dead counts, as in bury. One JSON\n"
    "line per rung:\n"
    "\n"
    "  cut_off          stopped at the token cap (finish_reason \"length\")\n"
    "  looped           some line repeats 5 or more times\n"
    "  thought          text in the thinking block (reasoning_content)\n"
    "  empty_content    no error, but no content\n"
    "  empty_right_in_reasoning  empty content, and the reasoning's\n"
    "                   'Answer:' is the right one\n"
    "  dead, dead_cut_off, dead_looped, dead_empty_content\n"
    "  first_deaths, first_deaths_right_again_lower\n"
    "  errors           rows with an error (graded wrong)\n";

static const char autopsy_after[] =
    "example: graveyard autopsy runs/t4 BF16 F16 Q8_0 Q4_0 Q2_K\n"
    "Exit status: 0 ok, 2 bad input.\n";

int cmd_autopsy(int argc, char **argv)
{
    const char *pos[MAX_POS];
    struct figures_bury_opts o = {0};
    const struct cli_opt opts[] = {
        CLI_SWITCH("--partial", &o.partial,
                   "count what is there when a rung lacks some of the "
                   "reference's questions (a ladder still running); each "
                   "rung is counted on the questions it has"),
        CLI_STRING("--rule", "NAME", &o.rule, RULE_HELP), CLI_END};
    const struct cli_command cmd = {"autopsy",
                                    autopsy_usage,
                                    autopsy_about,
                                    autopsy_after,
                                    opts,
                                    "RUNDIR and at least one rung",
                                    2,
                                    MAX_POS};
    struct figures_autopsy r;
    size_t npos;
    int rc;

    if ((rc = cli_parse(&cmd, argc, argv, pos, &npos)) != CLI_GO)
        return rc;
    o.rundir = pos[0];
    o.rungs = pos + 1;
    o.nrungs = npos - 1;
    if ((rc = figures_autopsy(&o, &r)) == 0)
        rc = figures_autopsy_print(&r);
    figures_autopsy_release(&r);
    return rc;
}

static const char repeat_usage[] =
    "graveyard repeat DIR_A DIR_B RUNG... [--common] [--rule NAME]";

static const char repeat_about[] =
    "Is the run deterministic? Compares two runs of each RUNG question by\n"
    "question, DIR_A/rows/<RUNG>.jsonl against DIR_B/rows/<RUNG>.jsonl.\n"
    "One JSON line per rung: n, mismatched_extracted, mismatched_text\n"
    "(content or reasoning differs by even one character), mismatched_right,\n"
    "right_a, right_b.\n";

static const char repeat_after[] =
    "example: graveyard repeat runs/t4 runs/t4-again Q4_0 Q8_0 --common\n";

int cmd_repeat(int argc, char **argv)
{
    const char *pos[MAX_POS];
    struct figures_repeat_opts o = {0};
    const struct cli_opt opts[] = {
        CLI_SWITCH("--common", &o.common,
                   "compare only the questions present in both runs (a short "
                   "run of --limit 50 against a full one); otherwise a "
                   "question in one run only is an error"),
        CLI_STRING("--rule", "NAME", &o.rule, RULE_HELP), CLI_END};
    const struct cli_command cmd = {"repeat",
                                    repeat_usage,
                                    repeat_about,
                                    repeat_after,
                                    opts,
                                    "DIR_A, DIR_B and at least one rung",
                                    3,
                                    MAX_POS};
    struct figures_repeat r;
    size_t npos;
    int rc;

    if ((rc = cli_parse(&cmd, argc, argv, pos, &npos)) != CLI_GO)
        return rc;
    o.dir_a = pos[0];
    o.dir_b = pos[1];
    o.rungs = pos + 2;
    o.nrungs = npos - 2;
    if ((rc = figures_repeat(&o, &r)) == 0)
        rc = figures_repeat_print(&r);
    figures_repeat_release(&r);
    return rc;
}
