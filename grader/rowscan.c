/*
 * rowscan.c - validate a JSON object row and pull out the grader's fields.
 *
 * One pass, left to right; every function takes the cursor and the end,
 * and returns the new cursor or NULL after writing a message. Values of
 * fields the grader does not read are validated and skipped.
 */
#include "rowscan.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "qset.h"
#include "internal.h"
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

/* ---- the row object ---------------------------------------------------- */

enum field {
    F_ID,
    F_REFERENCE,
    F_CONTENT,
    F_REASONING,
    F_FINISH,
    F_ERROR,
    F_TRUNCATED,
    F_TOKENS,
    F_TPS,
    F_VIOLATIONS,
    F_SAVED,
    F_PROMPT_MS,
    F_PREDICTED_MS,
    F_LENGTH,
    F_DEPTH,
    F_TOOL_CALLS,
    F_OTHER
};

static const char *const field_names[] = {"id",
                                          "reference",
                                          "content",
                                          "reasoning_content",
                                          "finish_reason",
                                          "error",
                                          "truncated",
                                          "completion_tokens",
                                          "decode_tps",
                                          "violations",
                                          "tokens_saved",
                                          "prompt_ms",
                                          "predicted_ms",
                                          "length",
                                          "depth",
                                          "tool_calls"};

struct keyseen {
    uint64_t hash[MAX_KEYS];
    size_t n;
};

static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;

    while (n--)
        h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
    return h;
}

struct scan {
    struct cur c;
    struct grader_rowscan *s;
    struct grader_row *row;
};

static const char *type_error(struct scan *x, enum field f, const char *want)
{
    snprintf(x->c.msg, x->c.msgsize, "\"%s\" must be %s", field_names[f],
             want);
    return NULL;
}

/* A string-or-null value for a text field (content, reasoning). */
static const char *text_value(struct scan *x, const char *p, int which,
                              const char **s, size_t *len)
{
    struct out o = {NULL, 0, &x->s->buf[which], &x->s->cap[which], 0, 0};
    const char *q;
    int esc;

    if (*p == 'n') {
        *s = NULL;
        *len = 0;
        return word(&x->c, p, "null");
    }
    if (*p != '"')
        return type_error(x, which ? F_REASONING : F_CONTENT,
                          "a string or null");
    /* Scan without copying first: most texts have escapes (\n), but the
     * copy is then one memcpy per run between escapes. */
    if ((q = string(&x->c, p, &o, &esc)) == NULL)
        return NULL;
    *s = x->s->buf[which] ? x->s->buf[which] : "";
    *len = o.len;
    return q;
}

/* A short string into a fixed buffer (id, reference, finish_reason). */
static const char *small_string(struct scan *x, const char *p, char *buf,
                                size_t *len, int *over)
{
    /* every small buffer is SMALL bytes but the reference's */
    size_t cap = buf == x->s->ref ? sizeof(x->s->ref) : SMALL;
    struct out o = {buf, cap, NULL, NULL, 0, 0};
    const char *q;
    int esc;

    if ((q = string(&x->c, p, &o, &esc)) == NULL)
        return NULL;
    *len = o.len;
    *over = o.over;
    buf[o.over ? 0 : o.len] = '\0';
    return q;
}

/* "id": a non-empty string of at most GRADER_ID_MAX bytes, no NUL. */
static const char *id_value(struct scan *x, const char *p)
{
    const char *q;
    size_t n;
    int over;

    if (*p == 'n')
        return word(&x->c, p, "null");
    if (*p != '"')
        return type_error(x, F_ID, "a non-empty string");
    if ((q = small_string(x, p, x->s->id, &n, &over)) == NULL)
        return NULL;
    if (over || n == 0 || n > GRADER_ID_MAX ||
        memchr(x->s->id, '\0', n) != NULL)
        return type_error(x, F_ID, "a non-empty string of at most 256 bytes");
    x->row->id = x->s->id;
    x->row->id_len = n;
    return q;
}

/* "reference": a string, or an integer written as one. */
static const char *ref_value(struct scan *x, const char *p)
{
    struct grader_row *r = x->row;
    const char *q;
    size_t n;
    int over, is_int;

    if (*p == '"') {
        if ((q = small_string(x, p, x->s->ref, &n, &over)) == NULL)
            return NULL;
        if (over)
            return type_error(x, F_REFERENCE,
                              "a string of at most 4095 bytes");
        r->ref = x->s->ref;
        r->ref_len = n;
        r->ref_is_string = 1;
        return q;
    }
    if (*p == 'n')
        return word(&x->c, p, "null");
    if ((q = number(&x->c, p, &is_int)) == NULL)
        return NULL;
    if (!is_int || q - p >= 21)
        return type_error(x, F_REFERENCE, "a string such as \"70000\"");
    memcpy(x->s->ref, p, (size_t)(q - p));
    x->s->ref[q - p] = '\0';
    r->ref = x->s->ref;
    r->ref_len = (size_t)(q - p);
    r->ref_is_string = 0;
    return q;
}

