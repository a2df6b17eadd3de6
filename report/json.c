/*
 * json.c - the reports' figures as JSON, for scripts: report.json,
 * compare's and think's lines and files. Field names follow the bury and
 * autopsy lines; schemas/report.schema.json, compare.schema.json and
 * think.schema.json describe them.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../rundir/manifest.h"
#include "emit.h"
#include "md_differs.h"
#include "md_duel.h"
#include "render.h"

static json_t *real4_or_null(double v)
{
    return v < 0 ? json_null() : emit_real4(v);
}

/* A small figure to 6 significant digits (Wh per right answer: a small
 * model's are thousandths); null when negative (unknown). */
static json_t *sig6_or_null(double v)
{
    char t[32];

    if (v < 0 || !isfinite(v))
        return json_null();
    snprintf(t, sizeof(t), "%.6g", v);
    return json_real(strtod(t, NULL));
}

/* Print o as one line and drop it; -1 when out of memory. */
static int put(FILE *f, json_t *o)
{
    char *s = o ? emit_dumps(o) : NULL;

    json_decref(o);
    if (s == NULL)
        return -1;
    fputs(s, f);
    fputc('\n', f);
    emit_free(s);
    return 0;
}

/* A question count, or null for none (-1). */
static json_t *n_or_null(long long n)
{
    return n < 0 ? json_null() : json_integer((json_int_t)n);
}

/* The verdict's fields of a rung (verdict.h); nulls at the reference. */
static void verdict_fields(json_t *o, const struct grader_verdict *v)
{
    int ref = v->kind == GRADER_VERDICT_NONE;

    json_object_set_new(o, "verdict",
                        ref ? json_null()
                            : json_string(grader_verdict_word(v->kind)));
    json_object_set_new(
        o, "change_ci90",
        ref ? json_null()
            : json_pack("[oo]", emit_real4(v->lo90), emit_real4(v->hi90)));
    json_object_set_new(o, "least_change",
                        ref || v->shift == 0
                            ? json_null()
                            : emit_real4((double)v->shift * v->least / 100.0));
    json_object_set_new(o, "n_needed",
                        ref ? json_null()
                            : json_pack("{s:o,s:o}", "mcnemar_80",
                                        n_or_null(v->n_power), "equivalence",
                                        n_or_null(v->n_equiv)));
}

/* What the rung's right answers cost (grader/cost.h); null unknown. */
static json_t *cost_object(const struct grader_cost *c)
{
    return json_pack(
        "{s:I,s:I,s:o,s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "tokens",
        (json_int_t)c->tokens, "tokens_known", (json_int_t)c->tokens_known,
        "seconds", emit_real4(c->seconds), "seconds_known",
        (json_int_t)c->ms_known, "tokens_per_right",
        real4_or_null(c->tokens_per_right), "seconds_per_right",
        real4_or_null(c->seconds_per_right), "cap_hit", emit_real4(c->cap_hit),
        "thinking_tokens_per_answer", real4_or_null(c->think_per_answer),
        "x_reference_tokens", real4_or_null(c->tokens_x), "joules",
        real4_or_null(c->joules), "wh_per_right",
        sig6_or_null(c->wh_per_right), "power",
        json_string(c->joules >= 0 ? "nvidia-smi" : "no readings"));
}

