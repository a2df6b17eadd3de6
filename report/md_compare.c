/*
 * md_compare.c - COMPARE.md (runs of one ladder on several GPUs) and
 * THINK.md (thinking off against on): the study's tables, read from the
 * grader's figures, as docs (doc.h).
 */
#include "doc.h"
#include "fmt.h"
#include "md_verdict.h"
#include "render.h"

/* A run's label, from nvidia-smi or the command line: outside text. */
static void label(struct doc *d, const struct render_compare *rc, size_t k)
{
    doc_text(d, rc->runs[k].label, 1024);
}

/* A table of a column per run: "| Rung | T4 | L4 |", figures right. */
static void head(struct doc *d, const struct render_compare *rc,
                 const char *first)
{
    char align[GRADER_MAX_RUNS + 2];
    size_t k;

    align[0] = 'l';
    for (k = 0; k < rc->c->nruns; k++)
        align[k + 1] = 'r';
    align[k + 1] = '\0';
    doc_table(d, align);
    doc_row(d);
    doc_cellf(d, "%s", first);
    for (k = 0; k < rc->c->nruns; k++) {
        doc_cell(d);
        label(d, rc, k);
    }
}

/* A row's first cell, the rung it is about (the page links it). */
static void rung_cell(struct doc *d, const char *name)
{
    doc_row(d);
    doc_cell(d);
    doc_rung(d, name, 0);
}

/* The runs: folder, GPU, build. */
static void runs_table(struct doc *d, const struct render_compare *rc)
{
    const struct grader_compare *c = rc->c;
    size_t k;

    doc_table(d, "llll");
    doc_row(d);
    doc_cellf(d, "Run");
    doc_cellf(d, "Folder");
    doc_cellf(d, "GPU");
    doc_cellf(d, "Server build");
    for (k = 0; k < c->nruns; k++) {
        const char *g = rc->metas[k * c->nrungs].gpu_name,
                   *build = rundir_run_server(&rc->runs[k]);
        doc_row(d);
        doc_cell(d);
        label(d, rc, k);
        doc_cell(d);
        doc_code(d, rc->runs[k].dir, 4096);
        doc_cell(d);
        doc_text(d, g[0] ? g : "not recorded", 1024);
        doc_cell(d);
        if (build != NULL)
            doc_code(d, build, 1024);
        else
            doc_raw(d, "not recorded");
    }
}

/* The title, the runs, the files note and the picture. */
static void md_intro(struct doc *d, const struct render_compare *rc)
{
    doc_heading(d, 1);
    doc_raw(d, "graveyard compare: %zu runs of one ladder", rc->c->nruns);
    doc_para(d);
    doc_raw(d, "Every count below is computed by ");
    doc_tick(d, "graveyard compare");
    doc_raw(d,
            " from the rows of each run folder; each run is buried against "
            "its own %s.",
            rc->names[0]);
    runs_table(d, rc);
    doc_para(d);
    if (!rc->files_same) {
        doc_bold(d, "WARNING:");
        doc_raw(d, " ");
    }
    doc_raw(d, "%s", rc->files_note);
    doc_image(d,
              "One row per rung, one cell per question: marigold right on "
              "every run, grey wrong on every run, violet where the runs "
              "disagree",
              "compare.svg", 0);
}

/* Right answers and lost answers, rung by run. */
static void md_counts(struct doc *d, const struct render_compare *rc)
{
    const struct grader_compare *c = rc->c;
    const char *ref = rc->names[0];
    size_t i, k;

    doc_heading(d, 2);
    doc_raw(d, "Right answers, out of %zu", c->nq);
    head(d, rc, "Rung");
    for (i = 0; i < c->nrungs; i++) {
        rung_cell(d, rc->names[i]);
        for (k = 0; k < c->nruns; k++)
            doc_cellf(d, "%zu", c->rungs[i].right[k]);
    }
    doc_heading(d, 2);
    doc_raw(d, "Lost, against each run's own %s", ref);
    head(d, rc, "Rung");
    for (i = 1; i < c->nrungs; i++) {
        rung_cell(d, rc->names[i]);
        for (k = 0; k < c->nruns; k++)
            doc_cellf(d, "%zu", c->rungs[i].dead[k]);
    }
    doc_para(d);
    doc_raw(d, "Lost: right at %s, wrong at this rung, on the same run.", ref);
}

