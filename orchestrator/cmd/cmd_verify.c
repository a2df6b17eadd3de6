/*
 * cmd_verify.c - graveyard verify: are two ladders the same files?
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/cli.h"
#include "commands.h"
#include "../figures/figures.h"
#include "../../rundir/ladderfile.h"
#include "../../rundir/rundir.h"

static const char verify_usage[] =
    "graveyard verify RUNDIR --against OTHER/ladder.tsv\n"
    "       graveyard verify BUNDLE";

static const char verify_about[] =
    "BUNDLE (graveyard publish's bundle.tar.gz, or its folder unpacked):\n"
    "every file against its SHA256SUMS line, and every published figure\n"
    "(report.json, REPORT.md, the pictures, the page, CARD.md, the YAML,\n"
    "the lm-eval files) recomputed from the bundle's rows through the\n"
    "grader and compared byte for byte; each difference named on its own\n"
    "line (file and line, an edited row by its line and id). The manifest,\n"
    "ladder.tsv, the rows and the question file are checked against each\n"
    "other (file names, bytes, sha256), a file or SHA256SUMS line twice is\n"
    "named. A tar.gz is read in memory under caps: links, devices, absolute\n"
    "names, '..' and an entry past 256 MiB (at its header) are refused; in\n"
    "a folder, a link or a FIFO. Exit 0 all the same, 1 any differs, 2 not\n"
    "a bundle, or verify's own failure (out of memory, no room to stage).\n"
    "\n"
    "Compare RUNDIR/ladder.tsv with another machine's, rung by rung, on\n"
    "bytes and sha256 (the file paths may differ). Identical files mean\n"
    "any difference in the answers comes from the GPU and its stack.\n"
    "Prints each difference on its own line; exit 0 when every rung is\n"
    "the same file, 1 when any differs or is missing on one side, 2 on bad\n"
    "input.\n";

int cmd_verify(int argc, char **argv)
{
    const char *pos[1], *against = NULL;
    const struct cli_opt opts[] = {
        CLI_STRING("--against", "FILE", &against,
                   "another machine's ladder.tsv to compare RUNDIR's with"),
        CLI_END};
    const struct cli_command cmd = {"verify",
                                    verify_usage,
                                    verify_about,
                                    NULL,
                                    opts,
                                    "RUNDIR or BUNDLE",
                                    1,
                                    1};
    struct lrow *a = NULL, *b = NULL;
    struct buf pathb = {0};
    const char *path;
    char msg[4600];
    size_t npos, na, nb, i, diffs = 0;
    int rc;

    if ((rc = cli_parse(&cmd, argc, argv, pos, &npos)) != CLI_GO)
        return rc;
    if (against == NULL)
        return figures_verify_bundle(pos[0]);
    if (rundir_path_buf(&pathb, pos[0], RD_LADDER_TSV, NULL) != 0) {
        cli_error("verify", "path too long: '%.200s'", pos[0]);
        buf_release(&pathb);
        return EXIT_USAGE;
    }
    path = pathb.p;
    if (ladderfile_read(path, 0, &a, &na, msg, sizeof(msg)) != 0 ||
        ladderfile_read(against, 0, &b, &nb, msg, sizeof(msg)) != 0) {
        cli_error("verify", "%s", msg);
        free(a);
        buf_release(&pathb);
        return EXIT_USAGE;
    }
    for (i = 0; i < na; i++) {
        const struct lrow *x = &a[i], *y = ladderfile_find(b, nb, x->rung);
        if (y == NULL)
            printf("%s: only in %s\n", x->rung, path);
        else if (x->bytes != y->bytes)
            printf("%s: bytes differ (%llu in %s, %llu in %s)\n", x->rung,
                   x->bytes, path, y->bytes, against);
        else if (strcmp(x->sha256, y->sha256) != 0)
            printf("%s: sha256 differs (%.12s... in %s, %.12s... in %s)\n",
                   x->rung, x->sha256, path, y->sha256, against);
        else
            continue;
        diffs++;
    }
    for (i = 0; i < nb; i++)
        if (ladderfile_find(a, na, b[i].rung) == NULL) {
            printf("%s: only in %s\n", b[i].rung, against);
            diffs++;
        }
    if (diffs == 0)
        printf("%zu rungs, the same bytes and sha256 in both\n", na);
    free(a);
    free(b);
    buf_release(&pathb);
    return diffs ? EXIT_FAILED : EXIT_OK;
}
