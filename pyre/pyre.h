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
 * recursion), so a catastrophic pattern ends with PYRE_ELIMIT.
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
#ifndef PYRE_H
#define PYRE_H

#include <stdatomic.h>
#include <stddef.h>

/* What the calls below return on failure. The values are the grader's
 * GRADER_ENOMEM, GRADER_EARG and GRADER_ELIMIT (grader/error.c checks
 * that they agree), so that the grader hands them on as they are; pyre
 * itself includes nothing of the grader's. */
enum pyre_errno { PYRE_ENOMEM = -99, PYRE_EARG = -90, PYRE_ELIMIT = -89 };

/*
 * The allocator every pyre allocation goes through (NULLs restore the C
 * library's), so that a test can fail each one in turn and see
 * PYRE_ENOMEM and no leak. The grader's grader_set_alloc hands pyre
 * its own counted hooks, so one chaos test covers both libraries. Not
 * thread-safe: call before any other pyre function.
 */
typedef void *(*pyre_malloc_fn)(size_t size);
typedef void *(*pyre_realloc_fn)(void *ptr, size_t size);
typedef void (*pyre_free_fn)(void *ptr);
void pyre_set_alloc(pyre_malloc_fn m, pyre_realloc_fn r, pyre_free_fn f);
/* Free a text that pyre_sub_empty or pyre_str_lower returned
 * (NULL is fine). In the grader, grader_alloc_free does the same. */
void pyre_text_free(char *text);

/* A compiled pattern: immutable, may be shared by threads. */
struct pyre;

/* re.IGNORECASE, re.DOTALL, re.MULTILINE. */
enum pyre_flags { PYRE_IGNORECASE = 1, PYRE_DOTALL = 2, PYRE_MULTILINE = 4 };

#define PYRE_PATTERN_MAX 4096 /* bytes of a pattern */
#define PYRE_GROUPS_MAX  100  /* capturing groups */
#define PYRE_DEPTH_MAX   100  /* parentheses nested */
/* Steps one iterator (a whole findall or sub) may take: a step is one
 * operator run, one character a repeat counts or gives back, one start
 * position tried. About a second at worst on this machine. */
#define PYRE_STEPS_BASE     100000000ULL
#define PYRE_STEPS_PER_BYTE 256ULL
/* Bytes of backtracking state one search may hold (sre keeps a frame
 * for each iteration of a repeat of a group: "(a|b)*" over a long
 * text is deep). */
#define PYRE_STACK_MAX (64u << 20)

/*
 * A stop for the searches of the calling thread: while *flag is non-zero,
 * a search gives up within 2^20 steps (about 10 ms) as if its budget were
 * spent (PYRE_ELIMIT), so that a process told to stop is not held
 * by a pattern that backtracks for a second. The caller, which knows it
 * asked to stop, throws that result away. NULL (the default) turns it
 * off. The flag is borrowed until then.
 */
void pyre_cancel_on(const atomic_int *flag);

/*
 * Compile pat[0..len) (UTF-8) with flags (enum pyre_flags). Returns
 * 0 and a new pattern in *out (free with pyre_free);
 * PYRE_EARG with one sentence in msg naming the position (in
 * characters, as Python counts) and what is wrong, "not supported" in it
 * when Python would take the pattern; or PYRE_ENOMEM.
 */
int pyre_compile(const char *pat, size_t len, unsigned flags,
                 struct pyre **out, char *msg, size_t msgsize);
void pyre_free(struct pyre *re);

/* Capturing groups in the pattern (re.compile(p).groups). */
size_t pyre_groups(const struct pyre *re);

/*
 * Python's finditer over a text: the successive non-overlapping
 * matches, with Python 3.7+'s empty-match rule (after an empty match
 * the next one starts at the same place but may not be empty there).
 * The struct is the caller's; re and text are borrowed and must outlive
 * it; release it with pyre_iter_release.
 *
 * lm-eval's findall, from what this gives: with no group each match is
 * the whole match (spans[0..1]); with one group it is that group's
 * text, "" when it did not take part (-1); with several it is the tuple
 * of them, each "" when it did not take part. Its regex filter then
 * takes m[group_select] (0 the first, -1 the last match), for a tuple
 * the first non-empty element (all empty: the fallback "[invalid]"),
 * and strip()s it; no match at all is the fallback too.
 */
struct pyre__vm;
struct pyre_iter {
    const struct pyre *re;     /* borrowed */
    const unsigned char *text; /* borrowed */
    size_t len;
    size_t pos;       /* where the next search starts */
    int must_advance; /* the last match was empty */
    int state;        /* 0 going, 1 done, or the error code */
    /* steps left to this iterator: init sets PYRE_STEPS_BASE +
     * PYRE_STEPS_PER_BYTE * len; a caller may lower it */
    unsigned long long budget;
    struct pyre__vm *vm; /* owned: allocated at the first search */
};

void pyre_iter_init(struct pyre_iter *it, const struct pyre *re,
                    const char *text, size_t len);
/*
 * The next match. spans has 2 * (groups + 1) entries: [0], [1] the
 * match, [2g], [2g+1] group g, byte offsets into the text, -1 for a
 * group that did not take part. Returns 1 a match, 0 no more,
 * PYRE_ELIMIT when the budget or the stack cap is spent, or
 * PYRE_ENOMEM; after 0 or an error it returns the same again.
 */
int pyre_iter_next(struct pyre_iter *it, long *spans);
void pyre_iter_release(struct pyre_iter *it);

/*
 * re.sub(pattern, "", text): the text with every match (as the
 * iterator finds them) removed. *out is new, NUL-terminated, *outlen
 * bytes (free with pyre_text_free). Returns 0, PYRE_ELIMIT or
 * PYRE_ENOMEM (then *out is NULL).
 */
int pyre_sub_empty(const struct pyre *re, const char *text, size_t len,
                   char **out, size_t *outlen);
/* 0 when the text holds no byte a match of re can begin with (re.sub
 * would give it back as it is, and finditer nothing), 1 when it may hold
 * a match: a test of bytes that runs no match. */
int pyre_may_match(const struct pyre *re, const char *text, size_t len);

/* UTF-8 as Python and the grader's row scanner read it (RFC 3629): the
 * length of the valid sequence at p[0..len), 1 for ASCII, 0 when it is
 * not one (a stray continuation byte, an overlong form, a surrogate, past
 * U+10FFFF, cut short). The report's writers of HTML and XML text use it
 * too. */
size_t pyre_utf8_seq(const unsigned char *p, size_t len);

/*
 * Python's str.lower() of UTF-8 text: the full mapping (U+0130 becomes
 * "i" U+0307) and the final-sigma rule (U+03A3 becomes U+03C2 at the end
 * of a word). Bytes that are not UTF-8 are kept. *out is new,
 * NUL-terminated, *outlen bytes (free with pyre_text_free). Returns 0
 * or PYRE_ENOMEM.
 */
int pyre_str_lower(const char *text, size_t len, char **out, size_t *outlen);

#endif