/* The pairs' table, with two runs or more. */
static void pairs_table(struct doc *d, const struct render_compare *rc)
{
    const struct grader_compare *c = rc->c;
    size_t i;

    if (c->nruns == 2) {
        doc_table(d, "lrrrr");
        doc_row(d);
        doc_cellf(d, "Rung");
        doc_cellf(d, "Graded differently");
        doc_cellf(d, "Lost on both");
        doc_cellf(d, "Right on both");
        doc_cellf(d, "Wrong on both");
    } else {
        doc_table(d, "lrrrrr");
        doc_row(d);
        doc_cellf(d, "Rung");
        doc_cellf(d, "Graded differently, closest pair");
        doc_cellf(d, "furthest pair");
        doc_cellf(d, "Lost on all %zu", c->nruns);
        doc_cellf(d, "Right on all");
        doc_cellf(d, "Wrong on all");
    }
    for (i = 0; i < c->nrungs; i++) {
        const struct grader_compare_rung *r = &c->rungs[i];
        rung_cell(d, rc->names[i]);
        if (c->nruns == 2) {
            doc_cellf(d, "%zu", r->differ[0][1]);
        } else {
            doc_cellf(d, "%zu (", r->differ[r->closest[0]][r->closest[1]]);
            label(d, rc, r->closest[0]);
            doc_raw(d, ", ");
            label(d, rc, r->closest[1]);
            doc_raw(d, ")");
            doc_cellf(d, "%zu (", r->differ[r->furthest[0]][r->furthest[1]]);
            label(d, rc, r->furthest[0]);
            doc_raw(d, ", ");
            label(d, rc, r->furthest[1]);
            doc_raw(d, ")");
        }
        if (i == 0)
            doc_cellf(d, "%s", FMT_DASH);
        else
            doc_cellf(d, "%zu", r->lost_all);
        doc_cellf(d, "%zu", r->all_right);
        doc_cellf(d, "%zu", r->all_wrong);
    }
    doc_para(d);
    doc_raw(d, "Graded differently: right on one run and wrong on the "
               "other, at that rung; compare.json has every pair.");
}

/* Question by question: graded differently, lost on all, and the
 * questions that die on one run only. */
static void md_pairs(struct doc *d, const struct render_compare *rc)
{
    const struct grader_compare *c = rc->c;
    size_t j;

    doc_heading(d, 2);
    doc_raw(d, "Question by question");
    if (c->nruns > 1)
        pairs_table(d, rc);
    doc_para(d);
    doc_raw(d,
            "%zu questions die at some rung on at least one run; %zu die on "
            "every run, and %zu of those die first at the same rung "
            "everywhere.",
            c->died_some, c->died_every, c->died_every_same);
    if (c->nlonely == 0)
        return;
    doc_para(d);
    doc_raw(d, "Questions that die on one run only:");
    doc_list(d);
    for (j = 0; j < c->nlonely; j++) {
        doc_item(d);
        doc_text(d, grader_qset_id(rc->qs, c->lonely[j].q), 2048);
        doc_raw(d, ": ");
        doc_text(d, rc->runs[c->lonely[j].run].label, 1024);
        doc_raw(d, ", first at %s", rc->names[c->lonely[j].died_at]);
    }
}

/* Median decode speed per run, and \xc3\x97 the reference within
 * each run. */
static void md_speed(struct doc *d, const struct render_compare *rc)
{
    const struct grader_compare *c = rc->c;
    const char *ref = rc->names[0];
    char a[FMT_SIZE], align[2 * GRADER_MAX_RUNS + 2];
    size_t i, k;

    doc_heading(d, 2);
    doc_raw(d, "Speed on each run");
    doc_para(d);
    doc_raw(d,
            "Median decode tokens per second. Each column is one run, on "
            "one card: read down a column. The \xc3\x97 %s figures compare "
            "rungs within a run.",
            ref);
    align[0] = 'l';
    for (k = 0; k < 2 * c->nruns; k++)
        align[k + 1] = 'r';
    align[k + 1] = '\0';
    doc_table(d, align);
    doc_row(d);
    doc_cellf(d, "Rung");
    for (k = 0; k < c->nruns; k++) {
        doc_cell(d);
        label(d, rc, k);
        doc_cellf(d, "\xc3\x97 %s", ref);
    }
    for (i = 0; i < c->nrungs; i++) {
        rung_cell(d, rc->names[i]);
        for (k = 0; k < c->nruns; k++) {
            struct grader_figures x;
            grader_figures_of(&c->bury[k], i, &rc->metas[k * c->nrungs + i],
                              &rc->metas[k * c->nrungs], &x);
            doc_cellf(d, "%s", fmt_fixed(a, x.line->sum.median_tps, 1));
            doc_cellf(d, "%s", fmt_fixed(a, x.speed_x, 2));
        }
    }
}

