/*
 * cmd_canary.c - graveyard canary: before a night, the reference rung
 * answers the first questions of a trusted rows file, and the night does
 * not start when too many answers changed.
 *
 * A build or a GPU that decodes garbage at full speed would otherwise
 * spend a whole night writing wrong rows. The canary is a run like any
 * other (run's plan, runplan.c, into RUNDIR/canary/, so faults, logs and
 * the server's life are the runner's), on a question file of its own: the
 * trusted rows' first N questions, written to
 * RUNDIR/canary/questions.jsonl. The
 * answers are then compared by the grader (grader/canary.h) and the
 * verdict written to RUNDIR/canary/canary.json, which the report shows.
 * Each canary starts afresh: the rows of an earlier one are removed, as
 * they say how another build answered.
 */
#define _GNU_SOURCE /* strndup */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../grader/grader.h"
#include "../../rundir/canary.h"
#include "../../rundir/files.h"
#include "../../rundir/manifest.h"
#include "../../rundir/outfile.h"
#include "../../rundir/rundir.h"
#include "../base/cli.h"
#include "commands.h"
#include "../input/config.h"
#include "../figures/figures.h"
#include "../base/hash.h"
#include "../input/longitem.h"
#include "../input/questions.h"
#include "../rows/rowsfile.h"
#include "../run/runplan.h"
#include "../input/taskfile.h"
#include "../input/codeitem.h"
#include "../input/tooldocs.h"

#define CANARY_QUESTIONS 20 /* default N: minutes on a GPU */
#define CANARY_MAX_CHANGED                                                    \
    2 /* default K: across GPUs the study saw 2                               \
         of 250 graded differently; garbage                                   \
         changes most */

static const char canary_usage[] =
    "graveyard canary RUNG MODEL ROWS [--questions N]\n"
    "                        [--max-changed K] [--question-file FILE]\n"
    "                        [--run-dir DIR] [run options]\n"
    "       graveyard canary --config CONFIG [--run-dir DIR] [--llama PATH]\n"
    "                        [--gpu ID] [--quiet]";

static const char canary_about[] =
    "Before a night: MODEL answers the first N questions of ROWS, a rows\n"
    "file you trust (another machine's, an earlier build's run of the same\n"
    "model), on the server and GPU the night will use, and the answers are\n"
    "compared. More than K changed answers (another number, no number, or\n"
    "an error) means this build or GPU does not answer as the trusted run\n"
    "did: exit 1, naming the questions. A build that decodes garbage at\n"
    "full speed is caught in minutes, not in the morning.\n";

static const char canary_after[] =
    "With --config, the config's reference rung and its \"canary\" settings\n"
    "(docs/config.md), into RUN_DIR/canary/: what graveyard ladder runs\n"
    "before the first rung when the config has a canary.\n"
    "\n"
    "Writes DIR/canary/rows/RUNG.jsonl, DIR/canary/canary.json (the\n"
    "verdict; graveyard report shows it) and prints the verdict as one\n"
    "JSON line. Exit status: 0 passed, 1 too many answers changed or the\n"
    "run failed, 2 bad input.\n";

/* What the canary needs, from the flags or from a config. */
struct canary {
    const char *rung, *model, *rows, *qfile, *run_dir;
    long n, max_changed;
    /* the run: its flags (filled here, or parsed from the run options
     * passed through) and its positionals */
    struct runplan_flags run;
    const char *run_pos[4];
    size_t run_npos;
    /* paths (util.h's capped buffers), released as the command ends */
    struct buf dir, subset, rows_path, done_path, verdict, qfile_buf;
    struct buf probs_path;    /* its log-probabilities, when asked */
    const char *task_spec;    /* --task passed to the run, or the config's */
    struct grader_task *task; /* what the run asks and how it is graded */
};

/* The question file named by the manifest of the run folder that holds
 * rows (RUNDIR/rows/X.jsonl), into c->qfile_buf. 0 or -1. */
