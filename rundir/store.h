/*
 * store.h - a rung's rows file, the one place answers are kept.
 *
 * RUNDIR/rows/<RUNG>.jsonl is appended one row at a time: each row goes out
 * in one write() and is fsync'd before the next question is asked, so a
 * crash loses at most the answer being written, and a torn last line is
 * all it can leave. Opening the store cuts such a line back. Which
 * questions the file answers is read by the caller through the grader's
 * reader (orchestrator/rows/rowsfile.h), which also checks every row.
 */
#ifndef STORE_H
#define STORE_H

#include <stddef.h>

#include "../util/util.h"

struct store {
    int fd;
    struct buf path;            /* the rows file's, capped (RUNDIR_PATH_MAX) */
    size_t rows;                /* rows appended by this process */
    size_t cut;                 /* bytes of a torn last line cut back */
    unsigned long long written; /* bytes appended by this process */
    int err;                    /* errno of the last failure, for the
                                   exit status (files_exit_code) */
};

/*
 * Open (creating RUNDIR/rows/ and the file as needed, never through a
 * link) and cut back a torn last line. Returns 0, or -1 with a message
 * naming the file in msg.
 */
int store_open(struct store *s, const char *rundir, const char *rung,
               char *msg, size_t msgsize);

/* The same for another appended file of rows/ (rundir.h's RD_CANDIDATES):
 * one line at a time, a torn last line cut back on open. */
int store_open_as(struct store *s, const char *rundir, int which,
                  const char *rung, char *msg, size_t msgsize);

/*
 * Append one row (a JSON object without a newline; one is added) with one
 * write, then fsync. Returns 0, or -1 with a message; on failure the file
 * is cut back to where it was, so no partial row stays behind.
 */
int store_append(struct store *s, const char *row, size_t len, char *msg,
                 size_t msgsize);

/* Close the file and release the path (both safe after a failed open). */
void store_close(struct store *s);

/*
 * What every appended file of rows/ shares (the rows, the probs records):
 * open RUNDIR/rows/<RUNG>'s file `which` (rundir.h's RD_ROWS, RD_PROBS)
 * for appending, making the folders as needed, never through a link, its
 * path into path (a buffer capped at RUNDIR_PATH_MAX: past it the path
 * is refused, "path too long", never cut short; the caller releases it);
 * the descriptor, or -1 with *err and a message. And
 * append len bytes with one write, then fsync; on failure the file is cut
 * back to where it was and -1 returned with *err and a message.
 */
int store_open_file(const char *rundir, int which, const char *rung,
                    struct buf *path, int *err, char *msg, size_t msgsize);
int store_write_synced(int fd, const char *path, const void *data, size_t len,
                       int *err, char *msg, size_t msgsize);

#endif
