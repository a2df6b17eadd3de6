/*
 * figures_report.c - the report of one run folder (figures.h): its rows
 * read, handed to the grader (ladder.h), and the figures given to the
 * renderers (report/). Nothing here counts or divides. Every output is
 * rendered in memory first, so bad input leaves nothing behind; files are
 * written whole (outfile.c), and if one of the set cannot be written the
 * others written so far are removed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../report/doc.h"
#include "../../report/md_duel.h"
#include "../../report/page.h"
#include "../../grader/grader.h"
#include "../../report/render.h"
#include "../../rundir/differs.h"
#include "../../rundir/meta.h"
#include "../../rundir/rundir.h"
#include "../../rundir/run.h"
#include "../base/cli.h"
#include "figures.h"
#include "figures_int.h"
#include "pages.h"

static int is_dir(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Read the repeat runs: every rung of names that dir also has, twice. */
static int load_repeats(struct rungset *s, const char *rundir, const char *dir,
                        char *const *names, size_t n,
                        const struct grader_rung **a,
                        const struct grader_rung **b, size_t *nrep)
{
    struct buf path = {0};
    size_t i;
    int rc, have;

    for (i = 0; i < n; i++) {
        /* a rows path past the cap is a folder that cannot hold it */
        have = rundir_path_buf(&path, dir, RD_ROWS, names[i]) == 0 &&
               access(path.p, F_OK) == 0;
        buf_release(&path);
        if (!have)
            continue;
        if ((rc = rungset_load("report", s, rundir, (const char **)&names[i],
                               1, GRADER_READ_TEXT)) != 0 ||
            (rc = rungset_load("report", s, dir, (const char **)&names[i], 1,
                               GRADER_READ_TEXT)) != 0)
            return rc;
        a[*nrep] = s->r[s->n - 2];
        b[(*nrep)++] = s->r[s->n - 1];
    }
    return 0;
}

/* A picture the report draws only for some runs: when wanted, rendered
 * into outs[*k] (then *k + 1) and shown on the page as name; else the
 * page's entry for it stays empty. 0, or -1 out of memory. */
static int optional_svg(struct doc_svg *svg, const char *name, int wanted,
                        void (*render)(FILE *, const char *,
                                       const struct grader_ladder *),
                        const char *title, const struct grader_ladder *rep,
                        struct figures__out *outs, size_t *k)
{
    struct figures__out *o = &outs[*k];

    *svg = (struct doc_svg){name, NULL, 0};
    if (!wanted)
        return 0;
    if (figures__out_open(o, name) != 0 ||
        (render(o->f, title, rep), figures__out_close(o, 0)))
        return -1;
    *svg = (struct doc_svg){name, o->p, o->len};
    (*k)++;
    return 0;
}

/* The page's duels (page.h) from the grader's (rep->duels): each pair's
 * names, its verdict in graveyard duel's words and its counts. */
struct page_duels {
    struct page_duel *duels;
    char *words; /* the verdicts' and counts' text, 2 x PAGE_DUEL_WORDS
                    bytes a duel */
};

#define PAGE_DUEL_WORDS 256

/* 0, or -1 out of memory; nothing made when rep has no duels. */
static int page_duels(const struct grader_ladder *rep, struct page_duels *pd)
{
    if (rep->nduels == 0)
        return 0;
    if ((pd->duels = calloc(rep->nduels, sizeof(*pd->duels))) == NULL ||
        (pd->words = calloc(rep->nduels, 2 * PAGE_DUEL_WORDS)) == NULL)
        return -1;
    for (size_t i = 0; i < rep->nduels; i++) {
        const struct grader_duel_set *s = &rep->duels[i];
        char *v = pd->words + 2 * PAGE_DUEL_WORDS * i,
             *c = v + PAGE_DUEL_WORDS;

        render_duel_verdict(v, PAGE_DUEL_WORDS, s->a, s->b, &s->whole, 1);
        snprintf(c, PAGE_DUEL_WORDS,
                 "%s right only: %zu \xc2\xb7 %s right only: %zu", s->a,
                 s->whole.a_only, s->b, s->whole.b_only);
        pd->duels[i] = (struct page_duel){s->a, s->b, v, c};
    }
    return 0;
}

