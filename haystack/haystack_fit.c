/*
 * haystack_fit.c - an item filled to a token target with a caller's
 * counter (haystack.h, haystack_fit; docs/longctx.md, "Filling to a
 * length"): one count without filler, an estimate from it, secant
 * corrections between the nearest counts below and above, bisection when
 * the secant stops helping.
 */
#include <stdio.h>
#include <string.h>

#include "haystack.h"

/* Bytes of one filler unit, about: a word and its space; for cwe,
 * three entries of a rare word ("1234. bakoti\n"). Only the first
 * estimate uses it; the counts correct it. */
#define UNIT_BYTES_TEXT 6.5
#define UNIT_BYTES_CWE  39.0
/* Secant steps before bisection takes over. */
#define SECANT_STEPS 4

struct point {
    size_t fill;
    long tokens;
};

struct fitting {
    const struct haystack_item *it;
    haystack_count_cb count;
    void *ctx;
    struct haystack_prompt *p;
    unsigned calls;
    long target;
    char *msg;
    size_t msgsize;
};

#define SAY(...) snprintf(f->msg, f->msgsize, __VA_ARGS__)

/* The item's name in messages: "niah-single item 3 of seed 7". */
#define ITEM_FMT "%s item %lu of seed %llu"
#define ITEM_ARGS(it)                                                         \
    haystack_kind_name((it)->kind), (unsigned long)(it)->index,               \
        (unsigned long long)(it)->seed

/* Render at fill and count: 0 and *tokens, or an error with msg. */
static int measure(struct fitting *f, size_t fill, long *tokens)
{
    int rc = haystack_render(f->it, fill, f->p);

    if (rc == HAYSTACK_ELIMIT)
        SAY("the prompt of " ITEM_FMT " at %ld tokens would be over %u "
            "bytes",
            ITEM_ARGS(f->it), f->target, HAYSTACK_PROMPT_MAX);
    else if (rc != 0)
        SAY("cannot make " ITEM_FMT ": %s", ITEM_ARGS(f->it),
            haystack_strerror(rc));
    if (rc != 0)
        return rc;
    if (f->calls >= HAYSTACK_FIT_MAX_CALLS) {
        SAY("no fill of " ITEM_FMT " within 1%% of %ld tokens after %u "
            "counts",
            ITEM_ARGS(f->it), f->target, f->calls);
        return HAYSTACK_ENOFIT;
    }
    f->calls++;
    *tokens = f->count(f->ctx, f->p->text, f->p->len);
    if (*tokens < 0) {
        SAY("the token counter failed on " ITEM_FMT " at %zu units",
            ITEM_ARGS(f->it), fill);
        return HAYSTACK_ECOUNT;
    }
    return 0;
}

/* The next fill to try between lo and hi (hi->fill 0: none yet). */
static size_t next_fill(const struct point *zero, const struct point *lo,
                        const struct point *hi, long aim, unsigned steps)
{
    const struct point *a = hi->fill ? lo : zero, *b = hi->fill ? hi : lo;
    double slope = 0, est;

    if (b->fill > a->fill)
        slope = (double)(b->tokens - a->tokens) / (double)(b->fill - a->fill);
    if (steps > SECANT_STEPS || slope <= 0) /* bisection */
        return hi->fill ? lo->fill + (hi->fill - lo->fill) / 2
                        : (lo->fill ? lo->fill * 2 : 1);
    est = (double)lo->fill + (double)(aim - lo->tokens) / slope;
    if (est > (double)HAYSTACK_FILL_MAX)
        return HAYSTACK_FILL_MAX;
    return est < 0 ? 0 : (size_t)est;
}

/* The first estimate: the fixed text's tokens per byte times a unit's
 * bytes. */
