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
#include <stdio.h>

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

/*
 * The front door: every command describes itself in one struct
 * cli_command (its usage lines, prose, positionals and a table of typed
 * options) and cli_parse reads its argv from that alone, as git's
 * parse-options does: switches (with their --no- form), strings, lists
 * that repeat up to a cap, whole numbers in a range (into an int, a long
 * or a size_t), decimals inside a range, groups and other tables
 * included (run's options inside canary's). --help prints the text made
 * from the table (cli_help). docs/cli.md shows a command declaring its
 * options.
 */
enum cli_type {
    CLI_T_END = 0, /* the table's last entry */
    CLI_T_SWITCH,  /* int: 1; 0 by its other form (--no-X for --X, --X
                      for a switch named --no-X) */
    CLI_T_STRING,  /* const char *: the last one given */
    CLI_T_LIST,    /* const char *[most]: each one given, *count of them */
    CLI_T_INT,     /* int, long, size_t: a whole number from min to max */
    CLI_T_LONG,
    CLI_T_SIZE,
    CLI_T_DECIMAL, /* double: a decimal above dmin and below dmax */
    CLI_T_GROUP,   /* a title in the help; name is the title */
    CLI_T_INCLUDE  /* another table (include), parsed and shown here */
};

struct cli_opt {
    enum cli_type type;
    const char *name;  /* "--jobs"; a group's title */
    const char *arg;   /* the value's name in the help: "N", "DIR" */
    const char *help;  /* what it does, a paragraph (wrapped); NULL:
                          accepted but not shown (an internal flag) */
    void *dest;        /* where the value goes, by type (above) */
    size_t *count;     /* CLI_T_LIST: how many given so far */
    size_t most;       /* CLI_T_LIST: at most this many */
    long min, max;     /* whole numbers: the range, inclusive; it must fit
                          the destination's type (min >= 0 for a size_t) */
    double dmin, dmax; /* CLI_T_DECIMAL: the range, exclusive */
    const char *unit;  /* CLI_T_DECIMAL: "points" in "a number of points" */
    const char *word;  /* whole numbers: a word taken for word_value */
    long word_value;   /* ("auto" for -1) */
    int *seen;         /* non-NULL: set to 1 when the flag is given */
    int required;      /* the command needs it (CLI_T_STRING) */
    const struct cli_opt *include; /* CLI_T_INCLUDE */
};

/* The entries, type-checked: v must point to the type the entry writes
 * (a mismatch is a compiler warning, an error with DEV=1). */
#define CLI_SWITCH(n, v, h)                                                   \
    {                                                                         \
        .type = CLI_T_SWITCH, .name = (n), .help = (h),                       \
        .dest = (1 ? (v) : (int *)0)                                          \
    }
#define CLI_STRING(n, a, v, h)                                                \
    {                                                                         \
        .type = CLI_T_STRING, .name = (n), .arg = (a), .help = (h),           \
        .dest = (1 ? (v) : (const char **)0)                                  \
    }
#define CLI_NEEDED(n, a, v, h)                                                \
    {                                                                         \
        .type = CLI_T_STRING, .name = (n), .arg = (a), .help = (h),           \
        .dest = (1 ? (v) : (const char **)0), .required = 1                   \
    }
/* A string flag taken but not shown: one set by graveyard for itself, or
 * one refused with a reason once the parse is done. */
#define CLI_HIDDEN(n, v)                                                      \
    {                                                                         \
        .type = CLI_T_STRING, .name = (n),                                    \
        .dest = (1 ? (v) : (const char **)0)                                  \
    }
#define CLI_LIST(n, a, v, cnt, most_, h)                                      \
    {                                                                         \
        .type = CLI_T_LIST, .name = (n), .arg = (a), .help = (h),             \
        .dest = (1 ? (v) : (const char **)0), .count = (cnt), .most = (most_) \
    }
#define CLI_INT(n, a, v, lo, hi, h)                                           \
    {                                                                         \
        .type = CLI_T_INT, .name = (n), .arg = (a), .help = (h),              \
        .dest = (1 ? (v) : (int *)0), .min = (lo), .max = (hi)                \
    }