/* A bury line with the report's figures and the autopsy merged in. */
static json_t *rung_object(const struct grader_bury *b, size_t i,
                           const struct grader_figures *x)
{
    json_t *o = emit_bury_line(b, i, &x->meta), *a;

    if (o == NULL)
        return NULL;
    json_object_set_new(o, "sha256",
                        x->meta.sha256[0] ? json_string(x->meta.sha256)
                                          : json_null());
    json_object_set_new(o, "gpu_name",
                        x->meta.gpu_name[0] ? json_string(x->meta.gpu_name)
                                            : json_null());
    /* a served model: its file and build are the server's word (the key
     * only then, so that a ladder of files reads as it always did) */
    if (x->meta.unpinned)
        json_object_set_new(o, "pinned", json_false());
    json_object_set_new(o, "accuracy", emit_real4(x->acc));
    json_object_set_new(
        o, "accuracy_ci95",
        json_pack("[oo]", emit_real4(x->acc_lo), emit_real4(x->acc_hi)));
    if (i == 0) {
        json_object_set_new(o, "change", json_null());
        json_object_set_new(o, "change_ci95", json_null());
    } else {
        json_object_set_new(o, "change", emit_real4(x->delta + 0.0));
        json_object_set_new(o, "change_ci95",
                            json_pack("[oo]", emit_real4(x->delta_lo),
                                      emit_real4(x->delta_hi)));
    }
    json_object_set_new(o, "pct_reference_bytes", real4_or_null(x->pct_bytes));
    json_object_set_new(o, "x_reference_speed", real4_or_null(x->speed_x));
    json_object_set_new(o, "cost", cost_object(&x->cost));
    json_object_set_new(o, "censored", json_integer((json_int_t)x->censored));
    json_object_set_new(o, "aborted", json_integer((json_int_t)x->aborted));
    json_object_set_new(o, "tokens_saved",
                        json_integer((json_int_t)x->tokens_saved));
    json_object_set_new(o, "seconds_saved",
                        x->seconds_saved < 0 ? json_null()
                                             : json_real(x->seconds_saved));
    json_object_set_new(o, "constrained_checked",
                        json_integer((json_int_t)x->checked));
    json_object_set_new(o, "constrained_violated",
                        json_integer((json_int_t)x->violated));
    json_object_set_new(o, "censored_right",
                        json_integer((json_int_t)x->censored_right));
    json_object_set_new(o, "right_max",
                        json_integer((json_int_t)x->right_max));
    json_object_set_new(o, "accuracy_max", emit_real4(x->acc_max));
    json_object_set_new(o, "above_floor",
                        x->above_floor < 0 ? json_null()
                                           : json_boolean(x->above_floor));
    verdict_fields(o, &x->verdict);
    a = emit_autopsy_line(&x->autopsy);
    if (a != NULL) {
        json_object_del(a, "rung");
        json_object_update_missing(o, a);
        json_decref(a);
    }
    return o;
}

static json_t *settings(const struct rundir_run *run)
{
    json_t *o = json_object();

    json_object_set_new(o, "run_dir", json_string(run->dir));
    json_object_set_new(o, "name",
                        run->name ? json_string(run->name) : json_null());
    manifest_settings_into(run->manifest, o);
    return o;
}

/* The task's rules side by side (grader_ladder_rules): [] with one. */
static json_t *rules_array(const struct grader_ladder *rep)
{
    json_t *a = json_array();

    for (size_t k = 0; a != NULL && k < rep->nrules; k++) {
        json_t *rungs = json_array();
        for (size_t i = 0; rungs != NULL && i < rep->nrule_rungs; i++) {
            const struct grader_rule_cell *c = &rep->rules[k].cells[i];
            json_t *cell = json_pack(
                "{s:s,s:I,s:I,s:f,s:I}", "rung",
                grader_ladder_point(rep, i)->line->rung->name, "n",
                (json_int_t)c->n, "right", (json_int_t)c->right, "accuracy",
                c->acc, "graded_differently", (json_int_t)c->differ);
            /* only when some, as in the bury line */
            if (cell != NULL && c->step_limit > 0)
                json_object_set_new(cell, "step_limit",
                                    json_integer((json_int_t)c->step_limit));
            json_array_append_new(rungs, cell);
        }
        json_array_append_new(a, json_pack("{s:s,s:o}", "name",
                                           rep->rules[k].name, "rungs",
                                           rungs ? rungs : json_array()));
    }
    return a;
}

/* pareto.svg's third panel: its front by rung name and its unit ("Wh",
 * "s"; null when no point has a cost). */
static void cost_front(json_t *o, const struct grader_ladder *rep)
{
    struct grader_cost_pick cp;
    json_t *cf = json_array();
    size_t p;

    grader_cost_pick(rep, &cp);
    for (p = 0; p < rep->pick.npoints && p < 64; p++)
        if ((cp.front >> p) & 1)
            json_array_append_new(
                cf,
                json_string(grader_ladder_point(rep, p)->line->rung->name));
    json_object_set_new(o, "cost_front", cf);
    json_object_set_new(o, "cost_unit",
                        cp.known == 0 ? json_null()
                                      : json_string(cp.wh ? "Wh" : "s"));
}

