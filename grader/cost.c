/*
 * cost.c - what a rung's right answers cost (cost.h), and its power
 * samples integrated to joules.
 */
#include "cost.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ladder.h"

/* ---- the power samples -------------------------------------------------- */

/* One segment of answering (a b line to its e line) as it is read. */
struct segment {
    int open;      /* a b line was seen */
    int ended;     /* and its e line */
    double end_ms; /* the e line's time */
    long long n;   /* readings in it */
    double t0, p0; /* its first reading */
    double t, p;   /* its last reading */
    double joules; /* the trapezoids between its readings */
};

/* A number of the file: digits with one optional fraction, nothing else
 * (no sign, no exponent: the runner writes %.3f and integers). The end
 * of it in *end; -1 when there is none. */
static double plain_number(const char *p, const char *lim, const char **end)
{
    const char *q = p;
    char num[40];
    int digits = 0;

    while (q < lim && *q >= '0' && *q <= '9')
        q++, digits++;
    if (q < lim && *q == '.') {
        q++;
        while (q < lim && *q >= '0' && *q <= '9')
            q++, digits++;
    }
    if (digits == 0 || (size_t)(q - p) >= sizeof(num) || *p == '.')
        return -1;
    memcpy(num, p, (size_t)(q - p));
    num[q - p] = '\0';
    *end = q;
    return strtod(num, NULL);
}

/* The segment's energy into out: its readings' trapezoids, the first
 * reading held from its start and the last to its end; without a
 * reading its time goes to unsampled_s. */
static void segment_close(struct segment *s, struct grader_power *out)
{
    double end;

    if (!s->open)
        return;
    end = s->ended ? s->end_ms : s->t; /* killed: its last reading */
    if (s->n == 0) {
        if (s->ended)
            out->unsampled_s += end / 1000.0;
        out->seconds += s->ended ? end / 1000.0 : 0.0;
    } else {
        if (end < s->t)
            end = s->t;
        out->joules +=
            s->joules + s->p0 * s->t0 / 1000.0 + s->p * (end - s->t) / 1000.0;
        out->seconds += end / 1000.0;
        out->samples += s->n;
    }
    memset(s, 0, sizeof(*s));
}

/* One line of the file (no newline): 0, or -1 when it is not one. */
static int power_line(const char *p, size_t len, struct segment *s,
                      struct grader_power *out)
{
    const char *lim = p + len, *q;
    double t, w;

    if (len >= 2 && (p[0] == 'b' || p[0] == 'e') && p[1] == ' ') {
        t = plain_number(p + 2, lim, &q);
        if (t < 0 || q != lim)
            return -1;
        if (p[0] == 'b') {
            segment_close(s, out);
            s->open = 1;
            return 0;
        }
        if (!s->open || s->ended || t < s->t)
            return -1;
        s->ended = 1;
        s->end_ms = t;
        return 0;
    }
    t = plain_number(p, lim, &q);
    if (t < 0 || q >= lim || *q != ' ')
        return -1;
    w = plain_number(q + 1, lim, &q);
    if (w < 0 || q != lim || w > GRADER_WATTS_MAX || !s->open || s->ended ||
        (s->n > 0 && t < s->t))
        return -1;
    if (s->n == 0) {
        s->t0 = t;
        s->p0 = w;
    } else
        s->joules += (t - s->t) * (w + s->p) / 2.0 / 1000.0;
    s->t = t;
    s->p = w;
    s->n++;
    return 0;
}

int grader_power_integrate(const char *p, size_t len, const char *path,
                           struct grader_power *out, struct grader_error *err)
{
    struct segment s;
    const char *end = p + len, *nl;
    long line = 0;

    memset(out, 0, sizeof(*out));
    memset(&s, 0, sizeof(s));
    if (len > GRADER_POWER_MAX)
        return grader__fail(err, GRADER_ETOOBIG, path, 0,
                            "power samples over %u bytes",
                            (unsigned)GRADER_POWER_MAX);
    /* a last line without its newline is a torn write: left out */
    while (p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        line++;
        if (nl > p && power_line(p, (size_t)(nl - p), &s, out) != 0)
            return grader__fail(err, GRADER_EPARSE, path, line,
                                "not a power sample line: \"%.40s\"", p);
        p = nl + 1;
    }
    segment_close(&s, out);
    if (out->samples == 0) {
        out->joules = -1;
        return 0;
    }
    /* the time no reading covers, at the mean power of the time read */
    if (out->unsampled_s > 0 && out->seconds > out->unsampled_s)
        out->joules +=
            out->joules / (out->seconds - out->unsampled_s) * out->unsampled_s;
    return 0;
}

