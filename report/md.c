/*
 * md.c - REPORT.md's pieces: one run folder's tables, in the study's
 * order, as a doc (doc.h) that doc_md writes as REPORT.md and doc_html
 * as the page's report.
 */
#include <stdio.h>
#include <string.h>

#include "doc.h"
#include "fmt.h"
#include "md_cost.h"
#include "md_decide.h"
#include "md_lengths.h"
#include "md_toolcalls.h"
#include "md_recipes.h"
#include "md_duel.h"
#include "md_differs.h"
#include "md_epitaph.h"
#include "md_probs.h"
#include "md_verdict.h"
#include "md_settings.h"
#include "render.h"

/* A row's first cell, the rung it is about (the page links it). */
static void rung_cell(struct doc *d, const char *name, int tomb)
{
    doc_row(d);
    doc_cell(d);
    doc_rung(d, name, tomb);
}

/* A rung's censored answers and the bound they put on its right ones. */
static void censored_cells(struct doc *d, const struct grader_figures *x)
{
    char a[FMT_SIZE], b[FMT_SIZE];

    doc_cellf(d, "%zu (%s %%)", x->censored,
              fmt_fixed(a,
                        x->line->sum.n ? 100.0 * (double)x->censored /
                                             (double)x->line->sum.n
                                       : 0.0,
                        1));
    doc_cellf(d, "%zu (%s %%)", x->right_max,
              fmt_fixed(b, 100.0 * x->acc_max, 1));
}

/* A header row of the program's own words, one cell each. */
static void head(struct doc *d, const char *const *cells, size_t n)
{
    size_t i;

    doc_row(d);
    for (i = 0; i < n; i++)
        doc_cellf(d, "%s", cells[i]);
}

static void ladder_head(struct doc *d, const struct grader_ladder *rep,
                        int kld, int settings)
{
    const char *ref = rep->chain.lines[0].rung->name;
    static const char *const mid[] = {
        "Right",    "Accuracy % (95 % CI)",
        "Censored", "Right if censored were right",
        "Dead",     "Ghosts"};

    char align[24];

    /* Rung, [What differs], the bytes, Right, Accuracy, Censored, Right
     * if censored, Dead, Ghosts, [Mean KLD], Change, McNemar p, the
     * verdict (words, left), three speed and memory figures. Upper-case:
     * a column the page folds into the rung's drawer (doc.h), so that
     * the table fits 1280 px: what the row's verdict stands on stays. */
    snprintf(align, sizeof align, "l%srRrRRrr%srRlrRR", settings ? "l" : "",
             kld ? "R" : "");
    doc_table(d, align);
    doc_row(d);
    doc_cellf(d, "Rung");
    if (settings) /* a ladder of settings: what each rung changes */
        doc_cellf(d, "What differs");
    doc_cellf(d, "%% of %s bytes", ref);
    for (size_t i = 0; i < sizeof(mid) / sizeof(mid[0]); i++)
        doc_cellf(d, "%s", mid[i]);
    if (kld) /* the split figures' mean KLD beside the flips */
        doc_cellf(d, "Mean KLD");
    doc_cellf(d, "Change vs %s, points (95 %% CI)", ref);
    doc_cellf(d, "McNemar p");
    md_verdict_head(d, rep);
    doc_cellf(d, "Median tok/s");
    doc_cellf(d, "\xc3\x97 %s speed", ref);
    doc_cellf(d, "GPU MiB");
}

