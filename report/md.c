/*
 * md.c - REPORT.md: one run folder's tables, in the study's order.
 */
#include <jansson.h>
#include <string.h>

#include <stdlib.h>
#include "fmt.h"
#include "render.h"

/* "Q8_0, Q6_K and Q4_0" from the rungs whose bits are set. */
static void rung_list(FILE *f, const struct grader_bury *b, uint64_t set)
{
    size_t i, n = 0, total = 0;

    for (i = 0; i < b->nrungs; i++)
        total += (set >> i) & 1;
    for (i = 0; i < b->nrungs; i++) {
        if (!((set >> i) & 1))
            continue;
        n++;
        fprintf(f, "%s%s",
                n == 1       ? ""
                : n == total ? " and "
                             : ", ",
                b->lines[i].rung->name);
    }
}

/* The settings block: what the rows were made with, stated once. */
/* Rungs that ran beside others on one GPU (rungs_per_gpu, beside.jsonl):
 * each on its own one-slot server, so its answers are as when alone. */
static void shared_row(FILE *f, const struct rundir_run *run)
{
    char cell[FMT_SIZE * 2];
    const json_t *line, *name;
    size_t i, k;

    if (run->beside == NULL || json_array_size(run->beside) == 0)
        return;
    fprintf(f, "| Shared GPUs | ");
    json_array_foreach(run->beside, i, line)
    {
        fmt_text(cell, sizeof(cell),
                 json_string_value(json_object_get(line, "rung")));
        fprintf(f, "%s%s beside", i ? "; " : "", cell);
        json_array_foreach(json_object_get(line, "beside"), k, name)
        {
            fmt_text(cell, sizeof(cell), json_string_value(name));
            fprintf(f, "%s %s", k ? "," : "", cell);
        }
        fmt_text(cell, sizeof(cell),
                 json_string_value(json_object_get(line, "gpu")));
        fprintf(f, " (GPU %s)", cell);
    }
    fprintf(f, " |\n");
}

/* The task the rows were asked and graded by (docs/tasks.md). */
static void task_row(FILE *f, const struct rundir_run *run,
                     const struct grader_ladder *rep)
{
    json_t *t = run->manifest ? json_object_get(run->manifest, "task") : NULL;
    const char *name = json_string_value(json_object_get(t, "name"));
    char cell[256], rule[256];

    fmt_code(cell, sizeof(cell), name ? name : "answer-line");
    fmt_code(rule, sizeof(rule), rep->rule[0] ? rep->rule : "answer-line");
    fprintf(f, "| Task | `%s`%s, graded by rule `%s`%s |\n", cell,
            name ? "" : " (not recorded: the default)", rule,
            rep->nrules > 1 ? " (every rule: \"By rule\")" : "");
}

static void settings(FILE *f, const struct rundir_run *run,
                     const struct grader_ladder *rep)
{
    const char *q = rundir_run_questions(run),
               *sha = rundir_run_questions_sha256(run),
               *server = rundir_run_server(run);
    json_t *req =
        run->manifest ? json_object_get(run->manifest, "request") : NULL;
    char cell[512], n1[FMT_SIZE];
    const char *key, *gpus[GRADER_MAX_RUNGS];
    size_t i, j, ngpus = 0;
    json_t *v;
    long cap = rundir_run_request_int(run, "max_tokens");
    int think = rundir_run_thinking(run);

    fprintf(f, "| Setting | Value |\n|---|---|\n");
    fmt_code(cell, sizeof(cell), run->dir);
    fprintf(f, "| Run folder | `%s` |\n", cell);
    fmt_code(cell, sizeof(cell), q ? q : "not recorded (no manifest.json)");
    fprintf(f, "| Questions | `%s`, %s questions", cell,
            fmt_count(n1, (long long)rep->chain.questions));
    if (sha != NULL)
        fprintf(f, ", sha256 `%.16s`", sha);
    fprintf(f, " |\n");
    fmt_code(cell, sizeof(cell), server ? server : "not recorded");
    fprintf(f, "| Server build | `%s` |\n", cell);
    for (i = 0; i < rep->chain.nrungs; i++) {
        const char *g = rep->rungs[i].meta.gpu_name;
        if (g[0] == '\0')
            continue;
        for (j = 0; j < ngpus && strcmp(gpus[j], g) != 0; j++)
            ;
        if (j == ngpus)
            gpus[ngpus++] = g;
    }
    fprintf(f, "| GPU | ");
    for (j = 0; j < ngpus; j++) {
        fmt_text(cell, sizeof(cell), gpus[j]);
        fprintf(f, "%s%s", j ? ", " : "", cell);
    }
    fprintf(f, "%s |\n", ngpus ? "" : "not recorded (no nvidia-smi)");
    fprintf(f, "| Sampling | ");
    if (json_is_object(req)) {
        i = 0;
        json_object_foreach(req, key, v)
        {
            char *t;
            if (strcmp(key, "max_tokens") == 0 ||
                strcmp(key, "enable_thinking") == 0)
                continue;
            t = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
            if (t == NULL)
                return;
            fmt_cell(cell, sizeof(cell), t);
            fprintf(f, "%s%s %s", i++ ? ", " : "", key, cell);
            free(t);
        }
    } else {
        fprintf(f, "not recorded");
    }
    fprintf(f, " |\n| Token cap | %s |\n| Thinking | %s |\n",
            cap >= 0 ? fmt_count(n1, cap) : "not recorded",
            think < 0 ? "not recorded"
            : think   ? "on"
                      : "off");
    task_row(f, run, rep);
    shared_row(f, run);
    fprintf(f, "\n");
}