/* Each run's dead + ghosts against the reference's run-to-run noise. */
static void md_floor(struct doc *d, const struct render_compare *rc)
{
    const struct grader_compare *c = rc->c;
    const char *ref = rc->names[0];
    size_t i, k;

    if (c->floor < 0)
        return;
    doc_heading(d, 2);
    doc_raw(d, "Above the noise?");
    doc_para(d);
    doc_raw(d, "Noise floor: %s is graded differently on %ld question%s by ",
            ref, c->floor, c->floor == 1 ? "" : "s");
    label(d, rc, c->floor_pair[0]);
    doc_raw(d, " and ");
    label(d, rc, c->floor_pair[1]);
    doc_raw(d, ", the furthest pair of runs: that much the reference "
               "moves between runs on its own. A rung whose dead + ghosts on "
               "a run is at most that moved no more than the reference "
               "does.");
    head(d, rc, "Rung: dead + ghosts");
    for (i = 1; i < c->nrungs; i++) {
        rung_cell(d, rc->names[i]);
        for (k = 0; k < c->nruns; k++)
            doc_cellf(d, "%zu + %zu = %zu, %s", c->rungs[i].dead[k],
                      c->rungs[i].ghosts[k],
                      c->rungs[i].dead[k] + c->rungs[i].ghosts[k],
                      c->rungs[i].above_floor[k] ? "above" : "within");
    }
}

/* Each run's verdict at the margin, against its own reference, and
 * whether it holds on every run (grader_compare_verdicts). */
static void md_verdicts(struct doc *d, const struct render_compare *rc)
{
    const struct grader_compare *c = rc->c;
    char align[GRADER_MAX_RUNS + 3], w[FMT_SIZE], m[FMT_SIZE], u[FMT_SIZE];
    double used = c->floor_points > c->margin ? c->floor_points : c->margin;
    size_t i, k;

    if (c->nrungs < 2)
        return;
    fmt_margin(m, c->margin);
    fmt_margin(u, used);
    doc_heading(d, 2);
    doc_raw(d, "Can it stand in? Verdicts at \xc2\xb1%s points", u);
    doc_para(d);
    doc_raw(d,
            "Each run's rung against that run's own %s: equivalent when the "
            "change's paired 90 %% interval lies inside \xc2\xb1%s points, "
            "worse or better when its 95 %% interval lies below or above "
            "zero, otherwise cannot tell (docs/grading.md, \"Verdicts\"). "
            "The last column says whether every run gives the same "
            "verdict.",
            rc->names[0], u);
    if (used > c->margin)
        doc_raw(d,
                " The margin asked was \xc2\xb1%s; the reference moves %s "
                "points between runs on its own (the noise floor above), "
                "so the verdicts use \xc2\xb1%s.",
                m, u, u);
    align[0] = 'l';
    for (k = 0; k < c->nruns; k++)
        align[k + 1] = 'l';
    align[k + 1] = 'l';
    align[k + 2] = '\0';
    doc_table(d, align);
    doc_row(d);
    doc_cellf(d, "Rung");
    for (k = 0; k < c->nruns; k++) {
        doc_cell(d);
        label(d, rc, k);
    }
    doc_cellf(d, "On every run");
    for (i = 1; i < c->nrungs; i++) {
        rung_cell(d, rc->names[i]);
        for (k = 0; k < c->nruns; k++)
            doc_cellf(d, "%s",
                      render_verdict_words(w, &c->rungs[i].verdict[k]));
        doc_cellf(d, "%s", c->rungs[i].verdict_holds ? "holds" : "differs");
    }
}

