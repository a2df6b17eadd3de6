/*
 * store.h - a rung's rows file, the one place answers are kept.
 *
 * RUNDIR/rows/<RUNG>.jsonl is appended one row at a time: each row goes out
 * in one write() and is fsync'd before the next question is asked, so a
 * crash loses at most the answer being written, and a torn last line is
 * all it can leave. Opening the store cuts such a line back and reads the
 * ids already answered (through the grader's row reader, which also checks
 * every earlier row), so a resumed run neither loses nor repeats answers.
 */
#ifndef STORE_H
#define STORE_H

#include <stddef.h>

#include "../grader/qset.h"

struct store {
    int fd;
    char path[4096];
    struct grader_qset *answered; /* ids already in the file */
    size_t rows;                  /* rows in the file */
    size_t right;                 /* of them graded right (by the grader
                                     when read, by the runner when added) */
    size_t cut;                   /* bytes of a torn last line cut back */
    unsigned long long written;   /* bytes appended by this process */
    int err;                      /* errno of the last failure, for the
                                     exit status (files_exit_code) */
};

/*
 * Open (creating RUNDIR/rows/ and the file as needed) and recover the rows
 * file of rung. Returns 0, or -1 with a message naming the file (and line)
 * in msg: a row in the middle of the file that is not valid is an error,
 * never silently dropped.
 */
int store_open(struct store *s, const char *rundir, const char *rung,
               char *msg, size_t msgsize);

/* Whether question id has a row already. */
int store_has(const struct store *s, const char *id);

/*
 * Append one row (a JSON object without a newline; one is added) with one
 * write, then fsync. Returns 0, or -1 with a message; on failure the file
 * is cut back to where it was, so no partial row stays behind.
 */
int store_append(struct store *s, const char *row, size_t len, char *msg,
                 size_t msgsize);

void store_close(struct store *s);

#endif