/* A rung's censored answers and the bound they put on its right ones. */
static void censored_cells(FILE *f, const struct grader_figures *x)
{
    char a[FMT_SIZE], b[FMT_SIZE];

    fprintf(f, "%zu (%s %%) | %zu (%s %%) | ", x->censored,
            fmt_1(a, x->line->sum.n
                         ? 100.0 * (double)x->censored / (double)x->line->sum.n
                         : 0.0),
            x->right_max, fmt_1(b, 100.0 * x->acc_max));
}

static void ladder_table(FILE *f, const struct grader_ladder *rep)
{
    const char *ref = rep->chain.lines[0].rung->name;
    char a[FMT_SIZE], b[FMT_SIZE], c[FMT_SIZE], d[FMT_SIZE], e[FMT_SIZE],
        g[FMT_SIZE], h[FMT_SIZE];
    size_t i;

    fprintf(f,
            "## The ladder\n\n"
            "| Rung | %% of %s bytes | Right | Accuracy %% (95 %% CI) | "
            "Censored | Right if censored were right | "
            "Dead | Ghosts | Change vs %s, points (95 %% CI) | McNemar p "
            "| Median tok/s | \xc3\x97 %s speed | GPU MiB |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
            "\n",
            ref, ref, ref);
    for (i = 0; i < rep->chain.nrungs; i++) {
        const struct grader_figures *x = &rep->rungs[i];
        const struct grader_bury_line *l = x->line;
        fprintf(f, "| %s | %s | %zu | %s | ", l->rung->name,
                fmt_1(a, x->pct_bytes), l->sum.right,
                fmt_pct_ci(b, x->acc, x->acc_lo, x->acc_hi));
        censored_cells(f, x);
        if (i == 0)
            fprintf(f, "%s | %s | %s | %s | ", FMT_DASH, FMT_DASH, FMT_DASH,
                    FMT_DASH);
        else
            fprintf(f, "%zu | %zu | %s | %s | ", l->dead, l->ghosts,
                    fmt_pp_ci(c, x->delta, x->delta_lo, x->delta_hi),
                    fmt_p(d, l->p_mcnemar));
        fprintf(f, "%s | %s | %s |\n", fmt_1(e, l->sum.median_tps),
                fmt_2(g, x->speed_x), fmt_count(h, x->meta.gpu_mib_loaded));
    }
    fprintf(f,
            "\nDead: %s right, this rung wrong. Ghosts: %s wrong, this "
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
            "this unevenly by chance (exact sign test).\n\n"
            "Speeds compare rungs within this run, on one card: read them "
            "down the column. Another GPU's speeds belong in their own "
            "column (graveyard compare).\n\n",
            ref, ref, ref, ref);
}

static long canary_int(const json_t *c, const char *key)
{
    return (long)json_integer_value(json_object_get(c, key));
}

