/*
 * pyre.h - regular expressions that answer as CPython 3.11's `re` does,
 * for the part of its syntax that graders use, so that graveyard can
 * replay lm-eval-harness's filters exactly (docs/grading.md, "Regular
 * expressions"): its regex filter is re.findall, and exact_match's
 * regexes_to_ignore are re.sub(pattern, "", text).
 *
 * The matcher is sre's backtracking algorithm taken step for step
 * (leftmost-first alternation, greedy and lazy repeats, sre's rules for
 * empty iterations and for the groups a failed path leaves), over the
 * code points of a UTF-8 text; positions are byte offsets. Every search
 * is bounded: a step budget and a capped stack of its own (no C
 * recursion), so a catastrophic pattern ends with GRADER_RE_ELIMIT.
 *
 * A library of its own (pyre/, libpyre.a) under the grader: libc only,
 * no file, no header of the grader's; the grader reaches it through
 * this header and re-exports it in grader.h.
 *
 * Supported: literals; escapes \n \t \r \f \v \a \\ \xHH \uHHHH
 * \UHHHHHHHH, octal \0 \012 \123, a backslash before any other
 * non-letter (a literal); \d \D \w \W \s \S with Python's Unicode
 * meaning; \b \B \A \Z; . ^ $; classes [...] with ranges, negation,
 * escapes and shorthands, ']' first and '-' first or last as literals;
 * ( ), (?: ), (?P<name> ) (ASCII names), (?= ), (?! ), (?# );
 * alternation; * + ? {m} {m,} {m,n} {,n} {,} greedy and lazy; a '{' that
 * is no quantifier is a literal; flags (?i) (?m) (?s) (?u) at the start,
 * scoped (?i: ) (?-i: ) and the like. Refused with a message saying "not
 * supported": backreferences, lookbehind, conditionals, atomic groups,
 * possessive quantifiers, \N{...}, (?x), (?a), (?t), non-ASCII group
 * names, and the caps below. What Python refuses is refused too.
 *
 * Text that is not UTF-8: each byte outside a valid sequence is one code
 * point U+DC00 + byte, as Python sees bytes decoded with
 * errors="surrogateescape": it is no digit, letter or space, matches '.',
 * negated classes and \D \W \S, and comes out of sub and lower unchanged.
 */
#ifndef GRADER_PYRE_H
#define GRADER_PYRE_H

#include <stdatomic.h>
#include <stddef.h>

/* What the calls below return on failure. The values are the grader's
 * GRADER_ENOMEM, GRADER_EARG and GRADER_ELIMIT (grader/error.c checks
 * that they agree), so that the grader hands them on as they are; pyre
 * itself includes nothing of the grader's. */
enum grader_re_errno {
    GRADER_RE_ENOMEM = -99,
    GRADER_RE_EARG = -90,
    GRADER_RE_ELIMIT = -89
};

/*
 * The allocator every pyre allocation goes through (NULLs restore the C
 * library's), so that a test can fail each one in turn and see
 * GRADER_RE_ENOMEM and no leak. The grader's grader_set_alloc hands pyre
 * its own counted hooks, so one chaos test covers both libraries. Not
 * thread-safe: call before any other pyre function.
 */
typedef void *(*grader_re_malloc_fn)(size_t size);
typedef void *(*grader_re_realloc_fn)(void *ptr, size_t size);
typedef void (*grader_re_free_fn)(void *ptr);
void grader_re_set_alloc(grader_re_malloc_fn m, grader_re_realloc_fn r,
                         grader_re_free_fn f);
/* Free a text that grader_re_sub_empty or grader_str_lower returned
 * (NULL is fine). In the grader, grader_alloc_free does the same. */
void grader_re_text_free(char *text);

/* A compiled pattern: immutable, may be shared by threads. */
struct grader_re;

/* re.IGNORECASE, re.DOTALL, re.MULTILINE. */
enum grader_re_flags {
    GRADER_RE_IGNORECASE = 1,
    GRADER_RE_DOTALL = 2,
    GRADER_RE_MULTILINE = 4
};

#define GRADER_RE_PATTERN_MAX 4096 /* bytes of a pattern */
#define GRADER_RE_GROUPS_MAX  100  /* capturing groups */
#define GRADER_RE_DEPTH_MAX   100  /* parentheses nested */
/* Steps one iterator (a whole findall or sub) may take: a step is one
 * operator run, one character a repeat counts or gives back, one start
 * position tried. About a second at worst on this machine. */
#define GRADER_RE_STEPS_BASE     100000000ULL
#define GRADER_RE_STEPS_PER_BYTE 256ULL
/* Bytes of backtracking state one search may hold (sre keeps a frame
 * for each iteration of a repeat of a group: "(a|b)*" over a long
 * text is deep). */
