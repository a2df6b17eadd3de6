/*
 * main.c - graveyard's entry point: find the subcommand and run it.
 */
#include <stdio.h>
#include <string.h>

#include "../base/cli.h"
#include "../../report/emit.h"
#include "commands.h"

struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"bury", cmd_bury,
     "dead, ghosts and tombstones of each rung against "
     "the reference"},
    {"autopsy", cmd_autopsy,
     "how each rung's answers fail: cut off, "
     "looping, thinking"},
    {"repeat", cmd_repeat,
     "two runs of a rung compared: is it "
     "deterministic?"},
    {"report", cmd_report,
     "REPORT.md, cover.svg and report.json of a run folder"},
    {"compare", cmd_compare,
     "one ladder on several GPUs or machines, question by question"},
    {"duel", cmd_duel, "two files of one type, A against B, answer by answer"},
    {"think", cmd_think, "thinking off against thinking on, per rung"},
    {"init", cmd_init,
     "a folder of GGUF files made a ladder config, and how to run it"},
    {"build", cmd_build,
     "make the ladder's GGUF files: convert, then quantize"},
    {"ladder", cmd_ladder,
     "every rung of a ladder config, each on its own server, then bury"},
    {"run", cmd_run,
     "one rung on its own llama-server: every question, a row each"},
    {"audit", cmd_audit,
     "a served model's answers against a local ladder: which rung is it?"},
    {"canary", cmd_canary,
     "before a night: does this build answer as a trusted run did?"},
    {"import", cmd_import,
     "another tool's per-answer log (lm-eval, llama-eval) into rows"},
    {"publish", cmd_publish,
     "a run folder's results as a model-card block, Hub YAML and lm-eval "
     "JSON"},
    {"export", cmd_export,
     "a run folder's answers as Every Eval Ever records (--eee)"},
    {"merge", cmd_merge,
     "bundles of several machines made one run folder, if comparable"},
    {"verify", cmd_verify,
     "two ladders' files compared (ladder.tsv), or a bundle rechecked"},
    {"f16-range", cmd_f16range,
     "what casting a checkpoint to F16 costs, per tensor"},
    {"tensors", cmd_tensors,
     "what is in each GGUF file: types and bits per weight by tensor kind"},
    {"sha256", cmd_sha256, "the sha256 graveyard records for a file"},
    {"long", cmd_long,
     "long-context items made here, fitted to lengths in a server's tokens"},
    {"sandbox", cmd_sandbox,
     "Python programs run with their tests in the code ladder's sandbox"},
    {NULL, NULL, NULL},
};

static void usage(FILE *f)
{
    const struct command *c;

    fprintf(f,
            "usage: graveyard COMMAND [ARGS...]\n"
            "\n"
            "graveyard asks every rung of a quantization ladder (BF16, F16,\n"
            "Q8_0 ... Q2_K GGUF files of one model) the same questions and\n"
            "records, question by question, what each smaller file gets\n"
            "wrong. Rows live in RUNDIR/rows/<RUNG>.jsonl (docs/rows.md).\n"
            "\n"
            "commands:\n");
    for (c = commands; c->name != NULL; c++)
        fprintf(f, "  %-9s %s\n", c->name, c->summary);
    fprintf(f, "\n'graveyard help COMMAND' (or 'graveyard COMMAND --help')\n"
               "explains one command; 'graveyard -V' says the version.\n");
}

int main(int argc, char **argv)
{
    const struct command *c;
    char help_flag[] = "--help", *again[4] = {NULL, NULL, help_flag, NULL};

    /* jansson on the grader's counted allocator: a failed allocation
     * inside a JSON dump is then seen, never a silently shortened line */
    emit_alloc_init();
    /* before anything installs a handler: was SIGHUP ignored (nohup)? */
    cli_signals_at_start();
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
        (strcmp(argv[1], "help") == 0 && argc == 2)) {
        usage(stdout);
        return EXIT_OK;
    }
    /* graveyard help CMD: CMD --help */
    if (strcmp(argv[1], "help") == 0) {
        if (argc > 3) {
            fprintf(stderr, "graveyard help: one command at a time\n");
            return EXIT_USAGE;
        }
        again[0] = argv[0];
        again[1] = argv[2];
        argv = again; /* graveyard CMD --help */
        argc = 3;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0 ||
        strcmp(argv[1], "version") == 0) {
        printf("graveyard %s\n", GRAVEYARD_VERSION);
        return EXIT_OK;
    }
    for (c = commands; c->name != NULL; c++)
        if (strcmp(argv[1], c->name) == 0)
            return c->fn(argc - 1, argv + 1);
    {
        const char *names[sizeof(commands) / sizeof(commands[0])];
        const char *near;
        size_t n = 0;
        for (c = commands; c->name != NULL; c++)
            names[n++] = c->name;
        near = cli_suggest(argv[1], strlen(argv[1]), names, n);
        if (near != NULL)
            fprintf(stderr,
                    "graveyard: unknown command '%s'; did you mean '%s'?\n",
                    argv[1], near);
        else
            fprintf(stderr,
                    "graveyard: unknown command '%s' (see graveyard "
                    "--help)\n",
                    argv[1]);
    }
    return EXIT_USAGE;
}
