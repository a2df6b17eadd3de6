/*
 * import_task.c - which task a log is (import.h): the task an lm-eval
 * samples file's name gives, and the log's stop strings against the task
 * it is imported as, so that a log of another version of the task, or of
 * another task altogether, is refused saying which (docs/import.md).
 */
#include "import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/util.h"
#include "../base/cli.h"

/* The lm-eval task names a samples file is named after, and ours. */
static const struct {
    const char *theirs, *ours;
} lm_eval_tasks[] = {
    {"gsm8k_cot_zeroshot", "lm-eval-gsm8k-cot-zeroshot"},
    {"gsm8k_cot", "lm-eval-gsm8k-cot"},
    {"gsm8k", "lm-eval-gsm8k"},
};
#define NTASKS (sizeof(lm_eval_tasks) / sizeof(lm_eval_tasks[0]))

/* The stops of lm-eval v0.4.0 and v0.4.1's gsm8k tasks, which grade by
 * other rules than today's: the task files that grade as they did
 * (tasks/lm-eval-gsm8k-v0.4.1.json, tasks/lm-eval-gsm8k-cot-v0.4.1.json
 * hold the same stops). */
static const struct {
    const char *task, *stops[2];
} old_versions[] = {
    {"tasks/lm-eval-gsm8k-v0.4.1.json", {"\n\n", "Question:"}},
    {"tasks/lm-eval-gsm8k-cot-v0.4.1.json", {"Q:", "\n\n"}},
};
#define NOLD (sizeof(old_versions) / sizeof(old_versions[0]))

const char *import_task_from_name(const char *path)
{
    const char *base = strrchr(path, '/');
    size_t i, n;

    base = base ? base + 1 : path;
    if (strncmp(base, "samples_", 8) != 0)
        return NULL;
    base += 8;
    for (i = 0; i < NTASKS; i++) {
        n = strlen(lm_eval_tasks[i].theirs);
        /* samples_gsm8k_2024-...: the name then '_' and a date */
        if (strncmp(base, lm_eval_tasks[i].theirs, n) == 0 && base[n] == '_' &&
            base[n + 1] >= '0' && base[n + 1] <= '9')
            return lm_eval_tasks[i].ours;
    }
    return NULL;
}

/* The lm-eval task a samples file's name holds, samples_<task>_<date>
 * (the date's year, 4 digits and a '-', after the last such '_'), shown
 * (util_printable) into out; 0 when the name is not of that form. */
static int named_task(const char *path, char *out, size_t outsize)
{
    const char *base = strrchr(path, '/'), *p, *date = NULL;
    size_t n;

    base = base ? base + 1 : path;
    if (strncmp(base, "samples_", 8) != 0)
        return 0;
    base += 8;
    for (p = base; (p = strchr(p, '_')) != NULL; p++)
        if (strspn(p + 1, "0123456789") == 4 && p[5] == '-')
            date = p;
    if (date == NULL || date == base)
        return 0;
    n = (size_t)(date - base); /* a task's name: 120 bytes of it at most */
    util_printable(base, n < 120 ? n : 120, out, outsize);
    return 1;
}

/* The tasks graveyard knows lm-eval's logs of, for a message. */
static void known_tasks(char *out, size_t size)
{
    size_t i, o = 0;

    out[0] = '\0';
    for (i = 0; i < NTASKS && o < size; i++) {
        size_t k = NTASKS - 1 - i; /* the shortest name first */
        int w = snprintf(out + o, size - o, "%s%s (--task %s)",
                         i == 0            ? ""
                         : i + 1 == NTASKS ? " and "
                                           : ", ",
                         lm_eval_tasks[k].theirs, lm_eval_tasks[k].ours);
        if (w < 0)
            break;
        o += (size_t)w;
    }
}

