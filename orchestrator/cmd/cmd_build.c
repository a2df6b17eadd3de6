/*
 * cmd_build.c - graveyard build CONFIG: make the ladder's files
 * (build.h, docs/build.md). Flags and help; the work is build.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../forge/build.h"
#include "../base/cli.h"
#include "commands.h"
#include "../input/config.h"

static const char build_usage[] =
    "graveyard build CONFIG [--only RUNG]... [--force RUNG]...\n"
    "                       [--jobs N] [--run-dir DIR] [--quiet]";

static const char build_about[] =
    "Make the ladder's GGUF files as CONFIG says (docs/build.md): a rung\n"
    "with \"convert\": \"bf16\" is converted from build.checkpoint by\n"
    "build.convert (convert_hf_to_gguf.py, under build.python); a rung\n"
    "with \"quantize\": {\"from\": \"BF16\", \"type\": \"Q4_K_M\"} is made\n"
    "from another rung's file by build.quantize (llama-quantize). Rungs\n"
    "with neither are files you bring.\n"
    "\n"
    "Each file is written to a temporary name beside it, checked to be a\n"
    "GGUF, synced and renamed: its final path never holds half a file.\n"
    "What was made goes into RUN_DIR/ladder.tsv (rung, file, bytes,\n"
    "sha256) and RUN_DIR/build.json (tool version, argv, source sha256,\n"
    "seconds); each tool's output into RUN_DIR/build/RUNG.log (capped).\n"
    "Before a \"convert\": \"f16\" rung, f16-range counts what the cast\n"
    "costs into RUN_DIR/f16-range.jsonl.\n"
    "\n"
    "Run it again at any time: a file that is there and was made with the\n"
    "config's recipe is left alone (no tool starts, nothing is written);\n"
    "one made with another recipe is refused unless --force names it; one\n"
    "graveyard did not make is used as is. Killed, it leaves no partial\n"
    "file and no tool behind; the same command goes on.\n";

static const char build_after[] =
    "Exit status: 0 every asked file is there; 1 a tool failed or the disk\n"
    "is short (the rest was still made); 2 a bad config (one line names\n"
    "the file and key: an unknown type, a \"from\" that is no rung, a cycle,\n"
    "a folder we cannot write); 3 another build holds the run folder; 128+N\n"
    "stopped by signal N (the tools are stopped first).\n";

int cmd_build(int argc, char **argv)
{
    const char *pos[1], *run_dir = NULL, *only[CONFIG_MAX_RUNGS],
                        *force[CONFIG_MAX_RUNGS];
    size_t npos = 0, nonly = 0, nforce = 0;
    int rc;
    struct config_over over = {NULL, NULL, NULL};
    struct build_opts o = {.jobs = 1, .who = "build"};
    const struct cli_opt opts[] = {
        CLI_LIST("--only", "RUNG", only, &nonly, CONFIG_MAX_RUNGS,
                 "make RUNG (and the sources it needs) only; repeat it"),
        CLI_LIST("--force", "RUNG", force, &nforce, CONFIG_MAX_RUNGS,
                 "make RUNG again even if its file is there; repeat it"),
        CLI_LONG("--jobs", "N", &o.jobs, 1, 64,
                 "independent quantizations at once (default 1); the "
                 "threads (build.threads, or every core) are split"),
        CLI_STRING("--run-dir", "DIR", &run_dir,
                   "the run folder (default: the config's run_dir)"),
        CLI_SWITCH("--quiet", &o.quiet, "no progress lines (errors still)"),
        CLI_END};
    const struct cli_command cmd = {
        "build", build_usage, build_about, build_after, opts, "CONFIG", 1, 1};
    struct config c;
    char msg[4400];

    if ((rc = cli_parse(&cmd, argc, argv, pos, &npos)) != CLI_GO)
        return rc;
    over.run_dir = run_dir;
    if (config_load(pos[0], &over, &c, msg, sizeof msg) != 0) {
        cli_error("build", "%s", msg);
        return EXIT_USAGE;
    }
    o.only = only;
    o.nonly = nonly;
    o.force = force;
    o.nforce = nforce;
    rc = build_ladder(&c, &o);
    config_release(&c);
    return rc;
}
