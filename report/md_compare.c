/*
 * md_compare.c - COMPARE.md (runs of one ladder on several GPUs) and
 * THINK.md (thinking off against on): the study's tables, read from the
 * grader's figures.
 */
#include "fmt.h"
#include "render.h"

/* A run's label as Markdown text (labels may come from nvidia-smi or the
 * command line). Returns buf. */
static const char *label(const struct render_compare *rc, size_t k, char *buf,
                         size_t size)
{
    fmt_text(buf, size, rc->runs[k].label);
    return buf;
}

/* A header row: "| Rung | T4 | L4 |" and its rule. */
static void head(FILE *f, const struct render_compare *rc, const char *first)
{
    size_t k;

    fprintf(f, "| %s |", first);
    for (k = 0; k < rc->c->nruns; k++) {
        char lab[1024];
        fprintf(f, " %s |", label(rc, k, lab, sizeof(lab)));
    }
    fprintf(f, "\n|---|");
    for (k = 0; k < rc->c->nruns; k++)
        fprintf(f, "---:|");
    fprintf(f, "\n");
}

/* The title, the runs (folder, GPU, build), the files note and the
 * picture. */
static void md_intro(FILE *f, const struct render_compare *rc)
{
    const struct grader_compare *c = rc->c;
    const char *ref = rc->names[0];
    size_t k;

    fprintf(f, "# graveyard compare: %zu runs of one ladder\n\n", c->nruns);
    fprintf(f,
            "Every count below is computed by `graveyard compare` from "
            "the rows of each run folder; each run is buried against its "
            "own %s.\n\n",
            ref);
    fprintf(f, "| Run | Folder | GPU | Server build |\n|---|---|---|---|\n");
    for (k = 0; k < c->nruns; k++) {
        const char *g = rc->metas[k * c->nrungs].gpu_name,
                   *build = rundir_run_server(&rc->runs[k]);
        char lab[1024], dir[4096], gpu[1024], bld[1024];
        fmt_text(lab, sizeof(lab), rc->runs[k].label);
        fmt_code(dir, sizeof(dir), rc->runs[k].dir);
        fmt_text(gpu, sizeof(gpu), g[0] ? g : "not recorded");
        fmt_code(bld, sizeof(bld), build ? build : "");
        fprintf(f, "| %s | `%s` | %s | %s%s%s |\n", lab, dir, gpu,
                build ? "`" : "", build ? bld : "not recorded",
                build ? "`" : "");
    }
    fprintf(f, "\n%s%s\n\n", rc->files_same ? "" : "**WARNING:** ",
            rc->files_note);
    fprintf(f, "![One row per rung, one cell per question: marigold right "
               "on every run, grey wrong on every run, violet where the "
               "runs disagree](compare.svg)\n\n");
}

/* Right answers and lost answers, rung by run. */
static void md_counts(FILE *f, const struct render_compare *rc)
{
    const struct grader_compare *c = rc->c;
    const char *ref = rc->names[0];
    size_t i, k;

    fprintf(f, "## Right answers, out of %zu\n\n", c->nq);
    head(f, rc, "Rung");
    for (i = 0; i < c->nrungs; i++) {
        fprintf(f, "| %s |", rc->names[i]);
        for (k = 0; k < c->nruns; k++)
            fprintf(f, " %zu |", c->rungs[i].right[k]);
        fprintf(f, "\n");
    }
    fprintf(f, "\n## Lost, against each run's own %s\n\n", ref);
    head(f, rc, "Rung");
    for (i = 1; i < c->nrungs; i++) {
        fprintf(f, "| %s |", rc->names[i]);
        for (k = 0; k < c->nruns; k++)
            fprintf(f, " %zu |", c->rungs[i].dead[k]);
        fprintf(f, "\n");
    }
    fprintf(f, "\nLost: right at %s, wrong at this rung, on the same run.\n\n",
            ref);
}

/* Question by question: graded differently, lost on all, and the
 * questions that die on one run only. */
