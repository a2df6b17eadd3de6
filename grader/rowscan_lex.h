/*
 * rowscan_lex.h - the JSON lexer under the row scanner (rowscan.c): the
 * cursor and its errors, white space, strings unescaped into a fixed or
 * growable destination with UTF-8 checked, numbers by RFC 8259's
 * grammar, the literals, and any value skipped whole (depth capped).
 *
 * Private to rowscan.c, which alone includes it: its functions are static
 * so that the scanner stays one translation unit and its hot helpers
 * (ws, string) stay inlined at -O2 as they were before the split, which
 * docs/performance.md's bury figures were measured with.
 */
#ifndef GRADER_ROWSCAN_LEX_H
#define GRADER_ROWSCAN_LEX_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "internal.h"
#include "rowscan.h"
#include "../pyre/pyre.h"

/* Nesting deeper than this in a skipped value is refused (jansson's own
 * limit is 2048; a row has no reason to nest at all). */
#define MAX_DEPTH 64
/* Distinct keys one row may have: duplicates are found by comparing. */
#define MAX_KEYS 64
#define SMALL    GRADER_ROWSCAN_SMALL

struct cur {
    const char *start, *end;
    char *msg;
    size_t msgsize;
    int nomem;
};

static const char *fail(struct cur *c, const char *at, const char *what)
{
    snprintf(c->msg, c->msgsize, "malformed JSON at column %ld: %s",
             (long)(at - c->start) + 1, what);
    return NULL;
}

static const char *ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
    return p;
}

/* A destination for an unescaped string: fixed, growable, or none. */
struct out {
    char *fixed; /* fixedcap bytes, or NULL */
    size_t fixedcap;
    char **grow; /* a scanner buffer, or NULL */
    size_t *growcap;
    size_t len;
    int over; /* a fixed destination overflowed */
};

static int put(struct cur *c, struct out *o, const char *s, size_t n)
{
    if (o->fixed != NULL) {
        if (o->len + n >= o->fixedcap) {
            o->over = 1;
            return 0;
        }
        memcpy(o->fixed + o->len, s, n);
    } else if (o->grow != NULL) {
        if (o->len + n + 1 > *o->growcap) {
            size_t cap = *o->growcap ? *o->growcap : 1024;
            char *b;
            while (cap < o->len + n + 1)
                cap *= 2;
            b = grader__realloc(*o->grow, cap);
            if (b == NULL) {
                c->nomem = 1;
                return -1;
            }
            *o->grow = b;
            *o->growcap = cap;
        }
        memcpy(*o->grow + o->len, s, n);
    } else {
        return 0;
    }
    o->len += n;
    return 0;
}

static int hexval(char h)
{
    if (h >= '0' && h <= '9')
        return h - '0';
    if (h >= 'a' && h <= 'f')
        return h - 'a' + 10;
    if (h >= 'A' && h <= 'F')
        return h - 'A' + 10;
    return -1;
}

