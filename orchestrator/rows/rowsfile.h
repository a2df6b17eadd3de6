/*
 * rowsfile.h - a rung's rows file from disk into the grader, the one place
 * that does so (the grader reads no file: it is fed bytes). Used by the
 * grading and report commands, and by a run recovering what it has.
 */
#ifndef ROWSFILE_H
#define ROWSFILE_H

#include <stddef.h>

#include "../../grader/grader.h"

/*
 * Read and grade the rows file at path as rung name, interning questions in
 * qs. Errors: GRADER_ENOENT (no such file), GRADER_EIO, and the reader's
 * (rows.h); err names the file and line. On success *out is a new rung.
 */
int rowsfile_read(struct grader_qset *qs, const char *name, const char *path,
                  unsigned flags, struct grader_rung **out,
                  struct grader_error *err);

/* The same, graded by rule of task (NULL: the study's answer-line rule,
 * as rowsfile_read). */
int rowsfile_read_rule(struct grader_qset *qs, const char *name,
                       const char *path, unsigned flags,
                       const struct grader_task *task, size_t rule,
                       struct grader_rung **out, struct grader_error *err);

/*
 * What a rung's rows file already answers, for a run that resumes: the
 * ids (a new qset: *answered), how many rows and how many graded right
 * (by task's first rule; NULL: answer-line).
 * Every row is checked on the way. 0, or -1 with "FILE:LINE: problem" in
 * msg (a bad row is bad input, never dropped).
 */
int rowsfile_answered(const char *path, const char *rung,
                      const struct grader_task *task,
                      struct grader_qset **answered, size_t *rows,
                      size_t *right, char *msg, size_t msgsize);

#endif