void import_no_task(const char *path)
{
    char name[512], known[512];

    known_tasks(known, sizeof(known));
    if (named_task(path, name, sizeof(name)))
        cli_error("import",
                  "%s: the file's name says lm-eval's task '%s', which "
                  "graveyard has no task for: it knows %s; give --task FILE "
                  "with that task's rules (docs/tasks.md)",
                  path, name, known);
    else
        cli_error("import",
                  "%s: the task is not in the file's name "
                  "(samples_gsm8k_<date>.jsonl); give --task",
                  path);
}

/* The i-th of n stop strings of task t, or of stops when t is NULL. */
static const char *stop_at(const struct grader_task *t,
                           const char *const *stops, size_t i)
{
    return t ? grader_task_stop(t, i) : stops[i];
}

/* until (an array) holds exactly task t's stop strings (stops[0..n) when
 * t is NULL), in order. */
static int same_stops(const json_t *until, const struct grader_task *t,
                      const char *const *stops, size_t n)
{
    size_t i;

    if (t != NULL)
        n = grader_task_nstops(t);
    if (json_array_size(until) != n)
        return 0;
    for (i = 0; i < n; i++)
        if (!json_is_string(json_array_get(until, i)) ||
            strcmp(json_string_value(json_array_get(until, i)),
                   stop_at(t, stops, i)) != 0)
            return 0;
    return 1;
}

/* The tasks whose stops are until's (the built-in lm-eval tasks, then
 * the old versions' files) into out, "A or B"; "" when none is. */
static void tasks_stopping(const json_t *until, char *out, size_t size)
{
    size_t i, o = 0;
    int rc, same;

    out[0] = '\0';
    for (i = 0; i < NTASKS + NOLD; i++) {
        struct grader_task *t = NULL;
        const char *name;
        if (i < NTASKS) {
            name = lm_eval_tasks[i].ours;
            if ((t = grader_task_builtin(name, &rc)) == NULL)
                continue;
            same = same_stops(until, t, NULL, 0);
            grader_task_free(t);
        } else {
            name = old_versions[i - NTASKS].task;
            same = same_stops(until, NULL, old_versions[i - NTASKS].stops, 2);
        }
        if (same && o < size) {
            int w = snprintf(out + o, size - o, "%s%s", o ? " or " : "", name);
            o += w > 0 ? (size_t)w : 0;
        }
    }
}

int import_same_version(const struct import *im, const json_t *until,
                        const char *where)
{
    const struct grader_task *t = im->asked;
    size_t i, n = t ? grader_task_nstops(t) : 0;
    char *a, stops[600] = "", like[300], name[512], known[512], named[600];

    /* a task without stops (llama-eval's, choice) says nothing of
     * versions */
    if (n == 0 || !json_is_array(until) || same_stops(until, t, NULL, 0))
        return 0;
    for (i = 0; i < n; i++) {
        json_t *one = json_string(grader_task_stop(t, i));
        char *q = one ? json_dumps(one, JSON_ENCODE_ANY) : NULL;
        snprintf(stops + strlen(stops), sizeof(stops) - strlen(stops),
                 "%s%.80s", i ? "," : "", q ? q : "?");
        free(q);
        json_decref(one);
    }
    a = json_dumps(until, JSON_COMPACT);
    tasks_stopping(until, like, sizeof(like));
    if (like[0] != '\0') {
        cli_error("import",
                  "%s: the log stops at %.120s, task '%s' at [%s]: a log of "
                  "another version of the task, graded by other rules (its "
                  "stops are those of --task %s)",
                  where, a ? a : "?", grader_task_name(t), stops, like);
    } else {
        known_tasks(known, sizeof(known));
        named[0] = '\0';
        if (named_task(im->path, name, sizeof(name)))
            snprintf(named, sizeof(named),
                     " (its file's name says lm-eval's task '%s')", name);
        cli_error("import",
                  "%s: the log stops at %.120s, task '%s' at [%s]: a log of "
                  "another task%s, stopped as no version of '%s' nor any "
                  "task graveyard knows (%s); grade it by a task file of "
                  "its rules (--task FILE, docs/tasks.md)",
                  where, a ? a : "?", grader_task_name(t), stops, named,
                  grader_task_name(t), known);
    }
    free(a);
    return EXIT_USAGE;
}
