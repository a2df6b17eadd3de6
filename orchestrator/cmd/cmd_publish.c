/*
 * cmd_publish.c - graveyard publish: one run folder's results in the
 * forms people publish (docs/publish.md). It parses its flags and calls
 * the figures library: figures_report computes what REPORT.md shows,
 * figures_publish_write renders the card and the machine forms.
 */
#include <stdio.h>

#include "../base/cli.h"
#include "commands.h"
#include "../figures/figures.h"

static const char publish_usage[] =
    "graveyard publish RUNDIR --out DIR [--dataset ID] [--model NAME]\n"
    "                         [--no-bundle]\n"
    "                         [--rungs REF,RUNG,...] [--side RUNG,...]\n"
    "                         [--repeat DIR] [--rule NAME]";

static const char publish_about[] =
    "A run folder's results as a publisher posts them beside their files,\n"
    "from the same figures as graveyard report: CARD.md (a model-card\n"
    "block: per rung the file, sha256, bytes, accuracy with its Wilson 95 %\n"
    "interval, dead and ghosts against the reference, McNemar p and the\n"
    "verdict; the noise floor, llama.cpp build, GPU, task and question set,\n"
    "and a one-line method note), model-index.yaml (the model card's front\n"
    "matter), eval_results.yaml (to upload as .eval_results/graveyard.yaml)\n"
    "and lm-eval-RUNG.json per rung (lm-eval's results file shape); and\n"
    "bundle.tar.gz: the rows, the manifest (only what may be published),\n"
    "ladder.json, ladder.tsv, the question file, every file above with\n"
    "report.json, REPORT.md, the pictures and REPORT.html, and SHA256SUMS,\n"
    "the same bytes each time; 'graveyard verify bundle.tar.gz' recomputes\n"
    "it. No path of the machine is written: files by their names only.\n";

static const char publish_after[] =
    "example: graveyard publish runs/t4 --out runs/t4/publish --dataset "
    "openai/gsm8k\n"
    "Exit status: 0 ok, 1 a file could not be written, 2 bad input (nothing\n"
    "is written).\n";

int cmd_publish(int argc, char **argv)
{
    const char *pos[1];
    struct figures_report_opts o = {0};
    struct figures_publish_opts po = {0};
    int no_bundle = 0;
    const struct cli_opt opts[] = {
        CLI_NEEDED("--out", "DIR", &po.out_dir, "where the files go"),
        CLI_STRING("--dataset", "ID", &po.dataset,
                   "the Hub dataset id the YAML names (default: the "
                   "question file's name)"),
        CLI_STRING("--model", "NAME", &po.model,
                   "the model's name (default: ladder.json's name, else the "
                   "folder's)"),
        CLI_SWITCH("--no-bundle", &no_bundle, "leave bundle.tar.gz out"),
        CLI_STRING("--rungs", "LIST", &o.rungs, "as for graveyard report"),
        CLI_STRING("--side", "LIST", &o.side, "as for graveyard report"),
        CLI_STRING("--repeat", "DIR", &o.repeat, "as for graveyard report"),
        CLI_STRING("--rule", "NAME", &o.rule, "as for graveyard report"),
        CLI_END};
    const struct cli_command cmd = {"publish",
                                    publish_usage,
                                    publish_about,
                                    publish_after,
                                    opts,
                                    "RUNDIR",
                                    1,
                                    1};
    struct figures_report r;
    size_t npos;
    int rc;

    if ((rc = cli_parse(&cmd, argc, argv, pos, &npos)) != CLI_GO)
        return rc;
    o.rundir = pos[0];
    if (!no_bundle)
        po.bundle = &o;
    if ((rc = figures_report(&o, &r)) == 0)
        rc = figures_publish_write(&po, &r);
    figures_report_release(&r);
    return rc;
}
