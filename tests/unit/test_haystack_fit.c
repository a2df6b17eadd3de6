/*
 * test_haystack_fit.c - an item filled to a token target (haystack_fit):
 * within 1 % below the target for several targets and counters (bytes/4,
 * words, a coarse one, a curved one), in few calls; the prompt left is
 * the one counted; a counter that fails, a target out of range, a needle
 * longer than the target and a counter too coarse for 1 % each refused
 * with its code and a message.
 *
 * Tests: haystack/haystack_fit.c
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "haystack.h"

struct counter {
    long calls;
    long fail_at; /* the call that returns -1 (0: none) */
    long step;    /* tokens counted in steps of this (coarse) */
};

static long bytes4_cb(void *ctx, const char *text, size_t len)
{
    struct counter *c = ctx;

    (void)text;
    if (++c->calls == c->fail_at)
        return -1;
    return (long)(len / 4);
}

/* one token per word and per punctuation mark */
static long words_cb(void *ctx, const char *text, size_t len)
{
    struct counter *c = ctx;
    long n = 0;
    size_t i;

    c->calls++;
    for (i = 0; i < len; i++)
        if ((text[i] != ' ' && text[i] != '\n' &&
             (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\n')) ||
            text[i] == '.' || text[i] == ',' || text[i] == '?')
            n++;
    return n;
}

/* bytes/3 rounded down to a multiple of step */
static long coarse_cb(void *ctx, const char *text, size_t len)
{
    struct counter *c = ctx;
    long t = (long)(len / 3);

    (void)text;
    c->calls++;
    return t - t % c->step;
}

/* not linear: more tokens per byte the longer the text */
static long curved_cb(void *ctx, const char *text, size_t len)
{
    struct counter *c = ctx;
    double b = (double)len;

    (void)text;
    c->calls++;
    return (long)(b / 5 + b * b / 4e6);
}

static void check_fit(int kind, long target, haystack_count_cb cb,
                      struct counter *c, const char *name)
{
    struct haystack_item it;
    struct haystack_prompt p = {0};
    struct haystack_fit fit;
    struct counter again = *c;
    char msg[256];
    int rc;

    assert_int_equal(haystack_item_make(kind, 77, 4, &it), 0);
    rc = haystack_fit(&it, target, cb, c, &p, &fit, msg, sizeof(msg));
    if (rc != 0)
        fail_msg("%s, %s, %ld: %s", haystack_kind_name(kind), name, target,
                 msg);
    if (fit.tokens > target || fit.tokens < target - target / 100)
        fail_msg("%s, %s: %ld tokens for a target of %ld",
                 haystack_kind_name(kind), name, fit.tokens, target);
    /* the prompt left is the one at that fill, and counts that much */
    assert_int_equal(p.fill, fit.fill);
    assert_int_equal(cb(&again, p.text, p.len), fit.tokens);
    assert_int_equal((long)fit.calls, c->calls);
    assert_true(fit.calls <= HAYSTACK_FIT_MAX_CALLS);
    haystack_prompt_release(&p);
}

static void test_within_one_percent(void **state)
{
    static const long targets[] = {1024, 4096, 16384, 65536, 131072};
    int kind;
    size_t t;

    (void)state;
    for (kind = 0; kind < HAYSTACK_NKINDS; kind++)
        for (t = 0; t < sizeof(targets) / sizeof(targets[0]); t++) {
            struct counter a = {0, 0, 1}, b = {0, 0, 1}, d = {0, 0, 1};
            struct counter e = {0, 0, 8};
            /* cwe's 300 common entries alone are ~1,000 tokens: its
             * lengths start at 4K (docs/longctx.md) */
            if (kind == HAYSTACK_CWE && targets[t] < 4096)
                continue;
            check_fit(kind, targets[t], bytes4_cb, &a, "bytes/4");
            /* a near-linear counter: an estimate and a correction */
            if (a.calls > 4)
                fail_msg("%s, bytes/4, %ld: %ld calls",
                         haystack_kind_name(kind), targets[t], a.calls);
            check_fit(kind, targets[t], words_cb, &b, "words");
            check_fit(kind, targets[t], curved_cb, &d, "curved");
            check_fit(kind, targets[t], coarse_cb, &e, "coarse (8)");
        }
}

static void test_counter_fails(void **state)
{
    struct haystack_item it;
    struct haystack_prompt p = {0};
    struct haystack_fit fit;
    char msg[256];
    long at;

    (void)state;
    assert_int_equal(haystack_item_make(HAYSTACK_VT, 1, 2, &it), 0);
    for (at = 1; at <= 3; at++) {
        struct counter c = {0, at, 1};
        assert_int_equal(haystack_fit(&it, 20000, bytes4_cb, &c, &p, &fit, msg,
                                      sizeof(msg)),
                         HAYSTACK_ECOUNT);
        assert_int_equal(c.calls, at); /* no call after the failure */
        assert_non_null(strstr(msg, "the token counter failed on vt item 2 "
                                    "of seed 1"));
    }
    haystack_prompt_release(&p);
}

static void test_bad_targets(void **state)
{
    static const long bad[] = {0, -1, -4096, HAYSTACK_TARGET_MAX + 1};
    struct haystack_item it;
    struct haystack_prompt p = {0};
    struct haystack_fit fit;
    char msg[256];
    size_t i;

    (void)state;
    assert_int_equal(haystack_item_make(HAYSTACK_NIAH_SINGLE, 1, 2, &it), 0);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct counter c = {0, 0, 1};
        assert_int_equal(haystack_fit(&it, bad[i], bytes4_cb, &c, &p, &fit,
                                      msg, sizeof(msg)),
                         HAYSTACK_EARG);
        assert_int_equal(c.calls, 0); /* refused: the counter never runs */
        assert_non_null(strstr(msg, "is outside 1..16777216"));
    }
    /* the largest target is taken: it ends at the prompt's cap, named */
    {
        struct counter c = {0, 0, 1};
        int rc = haystack_fit(&it, HAYSTACK_TARGET_MAX, bytes4_cb, &c, &p,
                              &fit, msg, sizeof(msg));
        assert_int_equal(rc, HAYSTACK_ELIMIT);
        assert_non_null(strstr(msg, "would be over 8388608 bytes"));
    }
    haystack_prompt_release(&p);
}

/* A target below the item without filler: the needles are longer than
 * the length (one token short of it refused, the length itself taken
 * with no filler). */
static void test_needle_longer_than_target(void **state)
{
    struct haystack_item it;
    struct haystack_prompt p = {0};
    struct haystack_fit fit;
    struct counter c = {0, 0, 1};
    char msg[256];
    long t0;

    (void)state;
    assert_int_equal(haystack_item_make(HAYSTACK_NIAH_MULTIKEY, 1, 2, &it), 0);
    assert_int_equal(haystack_render(&it, 0, &p), 0);
    t0 = (long)(p.len / 4);
    assert_int_equal(
        haystack_fit(&it, t0 - 1, bytes4_cb, &c, &p, &fit, msg, sizeof(msg)),
        HAYSTACK_ESHORT);
    assert_int_equal(c.calls, 1);
    assert_non_null(strstr(msg, "niah-multikey item 2 of seed 1 is "));
    assert_non_null(strstr(msg, "tokens without filler, over the target"));
    c.calls = 0;
    assert_int_equal(
        haystack_fit(&it, t0, bytes4_cb, &c, &p, &fit, msg, sizeof(msg)), 0);
    assert_int_equal(fit.fill, 0);
    assert_int_equal(fit.tokens, t0);
    haystack_prompt_release(&p);
}

/* A counter whose steps are wider than 1 % of the target: no fill lands
 * in the window; the best one below is kept and named. */
static void test_too_coarse(void **state)
{
    struct haystack_item it;
    struct haystack_prompt p = {0};
    struct haystack_fit fit;
    struct counter c = {0, 0, 1000};
    char msg[256];

    (void)state;
    assert_int_equal(haystack_item_make(HAYSTACK_NIAH_SINGLE, 1, 2, &it), 0);
    assert_int_equal(
        haystack_fit(&it, 4500, coarse_cb, &c, &p, &fit, msg, sizeof(msg)),
        HAYSTACK_ENOFIT);
    assert_int_equal(fit.tokens, 4000);
    assert_int_equal(p.fill, fit.fill);
    assert_true(fit.calls <= HAYSTACK_FIT_MAX_CALLS);
    assert_non_null(strstr(msg, "comes within 1% of 4500 tokens: 4000 at"));
    haystack_prompt_release(&p);
}

/* bytes/4, but every count that would land in the window of the
 * target in ctx jumps over it: no fill fits */
static long jump_cb(void *ctx, const char *text, size_t len)
{
    long target = *(long *)ctx, t = (long)(len / 4);

    (void)text;
    return t >= target - target / 100 ? (t > target ? t : target + 1) : t;
}

/* Whatever count the search ended on (below or above), the prompt left is
 * the best fill below the target's, and counts what *out says. */
static void test_no_fit_leaves_best(void **state)
{
    static const long targets[] = {3000, 4500, 7001};
    size_t t;
    uint32_t i;

    (void)state;
    for (t = 0; t < sizeof(targets) / sizeof(targets[0]); t++)
        for (i = 0; i < 20; i++) {
            struct haystack_item it;
            struct haystack_prompt p = {0};
            struct haystack_fit fit;
            long target = targets[t];
            char msg[256];
            assert_int_equal(haystack_item_make(i % HAYSTACK_CWE, 5, i, &it),
                             0);
            assert_int_equal(haystack_fit(&it, target, jump_cb, &target, &p,
                                          &fit, msg, sizeof(msg)),
                             HAYSTACK_ENOFIT);
            if (p.fill != fit.fill ||
                jump_cb(&target, p.text, p.len) != fit.tokens)
                fail_msg("target %ld, item %u: prompt of fill %zu left, "
                         "counting %ld; the fit says fill %zu, %ld tokens",
                         target, i, p.fill, jump_cb(&target, p.text, p.len),
                         fit.fill, fit.tokens);
            assert_true(fit.tokens < target - target / 100);
            haystack_prompt_release(&p);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_within_one_percent),
        cmocka_unit_test(test_counter_fails),
        cmocka_unit_test(test_bad_targets),
        cmocka_unit_test(test_needle_longer_than_target),
        cmocka_unit_test(test_too_coarse),
        cmocka_unit_test(test_no_fit_leaves_best),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