static void ladder_table(struct doc *d, const struct rundir_run *run,
                         const struct grader_ladder *rep)
{
    const char *ref = rep->chain.lines[0].rung->name;
    char a[FMT_SIZE], b[FMT_SIZE], c[FMT_SIZE], e[FMT_SIZE];
    int settings = md_settings_ladder(run, ref);
    size_t i;

    doc_heading(d, 2);
    doc_raw(d, "The ladder");
    ladder_head(d, rep, rep->probs != NULL, settings);
    for (i = 0; i < rep->chain.nrungs; i++) {
        const struct grader_figures *x = &rep->rungs[i];
        const struct grader_bury_line *l = x->line;
        rung_cell(d, l->rung->name, 0);
        if (settings)
            md_differs_cell(d, run, l->rung->name, ref);
        if (x->meta.unpinned) /* docs/run.md, "A served model" */
            doc_cellf(d, "not pinned: the file and build are the server's "
                         "word");
        else if (md_same_file(x, &rep->rungs[0]))
            doc_cellf(d, "same file");
        else
            doc_cellf(d, "%s", fmt_fixed(a, x->pct_bytes, 1));
        doc_cellf(d, "%zu", l->sum.right);
        doc_cellf(d, "%s", fmt_pct_ci(b, x->acc, x->acc_lo, x->acc_hi));
        censored_cells(d, x);
        if (i == 0) {
            for (int k = 0; k < 5 + (rep->probs != NULL); k++)
                doc_cellf(d, "%s", FMT_DASH);
        } else {
            doc_cellf(d, "%zu", l->dead);
            doc_cellf(d, "%zu", l->ghosts);
            md_probs_kld_cell(d, rep, i);
            doc_cellf(d, "%s",
                      fmt_pp_ci(c, x->delta, x->delta_lo, x->delta_hi));
            doc_cellf(d, "%s", fmt_p(e, l->p_mcnemar));
            doc_cellf(d, "%s", render_verdict_words(e, &x->verdict));
        }
        doc_cellf(d, "%s", fmt_fixed(a, l->sum.median_tps, 1));
        doc_cellf(d, "%s", fmt_fixed(b, x->speed_x, 2));
        doc_cellf(d, "%s", fmt_count(c, x->meta.gpu_mib_loaded));
    }
    doc_para(d);
    doc_raw(d,
            "Dead: %s right, this rung wrong. Ghosts: %s wrong, this "
            "rung right. Right = %s's right \xe2\x88\x92 dead + ghosts on "
            "every row. Accuracy carries a Wilson 95 %% interval. Censored: "
            "answers cut off at the token cap, with empty content, or an "
            "error, with their share of the rung's answers; they stay in "
            "every denominator, and the next column bounds what they hide: "
            "right as counted, up to right if every censored answer had "
            "been right. The change "
            "against %s is paired on the same questions (Newcombe's hybrid "
            "score interval), in percentage points. McNemar p: how often "
            "two equally accurate models split the dead and ghosts at least "
            "this unevenly by chance (exact sign test).",
            ref, ref, ref, ref);
    md_verdict_note(d, rep);
    if (rep->probs != NULL)
        doc_raw(d,
                " Mean KLD: how far the rung's next-token distributions "
                "moved from %s's along the replies they share (\"Where "
                "they split\", below).",
                ref);
    doc_para(d);
    doc_raw(d, "Speeds compare rungs within this run, on one card: read them "
               "down the column. Another GPU's speeds belong in their own "
               "column (graveyard compare).");
}

/* Replies whose request carried a grammar or a JSON schema, checked
 * against it by the runner: how many the server did not hold to it. Only
 * when some were checked. */
static void constraint_table(struct doc *d, const struct grader_ladder *rep)
{
    static const char *const cols[] = {"Rung", "Checked", "Did not hold", "%"};
    size_t i, n = rep->chain.nrungs + rep->nsides, checked = 0;

    for (i = 0; i < n; i++)
        checked += grader_ladder_point(rep, i)->checked;
    if (checked == 0)
        return;
    doc_heading(d, 2);
    doc_raw(d, "Held to the constraint?");
    doc_para(d);
    doc_raw(d, "The requests carried a grammar or a JSON schema, and each "
               "reply was checked against it as it was written (docs/rows.md,"
               " ");
    doc_tick(d, "violations");
    doc_raw(d, "): a server can accept a constraint and not "
               "enforce it. A reply that broke it is still graded as "
               "written.");
    doc_table(d, "lrrr");
    head(d, cols, 4);
    for (i = 0; i < n; i++) {
        const struct grader_figures *x = grader_ladder_point(rep, i);
        char pct[FMT_SIZE];
        rung_cell(d, x->line->rung->name, 0);
        doc_cellf(d, "%zu", x->checked);
        doc_cellf(d, "%zu", x->violated);
        doc_cellf(
            d, "%s",
            x->checked
                ? fmt_fixed(
                      pct, 100.0 * (double)x->violated / (double)x->checked, 1)
                : FMT_DASH);
    }
}

