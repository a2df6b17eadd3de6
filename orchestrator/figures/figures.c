/*
 * figures.c - the rows of run folders read into the grader, and what the
 * grading commands print: bury, autopsy and repeat (figures.h). The
 * report, compare and think are figures_report.c's and
 * figures_compare.c's; what they share is at the end of this file.
 *
 * Nothing here computes a statistic: that is the grader's job.
 * Everything is computed before anything is written, so a bad input
 * leaves no output behind, and files are written atomically.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../report/doc.h"
#include "../../grader/grader.h"
#include "../../report/emit.h"
#include "../../rundir/files.h"
#include "../../rundir/meta.h"
#include "../../rundir/outfile.h"
#include "../../rundir/power.h"
#include "../../rundir/rundir.h"
#include "../base/cli.h"
#include "figures.h"
#include "figures_int.h"
#include "../rows/rowsfile.h"
#include "../input/taskfile.h"
#include "../input/tooldocs.h"

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
    struct buf path = {0};
    char msg[1024];
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
    if (rundir_path_buf(&path, rundir, RD_MANIFEST, NULL) != 0) {
        cli_error(cmd, "path too long: '%.200s...'", rundir);
        buf_release(&path);
        return NULL;
    }
    m = files_json_load(path.p, 1, JSON_REJECT_DUPLICATES, &jerr);
    if (m == NULL && access(path.p, F_OK) == 0 && jerr.line < 1) {
        cli_error(cmd, "cannot read '%s': %s", path.p, jerr.text);
        buf_release(&path);
        return NULL;
    }
    if (m == NULL && access(path.p, F_OK) == 0) {
        cli_error(cmd, "%s:%d: %s", path.p, jerr.line, jerr.text);
        buf_release(&path);
        return NULL;
    }
    t = taskfile_from_manifest(m, path.p, msg, sizeof(msg));
    /* a tool-call task grades against the docs of the file the run asked */
    if (t != NULL && tooldocs_for_run(t, m, rundir, msg, sizeof(msg)) != 0) {
        grader_task_free(t);
        t = NULL;
    }
    json_decref(m);
    buf_release(&path);
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

