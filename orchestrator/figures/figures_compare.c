/*
 * figures_compare.c - runs compared question by question (figures.h):
 * one ladder on several GPUs or machines (compare), and thinking off
 * against on (think). Each run folder's rows are read, handed to the
 * grader (compare.h, think.h), and the figures given to the renderers
 * (report/); every output is rendered whole before any is written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../report/doc.h"
#include "../../grader/grader.h"
#include "../../report/render.h"
#include "../../rundir/meta.h"
#include "../../rundir/run.h"
#include "../base/cli.h"
#include "figures.h"
#include "figures_int.h"
#include "pages.h"

/* names[0..n) as "A,B,C" (run.h's --rungs form) into out: names are at
 * most 64 bytes and n at most GRADER_MAX_RUNGS (run.c checks both). */
static void join_names(char *const *names, size_t n, char *out, size_t size)
{
    size_t i, len = 0;

    out[0] = '\0';
    for (i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(out + len, size - len, "%s%s", i ? "," : "",
                                names[i]);
}

/* The label of run k: from --labels, else the folder's name, else (two
 * folders of one name) its path. */
static int labels(const char *list, const char **dirs, size_t n, char **out)
{
    size_t k, j;

    for (k = 0; k < n; k++)
        out[k] = NULL;
    if (list != NULL) {
        const char *p = list;
        for (k = 0; k < n; k++) {
            size_t len = strcspn(p, ",");
            if (len == 0 || len >= 100)
                return -1;
            out[k] = strndup(p, len);
            p += len;
            if (*p == ',')
                p++;
            else if (k + 1 < n)
                return -1;
        }
        return *p == '\0' ? 0 : -1;
    }
    for (k = 0; k < n; k++) {
        const char *b = strrchr(dirs[k], '/');
        int clash = 0;
        b = b && b[1] ? b + 1 : dirs[k];
        for (j = 0; j < n; j++) {
            const char *c = strrchr(dirs[j], '/');
            c = c && c[1] ? c + 1 : dirs[j];
            clash |= j != k && strcmp(b, c) == 0;
        }
        out[k] = xstrdup(clash ? dirs[k] : b);
    }
    return 0;
}

/* The study holds the build fixed too: say so loudly when it was not. */
static void builds_check(const char *cmd, const struct rundir_run *runs,
                         size_t nruns, char *note, size_t size)
{
    const char *a = rundir_run_server(&runs[0]), *b;
    size_t k, len;

    for (k = 1; k < nruns && a != NULL; k++) {
        b = rundir_run_server(&runs[k]);
        if (b == NULL || strcmp(a, b) == 0)
            continue;
        fprintf(stderr,
                "graveyard %s: WARNING: %s and %s were run with different "
                "server builds ('%s' against '%s'): differences may come "
                "from the build\n",
                cmd, runs[0].dir, runs[k].dir, a, b);
        len = strlen(note);
        snprintf(note + len, size - len,
                 " The runs did NOT use the same server build: differences "
                 "may come from the build.");
        return;
    }
}

/* Without --labels: the runs' GPUs (nvidia-smi's names from the
 * reference's .done) when each run has one and no two share it, as the
 * study's tables are headed "T4 | L4"; otherwise the folder names stay. */
static void gpu_labels(struct rundir_run *runs, size_t nruns,
                       const struct grader_meta *metas, size_t nrungs)
{
    size_t k, j;

    for (k = 0; k < nruns; k++) {
        const char *g = metas[k * nrungs].gpu_name;
        if (g[0] == '\0')
            return;
        for (j = 0; j < k; j++)
            if (strcmp(g, metas[j * nrungs].gpu_name) == 0)
                return;
    }
    for (k = 0; k < nruns; k++)
        snprintf(runs[k].label, sizeof(runs[k].label), "%s",
                 metas[k * nrungs].gpu_name);
}

/* The ladder.tsv check: one sentence, and loud lines on stderr. */
static int files_check(const char *cmd, const struct grader_meta *m,
                       size_t nruns, size_t nrungs,
                       const struct rundir_run *runs, char *const *names,
                       char *note, size_t size)
{
    size_t i, k, unknown = 0, differ = 0;

    for (i = 0; i < nrungs; i++)
        for (k = 0; k < nruns; k++) {
            const struct grader_meta *a = &m[i], *b = &m[k * nrungs + i];
            if (b->sha256[0] == '\0') {
                unknown++;
                continue;
            }
            if (k > 0 && a->sha256[0] != '\0' &&
                strcmp(a->sha256, b->sha256) != 0) {
                differ++;
                fprintf(stderr,
                        "graveyard %s: WARNING: rung %s is not the same file "
                        "in %s and %s (sha256 %.12s... against %.12s...): "
                        "differences in its answers may come from the "
                        "file\n",
                        cmd, names[i], runs[0].dir, runs[k].dir, a->sha256,
                        b->sha256);
            }
        }
    if (differ > 0) {
        snprintf(note, size,
                 "The runs did NOT use the same files: %zu rung file(s) "
                 "differ in sha256 from the first run's (ladder.tsv). "
                 "Differences at those rungs may come from the files, not "
                 "the GPUs.",
                 differ);
        return 0;
    }
    if (unknown > 0) {
        fprintf(stderr,
                "graveyard %s: WARNING: %zu rung file(s) have no "
                "sha256 in their folder's ladder.tsv: cannot check that the "
                "runs used the same files\n",
                cmd, unknown);
        snprintf(note, size,
                 "Could not check that the runs used the same files: %zu "
                 "rung file(s) have no sha256 in ladder.tsv.",
                 unknown);
        return 0;
    }
    snprintf(note, size,
             "The runs used the same files: every rung's sha256 matches "
             "across the %zu runs' ladder.tsv.",
             nruns);
    return 1;
}

/* compare: open each run folder (every run takes the first run's
 * rungs), read their rows into one question set and their metadata. 0 or
 * the exit status; what was opened is the caller's to close. */
static int compare_open(const char **pos, size_t npos, const char *rungs,
                        char **label, struct rundir_run *runs, size_t *nruns,
                        struct rungset *s, struct grader_meta **metas,
                        unsigned flags)
{
    char note[800];
    size_t k, i, nrungs;
    int rc;

    for (k = 0; k < npos; k++) {
        char list[GRADER_MAX_RUNGS * 66] = "";
        if (k > 0)
            join_names(runs[0].chain, runs[0].nchain, list, sizeof(list));
        if ((rc = figures__open_run("compare", &runs[k], pos[k],
                                    k ? list : rungs, "", label[k])) != 0)
            return rc;
        (*nruns)++;
    }
    nrungs = runs[0].nchain;
    if ((rc = check_names("compare", (const char **)runs[0].chain, nrungs)))
        return rc;
    for (k = 0; k < *nruns; k++)
        if ((rc = rungset_load("compare", s, runs[k].dir,
                               (const char **)runs[k].chain, nrungs, flags)))
            return rc;
    *metas = calloc(*nruns * nrungs, sizeof(**metas));
    if (*metas == NULL)
        return figures__oom("compare");
    for (k = 0; k < *nruns; k++)
        for (i = 0; i < nrungs; i++)
            if (rundir_meta_read(runs[k].dir, runs[0].chain[i],
                                 &(*metas)[k * nrungs + i], note,
                                 sizeof(note)) != 0) {
                cli_error("compare", "%s", note);
                return EXIT_USAGE;
            }
    return 0;
}

/* compare_files' work, from the comparison's doc (NULL: out of memory). */
static int compare_pieces(const struct render_compare *rc_,
                          const struct grader_compare *c,
                          const struct rungset *s, struct figures__out *outs,
                          uint8_t **marks, const struct doc *d, int html)
{
    struct page_doc doc = {d, NULL, 0, NULL, 0};

    if (figures__out_open(&outs[0], "COMPARE.md") != 0 ||
        figures__out_open(&outs[1], "compare.json") != 0 ||
        figures__out_open(&outs[2], "compare.svg") != 0 ||
        figures__md_close(&outs[0], d) ||
        figures__out_close(&outs[1], render_compare_json(outs[1].f, rc_)))
        return -1;
    *marks = xrealloc(NULL, c->nrungs * c->nq + 1);
    grader_grid_marks(c->cells, c->nrungs, c->nq, *marks);
    render_cover(outs[2].f, "graveyard compare: the runs overlaid", rc_->names,
                 c->nrungs, c->nruns, c->nq, c->cells, *marks);
    if (figures__out_close(&outs[2], 0) != 0)
        return -1;
    if (html && (figures__out_open(&outs[3], "COMPARE.html") != 0 ||
                 figures__out_close(&outs[3], pages_compare(outs[3].f, rc_,
                                                            s->r, &doc)) != 0))
        return -1;
    return 0;
}

/* compare --out: COMPARE.md, compare.json and compare.svg rendered in
 * memory (written by the caller once all three are whole). 0, or -1 out
 * of memory. */
static int compare_files(const struct render_compare *rc_,
                         const struct grader_compare *c,
                         const struct rungset *s, struct figures__out *outs,
                         uint8_t **marks, int html)
{
    struct doc *d = render_compare_doc(rc_);
    int rc = compare_pieces(rc_, c, s, outs, marks, d, html);

    doc_free(d);
    return rc;
}

/* compare's lines on stdout, and with --out its three files, each
 * rendered whole before anything is written. The exit status. */
static int compare_write(const struct render_compare *rc_,
                         const struct grader_compare *c,
                         const struct rungset *s, const char *out_dir,
                         int html)
{
    struct figures__out outs[4] = {{0}, {0}, {0}, {0}}, lines = {0};
    uint8_t *marks = NULL;
    int rc;

    if (figures__out_open(&lines, "-") != 0 ||
        figures__out_close(&lines, render_compare_lines(lines.f, rc_)) != 0 ||
        (out_dir != NULL && compare_files(rc_, c, s, outs, &marks, html) != 0))
        rc = figures__oom("compare");
    else if ((rc = figures__write_stdout("compare", lines.p, lines.len)) ==
             EXIT_OK)
        rc = out_dir
                 ? figures__write_all("compare", out_dir, outs, html ? 4 : 3)
                 : EXIT_OK;
    free(marks);
    for (size_t i = 0; i < 4; i++)
        figures__out_free(&outs[i]);
    figures__out_free(&lines);
    return rc;
}

/* The passes must be what they are called: the manifests say how the
 * rows were made (-1 when a folder has none). 0 or EXIT_USAGE. */
static int think_order(const struct rundir_run *off,
                       const struct rundir_run *on)
{
    const struct rundir_run *bad;

    if (rundir_run_thinking(on) != 0 && rundir_run_thinking(off) != 1)
        return 0;
    bad = rundir_run_thinking(on) == 0 ? on : off;
    cli_error("think",
              "%s/manifest.json: its rows were made with thinking %s "
              "(request.enable_thinking), but it is given as the "
              "thinking-%s pass; the order is OFF_DIR ON_DIR",
              bad->dir, bad == on ? "off" : "on", bad == on ? "on" : "off");
    return EXIT_USAGE;
}

/* think's lines on stdout, and with --out THINK.md and think.json, each
 * rendered whole before anything is written. The exit status. */
static int think_write(const struct render_think *t, const struct rungset *s,
                       const char *out_dir, int html)
{
    struct figures__out outs[3] = {{0}, {0}, {0}}, lines = {0};
    struct page_doc doc = {NULL, NULL, 0, NULL, 0};
    int rc;

    if (figures__out_open(&lines, "-") != 0 ||
        figures__out_close(&lines, render_think_lines(lines.f, t)) != 0 ||
        (out_dir != NULL &&
         (figures__out_open(&outs[0], "THINK.md") != 0 ||
          figures__out_open(&outs[1], "think.json") != 0 ||
          (doc.doc = render_think_doc(t),
           figures__md_close(&outs[0], doc.doc)) != 0 ||
          figures__out_close(&outs[1], render_think_json(outs[1].f, t)) != 0 ||
          (html && (figures__out_open(&outs[2], "THINK.html") != 0 ||
                    figures__out_close(
                        &outs[2], pages_think(outs[2].f, t, s->qs, s->r,
                                              s->r + t->n, &doc)) != 0)))))
        rc = figures__oom("think");
    else if ((rc = figures__write_stdout("think", lines.p, lines.len)) ==
             EXIT_OK)
        rc = out_dir ? figures__write_all("think", out_dir, outs, html ? 3 : 2)
                     : EXIT_OK;
    for (size_t i = 0; i < 3; i++)
        figures__out_free(&outs[i]);
    figures__out_free(&lines);
    doc_free((struct doc *)doc.doc);
    return rc;
}

int figures_compare(const struct figures_compare_opts *o,
                    struct figures_compare *r)
{
    struct render_compare *v = &r->view;
    struct grader_error err;
    size_t nrungs;
    int rc;

    memset(r, 0, sizeof(*r));
    r->s.rule = o->rule;
    r->nlabels = o->ndirs;
    if (labels(o->labels, (const char **)o->dirs, o->ndirs, r->label) != 0) {
        cli_error("compare", "--labels needs one name per run folder, "
                             "comma-separated");
        return EXIT_USAGE;
    }
    if ((rc = compare_open((const char **)o->dirs, o->ndirs, o->rungs,
                           r->label, r->runs, &r->nruns, &r->s, &r->metas,
                           o->out_dir && o->html ? GRADER_READ_KEEP : 0)))
        return rc;
    nrungs = r->runs[0].nchain;
    if (grader_compare(r->s.qs, r->s.r, r->nruns, nrungs, 0, &r->c, &err)) {
        grade_report("compare", &err);
        return EXIT_USAGE;
    }
    r->have_c = 1;
    /* --margin, else the first run's ladder's, else the default */
    grader_compare_verdicts(&r->c,
                            o->margin > 0 ? o->margin : r->runs[0].margin);
    v->runs = r->runs;
    v->names = (const char *const *)r->runs[0].chain;
    if (o->labels == NULL)
        gpu_labels(r->runs, r->nruns, r->metas, nrungs);
    v->c = &r->c;
    v->metas = r->metas;
    v->qs = r->s.qs;
    v->files_same = files_check("compare", r->metas, r->nruns, nrungs, r->runs,
                                r->runs[0].chain, r->note, sizeof(r->note));
    builds_check("compare", r->runs, r->nruns, r->note, sizeof(r->note));
    v->files_note = r->note;
    return 0;
}

int figures_compare_write(const struct figures_compare_opts *o,
                          const struct figures_compare *r)
{
    return compare_write(&r->view, &r->c, &r->s, o->out_dir, o->html);
}

void figures_compare_release(struct figures_compare *r)
{
    size_t k;

    if (r->have_c)
        grader_compare_release(&r->c);
    free(r->metas);
    rungset_release(&r->s);
    for (k = 0; k < r->nlabels; k++)
        free(r->label[k]);
    for (k = 0; k < r->nruns; k++)
        rundir_run_close(&r->runs[k]);
    memset(r, 0, sizeof(*r));
}

/* The rows of both passes, and what their folders say of each rung. */
static int think_load(const struct figures_think_opts *o,
                      struct figures_think *r, size_t n)
{
    unsigned flags = o->out_dir && o->html ? GRADER_READ_KEEP : 0;
    int rc;

    if ((rc = check_names("think", (const char **)r->on.chain, n)) ||
        (rc = rungset_load("think", &r->s, r->off.dir,
                           (const char **)r->on.chain, n, flags)) ||
        (rc = rungset_load("think", &r->s, r->on.dir,
                           (const char **)r->on.chain, n, flags)))
        return rc;
    if ((r->lines = calloc(n, sizeof(*r->lines))) == NULL)
        return figures__oom("think");
    return 0;
}

/* The two passes must differ in thinking only: same files, same build. */
static int think_metas(struct figures_think *r, size_t n)
{
    struct rundir_run both[2]; /* shallow copies of off and on */
    size_t i;

    if ((r->metas = calloc(2 * n, sizeof(*r->metas))) == NULL)
        return figures__oom("think");
    for (i = 0; i < 2 * n; i++)
        if (rundir_meta_read(i < n ? r->off.dir : r->on.dir,
                             r->on.chain[i % n], &r->metas[i], r->note,
                             sizeof(r->note)) != 0) {
            cli_error("think", "%s", r->note);
            return EXIT_USAGE;
        }
    both[0] = r->off;
    both[1] = r->on;
    r->view.files_same = files_check("think", r->metas, 2, n, both,
                                     r->on.chain, r->note, sizeof(r->note));
    builds_check("think", both, 2, r->note, sizeof(r->note));
    return 0;
}

int figures_think(const struct figures_think_opts *o, struct figures_think *r)
{
    char list[GRADER_MAX_RUNGS * 66];
    struct grader_error err;
    size_t n;
    int rc;

    memset(r, 0, sizeof(*r));
    r->s.rule = o->rule;
    if ((rc = figures__open_run("think", &r->on, o->on_dir, o->rungs, "",
                                NULL)) != 0)
        return rc;
    r->have_on = 1;
    join_names(r->on.chain, r->on.nchain, list, sizeof(list));
    if ((rc = figures__open_run("think", &r->off, o->off_dir, list, "",
                                NULL)) != 0)
        return rc;
    r->have_off = 1;
    if ((rc = think_order(&r->off, &r->on)) != 0)
        return rc;
    n = r->on.nchain;
    if ((rc = think_load(o, r, n)) != 0)
        return rc;
    if (grader_think(r->s.qs, r->s.r, r->s.r + n, n, r->lines, &err) != 0) {
        grade_report("think", &err);
        return EXIT_USAGE;
    }
    if ((rc = think_metas(r, n)) != 0)
        return rc;
    r->view.note = r->note;
    r->view.off = &r->off;
    r->view.on = &r->on;
    r->view.lines = r->lines;
    r->view.n = n;
    return 0;
}

int figures_think_write(const struct figures_think_opts *o,
                        const struct figures_think *r)
{
    return think_write(&r->view, &r->s, o->out_dir, o->html);
}

void figures_think_release(struct figures_think *r)
{
    free(r->lines);
    free(r->metas);
    rungset_release(&r->s);
    if (r->have_off)
        rundir_run_close(&r->off);
    if (r->have_on)
        rundir_run_close(&r->on);
    memset(r, 0, sizeof(*r));
}
