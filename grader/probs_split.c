/*
 * probs_split.c - where a rung's reply split from the reference's, and the
 * per-rung, per-ladder figures built from it (probs.h; docs/grading.md,
 * "Where they split"). The codec is probs.c's; this file only reads
 * decoded answers, so it needs nothing but their structs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "probs.h"

/* An entry that holds probability mass: one the server sent, with a
 * finite log-probability (a NaN or an infinity from a bad file is no
 * mass rather than a poisoned sum). */
static int listed(const struct grader_probs_entry *e)
{
    return e->id != GRADER_PROBS_NONE && isfinite(e->lp);
}

static double floored(double q)
{
    return q < GRADER_PROBS_KLD_FLOOR ? GRADER_PROBS_KLD_FLOOR : q;
}

/* ln of the floor, so that a shared token's term needs no log:
 * p ln(p / q) = p (lp_p - lp_q) */
static const double log_floor = -23.025850929940457; /* ln 1e-10 */

double grader_probs_kld(const struct grader_probs_entry *p,
                        const struct grader_probs_entry *q, unsigned n)
{
    double kld = 0, pm = 0, qm = 0, po, qo;
    unsigned i, j;

    for (i = 0; i < n; i++) {
        if (!listed(&p[i]))
            continue;
        for (j = 0; j < n; j++)
            if (listed(&q[j]) && q[j].id == p[i].id)
                break;
        if (j == n)
            continue; /* in P's list only: its mass is P's "other" */
        double pi = exp((double)p[i].lp), qj = exp((double)q[j].lp);
        double lq = q[j].lp > log_floor ? (double)q[j].lp : log_floor;
        pm += pi;
        qm += qj;
        if (pi > 0)
            kld += pi * ((double)p[i].lp - lq);
    }
    /* every token not in both lists, on each side: one bucket */
    po = pm < 1 ? 1 - pm : 0;
    qo = qm < 1 ? 1 - qm : 0;
    if (po > 0)
        kld += po * log(po / floored(qo));
    /* a sum of terms of either sign: rounding can leave it a hair under
     * the zero that a coarsened KLD cannot go below */
    return kld > 0 ? kld : 0;
}

/* The top-1 minus top-2 log-probability of a list of n, NAN when it has
 * fewer than two entries. */
static double margin(const struct grader_probs_entry *t, unsigned n)
{
    double a = -INFINITY, b = -INFINITY;
    int seen = 0;

    for (unsigned i = 0; i < n; i++) {
        if (!listed(&t[i]))
            continue;
        seen++;
        if (t[i].lp > a) {
            b = a;
            a = t[i].lp;
        } else if (t[i].lp > b) {
            b = t[i].lp;
        }
    }
    return seen < 2 ? NAN : a - b;
}

/* The rung's log-probability of token id in its list t, NAN when absent. */
static double lp_of(const struct grader_probs_entry *t, unsigned n,
                    uint32_t id)
{
    for (unsigned i = 0; i < n; i++)
        if (listed(&t[i]) && t[i].id == id)
            return t[i].lp;
    return NAN;
}

/* The split's figures; with acc, each shared-prefix token's KLD into it. */
static int split_core(const struct grader_probs_answer *ref,
                      const struct grader_probs_answer *rung,
                      size_t answer_end, struct grader_split *out,
                      struct grader_probs_acc *acc, struct grader_error *err)
{
    unsigned n = ref->topn;
    size_t common, i, end;
    double sum = 0;

    memset(out, 0, sizeof(*out));
    if (ref->topn != rung->topn || n == 0 || n > GRADER_PROBS_TOPN_MAX)
        return grader__fail(err, GRADER_EARG, "", 0,
                            "top-N differ: %u at the reference, %u at the "
                            "rung",
                            ref->topn, rung->topn);
    out->ref_ntok = ref->ntok;
    out->rung_ntok = rung->ntok;
    common = ref->ntok < rung->ntok ? ref->ntok : rung->ntok;
    out->split = -1;
    for (i = 0; i < common; i++)
        if (ref->chosen[i].id != rung->chosen[i].id) {
            out->split = (long)i;
            break;
        }
    out->prefix = out->split >= 0 ? (size_t)out->split + 1 : common;
    out->kld_max = out->prefix ? 0 : NAN;
    for (i = 0; i < out->prefix; i++) {
        double k = grader_probs_kld(ref->top + i * n, rung->top + i * n, n);
        sum += k;
        if (k > out->kld_max)
            out->kld_max = k;
        if (acc != NULL)
            grader_probs_acc_token(acc, k);
    }
    out->kld_mean = out->prefix ? sum / (double)out->prefix : NAN;
    out->ref_margin = out->rung_margin = NAN;
    out->rung_lp_of_ref = out->kld_split = NAN;
    if (out->split >= 0) {
        size_t s = (size_t)out->split;
        out->ref_margin = margin(ref->top + s * n, n);
        out->rung_margin = margin(rung->top + s * n, n);
        out->rung_lp_of_ref = lp_of(rung->top + s * n, n, ref->chosen[s].id);
        out->kld_split =
            grader_probs_kld(ref->top + s * n, rung->top + s * n, n);
    }
    out->fragility = NAN;
    end = answer_end < ref->ntok ? answer_end : ref->ntok;
    for (i = 0; i < end; i++) {
        double m = margin(ref->top + i * n, n);
        if (!isnan(m) && (isnan(out->fragility) || m < out->fragility))
            out->fragility = m;
    }
    return 0;
}

