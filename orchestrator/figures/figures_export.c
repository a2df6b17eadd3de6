/*
 * figures_export.c - graveyard export --eee (figures.h, docs/export.md):
 * a run folder's answers as Every Eval Ever records, per rung an
 * aggregate JSON and its instance-level samples file, in EEE's datastore
 * layout under OUT (data/graveyard/DEVELOPER/MODEL/UUID.json and
 * UUID_samples.jsonl). The figures are figures_report's, computed by the
 * grader; the answers its rungs read with their texts kept; the question
 * texts the page's (pages.h); the file's type and imatrix the GGUF's own
 * key-values (weights/recipe.h), when the file can be read. Everything is
 * rendered in memory first (report/eee.c), then written all or none.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../report/card.h"
#include "../../report/eee.h"
#include "../../rundir/exported.h"
#include "../../rundir/ladderfile.h"
#include "../../rundir/manifest.h"
#include "../../rundir/rundir.h"
#include "../../util/util.h"
#include "../../weights/f16range.h"
#include "../../weights/recipe.h"
#include "../base/cli.h"
#include "../base/hash.h"
#include "figures.h"
#include "figures_int.h"
#include "pages.h"

#define EXPORT_POINTS (GRADER_MAX_RUNGS * 2)

/* What one export holds while it renders. */
struct export_state {
    struct eee_run run;
    char stamp[32], model_id[260], dev[130], model[130];
    char dir[300]; /* data/graveyard/DEV/MODEL */
    struct lrow *rows;
    size_t nrows;
    struct pages_qtexts *qt;
    struct figures__out outs[EXPORT_POINTS * 2];
    char names[EXPORT_POINTS * 2][100];
    size_t nouts;
};

/* s as a path component of EEE's datastore: [A-Za-z0-9._-], others '_',
 * no leading '.', 1 to size-1 bytes. */
static void component(char *out, size_t size, const char *s, size_t n)
{
    size_t i, k = 0;

    for (i = 0; i < n && k + 1 < size; i++) {
        char c = s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        out[k] = ok && !(k == 0 && c == '.') ? c : '_';
        k++;
    }
    if (k == 0)
        out[k++] = '_';
    out[k] = '\0';
}

/* The retrieved time: SOURCE_DATE_EPOCH when set (the same bytes each
 * export, as reproducible builds read it), else now. */
static void stamp(char *out, size_t size)
{
    const char *e = getenv("SOURCE_DATE_EPOCH");
    char *end;
    unsigned long long v;

    if (e != NULL && *e != '\0') {
        errno = 0;
        v = strtoull(e, &end, 10);
        if (errno == 0 && *end == '\0') {
            snprintf(out, size, "%llu", v);
            return;
        }
    }
    snprintf(out, size, "%lld", (long long)time(NULL));
}

/* A v4-shaped UUID from the sha256 of s: the same record, the same name. */
static void uuid_of(const char *s, char out[37])
{
    char hex[65];

    hash_bytes(s, strlen(s), hex);
    hex[12] = '4';
    hex[16] =
        "89ab"[(hex[16] >= 'a' ? hex[16] - 'a' + 10 : hex[16] - '0') & 3];
    snprintf(out, 37, "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12,
             hex + 16, hex + 20);
}

/* The names every record shares. */
static void export_names(const struct figures_export_opts *o,
                         const struct figures_report *r,
                         struct export_state *st)
{
    const struct rundir_run *run = &r->run;
    const char *q = rundir_run_questions(run), *slash, *task;
    const char *name = run->name ? run->name : run->label;
    char slug[130];

