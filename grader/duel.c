/*
 * duel.c - A against B, answer by answer (duel.h; docs/duel.md).
 */
#include "duel.h"

#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "stats.h"

/* Whether question q is kept: every question, or those of one length. */
static int kept(const struct grader_qset *qs, uint32_t q, long length)
{
    return length < 0 || grader_qset_length(qs, q) == length;
}

void grader_duel_judge(struct grader_duel *d, double margin,
                       double floor_points)
{
    double c, lo, hi;

    d->n = d->both + d->a_only + d->b_only + d->neither;
    d->p = grader_mcnemar_p(d->a_only, d->b_only);
    grader_paired_diff(d->both, d->a_only, d->b_only, d->neither, GRADER_Z95,
                       &c, &lo, &hi);
    d->change = 100.0 * c;
    d->lo95 = 100.0 * lo;
    d->hi95 = 100.0 * hi;
    grader_paired_diff(d->both, d->a_only, d->b_only, d->neither, GRADER_Z90,
                       &c, &lo, &hi);
    d->lo90 = 100.0 * lo;
    d->hi90 = 100.0 * hi;
    /* A in the rung's place: a_only are its ghosts, b_only its dead */
    grader_verdict(d->both, d->a_only, d->b_only, d->neither, margin,
                   floor_points, &d->v);
}

/* 1 when two answers extracted different things: one none and the other
 * a number, or two numbers that differ (canonical forms). */
static int said_apart(const struct grader_rung *a,
                      const struct grader_answer *x,
                      const struct grader_rung *b,
                      const struct grader_answer *y)
{
    const char *s = grader_rung_said(a, x), *t = grader_rung_said(b, y);

    if (s == NULL || t == NULL)
        return (s == NULL) != (t == NULL);
    return strcmp(s, t) != 0;
}

int grader_duel(const struct grader_qset *qs, const struct grader_rung *a,
                const struct grader_rung *b, long length, double margin,
                double floor_points, struct grader_duel *d,
                struct grader_error *err)
{
    size_t nq = grader_qset_count(qs), k = 0;
    const struct grader_answer *x, *y;
    uint32_t q;

    memset(d, 0, sizeof(*d));
    d->length = length;
    d->qs = qs;
    if (length >= 0)
        snprintf(d->subject, sizeof(d->subject), "%ld tokens", length);
    for (q = 0; q < nq; q++) {
        if (!kept(qs, q, length))
            continue;
        x = grader_rung_find(a, q);
        y = grader_rung_find(b, q);
        if (x == NULL || y == NULL) {
            d->only_one += (x != NULL) != (y != NULL);
            continue;
        }
        if (grader_answer_right(x))
            *(grader_answer_right(y) ? &d->both : &d->a_only) += 1;
        else if (grader_answer_right(y))
            d->b_only++;
        else {
            d->neither++;
            d->neither_apart += said_apart(a, x, b, y);
        }
    }
    d->ndisagree = d->a_only + d->b_only;
    if (d->ndisagree > 0 &&
        (d->disagree = grader__reallocarray(NULL, d->ndisagree,
                                            sizeof(*d->disagree))) == NULL)
        return grader__fail(err, GRADER_ENOMEM, NULL, 0,
                            "out of memory (the disagreeing questions)");
    for (q = 0; q < nq && k < d->ndisagree; q++) {
        if (!kept(qs, q, length))
            continue;
        x = grader_rung_find(a, q);
        y = grader_rung_find(b, q);
        if (x != NULL && y != NULL &&
            grader_answer_right(x) != grader_answer_right(y))
            d->disagree[k++] = q;
    }
    grader_duel_judge(d, margin, floor_points);
    return 0;
}

int grader_duel_lengths(const struct grader_qset *qs,
                        const struct grader_rung *a,
                        const struct grader_rung *b, double margin,
                        double floor_points, struct grader_duel **out,
                        size_t *n, struct grader_error *err)
{
    size_t nq = grader_qset_count(qs), nl = 0, i, j;
    long *lens = NULL, *grown, len, t;
    struct grader_duel *d;
    uint32_t q;
    int rc;

    *out = NULL;
    *n = 0;
    if (!grader_qset_has_lengths(qs))
        return 0;
    /* the lengths A or B has a row at, each once, shortest first */
    for (q = 0; q < nq; q++) {
        len = grader_qset_length(qs, q);
        if (len < 0 ||
            (grader_rung_find(a, q) == NULL && grader_rung_find(b, q) == NULL))
            continue;
        for (i = 0; i < nl && lens[i] != len; i++)
            ;
        if (i < nl)
            continue;
        if ((grown = grader__reallocarray(lens, nl + 1, sizeof(*lens))) ==
            NULL) {
            grader__free(lens);
            return grader__fail(err, GRADER_ENOMEM, NULL, 0,
                                "out of memory (the duel's lengths)");
        }
        lens = grown;
        lens[nl++] = len;
    }
    for (i = 1; i < nl; i++)
        for (j = i; j > 0 && lens[j - 1] > lens[j]; j--) {
            t = lens[j];
            lens[j] = lens[j - 1];
            lens[j - 1] = t;
        }
    if (nl == 0)
        return 0;
    if ((d = grader__calloc(nl, sizeof(*d))) == NULL) {
        grader__free(lens);
        return grader__fail(err, GRADER_ENOMEM, NULL, 0,
                            "out of memory (the duel's lengths)");
    }
    for (i = 0; i < nl; i++)
        if ((rc = grader_duel(qs, a, b, lens[i], margin, floor_points, &d[i],
                              err)) != 0) {
            grader_duel_free_all(d, i);
            grader__free(lens);
            return rc;
        }
    grader__free(lens);
    *out = d;
    *n = nl;
    return 0;
}