static int qfile_from_manifest(struct canary *c)
{
    struct buf dir = {0}, path = {0};
    json_error_t jerr;
    json_t *m;
    const char *p;
    char *slash;
    int rc = -1;

    if (buf_path(&dir, "%s", c->rows) != 0) {
        buf_release(&dir);
        return -1;
    }
    for (int up = 0; up < 2; up++) {
        slash = strrchr(dir.p, '/');
        if (slash == NULL) {
            dir.len = 0; /* short: within the cap */
            buf_puts(&dir, up ? "." : "..");
        } else {
            *slash = '\0';
            dir.len = (size_t)(slash - dir.p);
        }
    }
    m = rundir_path_buf(&path, dir.p[0] ? dir.p : "/", RD_MANIFEST, NULL) == 0
            ? files_json_load(path.p, 1, 0, &jerr)
            : NULL;
    buf_release(&dir);
    buf_release(&path);
    if (m == NULL)
        return -1;
    p = manifest_questions(m);
    if (p != NULL && buf_path(&c->qfile_buf, "%s", p) == 0) {
        c->qfile = c->qfile_buf.p;
        rc = 0;
    }
    json_decref(m);
    return rc;
}

/* A tool item's line: its id, question, tools, tool_choice and possible
 * answers (its reference), each the compact JSON the loader kept. New, or
 * NULL out of memory (or JSON the loader would not have kept). */
static json_t *tool_record(const struct question *q)
{
    json_t *line = json_pack("{s:s,s:s}", "id", q->id, "question", q->text);
    json_t *tools = json_loads(q->tools, 0, NULL),
           *possible = json_loads(q->answer, 0, NULL),
           *choice = q->tool_choice
                         ? json_loads(q->tool_choice, JSON_DECODE_ANY, NULL)
                         : NULL;
    int bad;

    if (line == NULL || tools == NULL || possible == NULL ||
        (q->tool_choice != NULL && choice == NULL)) {
        json_decref(line);
        json_decref(tools);
        json_decref(possible);
        json_decref(choice);
        return NULL;
    }
    /* each set steals its value, set or not: all three are tried */
    bad = json_object_set_new(line, "tools", tools) != 0;
    bad |= json_object_set_new(line, "possible", possible) != 0;
    if (choice != NULL)
        bad |= json_object_set_new(line, "tool_choice", choice) != 0;
    if (bad) {
        json_decref(line);
        return NULL;
    }
    return line;
}

/* q as its question file gave it: a long item made here as its recipe
 * (the same record), one of one's own (answers: a task of expected
 * strings) with its prompt and answers list,
 * a choice question with its options, else the question and its answer.
 * New, or NULL out of memory. */
static json_t *subset_line(const struct question *q, int answers)
{
    json_t *line, *list;

    if (q->lng != NULL)
        return longitem_record(q->id, q->lng);
    if (q->tools != NULL) /* a tool item: its keys as the file gave them */
        return tool_record(q);
    if (q->code != NULL) /* a code item: its line as the file gave it */
        return json_loads(q->code->line, JSON_REJECT_DUPLICATES, NULL);
    if (answers) {
        /* "answers" is one a line (the ref the grader reads) */
        line = json_pack("{s:s,s:s}", "id", q->id, "prompt", q->text);
        list = json_array();
        for (const char *p = q->answer, *e; line && list && p;
             p = e ? e + 1 : NULL) {
            e = strchr(p, '\n');
            json_array_append_new(
                list, json_stringn(p, e ? (size_t)(e - p) : strlen(p)));
        }
        if (line == NULL || list == NULL ||
            json_object_set_new(line, "answers", list) != 0 ||
            (q->length >= 0 &&
             json_object_set_new(line, "length", json_integer(q->length)) !=
                 0)) {
            json_decref(line);
            return NULL;
        }
        return line;
    }
    line = json_pack("{s:s,s:s,s:s}", "id", q->id, "question", q->text,
                     "answer", q->answer);
    if (line != NULL && q->nchoices > 0) { /* a choice task's */
        json_t *opts = json_array();
        for (size_t o = 0; opts != NULL && o < q->nchoices; o++)
            json_array_append_new(opts, json_string(q->choices[o]));
        json_object_set_new(line, "choices", opts);
    }
    return line;
}