static void md_pairs(FILE *f, const struct render_compare *rc)
{
    const struct grader_compare *c = rc->c;
    size_t i, j;

    fprintf(f, "## Question by question\n\n");
    if (c->nruns > 1) {
        if (c->nruns == 2)
            fprintf(f, "| Rung | Graded differently | Lost on both | Right "
                       "on both | Wrong on both |\n|---|---:|---:|---:|---:"
                       "|\n");
        else
            fprintf(f,
                    "| Rung | Graded differently, closest pair | "
                    "furthest pair | Lost on all %zu | Right on all | "
                    "Wrong on all |\n|---|---:|---:|---:|---:|---:|\n",
                    c->nruns);
        for (i = 0; i < c->nrungs; i++) {
            const struct grader_compare_rung *r = &c->rungs[i];
            char l1[1024], l2[1024], l3[1024], l4[1024];
            if (c->nruns == 2)
                fprintf(f, "| %s | %zu | ", rc->names[i], r->differ[0][1]);
            else
                fprintf(f, "| %s | %zu (%s, %s) | %zu (%s, %s) | ",
                        rc->names[i], r->differ[r->closest[0]][r->closest[1]],
                        label(rc, r->closest[0], l1, sizeof(l1)),
                        label(rc, r->closest[1], l2, sizeof(l2)),
                        r->differ[r->furthest[0]][r->furthest[1]],
                        label(rc, r->furthest[0], l3, sizeof(l3)),
                        label(rc, r->furthest[1], l4, sizeof(l4)));
            if (i == 0)
                fprintf(f, "%s |", FMT_DASH);
            else
                fprintf(f, "%zu |", r->lost_all);
            fprintf(f, " %zu | %zu |\n", r->all_right, r->all_wrong);
        }
        fprintf(f,
                "\nGraded differently: right on one run and wrong on "
                "the other, at that rung; compare.json has every pair.\n\n");
    }
    fprintf(f,
            "%zu questions die at some rung on at least one run; %zu die on "
            "every run, and %zu of those die first at the same rung "
            "everywhere.\n\n",
            c->died_some, c->died_every, c->died_every_same);
    if (c->nlonely > 0) {
        fprintf(f, "Questions that die on one run only:\n\n");
        for (j = 0; j < c->nlonely; j++) {
            char id[2048], lab[1024];
            fmt_text(id, sizeof(id), grader_qset_id(rc->qs, c->lonely[j].q));
            fmt_text(lab, sizeof(lab), rc->runs[c->lonely[j].run].label);
            fprintf(f, "- %s: %s, first at %s\n", id, lab,
                    rc->names[c->lonely[j].died_at]);
        }
        fprintf(f, "\n");
    }
}

/* Median decode speed per run, and \xc3\x97 the reference within
 * each run. */
