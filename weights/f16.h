/*
 * f16.h - what casting a weight to IEEE binary16 costs (docs/f16-range.md).
 *
 * The cast is round to nearest, ties to even, the one numpy, PyTorch and
 * llama.cpp's converter use. For each weight the counts say what the cast
 * does to it:
 *
 *   overflow   a finite weight that becomes infinite (|x| >= 65520)
 *   underflow  a non-zero weight that becomes zero (|x| <= 2^-25)
 *   subnormal  a weight whose binary16 value is non-zero and below 2^-14
 *   nonfinite  NaN or infinite already: counted here and nowhere else
 *   absmax     the largest finite magnitude
 *
 * The thresholds are not typed in: f16_init() finds them by running the
 * reference cast (f16_from_f32) over every bit pattern in order, and
 * checks that each outcome is one contiguous range of magnitudes. The
 * counting loops then compare the magnitude's bit pattern with them, which
 * a compiler turns into vector code: a 1 GiB BF16 file is a memory-bound
 * scan (make bench).
 *
 * libc only. The caller owns every buffer.
 */
#ifndef F16_H
#define F16_H

#include <stddef.h>
#include <stdint.h>

struct f16_counts {
    uint64_t n, overflow, underflow, subnormal, nonfinite;
    uint32_t absmax; /* bits of the largest finite |x|, as an F32 */
};

/* IEEE binary16 bits of the F32 whose bits are f, rounded to nearest,
 * ties to even (NaN stays NaN). The reference the counts are made from. */
uint16_t f16_from_f32(uint32_t f);

/* F32 bits of a binary16 (exact). */
uint32_t f16_to_f32(uint16_t h);

/* Find the thresholds (once; later calls return at once). Returns 0, or -1
 * when the reference cast is not monotone, which is a bug. */
int f16_init(void);

/* Add n weights of each format to c. p need not be aligned. f16_init()
 * must have run. */
void f16_count_bf16(const unsigned char *p, size_t n, struct f16_counts *c);
void f16_count_f32(const unsigned char *p, size_t n, struct f16_counts *c);
/* A binary16 tensor costs nothing: n, absmax and nonfinite only. */
void f16_count_f16(const unsigned char *p, size_t n, struct f16_counts *c);

/* Add b's counts to a (absmax: the larger). */
void f16_counts_add(struct f16_counts *a, const struct f16_counts *b);

/* The thresholds found, as F32 magnitude bits, for tests and docs:
 * overflow >= ovf; underflow 0 < x <= unf; subnormal unf < x < sub. */
void f16_thresholds(uint32_t *ovf, uint32_t *unf, uint32_t *sub);

#endif