/* RUNDIR/canary/questions.jsonl: the text of trusted's first n questions,
 * in its order. Every one must be in the question file. */
static int write_subset(struct canary *c, const struct grader_rung *trusted,
                        const struct grader_qset *qs)
{
    struct questions all = {0};
    struct buf out = {0};
    char msg[4400];
    size_t j, k, n = (size_t)c->n < trusted->n ? (size_t)c->n : trusted->n;
    int rc = EXIT_USAGE;

    /* a long item is written as its record: no prompt made here (the
     * canary's rung, a runner, makes it and refuses one that cannot be) */
    if (questions_load_texts(c->qfile, 0, grader_task_ref(c->task), &all, msg,
                             sizeof(msg)) != 0) {
        cli_error("canary", "%s", msg);
        return EXIT_USAGE;
    }
    buf_append(&out, "", 0);
    for (j = 0; j < n; j++) {
        const char *id = grader_qset_id(qs, trusted->answers[j].q);
        json_t *line;
        char *s;
        for (k = 0; k < all.n && strcmp(all.q[k].id, id) != 0; k++)
            ;
        if (k == all.n) {
            cli_error("canary",
                      "%s:%u: question '%s' is not in %s: the rows come "
                      "from another question file (--question-file)",
                      c->rows, trusted->answers[j].line, id, c->qfile);
            goto done;
        }
        line = subset_line(&all.q[k],
                           grader_task_ref(c->task) == GRADER_REF_ANSWERS);
        s = line ? json_dumps(line, JSON_COMPACT) : NULL;
        json_decref(line);
        if (s == NULL)
            util_oom("the canary's questions");
        buf_puts(&out, s);
        buf_puts(&out, "\n");
        free(s);
    }
    rc = outfile_write(c->subset.p, out.p, out.len, msg, sizeof(msg)) == 0
             ? EXIT_OK
             : EXIT_FAILED;
    if (rc != EXIT_OK)
        cli_error("canary", "%s", msg);
done:
    buf_release(&out);
    questions_release(&all);
    return rc;
}

/* The folders, and an earlier canary's rows out of the way. */
static int prepare(struct canary *c)
{
    char msg[4400];

    if (files_mkdir(c->run_dir, 1, msg, sizeof(msg)) != 0 ||
        files_mkdir(c->dir.p, 0, msg, sizeof(msg)) != 0) {
        cli_error("canary", "%s", msg);
        return files_exit_code(errno);
    }
    if ((unlink(c->rows_path.p) != 0 && errno != ENOENT) ||
        (unlink(c->done_path.p) != 0 && errno != ENOENT) ||
        (unlink(c->probs_path.p) != 0 && errno != ENOENT)) {
        cli_error("canary", "cannot remove the last canary's rows '%s': %s",
                  c->rows_path.p, strerror(errno));
        return EXIT_FAILED;
    }
    return 0;
}

/* Run the rung in this process, as graveyard run would (runplan.c), with
 * its summary line kept off standard output: the canary's verdict is the
 * line a script reads. */
static int run_rung(struct canary *c)
{
    struct runplan plan;
    int rc;

    if ((rc = runplan_ladder_gone()) != 0)
        return rc;
    if ((rc = runplan_build(&plan, &c->run, c->run_pos, c->run_npos)) == 0) {
        plan.o.no_summary = 1;
        rc = runplan_execute(&plan);
    }
    runplan_release(&plan);
    return rc;
}

/* canary.json and the verdict line: 0 passed, 1 not, or a write's
 * failure. */