/* pareto.svg's fronts and picks, by rung name. */
static json_t *pick_object(const struct grader_ladder *rep)
{
    const struct grader_pick *pk = &rep->pick;
    json_t *o = json_object(), *bf = json_array(), *sf = json_array(),
           *in = json_array();
    size_t p;

    for (p = 0; p < pk->npoints && p < 64; p++) {
        json_t *name =
            json_string(grader_ladder_point(rep, p)->line->rung->name);
        if ((pk->bytes_front >> p) & 1)
            json_array_append(bf, name);
        if ((pk->speed_front >> p) & 1)
            json_array_append(sf, name);
        if ((pk->equivalent >> p) & 1)
            json_array_append(in, name);
        json_decref(name);
    }
    json_object_set_new(o, "equivalent", in);
    json_object_set_new(o, "bytes_front", bf);
    json_object_set_new(o, "speed_front", sf);
    cost_front(o, rep);
    json_object_set_new(
        o, "smallest",
        pk->smallest < 0
            ? json_null()
            : json_string(grader_ladder_point(rep, (size_t)pk->smallest)
                              ->line->rung->name));
    json_object_set_new(
        o, "fastest",
        pk->fastest < 0
            ? json_null()
            : json_string(grader_ladder_point(rep, (size_t)pk->fastest)
                              ->line->rung->name));
    return o;
}

/* One margin's side of the decision: the pick by name, or when it is the
 * reference, the questions that would tell (null: none would). */
static void decide_side(json_t *o, const struct grader_ladder *rep,
                        const char *key, const char *count, long pick,
                        long long n, long by, size_t better)
{
    char k[48];

    json_object_set_new(
        o, key,
        pick < 0
            ? json_null()
            : json_string(
                  grader_ladder_point(rep, (size_t)pick)->line->rung->name));
    json_object_set_new(o, count, json_integer((json_int_t)better));
    snprintf(k, sizeof(k), "%s_would_tell", key);
    json_object_set_new(
        o, k,
        by < 0 ? json_null()
               : json_pack(
                     "{s:I,s:s}", "questions", (json_int_t)n, "rung",
                     grader_ladder_point(rep, (size_t)by)->line->rung->name));
}

/* "Which file?" at each margin (decide.h). */
static json_t *decide_object(const struct grader_ladder *rep)
{
    struct grader_decide dc;
    json_t *o = json_object(), *a = json_array();

    grader_decide_ladder(rep, &dc);
    for (size_t i = 0; i < dc.n; i++) {
        const struct grader_decision *x = &dc.d[i];
        json_t *m = json_object();
        json_object_set_new(m, "margin_points", json_real(x->asked));
        json_object_set_new(m, "margin_points_used", json_real(x->margin));
        json_object_set_new(m, "margin_raised",
                            json_boolean(x->margin_raised));
        json_object_set_new(m, "own", json_boolean(x->own));
        decide_side(m, rep, "smallest", "rungs_smaller", x->smallest,
                    x->small_n, x->small_by, x->n_smaller);
        decide_side(m, rep, "fastest", "rungs_faster", x->fastest, x->fast_n,
                    x->fast_by, x->n_faster);
        json_array_append_new(a, m);
    }
    json_object_set_new(o, "questions",
                        json_integer((json_int_t)dc.questions));
    json_object_set_new(o, "margins", a);
    return o;
}

/* A run of long items (grader/lengths.h): each rung at each length, and
 * the lost needles by tenth of depth; absent for any other run. */
static json_t *length_cell(long length, const struct grader_figures *x,
                           int ref)
{
    json_t *c = json_pack(
        "{s:I,s:I,s:I,s:o,s:[oo],s:I,s:I}", "length", (json_int_t)length, "n",
        (json_int_t)x->line->sum.n, "right", (json_int_t)x->line->sum.right,
        "accuracy", emit_real4(x->acc), "accuracy_ci95", emit_real4(x->acc_lo),
        emit_real4(x->acc_hi), "dead", (json_int_t)(ref ? 0 : x->line->dead),
        "ghosts", (json_int_t)(ref ? 0 : x->line->ghosts));

    if (c == NULL)
        return NULL;
    json_object_set_new(c, "agreement",
                        ref ? json_null()
                            : emit_real4(1.0 - x->verdict.discordant));
    json_object_set_new(c, "change", ref ? json_null() : emit_real4(x->delta));
    verdict_fields(c, &x->verdict);
    return c;
}