/* A table whose columns after "Rung" are a task's rules: the header and
 * the alignment (every rule's column a figure). */
static void rule_columns(struct doc *d, size_t cols)
{
    char align[2 * GRADER_TASK_MAX_RULES + 2];
    size_t k;

    align[0] = 'l';
    for (k = 0; k < cols && k + 2 < sizeof(align); k++)
        align[k + 1] = 'r';
    align[k + 1] = '\0';
    doc_table(d, align);
    doc_row(d);
    doc_cellf(d, "Rung");
}

/* Replies graded by a rule's fallback because its pattern ran past its
 * step budget on them: per rung, and per rule when the task has several.
 * Only when some were. */
static void step_limit_table(struct doc *d, const struct grader_ladder *rep)
{
    size_t i, k, n = rep->chain.nrungs + rep->nsides, total = 0;
    size_t cols = rep->nrules ? rep->nrules : 1;

    for (i = 0; i < n; i++)
        total += grader_ladder_point(rep, i)->line->sum.step_limit;
    for (k = 0; k < rep->nrules; k++)
        for (i = 0; i < rep->nrule_rungs; i++)
            total += rep->rules[k].cells[i].step_limit;
    if (total == 0)
        return;
    doc_heading(d, 2);
    doc_raw(d, "Past the step limit");
    doc_para(d);
    doc_raw(d, "A rule's pattern ran past its step budget on these replies "
               "(a pattern that backtracks, over a reply that loops: "
               "docs/grading.md, \"Bounds\"), and each was graded by the "
               "rule's fallback, as lm-eval grades a reply where nothing "
               "matched: wrong, unless the fallback is the reference. The "
               "rows' ");
    doc_tick(d, "grades");
    doc_raw(d, " say ");
    doc_tick(d, "\"error\": \"step limit\"");
    doc_raw(d, " (docs/tasks.md).");
    rule_columns(d, cols);
    for (k = 0; k < cols; k++) {
        doc_cell(d);
        doc_celltext(d,
                     rep->nrules    ? rep->rules[k].name
                     : rep->rule[0] ? rep->rule
                                    : "replies",
                     256);
    }
    for (i = 0; i < (rep->nrules ? rep->nrule_rungs : n); i++) {
        const struct grader_figures *x = grader_ladder_point(rep, i);
        rung_cell(d, x->line->rung->name, 0);
        for (k = 0; k < cols; k++)
            doc_cellf(d, "%zu",
                      rep->nrules ? rep->rules[k].cells[i].step_limit
                                  : x->line->sum.step_limit);
    }
}

/* A task's rules side by side (grader_ladder_rules). */
static void rules_table(struct doc *d, const struct grader_ladder *rep)
{
    size_t i, k;
    char a[FMT_SIZE];

    if (rep->nrules < 2)
        return;
    doc_heading(d, 2);
    doc_raw(d, "By rule");
    doc_para(d);
    doc_raw(d, "The same replies graded by each rule of the task "
               "(docs/tasks.md). \"Graded differently\" counts the "
               "questions one rule calls right and another wrong at that "
               "rung: the extraction's own noise, next to what the "
               "quantization did.");
    rule_columns(d, 2 * rep->nrules - 1);
    for (k = 0; k < rep->nrules; k++) {
        doc_cell(d);
        doc_celltext(d, rep->rules[k].name, 256);
        doc_raw(d, " right");
    }
    for (k = 1; k < rep->nrules; k++) {
        doc_cell(d);
        doc_raw(d, "Graded differently (");
        doc_celltext(d, rep->rules[k].name, 256);
        doc_raw(d, ")");
    }
    for (i = 0; i < rep->nrule_rungs; i++) {
        rung_cell(d, grader_ladder_point(rep, i)->line->rung->name, 0);
        for (k = 0; k < rep->nrules; k++) {
            const struct grader_rule_cell *c = &rep->rules[k].cells[i];
            doc_cellf(d, "%zu/%zu (%s %%)", c->right, c->n,
                      fmt_fixed(a, 100.0 * c->acc, 1));
        }
        for (k = 1; k < rep->nrules; k++)
            doc_cellf(d, "%zu", rep->rules[k].cells[i].differ);
    }
}