static int verdict(struct canary *c, const struct grader_canary *v,
                   const struct grader_qset *qs)
{
    int passed = v->missing == 0 && v->changed <= (size_t)c->max_changed;
    struct rundir_canary rec = {0};
    json_t *o;
    char msg[4400], sha[65], herr[256];
    struct buf list = {0};
    char *s;
    size_t i;

    if (hash_path(c->rows, sha, herr, sizeof(herr)) != 0)
        sha[0] = '\0';
    buf_append(&list, "", 0);
    for (i = 0; i < v->nids; i++) {
        const char *id = grader_qset_id(qs, v->ids[i]);
        if (rec.nids < RUNDIR_CANARY_IDS_MAX)
            rec.ids[rec.nids++] = (char *)id;
        buf_puts(&list, i ? ", " : "");
        buf_puts(&list, id);
    }
    rec.rung = (char *)c->rung;
    rec.model = (char *)c->model;
    rec.rows = (char *)c->rows;
    memcpy(rec.rows_sha256, sha, sizeof(rec.rows_sha256));
    rec.questions = (long long)v->wanted;
    rec.max_changed = c->max_changed;
    rec.compared = (long long)v->compared;
    rec.missing = (long long)v->missing;
    rec.changed = (long long)v->changed;
    rec.changed_right = (long long)v->changed_right;
    rec.right_trusted = (long long)v->right_trusted;
    rec.right_now = (long long)v->right_now;
    rec.same_text = (long long)v->same_text;
    rec.passed = passed;
    o = rundir_canary_json(&rec);
    s = o ? json_dumps(o, 0) : NULL;
    json_decref(o);
    if (s == NULL)
        util_oom("the canary's verdict");
    if (outfile_write(c->verdict.p, s, strlen(s), msg, sizeof(msg)) != 0) {
        cli_error("canary", "%s", msg);
        free(s);
        buf_release(&list);
        return EXIT_FAILED;
    }
    printf("%s\n", s);
    fflush(stdout);
    free(s);
    if (!passed && v->missing > 0)
        cli_error("canary",
                  "%s answered %zu of the %zu questions asked; the canary "
                  "needs them all: %s",
                  c->rung, v->compared, v->wanted, list.p);
    else if (!passed)
        cli_error("canary",
                  "%s changed %zu of %zu answers against %s (at most %ld "
                  "may change): %s%s. This build or GPU does not answer "
                  "as the trusted run did; the night is not started "
                  "(%s has every reply)",
                  c->rung, v->changed, v->compared, c->rows, c->max_changed,
                  list.p, v->changed > v->nids ? ", ..." : "", c->rows_path.p);
    buf_release(&list);
    return passed ? EXIT_OK : EXIT_FAILED;
}

/* Read the trusted rows, write the questions, run, compare. */
static int canary_go(struct canary *c)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *trusted = NULL, *now = NULL;
    struct grader_canary v;
    struct grader_error err;
    char msg[1024];
    int rc;

    if (qs == NULL)
        util_oom("a question set");
    if ((c->task =
             taskfile_load(c->task_spec ? c->task_spec : TASKFILE_DEFAULT, msg,
                           sizeof(msg))) == NULL) {
        cli_error("canary", "--task %s: %s", c->task_spec, msg);
        rc = EXIT_USAGE;
        goto done;
    }
    if (c->qfile == NULL && qfile_from_manifest(c) != 0) {
        cli_error("canary",
                  "%s: no manifest.json beside its rows/ folder names the "
                  "question file; give it with --question-file",
                  c->rows);
        rc = EXIT_USAGE;
        goto done;
    }
    /* a tool-call task grades against its items' docs: the file's */
    if (tooldocs_load(c->task, c->qfile, msg, sizeof(msg)) != 0) {
        cli_error("canary", "%s", msg);
        rc = EXIT_USAGE;
        goto done;
    }
    if (rowsfile_read_rule(qs, c->rung, c->rows, GRADER_READ_TEXT, c->task, 0,
                           &trusted, &err) != 0) {
        grade_report("canary", &err);
        rc = EXIT_USAGE;
        goto done;
    }
    if (trusted->n == 0) {
        cli_error("canary", "%s: no rows to compare with", c->rows);
        rc = EXIT_USAGE;
        goto done;
    }
    if ((rc = prepare(c)) != 0 || (rc = write_subset(c, trusted, qs)) != 0)
        goto done;
    if ((rc = run_rung(c)) != 0) {
        cli_error("canary",
                  "the canary's run of %s did not finish (exit %d; its "
                  "error is above): the night is not started",
                  c->rung, rc);
        rc = rc == EXIT_USAGE ? EXIT_USAGE : EXIT_FAILED;
        goto done;
    }
    if (rowsfile_read_rule(qs, c->rung, c->rows_path.p, GRADER_READ_TEXT,
                           c->task, 0, &now, &err) != 0 ||
        grader_canary(trusted, now, (size_t)c->n, &v, &err) != 0) {
        grade_report("canary", &err);
        rc = EXIT_USAGE;
        goto done;
    }
    rc = verdict(c, &v, qs);