/* Each rung's items (below the reference) by the length where they
 * first died, in the lengths' order. */
static json_t *first_dead_object(const struct grader_ladder *rep)
{
    const struct grader_lengths *l = rep->lengths;
    json_t *fd = json_object();

    for (size_t i = 1; i < l->nrungs; i++) {
        json_t *c = json_array();
        for (size_t k = 0; k < l->nlengths; k++)
            json_array_append_new(
                c, json_integer((json_int_t)l->items_dead_at[i][k]));
        json_object_set_new(fd, rep->chain.lines[i].rung->name, c);
    }
    return fd;
}

static json_t *lengths_object(const struct grader_ladder *rep)
{
    const struct grader_lengths *l = rep->lengths;
    json_t *o = json_object(), *lens = json_array(), *rungs = json_array(),
           *asked = json_array(), *dead = json_object();
    size_t i, k, b;

    for (k = 0; k < l->nlengths; k++)
        json_array_append_new(lens, json_integer((json_int_t)l->lengths[k]));
    for (b = 0; b < GRADER_DEPTH_BINS; b++)
        json_array_append_new(asked,
                              json_integer((json_int_t)l->asked_by_depth[b]));
    for (i = 0; i < l->nrungs; i++) {
        const char *name = rep->chain.lines[i].rung->name;
        json_t *r = json_object(), *cells = json_array(), *d = json_array();
        long first = l->first_not_eq[i];
        for (k = 0; k < l->nlengths; k++)
            json_array_append_new(
                cells,
                length_cell(l->lengths[k], &l->per[k].rungs[i], i == 0));
        json_object_set_new(r, "rung", json_string(name));
        json_object_set_new(r, "first_not_equivalent",
                            first < 0
                                ? json_null()
                                : json_integer((json_int_t)l->lengths[first]));
        json_object_set_new(
            r, "first_worse",
            l->first_worse[i] < 0
                ? json_null()
                : json_integer((json_int_t)l->lengths[l->first_worse[i]]));
        json_object_set_new(r, "cells", cells);
        json_array_append_new(rungs, r);
        for (b = 0; i > 0 && b < GRADER_DEPTH_BINS; b++)
            json_array_append_new(
                d, json_integer((json_int_t)l->dead_by_depth[i][b]));
        if (i > 0)
            json_object_set_new(dead, name, d);
        else
            json_decref(d);
    }
    json_object_set_new(o, "lengths", lens);
    json_object_set_new(o, "margin_points", emit_real4(l->margin));
    json_object_set_new(o, "rungs", rungs);
    json_object_set_new(o, "depth",
                        json_pack("{s:i,s:o,s:o}", "bins", GRADER_DEPTH_BINS,
                                  "asked", asked, "dead", dead));
    json_object_set_new(o, "no_length",
                        json_integer((json_int_t)l->no_length));
    json_object_set_new(o, "items", json_integer((json_int_t)l->items));
    json_object_set_new(o, "items_first_dead_at", first_dead_object(rep));
    return o;
}

