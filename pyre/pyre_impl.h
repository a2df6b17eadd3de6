/*
 * pyre_impl.h - what the regular-expression files (pyre.c,
 * pyre_compile.c, pyre_match.c, pyre_uni.c) share and nobody else uses:
 * the compiled program's layout, the matcher's entry points, the
 * Unicode lookups and the UTF-8 reading. pyre.h is the contract.
 *
 * The program is a copy of CPython 3.11's sre bytecode in spirit
 * (Modules/_sre/sre_lib.h, Lib/re/_compiler.py): the same operators with
 * the same operands, so that the matcher can take the same steps in the
 * same order and leave the same groups behind, which is what "the same
 * answers as Python" comes down to in the corner cases.
 */
#ifndef GRADER_PYRE_IMPL_H
#define GRADER_PYRE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "pyre.h"

/* sre's MAXREPEAT: an open upper bound. */
#define PYRE__INF UINT32_MAX
/* A position that is no position (sre's NULL pointer). */
#define PYRE__NONE SIZE_MAX

/* Operators. FAILURE is 0: it also ends a BRANCH's list. Layouts, with
 * pc at the operator (q = pc + 1):
 *   LIT c, NLIT c           the character, or any other
 *   LIT_I c, NLIT_I c       lower(ch) == c, or !=
 *   IN k                    class at sets[k] (pyre_match.c reads it)
 *   ANY, ANY_ALL            any but '\n'; any
 *   AT code                 an anchor (GRADER__AT_*)
 *   MARK i                  group mark i (2g-2 opens group g, 2g-1 closes)
 *   JUMP skip               go to q + skip
 *   BRANCH {skip alt... JUMP} 0     next alternative at its skip + skip
 *   REPEAT skip min max item UNTIL tail    UNTIL at q + skip
 *   REPEAT_ONE skip min max item SUCCESS tail   (MIN_ too); tail at q+skip
 *   ASSERT skip 0 body SUCCESS      (ASSERT_NOT too); after at q + skip
 */
enum pyre__op {
    GRADER__OP_FAILURE = 0,
    GRADER__OP_SUCCESS,
    GRADER__OP_ANY,
    GRADER__OP_ANY_ALL,
    GRADER__OP_AT,
    GRADER__OP_BRANCH,
    GRADER__OP_IN,
    GRADER__OP_JUMP,
    GRADER__OP_LIT,
    GRADER__OP_NLIT,
    GRADER__OP_LIT_I,
    GRADER__OP_NLIT_I,
    GRADER__OP_MARK,
    GRADER__OP_REPEAT,
    GRADER__OP_MAX_UNTIL,
    GRADER__OP_MIN_UNTIL,
    GRADER__OP_REPEAT_ONE,
    GRADER__OP_MIN_REPEAT_ONE,
    GRADER__OP_ASSERT,
    GRADER__OP_ASSERT_NOT
};

/* Anchors, str-pattern flavour (sre's AT_* with AT_UNICODE applied). */
enum pyre__at {
    GRADER__AT_BEGINNING,        /* ^ */
    GRADER__AT_BEGINNING_LINE,   /* ^ with MULTILINE */
    GRADER__AT_BEGINNING_STRING, /* \A */
    GRADER__AT_BOUNDARY,         /* \b */
    GRADER__AT_NON_BOUNDARY,     /* \B */
    GRADER__AT_END,              /* $: the end, or before a last '\n' */
    GRADER__AT_END_LINE,         /* $ with MULTILINE */
    GRADER__AT_END_STRING        /* \Z */
};

/* Class shorthands (sre's CATEGORY_UNI_*), as bits of a class. */
enum pyre__cat {
    GRADER__CAT_DIGIT = 1,
    GRADER__CAT_NOT_DIGIT = 2,
    GRADER__CAT_SPACE = 4,
    GRADER__CAT_NOT_SPACE = 8,
    GRADER__CAT_WORD = 16,
    GRADER__CAT_NOT_WORD = 32
};

/*
 * A class at sets[k]: [0] flags (bit 0 negated, bit 1 "test lower(ch)",
 * sre's IN_UNI_IGNORE; bits 8.. the GRADER__CAT_* shorthands), [1..4]
 * the answer for x < 128 as a bitmap (negation included), [5] ranges,
 * [6] raw literals, [7] ranges tested with upper() too (sre's
 * RANGE_UNI_IGNORE), then 2 words a range, 1 a literal, 2 an upper range.
 */
