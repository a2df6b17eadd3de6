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

static const char run_help[] =
    "usage: graveyard run RUNG MODEL QUESTIONS RUNDIR [options]\n"
    "       graveyard run --config CONFIG --rung NAME [--run-dir DIR]\n"
    "                     [--llama PATH] [--gpu ID] [--force] [--quiet]\n"
    "                     [--question-file FILE]\n"
    "       graveyard run --url URL RUNG QUESTIONS RUNDIR [--api-key-env "
    "VAR]\n"
    "                     [--allow-plain-http] [request options]\n"
    "\n"
    "Start one llama-server for the GGUF file MODEL, wait until it is\n"
    "healthy, ask it every question of QUESTIONS (JSONL: id, question,\n"
    "answer; or GSM8K's own test.jsonl) one at a time, greedily, and append\n"
    "one row per answer to RUNDIR/rows/RUNG.jsonl. Running the same command\n"
    "again continues where it stopped; a finished rung prints its summary.\n"
    "\n"
    "  --llama PATH        llama-server binary, or a llama.cpp folder\n"
    "                      (build/bin/llama-server inside); default: the\n"
    "                      llama-server on PATH. No recompile to swap builds\n"
    "  --limit N           the first N questions only\n"
    "  --think             thinking on (4096 tokens, -c 8192 unless given)\n"
    "  --ngl N|auto        layers on the GPU (default 99; auto: leave -ngl\n"
    "                      off and let the server decide)\n"
    "  --max-tokens N      token cap per answer (default 1024)\n"
    "  --ctx N             server context -c (default 4096)\n"
    "  --gpu ID            CUDA_VISIBLE_DEVICES for the server\n"
    "  --server-arg ARG    one more server argument (repeat as needed;\n"
    "                      not --host or --port: graveyard's own)\n"
    "  --request JSON      fields merged into every request body, e.g.\n"
    "                      '{\"top_k\": 1}' (recorded in the manifest)\n"
    "  --health-timeout S  give up starting the server after S s (600)\n"
    "  --idle-timeout S    no token for S s: the server hung (120)\n"
    "  --request-timeout S no whole answer in S s: a \"deadline\" error\n"
    "                      row (default: idle timeout + max tokens / 2)\n"
    "  --log-cap BYTES     server log kept per rung: the first and last\n"
    "                      halves (default 4194304)\n"
    "  --task NAME|FILE    what is asked and how it is graded: a built-in\n"
    "                      task ('--task help' lists them; default\n"
    "                      answer-line) or a task file (docs/tasks.md)\n"
    "  --prompt TEXT       the prompt, with {question} where the question\n"
    "                      goes (default: the task's; recorded in the\n"
    "                      manifest)\n"
    "  --server-argv JSON  the server's arguments after the binary, a JSON\n"
    "                      list with {model} {port} {ngl} {ctx} {seed}, for\n"
    "                      builds whose flags differ (--host is always\n"
    "                      127.0.0.1)\n"
    "  --server-env JSON   extra server environment, a JSON object; {gpu}\n"
    "                      is the --gpu value\n"
    "  --allow-batching    a server given several slots (--server-arg\n"
    "                      -np N) is sent N questions at once: faster, and\n"
    "                      not the same computation (docs/run.md,\n"
    "                      \"Batching\"); refused without this flag\n"
    "  --abort-loops       close a reply as soon as it loops (a line 5\n"
    "                      times, or a span of tokens repeating) and write\n"
    "                      what arrived, finish_reason \"loop\": a night\n"
    "                      of looping rungs is shorter (docs/run.md)\n"
    "  --logprobs N        ask every token's top N log-probabilities (1 to\n"
    "                      20) and keep them in rows/RUNG.probs beside the\n"
    "                      rows (docs/rows.md, \"The probs file\")\n"
    "  --force             resume although a setting changed (recorded)\n"
    "  --quiet             no progress lines on stderr\n"
    "  --url URL           a served model: no server is started; URL's\n"
    "                      /health (or /v1/models) is waited for and its\n"
    "                      /v1/chat/completions asked (docs/run.md, \"A\n"
    "                      served model\"); https, or http to this machine\n"
    "  --api-key-env VAR   with --url: the key is $VAR, sent as a Bearer\n"
    "                      token and never written (the manifest keeps its\n"
    "                      sha256)\n"
    "  --allow-plain-http  with --url: http to another machine\n";

/* the rest: one literal would pass the 4095 bytes C99 promises */
static const char run_help_end[] =
    "\n"
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
    struct runplan_flags f;
    struct runplan plan;
    const char *pos[4];
    size_t npos;
    int help, rc;

    if ((rc = runplan_ladder_gone()) != 0)
        return rc;
    if ((rc = runplan_parse(argc, argv, &f, pos, &npos, &help)) != 0)
        return rc;
    if (help) {
        fputs(run_help, stdout);
        fputs(run_help_end, stdout);
        return EXIT_OK;
    }
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