/* report's files rendered in memory: REPORT.md, report.json, cover.svg,
 * pareto.svg, for a run of long items lengths.svg and, when its needles
 * have depths, depth.svg, and (html) REPORT.html, which shows the first
 * and the pictures. *n: how many. 0, or -1 out of memory. */
int figures__report_outputs(const struct rundir_run *run,
                            const struct grader_ladder *rep,
                            const struct rungset *s, struct figures__out *outs,
                            int html, size_t *n)
{
    struct doc_svg svgs[3];
    struct page_doc doc;
    struct page_duels pd = {NULL, NULL};
    struct doc *d;
    uint8_t *marks;
    char title[400];
    int rc = -1;
    size_t k = 4;

    snprintf(title, sizeof(title), "graveyard: %s",
             run->name ? run->name : run->dir);
    if ((marks = malloc(run->nchain * rep->nq + 1)) == NULL)
        return -1;
    d = render_report_doc(run, rep, s->qs);
    grader_grid_marks(rep->cells, run->nchain, rep->nq, marks);
    if (figures__out_open(&outs[0], "REPORT.md") != 0 ||
        figures__out_open(&outs[1], "report.json") != 0 ||
        figures__out_open(&outs[2], "cover.svg") != 0 ||
        figures__out_open(&outs[3], "pareto.svg") != 0 ||
        figures__md_close(&outs[0], d) ||
        figures__out_close(&outs[1],
                           render_report_json(outs[1].f, run, rep, s->qs)) ||
        figures__out_close(
            &outs[2], render_cover_probs(outs[2].f, title,
                                         (const char *const *)run->chain,
                                         run->nchain, rep->nq, rep->cells,
                                         marks, rep->probs, rep->order)) ||
        (render_pareto(outs[3].f, title, rep),
         figures__out_close(&outs[3], 0)))
        goto done;
    svgs[0] = (struct doc_svg){"pareto.svg", outs[3].p, outs[3].len};
    /* a run of long items: its picture, and where its needles died */
    if (optional_svg(&svgs[1], "lengths.svg", rep->lengths != NULL,
                     render_lengths, title, rep, outs, &k) != 0 ||
        optional_svg(&svgs[2], "depth.svg", render_depth_has(rep),
                     render_depth, title, rep, outs, &k) != 0)
        goto done;
    /* the config's duels (ladder.json's pairs, their figures the
     * grader's in rep->duels): the page's duel view, the verdict in
     * graveyard duel's words; none and the page is as it was */
    if (page_duels(rep, &pd) != 0)
        goto done;
    doc = (struct page_doc){d, svgs, 3, pd.duels, rep->nduels};
    if (html && (figures__out_open(&outs[k], "REPORT.html") != 0 ||
                 figures__out_close(
                     &outs[k], pages_report(outs[k].f, run, rep, s->qs, s->r,
                                            s->r + run->nchain, &doc)) != 0))
        goto done;
    *n = k + (html != 0);
    rc = 0;
done:
    doc_free(d);
    free(marks);
    free(pd.duels);
    free(pd.words);
    return rc;
}

/*
 * The report's rule, and a task's other rules side by side: the chain and
 * side rungs read again, by each other rule, into s (the same question
 * set), and each rule's counts put beside the first's. 0, or the exit
 * status after one line on stderr.
 */
static int other_rules(struct rungset *s, const struct rundir_run *run,
                       struct grader_ladder *rep)
{
    const struct grader_rung *const *sets[GRADER_TASK_MAX_RULES];
    const char *names[GRADER_TASK_MAX_RULES], *keep = s->rule;
    const struct grader_task *task = rungset_task("report", s, run->dir);
    size_t k, n = 1, base;
    struct grader_error err;
    int rc = 0;