int rungset_load(const char *cmd, struct rungset *s, const char *rundir,
                 const char **names, size_t n, unsigned flags)
{
    struct grader_error err;
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
        struct buf path = {0};
        struct grader_rung *r;
        if (s->n == RUNGSET_MAX) {
            cli_error(cmd, "more than %d rungs in one command", RUNGSET_MAX);
            return EXIT_USAGE;
        }
        if (rundir_path_buf(&path, rundir, RD_ROWS, names[i]) != 0) {
            cli_error(cmd, "path too long: '%.200s...'", rundir);
            return EXIT_USAGE;
        }
        if (rowsfile_read_rule(s->qs, names[i], path.p, flags, task,
                               (size_t)rule, &r, &err) != 0) {
            buf_release(&path);
            grade_report(cmd, &err);
            return EXIT_USAGE;
        }
        buf_release(&path);
        s->r[s->n++] = r;
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

int figures__write_stdout(const char *cmd, const char *p, size_t len)
{
    if ((len > 0 && fwrite(p, 1, len, stdout) != len) || fflush(stdout) != 0) {
        cli_error(cmd, "cannot write to standard output");
        return EXIT_FAILED;
    }
    return EXIT_OK;
}

/* ---- bury and autopsy ------------------------------------------------ */

/* Read o's rungs into s and bury them into b. */
static int load_and_bury(const char *cmd, const struct figures_bury_opts *o,
                         struct rungset *s, struct grader_bury *b)
{
    struct grader_error err;
    int rc;

    s->rule = o->rule;
    if ((rc = check_names(cmd, (const char **)o->rungs, o->nrungs)) != 0 ||
        (rc = rungset_load(cmd, s, o->rundir, (const char **)o->rungs,
                           o->nrungs, 0)) != 0)
        return rc;
    if (grader_bury(s->qs, s->r, s->n, o->partial ? GRADER_PARTIAL : 0, b,
                    &err) != 0) {
        grade_report(cmd, &err);
        return EXIT_USAGE;
    }
    return 0;
}

int figures_bury(const struct figures_bury_opts *o, struct figures_bury *r)
{
    long long prev_bytes = -1;
    char msg[4600];
    size_t i;
    int rc;

    memset(r, 0, sizeof(*r));
    if ((rc = load_and_bury("bury", o, &r->s, &r->b)) != 0)
        return rc;
    r->have_b = 1;
    for (i = 0; i < r->b.nrungs; i++) {
        struct grader_meta *meta = &r->metas[i];
        const char *name = r->s.r[i]->name;
        if (rundir_meta_read(o->rundir, name, meta, msg, sizeof(msg))) {
            cli_error("bury", "%s", msg);
            return EXIT_USAGE;
        }
        /* rungs are named biggest first: say so when the files disagree
         * (a warning: a ladder may hold a bigger file below on purpose) */
        if (i > 0 && meta->bytes >= 0 && prev_bytes >= 0 &&
            meta->bytes > prev_bytes + prev_bytes / 100)
            fprintf(stderr,
                    "graveyard bury: warning: rung %s (%lld bytes) is "
                    "bigger than %s (%lld bytes) named before it; rungs go "
                    "biggest first: is the order right?\n",
                    name, meta->bytes, r->s.r[i - 1]->name, prev_bytes);
        prev_bytes = meta->bytes;
    }
    return 0;
}

int figures_bury_write(const struct figures_bury_opts *o,
                       const struct figures_bury *r)
{
    struct buf out = {0}, file = {0};
    char msg[4600];
    size_t i;
    int rc = 0;

    for (i = 0; i < r->b.nrungs; i++)
        add_line(&out, emit_bury_line(&r->b, i, &r->metas[i]));
    add_line(&out, emit_bury_summary(&r->b));
    /* the tombstones go where the caller says, or nowhere: a bury by hand
     * (another order, a subset) never writes over the run folder's own
     * graveyard.json, which the ladder writes */
    if (o->json_path != NULL) {
        if (emit_graveyard(&r->b, r->s.qs, buf_sink, &file) != 0)
            util_oom("the tombstones file");
        if (outfile_write(o->json_path, file.p, file.len, msg, sizeof(msg))) {
            cli_error("bury", "%s", msg);
            rc = EXIT_FAILED;
        }
    }
    if (rc == 0)
        rc = figures__write_stdout("bury", out.p, out.len);
    buf_release(&out);
    buf_release(&file);
    return rc;
}

void figures_bury_release(struct figures_bury *r)
{
    if (r->have_b)
        grader_bury_release(&r->b);
    rungset_release(&r->s);
    memset(r, 0, sizeof(*r));
}

int figures_autopsy(const struct figures_bury_opts *o,
                    struct figures_autopsy *r)
{
    struct grader_bury b;
    int rc;

    memset(r, 0, sizeof(*r));
    if ((rc = load_and_bury("autopsy", o, &r->s, &b)) != 0)
        return rc;
    grader_autopsy(&b, r->s.r, r->lines);
    r->n = b.nrungs;
    grader_bury_release(&b);
    return 0;
}

int figures_autopsy_print(const struct figures_autopsy *r)
{
    struct buf out = {0};
    int rc;

    for (size_t i = 0; i < r->n; i++)
        add_line(&out, emit_autopsy_line(&r->lines[i]));
    rc = figures__write_stdout("autopsy", out.p, out.len);
    buf_release(&out);
    return rc;
}

void figures_autopsy_release(struct figures_autopsy *r)
{
    rungset_release(&r->s);
    memset(r, 0, sizeof(*r));
}

/* ---- repeat ---------------------------------------------------------- */

int figures_repeat(const struct figures_repeat_opts *o,
                   struct figures_repeat *r)
{
    struct grader_error err;
    const char **name;
    size_t i;
    int rc;

    memset(r, 0, sizeof(*r));
    r->s.rule = o->rule;
    if ((rc = check_names("repeat", (const char **)o->rungs, o->nrungs)))
        return rc;
    for (i = 0; i < o->nrungs; i++) {
        name = (const char **)&o->rungs[i];
        if ((rc = rungset_load("repeat", &r->s, o->dir_a, name, 1,
                               GRADER_READ_TEXT)) != 0 ||
            (rc = rungset_load("repeat", &r->s, o->dir_b, name, 1,
                               GRADER_READ_TEXT)) != 0)
            return rc;
        if (grader_repeat(r->s.r[r->s.n - 2], r->s.r[r->s.n - 1], r->s.qs,
                          o->common ? GRADER_COMMON : 0, &r->lines[r->n],
                          &err) != 0) {
            grade_report("repeat", &err);
            return EXIT_USAGE;
        }
        r->n++;
    }
    return 0;
}

int figures_repeat_print(const struct figures_repeat *r)
{
    struct buf out = {0};
    int rc;

    for (size_t i = 0; i < r->n; i++)
        add_line(&out, emit_repeat_line(&r->lines[i]));
    rc = figures__write_stdout("repeat", out.p, out.len);
    buf_release(&out);
    return rc;
}

void figures_repeat_release(struct figures_repeat *r)
{
    rungset_release(&r->s);
    memset(r, 0, sizeof(*r));
}

/* ---- what the report, compare and think share ------------------------ */

int figures__out_open(struct figures__out *o, const char *name)
{
    o->p = NULL;
    o->len = 0;
    o->name = name;
    o->f = open_memstream(&o->p, &o->len);
    return o->f ? 0 : -1;
}

int figures__out_close(struct figures__out *o, int rendered)
{
    int bad = o->f == NULL || ferror(o->f) || rendered != 0;

    if (o->f != NULL && fclose(o->f) != 0)
        bad = 1;
    o->f = NULL;
    return bad ? -1 : 0;
}

int figures__md_close(struct figures__out *o, const struct doc *d)
{
    if (d != NULL && o->f != NULL)
        doc_md(o->f, d);
    return figures__out_close(o, d == NULL ? -1 : 0);
}

void figures__out_free(struct figures__out *o)
{
    if (o->f != NULL)
        fclose(o->f);
    free(o->p);
    memset(o, 0, sizeof(*o));
}

int figures__write_all(const char *cmd, const char *dir,
                       struct figures__out *outs, size_t n)
{
    struct buf path = {0};
    char msg[4600] = "";
    size_t i, j;

    /* every path fits, or none is written (nor the folder made) */
    for (i = 0; i < n; i++)
        if (buf_path(&path, "%s/%s", dir, outs[i].name) != 0) {
            cli_error(cmd, "path too long: '%.200s...'", dir);
            buf_release(&path);
            return EXIT_USAGE;
        }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        cli_error(cmd, "%s: cannot create the folder: %s", dir,
                  strerror(errno));
        buf_release(&path);
        return EXIT_FAILED;
    }
    for (i = 0; i < n; i++) {
        /* each fits: checked above */
        if (buf_path(&path, "%s/%s", dir, outs[i].name) != 0 ||
            outfile_write(path.p, outs[i].p, outs[i].len, msg, sizeof(msg)) !=
                0) {
            cli_error(cmd, "%s", msg);
            for (j = 0; j < i; j++)
                if (buf_path(&path, "%s/%s", dir, outs[j].name) == 0)
                    unlink(path.p);
            buf_release(&path);
            return EXIT_FAILED;
        }
    }
    buf_release(&path);
    for (i = 0; i < n; i++)
        printf("wrote %s/%s\n", dir, outs[i].name);
    return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
}