/* The repeat line of rung name, or NULL. */
static const struct grader_repeat_line *
repeat_of(const struct grader_ladder *rep, const char *name)
{
    for (size_t i = 0; i < rep->nrepeats; i++)
        if (strcmp(rep->repeats[i].a->name, name) == 0)
            return &rep->repeats[i];
    return NULL;
}

/* abort_loops: the answers cut short as loops, what they saved, and what
 * a repeat says of their grades. Only when some were. */
static void loops_table(struct doc *d, const struct grader_ladder *rep)
{
    static const char *const cols[] = {"Rung", "Cut short", "Tokens saved",
                                       "Seconds saved",
                                       "Grades differing in the repeat"};
    size_t i, n = rep->chain.nrungs + rep->nsides, aborted = 0;

    for (i = 0; i < n; i++)
        aborted += grader_ladder_point(rep, i)->aborted;
    if (aborted == 0)
        return;
    doc_heading(d, 2);
    doc_raw(d, "Loops cut short");
    doc_para(d);
    doc_raw(d, "These rows were written with ");
    doc_tick(d, "abort_loops");
    doc_raw(d, " on: a reply was "
               "closed as soon as it looped (a line five times, or a span of "
               "tokens repeating), and graded from what had arrived (");
    doc_tick(d, "finish_reason");
    doc_raw(d, " \"loop\"). Tokens saved: the cap less "
               "the tokens received, at most; seconds at the rung's median "
               "decode speed. A repeat of the rung with abort off (");
    doc_tick(d, "graveyard repeat");
    doc_raw(d, ") says whether any grade changed.");
    doc_table(d, "lrrrr");
    head(d, cols, 5);
    for (i = 0; i < n; i++) {
        const struct grader_figures *x = grader_ladder_point(rep, i);
        const struct grader_repeat_line *r =
            repeat_of(rep, x->line->rung->name);
        char tok[FMT_SIZE], sec[FMT_SIZE];
        rung_cell(d, x->line->rung->name, 0);
        doc_cellf(d, "%zu", x->aborted);
        doc_cellf(d, "%s", fmt_count(tok, (long long)x->tokens_saved));
        doc_cellf(d, "%s", fmt_fixed(sec, x->seconds_saved, 1));
        if (r != NULL)
            doc_cellf(d, "%zu of %zu", r->mismatched_right, r->n);
        else
            doc_cellf(d, "%s", FMT_DASH);
    }
}

/* Each rung's dead + ghosts against the floor, the questions the
 * reference grades differently when it runs again. */