    if (task == NULL)
        return EXIT_USAGE;
    snprintf(rep->rule, sizeof(rep->rule), "%s",
             s->rule ? s->rule : grader_task_rule_name(task, 0));
    if (grader_task_nrules(task) < 2)
        return 0;
    sets[0] = s->r;
    names[0] = grader_task_rule_name(
        task, (size_t)grader_task_rule_index(task, rep->rule));
    for (k = 0; k < grader_task_nrules(task) && rc == 0; k++) {
        const char *name = grader_task_rule_name(task, k);
        if (strcmp(name, names[0]) == 0)
            continue;
        s->rule = name;
        base = s->n;
        if ((rc = rungset_load("report", s, run->dir,
                               (const char **)run->chain, run->nchain, 0)) ||
            (rc = rungset_load("report", s, run->dir, (const char **)run->side,
                               run->nside, 0)))
            break;
        sets[n] = s->r + base;
        names[n++] = name;
    }
    s->rule = keep;
    if (rc == 0 && grader_ladder_rules(rep, names, sets, n,
                                       run->nchain + run->nside, &err) != 0) {
        grade_report("report", &err);
        rc = EXIT_USAGE;
    }
    return rc;
}

/* What the folder says of each rung, chain then side rungs. */
static int read_metas(struct figures_report *r)
{
    const struct rundir_run *run = &r->run;
    char msg[1024];
    size_t i;

    r->metas = xrealloc(NULL, (run->nchain + run->nside) * sizeof(*r->metas));
    for (i = 0; i < run->nchain + run->nside; i++)
        if (rundir_meta_read(run->dir, r->s.r[i]->name, &r->metas[i], msg,
                             sizeof(msg)) != 0) {
            cli_error("report", "%s", msg);
            return EXIT_USAGE;
        } else
            figures__power("report", run->dir, r->s.r[i]->name, &r->metas[i]);
    return 0;
}

/* A ladder of settings: each speculative rung's answers against its
 * rung without the draft model (rundir_run_draft_base), through the
 * repeat's comparison, into r->spec. 0, or the exit status. */
static int speculative(struct figures_report *r)
{
    const struct rundir_run *run = &r->run;
    char *names[GRADER_MAX_RUNGS * 2];
    size_t n = run->nchain + run->nside, i, j;
    struct grader_error err;
    const char *base;

    for (i = 0; i < n; i++)
        names[i] =
            i < run->nchain ? run->chain[i] : run->side[i - run->nchain];
    for (i = 0; i < n; i++) {
        if (!rundir_run_draft_base(run, names[i], names, n, &base))
            continue;
        for (j = 0; j < n && strcmp(names[j], base) != 0; j++)
            ;
        if (grader_repeat(r->s.r[j], r->s.r[i], r->s.qs, GRADER_COMMON,
                          &r->spec[r->rep.nspec], &err) != 0) {
            grade_report("report", &err);
            return EXIT_USAGE;
        }
        r->rep.nspec++;
    }
    r->rep.spec = r->rep.nspec > 0 ? r->spec : NULL;
    return 0;
}

/* The rungs read, the repeat runs beside them; 0 or the exit status. */
static int report_load(const struct figures_report_opts *o,
                       struct figures_report *r)
{
    const struct rundir_run *run = &r->run;
    unsigned flags = o->html ? GRADER_READ_KEEP : 0;
    const char *repeat = o->repeat;
    int rc;

    /* a speculative rung is compared by its texts (speculative()) */
    r->settings =
        run->nchain > 0 && rundir_run_settings_ladder(run, run->chain[0]);
    if (r->settings)
        flags |= GRADER_READ_TEXT;

    if ((rc = check_names("report", (const char **)run->chain, run->nchain)) ||
        (rc = check_names("report", (const char **)run->side, run->nside)) ||
        (rc = rungset_load("report", &r->s, run->dir,
                           (const char **)run->chain, run->nchain, flags)) ||
        (rc = rungset_load("report", &r->s, run->dir, (const char **)run->side,
                           run->nside, flags)))
        return rc;
    if (repeat == NULL) {
        if (rundir_path_buf(&r->repeat_dir, run->dir, RD_REPEAT_DIR, NULL)) {
            cli_error("report", "path too long: '%.200s...'", run->dir);
            return EXIT_USAGE;
        }
        repeat = is_dir(r->repeat_dir.p) ? r->repeat_dir.p : NULL;
    } else if (!is_dir(repeat)) {
        cli_error("report", "%s: no such folder (--repeat)", repeat);
        return EXIT_USAGE;
    }
    r->repeat = repeat;
    if (repeat != NULL &&
        ((rc = load_repeats(&r->s, run->dir, repeat, run->chain, run->nchain,
                            r->ra, r->rb, &r->nrep)) != 0 ||
         (rc = load_repeats(&r->s, run->dir, repeat, run->side, run->nside,
                            r->ra, r->rb, &r->nrep)) != 0))
        return rc;
    return 0;
}

