/*
 * emit_probs.c - report.json's "probs": the split figures (probs.h) as
 * JSON, the same figures REPORT.md's "Where they split" prints, and per
 * dead cell the details the page draws.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "fmt.h"

/* A real to 6 significant digits (a KLD of 3e-05 keeps its figures);
 * null for NAN and the infinities, which JSON has not. */
static json_t *real6(double v)
{
    char s[40];

    if (!isfinite(v))
        return json_null();
    snprintf(s, sizeof(s), "%.6g", v);
    return json_real(strtod(s, NULL));
}

static json_t *count(size_t v)
{
    return json_integer((json_int_t)v);
}

/* A text as it may be shown: valid UTF-8 (jansson takes nothing else),
 * controls visible. */
static json_t *shown(const char *s, size_t len, int lines)
{
    char out[FMT_SHOWN_SIZE(GRADER_PROBS_BEFORE)];

    return json_string(fmt_shown(out, sizeof(out), s, len, lines));
}

/* [id, logprob, text] */
static json_t *token(const struct grader_probs_alt *a)
{
    return json_pack("[Ioo]", (json_int_t)a->id, real6(a->lp),
                     shown(a->text, strnlen(a->text, sizeof(a->text)), 0));
}

/* A top-N list, the alternatives the server did not send left out. */
static json_t *top(const struct grader_probs_alt *a, unsigned n)
{
    json_t *o = json_array();

    for (unsigned i = 0; o != NULL && i < n && i < GRADER_PROBS_TOPN_MAX; i++)
        if (a[i].id != GRADER_PROBS_NONE)
            json_array_append_new(o, token(&a[i]));
    return o;
}

static json_t *rung(const char *name, const struct grader_probs_rung *r)
{
    json_t *o = json_object();

    json_object_set_new(o, "rung", json_string(name));
    json_object_set_new(o, "compared", count(r->both));
    json_object_set_new(o, "flips", count(r->flips));
    json_object_set_new(o, "kld_mean", real6(r->kld_mean));
    json_object_set_new(o, "kld_p99", real6(r->kld_p99));
    json_object_set_new(o, "tokens", count(r->tokens));
    json_object_set_new(o, "split", count(r->split));
    json_object_set_new(o, "split_died", count(r->split_died));
    json_object_set_new(o, "split_rose", count(r->split_rose));
    json_object_set_new(o, "split_survived", count(r->split_survived));
    json_object_set_new(o, "split_position_median",
                        real6(r->split_pos_median));
    json_object_set_new(o, "fragility_auc", real6(r->fragility_auc));
    return o;
}

static json_t *cell(const struct grader_ladder *rep,
                    const struct grader_qset *qs,
                    const struct grader_probs_cell *c, unsigned n)
{
    const struct grader_split *s = &c->s;
    json_t *o = json_object();

    json_object_set_new(o, "rung",
                        json_string(rep->chain.lines[c->rung].rung->name));
    json_object_set_new(
        o, "id", json_string(grader_qset_id(qs, (uint32_t)c->question)));
    json_object_set_new(o, "split", json_integer((json_int_t)s->split));
    json_object_set_new(o, "ref_tokens", count(s->ref_ntok));
    json_object_set_new(o, "rung_tokens", count(s->rung_ntok));
    json_object_set_new(o, "ref_margin", real6(s->ref_margin));
    json_object_set_new(o, "rung_margin", real6(s->rung_margin));
    json_object_set_new(o, "rung_lp_of_ref", real6(s->rung_lp_of_ref));
    json_object_set_new(o, "kld_split", real6(s->kld_split));
    json_object_set_new(o, "kld_mean", real6(s->kld_mean));
    json_object_set_new(o, "kld_max", real6(s->kld_max));
    json_object_set_new(o, "prefix", count(s->prefix));
    json_object_set_new(o, "fragility", real6(s->fragility));
    json_object_set_new(
        o, "before",
        shown(c->before, strnlen(c->before, sizeof(c->before)), 1));
    json_object_set_new(o, "ref_token", token(&c->ref_tok));
    json_object_set_new(o, "rung_token", token(&c->rung_tok));
    json_object_set_new(o, "ref_top", top(c->ref_top, n));
    json_object_set_new(o, "rung_top", top(c->rung_top, n));
    return o;
}

json_t *emit_probs(const struct grader_ladder *rep,
                   const struct grader_qset *qs)
{
    const struct grader_probs_ladder *p = rep->probs;
    json_t *o = json_object(), *rungs = json_array(), *dead = json_array();
    size_t i,
        n = rep->chain.nrungs < p->nrungs ? rep->chain.nrungs : p->nrungs;

    if (o == NULL || rungs == NULL || dead == NULL) {
        json_decref(o);
        json_decref(rungs);
        json_decref(dead);
        return NULL;
    }
    json_object_set_new(o, "topn", json_integer(p->topn));
    for (i = 1; i < n && i < 64; i++)
        if (p->have[i])
            json_array_append_new(
                rungs, rung(rep->chain.lines[i].rung->name, &p->rung[i]));
    json_object_set_new(o, "rungs", rungs);
    json_object_set_new(o, "spearman", real6(p->spearman));
    json_object_set_new(o, "repeat",
                        p->repeat
                            ? json_pack("{s:o,s:I}", "kld_mean",
                                        real6(p->repeat_kld_mean), "split",
                                        (json_int_t)p->repeat_split)
                            : json_null());
    for (i = 0; i < p->ncells; i++)
        if (p->cells[i].rung < n &&
            p->cells[i].question < grader_qset_count(qs))
            json_array_append_new(dead, cell(rep, qs, &p->cells[i], p->topn));
    json_object_set_new(o, "dead", dead);
    return o;
}