int grader_probs_split(const struct grader_probs_answer *ref,
                       const struct grader_probs_answer *rung,
                       size_t answer_end, struct grader_split *out,
                       struct grader_error *err)
{
    return split_core(ref, rung, answer_end, out, NULL, err);
}

/* ---- the per-rung accumulator --------------------------------------- */

void grader_probs_acc_init(struct grader_probs_acc *a)
{
    memset(a, 0, sizeof(*a));
}

/* The histogram bin of a KLD: 0 below 10^LO, the last at or above
 * 10^(LO + DECADES). */
static size_t hist_bin(double k)
{
    double x;

    if (!(k >= 1e-6)) /* 10^GRADER_PROBS_HIST_LO */
        return 0;
    x = (log10(k) - GRADER_PROBS_HIST_LO) * GRADER_PROBS_HIST_PER_DECADE;
    if (x >= GRADER_PROBS_HIST_DECADES * GRADER_PROBS_HIST_PER_DECADE)
        return GRADER_PROBS_HIST_BINS - 1;
    return 1 + (size_t)x;
}

/* What bin b reports: its geometric centre, 0 below the range, the
 * range's top above it. */
static double hist_value(size_t b)
{
    if (b == 0)
        return 0;
    if (b == GRADER_PROBS_HIST_BINS - 1)
        return pow(10, GRADER_PROBS_HIST_LO + GRADER_PROBS_HIST_DECADES);
    return pow(10, GRADER_PROBS_HIST_LO +
                       ((double)b - 0.5) / GRADER_PROBS_HIST_PER_DECADE);
}

void grader_probs_acc_token(struct grader_probs_acc *a, double kld)
{
    a->r.tokens++;
    a->kld_sum += kld;
    a->hist[hist_bin(kld)]++;
}

/* Push v onto a growing array of floats or pairs: 0 or GRADER_ENOMEM. */
static int grow(void **arr, size_t *n, size_t *cap, size_t size)
{
    size_t want;
    void *p;

    if (*n < *cap)
        return 0;
    want = *cap ? *cap * 2 : 64;
    if ((p = grader__reallocarray(*arr, want, size)) == NULL)
        return GRADER_ENOMEM;
    *arr = p;
    *cap = want;
    return 0;
}

int grader_probs_acc_add(struct grader_probs_acc *a,
                         const struct grader_probs_answer *ref,
                         const struct grader_probs_answer *rung,
                         size_t answer_end, int ref_right, int rung_right,
                         struct grader_split *s, struct grader_error *err)
{
    int rc;

    /* room first, so that a failure leaves a's counts as they were */
    if (grow((void **)&a->pos, &a->npos, &a->pos_cap, sizeof(*a->pos)) ||
        grow((void **)&a->frag, &a->nfrag, &a->frag_cap, sizeof(*a->frag)))
        return grader__fail(err, GRADER_ENOMEM, "", 0, "out of memory");
    if ((rc = split_core(ref, rung, answer_end, s, a, err)) != 0)
        return rc;
    ref_right = ref_right != 0;
    rung_right = rung_right != 0;
    a->r.both++;
    a->r.flips += ref_right != rung_right;
    if (s->split >= 0) {
        a->r.split++;
        if (ref_right && !rung_right)
            a->r.split_died++;
        else if (!ref_right && rung_right)
            a->r.split_rose++;
        else
            a->r.split_survived++;
        a->pos[a->npos++] = (float)((double)s->split / (double)s->ref_ntok);
    }
    if (ref_right && !isnan(s->fragility))
        a->frag[a->nfrag++] =
            (struct grader_probs_frag){(float)s->fragility, !rung_right};
    return 0;
}