#define CLI_LONG(n, a, v, lo, hi, h)                                          \
    {                                                                         \
        .type = CLI_T_LONG, .name = (n), .arg = (a), .help = (h),             \
        .dest = (1 ? (v) : (long *)0), .min = (lo), .max = (hi)               \
    }
#define CLI_SIZE(n, a, v, lo, hi, h)                                          \
    {                                                                         \
        .type = CLI_T_SIZE, .name = (n), .arg = (a), .help = (h),             \
        .dest = (1 ? (v) : (size_t *)0), .min = (lo), .max = (hi)             \
    }
#define CLI_DECIMAL(n, a, v, lo, hi, unit_, h)                                \
    {                                                                         \
        .type = CLI_T_DECIMAL, .name = (n), .arg = (a), .help = (h),          \
        .dest = (1 ? (v) : (double *)0), .dmin = (lo), .dmax = (hi),          \
        .unit = (unit_)                                                       \
    }
#define CLI_GROUP(title)                                                      \
    {                                                                         \
        .type = CLI_T_GROUP, .name = (title)                                  \
    }
#define CLI_INCLUDE(table)                                                    \
    {                                                                         \
        .type = CLI_T_INCLUDE, .include = (table)                             \
    }
#define CLI_END                                                               \
    {                                                                         \
        .type = CLI_T_END                                                     \
    }

/* A command as its --help shows it and cli_parse reads it. */
struct cli_command {
    const char *name;  /* "ladder": errors begin "graveyard ladder: " */
    const char *usage; /* after "usage: ": "graveyard ladder CONFIG ...",
                          a form a line, continuations indented */
    const char *about; /* the paragraphs between usage and the flags */
    const char *after; /* the paragraphs after the flags, or NULL */
    const struct cli_opt *opts; /* ends with CLI_END */
    const char *args; /* the positionals, as "needs ARGS" names them */
    size_t min_args, max_args; /* pos holds max_args */
};

/* cli_parse's "go on": the flags are read, the command runs. */
#define CLI_GO (-1)

/*
 * Read argv[1..argc) as cmd says: each flag into its destination (the
 * value after it or after '='), positionals into pos (at most
 * cmd->max_args; "--" ends flags, "-" is a positional). Returns CLI_GO;
 * EXIT_OK after printing the help on stdout for -h or --help; or
 * EXIT_USAGE after one line on stderr naming the command and the flag or
 * argument: an unknown flag, a missing value, a number out of its range,
 * a list given too often, too few or too many positionals, a required
 * flag missing. Destinations of flags not given are left alone (their
 * defaults), so a caller sets defaults first.
 */
int cli_parse(const struct cli_command *cmd, int argc, char **argv,
              const char **pos, size_t *npos);

/* The help made from cmd: usage, about, every shown flag with its
 * argument, its text and its range, the groups, after. */
void cli_help(const struct cli_command *cmd, FILE *out);

/* The edits (insert, delete, change, swap two neighbours) from a[0..la)
 * to b: what "did you mean" weighs. Words over 64 bytes are as far as the
 * longer's length. */
size_t cli_distance(const char *a, size_t la, const char *b);

/* Of names[0..n), the one nearest word[0..len) when it is near enough to
 * be a typo (within a third of the word's length, at least 2 edits), or
 * NULL: unknown commands and flags say "did you mean ...?" with it. */
const char *cli_suggest(const char *word, size_t len, const char *const *names,
                        size_t n);

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

/* A command's output file that is there already, without --force: said
 * ("'FILE' is there already: --force writes over it, or --out names
 * another") and EXIT_USAGE; 0 when it is absent or force is set. */
int cli_out_absent(const char *cmd, const char *path, int force);

/* What an output folder's path holds, read without following a link:
 * the one test behind export's and merge's --out (each words its own
 * refusal). CLI_OUT_ERROR sets *err to errno (lstat or opendir). */
enum cli_out_state {
    CLI_OUT_ABSENT,
    CLI_OUT_EMPTY,  /* a folder holding nothing */
    CLI_OUT_FULL,   /* a folder holding something */
    CLI_OUT_LINK,   /* a symbolic link, whatever it names */
    CLI_OUT_NOTDIR, /* another kind of file */
    CLI_OUT_ERROR,
};
int cli_out_state(const char *path, int *err);

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