int figures__oom(const char *cmd)
{
    cli_error(cmd, "out of memory");
    return EXIT_FAILED;
}

int figures__open_run(const char *cmd, struct rundir_run *r, const char *dir,
                      const char *rungs, const char *side, const char *label)
{
    char msg[4600];

    if (rundir_run_open(r, dir, rungs, side, label, msg, sizeof(msg)) != 0) {
        cli_error(cmd, "%s", msg);
        rundir_run_close(r);
        return EXIT_USAGE;
    }
    if (r->nchain == 0) {
        cli_error(cmd, "%s: no rungs to report", dir);
        rundir_run_close(r);
        return EXIT_USAGE;
    }
    return 0;
}

void figures__power(const char *cmd, const char *dir, const char *rung,
                    struct grader_meta *m)
{
    struct grader_error err;
    struct buf path = {0};
    char msg[4400], *bytes;
    size_t len;
    int rc = rundir_power_read(dir, rung, &bytes, &len, msg, sizeof(msg));

    memset(&m->power, 0, sizeof(m->power));
    m->power.joules = -1;
    if (rc == 1)
        return;
    if (rc != 0) {
        cli_error(cmd, "%s; energy left unknown", msg);
        return;
    }
    (void)rundir_path_buf(&path, dir, RD_POWER, rung); /* read just now */
    if (grader_power_integrate(bytes, len, path.p, &m->power, &err) != 0) {
        memset(&m->power, 0, sizeof(m->power));
        m->power.joules = -1;
        cli_error(cmd, "%s:%ld: %s; energy left unknown", err.file, err.line,
                  err.text);
    }
    buf_release(&path);
    free(bytes);
}