    stamp(st->stamp, sizeof(st->stamp));
    component(slug, sizeof(slug), name, strlen(name));
    if (o->model != NULL && (slash = strchr(o->model, '/')) != NULL) {
        component(st->dev, sizeof(st->dev), o->model,
                  (size_t)(slash - o->model));
        component(st->model, sizeof(st->model), slash + 1, strlen(slash + 1));
    } else {
        snprintf(st->dev, sizeof(st->dev), "unknown");
        if (o->model != NULL)
            component(st->model, sizeof(st->model), o->model,
                      strlen(o->model));
        else
            snprintf(st->model, sizeof(st->model), "%s", slug);
    }
    snprintf(st->model_id, sizeof(st->model_id), "%s/%s", st->dev, st->model);
    snprintf(st->dir, sizeof(st->dir), "data/graveyard/%s/%s", st->dev,
             st->model);
    task = manifest_task_name(run->manifest);
    slash = q ? strrchr(q, '/') : NULL;
    st->run.timestamp = st->stamp;
    st->run.graveyard = GRAVEYARD_VERSION;
    st->run.made_by = exported_graveyard_version(run->manifest);
    st->run.model_id = st->model_id;
    st->run.developer = st->dev;
    st->run.model_name = name;
    st->run.task = task ? task : "answer-line";
    st->run.rule = r->s.rule_used ? r->s.rule_used : st->run.task;
    st->run.questions = q == NULL ? "not recorded" : slash ? slash + 1 : q;
    st->run.questions_sha = rundir_run_questions_sha256(run);
    st->run.dataset = o->dataset;
    st->run.max_tokens = rundir_run_max_tokens(run);
    st->run.thinking = rundir_run_thinking(run);
}

/* The GGUF's general.file_type and quantize.imatrix.* key-values, when
 * ladder.tsv names the file and it can be read; else NULL. New. */
static json_t *gguf_meta(const struct export_state *st, const char *rung)
{
    const struct lrow *row = ladderfile_find(st->rows, st->nrows, rung);
    json_t *recipe = NULL, *out, *v;
    const char *k;
    char msg[1024];

    if (row == NULL || access(row->file, R_OK) != 0 ||
        recipe_of(row->file, &recipe, msg, sizeof msg) != F16R_OK ||
        recipe == NULL)
        return NULL;
    out = json_object();
    json_object_foreach(json_object_get(recipe, "metadata"), k, v)
    {
        const char *t = json_string_value(v), *slash;
        if (strcmp(k, "general.file_type") != 0 &&
            strncmp(k, "quantize.imatrix.", 17) != 0)
            continue;
        /* the imatrix's file and dataset by their names, as every path
         * the export writes: never a folder of the machine that made it */
        if (t != NULL && (slash = strrchr(t, '/')) != NULL)
            json_object_set_new(out, k, json_string(slash + 1));
        else
            json_object_set(out, k, v);
    }
    json_decref(recipe);
    return out;
}

/* Answer a of rung g as eee.h's plain struct. */
static void answer_of(const struct figures_report *r,
                      const struct export_state *st,
                      const struct grader_rung *g,
                      const struct grader_answer *a, struct eee_answer *e)
{
    size_t len;

    memset(e, 0, sizeof(*e));
    e->id = grader_qset_id(r->s.qs, a->q);
    e->reference = grader_qset_reference(r->s.qs, a->q);
    e->input = pages_qtext(st->qt, a->q);
    e->content = grader_rung_kept(g, a, GRADER_KEEP_CONTENT, &len);
    e->content_len = e->content ? len : 0;
    e->reasoning = grader_rung_kept(g, a, GRADER_KEEP_REASONING, &len);
    e->reasoning_len = e->reasoning ? len : 0;
    e->finish = grader_rung_kept(g, a, GRADER_KEEP_FINISH, &len);
    e->finish_len = e->finish ? len : 0;
    e->error = grader_rung_kept(g, a, GRADER_KEEP_ERROR, &len);
    e->error_len = e->error ? len : 0;
    e->said = grader_rung_said(g, a);
    e->right = grader_answer_right(a);
    e->tokens = a->tokens;
    e->ms = a->ms;
}

/* A JSON value dumped into f, a newline after: 0, or -1. */
static int dump_line(FILE *f, json_t *j, size_t flags)
{
    char *s = j ? json_dumps(j, flags) : NULL;
    int rc = s == NULL || fputs(s, f) == EOF || fputc('\n', f) == EOF;

    free(s);
    json_decref(j);
    return rc ? -1 : 0;
}