int render_report_json(FILE *f, const struct rundir_run *run,
                       const struct grader_ladder *rep,
                       const struct grader_qset *qs)
{
    json_t *o = json_object(), *rungs = json_array(), *side = json_array(),
           *rep_lines = json_array(), *tombs = json_array();
    size_t i;

    if (o == NULL || rungs == NULL || side == NULL || rep_lines == NULL ||
        tombs == NULL) {
        json_decref(o);
        json_decref(rungs);
        json_decref(side);
        json_decref(rep_lines);
        json_decref(tombs);
        return -1;
    }
    json_object_set_new(o, "settings", settings(run));
    json_object_set_new(o, "reference",
                        json_string(rep->chain.lines[0].rung->name));
    for (i = 0; i < rep->chain.nrungs; i++)
        json_array_append_new(rungs,
                              rung_object(&rep->chain, i, &rep->rungs[i]));
    json_object_set_new(o, "rungs", rungs);
    json_object_set_new(o, "summary", emit_bury_summary(&rep->chain));
    for (i = 0; i < rep->nsides; i++) {
        const struct grader_side *s = &rep->sides[i];
        json_t *x = rung_object(&rep->side, i + 1, &s->f);
        if (x == NULL)
            continue;
        json_object_set_new(
            x, "beside",
            s->beside > 0 ? json_string(rep->chain.lines[s->beside].rung->name)
                          : json_null());
        json_object_set_new(x, "dead_both",
                            json_integer((json_int_t)s->dead_both));
        json_object_set_new(x, "dead_here_only",
                            json_integer((json_int_t)s->dead_side_only));
        json_object_set_new(x, "dead_beside_only",
                            json_integer((json_int_t)s->dead_beside_only));
        json_array_append_new(side, x);
    }
    json_object_set_new(o, "side_rungs", side);
    for (i = 0; i < rep->nrepeats; i++)
        json_array_append_new(rep_lines, emit_repeat_line(&rep->repeats[i]));
    json_object_set_new(o, "repeats", rep_lines);
    for (i = 0; i < rep->chain.ntombs; i++)
        json_array_append_new(
            tombs, emit_tombstone(&rep->chain, qs, &rep->chain.tombs[i]));
    json_object_set_new(o, "tombstones", tombs);
    json_object_set_new(o, "which_one", pick_object(rep));
    json_object_set_new(o, "floor",
                        rep->floor < 0 ? json_null()
                                       : json_integer((json_int_t)rep->floor));
    json_object_set_new(o, "margin_points", json_real(rep->margin));
    json_object_set_new(o, "margin_points_used", json_real(rep->margin_used));
    json_object_set_new(o, "margin_raised", json_boolean(rep->margin_raised));
    json_object_set_new(o, "shared_gpus",
                        run->beside ? json_deep_copy(run->beside)
                                    : json_array());
    json_object_set_new(o, "canary",
                        run->canary ? rundir_canary_json(run->canary)
                                    : json_null());
    json_object_set_new(o, "rule",
                        json_string(rep->rule[0] ? rep->rule : "answer-line"));
    json_object_set_new(o, "rules", rules_array(rep));
    if (run->recipes != NULL) /* absent when no rung's file is here */
        json_object_set_new(o, "recipes", json_deep_copy(run->recipes));
    if (rep->probs != NULL) /* absent without probs files: as before */
        json_object_set_new(o, "probs", emit_probs(rep, qs));
    if (render_differs_json(o, run, rep) != 0) {
        json_decref(o);
        return -1;
    }
    json_object_set_new(o, "decide", decide_object(rep)); /* last: new */
    if (rep->lengths != NULL) /* absent but for a run of long items */
        json_object_set_new(o, "lengths", lengths_object(rep));
    if (render_duels_json(o, run, rep) != 0) { /* absent without duels */
        json_decref(o);
        return -1;
    }
    return put(f, o);
}

/* ---- compare --------------------------------------------------------- */

static json_t *counts(const size_t *v, size_t n)
{
    json_t *a = json_array();
    size_t i;

    for (i = 0; i < n; i++)
        json_array_append_new(a, json_integer((json_int_t)v[i]));
    return a;
}

static json_t *pair(const struct render_compare *rc, const size_t *p, size_t n)
{
    return json_pack("{s:[ss],s:I}", "runs", rc->runs[p[0]].label,
                     rc->runs[p[1]].label, "n", (json_int_t)n);
}

/* compare.json's verdicts of rung i: one per run (null at the reference)
 * and whether every run gives the same. */
static void compare_verdicts(json_t *o, const struct grader_compare_rung *r,
                             size_t i, size_t nr)
{
    json_t *v = json_array(), *n = json_array();
    size_t k;

    for (k = 0; k < nr; k++) {
        json_t *x = json_object();
        verdict_fields(x, &r->verdict[k]);
        json_array_append(v, json_object_get(x, "verdict"));
        json_array_append(n, json_object_get(x, "n_needed"));
        json_decref(x);
    }
    json_object_set_new(o, "verdict", v);
    json_object_set_new(o, "n_needed", n);
    json_object_set_new(o, "verdict_holds",
                        i == 0 ? json_null()
                               : json_boolean(r->verdict_holds == 1));
}

