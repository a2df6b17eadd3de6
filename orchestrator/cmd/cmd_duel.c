/*
 * cmd_duel.c - graveyard duel RUNDIR A B: two files of one type set
 * against each other answer by answer (docs/duel.md). Parses its flags
 * and calls the figures library (figures.h): the grader counts and
 * judges, report/md_duel.c formats.
 */
#include <stdio.h>

#include "../base/cli.h"
#include "commands.h"
#include "../figures/figures.h"

static const char duel_usage[] =
    "graveyard duel RUNDIR A B [--also RUNDIR]... [--margin D] [--json]";

static const char duel_about[] =
    "Two rungs of one folder, A against B, on the questions both answered\n"
    "(the same model's Q4_K_M from two publishers, a re-upload under one\n"
    "name): the paired table (both right, A right only, B right only,\n"
    "neither), the exact McNemar p, the change A - B in points with its\n"
    "paired 95 % and 90 % intervals, and the verdict at the margin: A and B\n"
    "equivalent within +-D, A better, B better, or cannot tell and how many\n"
    "questions would. The margin is raised to the folder's noise floor (the\n"
    "reference against its repeat) as the report's verdicts are. Each run\n"
    "folder is a subject (its task: math, code, tool calls, long context),\n"
    "a folder of long items also one per prompt length, and the pool of the\n"
    "folders is the whole. Then the questions they disagree on, and where\n"
    "the two files came from: bytes, sha256, general.name, file type, the\n"
    "imatrix and the tensors whose type differs (docs/duel.md).\n";

static const char duel_after[] =
    "example: graveyard duel runs/gemma Q4_K_M-bart Q4_K_M-unsloth "
    "--also runs/gemma-code\n"
    "Exit status: 0 ok, 1 standard output could not be written, 2 bad\n"
    "input (an unknown rung, A the same as B, a folder without rows for\n"
    "either).\n";

int cmd_duel(int argc, char **argv)
{
    const char *pos[3], *also[RUNGSET_DIRS - 1];
    struct figures_duel_opts o = {0};
    size_t nalso = 0, npos, i;
    int json = 0, rc;
    const struct cli_opt opts[] = {
        CLI_LIST("--also", "RUNDIR", also, &nalso, RUNGSET_DIRS - 1,
                 "another run folder holding A and B (another task: code, "
                 "tool calls, long context), a subject of its own; "
                 "repeatable"),
        CLI_DECIMAL("--margin", "D", &o.margin, 0, 100, "points",
                    "the equivalence margin in points (default: the "
                    "folder's ladder's margin_points, else 2): A and B are "
                    "equivalent when the paired 90 % interval of A - B lies "
                    "inside +-D"),
        CLI_SWITCH("--json", &json,
                   "print the duel as JSON (report.json's duel object, "
                   "docs/duel.md) instead of the text"),
        CLI_END};
    const struct cli_command cmd = {
        "duel", duel_usage, duel_about, duel_after, opts, "RUNDIR A B", 3, 3};
    struct figures_duel r;

    if ((rc = cli_parse(&cmd, argc, argv, pos, &npos)) != CLI_GO)
        return rc;
    o.dirs[o.ndirs++] = pos[0];
    for (i = 0; i < nalso; i++)
        o.dirs[o.ndirs++] = also[i];
    o.a = pos[1];
    o.b = pos[2];
    /* a rung's name is a file name's characters: anything else (a control
     * character, a path) is refused before it is echoed anywhere */
    if ((rc = cli_rung_name_check("duel", o.a)) != 0 ||
        (rc = cli_rung_name_check("duel", o.b)) != 0)
        return rc;
    if ((rc = figures_duel(&o, &r)) == 0)
        rc = figures_duel_write(&r, json);
    figures_duel_release(&r);
    return rc;
}
