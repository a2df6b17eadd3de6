/*
 * probsfile.h - a rung's probs file, the writer's side: the answers'
 * log-probabilities, one record an answer, beside its rows.
 *
 * RUNDIR/rows/<RUNG>.probs holds the records grader/probs.h lays out (the
 * runner encodes them with grader_probs_encode; this module frames and
 * keeps them and never decodes a token). Each answer's record goes out in
 * one write() and is fsync'd before the answer's row is written, so the
 * rows file stays the truth: a kill between the two leaves a record
 * without a row, which the next open cuts (the answer is asked again),
 * and a kill mid-record leaves a torn tail, which the next open cuts too.
 * So a kill loses nothing and repeats nothing (docs/rows.md, "The probs
 * file"). rundir/ links no grader function (check-rundir-deps): the
 * record's frame (magic, length, id) is read here from the layout in
 * probs.h, and whether the last record is whole is asked of the caller,
 * who decodes it with the codec (test_rundir_store checks both against it).
 */
#ifndef PROBSFILE_H
#define PROBSFILE_H

#include <stddef.h>

#include "../util/util.h"

struct probsfile {
    int fd;
    struct buf path;    /* the probs file's, capped (RUNDIR_PATH_MAX) */
    size_t records;     /* in the file once opened, then appended */
    unsigned topn;      /* the N of the file's records (0: none
                           when opened) */
    size_t cut_torn;    /* bytes of a torn last record cut back */
    size_t cut_rowless; /* trailing records without a row cut */
    unsigned long long written; /* bytes appended by this process */
    int err;                    /* errno of the last failure, for the exit
                                   status (files_exit_code) */
};

/* Whether the rows file answers the question id (len bytes): 1 or 0. */
typedef int (*probsfile_has_row)(void *ctx, const char *id, size_t len);

/* Whether rec (len bytes, its frame read already) is a whole record, its
 * check holding: 1 or 0 (the caller's grader_probs_decode). */
typedef int (*probsfile_whole)(const unsigned char *rec, size_t len);

/*
 * Open RUNDIR/rows/<RUNG>.probs (creating rows/ and the file as needed,
 * never through a link) and make it agree with the rows, which were read
 * first and are the truth:
 *   - a torn last record (a short head, a short body, or a last record
 *     that whole says is not) is cut back;
 *   - then trailing records whose id has no row (has_row says) are cut:
 *     the answer in flight when the run was killed;
 *   - a record elsewhere without a row, a question with two records, a
 *     record whose frame is wrong (no magic, a length past the caps), or
 *     records of two Ns are refused: the file is not what this writer leaves,
 * and guessing would mix answers. Returns 0; -1 with a message naming the file
 * in msg (p->err says whether it was the disk (an errno) or the file's content
 * (EINVAL)).
 */
int probsfile_open(struct probsfile *p, const char *rundir, const char *rung,
                   probsfile_has_row has_row, void *ctx, probsfile_whole whole,
                   char *msg, size_t msgsize);

/*
 * Append one encoded record (len bytes, as grader_probs_encode wrote it)
 * with one write, then fsync. Returns 0, or -1 with a message; on failure
 * the file is cut back to where it was, so no partial record stays.
 */
int probsfile_append(struct probsfile *p, const unsigned char *rec, size_t len,
                     char *msg, size_t msgsize);

/* Close the file and release the path (both safe after a failed open). */
void probsfile_close(struct probsfile *p);

#endif