static void floor_table(struct doc *d, const struct grader_ladder *rep)
{
    static const char *const cols[] = {"Rung",          "Dead",  "Ghosts",
                                       "Dead + ghosts", "Floor", "Verdict"};
    const char *ref = rep->chain.lines[0].rung->name;
    const struct grader_repeat_line *same = repeat_of(rep, ref);
    size_t i, n = rep->chain.nrungs + rep->nsides;

    doc_heading(d, 2);
    doc_raw(d, "Above the noise?");
    doc_para(d);
    if (rep->floor < 0) {
        doc_raw(d, "No noise floor: %s has no second run here (", ref);
        doc_tick(d, "graveyard ladder --repeat-reference");
        doc_raw(d, " makes one; or a run of %s in the folder's ", ref);
        doc_tick(d, "repeat/");
        doc_raw(d, ", or ");
        doc_tick(d, "--repeat DIR");
        doc_raw(d,
                "). Without one, nothing says how many answers %s changes "
                "on its own.",
                ref);
        return;
    }
    doc_raw(d,
            "Noise floor: %s, run a second time, grades %ld question%s "
            "differently (",
            ref, rep->floor, rep->floor == 1 ? "" : "s");
    doc_tick(d, "repeat/");
    doc_raw(d, ")");
    if (same != NULL)
        doc_raw(d, "; its answer changed on %zu, its text on %zu, of %zu",
                same->mismatched_extracted, same->mismatched_text, same->n);
    doc_raw(d,
            ". A rung whose dead + ghosts is at most that moved no more "
            "than %s moves on its own.",
            ref);
    doc_table(d, "lrrrrl");
    head(d, cols, 6);
    for (i = 1; i < n; i++) {
        const struct grader_figures *x = grader_ladder_point(rep, i);
        const struct grader_bury_line *l = x->line;
        rung_cell(d, l->rung->name, 0);
        doc_cellf(d, "%zu", l->dead);
        doc_cellf(d, "%zu", l->ghosts);
        doc_cellf(d, "%zu", l->dead + l->ghosts);
        doc_cellf(d, "%ld", rep->floor);
        doc_cellf(d, "%s",
                  x->above_floor ? "above the floor"
                                 : "within the floor: no more than the "
                                   "reference moves on its own");
    }
}

/* A partial report (--partial) says which rungs are short, and of what. */
static void partial_note(struct doc *d, const struct grader_ladder *rep)
{
    size_t i, n = 0;

    for (i = 1; i < rep->chain.nrungs; i++) {
        const struct grader_bury_line *l = &rep->chain.lines[i];
        if (l->missing == 0 && l->extra == 0)
            continue;
        if (n++ == 0) {
            doc_para(d);
            doc_bold(d, "Partial report.");
            doc_raw(d, " ");
        }
        doc_raw(d, "%s lacks %zu of %s's %zu questions", l->rung->name,
                l->missing, rep->chain.lines[0].rung->name,
                rep->chain.questions);
        if (l->extra > 0)
            doc_raw(d, " and has %zu it lacks", l->extra);
        doc_raw(d, "; ");
    }
    if (n > 0)
        doc_raw(d, "each rung's dead, ghosts and change are counted on the "
                   "questions it shares with the reference.");
}

static void deaths_table(struct doc *d, const struct grader_ladder *rep)
{
    static const char *const cols[] = {"Rung", "First deaths",
                                       "Right again at a lower rung"};
    const struct grader_bury *b = &rep->chain;
    size_t i, again = 0;

    doc_heading(d, 2);
    doc_raw(d, "First deaths by rung");
    doc_table(d, "lrr");
    head(d, cols, 3);
    for (i = 1; i < b->nrungs; i++) {
        rung_cell(d, b->lines[i].rung->name, 1);
        doc_cellf(d, "%zu", b->lines[i].first_deaths);
        doc_cellf(d, "%zu", b->lines[i].first_deaths_right_again_lower);
        again += b->lines[i].first_deaths_right_again_lower;
    }
    doc_para(d);
    doc_raw(d,
            "Tombstones: %zu, one per question that dies at some rung; "
            "%zu of them right again lower down. Ghost questions (%s "
            "wrong, right at one rung or more): %zu. First deaths add up to "
            "the tombstones; a rung's dead count also holds questions that "
            "died higher up.",
            b->ntombs, again, b->lines[0].rung->name, b->nghosts);
}

