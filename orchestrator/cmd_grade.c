/*
 * cmd_grade.c - the grading commands: bury, autopsy, repeat.
 *
 * Each reads rows files, hands them to the grader library and prints one
 * JSON object per line. Nothing here computes a statistic: that is the
 * grader's job. Everything is computed before anything is written, so a
 * bad input leaves no output behind, and files are written atomically.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../grader/grader.h"
#include "../report/emit.h"
#include "cli.h"
#include "commands.h"
#include "cmd_grade.h"
#include "../rundir/files.h"
#include "../rundir/meta.h"
#include "../rundir/outfile.h"
#include "../rundir/rundir.h"
#include "rowsfile.h"
#include "taskfile.h"

#define MAX_POS (GRADER_MAX_RUNGS + 2)

void rungset_release(struct rungset *s)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        grader_rung_free((struct grader_rung *)s->r[i]);
    for (i = 0; i < s->ndirs; i++) {
        free(s->dirs[i].dir);
        grader_task_free(s->dirs[i].task);
    }
    grader_qset_free(s->qs);
    memset(s, 0, sizeof(*s));
}

const struct grader_task *rungset_task(const char *cmd, struct rungset *s,
                                       const char *rundir)
{
    struct grader_task *t;
    char path[4200], msg[1024];
    json_error_t jerr;
    json_t *m = NULL;
    size_t i;

    for (i = 0; i < s->ndirs; i++)
        if (strcmp(s->dirs[i].dir, rundir) == 0)
            return s->dirs[i].task;
    if (s->ndirs == RUNGSET_DIRS) {
        cli_error(cmd, "rows from more than %d folders in one command",
                  RUNGSET_DIRS);
        return NULL;
    }
    rundir_path(path, sizeof(path), rundir, RD_MANIFEST, NULL);
    m = files_json_load(path, 1, JSON_REJECT_DUPLICATES, &jerr);
    if (m == NULL && access(path, F_OK) == 0 && jerr.line < 1) {
        cli_error(cmd, "cannot read '%s': %s", path, jerr.text);
        return NULL;
    }
    if (m == NULL && access(path, F_OK) == 0) {
        cli_error(cmd, "%s:%d: %s", path, jerr.line, jerr.text);
        return NULL;
    }
    t = taskfile_from_manifest(m, path, msg, sizeof(msg));
    json_decref(m);
    if (t == NULL) {
        cli_error(cmd, "%s", msg);
        return NULL;
    }
    s->dirs[s->ndirs].dir = xstrdup(rundir);
    s->dirs[s->ndirs++].task = t;
    return t;
}

void grade_report(const char *cmd, const struct grader_error *err)
{
    char msg[GRADER_ERROR_TEXT + GRADER_ERROR_PATH + 32];

    grader_error_format(err, msg, sizeof(msg));
    cli_error(cmd, "%s", msg);
}

int check_names(const char *cmd, const char **names, size_t n)
{
    size_t i, j;

    if (n > GRADER_MAX_RUNGS) {
        cli_error(cmd, "at most %d rungs, not %zu", GRADER_MAX_RUNGS, n);
        return EXIT_USAGE;
    }
    for (i = 0; i < n; i++) {
        if (cli_rung_name_check(cmd, names[i]) != 0)
            return EXIT_USAGE;
        for (j = 0; j < i; j++)
            if (strcmp(names[i], names[j]) == 0) {
                cli_error(cmd, "rung '%s' named twice", names[i]);
                return EXIT_USAGE;
            }
    }
    return 0;
}

/*
 * The start every grading command shares: parse flags, answer --help,
 * check there are dirs folders and at least one rung after them, check
 * the rung names. Returns -1 to go on, or the exit status to return.
 */
static int args(const char *cmd, int argc, char **argv,
                const struct cli_flag *flags, const char **pos, size_t *npos,
                const char *help_text, size_t dirs, const char *need)
{
    int help, rc;

    rc = cli_parse(cmd, argc, argv, flags, pos, MAX_POS, npos, &help);
    if (rc != 0)
        return rc;
    if (help) {
        fputs(help_text, stdout);
        return EXIT_OK;
    }
    if (*npos < dirs + 1) {
        cli_error(cmd, "needs %s (see --help)", need);
        return EXIT_USAGE;
    }
    rc = check_names(cmd, pos + dirs, *npos - dirs);
    return rc != 0 ? rc : -1;
}