static void md_speed(FILE *f, const struct render_compare *rc)
{
    const struct grader_compare *c = rc->c;
    const char *ref = rc->names[0];
    char a[FMT_SIZE], b[FMT_SIZE];
    size_t i, k;

    fprintf(f,
            "## Speed on each run\n\nMedian decode tokens per second. "
            "Each column is one run, on one card: read down a column. "
            "The \xc3\x97 %s figures compare rungs within a run.\n\n",
            ref);
    fprintf(f, "| Rung |");
    for (k = 0; k < c->nruns; k++) {
        char lab[1024];
        fprintf(f, " %s | \xc3\x97 %s |", label(rc, k, lab, sizeof(lab)), ref);
    }
    fprintf(f, "\n|---|");
    for (k = 0; k < c->nruns; k++)
        fprintf(f, "---:|---:|");
    fprintf(f, "\n");
    for (i = 0; i < c->nrungs; i++) {
        fprintf(f, "| %s |", rc->names[i]);
        for (k = 0; k < c->nruns; k++) {
            struct grader_figures x;
            grader_figures_of(&c->bury[k], i, &rc->metas[k * c->nrungs + i],
                              &rc->metas[k * c->nrungs], &x);
            fprintf(f, " %s | %s |", fmt_1(a, x.line->sum.median_tps),
                    fmt_2(b, x.speed_x));
        }
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
}

/* Each run's dead + ghosts against the reference's run-to-run noise. */
static void md_floor(FILE *f, const struct render_compare *rc)
{
    const struct grader_compare *c = rc->c;
    const char *ref = rc->names[0];
    char la[1024], lb[1024];
    size_t i, k;

    if (c->floor < 0)
        return;
    fprintf(f,
            "## Above the noise?\n\n"
            "Noise floor: %s is graded differently on %ld question%s by %s "
            "and %s, the furthest pair of runs: that much the reference "
            "moves between runs on its own. A rung whose dead + ghosts on "
            "a run is at most that moved no more than the reference "
            "does.\n\n",
            ref, c->floor, c->floor == 1 ? "" : "s",
            label(rc, c->floor_pair[0], la, sizeof(la)),
            label(rc, c->floor_pair[1], lb, sizeof(lb)));
    head(f, rc, "Rung: dead + ghosts");
    for (i = 1; i < c->nrungs; i++) {
        fprintf(f, "| %s |", rc->names[i]);
        for (k = 0; k < c->nruns; k++)
            fprintf(f, " %zu + %zu = %zu, %s |", c->rungs[i].dead[k],
                    c->rungs[i].ghosts[k],
                    c->rungs[i].dead[k] + c->rungs[i].ghosts[k],
                    c->rungs[i].above_floor[k] ? "above" : "within");
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
}

int render_compare_md(FILE *f, const struct render_compare *rc)
{
    md_intro(f, rc);
    md_counts(f, rc);
    md_floor(f, rc);
    md_pairs(f, rc);
    md_speed(f, rc);
    return 0;
}

int render_think_md(FILE *f, const struct render_think *t)
{
    const char *ref = t->lines[0].off->name;
    char a[FMT_SIZE], b[FMT_SIZE];
    size_t i;

    fprintf(f, "# graveyard think: thinking off against thinking on\n\n");
    fprintf(f,
            "Thinking off: `%s`. Thinking on: `%s`. Each pass is buried "
            "against its own %s; every count is computed by `graveyard "
            "think` from the rows.\n\n",
            t->off->dir, t->on->dir, ref);
    fprintf(f, "%s%s\n\n", t->files_same ? "" : "**WARNING:** ", t->note);
    {
        long a_cap = rundir_run_request_int(t->off, "max_tokens"),
             b_cap = rundir_run_request_int(t->on, "max_tokens");
        char x[FMT_SIZE], y[FMT_SIZE];
        fprintf(f,
                "Token cap: %s with thinking off, %s with thinking on%s\n\n",
                a_cap >= 0 ? fmt_count(x, a_cap) : "not recorded",
                b_cap >= 0 ? fmt_count(y, b_cap) : "not recorded",
                a_cap >= 0 && a_cap != b_cap
                    ? ": the cap changed with thinking, so these runs cannot "
                      "say which of the two made a difference."
                    : ".");
    }
    fprintf(f, "| Rung | Right, off | Right, on | Right in both | Dead, off "
               "| Dead, on | Dead in both | Dead off and cut off | of them "
               "right on | \xc3\x97 tokens | \xc3\x97 speed |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (i = 0; i < t->n; i++) {
        const struct grader_think_line *l = &t->lines[i];
        fprintf(f, "| %s | %zu | %zu | %zu | ", l->off->name, l->right_off,
                l->right_on, l->right_both);
        if (i == 0)
            fprintf(f, "%s | %s | %s | %s | %s | ", FMT_DASH, FMT_DASH,
                    FMT_DASH, FMT_DASH, FMT_DASH);
        else
            fprintf(f, "%zu | %zu | %zu | %zu | %zu | ", l->dead_off,
                    l->dead_on, l->dead_both, l->dead_off_cut_off,
                    l->cut_off_right_on);
        fprintf(f, "%s | %s |\n", fmt_2(a, l->tokens_x), fmt_2(b, l->speed_x));
    }
    fprintf(f,
            "\nDead: right at the pass's own %s, wrong at this rung. Dead "
            "off and cut off: deaths with thinking off that stopped at the "
            "token cap; of them right on: those right with thinking on. "
            "\xc3\x97 tokens and \xc3\x97 speed: mean completion tokens and "
            "median decode speed with thinking on, over thinking off, on "
            "the same card.\n",
            ref);
    return 0;
}
