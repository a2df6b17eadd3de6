/*
 * cli.h - command-line plumbing shared by graveyard's commands: flag
 * parsing, messages, exit codes, what a --llama or a rung name may be.
 * (Allocation and buffers: util.h, which this includes.)
 *
 * Exit codes (STYLE.md): 0 ok, 1 a rung or check failed (or the disk
 * failed us), 2 usage or bad input.
 */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>

#include "../../util/util.h"

/* EXIT_BUSY: graveyard run found its rung locked by another process. */
/* EXIT_NOMEM: its server could not load the model for GPU memory (the
 * ladder tries a rung that shared its GPU again later). */
enum {
    EXIT_OK = 0,
    EXIT_FAILED = 1,
    EXIT_USAGE = 2,
    EXIT_BUSY = 3,
    EXIT_NOMEM = 4
};

#ifndef GRAVEYARD_VERSION
#define GRAVEYARD_VERSION "0.1.0"
#endif

/* A flag a command accepts. Value flags take the next argument or
 * "--flag=value"; switches set *on to 1. */
struct cli_flag {
    const char *name;   /* "--json" */
    const char **value; /* non-NULL for a value flag */
    int *on;            /* non-NULL for a switch */
    const char **many;  /* non-NULL for a flag that may repeat: values */
    size_t *nmany;      /* go to many[*nmany++], at most maxmany */
    size_t maxmany;
};

/*
 * Split argv[1..argc) into flags and positionals ("--" ends flags).
 * Positionals go to pos (at most maxpos). An unknown flag, a missing value
 * or too many positionals prints one line naming it and returns
 * EXIT_USAGE; "-h"/"--help" sets *help. Returns 0 otherwise.
 */
int cli_parse(const char *cmd, int argc, char **argv,
              const struct cli_flag *flags, const char **pos, size_t maxpos,
              size_t *npos, int *help);

/* "graveyard CMD: " + message on stderr, and a newline. */
void cli_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* nohup: SIGHUP ignored when the process started. Then graveyard leaves
 * it ignored (ladder, run and build install no handler for it) and hands
 * it on ignored to every child it starts (spawn.h), so a night started
 * with `nohup graveyard ladder ... &` survives the terminal going away,
 * servers and all. cli_signals_at_start() runs first thing in main. */
void cli_signals_at_start(void);
int cli_hup_ignored(void);

/* A --llama argument: a llama-server binary as given, or a llama.cpp
 * folder, meaning build/bin/llama-server inside it (written into b, a
 * path buffer the caller releases). NULL when that path passes the path
 * cap (BUF_PATH_MAX): the caller refuses it. */
const char *cli_llama_path(const char *path, struct buf *b);

/* Whether name is a usable rung name: 1 to 64 of [A-Za-z0-9._-], not
 * starting with '.' or '-', so it is safe as a file name and as an
 * argument. */
int cli_rung_name_ok(const char *name);
/* The same test for a command's argument: 0, or the error said (naming
 * the rule) and EXIT_USAGE. */
int cli_rung_name_check(const char *cmd, const char *name);

/*
 * The one reader of the numbers people give graveyard (flags, its own
 * variables, a server's slot count): decimal digits only, '-' first only
 * when min < 0, nothing else: no space, '+', hexadecimal ("0x10" is not
 * 16), exponent, "inf" or "nan". cli_whole: a whole number from min to
 * max into *out; cli_decimal: digits with at most one '.' between them
 * (the range is the caller's). 0, or -1 leaving *out alone.
 */
int cli_whole(const char *s, long min, long max, long *out);
int cli_decimal(const char *s, double *out);

/* cli_whole for a flag: 0, or EXIT_USAGE after one line naming the flag,
 * its range and the value ("--limit wants a whole number from 1 to 9,
 * not ' 2'"). */
int cli_whole_flag(const char *cmd, const char *flag, const char *s, long min,
                   long max, long *out);

#endif
