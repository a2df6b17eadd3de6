/*
 * haystack.h - long-context items made here, in the shape of RULER
 * (Hsieh et al. 2024; lm-eval-harness's `ruler` tasks): needles hidden
 * in filler text generated from a seed, variable tracking, common words
 * (docs/longctx.md).
 *
 * An item is fully determined by (kind, seed, index, fill): its answers,
 * its needles and their depths by (kind, seed, index) alone, never by the
 * length, so a grader re-makes them from a row without any tokenizer;
 * the fill (how many filler sentences, or for cwe how many rare words) is
 * what the length decides. Every random draw comes from splitmix64
 * streams written down in docs/longctx.md, so a Python port can make the
 * same bytes.
 *
 * A library of its own (haystack/, libhaystack.a): libc only, no libm,
 * no file, no header but its own; both the grader and the orchestrator
 * may link it. Every buffer has a cap: a prompt is at most
 * HAYSTACK_PROMPT_MAX bytes, a target at most HAYSTACK_TARGET_MAX tokens.
 */
#ifndef HAYSTACK_H
#define HAYSTACK_H

#include <stddef.h>
#include <stdint.h>

#define HAYSTACK_MAX_NEEDLES   8  /* needles (statements) of one item */
#define HAYSTACK_MAX_ANSWERS   10 /* expected strings of one item (cwe's 10) */
#define HAYSTACK_ANSWER_MAX    40 /* one answer, NUL included (a uuid: 36) */
#define HAYSTACK_NEEDLE_MAX    192 /* one needle sentence, NUL included */
#define HAYSTACK_QUERY_MAX     256 /* the keys asked, NUL included */
#define HAYSTACK_PROMPT_MAX    (8u << 20)        /* a prompt's bytes: 8 MiB */
#define HAYSTACK_TARGET_MAX    (1L << 24)        /* a target's tokens */
#define HAYSTACK_FILL_MAX      ((size_t)1 << 22) /* filler units */
#define HAYSTACK_FIT_MAX_CALLS 32   /* counting calls of one haystack_fit */
#define HAYSTACK_NO_DEPTH      (-1) /* cwe: no needle, so no depth */

/* The errors, as libuv's UV_ERRNO_MAP: code, name, message. */
#define HAYSTACK_ERRORS(X)                                                    \
    X(EARG, -1, "bad argument")                                               \
    X(ENOMEM, -2, "out of memory")                                            \
    X(ELIMIT, -3, "over a cap")                                               \
    X(ESHORT, -4, "the target is shorter than the item without filler")       \
    X(ECOUNT, -5, "the token counter failed")                                 \
    X(ENOFIT, -6, "no fill comes within 1% of the target")

enum {
#define HAYSTACK_X(name, code, text) HAYSTACK_##name = (code),
    HAYSTACK_ERRORS(HAYSTACK_X)
#undef HAYSTACK_X
};

/* The message of an error code ("unknown error" for another). */
const char *haystack_strerror(int code);

/* The kinds, in RULER's shape (docs/longctx.md's table). */
enum haystack_kind {
    HAYSTACK_NIAH_SINGLE,     /* one key's number in the filler */
    HAYSTACK_NIAH_MULTIKEY,   /* the asked key among 3 distractor keys,
                                 each with its own value (uuids) */
    HAYSTACK_NIAH_MULTIVALUE, /* one key, 4 numbers: all asked */
    HAYSTACK_NIAH_MULTIQUERY, /* 4 keys asked, each one number */
    HAYSTACK_VT,              /* variable tracking: a chain of 5 */
    HAYSTACK_CWE,             /* the 10 most common words of a list */
    HAYSTACK_FWE,             /* the 3 most frequent words of a coded text
                                 (RULER's counts n k^-2 / zeta(2)) */
    HAYSTACK_NKINDS
};

/* A kind's name ("niah-single", ...), or NULL past the last. */
const char *haystack_kind_name(enum haystack_kind kind);
/* The kind called name: 0 and *out, or HAYSTACK_EARG. */
int haystack_kind_parse(const char *name, enum haystack_kind *out);