/* The canary's verdict (rundir checked its fields), before the night. */
static void canary_section(FILE *f, const struct rundir_run *run)
{
    const json_t *c = run->canary, *ids = json_object_get(c, "changed_ids");
    const char *sha = json_string_value(json_object_get(c, "rows_sha256"));
    long changed = canary_int(c, "changed"),
         missing = canary_int(c, "missing");
    long same = canary_int(c, "same_text");
    char rung[FMT_SIZE * 2], rows[4200], id[FMT_SIZE * 2];
    const json_t *v;
    size_t i;

    if (c == NULL)
        return;
    fmt_text(rung, sizeof(rung),
             json_string_value(json_object_get(c, "rung")));
    fmt_code(rows, sizeof(rows),
             json_string_value(json_object_get(c, "rows")));
    fprintf(f,
            "## Canary\n\nBefore the night, %s answered the first %ld "
            "questions of `%s`",
            rung, canary_int(c, "questions"), rows);
    if (sha != NULL && strlen(sha) == 64 &&
        strspn(sha, "0123456789abcdef") == 64)
        fprintf(f, " (sha256 %.12s…)", sha);
    fprintf(f,
            ", a run it trusts, again: %ld answer%s changed (at most %ld "
            "may), %ld repl%s the very same",
            changed, changed == 1 ? "" : "s", canary_int(c, "max_changed"),
            same, same == 1 ? "y" : "ies");
    if (missing > 0)
        fprintf(f, ", %ld not answered", missing);
    fprintf(f, ". **%s**",
            json_is_true(json_object_get(c, "passed"))
                ? "Passed."
                : "Not passed: the ladder does not start after such a "
                  "canary.");
    json_array_foreach(ids, i, v)
    {
        fmt_text(id, sizeof(id), json_string_value(v));
        fprintf(f, "%s%s", i == 0 ? " Changed: " : ", ", id);
    }
    fprintf(f, "%s\n\n", json_array_size(ids) > 0 ? "." : "");
}

/* Replies whose request carried a grammar or a JSON schema, checked
 * against it by the runner: how many the server did not hold to it. Only
 * when some were checked. */
static void constraint_table(FILE *f, const struct grader_ladder *rep)
{
    size_t i, n = rep->chain.nrungs + rep->nsides, checked = 0;

    for (i = 0; i < n; i++)
        checked += grader_ladder_point(rep, i)->checked;
    if (checked == 0)
        return;
    fprintf(f, "## Held to the constraint?\n\n"
               "The requests carried a grammar or a JSON schema, and each "
               "reply was checked against it as it was written (docs/rows.md,"
               " `violations`): a server can accept a constraint and not "
               "enforce it. A reply that broke it is still graded as "
               "written.\n\n"
               "| Rung | Checked | Did not hold | %% |\n"
               "|---|---:|---:|---:|\n");
    for (i = 0; i < n; i++) {
        const struct grader_figures *x = grader_ladder_point(rep, i);
        char pct[FMT_SIZE];
        fprintf(f, "| %s | %zu | %zu | %s |\n", x->line->rung->name,
                x->checked, x->violated,
                x->checked ? fmt_1(pct, 100.0 * (double)x->violated /
                                            (double)x->checked)
                           : FMT_DASH);
    }
    fprintf(f, "\n");
}

/* Replies graded by a rule's fallback because its pattern ran past its
 * step budget on them: per rung, and per rule when the task has several.
 * Only when some were. */