/* Point p's two files into st->outs: 0, or -1 out of memory. */
static int render_point(const struct figures_report *r,
                        struct export_state *st, size_t p)
{
    const struct grader_figures *g = grader_ladder_point(&r->rep, p);
    const struct grader_rung *rung = g->line->rung;
    const char *name = card_point_name(&r->run, p);
    struct figures__out *samp = &st->outs[st->nouts],
                        *agg = &st->outs[st->nouts + 1];
    struct eee_rung e = {0};
    char id[600], uuid[37], path[500];
    size_t i;
    int bad = 0;

    snprintf(id, sizeof(id), "graveyard/%s/%s/%s", st->model_id, name,
             st->stamp);
    uuid_of(id, uuid);
    snprintf(st->names[st->nouts], sizeof(st->names[0]), "%s_samples.jsonl",
             uuid);
    snprintf(st->names[st->nouts + 1], sizeof(st->names[0]), "%s.json", uuid);
    snprintf(path, sizeof(path), "%s/%s", st->dir, st->names[st->nouts]);
    e.rung = name;
    e.reference = card_point_name(&r->run, 0);
    e.evaluation_id = id;
    e.file = card_file_name(&r->run, name);
    e.sha256 = g->meta.sha256[0] ? g->meta.sha256 : NULL;
    e.bytes = g->meta.bytes > 0 ? g->meta.bytes : -1;
    e.server_version = exported_server_version(r->run.manifest, name);
    e.argv = exported_server_argv(r->run.manifest, name);
    e.gguf_meta = gguf_meta(st, name);
    e.n = g->line->sum.n;
    e.right = g->line->sum.right;
    e.errors = g->line->sum.errors;
    e.truncated = g->line->sum.truncated;
    e.dead = g->line->dead;
    e.ghosts = g->line->ghosts;
    e.acc = g->acc;
    e.acc_lo = g->acc_lo;
    e.acc_hi = g->acc_hi;
    e.samples_path = path;
    if (figures__out_open(samp, st->names[st->nouts]) != 0)
        bad = 1;
    st->nouts++;
    for (i = 0; !bad && i < rung->n; i++) {
        struct eee_answer a;
        answer_of(r, st, rung, &rung->answers[i], &a);
        bad = dump_line(samp->f, render_eee_answer(&st->run, &e, &a),
                        JSON_COMPACT | JSON_ENSURE_ASCII |
                            JSON_REAL_PRECISION(12)) != 0;
    }
    e.samples = rung->n;
    if (figures__out_close(samp, bad) != 0)
        bad = 1;
    if (!bad)
        hash_bytes(samp->p, samp->len, e.checksum);
    if (!bad && figures__out_open(agg, st->names[st->nouts]) == 0) {
        st->nouts++;
        bad = dump_line(agg->f, render_eee_aggregate(&st->run, &e),
                        JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                            JSON_REAL_PRECISION(12)) != 0;
        bad |= figures__out_close(agg, bad) != 0;
    } else {
        bad = 1;
    }
    json_decref(e.argv);
    json_decref(e.gguf_meta);
    return bad ? -1 : 0;
}

/* OUT as export may write into it: absent (made later), or a folder, not
 * a link, empty unless force. 0, or EXIT_USAGE after a line on stderr. */
static int out_check(const char *out, int force)
{
    int err = 0, st = cli_out_state(out, &err);

    switch (st) {
    case CLI_OUT_ABSENT:
    case CLI_OUT_EMPTY:
        return 0;
    case CLI_OUT_LINK:
    case CLI_OUT_NOTDIR:
        cli_error("export", "'%s' is %s: --out names a folder of export's own",
                  out,
                  st == CLI_OUT_LINK ? "a symbolic link" : "not a folder");
        return EXIT_USAGE;
    case CLI_OUT_FULL:
        if (force)
            return 0;
        cli_error("export",
                  "'%s' holds other files: --force writes among them, or "
                  "--out names an empty or new folder",
                  out);
        return EXIT_USAGE;
    default:
        cli_error("export", "'%s': %s", out, strerror(err));
        return EXIT_USAGE;
    }
}

/* mkdir path (its parents first when top), then it must be a folder and
 * no link: never a write through a link out of OUT. 0, or the exit
 * status after a line on stderr. */
