/*
 * rowsfile.h - a rung's rows file from disk into the grader, the one place
 * that does so (the grader reads no file: it is fed bytes). Used by the
 * grading and report commands, and by a run recovering what it has.
 */
#ifndef ROWSFILE_H
#define ROWSFILE_H

#include <stddef.h>

#include "../grader/grader.h"

/*
 * Read and grade the rows file at path as rung name, interning questions in
 * qs. Errors: GRADER_ENOENT (no such file), GRADER_EIO, and the reader's
 * (rows.h); err names the file and line. On success *out is a new rung.
 */
int rowsfile_read(struct grader_qset *qs, const char *name, const char *path,
                  unsigned flags, struct grader_rung **out,
                  struct grader_error *err);

/*
 * What a rung's rows file already answers, for a run that resumes: the
 * ids (a new qset: *answered), how many rows and how many graded right.
 * Every row is checked on the way. 0, or -1 with "FILE:LINE: problem" in
 * msg (a bad row is bad input, never dropped).
 */
int rowsfile_answered(const char *path, const char *rung,
                      struct grader_qset **answered, size_t *rows,
                      size_t *right, char *msg, size_t msgsize);

#endif
