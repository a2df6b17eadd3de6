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

static const char build_help[] =
    "usage: graveyard build CONFIG [--only RUNG]... [--force RUNG]...\n"
    "                       [--jobs N] [--run-dir DIR] [--quiet]\n"
    "\n"
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
    "file and no tool behind; the same command goes on.\n"
    "\n"
    "  --only RUNG   make RUNG (and the sources it needs) only; repeat it\n"
    "  --force RUNG  make RUNG again even if its file is there; repeat it\n"
    "  --jobs N      independent quantizations at once (default 1); the\n"
    "                threads (build.threads, or every core) are split\n"
    "  --run-dir DIR the run folder (default: the config's run_dir)\n"
    "  --quiet       no progress lines (errors still)\n"
    "\n"
    "Exit status: 0 every asked file is there; 1 a tool failed or the disk\n"
    "is short (the rest was still made); 2 a bad config (one line names\n"
    "the file and key: an unknown type, a \"from\" that is no rung, a cycle,\n"
    "a folder we cannot write); 3 another build holds the run folder; 128+N\n"
    "stopped by signal N (the tools are stopped first).\n";

int cmd_build(int argc, char **argv)
{
    const char *pos[1], *jobs = NULL, *run_dir = NULL, *only[CONFIG_MAX_RUNGS],
                        *force[CONFIG_MAX_RUNGS];
    size_t npos = 0, nonly = 0, nforce = 0;
    int help = 0, quiet = 0, rc;
    const struct cli_flag flags[] = {
        {"--only", NULL, NULL, only, &nonly, CONFIG_MAX_RUNGS},
        {"--force", NULL, NULL, force, &nforce, CONFIG_MAX_RUNGS},
        {"--jobs", &jobs, NULL, NULL, NULL, 0},
        {"--run-dir", &run_dir, NULL, NULL, NULL, 0},
        {"--quiet", NULL, &quiet, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, 0}};
    struct config_over over = {NULL, NULL, NULL};
    struct build_opts o;
    struct config c;
    char msg[4400];

    rc = cli_parse("build", argc, argv, flags, pos, 1, &npos, &help);
    if (rc != 0)
        return rc;
    if (help) {
        fputs(build_help, stdout);
        return EXIT_OK;
    }
    if (npos != 1) {
        cli_error("build", "needs CONFIG (see --help)");
        return EXIT_USAGE;
    }
    memset(&o, 0, sizeof o);
    o.jobs = 1;
    if (jobs != NULL) {
        if (cli_whole(jobs, 1, 64, &o.jobs) != 0) {
            cli_error("build", "--jobs wants a number from 1 to 64, not '%s'",
                      jobs);
            return EXIT_USAGE;
        }
    }
    over.run_dir = run_dir;
    if (config_load(pos[0], &over, &c, msg, sizeof msg) != 0) {
        cli_error("build", "%s", msg);
        return EXIT_USAGE;
    }
    o.only = only;
    o.nonly = nonly;
    o.force = force;
    o.nforce = nforce;
    o.quiet = quiet;
    o.who = "build";
    rc = build_ladder(&c, &o);
    config_release(&c);
    return rc;
}