static void autopsy_table(struct doc *d, const struct grader_ladder *rep)
{
    static const char *const cols[] = {
        "Rung",          "Cut off",    "Looped", "Thinking unprompted",
        "Empty content", "Errors",     "Dead",   "Dead, cut off",
        "Dead, looped",  "Dead, empty"};
    size_t i;

    doc_heading(d, 2);
    doc_raw(d, "Autopsy: how each rung's answers fail");
    doc_table(d, "lrrrrrrrrr");
    head(d, cols, 10);
    for (i = 0; i < rep->chain.nrungs; i++) {
        const struct grader_autopsy_line *a = &rep->rungs[i].autopsy;
        const size_t v[] = {
            a->cut_off,       a->looped,      a->thought,
            a->empty_content, a->errors,      a->dead,
            a->dead_cut_off,  a->dead_looped, a->dead_empty_content};
        rung_cell(d, a->rung->name, 0);
        for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
            doc_cellf(d, "%zu", v[k]);
    }
    doc_para(d);
    doc_raw(d, "Cut off: stopped at the token cap. Looped: a line of the "
               "answer repeats five or more times. Thinking unprompted: text "
               "in the thinking block with thinking off. Errors (an HTTP "
               "error, a refused answer) are graded wrong.");
}

static void side_head(struct doc *d, const struct grader_ladder *rep)
{
    static const char *const cols[] = {
        "Right",          "Accuracy % (95 % CI)",
        "Censored",       "Right if censored were right",
        "Dead",           "Ghosts",
        "McNemar p",      "Cut off",
        "Median tok/s",   "GPU MiB",
        "Beside",         "Dead under both",
        "Dead here only", "Dead there only"};
    const char *ref = rep->chain.lines[0].rung->name;

    doc_heading(d, 2);
    doc_raw(d, "Beside the ladder");
    doc_para(d);
    doc_raw(d,
            "Files outside the quantization chain (a quantization-aware "
            "Q4_0, say), buried against the same %s, each set beside the "
            "chain rung nearest in bytes.",
            ref);
    /* upper-case: folded into the rung's drawer on the page (doc.h) */
    doc_table(d, "lrRrRRrrRlRrRlRrr");
    doc_row(d);
    doc_cellf(d, "Rung");
    doc_cellf(d, "%% of %s bytes", ref);
    for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
        doc_cellf(d, "%s", cols[i]);
        if (i == 6) /* after McNemar p, as in the ladder table */
            md_verdict_head(d, rep);
    }
}

static void side_table(struct doc *d, const struct grader_ladder *rep)
{
    char a[FMT_SIZE];
    size_t i;

    if (rep->nsides == 0)
        return;
    side_head(d, rep);
    for (i = 0; i < rep->nsides; i++) {
        const struct grader_side *s = &rep->sides[i];
        const struct grader_bury_line *l = s->f.line;
        rung_cell(d, l->rung->name, 0);
        if (s->f.meta.unpinned) /* as in the ladder table */
            doc_cellf(d, "not pinned: the file and build are the server's "
                         "word");
        else if (md_same_file(&s->f, &rep->rungs[0]))
            doc_cellf(d, "same file");
        else
            doc_cellf(d, "%s", fmt_fixed(a, s->f.pct_bytes, 1));
        doc_cellf(d, "%zu", l->sum.right);
        doc_cellf(d, "%s", fmt_pct_ci(a, s->f.acc, s->f.acc_lo, s->f.acc_hi));
        censored_cells(d, &s->f);
        doc_cellf(d, "%zu", l->dead);
        doc_cellf(d, "%zu", l->ghosts);
        doc_cellf(d, "%s", fmt_p(a, l->p_mcnemar));
        doc_cellf(d, "%s", render_verdict_words(a, &s->f.verdict));
        doc_cellf(d, "%zu", l->sum.truncated);
        doc_cellf(d, "%s", fmt_fixed(a, l->sum.median_tps, 1));
        doc_cellf(d, "%s", fmt_count(a, s->f.meta.gpu_mib_loaded));
        if (s->beside > 0) {
            doc_cellf(d, "%s", rep->chain.lines[s->beside].rung->name);
            doc_cellf(d, "%zu", s->dead_both);
            doc_cellf(d, "%zu", s->dead_side_only);
            doc_cellf(d, "%zu", s->dead_beside_only);
        } else {
            for (int k = 0; k < 4; k++)
                doc_cellf(d, "%s", FMT_DASH);
        }
    }
}