done:
    grader_rung_free(trusted);
    grader_rung_free(now);
    grader_qset_free(qs);
    grader_task_free(c->task);
    c->task = NULL;
    return rc;
}

/* The paths in RUNDIR/canary/, and the run's folder and questions. */
static int paths(struct canary *c)
{
    if (rundir_path_buf(&c->dir, c->run_dir, RD_CANARY_DIR, NULL) != 0 ||
        rundir_path_buf(&c->subset, c->run_dir, RD_CANARY_QUESTIONS, NULL) !=
            0 ||
        rundir_path_buf(&c->verdict, c->run_dir, RD_CANARY_JSON, NULL) != 0 ||
        rundir_path_buf(&c->rows_path, c->dir.p, RD_ROWS, c->rung) != 0 ||
        rundir_path_buf(&c->done_path, c->dir.p, RD_DONE, c->rung) != 0 ||
        rundir_path_buf(&c->probs_path, c->dir.p, RD_PROBS, c->rung) != 0) {
        cli_error("canary", "path too long: '%s'", c->run_dir);
        return EXIT_USAGE;
    }
    return 0;
}

/* --config: the reference rung, the config's canary, the command line of
 * run's config form (the run options given: --llama, --gpu and --quiet
 * only, already in c->run). */
static int from_config(struct canary *c, const char *config, const char *sha,
                       struct config *cfg)
{
    struct config_over over = {NULL, c->run_dir, ""};
    const char *other = runplan_config_refuses(&c->run);
    char msg[4400];
    int rc;

    if (other != NULL) {
        cli_error("canary",
                  "%s with --config: only --run-dir, --llama, --gpu and "
                  "--quiet stand in for the config's settings",
                  other);
        return EXIT_USAGE;
    }
    if (config_load(config, &over, cfg, msg, sizeof(msg)) != 0) {
        cli_error("canary", "%s", msg);
        return EXIT_USAGE;
    }
    if (cfg->canary_rows == NULL) {
        cli_error("canary", "%s has no \"canary\" (docs/config.md)", config);
        return EXIT_USAGE;
    }
    c->rung = cfg->reference;
    for (size_t r = 0; r < cfg->nrungs; r++)
        if (strcmp(cfg->rungs[r].name, cfg->reference) == 0)
            c->model = cfg->rungs[r].model;
    c->rows = cfg->canary_rows;
    c->n = cfg->canary_questions;
    c->max_changed = cfg->canary_max_changed;
    c->qfile = cfg->questions;
    c->run_dir = cfg->run_dir;
    c->task_spec = cfg->task;
    if ((rc = paths(c)) != 0)
        return rc;
    /* run's config form: the config's rung, into the canary's folder */
    c->run.config = config;
    c->run.rung = c->rung;
    c->run.run_dir = c->dir.p;
    c->run.qfile = c->subset.p;
    c->run.force = 1;
    c->run.sha = sha;
    return 0;
}

/* RUNG MODEL ROWS and the flags: run's positional form, with the run
 * options given. */
static int from_flags(struct canary *c, const char **pos, size_t npos,
                      const char *sha)
{
    if (npos != 3 || sha) {
        cli_error("canary", "needs RUNG MODEL ROWS (see --help)");
        return EXIT_USAGE;
    }
    if (cli_rung_name_check("canary", pos[0]) != 0)
        return EXIT_USAGE;
    c->rung = pos[0];
    c->model = pos[1];
    c->rows = pos[2];
    c->task_spec = c->run.task; /* the run asks it; the canary grades by it */
    if (c->n == 0)
        c->n = CANARY_QUESTIONS;
    if (c->max_changed < 0)
        c->max_changed = CANARY_MAX_CHANGED;
    if (paths(c) != 0)
        return EXIT_USAGE;
    c->run_pos[0] = c->rung;
    c->run_pos[1] = c->model;
    c->run_pos[2] = c->subset.p;
    c->run_pos[3] = c->dir.p;
    c->run_npos = 4;
    c->run.force = 1;
    return 0;
}

