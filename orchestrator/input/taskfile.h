/*
 * taskfile.h - tasks as JSON: a user's task file, the manifest's record
 * of the task a run used, and the built-in tasks by name (docs/tasks.md;
 * schemas/task.schema.json).
 *
 * The grader builds and grades tasks but reads no JSON (grader/task.h);
 * this module is the one place a task becomes JSON or comes back from it.
 * A manifest records the whole definition, so a folder grades the same
 * after the task file has moved or changed, and a resume under another
 * task is refused (record.c compares the two).
 */
#ifndef TASKFILE_H
#define TASKFILE_H

#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>

#include "../../grader/grader.h"

/* The name of the default task: the study's rule and prompt. */
#define TASKFILE_DEFAULT "answer-line"

/*
 * spec is a built-in task's name or the path of a task file (a name with
 * a '/' or ending in ".json"). Returns the task (grader_task_free), or
 * NULL with one line in msg naming the file and the key, or listing the
 * built-in names.
 */
struct grader_task *taskfile_load(const char *spec, char *msg, size_t msgsize);

/*
 * A task from its JSON definition (a task file's object, or a manifest's
 * "task"); where names it in messages. NULL with msg.
 */
struct grader_task *taskfile_from_json(const json_t *def, const char *where,
                                       char *msg, size_t msgsize);

/* The definition of t as JSON (new reference), the shape a task file
 * has; NULL on no memory. */
json_t *taskfile_to_json(const struct grader_task *t);

/*
 * The task a run folder's manifest records ("task"), or the default task
 * when it records none (folders made before tasks). NULL with msg.
 */
struct grader_task *taskfile_from_manifest(const json_t *manifest,
                                           const char *where, char *msg,
                                           size_t msgsize);

/*
 * A reply (text NULL: none, or an error row) graded by every rule of t
 * against ref: a row's "grades" object (new reference), with the first
 * rule's extraction into *extracted (new: a number for answer-line, else
 * the text; null when nothing was said) and its verdict into *right.
 * Informative only: bury grades again from the row (docs/rows.md).
 */
json_t *taskfile_grades(const struct grader_task *t, const char *text,
                        size_t len, const char *ref, json_t **extracted,
                        int *right);

/* taskfile_grades, stopping before a rule when *stop is set (a run's
 * row graded on the thread pool while a stop signal comes: a user's
 * pattern can take a second a rule): then NULL, nothing made. stop may
 * be NULL. calls: a tool item's reply (its id, content and calls as the
 * row keeps them), graded by a tool-call rule, whose grade also names its
 * bucket ("bucket": "wrong_value"); NULL for every other row (and an
 * error row: no grade). */
json_t *taskfile_grades_until(const struct grader_task *t, const char *text,
                              size_t len, const char *ref,
                              const struct grader_reply *calls,
                              json_t **extracted, int *right,
                              const atomic_int *stop);

#endif