static int make_dir(const char *path, int top)
{
    struct stat sb;
    char *p = xstrdup(path), *c;

    for (c = p + 1; top && (c = strchr(c, '/')) != NULL; c++) {
        *c = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            cli_error("export", "cannot make '%s': %s", p, strerror(errno));
            free(p);
            return EXIT_FAILED;
        }
        *c = '/';
    }
    free(p);
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        cli_error("export", "cannot make '%s': %s", path, strerror(errno));
        return EXIT_FAILED;
    }
    if (lstat(path, &sb) != 0 || S_ISLNK(sb.st_mode) || !S_ISDIR(sb.st_mode)) {
        cli_error("export", "'%s' is not a folder of export's own (a link?)",
                  path);
        return EXIT_USAGE;
    }
    return 0;
}

/* OUT/data/graveyard/DEV/MODEL made, one folder at a time. */
static int make_dirs(const char *out, const char *dir, struct buf *b)
{
    const char *c = dir;
    int rc;

    if ((rc = make_dir(out, 1)) != 0)
        return rc;
    while ((c = strchr(c, '/')) != NULL || (c = dir + strlen(dir)) != NULL) {
        if (buf_path(b, "%s/%.*s", out, (int)(c - dir), dir) != 0) {
            cli_error("export", "path too long: '%.200s...'", out);
            return EXIT_USAGE;
        }
        if ((rc = make_dir(b->p, 0)) != 0)
            return rc;
        if (*c == '\0')
            return 0;
        c++;
    }
    return 0;
}

/* Every rung's rows file the run folder's own: a link (to a file out of
 * the folder, another run's rows) is refused, as publish's bundle refuses
 * it. 0, or EXIT_USAGE after a line on stderr. */
static int rows_own(const struct figures_report *r, size_t np)
{
    struct stat sb;
    size_t p;

    for (p = 0; p < np; p++) {
        const char *path = grader_ladder_point(&r->rep, p)->line->rung->path;
        if (path != NULL && lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
            cli_error("export",
                      "'%s' is %s: export publishes the run folder's own "
                      "rows, nothing written",
                      path,
                      S_ISLNK(sb.st_mode) ? "a symbolic link"
                                          : "not a plain file");
            return EXIT_USAGE;
        }
    }
    return 0;
}

int figures_export_write(const struct figures_export_opts *o,
                         const struct figures_report *r)
{
    struct export_state *st = calloc(1, sizeof(*st));
    size_t p, np = r->rep.chain.nrungs + r->rep.nsides;
    struct buf path = {0};
    char msg[4400];
    int rc;

    if (st == NULL)
        return figures__oom("export");
    if ((rc = rows_own(r, np)) != 0 ||
        (rc = out_check(o->out_dir, o->force)) != 0) {
        free(st);
        return rc;
    }
    export_names(o, r, st);
    if (rundir_path_buf(&path, r->run.dir, RD_LADDER_TSV, NULL) != 0 ||
        ladderfile_read(path.p, 1, &st->rows, &st->nrows, msg, sizeof msg) !=
            0)
        st->nrows = 0; /* no ladder.tsv: no file read, no imatrix */
    st->qt = pages_qtexts_new(&r->run, r->s.qs, grader_qset_count(r->s.qs));
    rc = st->qt == NULL ? -1 : 0;
    for (p = 0; rc == 0 && p < np && p < EXPORT_POINTS; p++)
        rc = render_point(r, st, p);
    if (rc != 0)
        rc = figures__oom("export");
    else /* which question file gave the inputs, or why none did */
        fprintf(stderr, "graveyard export: %s\n", pages_qtexts_note(st->qt));
    if (rc == 0 && (rc = make_dirs(o->out_dir, st->dir, &path)) == 0)
        rc = figures__write_all("export", path.p, st->outs, st->nouts);
    for (p = 0; p < st->nouts; p++)
        figures__out_free(&st->outs[p]);
    pages_qtexts_free(st->qt);
    free(st->rows);
    free(st);
    buf_release(&path);
    return rc;
}
