/*
 * test_weights_f16.c - the binary16 cast and the counts (weights/f16.h):
 * every boundary docs/f16-range.md names, every BF16 bit pattern and a
 * sweep of F32 ones against the compiler's own _Float16 conversion, the
 * blocks of the counting loops, and the Python-style float text.
 *
 * Tests: weights/f16.c
 * Tests: weights/f16range.c
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "f16.h"
#include "f16range.h"

static uint32_t bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static float below(float f) { return nextafterf(f, 0.0f); }
static float above(float f) { return nextafterf(f, INFINITY); }

/* Counts of one F32 weight, and of the same as BF16 when it is one. */
static struct f16_counts one_f32(float f)
{
    struct f16_counts c = {0};
    f16_count_f32((const unsigned char *)&f, 1, &c);
    return c;
}

static struct f16_counts one_bf16(float f)
{
    struct f16_counts c = {0};
    uint16_t h = (uint16_t)(bits(f) >> 16);
    assert_true((bits(f) & 0xFFFFu) == 0); /* f must be a BF16 value */
    f16_count_bf16((const unsigned char *)&h, 1, &c);
    return c;
}

#define EXPECT(c, o, u, s, nf)                                                \
    do {                                                                      \
        assert_int_equal((c).overflow, (o));                                  \
        assert_int_equal((c).underflow, (u));                                 \
        assert_int_equal((c).subnormal, (s));                                 \
        assert_int_equal((c).nonfinite, (nf));                                \
    } while (0)

static void test_thresholds(void **state)
{
    uint32_t o, u, s;
    (void)state;
    assert_int_equal(f16_init(), 0);
    f16_thresholds(&o, &u, &s);
    assert_int_equal(o, bits(65520.0f));
    assert_int_equal(u, bits(ldexpf(1, -25)));
    assert_int_equal(s, bits(ldexpf(1, -14) - ldexpf(1, -25)));
}

static void test_reference_boundaries(void **state)
{
    (void)state;
    assert_int_equal(f16_from_f32(bits(65504.0f)), 0x7BFF);
    assert_int_equal(f16_from_f32(bits(below(65520.0f))), 0x7BFF);
    assert_int_equal(f16_from_f32(bits(65520.0f)), 0x7C00); /* tie: even */
    assert_int_equal(f16_from_f32(bits(-65520.0f)), 0xFC00);
    assert_int_equal(f16_from_f32(bits(ldexpf(1, -25))), 0x0000); /* tie */
    assert_int_equal(f16_from_f32(bits(above(ldexpf(1, -25)))), 0x0001);
    assert_int_equal(f16_from_f32(bits(ldexpf(1, -24))), 0x0001);
    assert_int_equal(f16_from_f32(bits(ldexpf(3, -25))), 0x0002); /* tie */
    assert_int_equal(f16_from_f32(bits(ldexpf(1, -14))), 0x0400);
    assert_int_equal(f16_from_f32(bits(ldexpf(1, -14) - ldexpf(1, -25))),
                     0x0400); /* tie between 0x3FF and 0x400: even */
    assert_int_equal(
        f16_from_f32(bits(below(ldexpf(1, -14) - ldexpf(1, -25)))), 0x03FF);
    assert_int_equal(f16_from_f32(bits(1.0f + ldexpf(1, -11))), 0x3C00);
    assert_int_equal(f16_from_f32(bits(1.0f + ldexpf(3, -11))), 0x3C02);
    assert_int_equal(f16_from_f32(bits(INFINITY)), 0x7C00);
    assert_true((f16_from_f32(bits(NAN)) & 0x7FFF) > 0x7C00);
    assert_int_equal(f16_to_f32(0x0001), bits(ldexpf(1, -24)));
    assert_int_equal(f16_to_f32(0x7BFF), bits(65504.0f));
}