static json_t *compare_rung(const struct render_compare *rc, size_t i,
                            int matrix)
{
    const struct grader_compare_rung *r = &rc->c->rungs[i];
    size_t k, nr = rc->c->nruns;
    json_t *o = json_object(), *speed = json_array(), *m;

    json_object_set_new(o, "rung", json_string(rc->names[i]));
    json_object_set_new(o, "right", counts(r->right, nr));
    json_object_set_new(o, "dead", i ? counts(r->dead, nr) : json_null());
    if (matrix) {
        json_t *above = json_array();
        for (k = 0; k < nr; k++)
            json_array_append_new(above,
                                  r->above_floor[k] < 0
                                      ? json_null()
                                      : json_boolean(r->above_floor[k]));
        json_object_set_new(o, "ghosts",
                            i ? counts(r->ghosts, nr) : json_null());
        json_object_set_new(o, "above_floor", above);
        compare_verdicts(o, r, i, nr);
    }
    json_object_set_new(o, "lost_on_all",
                        i ? json_integer((json_int_t)r->lost_all)
                          : json_null());
    json_object_set_new(o, "right_on_all",
                        json_integer((json_int_t)r->all_right));
    json_object_set_new(o, "wrong_on_all",
                        json_integer((json_int_t)r->all_wrong));
    if (nr > 1) {
        json_object_set_new(
            o, "closest",
            pair(rc, r->closest, r->differ[r->closest[0]][r->closest[1]]));
        json_object_set_new(
            o, "furthest",
            pair(rc, r->furthest, r->differ[r->furthest[0]][r->furthest[1]]));
    }
    if (matrix) {
        m = json_array();
        for (k = 0; k < nr; k++)
            json_array_append_new(m, counts(r->differ[k], nr));
        json_object_set_new(o, "graded_differently", m);
    }
    for (k = 0; k < nr; k++) {
        const struct grader_bury_line *l = &rc->c->bury[k].lines[i];
        json_array_append_new(speed, l->sum.median_tps >= 0
                                         ? json_real(l->sum.median_tps)
                                         : json_null());
    }
    json_object_set_new(o, "median_decode_tps", speed);
    return o;
}

static json_t *compare_summary(const struct render_compare *rc)
{
    const struct grader_compare *c = rc->c;
    json_t *o = json_object(), *lonely = json_array();
    size_t i;

    json_object_set_new(o, "runs", json_integer((json_int_t)c->nruns));
    json_object_set_new(o, "same_files", json_boolean(rc->files_same));
    json_object_set_new(o, "died_on_some",
                        json_integer((json_int_t)c->died_some));
    json_object_set_new(o, "died_on_all",
                        json_integer((json_int_t)c->died_every));
    json_object_set_new(o, "died_first_at_same_rung",
                        json_integer((json_int_t)c->died_every_same));
    for (i = 0; i < c->nlonely; i++)
        json_array_append_new(
            lonely, json_pack("{s:s,s:s,s:s}", "id",
                              grader_qset_id(rc->qs, c->lonely[i].q), "run",
                              rc->runs[c->lonely[i].run].label, "died_at",
                              rc->names[c->lonely[i].died_at]));
    json_object_set_new(o, "died_on_one_run_only", lonely);
    return o;
}

int render_compare_lines(FILE *f, const struct render_compare *rc)
{
    size_t i;

    for (i = 0; i < rc->c->nrungs; i++)
        if (put(f, compare_rung(rc, i, 0)) != 0)
            return -1;
    return put(f, compare_summary(rc));
}

