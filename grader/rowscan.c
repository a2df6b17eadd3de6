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
#include "task.h"
#include "internal.h"
#include "../pyre/pyre.h"

#include "rowscan_lex.h" /* the JSON lexer: this file alone includes it */

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
    F_EXEC,
    F_TESTS_PASSED,
    F_TESTS_TOTAL,
    F_EXCEPTION,
    F_CODE_HASH,
    F_EXEC_OUTPUT,
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
                                          "tool_calls",
                                          "exec",
                                          "tests_passed",
                                          "tests_total",
                                          "exception",
                                          "code_hash",
                                          "exec_output"};

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
        return type_error(x,
                          which == 3   ? F_EXEC_OUTPUT
                          : which == 1 ? F_REASONING
                                       : F_CONTENT,
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

    long long *whole = f == F_TOKENS         ? &r->tokens
                       : f == F_VIOLATIONS   ? &r->violations
                       : f == F_LENGTH       ? &r->length
                       : f == F_DEPTH        ? &r->depth
                       : f == F_TESTS_PASSED ? &r->tests_passed
                       : f == F_TESTS_TOTAL  ? &r->tests_total
                                             : &r->saved;
    double *real = f == F_TPS         ? &r->tps
                   : f == F_PROMPT_MS ? &r->prompt_ms
                                      : &r->predicted_ms;
    int integer = f == F_TOKENS || f == F_VIOLATIONS || f == F_SAVED ||
                  f == F_LENGTH || f == F_DEPTH || f == F_TESTS_PASSED ||
                  f == F_TESTS_TOTAL;

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

/* "exec": an outcome's name (task.h's grader_exec_name), or null. */
static const char *exec_value(struct scan *x, const char *p)
{
    char name[SMALL]; /* not small[]: finish_reason points there */
    const char *q;
    size_t n;
    int over;

    if (*p == 'n') {
        x->row->exec = -1;
        return word(&x->c, p, "null");
    }
    if (*p != '"')
        return type_error(x, F_EXEC, "an outcome's name or null");
    if ((q = small_string(x, p, name, &n, &over)) == NULL)
        return NULL;
    if (over || (x->row->exec = grader_exec_parse(name, n)) < 0)
        return type_error(x, F_EXEC,
                          "one of \"passed\", \"failed\", \"error\", "
                          "\"syntax_error\", \"timeout\", \"killed\", "
                          "\"no_code\" or null");
    return q;
}

/* "exception" and "code_hash": a short string (at most 511 bytes, no
 * NUL) or null. */
static const char *code_string(struct scan *x, enum field f, const char *p)
{
    char *buf = f == F_EXCEPTION ? x->s->exception : x->s->code_hash;
    const char **s =
        f == F_EXCEPTION ? &x->row->exception : &x->row->code_hash;
    size_t *len =
        f == F_EXCEPTION ? &x->row->exception_len : &x->row->code_hash_len;
    const char *q;
    size_t n;
    int over;

    if (*p == 'n') {
        *s = NULL;
        *len = 0;
        return word(&x->c, p, "null");
    }
    if (*p != '"')
        return type_error(x, f, "a string or null");
    if ((q = small_string(x, p, buf, &n, &over)) == NULL)
        return NULL;
    if (over || memchr(buf, '\0', n) != NULL)
        return type_error(x, f, "a string of at most 511 bytes");
    *s = buf;
    *len = n;
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
    case F_EXEC:
        return exec_value(x, p);
    case F_TESTS_PASSED:
    case F_TESTS_TOTAL:
        return number_value(x, f, p);
    case F_EXCEPTION:
    case F_CODE_HASH:
        return code_string(x, f, p);
    case F_EXEC_OUTPUT:
        return text_value(x, p, 3, &r->output, &r->output_len);
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
    grader__free(s->buf[3]);
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
    row->exec = -1;
    row->tests_passed = row->tests_total = -1;
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