/* A doc built, or NULL (and freed) when out of memory. */
static struct doc *done(struct doc *d)
{
    if (doc_ok(d))
        return d;
    doc_free(d);
    return NULL;
}

struct doc *render_compare_doc(const struct render_compare *rc)
{
    struct doc *d = doc_new();

    if (d == NULL)
        return NULL;
    md_intro(d, rc);
    md_counts(d, rc);
    md_floor(d, rc);
    md_verdicts(d, rc);
    md_pairs(d, rc);
    md_speed(d, rc);
    return done(d);
}

/* The title, the two folders, the note and the token caps. */
static void think_intro(struct doc *d, const struct render_think *t)
{
    long a_cap = rundir_run_max_tokens(t->off),
         b_cap = rundir_run_max_tokens(t->on);
    char x[FMT_SIZE], y[FMT_SIZE];

    doc_heading(d, 1);
    doc_raw(d, "graveyard think: thinking off against thinking on");
    doc_para(d);
    doc_raw(d, "Thinking off: ");
    doc_tick(d, "%s", t->off->dir);
    doc_raw(d, ". Thinking on: ");
    doc_tick(d, "%s", t->on->dir);
    doc_raw(d,
            ". Each pass is buried against its own %s; every count is "
            "computed by ",
            t->lines[0].off->name);
    doc_tick(d, "graveyard think");
    doc_raw(d, " from the rows.");
    doc_para(d);
    if (!t->files_same) {
        doc_bold(d, "WARNING:");
        doc_raw(d, " ");
    }
    doc_raw(d, "%s", t->note);
    doc_para(d);
    doc_raw(d, "Token cap: %s with thinking off, %s with thinking on%s",
            a_cap >= 0 ? fmt_count(x, a_cap) : "not recorded",
            b_cap >= 0 ? fmt_count(y, b_cap) : "not recorded",
            a_cap >= 0 && a_cap != b_cap
                ? ": the cap changed with thinking, so these runs cannot "
                  "say which of the two made a difference."
                : ".");
}

struct doc *render_think_doc(const struct render_think *t)
{
    static const char *const cols[] = {"Rung",
                                       "Right, off",
                                       "Right, on",
                                       "Right in both",
                                       "Dead, off",
                                       "Dead, on",
                                       "Dead in both",
                                       "Dead off and cut off",
                                       "of them right on",
                                       "\xc3\x97 tokens",
                                       "\xc3\x97 speed"};
    struct doc *d = doc_new();
    char a[FMT_SIZE];
    size_t i, k;

    if (d == NULL)
        return NULL;
    think_intro(d, t);
    doc_table(d, "lrrrrrrrrrr");
    doc_row(d);
    for (k = 0; k < sizeof(cols) / sizeof(cols[0]); k++)
        doc_cellf(d, "%s", cols[k]);
    for (i = 0; i < t->n; i++) {
        const struct grader_think_line *l = &t->lines[i];
        const size_t v[] = {l->dead_off, l->dead_on, l->dead_both,
                            l->dead_off_cut_off, l->cut_off_right_on};
        rung_cell(d, l->off->name);
        doc_cellf(d, "%zu", l->right_off);
        doc_cellf(d, "%zu", l->right_on);
        doc_cellf(d, "%zu", l->right_both);
        for (k = 0; k < 5; k++)
            if (i == 0)
                doc_cellf(d, "%s", FMT_DASH);
            else
                doc_cellf(d, "%zu", v[k]);
        doc_cellf(d, "%s", fmt_fixed(a, l->tokens_x, 2));
        doc_cellf(d, "%s", fmt_fixed(a, l->speed_x, 2));
    }
    doc_para_last(d);
    doc_raw(d,
            "Dead: right at the pass's own %s, wrong at this rung. Dead "
            "off and cut off: deaths with thinking off that stopped at the "
            "token cap; of them right on: those right with thinking on. "
            "\xc3\x97 tokens and \xc3\x97 speed: mean completion tokens and "
            "median decode speed with thinking on, over thinking off, on "
            "the same card.",
            t->lines[0].off->name);
    return done(d);
}