/* ---- cost per right answer ---------------------------------------------- */

/* The rung's completion tokens over the reference's, on the questions
 * both answered with tokens known; -1 when the reference's sum is 0. */
static double tokens_x(const struct grader_rung *r,
                       const struct grader_rung *ref)
{
    uint64_t mine = 0, theirs = 0;
    size_t j;

    for (j = 0; j < r->n; j++) {
        const struct grader_answer *a = &r->answers[j];
        const struct grader_answer *b = grader_rung_find(ref, a->q);
        if (a->tokens < 0 || b == NULL || b->tokens < 0)
            continue;
        mine += (uint64_t)a->tokens;
        theirs += (uint64_t)b->tokens;
    }
    return theirs > 0 ? (double)mine / (double)theirs : -1.0;
}

void grader_cost_of(const struct grader_rung *r, const struct grader_rung *ref,
                    const struct grader_power *power, struct grader_cost *c)
{
    size_t j;

    memset(c, 0, sizeof(*c));
    c->n = r->n;
    for (j = 0; j < r->n; j++) {
        const struct grader_answer *a = &r->answers[j];
        c->right += (a->flags & GRADER_A_RIGHT) != 0;
        c->cut_off += (a->flags & GRADER_A_CUT_OFF) != 0;
        c->thought += (a->flags & GRADER_A_THOUGHT) != 0;
        if (a->tokens >= 0) {
            c->tokens_known++;
            c->tokens += (uint64_t)a->tokens;
        }
        if (a->ms >= 0) {
            c->ms_known++;
            c->seconds += (double)a->ms / 1000.0;
        }
    }
    c->cap_hit = c->n ? (double)c->cut_off / (double)c->n : 0.0;
    /* an unknown answer is priced at the mean of the known ones, so that
     * a rung with a few timings missing is not the cheaper for it */
    c->tokens_per_right = c->right && c->tokens_known
                              ? (double)c->tokens / (double)c->tokens_known *
                                    (double)c->n / (double)c->right
                              : -1.0;
    c->seconds_per_right = c->right && c->ms_known
                               ? c->seconds / (double)c->ms_known *
                                     (double)c->n / (double)c->right
                               : -1.0;
    c->think_per_answer = c->thought && c->tokens_known
                              ? r->think_tokens / (double)c->tokens_known
                              : -1.0;
    c->tokens_x = r != ref ? tokens_x(r, ref) : c->tokens > 0 ? 1.0 : -1.0;
    c->joules = power != NULL && power->samples > 0 ? power->joules : -1.0;
    c->wh_per_right = c->joules >= 0 && c->right
                          ? c->joules / 3600.0 / (double)c->right
                          : -1.0;
}

/* ---- the cost panel's front --------------------------------------------- */

double grader_cost_x(const struct grader_figures *f, int wh)
{
    return wh ? f->cost.wh_per_right : f->cost.seconds_per_right;
}

void grader_cost_pick(const struct grader_ladder *l,
                      struct grader_cost_pick *cp)
{
    size_t n = l->chain.nrungs + l->nsides, p, q, wh_known = 0;

    memset(cp, 0, sizeof(*cp));
    for (p = 0; p < n; p++)
        wh_known += grader_ladder_point(l, p)->cost.wh_per_right >= 0;
    cp->wh = n > 0 && grader_ladder_point(l, 0)->cost.wh_per_right >= 0 &&
             wh_known >= 2;
    for (p = 0; p < n; p++) {
        const struct grader_figures *a = grader_ladder_point(l, p);
        double xa = grader_cost_x(a, cp->wh);
        int beaten = 0;
        if (xa < 0) {
            cp->unknown++;
            continue;
        }
        cp->known++;
        for (q = 0; q < n && !beaten; q++) {
            const struct grader_figures *b = grader_ladder_point(l, q);
            double xb = grader_cost_x(b, cp->wh);
            beaten = q != p && xb >= 0 && xb <= xa && b->acc >= a->acc &&
                     (xb < xa || b->acc > a->acc);
        }
        if (!beaten && p < 64)
            cp->front |= 1ULL << p;
    }
}