static void step_limit_table(FILE *f, const struct grader_ladder *rep)
{
    size_t i, k, n = rep->chain.nrungs + rep->nsides, total = 0;
    size_t cols = rep->nrules ? rep->nrules : 1;
    char cell[256];

    for (i = 0; i < n; i++)
        total += grader_ladder_point(rep, i)->line->sum.step_limit;
    for (k = 0; k < rep->nrules; k++)
        for (i = 0; i < rep->nrule_rungs; i++)
            total += rep->rules[k].cells[i].step_limit;
    if (total == 0)
        return;
    fprintf(f, "## Past the step limit\n\n"
               "A rule's pattern ran past its step budget on these replies "
               "(a pattern that backtracks, over a reply that loops: "
               "docs/grading.md, \"Bounds\"), and each was graded by the "
               "rule's fallback, as lm-eval grades a reply where nothing "
               "matched: wrong, unless the fallback is the reference. The "
               "rows' `grades` say `\"error\": \"step limit\"` "
               "(docs/tasks.md).\n\n| Rung |");
    for (k = 0; k < cols; k++) {
        fmt_cell(cell, sizeof(cell),
                 rep->nrules    ? rep->rules[k].name
                 : rep->rule[0] ? rep->rule
                                : "replies");
        fprintf(f, " %s |", cell);
    }
    fprintf(f, "\n|---|");
    for (k = 0; k < cols; k++)
        fprintf(f, "---:|");
    fprintf(f, "\n");
    for (i = 0; i < (rep->nrules ? rep->nrule_rungs : n); i++) {
        const struct grader_figures *x = grader_ladder_point(rep, i);
        fprintf(f, "| %s |", x->line->rung->name);
        for (k = 0; k < cols; k++)
            fprintf(f, " %zu |",
                    rep->nrules ? rep->rules[k].cells[i].step_limit
                                : x->line->sum.step_limit);
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
}

/* A task's rules side by side (grader_ladder_rules). */
static void rules_table(FILE *f, const struct grader_ladder *rep)
{
    size_t i, k;
    char a[FMT_SIZE], cell[256];

    if (rep->nrules < 2)
        return;
    fprintf(f, "## By rule\n\n"
               "The same replies graded by each rule of the task "
               "(docs/tasks.md). \"Graded differently\" counts the "
               "questions one rule calls right and another wrong at that "
               "rung: the extraction's own noise, next to what the "
               "quantization did.\n\n| Rung |");
    for (k = 0; k < rep->nrules; k++) {
        fmt_cell(cell, sizeof(cell), rep->rules[k].name);
        fprintf(f, " %s right |", cell);
    }
    for (k = 1; k < rep->nrules; k++) {
        fmt_cell(cell, sizeof(cell), rep->rules[k].name);
        fprintf(f, " Graded differently (%s) |", cell);
    }
    fprintf(f, "\n|---|");
    for (k = 0; k < 2 * rep->nrules - 1; k++)
        fprintf(f, "---:|");
    fprintf(f, "\n");
    for (i = 0; i < rep->nrule_rungs; i++) {
        fprintf(f, "| %s |", grader_ladder_point(rep, i)->line->rung->name);
        for (k = 0; k < rep->nrules; k++) {
            const struct grader_rule_cell *c = &rep->rules[k].cells[i];
            fprintf(f, " %zu/%zu (%s %%) |", c->right, c->n,
                    fmt_1(a, 100.0 * c->acc));
        }
        for (k = 1; k < rep->nrules; k++)
            fprintf(f, " %zu |", rep->rules[k].cells[i].differ);
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
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
static void loops_table(FILE *f, const struct grader_ladder *rep)
{
    size_t i, n = rep->chain.nrungs + rep->nsides, aborted = 0;

    for (i = 0; i < n; i++)
        aborted += grader_ladder_point(rep, i)->aborted;
    if (aborted == 0)
        return;
    fprintf(f, "## Loops cut short\n\n"
               "These rows were written with `abort_loops` on: a reply was "
               "closed as soon as it looped (a line five times, or a span of "
               "tokens repeating), and graded from what had arrived "
               "(`finish_reason` \"loop\"). Tokens saved: the cap less "
               "the tokens received, at most; seconds at the rung's median "
               "decode speed. A repeat of the rung with abort off "
               "(`graveyard repeat`) says whether any grade changed.\n\n"
               "| Rung | Cut short | Tokens saved | Seconds saved | Grades "
               "differing in the repeat |\n"
               "|---|---:|---:|---:|---:|\n");
    for (i = 0; i < n; i++) {
        const struct grader_figures *x = grader_ladder_point(rep, i);
        const struct grader_repeat_line *r =
            repeat_of(rep, x->line->rung->name);
        char tok[FMT_SIZE], sec[FMT_SIZE], diff[FMT_SIZE];
        snprintf(diff, sizeof(diff), "%s", FMT_DASH);
        if (r != NULL)
            snprintf(diff, sizeof(diff), "%zu of %zu", r->mismatched_right,
                     r->n);
        fprintf(f, "| %s | %zu | %s | %s | %s |\n", x->line->rung->name,
                x->aborted, fmt_count(tok, (long long)x->tokens_saved),
                fmt_1(sec, x->seconds_saved), diff);
    }
    fprintf(f, "\n");
}

/* Each rung's dead + ghosts against the floor, the questions the
 * reference grades differently when it runs again. */
static void floor_table(FILE *f, const struct grader_ladder *rep)
{
    const char *ref = rep->chain.lines[0].rung->name;
    const struct grader_repeat_line *same = repeat_of(rep, ref);
    size_t i, n = rep->chain.nrungs + rep->nsides;

    fprintf(f, "## Above the noise?\n\n");
    if (rep->floor < 0) {
        fprintf(f,
                "No noise floor: %s has no second run here (`graveyard "
                "ladder --repeat-reference` makes one; or a run of %s in "
                "the folder's `repeat/`, or `--repeat DIR`). Without one, "
                "nothing says how many answers %s changes on its own.\n\n",
                ref, ref, ref);
        return;
    }
    fprintf(f,
            "Noise floor: %s, run a second time, grades %ld question%s "
            "differently (`repeat/`)",
            ref, rep->floor, rep->floor == 1 ? "" : "s");
    if (same != NULL)
        fprintf(f, "; its answer changed on %zu, its text on %zu, of %zu",
                same->mismatched_extracted, same->mismatched_text, same->n);
    fprintf(f,
            ". A rung whose dead + ghosts is at most that moved no more "
            "than %s moves on its own.\n\n"
            "| Rung | Dead | Ghosts | Dead + ghosts | Floor | Verdict |\n"
            "|---|---:|---:|---:|---:|---|\n",
            ref);
    for (i = 1; i < n; i++) {
        const struct grader_figures *x = grader_ladder_point(rep, i);
        const struct grader_bury_line *l = x->line;
        fprintf(f, "| %s | %zu | %zu | %zu | %ld | %s |\n", l->rung->name,
                l->dead, l->ghosts, l->dead + l->ghosts, rep->floor,
                x->above_floor ? "above the floor"
                               : "within the floor: no more than the "
                                 "reference moves on its own");
    }
    fprintf(f, "\n");
}

/* A partial report (--partial) says which rungs are short, and of what. */
static void partial_note(FILE *f, const struct grader_ladder *rep)
{
    size_t i, n = 0;

    for (i = 1; i < rep->chain.nrungs; i++) {
        const struct grader_bury_line *l = &rep->chain.lines[i];
        if (l->missing == 0 && l->extra == 0)
            continue;
        if (n++ == 0)
            fprintf(f, "**Partial report.** ");
        fprintf(f, "%s lacks %zu of %s's %zu questions", l->rung->name,
                l->missing, rep->chain.lines[0].rung->name,
                rep->chain.questions);
        if (l->extra > 0)
            fprintf(f, " and has %zu it lacks", l->extra);
        fprintf(f, "; ");
    }
    if (n > 0)
        fprintf(f, "each rung's dead, ghosts and change are counted on the "
                   "questions it shares with the reference.\n\n");
}

static void deaths_table(FILE *f, const struct grader_ladder *rep)
{
    const struct grader_bury *b = &rep->chain;
    size_t i, again = 0;

    fprintf(f, "## First deaths by rung\n\n"
               "| Rung | First deaths | Right again at a lower rung |\n"
               "|---|---:|---:|\n");
    for (i = 1; i < b->nrungs; i++) {
        fprintf(f, "| %s | %zu | %zu |\n", b->lines[i].rung->name,
                b->lines[i].first_deaths,
                b->lines[i].first_deaths_right_again_lower);
        again += b->lines[i].first_deaths_right_again_lower;
    }
    fprintf(f,
            "\nTombstones: %zu, one per question that dies at some rung; "
            "%zu of them right again lower down. Ghost questions (%s "
            "wrong, right at one rung or more): %zu. First deaths add up to "
            "the tombstones; a rung's dead count also holds questions that "
            "died higher up.\n\n",
            b->ntombs, again, b->lines[0].rung->name, b->nghosts);
}

static void autopsy_table(FILE *f, const struct grader_ladder *rep)
{
    size_t i;

    fprintf(f, "## Autopsy: how each rung's answers fail\n\n"
               "| Rung | Cut off | Looped | Thinking unprompted | Empty "
               "content | Errors | Dead | Dead, cut off | Dead, looped | "
               "Dead, empty |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (i = 0; i < rep->chain.nrungs; i++) {
        const struct grader_autopsy_line *a = &rep->rungs[i].autopsy;
        fprintf(f,
                "| %s | %zu | %zu | %zu | %zu | %zu | %zu | %zu | %zu | "
                "%zu |\n",
                a->rung->name, a->cut_off, a->looped, a->thought,
                a->empty_content, a->errors, a->dead, a->dead_cut_off,
                a->dead_looped, a->dead_empty_content);
    }
    fprintf(f, "\nCut off: stopped at the token cap. Looped: a line of the "
               "answer repeats five or more times. Thinking unprompted: text "
               "in the thinking block with thinking off. Errors (an HTTP "
               "error, a refused answer) are graded wrong.\n\n");
}

static void side_table(FILE *f, const struct grader_ladder *rep)
{
    const char *ref = rep->chain.lines[0].rung->name;
    char a[FMT_SIZE], b[FMT_SIZE], c[FMT_SIZE], d[FMT_SIZE], e[FMT_SIZE];
    size_t i;

    if (rep->nsides == 0)
        return;
    fprintf(f,
            "## Beside the ladder\n\n"
            "Files outside the quantization chain (a quantization-aware "
            "Q4_0, say), buried against the same %s, each set beside the "
            "chain rung nearest in bytes.\n\n"
            "| Rung | %% of %s bytes | Right | Accuracy %% (95 %% CI) | "
            "Censored | Right if censored were right | Dead "
            "| Ghosts | McNemar p | Cut off | Median tok/s | GPU MiB | "
            "Beside | Dead under both | Dead here only | Dead there only "
            "|\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
            "---|---:|---:|---:|\n",
            ref, ref);
    for (i = 0; i < rep->nsides; i++) {
        const struct grader_side *s = &rep->sides[i];
        const struct grader_bury_line *l = s->f.line;
        fprintf(f, "| %s | %s | %zu | %s | ", l->rung->name,
                fmt_1(a, s->f.pct_bytes), l->sum.right,
                fmt_pct_ci(b, s->f.acc, s->f.acc_lo, s->f.acc_hi));
        censored_cells(f, &s->f);
        fprintf(f, "%zu | %zu | %s | %zu | %s | %s | ", l->dead, l->ghosts,
                fmt_p(c, l->p_mcnemar), l->sum.truncated,
                fmt_1(d, l->sum.median_tps),
                fmt_count(e, s->f.meta.gpu_mib_loaded));
        if (s->beside > 0)
            fprintf(f, "%s | %zu | %zu | %zu |\n",
                    rep->chain.lines[s->beside].rung->name, s->dead_both,
                    s->dead_side_only, s->dead_beside_only);
        else
            fprintf(f, "%s | %s | %s | %s |\n", FMT_DASH, FMT_DASH, FMT_DASH,
                    FMT_DASH);
    }
    fprintf(f, "\n");
}

static void repeat_table(FILE *f, const struct grader_ladder *rep)
{
    size_t i;

    if (rep->nrepeats == 0)
        return;
    fprintf(f, "## Repeat: the same rung run twice\n\n"
               "| Rung | Questions compared | Extracted number differs | "
               "Text differs | Grade differs | Right, first run | Right, "
               "second run |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for (i = 0; i < rep->nrepeats; i++) {
        const struct grader_repeat_line *r = &rep->repeats[i];
        fprintf(f, "| %s | %zu | %zu | %zu | %zu | %zu | %zu |\n", r->a->name,
                r->n, r->mismatched_extracted, r->mismatched_text,
                r->mismatched_right, r->right_a, r->right_b);
    }
    fprintf(f, "\nText differs counts answers whose content or thinking "
               "differs by even one character. A tombstone means something "
               "only where a rung gives the same text twice.\n\n");
}

static void epitaphs(FILE *f, const struct grader_ladder *rep,
                     const struct grader_qset *qs)
{
    const struct grader_bury *b = &rep->chain;
    size_t i;

    if (b->ntombs == 0)
        return;
    fprintf(f, "## Tombstones\n\n");
    for (i = 0; i < b->ntombs; i++) {
        const struct grader_tombstone *t = &b->tombs[i];
        char n1[FMT_SIZE], n2[FMT_SIZE], id[2048];
        fmt_id(id, sizeof(id), grader_qset_id(qs, t->q));
        fprintf(f, "- **%s**, answer %s. Died at %s, ", id,
                fmt_number(n1, grader_qset_canonical(qs, t->q)),
                b->lines[t->died_at].rung->name);
        if (t->said != NULL)
            fprintf(f, "said %s. ", fmt_number(n2, t->said));
        else
            fprintf(f, "gave no number. ");
        if (t->right_again == 0) {
            fprintf(f, "Never rose.\n");
        } else {
            fprintf(f, "Rose again at ");
            rung_list(f, b, t->right_again);
            fprintf(f, ".\n");
        }
    }
    fprintf(f, "\n");
    if (b->nghosts == 0)
        return;
    fprintf(f, "## Ghosts\n\n");
    for (i = 0; i < b->nghosts; i++) {
        const struct grader_ghost *g = &b->ghosts[i];
        char n1[FMT_SIZE], n2[FMT_SIZE] = "", id[2048];
        if (g->reference_said != NULL)
            fmt_number(n2, g->reference_said);
        fmt_id(id, sizeof(id), grader_qset_id(qs, g->q));
        fprintf(f, "- **%s**, answer %s. %s %s%s; right at ", id,
                fmt_number(n1, grader_qset_canonical(qs, g->q)),
                b->lines[0].rung->name,
                g->reference_said ? "said " : "gave no number", n2);
        rung_list(f, b, g->right_at);
        fprintf(f, ".\n");
    }
    fprintf(f, "\n");
}

/* Beside the F16 rung: what its cast cost, from graveyard build's
 * f16-range (docs/f16-range.md). */
static void f16_note(FILE *f, const struct rundir_run *run,
                     const struct grader_ladder *rep)
{
    char n[FMT_SIZE], o[FMT_SIZE], u[FMT_SIZE], s[FMT_SIZE];
    const char *rung = run->f16.rung[0] ? run->f16.rung : "F16";
    size_t i;

    if (!run->f16.known)
        return;
    for (i = 0; i < rep->chain.nrungs; i++)
        if (strcmp(rep->rungs[i].line->rung->name, rung) == 0)
            break;
    if (i == rep->chain.nrungs)
        return; /* no F16 rung in this ladder */
    fprintf(f,
            "**%s** was converted from the checkpoint. Cast to F16, its "
            "%s weights (%llu tensors) lose: %s overflow (finite, now "
            "infinite), %s underflow (non-zero, now zero), %s become "
            "subnormal; %llu were NaN or infinite already; the largest "
            "magnitude is %g. From `f16-range.jsonl`'s TOTAL line "
            "(docs/f16-range.md).\n\n",
            rung, fmt_count(n, (long long)run->f16.n), run->f16.tensors,
            fmt_count(o, (long long)run->f16.overflow),
            fmt_count(u, (long long)run->f16.underflow),
            fmt_count(s, (long long)run->f16.subnormal), run->f16.nonfinite,
            run->f16.absmax);
}

/* The picture of the ladder's choices and the study's "which one?". */
static void which_one(FILE *f, const struct grader_ladder *rep)
{
    char words[1200];

    render_pick_words(words, sizeof(words), rep);
    fprintf(f,
            "## Which one?\n\n"
            "![Right against file size and decode speed, each rung a point "
            "with its 95 %% interval; the dashed line joins the rungs no "
            "other rung beats on both counts](pareto.svg)\n\n%s\n\n",
            words);
}

int render_report_md(FILE *f, const struct rundir_run *run,
                     const struct grader_ladder *rep,
                     const struct grader_qset *qs)
{
    char name[4096];

    fmt_text(name, sizeof(name), run->name ? run->name : run->dir);
    fprintf(f, "# graveyard: %s\n\n", name);
    fprintf(f, "Every count below is computed by `graveyard report` from "
               "the rows in `rows/`; nothing is typed in.\n\n");
    settings(f, run, rep);
    fprintf(f, "![The graveyard: one row per rung, one cell per question; "
               "marigold right, grey wrong](cover.svg)\n\n");
    ladder_table(f, rep);
    rules_table(f, rep);
    step_limit_table(f, rep);
    canary_section(f, run);
    constraint_table(f, rep);
    loops_table(f, rep);
    floor_table(f, rep);
    which_one(f, rep);
    f16_note(f, run, rep);
    partial_note(f, rep);
    deaths_table(f, rep);
    autopsy_table(f, rep);
    side_table(f, rep);
    repeat_table(f, rep);
    epitaphs(f, rep, qs);
    return 0;
}