/* The smallest value with at least 99 % of the tokens at or below it,
 * as the histogram holds it. */
static double hist_p99(const uint64_t *hist, uint64_t n)
{
    uint64_t rank = (uint64_t)ceil(0.99 * (double)n), seen = 0;

    for (size_t b = 0; b < GRADER_PROBS_HIST_BINS; b++) {
        seen += hist[b];
        if (seen >= rank)
            return hist_value(b);
    }
    return NAN;
}

static int cmp_frag(const void *x, const void *y)
{
    float a = ((const struct grader_probs_frag *)x)->fragility;
    float b = ((const struct grader_probs_frag *)y)->fragility;

    return (a > b) - (a < b);
}

double grader_probs_auc(struct grader_probs_frag *f, size_t n)
{
    double nd = 0, ns = 0, rank_sum = 0;
    size_t i, j, k;

    for (i = 0; i < n; i++)
        f[i].died ? nd++ : ns++;
    if (nd == 0 || ns == 0)
        return NAN;
    qsort(f, n, sizeof(*f), cmp_frag);
    /* ascending fragility, ties sharing their average rank */
    for (i = 0; i < n; i = j) {
        for (j = i + 1; j < n && f[j].fragility == f[i].fragility; j++)
            ;
        double avg = ((double)i + 1 + (double)j) / 2;
        for (k = i; k < j; k++)
            if (!f[k].died)
                rank_sum += avg;
    }
    /* U of the survivors: pairs where the survivor was the surer, plus
     * half the ties */
    return (rank_sum - ns * (ns + 1) / 2) / (nd * ns);
}

void grader_probs_acc_finish(struct grader_probs_acc *a,
                             struct grader_probs_rung *out)
{
    *out = a->r;
    out->kld_mean = a->r.tokens ? a->kld_sum / (double)a->r.tokens : NAN;
    out->kld_p99 = a->r.tokens ? hist_p99(a->hist, a->r.tokens) : NAN;
    out->split_pos_median = a->npos ? grader__median(a->pos, a->npos) : NAN;
    out->fragility_auc = grader_probs_auc(a->frag, a->nfrag);
    grader_probs_acc_release(a);
}

void grader_probs_acc_release(struct grader_probs_acc *a)
{
    grader__free(a->pos);
    grader__free(a->frag);
    memset(a, 0, sizeof(*a));
}

/* ---- across rungs --------------------------------------------------- */

/* Average ranks (1-based) of v[0..n) into r; n <= 64. */
static void ranks(const double *v, size_t n, double *r)
{
    for (size_t i = 0; i < n; i++) {
        double below = 0, equal = 0;
        for (size_t j = 0; j < n; j++) {
            below += v[j] < v[i];
            equal += v[j] == v[i];
        }
        r[i] = below + (equal + 1) / 2;
    }
}

double grader_probs_spearman(const double *x, const double *y, size_t n)
{
    double rx[64], ry[64], mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
    size_t i;

    if (n < 3 || n > 64)
        return NAN;
    ranks(x, n, rx);
    ranks(y, n, ry);
    for (i = 0; i < n; i++) {
        mx += rx[i] / (double)n;
        my += ry[i] / (double)n;
    }
    for (i = 0; i < n; i++) {
        sxy += (rx[i] - mx) * (ry[i] - my);
        sxx += (rx[i] - mx) * (rx[i] - mx);
        syy += (ry[i] - my) * (ry[i] - my);
    }
    if (sxx == 0 || syy == 0)
        return NAN;
    return sxy / sqrt(sxx * syy);
}

static int cmp_cell(const void *x, const void *y)
{
    const struct grader_probs_cell *a = x, *b = y;

    if (a->rung != b->rung)
        return a->rung < b->rung ? -1 : 1;
    return (a->question > b->question) - (a->question < b->question);
}

void grader_probs_ladder_finish(struct grader_probs_ladder *p)
{
    double flips[64], kld[64];
    size_t i, n = 0;

    for (i = 1; i < p->nrungs && i < 64; i++)
        if (p->have[i] && !isnan(p->rung[i].kld_mean)) {
            flips[n] = (double)p->rung[i].flips;
            kld[n++] = p->rung[i].kld_mean;
        }
    p->spearman = grader_probs_spearman(flips, kld, n);
    if (p->ncells > 1)
        qsort(p->cells, p->ncells, sizeof(*p->cells), cmp_cell);
}

