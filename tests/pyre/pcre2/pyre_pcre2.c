/*
 * pyre_pcre2.c - pyre/pyre.h's regular expressions on PCRE2 (10.42,
 * PCRE2_UTF | PCRE2_UCP), written to measure PCRE2 against pyre (issue 25
 * item 6; docs/grading.md, "PCRE2 against pyre, measured"). Not part of
 * graveyard: `make pcre2-diff` links it, in place of pyre's compiler and
 * matcher, into the differential drivers (docs/grading.md).
 *
 * A pattern is read with Python 3.11's grammar (Lib/re/_parser.py: its
 * refusals too) and written out in PCRE2's: every literal as \x{...}, \Z
 * as \z, {,n} as {0,n}, \v as \x{B}, (?P<name> as a plain group, comments
 * and leading global flags dropped (the flags become compile options), \B
 * kept from holding in an empty text (sre: neither \b nor \B does there).
 * What pyre refuses as "not supported" is refused here in the same words
 * (backreferences, lookbehind, conditionals, \N{...}, (?x) (?a) (?t),
 * non-ASCII group names, the caps); atomic groups and possessive
 * repeats, which PCRE2 has, are let through.
 *
 * Text that is not UTF-8: each byte outside a valid sequence becomes the
 * private-use code point U+10FF00 + byte before the match (Python sees
 * U+DC00 + byte, which UTF-8 cannot carry), so that '.', negated classes
 * and \D \W \S take it as Python's do; offsets are mapped back. A pattern's
 * \udc80..\udcff names the same code points.
 *
 * Bounds: PCRE2's match limit (10^7 backtracking points per search),
 * depth limit and a 64 MiB heap limit, each GRADER_ELIMIT; JIT when it
 * compiles (PYRE_PCRE2_NOJIT=1 in the environment: the interpreter).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "internal.h"
#include "pyre.h"

#define BAD_BASE 0x10FF00u /* + byte: a byte that is not UTF-8 */
#define PY_MAXREPEAT 4294967295ULL
#define PCRE2_REPEAT_MAX 65535ULL

struct pyre {
    pcre2_code *code;
    size_t groups;
    int first_ascii; /* a byte every match begins with, or -1 */
};

struct pyre__vm {
    pcre2_match_data *md;
    pcre2_match_context *mc; /* the thread's (match_context) */
    const unsigned char *subj; /* the text, or its transcoding */
    unsigned char *own;        /* the transcoding, when there is one */
    size_t slen;
    size_t *back; /* transcoded offset -> text offset (own != NULL) */
    size_t cur;   /* where the next search starts, in subj */
};

/* ---- UTF-8 --------------------------------------------------------------- */

/* The length of the valid UTF-8 sequence at s[i] (Unicode's table 3-7:
 * no overlong form, surrogate or code point past U+10FFFF) and its code
 * point in *cp; 0 when the byte there begins none. */
static size_t u8_at(const unsigned char *s, size_t n, size_t i, uint32_t *cp)
{
    unsigned c = s[i];
    size_t k, len;
    unsigned lo = 0x80, hi = 0xBF;
    uint32_t v;

    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        v = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        v = c & 0x0F;
        if (c == 0xE0)
            lo = 0xA0;
        if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        v = c & 0x07;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F;
    } else {
        return 0;
    }
    if (i + len > n)
        return 0;
    for (k = 1; k < len; k++) {
        unsigned b = s[i + k];
        if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF))
            return 0;
        v = (v << 6) | (b & 0x3F);
    }
    *cp = v;
    return len;
}

