/*
 * cmd_audit.c - graveyard audit: which of a local ladder's rungs does a
 * served model answer like?
 *
 * A service says it serves a file; its answers say which. The endpoint
 * (docs/run.md, "A served model") answers the first N questions of a
 * local ladder's question set, asked exactly as the ladder asked them
 * (the prompt, task and request its manifest recorded), as a run of its
 * own in RUNDIR/audit/NAME/ (the runner's: faults, resume and the key's
 * rules are run's). The grader then counts, against every local rung's
 * rows on those questions, the answers that changed (grader_canary: another
 * extracted answer, an error against an answer, other words), and the
 * verdict names the rung it matches best.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../grader/grader.h"
#include "../../rundir/files.h"
#include "../../rundir/manifest.h"
#include "../../rundir/rundir.h"
#include "../base/cli.h"
#include "commands.h"
#include "../figures/figures.h"
#include "../input/taskfile.h"
#include "../input/tooldocs.h"
#include "../rows/rowsfile.h"
#include "../run/runner.h"

#define AUDIT_QUESTIONS 20 /* default N */

static const char audit_usage[] =
    "graveyard audit NAME --url URL --against RUNDIR [--limit N]\n"
    "                       [--api-key-env VAR] [--allow-plain-http]\n"
    "                       [--json] [--quiet] [--force]";

static const char audit_about[] =
    "Which local rung does a served model answer like? The endpoint at URL\n"
    "(not started by graveyard: docs/run.md, \"A served model\") answers\n"
    "the first N questions (default 20) of the ladder in RUNDIR, asked as\n"
    "that ladder asked them (its manifest's prompt, task and request),\n"
    "into RUNDIR/audit/NAME/; then its answers are compared with every\n"
    "local rung's on those questions, and the verdict names the closest:\n"
    "  audit NAME: answers like Q4_0: 0 changed; like Q8_0: 9 changed;\n"
    "  best match Q4_0\n"
    "A changed answer: another extracted answer, an error against an\n"
    "answer, or, with no answer in either, other words. Running the same\n"
    "command again resumes the endpoint's run.\n";

/* One local rung against the endpoint. */
struct match {
    const char *rung;
    size_t changed, compared, missing;
};

struct audit {
    const char *name, *url, *against, *key_env;
    long limit;
    int plain, json, quiet, force;
    json_t *manifest; /* RUNDIR's */
    struct grader_task *task;
    struct buf dir, rows;
    struct match *m;
    size_t nm;
};

static int by_changed(const void *a, const void *b)
{
    const struct match *x = a, *y = b;

    if (x->changed != y->changed)
        return x->changed < y->changed ? -1 : 1;
    if (x->missing != y->missing)
        return x->missing < y->missing ? -1 : 1;
    return strcmp(x->rung, y->rung);
}

/* The endpoint's run: as the ladder asked, into RUNDIR/audit/NAME. */
static int ask(struct audit *a)
{
    const char *q = manifest_questions(a->manifest);
    struct manifest_request req;
    struct run_opts o;
    char msg[1024];

    if (q == NULL ||
        manifest_request_read(a->manifest, &req, msg, sizeof(msg)) != 0) {
        if (q == NULL)
            cli_error("audit", "%s: its manifest names no question file",
                      a->against);
        else
            cli_error("audit", "%s: %s", a->against, msg);
        return EXIT_USAGE;
    }
    run_opts_defaults(&o, req.think);
    o.rung = a->name;
    o.model = o.endpoint = a->url;
    o.api_key_env = a->key_env;
    o.allow_plain_http = a->plain;
    o.questions = q;
    o.rundir = a->dir.p;
    o.limit = a->limit;
    o.task = a->task;
    o.prompt = manifest_prompt(a->manifest);
    o.max_tokens = req.max_tokens;
    o.request = req.extra;
    o.abort_loops = req.abort_loops;
    o.quiet = a->quiet;
    o.force = a->force;
    o.no_summary = 1; /* the verdict is the line stdout carries */
    run_opts_finish(&o);
    if (files_mkdir(a->dir.p, 0, msg, sizeof(msg)) != 0) {
        cli_error("audit", "%s", msg);
        return files_exit_code(errno);
    }
    return runner_run(&o);
}

/* The local rungs: the manifest's, less the served ones. */
static void local_rungs(struct audit *a)
{
    size_t n = manifest_local_rungs(a->manifest, NULL, 0);
    const char **names = xrealloc(NULL, (n + 1) * sizeof(*names));

    a->nm = manifest_local_rungs(a->manifest, names, n);
    a->m = xrealloc(NULL, (a->nm + 1) * sizeof(*a->m));
    memset(a->m, 0, (a->nm + 1) * sizeof(*a->m));
    for (size_t i = 0; i < a->nm; i++)
        a->m[i].rung = names[i];
    free(names);
}

/* Each local rung's rows against the endpoint's. 0 or EXIT_USAGE. */
static int compare(struct audit *a)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *ep = NULL, *local = NULL;
    struct grader_error err;
    struct grader_canary v;
    struct buf path = {0};
    int rc = 0;

    if (qs == NULL)
        util_oom("a question set");
    if (rowsfile_read_rule(qs, a->name, a->rows.p, GRADER_READ_TEXT, a->task,
                           0, &ep, &err) != 0) {
        grade_report("audit", &err);
        rc = EXIT_USAGE;
    }
    for (size_t i = 0; rc == 0 && i < a->nm; i++) {
        if (rundir_path_buf(&path, a->against, RD_ROWS, a->m[i].rung) != 0 ||
            rowsfile_read_rule(qs, a->m[i].rung, path.p, GRADER_READ_TEXT,
                               a->task, 0, &local, &err) != 0 ||
            grader_canary(ep, local, (size_t)a->limit, &v, &err) != 0) {
            grade_report("audit", &err);
            rc = EXIT_USAGE;
        } else {
            a->m[i].changed = v.changed;
            a->m[i].compared = v.compared;
            a->m[i].missing = v.missing;
        }
        grader_rung_free(local);
        local = NULL;
    }
    buf_release(&path);
    grader_rung_free(ep);
    grader_qset_free(qs);
    if (rc == 0)
        qsort(a->m, a->nm, sizeof(*a->m), by_changed);
    return rc;
}

