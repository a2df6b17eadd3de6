/*
 * f16.c - the reference cast to binary16 and the counting loops
 * (f16.h). The loops are written for the vectoriser: no branch, no table,
 * 16-bit lanes for BF16 and F16 with counters that cannot wrap within a
 * block, and the block's sums added to 64-bit totals after it.
 */
#include "f16.h"

#include <string.h>

/* A block's counters are as wide as its lanes: at most 32767 elements
 * keep a 16-bit count from wrapping even when signed. */
#define BLOCK16 32767
#define BLOCK32 65536

#define F32_INF  0x7F800000u
#define BF16_INF 0x7F80
#define F16_INF  0x7C00

uint16_t f16_from_f32(uint32_t f)
{
    uint16_t sign = (uint16_t)((f >> 16) & 0x8000u);
    uint32_t a = f & 0x7FFFFFFFu, m, h, rest, half;
    int e, shift;

    if (a > F32_INF) /* NaN: quiet, keeping the payload's top bits */
        return (uint16_t)(sign | 0x7E00u | ((a >> 13) & 0x3FFu));
    if (a >= 0x47800000u) /* 65536 and up, infinity too */
        return (uint16_t)(sign | F16_INF);
    e = (int)(a >> 23); /* biased F32 exponent */
    if (e >= 113) {     /* a binary16 normal: exponent e - 127 + 15 >= 1 */
        m = a & 0x7FFFFFu;
        h = ((uint32_t)(e - 112) << 10) | (m >> 13);
        rest = m & 0x1FFFu;
        /* a carry out of the mantissa moves the exponent up, as it must,
         * and 65520 and up become 0x7C00: infinity */
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
            h++;
        return (uint16_t)(sign | h);
    }
    if (e < 102) /* below 2^-25: zero */
        return sign;
    /* a subnormal in units of 2^-24: value = m * 2^(e - 150) */
    m = (a & 0x7FFFFFu) | 0x800000u;
    shift = 126 - e; /* 14 .. 24 */
    h = m >> shift;
    rest = m & ((1u << shift) - 1u);
    half = 1u << (shift - 1);
    if (rest > half || (rest == half && (h & 1u)))
        h++; /* 2^-14 - 2^-25 rounds up into the normals */
    return (uint16_t)(sign | h);
}

uint32_t f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;

    if (e == 0x1F)
        return sign | F32_INF | (m << 13);
    if (e != 0)
        return sign | ((e + 112u) << 23) | (m << 13);
    if (m == 0)
        return sign;
    e = 113; /* normalise the subnormal */
    while (!(m & 0x400u)) {
        m <<= 1;
        e--;
    }
    return sign | (e << 23) | ((m & 0x3FFu) << 13);
}

/* What the cast does to a magnitude (bits of a non-negative F32), in the
 * order the outcomes come as the magnitude grows. */
enum outcome { ZERO, UNDER, SUB, NORMAL, OVER, NONFINITE };

static enum outcome outcome_of(uint32_t a)
{
    uint16_t h;

    if (a == 0)
        return ZERO;
    if (a >= F32_INF)
        return NONFINITE;
    h = f16_from_f32(a);
    if (h == F16_INF)
        return OVER;
    if (h == 0)
        return UNDER;
    return h < 0x400u ? SUB : NORMAL;
}

static struct {
    int ready;
    uint32_t ovf, unf, sub;      /* F32 magnitude bits (f16.h) */
    int16_t b_ovf, b_unf, b_sub; /* the same for BF16's 16 bits */
} T;