int rungset_load(const char *cmd, struct rungset *s, const char *rundir,
                 const char **names, size_t n, unsigned flags)
{
    struct grader_error err;
    char path[4096];
    size_t i;

    const struct grader_task *task;
    long rule = 0;

    if (s->qs == NULL && (s->qs = grader_qset_new()) == NULL) {
        cli_error(cmd, "out of memory");
        return EXIT_FAILED;
    }
    if (n == 0)
        return 0;
    if ((task = rungset_task(cmd, s, rundir)) == NULL)
        return EXIT_USAGE;
    if (s->rule != NULL &&
        (rule = grader_task_rule_index(task, s->rule)) < 0) {
        cli_error(cmd, "--rule %s: task '%s' of '%s' has no such rule",
                  s->rule, grader_task_name(task), rundir);
        return EXIT_USAGE;
    }
    s->rule_used = grader_task_rule_name(task, (size_t)rule);
    for (i = 0; i < n; i++) {
        struct grader_rung *r;
        if (s->n == RUNGSET_MAX) {
            cli_error(cmd, "more than %d rungs in one command", RUNGSET_MAX);
            return EXIT_USAGE;
        }
        if (rundir_path(path, sizeof(path), rundir, RD_ROWS, names[i]) != 0) {
            cli_error(cmd, "path too long: '%s'", rundir);
            return EXIT_USAGE;
        }
        if (rowsfile_read_rule(s->qs, names[i], path, flags, task,
                               (size_t)rule, &r, &err) != 0) {
            grade_report(cmd, &err);
            return EXIT_USAGE;
        }
        s->r[s->n++] = r;
    }
    return 0;
}

/* Read pos[0]/rows/<pos[1..npos)>.jsonl into s and bury them into b. */
static int load_and_bury(const char *cmd, struct rungset *s, const char **pos,
                         size_t npos, int partial, struct grader_bury *b)
{
    struct grader_error err;
    int rc = rungset_load(cmd, s, pos[0], pos + 1, npos - 1, 0);

    if (rc != 0)
        return rc;
    if (grader_bury(s->qs, s->r, s->n, partial ? GRADER_PARTIAL : 0, b,
                    &err) != 0) {
        grade_report(cmd, &err);
        return EXIT_USAGE;
    }
    return 0;
}

/* Append j as one line to out; consumes j. */
static void add_line(struct buf *out, json_t *j)
{
    char *s = j ? emit_dumps(j) : NULL;

    if (s == NULL) {
        util_oom("a JSON line");
    }
    buf_puts(out, s);
    buf_puts(out, "\n");
    emit_free(s);
    json_decref(j);
}

/* emit_graveyard's sink: append to a struct buf. */
static int buf_sink(void *ctx, const char *s, size_t n)
{
    buf_append(ctx, s, n);
    return 0;
}

int write_stdout(const char *cmd, const char *p, size_t len)
{
    if ((len > 0 && fwrite(p, 1, len, stdout) != len) || fflush(stdout) != 0) {
        cli_error(cmd, "cannot write to standard output");
        return EXIT_FAILED;
    }
    return EXIT_OK;
}

