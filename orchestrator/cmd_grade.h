/*
 * cmd_grade.h - what the commands that read rows share (cmd_grade.c
 * defines it; cmd_report.c uses it too):
 * a set of rungs read into one question set, and the checks and messages
 * around reading them.
 */
#ifndef CMD_GRADE_H
#define CMD_GRADE_H

#include <stddef.h>

#include "../grader/grader.h"

/* Rungs one command may read: 16 runs of a 64-rung ladder. */
#define RUNGSET_MAX 1024

/* Folders one command may read rows from, each with its own task. */
#define RUNGSET_DIRS 64

/* The rungs of one command and the question set they share. Each folder's
 * rows are graded by its manifest's task (taskfile.h; none: answer-line)
 * and by the rule named rule, or by the task's first rule. */
struct rungset {
    struct grader_qset *qs;
    const struct grader_rung *r[RUNGSET_MAX];
    size_t n;
    const char *rule; /* --rule NAME, or NULL (borrowed) */
    struct {
        char *dir;
        struct grader_task *task;
    } dirs[RUNGSET_DIRS]; /* owned: the tasks met so far */
    size_t ndirs;
    const char *rule_used; /* the rule the last load graded by (borrowed
                              from a task of dirs) */
};

/* Read RUNDIR/rows/NAME.jsonl for each name into s (read flags as for
 * rowsfile_read), graded by the folder's task and s->rule. 0, or the
 * exit status after one line on stderr. */
int rungset_load(const char *cmd, struct rungset *s, const char *rundir,
                 const char **names, size_t n, unsigned flags);
void rungset_release(struct rungset *s);

/* The task rundir's rows are graded by (s keeps it), or NULL after one
 * line on stderr. */
const struct grader_task *rungset_task(const char *cmd, struct rungset *s,
                                       const char *rundir);

/* Rung names: valid, none twice, at most GRADER_MAX_RUNGS. 0, or the
 * exit status after one line on stderr. */
int check_names(const char *cmd, const char **names, size_t n);

/* p[0..len) to standard output, flushed: EXIT_OK, or EXIT_FAILED after
 * a line on stderr. */
int write_stdout(const char *cmd, const char *p, size_t len);

/* "graveyard CMD: FILE:LINE: message" from a grader error. */
void grade_report(const char *cmd, const struct grader_error *err);

#endif