/* argv into c (its own flags, and the run options into c->run), the
 * positionals into pos. CLI_GO, or the exit status (0 after --help). */
static int canary_parse(struct canary *c, int argc, char **argv,
                        const char **pos, size_t *npos, const char **config,
                        const char **sha)
{
    struct cli_opt run[RUNPLAN_OPTS];
    const char *refused[2] = {NULL, NULL};
    const struct cli_opt opts[] = {
        CLI_LONG("--questions", "N", &c->n, 1, CONFIG_LIMIT_MAX,
                 "how many of ROWS' first rows to ask (default 20)"),
        CLI_LONG("--max-changed", "K", &c->max_changed, 0, CONFIG_LIMIT_MAX,
                 "answers that may change (default 2)"),
        CLI_STRING("--question-file", "FILE", &c->qfile,
                   "the questions' text (default: the question file named "
                   "in the manifest.json beside ROWS' rows/)"),
        CLI_STRING("--run-dir", "DIR", &c->run_dir,
                   "the canary runs in DIR/canary/ (default .)"),
        CLI_STRING("--config", "CONFIG", config,
                   "the config's reference rung and its \"canary\" settings "
                   "(below)"),
        CLI_HIDDEN("--config-sha256", sha), /* the ladder's */
        /* run's, refused with the reason after the parse */
        CLI_HIDDEN("--limit", &refused[0]), CLI_HIDDEN("--rung", &refused[1]),
        CLI_GROUP("Run options, as graveyard run takes them (give the ones "
                  "the trusted run was made with):"),
        CLI_INCLUDE(run), CLI_END};
    const struct cli_command cmd = {"canary",
                                    canary_usage,
                                    canary_about,
                                    canary_after,
                                    opts,
                                    "RUNG MODEL ROWS",
                                    0,
                                    3};

    int rc;

    runplan_options(&c->run, run);
    c->max_changed = -1; /* not given */
    if ((rc = cli_parse(&cmd, argc, argv, pos, npos)) == CLI_GO &&
        (refused[0] || refused[1])) {
        cli_error("canary", "%s: the canary asks --questions N of ROWS",
                  refused[0] ? "--limit" : "--rung");
        rc = EXIT_USAGE;
    }
    return rc;
}

int cmd_canary(int argc, char **argv)
{
    const char *pos[3], *config = NULL, *sha = NULL;
    struct config cfg;
    struct canary *c = xrealloc(NULL, sizeof(*c));
    size_t npos = 0;
    int rc, loaded = 0;

    memset(c, 0, sizeof(*c));
    memset(&cfg, 0, sizeof(cfg));
    if ((rc = canary_parse(c, argc, argv, pos, &npos, &config, &sha)) !=
        CLI_GO)
        goto out;
    if (config != NULL &&
        (npos != 0 || c->n || c->max_changed >= 0 || c->qfile)) {
        cli_error("canary", "--config gives RUNG, MODEL, ROWS, the "
                            "questions and the limit (see --help)");
        rc = EXIT_USAGE;
    } else if (config != NULL) {
        loaded = 1;
        rc = from_config(c, config, sha, &cfg);
    } else {
        if (c->run_dir == NULL)
            c->run_dir = ".";
        rc = from_flags(c, pos, npos, sha);
    }
    if (rc == 0)
        rc = canary_go(c);
out:
    if (loaded)
        config_release(&cfg);
    buf_release(&c->dir);
    buf_release(&c->subset);
    buf_release(&c->rows_path);
    buf_release(&c->done_path);
    buf_release(&c->probs_path);
    buf_release(&c->verdict);
    buf_release(&c->qfile_buf);
    free(c);
    return rc;
}
