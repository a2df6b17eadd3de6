/*
 * cmd_export.c - graveyard export: one run folder's answers in a format
 * another project reads (docs/export.md). --eee is the one format today:
 * Every Eval Ever's aggregate and instance-level records. It parses its
 * flags and calls the figures library: figures_report computes what
 * REPORT.md shows (the grader's numbers), figures_export_write renders
 * and writes the records.
 */
#include <stdio.h>

#include "../base/cli.h"
#include "commands.h"
#include "../figures/figures.h"

static const char export_usage[] =
    "graveyard export --eee RUNDIR --out DIR [--model DEV/NAME]\n"
    "                 [--dataset ID] [--force] [--rungs REF,RUNG,...]\n"
    "                 [--side RUNG,...] [--rule NAME]";

static const char export_about[] =
    "A run folder's per-answer evidence in a shared format. --eee: Every\n"
    "Eval Ever (schema 0.3.0, schemas/eee/): per rung an aggregate record\n"
    "(the rung as the model, its file's type, sha256, bytes and imatrix;\n"
    "its accuracy with the Wilson 95 % interval and n as the grader\n"
    "computed them; llama-server's build as the inference engine) and its\n"
    "samples file, one record per answer (question, reply, extracted\n"
    "answer, reference, right or wrong, finish reason, tokens), under\n"
    "DIR/data/graveyard/DEV/NAME/ as EEE's datastore lays them out. DIR is\n"
    "made when absent; one that holds other files is refused without\n"
    "--force, a link always. No path of the machine is written, and the\n"
    "server's arguments only as publish would (docs/publish.md).\n";

static const char export_after[] =
    "example: graveyard export --eee runs/t4 --out runs/t4/eee --model "
    "google/gemma-3-4b-it --dataset openai/gsm8k\n"
    "SOURCE_DATE_EPOCH, when set, is the records' retrieved_timestamp (the\n"
    "same bytes each export); else the time of the export.\n"
    "Exit status: 0 ok, 1 a file could not be written, 2 bad input (nothing\n"
    "is written).\n";

int cmd_export(int argc, char **argv)
{
    const char *pos[1];
    struct figures_report_opts o = {0};
    struct figures_export_opts eo = {0};
    int eee = 0;
    const struct cli_opt opts[] = {
        CLI_SWITCH("--eee", &eee,
                   "Every Eval Ever's records (the one format so far)"),
        CLI_NEEDED("--out", "DIR", &eo.out_dir, "where the files go"),
        CLI_STRING("--model", "DEV/NAME", &eo.model,
                   "the model's Hub id, its folder under data/graveyard/ "
                   "(default: unknown/the ladder's name)"),
        CLI_STRING("--dataset", "ID", &eo.dataset,
                   "the Hub dataset id of the questions (default: the "
                   "question file's name)"),
        CLI_SWITCH("--force", &eo.force,
                   "write into a DIR that holds other files"),
        CLI_STRING("--rungs", "LIST", &o.rungs, "as for graveyard report"),
        CLI_STRING("--side", "LIST", &o.side, "as for graveyard report"),
        CLI_STRING("--rule", "NAME", &o.rule, "as for graveyard report"),
        CLI_END};
    const struct cli_command cmd = {
        "export", export_usage, export_about, export_after, opts, "RUNDIR", 1,
        1};
    struct figures_report r;
    size_t npos;
    int rc;

    if ((rc = cli_parse(&cmd, argc, argv, pos, &npos)) != CLI_GO)
        return rc;
    if (!eee) {
        cli_error("export", "name the format: --eee (Every Eval Ever)");
        return EXIT_USAGE;
    }
    o.rundir = pos[0];
    o.html = 1; /* the rungs read with their texts kept: the replies */
    if ((rc = figures_report(&o, &r)) == 0)
        rc = figures_export_write(&eo, &r);
    figures_report_release(&r);
    return rc;
}