static void repeat_table(struct doc *d, const struct grader_ladder *rep)
{
    static const char *const cols[] = {"Rung",
                                       "Questions compared",
                                       "Extracted number differs",
                                       "Text differs",
                                       "Grade differs",
                                       "Right, first run",
                                       "Right, second run"};
    size_t i;

    if (rep->nrepeats == 0)
        return;
    doc_heading(d, 2);
    doc_raw(d, "Repeat: the same rung run twice");
    doc_table(d, "lrrrrrr");
    head(d, cols, 7);
    for (i = 0; i < rep->nrepeats; i++) {
        const struct grader_repeat_line *r = &rep->repeats[i];
        rung_cell(d, r->a->name, 0);
        doc_cellf(d, "%zu", r->n);
        doc_cellf(d, "%zu", r->mismatched_extracted);
        doc_cellf(d, "%zu", r->mismatched_text);
        doc_cellf(d, "%zu", r->mismatched_right);
        doc_cellf(d, "%zu", r->right_a);
        doc_cellf(d, "%zu", r->right_b);
    }
    doc_para(d);
    doc_raw(d, "Text differs counts answers whose content or thinking "
               "differs by even one character. A tombstone means something "
               "only where a rung gives the same text twice.");
}

/* The picture of the ladder's choices. Its caption says "which one?" in
 * words (render_pick_words): the picture is a file of its own, shown
 * without this report too, and the decision block at the top says it for
 * every margin, so the words are not written again here. */
static void which_one(struct doc *d, const struct grader_ladder *rep)
{
    doc_heading(d, 2);
    doc_raw(d, "Which one?");
    doc_image(d,
              "Right against file size and decode speed, each rung a point "
              "with its 95 % interval; the dashed line joins the rungs no "
              "other rung beats on both counts",
              "pareto.svg", 1);
    for (size_t i = 1; i < rep->chain.nrungs; i++)
        if (md_same_file(&rep->rungs[i], &rep->rungs[0])) {
            doc_para(d); /* the note's sentence, in a paragraph */
            md_same_file_note(d, rep);
            break;
        }
}

struct doc *render_report_doc(const struct rundir_run *run,
                              const struct grader_ladder *rep,
                              const struct grader_qset *qs)
{
    struct doc *d = doc_new();

    if (d == NULL)
        return NULL;
    md_head_matter(d, run);
    md_decision(d, rep);
    md_settings(d, run, rep);
    doc_image(d,
              "The graveyard: one row per rung, one cell per question; "
              "marigold right, grey wrong",
              "cover.svg", 0);
    ladder_table(d, run, rep);
    md_lengths(d, rep);
    md_speculative(d, rep);
    rules_table(d, rep);
    step_limit_table(d, rep);
    md_canary(d, run);
    constraint_table(d, rep);
    loops_table(d, rep);
    md_cost(d, rep);
    md_recipes(d, run);
    floor_table(d, rep);
    md_probs(d, rep);
    md_verdict_table(d, rep);
    md_duels(d, run, rep);
    which_one(d, rep);
    md_f16_note(d, run, rep);
    partial_note(d, rep);
    deaths_table(d, rep);
    autopsy_table(d, rep);
    md_toolcalls(d, rep);
    md_code(d, rep);
    side_table(d, rep);
    repeat_table(d, rep);
    if (rep->chain.ntombs > 0) {
        md_tombstones(d, rep, qs);
        if (rep->chain.nghosts > 0)
            md_ghosts(d, rep, qs);
    }
    if (!doc_ok(d)) {
        doc_free(d);
        return NULL;
    }
    return d;
}