/* "finish_reason" (its text, and whether it is "length") and "error" (its
 * text, unescaped into the third buffer): a string or null. */
static const char *finish_or_error(struct scan *x, enum field f, const char *p)
{
    struct grader_row *r = x->row;
    struct out o = {NULL, 0, &x->s->buf[2], &x->s->cap[2], 0, 0};
    char *fin = x->s->small;
    const char *q;
    size_t n;
    int esc, over;

    if (*p == 'n') {
        if (f == F_FINISH) {
            r->finish_length = 0;
            r->finish = NULL;
            r->finish_len = 0;
        } else {
            r->has_error = 0;
            r->error = NULL;
            r->error_len = 0;
        }
        return word(&x->c, p, "null");
    }
    if (*p != '"')
        return type_error(x, f, "a string or null");
    if (f == F_ERROR) {
        if ((q = string(&x->c, p, &o, &esc)) == NULL)
            return NULL;
        r->has_error = 1;
        r->error = x->s->buf[2] ? x->s->buf[2] : "";
        r->error_len = o.len;
        return q;
    }
    if ((q = small_string(x, p, fin, &n, &over)) == NULL)
        return NULL;
    r->finish_length = !over && n == 6 && memcmp(fin, "length", 6) == 0;
    r->finish = over ? NULL : fin;
    r->finish_len = over ? 0 : n;
    return q;
}

/* "truncated": true, false or null. */
static const char *truncated_value(struct scan *x, const char *p)
{
    if (*p == 't') {
        x->row->truncated = 1;
        return word(&x->c, p, "true");
    }
    if (*p == 'f' || *p == 'n') {
        x->row->truncated = 0;
        return word(&x->c, p, *p == 'f' ? "false" : "null");
    }
    return type_error(x, F_TRUNCATED, "true or false");
}

/* "completion_tokens", "violations" and "tokens_saved" (non-negative
 * integers) and "decode_tps", "prompt_ms" and "predicted_ms"
 * (non-negative numbers), or null (-1). */
static const char *number_value(struct scan *x, enum field f, const char *p)
{
    struct grader_row *r = x->row;
    char num[32], *digits;
    const char *q;
    int is_int;

    long long *whole = f == F_TOKENS       ? &r->tokens
                       : f == F_VIOLATIONS ? &r->violations
                       : f == F_LENGTH     ? &r->length
                       : f == F_DEPTH      ? &r->depth
                                           : &r->saved;
    double *real = f == F_TPS         ? &r->tps
                   : f == F_PROMPT_MS ? &r->prompt_ms
                                      : &r->predicted_ms;
    int integer = f == F_TOKENS || f == F_VIOLATIONS || f == F_SAVED ||
                  f == F_LENGTH || f == F_DEPTH;

    if (*p == 'n') {
        if (integer)
            *whole = -1;
        else
            *real = -1;
        return word(&x->c, p, "null");
    }
    if (*p != '-' && (*p < '0' || *p > '9'))
        return type_error(x, f,
                          integer ? "a non-negative integer or null"
                                  : "a non-negative number or null");
    if ((q = number(&x->c, p, &is_int)) == NULL)
        return NULL;
    /* the line has no terminator: convert a copy, on the stack when
     * short, else in a buffer kept from row to row */
    digits = num;
    if ((size_t)(q - p) >= sizeof(num)) {
        if (is_int)
            /* more than 31 digits: beyond any integer jansson holds */
            return type_error(x, f, "a non-negative integer or null");
        if ((size_t)(q - p) >= x->s->numcap) {
            char *b = grader__realloc(x->s->num, (size_t)(q - p) + 1);
            if (b == NULL) {
                x->c.nomem = 1;
                return fail(&x->c, p, "out of memory");
            }
            x->s->num = b;
            x->s->numcap = (size_t)(q - p) + 1;
        }
        digits = x->s->num;
    }
    memcpy(digits, p, (size_t)(q - p));
    digits[q - p] = '\0';
    if (integer) {
        long long v;
        errno = 0;
        v = strtoll(digits, NULL, 10);
        if (!is_int || v < 0 || errno != 0)
            return type_error(x, f, "a non-negative integer or null");
        *whole = v;
    } else {
        double v = strtod(digits, NULL);
        if (v < 0 || !isfinite(v))
            return type_error(x, f, "a non-negative number or null");
        *real = v;
    }
    return q;
}

/* "tool_calls": a list (kept as its raw JSON text, which the tool-call
 * checker parses; the line is checked as JSON here) or null. */