int grader_probs_ladder_init(struct grader_probs_ladder *p, unsigned topn,
                             size_t nrungs, size_t nq)
{
    memset(p, 0, sizeof(*p));
    if (nrungs > 64)
        return GRADER_EARG;
    p->kld = grader__reallocarray(NULL, nrungs * nq + 1, sizeof(*p->kld));
    if (p->kld == NULL)
        return GRADER_ENOMEM;
    for (size_t i = 0; i < nrungs * nq; i++)
        p->kld[i] = NAN;
    p->topn = topn;
    p->nrungs = nrungs;
    p->nq = nq;
    p->spearman = p->repeat_kld_mean = NAN;
    return 0;
}

/* e of answer a as an alternative for show: its text (from the
 * record's table) cut to fit. */
static void alt_of(struct grader_probs_alt *alt,
                   const struct grader_probs_answer *a,
                   const struct grader_probs_entry *e)
{
    size_t len = 0;
    const char *text = e->id == GRADER_PROBS_NONE
                           ? NULL
                           : grader_probs_entry_text(a, e, &len);

    if (text == NULL)
        len = 0;
    if (len > GRADER_PROBS_SHOWN - 1)
        len = GRADER_PROBS_SHOWN - 1;
    alt->id = e->id;
    alt->lp = e->lp;
    if (len)
        memcpy(alt->text, text, len);
    alt->text[len] = '\0';
}

/* The last bytes of ref's chosen texts before position split, into out
 * (cap bytes, NUL-terminated); a cut start skips UTF-8 continuation
 * bytes, so the kept text does not open mid-character. */
static void before_split(const struct grader_probs_answer *ref, size_t split,
                         char *out, size_t cap)
{
    size_t first = split, total = 0, skip, at = 0;

    while (first > 0 && total < cap - 1) {
        size_t len;
        first--;
        if (grader_probs_entry_text(ref, &ref->chosen[first], &len) != NULL)
            total += len;
    }
    skip = total > cap - 1 ? total - (cap - 1) : 0;
    for (size_t i = first; i < split; i++) {
        size_t len;
        const char *text = grader_probs_entry_text(ref, &ref->chosen[i], &len);
        if (text == NULL)
            len = 0;
        size_t from = skip < len ? skip : len;
        skip -= from;
        if (len > from)
            memcpy(out + at, text + from, len - from);
        at += len - from;
    }
    out[at] = '\0';
    for (skip = 0; skip < at && ((unsigned char)out[skip] & 0xC0) == 0x80 &&
                   total > cap - 1;
         skip++)
        ;
    memmove(out, out + skip, at - skip + 1);
}

int grader_probs_ladder_cell(struct grader_probs_ladder *p, size_t rung,
                             size_t question,
                             const struct grader_probs_answer *ref,
                             const struct grader_probs_answer *rung_a,
                             const struct grader_split *s)
{
    struct grader_probs_cell *c;
    size_t at = (size_t)s->split;
    unsigned n = ref->topn;

    if (s->split < 0 || at >= ref->ntok || at >= rung_a->ntok ||
        n != rung_a->topn || n > GRADER_PROBS_TOPN_MAX)
        return GRADER_EARG;
    /* the cells grow by doubling: room runs out when ncells is 0 or a
     * power of two (the struct keeps no capacity) */
    if ((p->ncells & (p->ncells - 1)) == 0) {
        c = grader__reallocarray(p->cells, p->ncells ? p->ncells * 2 : 1,
                                 sizeof(*c));
        if (c == NULL)
            return GRADER_ENOMEM;
        p->cells = c;
    }
    c = &p->cells[p->ncells++];
    memset(c, 0, sizeof(*c));
    c->rung = rung;
    c->question = question;
    c->s = *s;
    before_split(ref, at, c->before, sizeof(c->before));
    for (unsigned i = 0; i < GRADER_PROBS_TOPN_MAX; i++) {
        static const struct grader_probs_entry none = {GRADER_PROBS_NONE,
                                                       -INFINITY, 0, NULL};
        alt_of(&c->ref_top[i], ref, i < n ? &ref->top[at * n + i] : &none);
        alt_of(&c->rung_top[i], rung_a,
               i < n ? &rung_a->top[at * n + i] : &none);
    }
    alt_of(&c->ref_tok, ref, &ref->chosen[at]);
    alt_of(&c->rung_tok, rung_a, &rung_a->chosen[at]);
    return 0;
}

void grader_probs_ladder_free(struct grader_probs_ladder *p)
{
    if (p == NULL)
        return;
    grader__free(p->kld);
    grader__free(p->cells);
    memset(p, 0, sizeof(*p));
}
