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
    char hex[65], err[256];
    int i, rc = EXIT_OK;

    if (argc < 2 || argv[1][0] == '-') {
        fputs("usage: graveyard sha256 FILE...\n"
              "The sha256 of each FILE, as 'HEX  FILE' lines (the format of\n"
              "sha256sum): the same hash ladder.tsv and the manifest "
              "record.\n"
              "Exit status: 0 ok, 1 a file could not be read, 2 a file is\n"
              "missing.\n",
              argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    for (i = 1; i < argc; i++) {
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