static const char *calls_value(struct scan *x, const char *p)
{
    struct grader_row *r = x->row;
    const char *q;

    if (*p == 'n') {
        r->calls = NULL;
        r->calls_len = 0;
        return word(&x->c, p, "null");
    }
    if (*p != '[')
        return type_error(x, F_TOOL_CALLS, "a list or null");
    if ((q = skip_value(&x->c, p, 1)) == NULL)
        return NULL;
    r->calls = p;
    r->calls_len = (size_t)(q - p);
    return q;
}

static const char *value(struct scan *x, enum field f, const char *p)
{
    struct grader_row *r = x->row;

    if (p >= x->c.end)
        return fail(&x->c, p, "unexpected end of row");
    switch (f) {
    case F_ID:
        return id_value(x, p);
    case F_REFERENCE:
        return ref_value(x, p);
    case F_CONTENT:
        return text_value(x, p, 0, &r->content, &r->content_len);
    case F_REASONING:
        return text_value(x, p, 1, &r->reasoning, &r->reasoning_len);
    case F_FINISH:
    case F_ERROR:
        return finish_or_error(x, f, p);
    case F_TRUNCATED:
        return truncated_value(x, p);
    case F_TOKENS:
    case F_TPS:
    case F_VIOLATIONS:
    case F_SAVED:
    case F_PROMPT_MS:
    case F_PREDICTED_MS:
    case F_LENGTH:
    case F_DEPTH:
        return number_value(x, f, p);
    case F_TOOL_CALLS:
        return calls_value(x, p);
    case F_OTHER:
        break;
    }
    return skip_value(&x->c, p, 1);
}

static enum field field_of(const char *key, size_t n)
{
    size_t i;

    for (i = 0; i < F_OTHER; i++)
        if (strlen(field_names[i]) == n && memcmp(field_names[i], key, n) == 0)
            return (enum field)i;
    return F_OTHER;
}

/* A top-level key: decoded, refused when seen before. */
static const char *key(struct scan *x, const char *p, struct keyseen *seen,
                       enum field *f)
{
    const char *q;
    size_t n, i;
    uint64_t h;
    int over;

    if ((q = small_string(x, p, x->s->key, &n, &over)) == NULL)
        return NULL;
    if (over)
        return fail(&x->c, p, "field name longer than 511 bytes");
    if (memchr(x->s->key, '\0', n) != NULL)
        return fail(&x->c, p, "NUL byte in field name");
    h = fnv(x->s->key, n) ^ n;
    for (i = 0; i < seen->n; i++)
        if (seen->hash[i] == h) {
            snprintf(x->c.msg, x->c.msgsize, "duplicate field \"%.64s\"",
                     x->s->key);
            return NULL;
        }
    if (seen->n == MAX_KEYS)
        return fail(&x->c, p, "more than 64 fields");
    seen->hash[seen->n++] = h;
    *f = field_of(x->s->key, n);
    return q;
}

void grader_rowscan_init(struct grader_rowscan *s)
{
    memset(s, 0, sizeof(*s));
}

void grader_rowscan_release(struct grader_rowscan *s)
{
    grader__free(s->buf[0]);
    grader__free(s->buf[1]);
    grader__free(s->buf[2]);
    grader__free(s->num);
    grader_rowscan_init(s);
}

int grader_rowscan(struct grader_rowscan *s, const char *p, size_t len,
                   struct grader_row *row, char *msg, size_t msgsize)
{
    struct scan scan, *x = &scan;
    struct keyseen seen;
    const char *q, *end = p + len;
    int first = 1;
    enum field f;

    memset(row, 0, sizeof(*row));
    row->tokens = -1;
    row->tps = -1;
    row->violations = -1;
    row->saved = -1;
    row->prompt_ms = row->predicted_ms = -1;
    row->length = row->depth = -1;
    x->c = (struct cur){p, end, msg, msgsize, 0};
    x->s = s;
    x->row = row;
    seen.n = 0;
    q = ws(p, end);
    if (q >= end || *q != '{') {
        snprintf(msg, msgsize, "row is not a JSON object");
        return GRADER_EPARSE;
    }
    for (q = ws(q + 1, end);; first = 0) {
        if (q < end && *q == '}' && first)
            break;
        if (q >= end || *q != '"') {
            q = fail(&x->c, q, "string or '}' expected");
            break;
        }
        if ((q = key(x, q, &seen, &f)) == NULL)
            break;
        q = ws(q, end);
        if (q >= end || *q != ':') {
            q = fail(&x->c, q, "':' expected");
            break;
        }
        if ((q = value(x, f, ws(q + 1, end))) == NULL)
            break;
        q = ws(q, end);
        if (q < end && *q == '}')
            break;
        if (q >= end || *q != ',') {
            q = fail(&x->c, q, "',' or '}' expected");
            break;
        }
        q = ws(q + 1, end);
    }
    if (q != NULL && ws(q + 1, end) != end)
        q = fail(&x->c, ws(q + 1, end), "end of row expected");
    if (q == NULL)
        return x->c.nomem ? GRADER_ENOMEM : GRADER_EPARSE;
    return 0;
}