static void verdict(const struct audit *a)
{
    int tie = a->nm > 1 && a->m[0].changed == a->m[1].changed &&
              a->m[0].missing == a->m[1].missing;
    json_t *o, *list;
    char *text;

    if (!a->json) {
        printf("audit %s: answers", a->name);
        for (size_t i = 0; i < a->nm; i++)
            printf("%s like %s: %zu changed%s", i ? ";" : "", a->m[i].rung,
                   a->m[i].changed,
                   a->m[i].missing ? " (some not answered by it)" : "");
        printf("; %s %s (over %zu questions)\n",
               tie ? "a tie, first" : "best match", a->m[0].rung,
               a->m[0].compared + a->m[0].missing);
        return;
    }
    list = json_array();
    for (size_t i = 0; list != NULL && i < a->nm; i++)
        json_array_append_new(
            list, json_pack("{s:s,s:I,s:I,s:I}", "rung", a->m[i].rung,
                            "changed", (json_int_t)a->m[i].changed, "compared",
                            (json_int_t)a->m[i].compared, "missing",
                            (json_int_t)a->m[i].missing));
    o = json_pack("{s:s,s:s,s:s,s:I,s:s,s:b,s:o}", "audit", a->name, "url",
                  a->url, "against", a->against, "questions",
                  (json_int_t)(a->m[0].compared + a->m[0].missing), "best",
                  a->m[0].rung, "tie", tie, "rungs", list);
    text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    if (text == NULL)
        util_oom("the audit's verdict");
    printf("%s\n", text);
    free(text);
    json_decref(o);
}

/* RUNDIR's manifest and task, the audit's paths. 0 or the exit status. */
static int open_against(struct audit *a)
{
    struct buf path = {0};
    json_error_t jerr;
    char msg[1024];

    if (rundir_path_buf(&path, a->against, RD_MANIFEST, NULL) != 0 ||
        rundir_path_buf(&a->dir, a->against, RD_AUDIT, a->name) != 0 ||
        rundir_path_buf(&a->rows, a->dir.p, RD_ROWS, a->name) != 0) {
        buf_release(&path);
        cli_error("audit", "path too long: '%.200s...'", a->against);
        return EXIT_USAGE;
    }
    a->manifest = files_json_load(path.p, 1, 0, &jerr);
    buf_release(&path);
    if (a->manifest == NULL) {
        cli_error("audit", "%s: no manifest.json to audit against: %s",
                  a->against, jerr.text);
        return EXIT_USAGE;
    }
    a->task =
        taskfile_from_manifest(a->manifest, a->against, msg, sizeof(msg));
    if (a->task != NULL &&
        tooldocs_for_run(a->task, a->manifest, a->against, msg, sizeof(msg))) {
        grader_task_free(a->task);
        a->task = NULL;
    }
    if (a->task == NULL) {
        cli_error("audit", "%s", msg);
        return EXIT_USAGE;
    }
    local_rungs(a);
    if (a->nm == 0) {
        cli_error("audit", "%s: no local rung to compare with", a->against);
        return EXIT_USAGE;
    }
    return 0;
}

/* The flags into a. CLI_GO, or the exit status (0 after --help). */
static int parse(struct audit *a, int argc, char **argv)
{
    const char *pos[1];
    size_t npos = 0;
    int rc;
    const struct cli_opt opts[] = {
        CLI_NEEDED("--url", "URL", &a->url,
                   "the served model (docs/run.md, \"A served model\"): "
                   "https, or http to this machine"),
        CLI_NEEDED("--against", "RUNDIR", &a->against,
                   "the local ladder whose rungs the answers are compared "
                   "with"),
        CLI_LONG("--limit", "N", &a->limit, 1, 100000,
                 "the first N questions of the ladder's (default 20)"),
        CLI_STRING("--api-key-env", "VAR", &a->key_env,
                   "the key is $VAR, sent as a Bearer token, never written"),
        CLI_SWITCH("--allow-plain-http", &a->plain, "http to another machine"),
        CLI_SWITCH("--json", &a->json,
                   "the verdict as one JSON object on stdout"),
        CLI_SWITCH("--quiet", &a->quiet, "no progress lines on stderr"),
        CLI_SWITCH("--force", &a->force,
                   "resume the endpoint's run although a setting changed"),
        CLI_END};
    const struct cli_command cmd = {"audit", audit_usage, audit_about, NULL,
                                    opts,    "NAME",      1,           1};

    a->limit = AUDIT_QUESTIONS;
    if ((rc = cli_parse(&cmd, argc, argv, pos, &npos)) != CLI_GO)
        return rc;
    a->name = pos[0];
    return cli_rung_name_check("audit", a->name) == 0 ? CLI_GO : EXIT_USAGE;
}

int cmd_audit(int argc, char **argv)
{
    struct audit a;
    int rc;

    memset(&a, 0, sizeof(a));
    if ((rc = parse(&a, argc, argv)) != CLI_GO)
        return rc;
    if ((rc = open_against(&a)) == 0 && (rc = ask(&a)) == 0 &&
        (rc = compare(&a)) == 0)
        verdict(&a);
    json_decref(a.manifest);
    grader_task_free(a.task);
    buf_release(&a.dir);
    buf_release(&a.rows);
    free(a.m);
    return rc;
}
