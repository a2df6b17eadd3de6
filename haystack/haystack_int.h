/*
 * haystack_int.h - what haystack's files share and nobody else uses:
 * the stream tags, cwe's sizes, the filler sentence and cwe's words.
 */
#ifndef HAYSTACK_INT_H
#define HAYSTACK_INT_H

#include <stddef.h>
#include <stdint.h>

/* The streams of an item (haystack_stream's tag; docs/longctx.md). */
#define HAYSTACK_TAG_ITEM    1u /* answers, needles, depths */
#define HAYSTACK_TAG_FILLER  2u /* the filler sentences, in order */
#define HAYSTACK_TAG_SHUFFLE 3u /* cwe's list order (seed ^ fill * K) */
/* a stream's tag for a kind: the kind in the bits above the tag's 8 */
#define HAYSTACK_TAG(tag, kind) ((uint32_t)(tag) | ((uint32_t)(kind) << 8))

/* cwe (RULER's num_cw, freq_cw, freq_ucw): 10 common words written 30
 * times each, every rare word 3 times; words of three syllables. */
#define HAYSTACK_CWE_COMMON 10
#define HAYSTACK_CWE_FREQ   30
#define HAYSTACK_CWE_RARE   3
#define HAYSTACK_CWE_WORDS  (1u << 18)
/* the rare words' walk through the 2^18 (odd: a permutation) */
#define HAYSTACK_CWE_STEP 104729u

/* fwe (RULER's alpha 2): word rank k written floor(n * 6 / pi^2 / k^2)
 * times in n = 200 + fill words, rank 1 the noise "...", ranks 2 to 4 the
 * answers; 6 / pi^2 = 1 / zeta(2) as a double, so no libm. */
#define HAYSTACK_FWE_BASE 200
#define HAYSTACK_FWE_ZETA 0.6079271018540267

/* The longest filler sentence, NUL included. */
#define HAYSTACK_SENTENCE_MAX 128

/* The next filler sentence of the stream at *state into out (cap bytes,
 * NUL included): its length. */
size_t haystack__sentence(uint64_t *state, char *out, size_t cap);
/* cwe's word number j (below 2^18): six letters and a NUL. */
void haystack__word(uint32_t j, char out[7]);

#endif
