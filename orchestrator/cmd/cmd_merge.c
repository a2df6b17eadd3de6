/*
 * cmd_merge.c - graveyard merge: bundles of several machines made one run
 * folder, when their rows are comparable (docs/merge.md). It parses its
 * flags and calls the figures library (figures_merge.c).
 */
#include <stdio.h>

#include "../base/cli.h"
#include "commands.h"
#include "../figures/figures.h"

#define MERGE_MAX_BUNDLES 64

static const char merge_usage[] = "graveyard merge BUNDLE... --out RUNDIR";

static const char merge_about[] =
    "Bundles (graveyard publish's bundle.tar.gz, its folder unpacked, or\n"
    "the folder publish wrote) made one run folder, when and only when\n"
    "their rows are comparable: the same question set (sha256), task and\n"
    "rule, prompt, request (temperature, seed, token cap, thinking, extra,\n"
    "endpoint, logprobs), server build and graveyard version, and per rung\n"
    "the same file and build. Each bundle is first verified as graveyard\n"
    "verify does. A rung in two bundles with the same file and rows is\n"
    "kept once; other rows are refused naming the first question that\n"
    "differs. A file of one name but another sha256 (a re-upload) is\n"
    "another rung, named NAME-SHA8 (its sha256's first 8 hex). One folder\n"
    "holds one GPU's rows: bundles of other GPUs are refused (merge each\n"
    "GPU's apart, then graveyard compare the folders). RUNDIR must not\n"
    "exist or be empty; it is written beside itself and renamed at the end.\n";

static const char merge_after[] =
    "example: graveyard merge a/bundle.tar.gz b/bundle.tar.gz --out runs/t4\n"
    "Exit status: 0 merged; 1 a bundle differs from its rows or hashes\n"
    "(as verify says); 2 bundles not comparable, not a bundle, or a bad\n"
    "--out (nothing is written).\n";

int cmd_merge(int argc, char **argv)
{
    const char *pos[MERGE_MAX_BUNDLES], *out = NULL;
    const struct cli_opt opts[] = {
        CLI_NEEDED("--out", "RUNDIR", &out,
                   "the run folder made (absent, or an empty folder)"),
        CLI_END};
    const struct cli_command cmd = {
        "merge", merge_usage, merge_about, merge_after,
        opts,    "BUNDLE...", 1,           MERGE_MAX_BUNDLES};
    size_t npos;
    int rc;

    if ((rc = cli_parse(&cmd, argc, argv, pos, &npos)) != CLI_GO)
        return rc;
    return figures_merge(pos, npos, out);
}