static size_t u8_put(uint32_t c, unsigned char *o)
{
    if (c < 0x80) {
        o[0] = (unsigned char)c;
        return 1;
    }
    if (c < 0x800) {
        o[0] = (unsigned char)(0xC0 | (c >> 6));
        o[1] = (unsigned char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (c >> 12));
        o[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (c & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | (c >> 18));
    o[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
    o[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
    o[3] = (unsigned char)(0x80 | (c & 0x3F));
    return 4;
}

/* ---- Python's grammar, written out in PCRE2's ------------------------------ */

struct level {
    int last;   /* 0 nothing yet, 1 an item, 2 an anchor, 3 a repeat */
    int items;  /* items in this branch (global flags need none) */
    int first;  /* the top level's first branch */
};

struct tr {
    const unsigned char *p;
    size_t n, i;
    char *o;
    size_t on, ocap;
    int failed; /* GRADER_EARG or GRADER_ENOMEM once set */
    char *msg;
    size_t msgsize;
    uint32_t opts;   /* from leading global flags */
    int caseless;    /* (?i) anywhere */
    size_t groups;
    size_t names[PYRE_GROUPS_MAX][2]; /* offset, length in p */
    size_t nnames;
    int depth;
    struct level lv[PYRE_DEPTH_MAX + 1];
};

/* Characters before byte offset at, as Python counts positions. */
static size_t chars_before(const struct tr *t, size_t at)
{
    size_t i, c = 0;

    for (i = 0; i < at && i < t->n; i++)
        c += (t->p[i] & 0xC0) != 0x80;
    return c;
}

static int fail(struct tr *t, const char *fmt, ...)
{
    va_list ap;
    size_t k;

    if (t->failed)
        return -1;
    t->failed = GRADER_EARG;
    va_start(ap, fmt);
    vsnprintf(t->msg, t->msgsize, fmt, ap);
    va_end(ap);
    k = strlen(t->msg);
    if (k < t->msgsize)
        snprintf(t->msg + k, t->msgsize - k, " at position %zu",
                 chars_before(t, t->i));
    return -1;
}

static void put(struct tr *t, const char *s, size_t len)
{
    if (t->failed)
        return;
    if (t->on + len + 1 > t->ocap) {
        size_t cap = (t->on + len + 1) * 2;
        char *q = realloc(t->o, cap);
        if (q == NULL) {
            t->failed = GRADER_ENOMEM;
            return;
        }
        t->o = q;
        t->ocap = cap;
    }
    memcpy(t->o + t->on, s, len);
    t->on += len;
    t->o[t->on] = '\0';
}

static void puts_(struct tr *t, const char *s)
{
    put(t, s, strlen(s));
}

/* A code point as a literal; Python's U+DC80..U+DCFF (a byte that is
 * not UTF-8) as the code point the text carries for it. */
static int put_cp(struct tr *t, uint32_t c)
{
    char b[24];

    if (c >= 0xDC80 && c <= 0xDCFF)
        c = BAD_BASE + (c & 0xFF);
    else if (c >= 0xD800 && c <= 0xDFFF)
        return fail(t, "surrogate code points are not supported");
    snprintf(b, sizeof(b), "\\x{%X}", (unsigned)c);
    puts_(t, b);
    return 0;
}

static int at_end(const struct tr *t)
{
    return t->i >= t->n;
}

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Up to want hex digits (exactly want, or Python's "incomplete escape"). */
static int hex_escape(struct tr *t, size_t want, char letter, uint32_t *cp)
{
    size_t k = 0;
    uint32_t v = 0;

    while (k < want && !at_end(t) && hexval(t->p[t->i]) >= 0) {
        v = v * 16 + (uint32_t)hexval(t->p[t->i]);
        t->i++;
        k++;
    }
    if (k != want)
        return fail(t, "incomplete escape \\%c", letter);
    if (v > 0x10FFFF)
        return fail(t, "bad escape \\%c", letter);
    *cp = v;
    return 0;
}

static int is_oct(size_t i, const struct tr *t)
{
    return i < t->n && t->p[i] >= '0' && t->p[i] <= '7';
}

static int is_digit(size_t i, const struct tr *t)
{
    return i < t->n && t->p[i] >= '0' && t->p[i] <= '9';
}

static int is_ascii_letter(unsigned c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

enum esc { ESC_FAIL = -1, ESC_LIT, ESC_CLASS, ESC_ANCHOR };

/* \0 .. \9: octal (Python: \0 and up to two more octal digits; three
 * octal digits; in a class any octal digits), else a group reference. */
static enum esc digit_escape(struct tr *t, int in_class, unsigned c,
                             uint32_t *cp)
{
    size_t k;
    uint32_t v = c - '0';

    if (in_class || c == '0') {
        if (c > '7')
            return fail(t, "bad escape \\%c", c), ESC_FAIL;
        for (k = 0; k < 2 && is_oct(t->i, t); k++)
            v = v * 8 + (t->p[t->i++] - '0');
        if (v > 0377)
            return fail(t, "octal escape value outside of range 0-0o377"),
                   ESC_FAIL;
        *cp = v;
        return ESC_LIT;
    }
    /* Python: three octal digits are a character, else a group */
    if (c <= '7' && is_oct(t->i, t) && is_oct(t->i + 1, t)) {
        v = v * 64 + (uint32_t)(t->p[t->i] - '0') * 8 +
            (uint32_t)(t->p[t->i + 1] - '0');
        t->i += 2;
        if (v > 0377)
            return fail(t, "octal escape value outside of range 0-0o377"),
                   ESC_FAIL;
        *cp = v;
        return ESC_LIT;
    }
    if (is_digit(t->i, t))
        v = v * 10 + (t->p[t->i++] - '0');
    if (v > t->groups)
        return fail(t, "invalid group reference %u", (unsigned)v),
               ESC_FAIL;
    return fail(t, "backreferences are not supported"), ESC_FAIL;
}

/*
 * The escape after a backslash at t->p[t->i] (Python's _escape, or
 * _class_escape when in_class): a literal (*cp), a class letter or an
 * anchor (*cp the letter), or ESC_FAIL with the message set.
 */
static enum esc escape(struct tr *t, int in_class, uint32_t *cp)
{
    unsigned c;
    size_t k;

    if (at_end(t))
        return fail(t, "bad escape (end of pattern)"), ESC_FAIL;
    c = t->p[t->i++];
    switch (c) {
    case 'd': case 'D': case 's': case 'S': case 'w': case 'W':
        *cp = c;
        return ESC_CLASS;
    case 'A': case 'B': case 'Z':
        if (in_class)
            return fail(t, "bad escape \\%c", c), ESC_FAIL;
        *cp = c;
        return ESC_ANCHOR;
    case 'b':
        if (in_class) {
            *cp = 8;
            return ESC_LIT;
        }
        *cp = c;
        return ESC_ANCHOR;
    case 'a': *cp = 7; return ESC_LIT;
    case 'f': *cp = 12; return ESC_LIT;
    case 'n': *cp = 10; return ESC_LIT;
    case 'r': *cp = 13; return ESC_LIT;
    case 't': *cp = 9; return ESC_LIT;
    case 'v': *cp = 11; return ESC_LIT;
    case '\\': *cp = '\\'; return ESC_LIT;
    case 'x':
        return hex_escape(t, 2, 'x', cp) ? ESC_FAIL : ESC_LIT;
    case 'u':
        return hex_escape(t, 4, 'u', cp) ? ESC_FAIL : ESC_LIT;
    case 'U':
        return hex_escape(t, 8, 'U', cp) ? ESC_FAIL : ESC_LIT;
    case 'N':
        return fail(t, "named characters \\N{...} are not supported"),
               ESC_FAIL;
    default:
        break;
    }
    if (c >= '0' && c <= '9')
        return digit_escape(t, in_class, c, cp);
    if (is_ascii_letter(c))
        return fail(t, "bad escape \\%c", c), ESC_FAIL;
    /* any other character after a backslash is itself */
    t->i--;
    k = u8_at(t->p, t->n, t->i, cp);
    t->i += k ? k : 1;
    return ESC_LIT;
}

/* The next class member: a literal or a class letter. */
static enum esc class_item(struct tr *t, uint32_t *cp)
{
    size_t k;

    if (t->p[t->i] == '\\') {
        t->i++;
        return escape(t, 1, cp);
    }
    k = u8_at(t->p, t->n, t->i, cp);
    t->i += k ? k : 1;
    return ESC_LIT;
}

static int put_class_member(struct tr *t, enum esc e, uint32_t cp)
{
    char b[4] = {'\\', (char)cp, 0, 0};

    if (e == ESC_CLASS) {
        puts_(t, b);
        return 0;
    }
    return put_cp(t, cp);
}

/* [...] after its '[' (Python's set parsing, every member written out). */
static int char_class(struct tr *t)
{
    size_t members = 0;

    puts_(t, "[");
    if (!at_end(t) && t->p[t->i] == '^') {
        puts_(t, "^");
        t->i++;
    }
    for (;;) {
        uint32_t lo, hi;
        enum esc e1, e2;

        if (at_end(t))
            return fail(t, "unterminated character set");
        if (t->p[t->i] == ']' && members > 0) {
            t->i++;
            break;
        }
        if ((e1 = class_item(t, &lo)) == ESC_FAIL)
            return -1;
        members++;
        if (at_end(t) || t->p[t->i] != '-') {
            if (put_class_member(t, e1, lo))
                return -1;
            continue;
        }
        t->i++;
        if (at_end(t))
            return fail(t, "unterminated character set");
        if (t->p[t->i] == ']') { /* "a-]": both literal, the set ends */
            t->i++;
            if (put_class_member(t, e1, lo))
                return -1;
            puts_(t, "\\x{2D}");
            break;
        }
        if ((e2 = class_item(t, &hi)) == ESC_FAIL)
            return -1;
        if (e1 != ESC_LIT || e2 != ESC_LIT || hi < lo)
            return fail(t, "bad character range");
        if ((lo >= 0xD800 && lo <= 0xDFFF) || (hi >= 0xD800 && hi <= 0xDFFF))
            return fail(t, "ranges to or from surrogates are not supported");
        if (put_cp(t, lo))
            return -1;
        puts_(t, "-");
        if (put_cp(t, hi))
            return -1;
    }
    puts_(t, "]");
    return 0;
}

/* digits at t->i, capped (PY_MAXREPEAT means "too large"). */
static unsigned long long number(struct tr *t, int *some)
{
    unsigned long long v = 0;

    *some = 0;
    while (is_digit(t->i, t)) {
        if (v < PY_MAXREPEAT)
            v = v * 10 + (t->p[t->i] - '0');
        if (v > PY_MAXREPEAT)
            v = PY_MAXREPEAT;
        t->i++;
        *some = 1;
    }
    return v;
}

/* After '{': 1 and the bounds when it is a quantifier (t->i past its
 * '}'), 0 when it is a literal '{' (t->i unchanged). */
static int braces(struct tr *t, unsigned long long *min,
                  unsigned long long *max, int *inf)
{
    size_t here = t->i;
    int lo_some, hi_some;
    unsigned long long lo, hi;

    if (!at_end(t) && t->p[t->i] == '}')
        return 0;
    lo = number(t, &lo_some);
    *inf = 0;
    if (!at_end(t) && t->p[t->i] == ',') {
        t->i++;
        hi = number(t, &hi_some);
        *inf = !hi_some;
    } else {
        hi = lo;
        hi_some = lo_some;
    }
    if (at_end(t) || t->p[t->i] != '}') {
        t->i = here;
        return 0;
    }
    t->i++;
    *min = lo_some ? lo : 0;
    *max = hi;
    (void)hi_some;
    return 1;
}

static int quantifier(struct tr *t, unsigned char c)
{
    struct level *L = &t->lv[t->depth];
    unsigned long long min = 0, max = 0;
    int inf = 0;
    char b[64];

    if (c == '{') {
        if (!braces(t, &min, &max, &inf)) {
            puts_(t, "\\{");
            L->last = 1;
            L->items++;
            return 0;
        }
        if (min >= PY_MAXREPEAT || (!inf && max >= PY_MAXREPEAT))
            return fail(t, "the repetition number is too large");
        if (!inf && max < min)
            return fail(t, "min repeat greater than max repeat");
    }
    if (L->last == 0 || L->last == 2)
        return fail(t, "nothing to repeat");
    if (L->last == 3)
        return fail(t, "multiple repeat");
    if (c == '{') {
        if (min > PCRE2_REPEAT_MAX || (!inf && max > PCRE2_REPEAT_MAX))
            return fail(t, "repeat counts over 65535 are not supported");
        if (inf)
            snprintf(b, sizeof(b), "{%llu,}", min);
        else if (min == max)
            snprintf(b, sizeof(b), "{%llu}", min);
        else
            snprintf(b, sizeof(b), "{%llu,%llu}", min, max);
        puts_(t, b);
    } else {
        b[0] = (char)c;
        put(t, b, 1);
    }
    if (!at_end(t) && (t->p[t->i] == '?' || t->p[t->i] == '+'))
        put(t, (const char *)t->p + t->i++, 1);
    L->last = 3;
    return 0;
}

static int push(struct tr *t, const char *open)
{
    if (t->depth >= PYRE_DEPTH_MAX)
        return fail(t, "parentheses nested over %d deep are not supported",
                    PYRE_DEPTH_MAX);
    puts_(t, open);
    t->depth++;
    t->lv[t->depth].last = 0;
    t->lv[t->depth].items = 0;
    t->lv[t->depth].first = 0;
    return 0;
}

static int new_group(struct tr *t)
{
    if (t->groups >= PYRE_GROUPS_MAX)
        return fail(t, "more than %d groups are not supported",
                    PYRE_GROUPS_MAX);
    t->groups++;
    return push(t, "(");
}

/* (?P<name> after "(?P<": Python's checks, then a plain group. */
static int named_group(struct tr *t)
{
    size_t s = t->i, e, k;

    while (!at_end(t) && t->p[t->i] != '>')
        t->i++;
    if (at_end(t))
        return fail(t, "missing >, unterminated name");
    e = t->i++;
    if (e == s)
        return fail(t, "missing group name");
    for (k = s; k < e; k++) {
        unsigned c = t->p[k];
        if (c >= 0x80)
            return fail(t, "non-ASCII group names are not supported");
        if (!(is_ascii_letter(c) || c == '_' || (k > s && c >= '0' && c <= '9')))
            return fail(t, "bad character in group name");
    }
    for (k = 0; k < t->nnames; k++)
        if (t->names[k][1] == e - s &&
            memcmp(t->p + t->names[k][0], t->p + s, e - s) == 0)
            return fail(t, "redefinition of group name");
    if (t->nnames < PYRE_GROUPS_MAX) {
        t->names[t->nnames][0] = s;
        t->names[t->nnames][1] = e - s;
        t->nnames++;
    }
    return new_group(t);
}

static unsigned flag_bit(unsigned char c)
{
    const char *f = strchr("iLmsxatu", c);
    return c && f ? 1u << (f - "iLmsxatu") : 0;
}

#define F_I 1u
#define F_L 2u
#define F_M 4u
#define F_S 8u
#define F_X 16u
#define F_A 32u
#define F_T 64u
#define F_U 128u

/* Python's _parse_flags from the first flag character; *global when the
 * group ends at ')'. */
static int parse_flags(struct tr *t, unsigned *add, unsigned *del, int *global)
{
    unsigned char c = t->p[t->i++];

    *add = *del = 0;
    *global = 0;
    if (c != '-') {
        for (;;) {
            unsigned f = flag_bit(c);
            if (f == F_L)
                return fail(t, "bad inline flags: cannot use 'L' flag with a "
                               "str pattern");
            *add |= f;
            if ((f & (F_A | F_L | F_U)) && (*add & (F_A | F_L | F_U)) != f)
                return fail(t, "bad inline flags: flags 'a', 'u' and 'L' are "
                               "incompatible");
            if (at_end(t))
                return fail(t, "missing -, : or )");
            c = t->p[t->i++];
            if (c == ')' || c == '-' || c == ':')
                break;
            if (!flag_bit(c))
                return fail(t, is_ascii_letter(c) ? "unknown flag"
                                                  : "missing -, : or )");
        }
    }
    if (c == ')') {
        *global = 1;
        return 0;
    }
    if (*add & F_T)
        return fail(t, "bad inline flags: cannot turn on global flag");
    if (c == '-') {
        if (at_end(t))
            return fail(t, "missing flag");
        c = t->p[t->i++];
        if (!flag_bit(c))
            return fail(t, is_ascii_letter(c) ? "unknown flag" : "missing flag");
        for (;;) {
            unsigned f = flag_bit(c);
            if (f & (F_A | F_L | F_U))
                return fail(t, "bad inline flags: cannot turn off flags 'a', "
                               "'u' and 'L'");
            *del |= f;
            if (at_end(t))
                return fail(t, "missing :");
            c = t->p[t->i++];
            if (c == ':')
                break;
            if (!flag_bit(c))
                return fail(t, is_ascii_letter(c) ? "unknown flag"
                                                  : "missing :");
        }
    }
    if (*del & F_T)
        return fail(t, "bad inline flags: cannot turn off global flag");
    if (*add & *del)
        return fail(t, "bad inline flags: flag turned on and off");
    return 0;
}

static int flags_group(struct tr *t)
{
    struct level *L = &t->lv[t->depth];
    unsigned add, del;
    int global;
    char b[16];
    size_t k = 0;

    if (parse_flags(t, &add, &del, &global))
        return -1;
    if (global && (t->depth != 0 || !L->first || L->items != 0))
        return fail(t, "global flags not at the start of the expression");
    if ((add | del) & F_X)
        return fail(t, "the inline flag 'x' is not supported");
    if ((add | del) & F_A)
        return fail(t, "the inline flag 'a' is not supported");
    if ((add | del) & F_T)
        return fail(t, "the inline flag 't' is not supported");
    if (add & F_I)
        t->caseless = 1;
    if (global) {
        t->opts |= (add & F_I ? PCRE2_CASELESS : 0) |
                   (add & F_M ? PCRE2_MULTILINE : 0) |
                   (add & F_S ? PCRE2_DOTALL : 0);
        return 0;
    }
    b[k++] = '(';
    b[k++] = '?';
    if (add & F_I) b[k++] = 'i';
    if (add & F_M) b[k++] = 'm';
    if (add & F_S) b[k++] = 's';
    if (del & (F_I | F_M | F_S)) {
        b[k++] = '-';
        if (del & F_I) b[k++] = 'i';
        if (del & F_M) b[k++] = 'm';
        if (del & F_S) b[k++] = 's';
    }
    b[k++] = ':';
    b[k] = '\0';
    return push(t, b);
}

/* After "(?". */
static int extension(struct tr *t)
{
    unsigned char c;

    if (at_end(t))
        return fail(t, "unexpected end of pattern");
    c = t->p[t->i];
    if (c == 'P') {
        t->i++;
        if (!at_end(t) && t->p[t->i] == '<') {
            t->i++;
            return named_group(t);
        }
        if (!at_end(t) && t->p[t->i] == '=')
            return fail(t, "backreferences are not supported");
        return fail(t, at_end(t) ? "unexpected end of pattern"
                                 : "unknown extension ?P");
    }
    if (c == ':' || c == '=' || c == '!' || c == '>') {
        char open[4] = {'(', '?', (char)c, 0};
        t->i++;
        return push(t, open);
    }
    if (c == '#') { /* a comment: nothing written; "\)" does not end it */
        t->i++;
        for (;;) {
            if (at_end(t))
                return fail(t, "missing ), unterminated comment");
            c = t->p[t->i++];
            if (c == ')')
                return 0;
            if (c == '\\' && !at_end(t))
                t->i++;
        }
    }
    if (c == '<') {
        t->i++;
        if (at_end(t))
            return fail(t, "unexpected end of pattern");
        if (t->p[t->i] == '=' || t->p[t->i] == '!')
            return fail(t, "lookbehind is not supported");
        return fail(t, "unknown extension ?<");
    }
    if (c == '(')
        return fail(t, "conditional groups are not supported");
    if (flag_bit(c) || c == '-')
        return flags_group(t);
    {
        uint32_t cp; /* the character whole: the message is UTF-8 */
        size_t k = u8_at(t->p, t->n, t->i, &cp);
        return fail(t, "unknown extension ?%.*s", (int)(k ? k : 1),
                    (const char *)t->p + t->i);
    }
}

static int close_group(struct tr *t)
{
    if (t->depth == 0)
        return fail(t, "unbalanced parenthesis");
    puts_(t, ")");
    t->depth--;
    t->lv[t->depth].last = 1;
    t->lv[t->depth].items++;
    return 0;
}

static int escape_out(struct tr *t)
{
    struct level *L = &t->lv[t->depth];
    uint32_t cp;
    enum esc e = escape(t, 0, &cp);
    char b[4] = {'\\', 0, 0, 0};

    if (e == ESC_FAIL)
        return -1;
    L->items++;
    if (e == ESC_LIT) {
        L->last = 1;
        return put_cp(t, cp);
    }
    L->last = e == ESC_CLASS ? 1 : 2;
    if (cp == 'Z')
        puts_(t, "\\z");
    else if (cp == 'B') /* sre: \B never holds in an empty text */
        puts_(t, "(?:(?!\\A\\z)\\B)");
    else {
        b[1] = (char)cp;
        puts_(t, b);
    }
    return 0;
}

/* One token of the pattern at t->i. */
static int token(struct tr *t)
{
    struct level *L = &t->lv[t->depth];
    unsigned char c = t->p[t->i++];
    size_t k;
    uint32_t cp;

    switch (c) {
    case '\\':
        return escape_out(t);
    case '[':
        L->last = 1;
        L->items++;
        return char_class(t);
    case '*': case '+': case '?': case '{':
        return quantifier(t, c);
    case '(':
        if (!at_end(t) && t->p[t->i] == '?') {
            t->i++;
            return extension(t);
        }
        return new_group(t);
    case ')':
        return close_group(t);
    case '|':
        puts_(t, "|");
        L->last = 0;
        L->items = 0;
        L->first = 0;
        return 0;
    case '^': case '$':
        put(t, (const char *)&c, 1);
        L->last = 2;
        L->items++;
        return 0;
    case '.':
        puts_(t, ".");
        L->last = 1;
        L->items++;
        return 0;
    default:
        break;
    }
    t->i--;
    k = u8_at(t->p, t->n, t->i, &cp);
    if (k == 0)
        return fail(t, "the pattern is not UTF-8");
    t->i += k;
    L->last = 1;
    L->items++;
    return put_cp(t, cp);
}

/* ---- pyre.h --------------------------------------------------------------- */

int pyre_compile(const char *pat, size_t len, unsigned flags,
                      struct pyre **out, char *msg, size_t msgsize)
{
    struct tr *t;
    struct pyre *re;
    pcre2_compile_context *cc;
    uint32_t opts, cap, ftype = 0, funit = 0, all = 0;
    int err, rc = 0;
    PCRE2_SIZE erroff;

    *out = NULL;
    if (msgsize)
        msg[0] = '\0';
    if (len > PYRE_PATTERN_MAX) {
        snprintf(msg, msgsize, "patterns over %d bytes are not supported",
                 PYRE_PATTERN_MAX);
        return GRADER_EARG;
    }
    if ((t = calloc(1, sizeof(*t))) == NULL)
        return GRADER_ENOMEM;
    t->p = (const unsigned char *)pat;
    t->n = len;
    t->msg = msg;
    t->msgsize = msgsize;
    t->lv[0].first = 1;
    puts_(t, "");
    while (!t->failed && !at_end(t))
        token(t);
    if (!t->failed && t->depth != 0)
        fail(t, "missing ), unterminated subpattern");
    if (t->failed) {
        rc = t->failed;
        goto done;
    }
    opts = PCRE2_UTF | PCRE2_UCP | PCRE2_ALT_CIRCUMFLEX |
           PCRE2_NEVER_BACKSLASH_C | t->opts |
           (flags & PYRE_IGNORECASE ? PCRE2_CASELESS : 0) |
           (flags & PYRE_DOTALL ? PCRE2_DOTALL : 0) |
           (flags & PYRE_MULTILINE ? PCRE2_MULTILINE : 0);
    if ((cc = pcre2_compile_context_create(NULL)) == NULL) {
        rc = GRADER_ENOMEM;
        goto done;
    }
    pcre2_set_newline(cc, PCRE2_NEWLINE_LF);
    if ((re = grader__malloc(sizeof(*re))) == NULL) {
        pcre2_compile_context_free(cc);
        rc = GRADER_ENOMEM;
        goto done;
    }
    re->code = pcre2_compile((PCRE2_SPTR)t->o, t->on, opts, &err, &erroff, cc);
    pcre2_compile_context_free(cc);
    if (re->code == NULL) {
        PCRE2_UCHAR b[160];
        pcre2_get_error_message(err, b, sizeof(b));
        snprintf(msg, msgsize, "pcre2: %s (offset %zu of \"%s\")", (char *)b,
                 (size_t)erroff, t->o);
        grader__free(re);
        rc = GRADER_EARG;
        goto done;
    }
    if (getenv("PYRE_PCRE2_NOJIT") == NULL)
        (void)pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE);
    pcre2_pattern_info(re->code, PCRE2_INFO_CAPTURECOUNT, &cap);
    pcre2_pattern_info(re->code, PCRE2_INFO_FIRSTCODETYPE, &ftype);
    pcre2_pattern_info(re->code, PCRE2_INFO_FIRSTCODEUNIT, &funit);
    pcre2_pattern_info(re->code, PCRE2_INFO_ALLOPTIONS, &all);
    re->groups = cap;
    re->first_ascii = -1;
    if (ftype == 1 && funit < 0x80 && !t->caseless &&
        !(all & PCRE2_CASELESS))
        re->first_ascii = (int)funit;
    *out = re;
done:
    free(t->o);
    free(t);
    return rc;
}

void pyre_free(struct pyre *re)
{
    if (re == NULL)
        return;
    pcre2_code_free(re->code);
    grader__free(re);
}

size_t pyre_groups(const struct pyre *re)
{
    return re->groups;
}

void pyre_iter_init(struct pyre_iter *it, const struct pyre *re,
                         const char *text, size_t len)
{
    it->re = re;
    it->text = (const unsigned char *)text;
    it->len = len;
    it->pos = 0;
    it->must_advance = 0;
    it->state = 0;
    it->budget = PYRE_STEPS_BASE;
    if (len > (ULLONG_MAX - PYRE_STEPS_BASE) / PYRE_STEPS_PER_BYTE)
        it->budget = ULLONG_MAX;
    else
        it->budget += PYRE_STEPS_PER_BYTE * len;
    it->vm = NULL;
}

static void vm_free(struct pyre__vm *vm)
{
    if (vm == NULL)
        return;
    pcre2_match_data_free(vm->md);
    free(vm->own);
    free(vm->back);
    free(vm);
}

/* One match context and JIT stack a thread, made at its first search and
 * kept: an 8 MiB JIT stack mapped for each findall and sub made the rule
 * bench five times slower. */
static _Thread_local pcre2_match_context *thread_mc;
static _Thread_local pcre2_jit_stack *thread_js;

static pcre2_match_context *match_context(void)
{
    if (thread_mc != NULL)
        return thread_mc;
    if ((thread_mc = pcre2_match_context_create(NULL)) == NULL)
        return NULL;
    pcre2_set_match_limit(thread_mc, 10000000);
    pcre2_set_heap_limit(thread_mc, 64 * 1024); /* KiB: pyre's stack cap */
    if (getenv("PYRE_PCRE2_NOJIT") == NULL &&
        (thread_js = pcre2_jit_stack_create(32 * 1024, 8 << 20, NULL)) !=
            NULL)
        pcre2_jit_stack_assign(thread_mc, NULL, thread_js);
    return thread_mc;
}

/* The text as PCRE2 reads it: itself when it is UTF-8, else with each
 * stray byte as U+10FF00 + byte and a map of offsets back. */
static int transcode(struct pyre__vm *vm, const unsigned char *s,
                     size_t n)
{
    size_t i = 0, o = 0, k;
    uint32_t cp;

    while (i < n && (k = u8_at(s, n, i, &cp)) != 0)
        i += k;
    vm->subj = s;
    vm->slen = n;
    if (i == n)
        return 0;
    if ((vm->own = malloc(4 * n + 1)) == NULL ||
        (vm->back = malloc((4 * n + 1) * sizeof(*vm->back))) == NULL)
        return GRADER_ENOMEM;
    for (i = 0; i < n; i += k) {
        size_t w, j;
        if ((k = u8_at(s, n, i, &cp)) == 0) {
            k = 1;
            cp = BAD_BASE + s[i];
        }
        w = u8_put(cp, vm->own + o);
        for (j = 0; j < w; j++)
            vm->back[o + j] = i; /* only character starts are asked */
        o += w;
    }
    vm->back[o] = n;
    vm->subj = vm->own;
    vm->slen = o;
    return 0;
}

static int vm_new(const struct pyre *re, const unsigned char *s,
                  size_t n, struct pyre__vm **out)
{
    struct pyre__vm *vm = calloc(1, sizeof(*vm));

    *out = NULL;
    if (vm == NULL)
        return GRADER_ENOMEM;
    if ((vm->md = pcre2_match_data_create_from_pattern(re->code, NULL)) ==
            NULL ||
        (vm->mc = match_context()) == NULL || transcode(vm, s, n) != 0) {
        vm_free(vm);
        return GRADER_ENOMEM;
    }
    *out = vm;
    return 0;
}

int pyre_iter_next(struct pyre_iter *it, long *spans)
{
    struct pyre__vm *vm;
    PCRE2_SIZE *ov;
    uint32_t opts = PCRE2_NO_UTF_CHECK;
    size_t g;
    int rc;

    if (it->state != 0)
        return it->state == 1 ? 0 : it->state;
    if (it->vm == NULL) {
        if (!pyre_may_match(it->re, (const char *)it->text, it->len)) {
            it->state = 1;
            return 0;
        }
        if ((rc = vm_new(it->re, it->text, it->len, &it->vm)) != 0)
            return it->state = rc;
    }
    vm = it->vm;
    /* Python 3.7+: after an empty match the next may start at the same
     * place but may not be empty there */
    if (it->must_advance)
        opts |= PCRE2_NOTEMPTY_ATSTART;
    rc = pcre2_match(it->re->code, vm->subj, vm->slen, vm->cur, opts, vm->md,
                     vm->mc);
    if (rc == PCRE2_ERROR_NOMATCH) {
        it->state = 1;
        return 0;
    }
    if (rc == PCRE2_ERROR_NOMEMORY)
        return it->state = GRADER_ENOMEM;
    if (rc <= 0)
        return it->state = GRADER_ELIMIT; /* match, depth, heap, JIT stack */
    ov = pcre2_get_ovector_pointer(vm->md);
    for (g = 0; g <= it->re->groups; g++) {
        size_t a = ov[2 * g], b = ov[2 * g + 1];
        if (a == PCRE2_UNSET) {
            spans[2 * g] = spans[2 * g + 1] = -1;
            continue;
        }
        spans[2 * g] = (long)(vm->back ? vm->back[a] : a);
        spans[2 * g + 1] = (long)(vm->back ? vm->back[b] : b);
    }
    it->must_advance = ov[1] == ov[0];
    vm->cur = ov[1];
    it->pos = (size_t)spans[1];
    return 1;
}

/* PCRE2 reports one first code unit for "A|a" (caseless inside, not
 * said): a letter stands for both cases, and for any character past
 * ASCII (the Kelvin sign is a K). */
int pyre_may_match(const struct pyre *re, const char *text,
                        size_t len)
{
    int c = re->first_ascii, other = c;
    size_t i;

    if (c < 0)
        return 1;
    if (c >= 'a' && c <= 'z')
        other = c - 'a' + 'A';
    else if (c >= 'A' && c <= 'Z')
        other = c - 'A' + 'a';
    else
        return len > 0 && memchr(text, c, len) != NULL;
    for (i = 0; i < len; i++) {
        unsigned char b = (unsigned char)text[i];
        if (b == c || b == other || b >= 0x80)
            return 1;
    }
    return 0;
}

void pyre_iter_release(struct pyre_iter *it)
{
    vm_free(it->vm);
    it->vm = NULL;
}

int pyre_sub_empty(const struct pyre *re, const char *text,
                        size_t len, char **out, size_t *outlen)
{
    long spans[2 * (PYRE_GROUPS_MAX + 1)];
    struct pyre_iter it;
    size_t last = 0, o = 0;
    char *buf;
    int rc;

    *out = NULL;
    *outlen = 0;
    if ((buf = grader__malloc(len + 1)) == NULL)
        return GRADER_ENOMEM;
    pyre_iter_init(&it, re, text, len);
    while ((rc = pyre_iter_next(&it, spans)) == 1) {
        size_t b = (size_t)spans[0];
        if (b > last)
            memcpy(buf + o, text + last, b - last);
        o += b - last;
        last = (size_t)spans[1];
    }
    pyre_iter_release(&it);
    if (rc != 0) {
        grader__free(buf);
        return rc;
    }
    if (len > last)
        memcpy(buf + o, text + last, len - last);
    o += len - last;
    buf[o] = '\0';
    *out = buf;
    *outlen = o;
    return 0;
}