/* A run of long items (its rows carry lengths): each chain rung at each
 * length against the reference at the same length (grader/lengths.h),
 * at the report's margin. 0, or the exit status after one line. */
static int long_axis(const struct figures_report_opts *o,
                     struct figures_report *r)
{
    struct grader_error err;

    if (!grader_qset_has_lengths(r->s.qs) || r->run.nchain < 2)
        return 0;
    if ((r->lengths = calloc(1, sizeof(*r->lengths))) == NULL)
        return figures__oom("report");
    if (grader_lengths_build(r->s.qs, r->metas, r->s.r, r->run.nchain,
                             r->rep.margin, o->partial ? GRADER_PARTIAL : 0,
                             r->lengths, &err) != 0) {
        free(r->lengths);
        r->lengths = NULL;
        grade_report("report", &err);
        return EXIT_USAGE;
    }
    r->rep.lengths = r->lengths;
    return 0;
}

int figures_report(const struct figures_report_opts *o,
                   struct figures_report *r)
{
    const struct rundir_run *run = &r->run;
    struct grader_error err;
    int rc;

    memset(r, 0, sizeof(*r));
    r->s.rule = o->rule;
    if ((rc = figures__open_run("report", &r->run, o->rundir, o->rungs,
                                o->side, NULL)) != 0)
        return rc;
    r->have_run = 1;
    if ((rc = report_load(o, r)) != 0 || (rc = read_metas(r)) != 0)
        return rc;
    if (grader_ladder_build(r->s.qs, r->metas, r->s.r, run->nchain,
                            r->s.r + run->nchain, run->nside, r->ra, r->rb,
                            r->nrep, o->partial ? GRADER_PARTIAL : 0, &r->rep,
                            &err) != 0) {
        grade_report("report", &err);
        return EXIT_USAGE;
    }
    r->have_rep = 1;
    /* --margin, else the margin the ladder recorded, else the default */
    grader_ladder_verdicts(&r->rep, o->margin > 0 ? o->margin : run->margin);
    if ((r->settings && (rc = speculative(r)) != 0) ||
        (rc = other_rules(&r->s, run, &r->rep)) != 0 ||
        (rc = figures__probs("report", run, &r->s, r->repeat, &r->probs,
                             &r->have_probs)) != 0)
        return rc;
    r->rep.probs = r->have_probs ? &r->probs : NULL;
    if (figures__recipes(&r->run, &r->rep) != 0)
        return figures__oom("report");
    if ((rc = figures__report_duels(r)) != 0)
        return rc;
    return long_axis(o, r);
}

int figures_report_write(const struct figures_report_opts *o,
                         const struct figures_report *r)
{
    struct figures__out outs[FIGURES_REPORT_OUTS] = {{0}};
    size_t n = 0;
    int rc;

    rc = figures__report_outputs(&r->run, &r->rep, &r->s, outs, o->html, &n);
    if (rc != 0) {
        rc = figures__oom("report");
    } else if (render_decision_lines(stdout, &r->rep) != 0 ||
               fflush(stdout) != 0) { /* the answer first, then the files */
        cli_error("report", "cannot write to standard output");
        rc = EXIT_FAILED;
    } else {
        rc = figures__write_all("report", o->out_dir ? o->out_dir : r->run.dir,
                                outs, n);
    }
    for (size_t i = 0; i < FIGURES_REPORT_OUTS; i++)
        figures__out_free(&outs[i]);
    return rc;
}

void figures_report_release(struct figures_report *r)
{
    if (r->have_rep)
        grader_ladder_release(&r->rep);
    if (r->have_probs)
        grader_probs_ladder_free(&r->probs);
    if (r->lengths != NULL) {
        grader_lengths_release(r->lengths);
        free(r->lengths);
    }
    for (size_t i = 0; i < r->nduels; i++)
        grader_duel_set_release(&r->duels[i]);
    free(r->duels);
    free(r->metas);
    buf_release(&r->repeat_dir);
    rungset_release(&r->s);
    if (r->have_run)
        rundir_run_close(&r->run);
    memset(r, 0, sizeof(*r));
}