/* What an item is, whatever its length: plain data, the caller's. */
struct haystack_item {
    enum haystack_kind kind;
    uint64_t seed;
    uint32_t index;
    size_t nanswers; /* the expected strings, all of them asked */
    char answers[HAYSTACK_MAX_ANSWERS][HAYSTACK_ANSWER_MAX];
    size_t nneedles; /* the statements hidden in the filler (0: cwe) */
    char needles[HAYSTACK_MAX_NEEDLES][HAYSTACK_NEEDLE_MAX];
    int needle_depth[HAYSTACK_MAX_NEEDLES]; /* each one's, 0..100 % */
    int depth;                      /* the asked needle's depth, 0..100 %, or
                                       HAYSTACK_NO_DEPTH (cwe) */
    char query[HAYSTACK_QUERY_MAX]; /* the keys asked, the value traced,
                                       "" for cwe and fwe */
    uint32_t words[HAYSTACK_MAX_ANSWERS]; /* cwe: the common words'; fwe:
                                             ranks 2 to 4's and the start
                                             of the others' walk */
};

/*
 * Make item index of kind from seed into *out: its answers, needles,
 * depths and query. 0, or HAYSTACK_EARG (no such kind).
 */
int haystack_item_make(enum haystack_kind kind, uint64_t seed, uint32_t index,
                       struct haystack_item *out);

/* A prompt being made: the text and where each needle sits. Zeroed by
 * the caller before the first use; the text is reused by every render
 * into it; haystack_prompt_release frees it. */
struct haystack_prompt {
    char *text; /* NUL-terminated, len bytes */
    size_t len, cap;
    size_t needle_at[HAYSTACK_MAX_NEEDLES]; /* byte offset of needle i */
    size_t fill;                            /* the fill it was made with */
};
void haystack_prompt_release(struct haystack_prompt *p);

/*
 * The prompt of it with fill units of filler (words of the filler
 * sentences, the last sentence cut short ending with a period; for cwe,
 * rare words each written 3 times; for fwe, words of the coded text over
 * its first 200) into p. 0, or HAYSTACK_EARG (fill over
 * HAYSTACK_FILL_MAX), HAYSTACK_ELIMIT (over HAYSTACK_PROMPT_MAX bytes),
 * HAYSTACK_ENOMEM; p's text is then unspecified.
 */
int haystack_render(const struct haystack_item *it, size_t fill,
                    struct haystack_prompt *p);

/* Counts the tokens of text[0..len): the count, or -1 on an error. */
typedef long (*haystack_count_cb)(void *ctx, const char *text, size_t len);

struct haystack_fit {
    size_t fill;    /* the units chosen */
    long tokens;    /* the prompt's true count at that fill */
    unsigned calls; /* calls of the counter it took */
};

/*
 * Find the largest-enough fill whose prompt counts at most target tokens
 * and at least target - target / 100 (within 1 %, never above), and leave
 * that prompt in p. The calls: one without filler, one estimate, secant
 * corrections, bisection as the fallback: at most HAYSTACK_FIT_MAX_CALLS,
 * 3 or 4 for a counter that is near linear (docs/longctx.md). 0, or:
 * HAYSTACK_EARG (target below 1 or over HAYSTACK_TARGET_MAX),
 * HAYSTACK_ESHORT (the item without filler is already over target: a
 * needle longer than the length), HAYSTACK_ECOUNT (the counter said -1),
 * HAYSTACK_ENOFIT (no fill lands in the window, or the calls ran out: *out
 * then holds the best fill below target), HAYSTACK_ELIMIT, HAYSTACK_ENOMEM;
 * each with a message in msg naming the kind, seed, index and target.
 */
int haystack_fit(const struct haystack_item *it, long target,
                 haystack_count_cb count, void *ctx, struct haystack_prompt *p,
                 struct haystack_fit *out, char *msg, size_t msgsize);

/* ---- the PRNG, public for tests and ports (docs/longctx.md) ---------- */

/* splitmix64: *state += 0x9e3779b97f4a7c15, then the mix; the output. */
uint64_t haystack_splitmix64(uint64_t *state);
/* The state of stream tag of item (seed, index). */
uint64_t haystack_stream(uint64_t seed, uint32_t index, uint32_t tag);
/* Uniform in [0, n), n >= 1, by rejection (no modulo bias). */
uint64_t haystack_below(uint64_t *state, uint64_t n);

#endif
