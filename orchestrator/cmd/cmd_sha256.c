/*
 * cmd_sha256.c - graveyard sha256 FILE...: the hash graveyard records for
 * a model, printed like sha256sum does (OpenSSL's EVP, which uses the
 * CPU's SHA instructions where there are some).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/cli.h"
#include "commands.h"
#include "../base/hash.h"

int cmd_sha256(int argc, char **argv)
{
    char hex[65], err[512];
    int i, rc = EXIT_OK, vocab = argc > 1 && strcmp(argv[1], "--vocab") == 0;

    if (argc < 2 + vocab || argv[1 + vocab][0] == '-') {
        fputs("usage: graveyard sha256 [--vocab] FILE...\n"
              "The sha256 of each FILE, as 'HEX  FILE' lines (the format of\n"
              "sha256sum): the same hash ladder.tsv and the manifest "
              "record.\n"
              "--vocab: the sha256 of each GGUF's vocabulary instead (its\n"
              "tokenizer keys, read from the header alone; docs/run.md,\n"
              "\"Logprobs and the vocabulary\"): two files of one "
              "vocabulary\n"
              "give one hash; 'HEX  FILE  MODEL/PRE N tokens' lines.\n"
              "Exit status: 0 ok, 1 a file could not be read, 2 a file is\n"
              "missing (or, with --vocab, not a GGUF with a vocabulary).\n",
              argc < 2 + vocab ? stderr : stdout);
        return argc < 2 + vocab ? EXIT_USAGE : EXIT_OK;
    }
    for (i = 1 + vocab; i < argc; i++) {
        struct stat st;
        /* a missing file is bad input (2); a read that fails midway, 1 */
        if (stat(argv[i], &st) != 0) {
            cli_error("sha256", "cannot open '%s': %s", argv[i],
                      strerror(errno));
            rc = EXIT_USAGE;
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            cli_error("sha256", "cannot hash '%s': a folder", argv[i]);
            rc = EXIT_USAGE;
            continue;
        }
        /* a FIFO or a device is bad input too (hash_path refuses it
         * again, without blocking, should it be swapped in after this) */
        if (!S_ISREG(st.st_mode)) {
            cli_error("sha256", "'%s': not a regular file", argv[i]);
            rc = EXIT_USAGE;
            continue;
        }
        if (vocab) {
            struct vocab v;
            int e = hash_vocab(argv[i], hex, &v, err, sizeof(err));
            if (e != 0) {
                cli_error("sha256", "%s", err);
                if (rc == EXIT_OK || e == EXIT_USAGE)
                    rc = e;
                continue;
            }
            printf("%s  %s  %s/%s %llu tokens\n", hex, argv[i],
                   v.model[0] ? v.model : "-", v.pre[0] ? v.pre : "-",
                   (unsigned long long)v.ntokens);
            continue;
        }
        if (hash_path(argv[i], hex, err, sizeof(err)) != 0) {
            cli_error("sha256", "%s", err);
            if (rc == EXIT_OK)
                rc = EXIT_FAILED;
            continue;
        }
        printf("%s  %s\n", hex, argv[i]);
    }
    return rc;
}