static size_t first_fill(const struct fitting *f, long t0, long aim)
{
    double per_byte = f->p->len ? (double)t0 / (double)f->p->len : 0.25;
    double unit =
        (f->it->kind == HAYSTACK_CWE ? UNIT_BYTES_CWE : UNIT_BYTES_TEXT) *
        (per_byte > 0 ? per_byte : 0.25);
    double est = (double)(aim - t0) / unit;

    return est > (double)HAYSTACK_FILL_MAX ? HAYSTACK_FILL_MAX
                                           : (size_t)est + 1;
}

/* The search once fill 0 is counted: lo fits, hi (fill 0: none) does
 * not; ends with lo in the window, or an error. */
static int search(struct fitting *f, struct point *lo, long floor, long aim)
{
    struct point zero = *lo, hi = {0, 0};
    size_t fill = first_fill(f, lo->tokens, aim);
    unsigned steps = 0;
    long t;
    int rc;

    for (;;) {
        if (fill <= lo->fill)
            fill = lo->fill + 1;
        if (hi.fill && fill >= hi.fill)
            fill = hi.fill - 1;
        if (fill <= lo->fill || fill > HAYSTACK_FILL_MAX) {
            if (fill > HAYSTACK_FILL_MAX) {
                SAY(ITEM_FMT " needs over %zu units of filler to reach %ld "
                             "tokens",
                    ITEM_ARGS(f->it), (size_t)HAYSTACK_FILL_MAX, f->target);
                return HAYSTACK_ELIMIT;
            }
            SAY("no fill of " ITEM_FMT " comes within 1%% of %ld tokens: "
                "%ld at %zu units, %ld at %zu",
                ITEM_ARGS(f->it), f->target, lo->tokens, lo->fill, hi.tokens,
                hi.fill);
            return HAYSTACK_ENOFIT;
        }
        if ((rc = measure(f, fill, &t)) != 0)
            return rc;
        if (t <= f->target) {
            lo->fill = fill;
            lo->tokens = t;
            if (t >= floor)
                return 0;
        } else {
            hi.fill = fill;
            hi.tokens = t;
        }
        fill = next_fill(&zero, lo, &hi, aim, ++steps);
    }
}

int haystack_fit(const struct haystack_item *it, long target,
                 haystack_count_cb count, void *ctx, struct haystack_prompt *p,
                 struct haystack_fit *out, char *msg, size_t msgsize)
{
    struct fitting fs = {it, count, ctx, p, 0, target, msg, msgsize}, *f = &fs;
    struct point lo = {0, 0};
    long floor = target - target / 100, aim = target - target / 200;
    int rc, again;

    memset(out, 0, sizeof(*out));
    if (msgsize > 0)
        msg[0] = '\0';
    if (target < 1 || target > HAYSTACK_TARGET_MAX) {
        SAY("target %ld tokens for %s is outside 1..%ld", target,
            haystack_kind_name(it->kind) ? haystack_kind_name(it->kind)
                                         : "an item",
            HAYSTACK_TARGET_MAX);
        return HAYSTACK_EARG;
    }
    if ((unsigned)it->kind >= HAYSTACK_NKINDS || count == NULL) {
        SAY("no such kind of item, or no token counter");
        return HAYSTACK_EARG;
    }
    if ((rc = measure(f, 0, &lo.tokens)) != 0)
        return rc;
    if (lo.tokens > target) {
        SAY(ITEM_FMT " is %ld tokens without filler, over the target %ld "
                     "(its needles and question are longer than the length)",
            ITEM_ARGS(it), lo.tokens, target);
        out->calls = fs.calls;
        return HAYSTACK_ESHORT;
    }
    rc = lo.tokens >= floor ? 0 : search(f, &lo, floor, aim);
    out->fill = lo.fill;
    out->tokens = lo.tokens;
    out->calls = fs.calls;
    /* leave the prompt of the fill chosen (or the best one below) */
    again = (rc == 0 || rc == HAYSTACK_ENOFIT) && p->fill != lo.fill;
    if (again) {
        int r2 = haystack_render(it, lo.fill, p);
        if (r2 != 0)
            return r2;
    }
    return rc;
}