void grader_duel_free_all(struct grader_duel *d, size_t n)
{
    size_t i;

    for (i = 0; d != NULL && i < n; i++)
        grader_duel_release(&d[i]);
    grader__free(d);
}

/* part's counts added to sum's. */
static void duel_add(struct grader_duel *sum, const struct grader_duel *part)
{
    sum->only_one += part->only_one;
    sum->both += part->both;
    sum->a_only += part->a_only;
    sum->b_only += part->b_only;
    sum->neither += part->neither;
    sum->neither_apart += part->neither_apart;
}

void grader_duel_pool(const struct grader_duel *parts, size_t n, double margin,
                      double floor_points, struct grader_duel *out)
{
    size_t i;

    memset(out, 0, sizeof(*out));
    out->length = -1;
    snprintf(out->subject, sizeof(out->subject), "all");
    for (i = 0; i < n; i++)
        duel_add(out, &parts[i]);
    grader_duel_judge(out, margin, floor_points);
}

double grader_duel_floor(const struct grader_repeat_line *rep)
{
    if (rep == NULL)
        return -1.0;
    return rep->n ? 100.0 * (double)rep->mismatched_right / (double)rep->n
                  : 0.0;
}

const char *grader_duel_word(int kind)
{
    switch (kind) {
    case GRADER_VERDICT_EQUIVALENT:
        return "equivalent";
    case GRADER_VERDICT_BETTER:
        return "a better";
    case GRADER_VERDICT_WORSE:
        return "b better";
    default:
        return "cannot tell";
    }
}

int grader_duel_set_add(struct grader_duel_set *s, const char *subject,
                        const struct grader_qset *qs,
                        const struct grader_rung *a,
                        const struct grader_rung *b, double margin,
                        double floor_points, struct grader_error *err)
{
    struct grader_duel one, *ls = NULL, *grown;
    size_t nl = 0, i;
    int rc;

    if ((rc = grader_duel(qs, a, b, -1, margin, floor_points, &one, err)) != 0)
        return rc;
    snprintf(one.subject, sizeof(one.subject), "%s", subject);
    if ((rc = grader_duel_lengths(qs, a, b, margin, floor_points, &ls, &nl,
                                  err)) != 0) {
        grader_duel_release(&one);
        return rc;
    }
    grown = grader__reallocarray(s->subjects, s->nsubjects + 1 + nl,
                                 sizeof(*grown));
    if (grown == NULL) {
        grader_duel_release(&one);
        grader_duel_free_all(ls, nl);
        return grader__fail(err, GRADER_ENOMEM, NULL, 0,
                            "out of memory (the duel's subjects)");
    }
    s->subjects = grown;
    s->subjects[s->nsubjects++] = one;
    for (i = 0; i < nl; i++)
        s->subjects[s->nsubjects++] = ls[i]; /* their lists move over */
    grader__free(ls);
    s->nfolders++;
    return 0;
}

void grader_duel_set_finish(struct grader_duel_set *s, double margin,
                            double floor_points)
{
    struct grader_duel sum;
    size_t i;

    /* the folders' tables (a length's is a part of its folder's) */
    memset(&sum, 0, sizeof(sum));
    for (i = 0; i < s->nsubjects; i++)
        if (s->subjects[i].length < 0)
            duel_add(&sum, &s->subjects[i]);
    grader_duel_pool(&sum, 1, margin, floor_points, &s->whole);
    s->floor_points = floor_points < 0 ? -1.0 : floor_points;
}

void grader_duel_set_release(struct grader_duel_set *s)
{
    grader_duel_free_all(s->subjects, s->nsubjects);
    s->subjects = NULL;
    s->nsubjects = s->nfolders = 0;
}

void grader_duel_release(struct grader_duel *d)
{
    grader__free(d->disagree);
    d->disagree = NULL;
    d->ndisagree = 0;
}