int render_compare_json(FILE *f, const struct render_compare *rc)
{
    json_t *o = json_object(), *runs = json_array(), *rungs = json_array();
    size_t k, i;

    for (k = 0; k < rc->c->nruns; k++) {
        json_t *files = json_object();
        for (i = 0; i < rc->c->nrungs; i++) {
            const struct grader_meta *m = &rc->metas[k * rc->c->nrungs + i];
            json_object_set_new(
                files, rc->names[i],
                json_pack("{s:o,s:o,s:o}", "bytes",
                          m->bytes >= 0 ? json_integer(m->bytes) : json_null(),
                          "sha256",
                          m->sha256[0] ? json_string(m->sha256) : json_null(),
                          "gpu_name",
                          m->gpu_name[0] ? json_string(m->gpu_name)
                                         : json_null()));
        }
        json_array_append_new(
            runs, json_pack("{s:s,s:s,s:o}", "label", rc->runs[k].label, "dir",
                            rc->runs[k].dir, "files", files));
    }
    json_object_set_new(o, "runs", runs);
    for (i = 0; i < rc->c->nrungs; i++)
        json_array_append_new(rungs, compare_rung(rc, i, 1));
    json_object_set_new(o, "rungs", rungs);
    json_object_set_new(o, "summary", compare_summary(rc));
    json_object_set_new(o, "files_note", json_string(rc->files_note));
    json_object_set_new(o, "floor",
                        rc->c->floor < 0
                            ? json_null()
                            : json_integer((json_int_t)rc->c->floor));
    json_object_set_new(o, "margin_points", json_real(rc->c->margin));
    json_object_set_new(o, "margin_points_used",
                        json_real(rc->c->floor_points > rc->c->margin
                                      ? rc->c->floor_points
                                      : rc->c->margin));
    return put(f, o);
}

/* ---- think ----------------------------------------------------------- */

static json_t *think_line(const struct grader_think_line *l, size_t i)
{
    json_t *o = json_pack(
        "{s:s,s:I,s:I,s:I,s:I}", "rung", l->off->name, "n", (json_int_t)l->n,
        "right_off", (json_int_t)l->right_off, "right_on",
        (json_int_t)l->right_on, "right_both", (json_int_t)l->right_both);

    if (o == NULL)
        return NULL;
    if (i == 0) {
        json_object_set_new(o, "dead_off", json_null());
        json_object_set_new(o, "dead_on", json_null());
        json_object_set_new(o, "dead_both", json_null());
        json_object_set_new(o, "dead_off_cut_off", json_null());
        json_object_set_new(o, "cut_off_right_on", json_null());
    } else {
        json_object_set_new(o, "dead_off",
                            json_integer((json_int_t)l->dead_off));
        json_object_set_new(o, "dead_on",
                            json_integer((json_int_t)l->dead_on));
        json_object_set_new(o, "dead_both",
                            json_integer((json_int_t)l->dead_both));
        json_object_set_new(o, "dead_off_cut_off",
                            json_integer((json_int_t)l->dead_off_cut_off));
        json_object_set_new(o, "cut_off_right_on",
                            json_integer((json_int_t)l->cut_off_right_on));
    }
    json_object_set_new(o, "mean_tokens_off",
                        real4_or_null(l->mean_tokens_off));
    json_object_set_new(o, "mean_tokens_on", real4_or_null(l->mean_tokens_on));
    json_object_set_new(o, "x_tokens", real4_or_null(l->tokens_x));
    json_object_set_new(o, "median_decode_tps_off",
                        real4_or_null(l->median_tps_off));
    json_object_set_new(o, "median_decode_tps_on",
                        real4_or_null(l->median_tps_on));
    json_object_set_new(o, "x_speed", real4_or_null(l->speed_x));
    return o;
}

int render_think_lines(FILE *f, const struct render_think *t)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        if (put(f, think_line(&t->lines[i], i)) != 0)
            return -1;
    return 0;
}

int render_think_json(FILE *f, const struct render_think *t)
{
    json_t *o = json_object(), *lines = json_array();
    size_t i;

    json_object_set_new(o, "off", settings(t->off));
    json_object_set_new(o, "on", settings(t->on));
    for (i = 0; i < t->n; i++)
        json_array_append_new(lines, think_line(&t->lines[i], i));
    json_object_set_new(o, "rungs", lines);
    json_object_set_new(o, "same_files", json_boolean(t->files_same));
    json_object_set_new(o, "files_note", json_string(t->note));
    return put(f, o);
}