static const char bury_help[] =
    "usage: graveyard bury RUNDIR REF RUNG... [--json FILE] [--partial]\n"
    "                      [--rule NAME]\n"
    "\n"
    "Bury every RUNG against the reference rung REF, question by question,\n"
    "from RUNDIR/rows/<RUNG>.jsonl. Rungs are named in ladder order, from\n"
    "the biggest file down: a question's tombstone is at the first rung\n"
    "going down where it is dead.\n"
    "\n"
    "Prints one JSON line per rung (rung, n, right, errors, truncated,\n"
    "median_decode_tps, mean_tokens, dead, ghosts, answer_changed,\n"
    "p_mcnemar, bytes, gpu_mib_loaded, gpu_mib_before), then\n"
    "{\"first_deaths_by_rung\": {...}, \"tombstones\": N, \"ghosts\": M}.\n"
    "\n"
    "  dead       the reference is right, this rung wrong\n"
    "  ghosts     the reference is wrong, this rung right\n"
    "  p_mcnemar  exact two-sided sign test of dead vs ghosts: how often\n"
    "             two equally good models split that unevenly by chance\n"
    "\n"
    "  --json FILE  where the per-question tombstones and ghosts go\n"
    "               (default RUNDIR/graveyard.json); give side rungs such\n"
    "               as a QAT file their own FILE\n"
    "  --partial    bury what is there when a rung lacks some of the\n"
    "               reference's questions (otherwise an error)\n"
    "  --rule NAME  grade by this rule of the folder's task (docs/tasks.md;\n"
    "               default: the task's first)\n"
    "\n"
    "example: graveyard bury runs/t4 BF16 F16 Q8_0 Q4_0 Q2_K\n"
    "Exit status: 0 ok, 1 the output could not be written, 2 bad input.\n";

int cmd_bury(int argc, char **argv)
{
    const char *pos[MAX_POS], *json_path = NULL;
    int partial = 0, rc;
    struct rungset s = {0};
    const struct cli_flag flags[] = {
        {"--json", &json_path, NULL, NULL, NULL, 0},
        {"--partial", NULL, &partial, NULL, NULL, 0},
        {"--rule", &s.rule, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, 0}};
    struct grader_bury b;
    struct buf out = {0}, file = {0};
    char defpath[4096], msg[4600];
    long long prev_bytes = -1;
    size_t npos, i;

    if ((rc = args("bury", argc, argv, flags, pos, &npos, bury_help, 1,
                   "RUNDIR and the reference rung")) >= 0)
        return rc;
    if ((rc = load_and_bury("bury", &s, pos, npos, partial, &b)) != 0)
        goto done;
    for (i = 0; i < b.nrungs && rc == 0; i++) {
        struct grader_meta meta;
        if (rundir_meta_read(pos[0], s.r[i]->name, &meta, msg, sizeof(msg))) {
            cli_error("bury", "%s", msg);
            rc = EXIT_USAGE;
            break;
        }
        /* rungs are named biggest first: say so when the files disagree
         * (a warning: a ladder may hold a bigger file below on purpose) */
        if (i > 0 && meta.bytes >= 0 && prev_bytes >= 0 &&
            meta.bytes > prev_bytes + prev_bytes / 100)
            fprintf(stderr,
                    "graveyard bury: warning: rung %s (%lld bytes) is "
                    "bigger than %s (%lld bytes) named before it; rungs go "
                    "biggest first: is the order right?\n",
                    s.r[i]->name, meta.bytes, s.r[i - 1]->name, prev_bytes);
        prev_bytes = meta.bytes;
        add_line(&out, emit_bury_line(&b, i, &meta));
    }
    if (rc == 0) {
        add_line(&out, emit_bury_summary(&b));
        if (emit_graveyard(&b, s.qs, buf_sink, &file) != 0) {
            util_oom("the tombstones file");
        }
        if (json_path == NULL) {
            rundir_path(defpath, sizeof(defpath), pos[0], RD_GRAVEYARD, NULL);
            json_path = defpath;
        }
        if (outfile_write(json_path, file.p, file.len, msg, sizeof(msg))) {
            cli_error("bury", "%s", msg);
            rc = EXIT_FAILED;
        } else {
            rc = write_stdout("bury", out.p, out.len);
        }
    }
    grader_bury_release(&b);
done:
    buf_release(&out);
    buf_release(&file);
    rungset_release(&s);
    return rc;
}

