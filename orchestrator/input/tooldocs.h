/*
 * tooldocs.h - a tool-call task's function docs (docs/toolcalls.md): each
 * tool item's "tools", as its question file gives them, handed to the
 * task (grader_task_add_docs), which grades every reply against them.
 *
 * Why from the question file: a row keeps its item's possible answers
 * (its reference) but not the functions offered, which BFCL's type rules
 * need; the manifest pins the file the run asked by its sha256, so a
 * report grades against the very docs the run sent, and refuses a file
 * that has changed since. A task of another kind needs none: each entry
 * is then a no-op.
 */
#ifndef TOOLDOCS_H
#define TOOLDOCS_H

#include <jansson.h>
#include <stddef.h>

#include "../../grader/grader.h"
#include "questions.h"

/* Every tool item's docs of qs (loaded from path, for messages) into t. 0,
 * or -1 with msg naming the file and line. */
int tooldocs_add(struct grader_task *t, const struct questions *qs,
                 const char *path, char *msg, size_t msgsize);

/* The same from the question file path, read as the task reads it (no
 * long prompt made). 0, or -1 with msg. */
int tooldocs_load(struct grader_task *t, const char *path, char *msg,
                  size_t msgsize);

/*
 * The docs of a run folder's question file: the manifest's questions.path
 * as named, else inside dir (a relative path as named there, then any by
 * its base name: a published bundle keeps it so), the first whose sha256
 * is the one the manifest records. 0, or -1 with msg naming what was looked
 * for (no such file, or only files with other bytes).
 */
int tooldocs_for_run(struct grader_task *t, const json_t *manifest,
                     const char *dir, char *msg, size_t msgsize);

#endif
