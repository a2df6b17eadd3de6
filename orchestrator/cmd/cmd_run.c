/*
 * cmd_run.c - graveyard run: the command line of one rung's run (the plan
 * is runplan.c's, which graveyard canary runs too).
 */
#include <stdio.h>
#include <string.h>

#include "../../grader/grader.h"
#include "../base/cli.h"
#include "commands.h"
#include "../run/runplan.h"

static const char run_usage[] =
    "graveyard run RUNG MODEL QUESTIONS RUNDIR [options]\n"
    "       graveyard run --config CONFIG --rung NAME [--run-dir DIR]\n"
    "                     [--llama PATH] [--gpu ID] [--force] [--quiet]\n"
    "                     [--question-file FILE]\n"
    "       graveyard run --url URL RUNG QUESTIONS RUNDIR [--api-key-env "
    "VAR]\n"
    "                     [--allow-plain-http] [request options]";

static const char run_about[] =
    "Start one llama-server for the GGUF file MODEL, wait until it is\n"
    "healthy, ask it every question of QUESTIONS (JSONL: id, question,\n"
    "answer; or GSM8K's own test.jsonl) one at a time, greedily, and append\n"
    "one row per answer to RUNDIR/rows/RUNG.jsonl. Running the same command\n"
    "again continues where it stopped; a finished rung prints its summary.\n";

static const char run_after[] =
    "Every request: temperature 0, seed 0, cache_prompt false, stream, and\n"
    "chat_template_kwargs.enable_thinking; the server: -c, -np 1, --seed 0,\n"
    "-ngl, --host 127.0.0.1 and a free port. Prints one JSON line: rung, n,\n"
    "right, errors, truncated, median_decode_tps, mean_tokens.\n"
    "With --config, one rung of a ladder config (docs/config.md) is run\n"
    "with every setting the config gives: what graveyard ladder starts for\n"
    "each rung. Only --run-dir, --llama and --gpu may stand in for the\n"
    "config's, and --question-file for its questions (graveyard canary\n"
    "asks its own this way).\n"
    "\n"
    "A finished rung is checked against the manifest like any other, and\n"
    "prints its summary. Exit status: 0 the rung finished, 1 it failed\n"
    "(run again to resume; a full disk is one), 2 bad input, 3 another\n"
    "graveyard runs the rung. docs/run.md explains rows, resume and\n"
    "faults.\n";

int cmd_run(int argc, char **argv)
{
    const struct cli_command text = {.name = "run",
                                     .usage = run_usage,
                                     .about = run_about,
                                     .after = run_after};
    struct runplan_flags f;
    struct runplan plan;
    const char *pos[4];
    size_t npos;
    int rc;

    if ((rc = runplan_ladder_gone()) != 0)
        return rc;
    if ((rc = runplan_parse(&text, argc, argv, &f, pos, &npos)) != CLI_GO)
        return rc;
    if (f.task != NULL && strcmp(f.task, "help") == 0) {
        const char *name;
        for (size_t i = 0; (name = grader_task_builtin_name(i)) != NULL; i++)
            printf("%-28s %s\n", name, grader_task_builtin_about(i));
        return EXIT_OK;
    }
    if ((rc = runplan_build(&plan, &f, pos, npos)) == 0)
        rc = runplan_execute(&plan);
    runplan_release(&plan);
    return rc;
}