/* The five boundaries of the docs, counted as F32 and as BF16. */
static void test_count_boundaries(void **state)
{
    (void)state;
    assert_int_equal(f16_init(), 0);
    EXPECT(one_f32(65504.0f), 0, 0, 0, 0);
    EXPECT(one_f32(below(65520.0f)), 0, 0, 0, 0);
    EXPECT(one_f32(65520.0f), 1, 0, 0, 0);
    EXPECT(one_f32(-65520.0f), 1, 0, 0, 0);
    EXPECT(one_f32(ldexpf(1, -25)), 0, 1, 0, 0);
    EXPECT(one_f32(-ldexpf(1, -25)), 0, 1, 0, 0);
    EXPECT(one_f32(above(ldexpf(1, -25))), 0, 0, 1, 0);
    EXPECT(one_f32(ldexpf(1, -24)), 0, 0, 1, 0);
    EXPECT(one_f32(ldexpf(1, -14)), 0, 0, 0, 0);
    EXPECT(one_f32(ldexpf(1, -14) - ldexpf(1, -25)), 0, 0, 0, 0);
    EXPECT(one_f32(below(ldexpf(1, -14) - ldexpf(1, -25))), 0, 0, 1, 0);
    EXPECT(one_f32(0.0f), 0, 0, 0, 0);
    EXPECT(one_f32(-0.0f), 0, 0, 0, 0);
    EXPECT(one_f32(3.4028234663852886e+38f), 1, 0, 0, 0);
    EXPECT(one_f32(INFINITY), 0, 0, 0, 1);
    EXPECT(one_f32(-INFINITY), 0, 0, 0, 1);
    EXPECT(one_f32(NAN), 0, 0, 0, 1);
    /* BF16 has no 65504 or 65520: 65280 stays, 65536 overflows */
    EXPECT(one_bf16(65280.0f), 0, 0, 0, 0);
    EXPECT(one_bf16(65536.0f), 1, 0, 0, 0);
    EXPECT(one_bf16(ldexpf(1, -25)), 0, 1, 0, 0);
    EXPECT(one_bf16(ldexpf(1, -24)), 0, 0, 1, 0);
    EXPECT(one_bf16(ldexpf(1, -14)), 0, 0, 0, 0);
    EXPECT(one_bf16(ldexpf(255, -22)), 0, 0, 1, 0); /* just below 2^-14 */
    EXPECT(one_bf16(INFINITY), 0, 0, 0, 1);
    EXPECT(one_bf16(-NAN), 0, 0, 0, 1);
}

/* The compiler's binary16 (GCC and Clang on x86-64 and arm64). */
__extension__ typedef _Float16 cc_half;

/* What the compiler's conversion (libgcc's, round to nearest even) says
 * about one F32, as counts. */
static void by_compiler(uint32_t b, struct f16_counts *c)
{
    float f;
    cc_half h;
    uint16_t hb;

    memcpy(&f, &b, 4);
    c->n++;
    if (!isfinite(f)) {
        c->nonfinite++;
        return;
    }
    h = (cc_half)f;
    memcpy(&hb, &h, 2);
    hb &= 0x7FFF;
    if (hb == 0x7C00)
        c->overflow++;
    else if (hb == 0 && f != 0)
        c->underflow++;
    else if (hb != 0 && hb < 0x400)
        c->subnormal++;
    if ((b & 0x7FFFFFFFu) > c->absmax)
        c->absmax = b & 0x7FFFFFFFu;
}

static void assert_same(const struct f16_counts *a, const struct f16_counts *b)
{
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->overflow, b->overflow);
    assert_int_equal(a->underflow, b->underflow);
    assert_int_equal(a->subnormal, b->subnormal);
    assert_int_equal(a->nonfinite, b->nonfinite);
    assert_int_equal(a->absmax, b->absmax);
}