#define PYRE__SET_NEGATE 1u
#define PYRE__SET_LOWER  2u
#define PYRE__SET_HEAD   8

struct pyre {
    uint32_t *code;
    size_t ncode;
    uint32_t *sets;
    size_t nsets;
    size_t groups;
    /* the fewest characters a match takes (sre's INFO block): a search
     * does not start where fewer are left, as sre does not */
    uint32_t minwidth;
    /* The program is linear (pyre_compile.c, linear_seq): one path
     * through it at each start, but for the alternatives of at most one
     * BRANCH, and no REPEAT_ONE whose giving back could change the
     * outcome. pyre_match.c then runs it without frames. */
    int linear;
    /* The prefilter (GRADER__FIRST_*): the bytes a match can start with,
     * first[b] nonzero for each. A match takes at least one character
     * (the program cannot succeed empty) and its first is the code point
     * at its start, so a search skips every other start: a start whose
     * byte is not in the set would fail at once anyway. The set is
     * conservative: every lead byte of a code point some first operator
     * could take: all of 0x80..0xff (stray bytes included) as soon as
     * one non-ASCII code point could be taken, else none of them. */
    int first_kind;
    unsigned char first_byte; /* GRADER__FIRST_BYTE: the one byte */
    unsigned char first[256];
};

/* first_kind: no prefilter (the program may match empty, or take any
 * byte first); one byte (memchr); a set (first[]). */
enum { GRADER__FIRST_ALL, GRADER__FIRST_BYTE, GRADER__FIRST_SET };

/* pyre_parse.c: the tree of a parsed pattern, for pyre_compile.c. */
#define PYRE__NIL UINT32_MAX /* no node */

enum pyre__node_kind {
    GRADER__N_LIT,
    GRADER__N_NLIT,
    GRADER__N_ANY,
    GRADER__N_IN,
    GRADER__N_AT,
    GRADER__N_BRANCH, /* head: the first GRADER__N_ALT */
    GRADER__N_ALT,    /* one alternative: head its sequence */
    GRADER__N_REPEAT, /* a min, b max, flag lazy, head the body */
    GRADER__N_SUB,    /* a group (0: none), add/del its scoped flags */
    GRADER__N_ASSERT,
    GRADER__N_ASSERT_NOT
};

struct pyre__node {
    uint32_t next; /* the next node of its sequence */
    uint32_t head; /* the first node of its body */
    uint32_t a, b; /* LIT: the character; AT: the anchor; IN: first
                    * item and count; REPEAT: min, max; SUB: group */
    uint8_t kind, flag, add, del; /* flag: IN negated, REPEAT lazy */
};

enum pyre__item_kind { GRADER__I_LIT, GRADER__I_RANGE, GRADER__I_CAT };

/* One member of a class: a character, a range, or a shorthand (lo a
 * GRADER__CAT_* bit). */
struct pyre__item {
    uint32_t lo, hi;
    uint8_t kind;
};

struct pyre__tree {
    struct pyre__node *nodes;
    struct pyre__item *items;
    uint32_t root; /* the pattern's first node */
    size_t groups;
    unsigned flags; /* the caller's and global (?flags) */
};

/* Parse pat[0..len) into t (release it with pyre__tree_release):
 * 0, PYRE_EARG with the sentence in msg, or PYRE_ENOMEM (t is then
 * empty). */
int pyre__parse(const char *pat, size_t len, unsigned flags,
                struct pyre__tree *t, char *msg, size_t msgsize);
void pyre__tree_release(struct pyre__tree *t);

/* pyre_match.c: the matcher state an iterator keeps between matches. */
struct pyre__vm;
int pyre__vm_new(const struct pyre *re, struct pyre__vm **out);
void pyre__vm_free(struct pyre__vm *vm);
/* sre's search from byte `from` of s[0..n), must_advance as finditer
 * keeps it; *budget steps are taken off. 1 with spans filled (as
 * pyre.h's iterator gives them), 0 no match, PYRE_ELIMIT,
 * PYRE_ENOMEM. */
int pyre__search(struct pyre__vm *vm, const unsigned char *s, size_t n,
                 size_t from, int must_advance, unsigned long long *budget,
                 long *spans);
/* Whether a search of s[0..n) from byte `from` may find a match: 0 when
 * no byte there is one the prefilter lets a match begin with (then the
 * search is not worth its matcher state). */
