/*
 * import.h - another tool's per-answer log read into rows (cmd_import.c
 * is the command; docs/import.md the formats and versions).
 *
 * An import reads the whole log first, checks every record, then writes
 * the rung's rows file whole (outfile.h) and records the task in the
 * manifest, or writes nothing. Each reply is graded by every rule of the
 * task, and where the log holds the tool's own extraction and verdict for
 * a rule of the same name, the two are compared: a differential check of
 * graveyard's rule on the tool's real output.
 */
#ifndef IMPORT_H
#define IMPORT_H

#include <jansson.h>
#include <stddef.h>

#include "../../grader/grader.h"

/* Records of one log at most, the bytes of a log (it is read whole
 * before anything is written), and of one record. */
#define IMPORT_MAX_ROWS  10000000L
#define IMPORT_MAX_BYTES (1LL << 30)
#define IMPORT_MAX_LINE  (64L << 20)
/* A reference, and a tool's error message, kept in a row at most: with
 * the reply's budget (reply.h) no row passes the reader's cap. */
#define IMPORT_MAX_TEXT 1024

struct import_row {
    char *id, *reference, *content, *reasoning, *finish, *error;
    int truncated;
    long long tokens; /* -1 unknown */
    double tps;       /* -1 unknown */
};

struct import {
    const char *format, *path, *rundir, *rung; /* borrowed */
    const struct grader_task *task;            /* borrowed: graded by */
    const struct grader_task *asked; /* borrowed: the task as asked, with
                                        its stop strings, or NULL */
    json_t *refs; /* --question-file: id -> reference, or NULL */
    struct import_row *rows;
    size_t n, cap;
    size_t skipped; /* records with no answer (llama-eval's pending) */
    size_t right;   /* rows right by the task's first rule */
    /* the tool's own extraction and verdict against graveyard's rule of
     * the same name: records compared, and those that differ */
    size_t compared, extract_differs, verdict_differs;
    size_t by_position; /* records without "filter", matched by order */
    char first_differ[512];
};

/* t without its stop strings, new (grader_task_free): the task an
 * import grades by. A tool's log holds the reply its own rules graded,
 * which a server that ignored the stops made longer than asked; graded
 * as logged, by the same rules, graveyard's grade is the tool's. */
struct grader_task *import_task_as_logged(const struct grader_task *t);

void import_init(struct import *im, const char *format, const char *path,
                 const char *rundir, const char *rung,
                 const struct grader_task *task);
void import_release(struct import *im);

/* Read references by id from a question file (questions.h). 0, or the
 * exit status after one line on stderr. */
int import_references(struct import *im, const char *qfile);

/* Read the log into im->rows. 0, or EXIT_USAGE after one line on stderr
 * naming the file and the record. */
int import_lm_eval(struct import *im);
int import_llama_eval(struct import *im);

/* Grade and write RUNDIR/rows/RUNG.jsonl whole, and the manifest. 0, or
 * the exit status after one line on stderr. */
int import_write(struct import *im);

/* The summary line on stdout. */
void import_summary(const struct import *im);

/* The built-in task an lm-eval samples file's name gives
 * (samples_gsm8k_<date>.jsonl: lm-eval-gsm8k), or NULL (import_task.c). */
const char *import_task_from_name(const char *path);

/* One line on stderr for a log whose name gives no task: the lm-eval
 * task its name says where it says one, and the tasks graveyard knows. */
void import_no_task(const char *path);

/* The stop strings a log's records were asked with (until, "arguments"'
 * "until") against im->asked's: lm-eval's gsm8k tasks keep theirs with
 * their rules (v0.4.0 and v0.4.1 stop gsm8k at "\n\n" and grade it by
 * one filter, get-answer, without the trailing-period rule). 0 when they
 * are the task's, or it has none (llama-eval's, choice); else EXIT_USAGE
 * after one line at where: a log of another version of the task, naming
 * the task whose stops they are, or, when no task graveyard knows stops
 * there, a log of another task, named by the file's name where it says
 * one, with the tasks graveyard knows. */
int import_same_version(const struct import *im, const json_t *until,
                        const char *where);

/* s as a message quotes it (into out, returned): at most max bytes of it,
 * at a character's start, with line ends and other control characters
 * written as \n, \t, \xHH, so that a refusal stays one line whatever a
 * log holds. "(none)" for NULL. */
const char *import_shown(const char *s, size_t max, char *out, size_t outsize);

#endif