static void test_every_bf16(void **state)
{
    static uint16_t all[65536];
    struct f16_counts ours = {0}, theirs = {0};
    uint32_t i;

    (void)state;
    assert_int_equal(f16_init(), 0);
    for (i = 0; i < 65536; i++) {
        all[i] = (uint16_t)i;
        by_compiler(i << 16, &theirs);
    }
    f16_count_bf16((const unsigned char *)all, 65536, &ours);
    assert_same(&ours, &theirs);
    assert_true(ours.overflow > 0 && ours.underflow > 0 && ours.subnormal > 0);
}

/* F32: every 251st pattern (17 million, both signs), in slices of odd
 * lengths and odd addresses, so blocks and alignment are crossed. */
static void test_f32_sweep(void **state)
{
    static unsigned char buf[4 * 40000 + 1];
    struct f16_counts ours = {0}, theirs = {0};
    uint64_t b = 0;

    (void)state;
    assert_int_equal(f16_init(), 0);
    while (b <= 0xFFFFFFFFull) {
        size_t n = 0;
        while (n < 39999 && b <= 0xFFFFFFFFull) {
            uint32_t v = (uint32_t)b;
            memcpy(buf + 1 + 4 * n, &v, 4);
            by_compiler(v, &theirs);
            n++;
            b += 251;
        }
        f16_count_f32(buf + 1, n, &ours);
    }
    assert_same(&ours, &theirs);
}

/* Past a block of 32767 16-bit counts, none may wrap. */
static void test_blocks(void **state)
{
    static uint16_t w[100003];
    struct f16_counts c = {0};
    size_t i;

    (void)state;
    assert_int_equal(f16_init(), 0);
    for (i = 0; i < 100003; i++)
        w[i] = 0x4780; /* 65536: overflows */
    w[100002] = 0x7F80; /* +inf */
    f16_count_bf16((const unsigned char *)w, 100003, &c);
    EXPECT(c, 100002, 0, 0, 1);
    assert_int_equal(c.absmax, 0x47800000u);
    memset(&c, 0, sizeof c);
    for (i = 0; i < 100003; i++)
        w[i] = 0x3300; /* 2^-25 */
    f16_count_bf16((const unsigned char *)w, 100003, &c);
    EXPECT(c, 0, 100003, 0, 0);
}

static void test_f16_tensor(void **state)
{
    uint16_t w[5] = {0x0001, 0x7BFF, 0xFC00, 0x7E00, 0x8400};
    struct f16_counts c = {0};

    (void)state;
    f16_count_f16((const unsigned char *)w, 5, &c);
    EXPECT(c, 0, 0, 0, 2);
    assert_int_equal(c.n, 5);
    assert_int_equal(c.absmax, bits(65504.0f));
}

static void test_repr(void **state)
{
    static const struct {
        double v;
        const char *s;
    } cases[] = {
        {0.431640625, "0.431640625"},
        {900.0, "900.0"},
        {0.0, "0.0"},
        {1e-05, "1e-05"},
        {0.0001, "0.0001"},
        {65504.0, "65504.0"},
        {5.960464477539063e-08, "5.960464477539063e-08"},
        {3.0517578125e-05, "3.0517578125e-05"},
        {1e16, "1e+16"},
        {1e15, "1000000000000000.0"},
        {123456789.125, "123456789.125"},
        {0.1f, "0.10000000149011612"},
        {3.4028234663852886e+38, "3.4028234663852886e+38"},
        {-2.5, "-2.5"},
    };
    char buf[64];
    size_t i;

    (void)state;
    for (i = 0; i < sizeof cases / sizeof *cases; i++) {
        f16range_repr(cases[i].v, buf, sizeof buf);
        assert_string_equal(buf, cases[i].s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thresholds),
        cmocka_unit_test(test_reference_boundaries),
        cmocka_unit_test(test_count_boundaries),
        cmocka_unit_test(test_every_bf16),
        cmocka_unit_test(test_f32_sweep),
        cmocka_unit_test(test_blocks),
        cmocka_unit_test(test_f16_tensor),
        cmocka_unit_test(test_repr),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