static const char autopsy_help[] =
    "usage: graveyard autopsy RUNDIR REF RUNG... [--partial] [--rule NAME]\n"
    "\n"
    "How each rung's answers fail, from RUNDIR/rows/<RUNG>.jsonl. The first\n"
    "rung named is the reference for the dead counts, as in bury. One JSON\n"
    "line per rung:\n"
    "\n"
    "  cut_off          stopped at the token cap (finish_reason \"length\")\n"
    "  looped           some line repeats 5 or more times\n"
    "  thought          text in the thinking block (reasoning_content)\n"
    "  empty_content    no error, but no content\n"
    "  empty_right_in_reasoning  empty content, and the reasoning's\n"
    "                   'Answer:' is the right one\n"
    "  dead, dead_cut_off, dead_looped, dead_empty_content\n"
    "  first_deaths, first_deaths_right_again_lower\n"
    "  errors           rows with an error (graded wrong)\n"
    "\n"
    "  --partial    count what is there when a rung lacks some of the\n"
    "               reference's questions (a ladder still running); each\n"
    "               rung is counted on the questions it has\n"
    "\n"
    "example: graveyard autopsy runs/t4 BF16 F16 Q8_0 Q4_0 Q2_K\n"
    "Exit status: 0 ok, 2 bad input.\n";

int cmd_autopsy(int argc, char **argv)
{
    const char *pos[MAX_POS];
    int partial = 0, rc;
    struct rungset s = {0};
    const struct cli_flag flags[] = {
        {"--partial", NULL, &partial, NULL, NULL, 0},
        {"--rule", &s.rule, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, 0}};
    struct grader_bury b;
    struct grader_autopsy_line lines[GRADER_MAX_RUNGS];
    struct buf out = {0};
    size_t npos, i;

    if ((rc = args("autopsy", argc, argv, flags, pos, &npos, autopsy_help, 1,
                   "RUNDIR and at least one rung")) >= 0)
        return rc;
    if ((rc = load_and_bury("autopsy", &s, pos, npos, partial, &b)) != 0)
        goto done;
    grader_autopsy(&b, s.r, lines);
    for (i = 0; i < b.nrungs; i++)
        add_line(&out, emit_autopsy_line(&lines[i]));
    grader_bury_release(&b);
    rc = write_stdout("autopsy", out.p, out.len);
done:
    buf_release(&out);
    rungset_release(&s);
    return rc;
}

static const char repeat_help[] =
    "usage: graveyard repeat DIR_A DIR_B RUNG... [--common] [--rule NAME]\n"
    "\n"
    "Is the run deterministic? Compares two runs of each RUNG question by\n"
    "question, DIR_A/rows/<RUNG>.jsonl against DIR_B/rows/<RUNG>.jsonl.\n"
    "One JSON line per rung: n, mismatched_extracted, mismatched_text\n"
    "(content or reasoning differs by even one character), mismatched_right,\n"
    "right_a, right_b.\n"
    "\n"
    "  --common  compare only the questions present in both runs (a short\n"
    "            run of --limit 50 against a full one); otherwise a question\n"
    "            in one run only is an error\n"
    "\n"
    "example: graveyard repeat runs/t4 runs/t4-again Q4_0 Q8_0 --common\n";

int cmd_repeat(int argc, char **argv)
{
    const char *pos[MAX_POS];
    int common = 0, rc;
    struct rungset s = {0};
    const struct cli_flag flags[] = {
        {"--common", NULL, &common, NULL, NULL, 0},
        {"--rule", &s.rule, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, 0}};
    struct grader_repeat_line line;
    struct grader_error err;
    struct buf out = {0};
    size_t npos, i;

    if ((rc = args("repeat", argc, argv, flags, pos, &npos, repeat_help, 2,
                   "DIR_A, DIR_B and at least one rung")) >= 0)
        return rc;
    rc = 0;
    for (i = 2; i < npos && rc == 0; i++) {
        rc = rungset_load("repeat", &s, pos[0], &pos[i], 1, GRADER_READ_TEXT);
        if (rc == 0)
            rc = rungset_load("repeat", &s, pos[1], &pos[i], 1,
                              GRADER_READ_TEXT);
        if (rc == 0 &&
            grader_repeat(s.r[s.n - 2], s.r[s.n - 1], s.qs,
                          common ? GRADER_COMMON : 0, &line, &err) != 0) {
            grade_report("repeat", &err);
            rc = EXIT_USAGE;
        }
        if (rc == 0)
            add_line(&out, emit_repeat_line(&line));
    }
    if (rc == 0)
        rc = write_stdout("repeat", out.p, out.len);
    buf_release(&out);
    rungset_release(&s);
    return rc;
}