/* Four hex digits at p, or -1. */
static long hex4(const char *p, const char *end)
{
    long v = 0;
    int i;

    if (end - p < 4)
        return -1;
    for (i = 0; i < 4; i++) {
        int h = hexval(p[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

static size_t utf8_put(uint32_t cp, char *b)
{
    if (cp < 0x80) {
        b[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        b[0] = (char)(0xc0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        b[0] = (char)(0xe0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        b[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    b[0] = (char)(0xf0 | (cp >> 18));
    b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    b[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* One escape after the backslash at p; returns the cursor after it. */
static const char *escape(struct cur *c, const char *p, struct out *o)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *e = p + 1, *hit;
    char b[4];
    long u, lo;

    if (e >= c->end)
        return fail(c, p, "unterminated string");
    if (*e != 'u') {
        hit = memchr(from, *e, sizeof(from) - 1);
        if (hit == NULL || *e == '\0')
            return fail(c, p, "invalid escape");
        if (put(c, o, &to[hit - from], 1) != 0)
            return NULL;
        return e + 1;
    }
    if ((u = hex4(e + 1, c->end)) < 0)
        return fail(c, p, "invalid \\u escape");
    e += 5;
    if (u >= 0xdc00 && u <= 0xdfff)
        return fail(c, p, "invalid Unicode: lone low surrogate");
    if (u >= 0xd800 && u <= 0xdbff) {
        if (c->end - e < 6 || e[0] != '\\' || e[1] != 'u' ||
            (lo = hex4(e + 2, c->end)) < 0xdc00 || lo > 0xdfff)
            return fail(c, p, "invalid Unicode: lone high surrogate");
        u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
        e += 6;
    }
    if (put(c, o, b, utf8_put((uint32_t)u, b)) != 0)
        return NULL;
    return e;
}

/* Bytes that end a plain run inside a string: the quote, the backslash,
 * control characters (invalid) and the lead bytes of UTF-8 sequences. */
/* clang-format off */
static const unsigned char special[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};
/* clang-format on */

/*
 * The string whose opening quote is at p. With o, unescaped into it; *in
 * is set to the bytes between the quotes when there was no escape (so a
 * caller may point into the line instead of copying).
 */
static const char *string(struct cur *c, const char *p, struct out *o,
                          int *had_escape)
{
    const char *q = p + 1, *run = q;

    *had_escape = 0;
    for (;;) {
        /* the common case: plain ASCII, one table look-up a byte */
        while (q < c->end && !special[(unsigned char)*q])
            q++;
        if (q >= c->end)
            return fail(c, p, "unterminated string");
        if (*q == '"')
            break;
        if (*q == '\\') {
            if (o && put(c, o, run, (size_t)(q - run)) != 0)
                return NULL;
            *had_escape = 1;
            if ((q = escape(c, q, o ? o : &(struct out){0})) == NULL)
                return NULL;
            run = q;
        } else if ((unsigned char)*q < 0x20) {
            return fail(c, q, "control character in string");
        } else {
            size_t n =
                pyre_utf8_seq((const unsigned char *)q, (size_t)(c->end - q));
            if (n == 0)
                return fail(c, q, "invalid UTF-8 in string");
            q += n;
        }
    }
    if (o && put(c, o, run, (size_t)(q - run)) != 0)
        return NULL;
    return q + 1;
}

/* A JSON number at p; *is_int when it has no fraction or exponent. */
static const char *number(struct cur *c, const char *p, int *is_int)
{
    const char *q = p;

    *is_int = 1;
    if (q < c->end && *q == '-')
        q++;
    if (q >= c->end || *q < '0' || *q > '9')
        return fail(c, p, "invalid token");
    if (*q == '0')
        q++;
    else
        while (q < c->end && *q >= '0' && *q <= '9')
            q++;
    if (q < c->end && *q == '.') {
        *is_int = 0;
        q++;
        if (q >= c->end || *q < '0' || *q > '9')
            return fail(c, p, "invalid number");
        while (q < c->end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < c->end && (*q == 'e' || *q == 'E')) {
        *is_int = 0;
        q++;
        if (q < c->end && (*q == '+' || *q == '-'))
            q++;
        if (q >= c->end || *q < '0' || *q > '9')
            return fail(c, p, "invalid number");
        while (q < c->end && *q >= '0' && *q <= '9')
            q++;
    }
    return q;
}

static const char *word(struct cur *c, const char *p, const char *w)
{
    size_t n = strlen(w);

    if ((size_t)(c->end - p) < n || memcmp(p, w, n) != 0)
        return fail(c, p, "invalid token");
    return p + n;
}

/* Any JSON value at p, validated and skipped. */
static const char *skip_value(struct cur *c, const char *p, int depth)
{
    int esc, is_int, first = 1;
    char close;

    if (p >= c->end)
        return fail(c, p, "unexpected end of row");
    switch (*p) {
    case '"':
        return string(c, p, NULL, &esc);
    case 't':
        return word(c, p, "true");
    case 'f':
        return word(c, p, "false");
    case 'n':
        return word(c, p, "null");
    case '{':
    case '[':
        break;
    default:
        return number(c, p, &is_int);
    }
    if (depth >= MAX_DEPTH)
        return fail(c, p, "nested too deeply");
    close = *p == '{' ? '}' : ']';
    for (p = ws(p + 1, c->end);; first = 0) {
        if (p < c->end && *p == close && first)
            return p + 1;
        if (close == '}') {
            if (p >= c->end || *p != '"')
                return fail(c, p, "string or '}' expected");
            if ((p = string(c, p, NULL, &esc)) == NULL)
                return NULL;
            p = ws(p, c->end);
            if (p >= c->end || *p != ':')
                return fail(c, p, "':' expected");
            p = ws(p + 1, c->end);
        }
        if ((p = skip_value(c, p, depth + 1)) == NULL)
            return NULL;
        p = ws(p, c->end);
        if (p < c->end && *p == close)
            return p + 1;
        if (p >= c->end || *p != ',')
            return fail(c, p,
                        close == '}' ? "',' or '}' expected"
                                     : "',' or ']' expected");
        p = ws(p + 1, c->end);
    }
}

#endif
