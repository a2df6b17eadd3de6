/*
 * cmd_sha256.c - graveyard sha256 FILE...: the hash graveyard records for
 * a model, printed like sha256sum does (OpenSSL's EVP, which uses the
 * CPU's SHA instructions where there are some).
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/cli.h"
#include "commands.h"
#include "../base/hash.h"

static const char sha256_about[] =
    "The sha256 of each FILE, as 'HEX  FILE' lines (the format of\n"
    "sha256sum): the same hash ladder.tsv and the manifest record.\n";

static const char sha256_after[] =
    "Exit status: 0 ok, 1 a file could not be read, 2 a file is\n"
    "missing (or, with --vocab, not a GGUF with a vocabulary).\n";

int cmd_sha256(int argc, char **argv)
{
    char hex[65], err[512];
    /* every argument may be a file: argv's own count is the cap */
    const char **files = xrealloc(NULL, (size_t)argc * sizeof(*files));
    size_t i, nfiles;
    int rc, vocab = 0;
    const struct cli_opt opts[] = {
        CLI_SWITCH("--vocab", &vocab,
                   "the sha256 of each GGUF's vocabulary instead (its "
                   "tokenizer keys, read from the header alone; docs/run.md, "
                   "\"Logprobs and the vocabulary\"): two files of one "
                   "vocabulary give one hash; 'HEX  FILE  MODEL/PRE N "
                   "tokens' lines"),
        CLI_END};
    const struct cli_command cmd = {"sha256",
                                    "graveyard sha256 [--vocab] FILE...",
                                    sha256_about,
                                    sha256_after,
                                    opts,
                                    "at least one FILE",
                                    1,
                                    (size_t)argc};

    if ((rc = cli_parse(&cmd, argc, argv, files, &nfiles)) != CLI_GO) {
        free(files);
        return rc;
    }
    rc = EXIT_OK;
    for (i = 0; i < nfiles; i++) {
        const char *file = files[i];
        struct stat st;
        /* a missing file is bad input (2); a read that fails midway, 1 */
        if (stat(file, &st) != 0) {
            cli_error("sha256", "cannot open '%s': %s", file, strerror(errno));
            rc = EXIT_USAGE;
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            cli_error("sha256", "cannot hash '%s': a folder", file);
            rc = EXIT_USAGE;
            continue;
        }
        /* a FIFO or a device is bad input too (hash_path refuses it
         * again, without blocking, should it be swapped in after this) */
        if (!S_ISREG(st.st_mode)) {
            cli_error("sha256", "'%s': not a regular file", file);
            rc = EXIT_USAGE;
            continue;
        }
        if (vocab) {
            struct vocab v;
            int e = hash_vocab(file, hex, &v, err, sizeof(err));
            if (e != 0) {
                cli_error("sha256", "%s", err);
                if (rc == EXIT_OK || e == EXIT_USAGE)
                    rc = e;
                continue;
            }
            printf("%s  %s  %s/%s %llu tokens\n", hex, file,
                   v.model[0] ? v.model : "-", v.pre[0] ? v.pre : "-",
                   (unsigned long long)v.ntokens);
            continue;
        }
        if (hash_path(file, hex, err, sizeof(err)) != 0) {
            cli_error("sha256", "%s", err);
            if (rc == EXIT_OK)
                rc = EXIT_FAILED;
            continue;
        }
        printf("%s  %s\n", hex, file);
    }
    free(files);
    return rc;
}