#define GRADER_RE_STACK_MAX (64u << 20)

/*
 * A stop for the searches of the calling thread: while *flag is non-zero,
 * a search gives up within 2^20 steps (about 10 ms) as if its budget were
 * spent (GRADER_RE_ELIMIT), so that a process told to stop is not held
 * by a pattern that backtracks for a second. The caller, which knows it
 * asked to stop, throws that result away. NULL (the default) turns it
 * off. The flag is borrowed until then.
 */
void grader_re_cancel_on(const atomic_int *flag);

/*
 * Compile pat[0..len) (UTF-8) with flags (enum grader_re_flags). Returns
 * 0 and a new pattern in *out (free with grader_re_free);
 * GRADER_RE_EARG with one sentence in msg naming the position (in
 * characters, as Python counts) and what is wrong, "not supported" in it
 * when Python would take the pattern; or GRADER_RE_ENOMEM.
 */
int grader_re_compile(const char *pat, size_t len, unsigned flags,
                      struct grader_re **out, char *msg, size_t msgsize);
void grader_re_free(struct grader_re *re);

/* Capturing groups in the pattern (re.compile(p).groups). */
size_t grader_re_groups(const struct grader_re *re);

/*
 * Python's finditer over a text: the successive non-overlapping
 * matches, with Python 3.7+'s empty-match rule (after an empty match
 * the next one starts at the same place but may not be empty there).
 * The struct is the caller's; re and text are borrowed and must outlive
 * it; release it with grader_re_iter_release.
 *
 * lm-eval's findall, from what this gives: with no group each match is
 * the whole match (spans[0..1]); with one group it is that group's
 * text, "" when it did not take part (-1); with several it is the tuple
 * of them, each "" when it did not take part. Its regex filter then
 * takes m[group_select] (0 the first, -1 the last match), for a tuple
 * the first non-empty element (all empty: the fallback "[invalid]"),
 * and strip()s it; no match at all is the fallback too.
 */
struct grader__re_vm;
struct grader_re_iter {
    const struct grader_re *re; /* borrowed */
    const unsigned char *text;  /* borrowed */
    size_t len;
    size_t pos;       /* where the next search starts */
    int must_advance; /* the last match was empty */
    int state;        /* 0 going, 1 done, or the error code */
    /* steps left to this iterator: init sets GRADER_RE_STEPS_BASE +
     * GRADER_RE_STEPS_PER_BYTE * len; a caller may lower it */
    unsigned long long budget;
    struct grader__re_vm *vm; /* owned: allocated at the first search */
};

void grader_re_iter_init(struct grader_re_iter *it, const struct grader_re *re,
                         const char *text, size_t len);
/*
 * The next match. spans has 2 * (groups + 1) entries: [0], [1] the
 * match, [2g], [2g+1] group g, byte offsets into the text, -1 for a
 * group that did not take part. Returns 1 a match, 0 no more,
 * GRADER_RE_ELIMIT when the budget or the stack cap is spent, or
 * GRADER_RE_ENOMEM; after 0 or an error it returns the same again.
 */
int grader_re_iter_next(struct grader_re_iter *it, long *spans);
void grader_re_iter_release(struct grader_re_iter *it);

/*
 * re.sub(pattern, "", text): the text with every match (as the
 * iterator finds them) removed. *out is new, NUL-terminated, *outlen
 * bytes (free with grader_re_text_free). Returns 0, GRADER_RE_ELIMIT or
 * GRADER_RE_ENOMEM (then *out is NULL).
 */
int grader_re_sub_empty(const struct grader_re *re, const char *text,
                        size_t len, char **out, size_t *outlen);
/* 0 when the text holds no byte a match of re can begin with (re.sub
 * would give it back as it is, and finditer nothing), 1 when it may hold
 * a match: a test of bytes that runs no match. */
int grader_re_may_match(const struct grader_re *re, const char *text,
                        size_t len);

/* UTF-8 as Python and the grader's row scanner read it (RFC 3629): the
 * length of the valid sequence at p[0..len), 1 for ASCII, 0 when it is
 * not one (a stray continuation byte, an overlong form, a surrogate, past
 * U+10FFFF, cut short). The report's writers of HTML and XML text use it
 * too. */
size_t grader_utf8_seq(const unsigned char *p, size_t len);

/*
 * Python's str.lower() of UTF-8 text: the full mapping (U+0130 becomes
 * "i" U+0307) and the final-sigma rule (U+03A3 becomes U+03C2 at the end
 * of a word). Bytes that are not UTF-8 are kept. *out is new,
 * NUL-terminated, *outlen bytes (free with grader_re_text_free). Returns 0
 * or GRADER_RE_ENOMEM.
 */
int grader_str_lower(const char *text, size_t len, char **out, size_t *outlen);

#endif