int pyre__may_start(const struct pyre *re, const unsigned char *s, size_t n,
                    size_t from);
/* Whether class k holds ch (the class's own lowering applied). */
int pyre__in_set(const struct pyre *re, uint32_t k, uint32_t ch);
/* Whether the class at s holds x, read from its lists (not its ASCII
 * bitmap, which pyre_compile.c fills from this), negation included. */
int pyre__set_lists(const uint32_t *s, uint32_t x);

/* pyre_alloc.c: every allocation of the library, through the hooks that
 * pyre_set_alloc sets (the grader's counted allocator, so that its
 * chaos test fails pyre's allocations too). calloc and reallocarray fail
 * (NULL, ptr kept) when n * size overflows. */
void *pyre__malloc(size_t size);
void *pyre__calloc(size_t n, size_t size);
void *pyre__realloc(void *ptr, size_t size);
void *pyre__reallocarray(void *ptr, size_t n, size_t size);
void pyre__dealloc(void *ptr);

/* pyre_uni.c: Python 3.11's Unicode, from pyre_tables.h. */
uint32_t pyre__lower(uint32_t c);         /* _sre.unicode_tolower */
uint32_t pyre__upper(uint32_t c);         /* sre_upper_unicode */
int pyre__cat(unsigned cats, uint32_t c); /* any of the shorthands */
int pyre__word(uint32_t c);               /* \w */
/* The extra matches of lower-case c under IGNORECASE (re._casefix):
 * the count (0 to 2), filled into out. */
size_t pyre__fixes(uint32_t c, uint32_t out[2]);
/* The i'th letter that re._casefix pairs with others, 0 past the last. */
uint32_t pyre__fix_key(size_t i);
/* The code points in [a, b] whose lower case differs from them, as
 * (code point, lower) pairs: the count, and *first set. */
size_t pyre__lower_in(uint32_t a, uint32_t b, const uint32_t (**first)[2]);
/* Whether some character in [a, b] is cased (_sre.unicode_iscased). */
int pyre__cased_in(uint32_t a, uint32_t b);
/* str.lower() of c alone (no final sigma): the count (1 to 3). */
size_t pyre__lower_full(uint32_t c, uint32_t out[3]);
/* str.lower()'s final-sigma properties. */
int pyre__case_ignorable(uint32_t c);
int pyre__cased(uint32_t c); /* Cased and not Case_Ignorable */

/*
 * The code point at s[p] (p < n) and its length in *len: a valid UTF-8
 * sequence (pyre_utf8_seq, pyre.h) is one code point, any other
 * byte b is one code point U+DC00 + b, as Python decodes bytes with
 * errors="surrogateescape".
 */
uint32_t pyre__decode(const unsigned char *s, size_t n, size_t p, size_t *len);
/* Where the code point that ends at p (0 < p) starts, by the same
 * reading; 0 for p == 0. */
size_t pyre__prev(const unsigned char *s, size_t p);
/* UTF-8 of c (a surrogate U+DC80..U+DCFF is the byte it stands for):
 * the length, at most 4. */
size_t pyre__encode(uint32_t c, unsigned char *out);

/* Whether ch passes the one-character operator at op (LIT, NLIT, LIT_I,
 * NLIT_I, IN, ANY, ANY_ALL): the matcher's test, and the prefilter's. */
static inline int pyre__char_ok(const struct pyre *re, const uint32_t *op,
                                uint32_t ch)
{
    switch (op[0]) {
    case GRADER__OP_LIT:
        return ch == op[1];
    case GRADER__OP_NLIT:
        return ch != op[1];
    case GRADER__OP_LIT_I:
        return pyre__lower(ch) == op[1];
    case GRADER__OP_NLIT_I:
        return pyre__lower(ch) != op[1];
    case GRADER__OP_IN:
        if (ch < 0x80) { /* pyre__in_set's ASCII answer, inline */
            const uint32_t *s = re->sets + op[1];
            if ((s[0] & PYRE__SET_LOWER) && ch >= 'A' && ch <= 'Z')
                ch += 'a' - 'A';
            return (int)((s[1 + ch / 32] >> (ch % 32)) & 1);
        }
        return pyre__in_set(re, op[1], ch);
    case GRADER__OP_ANY:
        return ch != '\n';
    case GRADER__OP_ANY_ALL:
        return 1;
    }
    return 0;
}

#endif
