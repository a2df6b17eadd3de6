/*
 * internal.h - what the grader's own files share and nobody else may use:
 * the allocation hooks' entry points, the error filler, and helpers of
 * one module used by another. Names carry a double underscore
 * (grader__), jansson's and libuv's convention for the private side of a
 * library. Callers outside grader/ include grader.h only
 * (scripts/check-grader-deps.sh refuses anything else); white-box unit
 * tests may include this file.
 */
#ifndef GRADER_INTERNAL_H
#define GRADER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* alloc.c: every allocation of the library, so the chaos test can fail
 * the Nth one (alloc.h sets the hooks). */
void *grader__malloc(size_t size);
void *grader__calloc(size_t n, size_t size);
void *grader__realloc(void *ptr, size_t size);
void grader__free(void *ptr);
/* realloc for arrays: fails (NULL, ptr kept) when n * size overflows. */
void *grader__reallocarray(void *ptr, size_t n, size_t size);
char *grader__strndup(const char *s, size_t n);

/* error.c: fill err (may be NULL) and return code. text is
 * printf-style. */
int grader__fail(struct grader_error *err, int code, const char *file,
                 long line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* extract.c: a 64-bit hash of a byte string, for hash tables (not for
 * identity). */
uint64_t grader__hash64(const char *p, size_t len, uint64_t seed);

/* Whether s[0..len) holds nothing but spaces, tabs and line ends (rows.c):
 * an empty reply's test, and an empty code block's. */
int grader__blank(const char *s, size_t len);

/* extract.c: whether the 6 bytes before text[colon] spell "answer", any
 * case. */
int grader__answer_before(const char *text, size_t colon);

/* number.c: skip one currency sign ($ £ € ¥ ₹) at p; its length or 0. */
size_t grader__currency_len(const char *p, size_t len);

/* probs.c: the probs record's check over n bytes (probs.h), for the
 * tests that sign a record by hand. */
uint64_t grader__probs_check(const unsigned char *p, size_t n);

/* stats.c: the median of v[0..n) (reorders v); n must be > 0. */
double grader__median(float *v, size_t n);

/* stats.c: grader_paired_diff on counts that may be fractions (shares
 * scaled to a number of questions: verdict.c's n needed). */
void grader__paired_diff_f(double both, double a_only, double b_only,
                           double neither, double z, double *d, double *lo,
                           double *hi);

#endif