/* The least magnitude whose outcome is at least o (a monotone search). */
static uint32_t first_at_least(enum outcome o)
{
    uint32_t lo = 0, hi = F32_INF; /* outcome_of(hi) >= o for every o */

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (outcome_of(mid) >= o)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static enum outcome outcome_by_thresholds(uint32_t a)
{
    if (a == 0)
        return ZERO;
    if (a >= F32_INF)
        return NONFINITE;
    if (a >= T.ovf)
        return OVER;
    if (a <= T.unf)
        return UNDER;
    return a < T.sub ? SUB : NORMAL;
}

int f16_init(void)
{
    uint32_t b;

    if (T.ready)
        return 0;
    T.ovf = first_at_least(OVER);
    T.unf = first_at_least(SUB) - 1;
    T.sub = first_at_least(NORMAL);
    /* Every BF16 magnitude (a sample of the F32 range from end to end)
     * must get from the thresholds what the reference cast gives it: the
     * outcomes are contiguous, or the search above meant nothing. */
    for (b = 0; b < 0x8000u; b++)
        if (outcome_by_thresholds(b << 16) != outcome_of(b << 16))
            return -1;
    /* BF16 thresholds: h << 16 compared with the F32 ones */
    T.b_ovf = (int16_t)((T.ovf + 0xFFFFu) >> 16);
    T.b_unf = (int16_t)(T.unf >> 16);
    T.b_sub = (int16_t)((T.sub + 0xFFFFu) >> 16);
    T.ready = 1;
    return 0;
}

void f16_thresholds(uint32_t *ovf, uint32_t *unf, uint32_t *sub)
{
    *ovf = T.ovf;
    *unf = T.unf;
    *sub = T.sub;
}

static void absmax_in(struct f16_counts *c, uint32_t f32bits)
{
    if (f32bits > c->absmax)
        c->absmax = f32bits;
}

void f16_count_bf16(const unsigned char *p, size_t n, struct f16_counts *c)
{
    const int16_t ovf = T.b_ovf, unf = T.b_unf, sub = T.b_sub;
    size_t i = 0;

    c->n += n;
    while (i < n) {
        size_t m = n - i < BLOCK16 ? n - i : BLOCK16, j;
        int16_t o = 0, u = 0, s = 0, nf = 0, mx = 0;
        const unsigned char *q = p + 2 * i;

        for (j = 0; j < m; j++) {
            uint16_t v;
            int16_t a, fin;
            memcpy(&v, q + 2 * j, 2);
            a = (int16_t)(v & 0x7FFF);
            fin = a < BF16_INF;
            o = (int16_t)(o + ((a >= ovf) & fin));
            u = (int16_t)(u + ((a != 0) & (a <= unf)));
            s = (int16_t)(s + ((a > unf) & (a < sub)));
            nf = (int16_t)(nf + !fin);
            a = fin ? a : 0;
            mx = a > mx ? a : mx;
        }
        c->overflow += (uint16_t)o;
        c->underflow += (uint16_t)u;
        c->subnormal += (uint16_t)s;
        c->nonfinite += (uint16_t)nf;
        absmax_in(c, (uint32_t)(uint16_t)mx << 16);
        i += m;
    }
}

void f16_count_f32(const unsigned char *p, size_t n, struct f16_counts *c)
{
    const int32_t ovf = (int32_t)T.ovf, unf = (int32_t)T.unf,
                  sub = (int32_t)T.sub, inf = (int32_t)F32_INF;
    size_t i = 0;

    c->n += n;
    while (i < n) {
        size_t m = n - i < BLOCK32 ? n - i : BLOCK32, j;
        int32_t o = 0, u = 0, s = 0, nf = 0, mx = 0;
        const unsigned char *q = p + 4 * i;

        for (j = 0; j < m; j++) {
            uint32_t v;
            int32_t a, fin;
            memcpy(&v, q + 4 * j, 4);
            a = (int32_t)(v & 0x7FFFFFFFu);
            fin = a < inf;
            o += (a >= ovf) & fin;
            u += (a != 0) & (a <= unf);
            s += (a > unf) & (a < sub);
            nf += !fin;
            a = fin ? a : 0;
            mx = a > mx ? a : mx;
        }
        c->overflow += (uint32_t)o;
        c->underflow += (uint32_t)u;
        c->subnormal += (uint32_t)s;
        c->nonfinite += (uint32_t)nf;
        absmax_in(c, (uint32_t)mx);
        i += m;
    }
}

void f16_count_f16(const unsigned char *p, size_t n, struct f16_counts *c)
{
    size_t i = 0;

    c->n += n;
    while (i < n) {
        size_t m = n - i < BLOCK16 ? n - i : BLOCK16, j;
        int16_t nf = 0, mx = 0;
        const unsigned char *q = p + 2 * i;

        for (j = 0; j < m; j++) {
            uint16_t v;
            int16_t a, fin;
            memcpy(&v, q + 2 * j, 2);
            a = (int16_t)(v & 0x7FFF);
            fin = a < F16_INF;
            nf = (int16_t)(nf + !fin);
            a = fin ? a : 0;
            mx = a > mx ? a : mx;
        }
        c->nonfinite += (uint16_t)nf;
        absmax_in(c, f16_to_f32((uint16_t)mx));
        i += m;
    }
}

void f16_counts_add(struct f16_counts *a, const struct f16_counts *b)
{
    a->n += b->n;
    a->overflow += b->overflow;
    a->underflow += b->underflow;
    a->subnormal += b->subnormal;
    a->nonfinite += b->nonfinite;
    absmax_in(a, b->absmax);
}
