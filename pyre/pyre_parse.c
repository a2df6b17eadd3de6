/*
 * pyre_parse.c - a pattern into a tree, as CPython 3.11's
 * Lib/re/_parser.py reads it, token for token: the same errors, and the
 * same rewrites of the tree (non-capturing groups dissolved, a prefix
 * common to every alternative taken out, an alternation of single
 * characters made a class, a one-character class made a literal),
 * because they decide which repeat operator sre uses and how a class
 * behaves under IGNORECASE (pyre_compile.c turns the tree into the
 * program).
 *
 * Nodes and class items live in two growing arrays and refer to each
 * other by index; a pattern is at most PYRE_PATTERN_MAX bytes and
 * PYRE_DEPTH_MAX parentheses deep, which bounds the recursion.
 */
#include "pyre_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAXREPEAT UINT32_MAX

struct seq {
    uint32_t head, tail;
};

struct parser {
    const uint32_t *p; /* the pattern's code points */
    size_t n, i;
    unsigned flags; /* the caller's, and global (?flags) */
    size_t groups;
    uint32_t names[PYRE_GROUPS_MAX][2]; /* start in p and length */
    struct pyre__node *nodes;
    size_t nnodes, capnodes;
    struct pyre__item *items;
    size_t nitems, capitems;
    int depth;
    char *msg;
    size_t msgsize;
};

/* Fail with "TEXT at position AT": PYRE_EARG. */
__attribute__((format(printf, 3, 4))) static int
fail(struct parser *P, size_t at, const char *fmt, ...)
{
    va_list ap;
    size_t k;

    if (P->msgsize == 0)
        return PYRE_EARG;
    va_start(ap, fmt);
    vsnprintf(P->msg, P->msgsize, fmt, ap);
    va_end(ap);
    k = strlen(P->msg);
    snprintf(P->msg + k, P->msgsize - k, " at position %zu", at);
    return PYRE_EARG;
}

/* ---- tokens: a character, or a backslash and the character after it */

static int peek_is(const struct parser *P, uint32_t c)
{
    return P->i < P->n && P->p[P->i] == c;
}

static int take(struct parser *P, uint32_t c)
{
    if (!peek_is(P, c))
        return 0;
    P->i++;
    return 1;
}

/* The next token (the caller knows there is one): 1 if an escape. */
static int get(struct parser *P, uint32_t *c)
{
    if (P->p[P->i] == '\\') {
        *c = P->p[P->i + 1]; /* compile() refused a lone last backslash */
        P->i += 2;
        return 1;
    }
    *c = P->p[P->i++];
    return 0;
}

static int is_digit(uint32_t c)
{
    return c >= '0' && c <= '9';
}

static int is_octal(uint32_t c)
{
    return c >= '0' && c <= '7';
}

static int hexval(uint32_t c)
{
    if (c >= '0' && c <= '9')
        return (int)(c - '0');
    if (c >= 'a' && c <= 'f')
        return (int)(c - 'a' + 10);
    if (c >= 'A' && c <= 'F')
        return (int)(c - 'A' + 10);
    return -1;
}

static int ascii_letter(uint32_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* ---- the tree ----------------------------------------------------------- */

static uint32_t node_new(struct parser *P, int kind, uint32_t a, uint32_t b)
{
    struct pyre__node *n;

    if (P->nnodes == P->capnodes) {
        size_t cap = P->capnodes ? P->capnodes * 2 : 64;
        n = pyre__reallocarray(P->nodes, cap, sizeof(*n));
        if (n == NULL)
            return PYRE__NIL;
        P->nodes = n;
        P->capnodes = cap;
    }
    n = &P->nodes[P->nnodes];
    memset(n, 0, sizeof(*n));
    n->next = PYRE__NIL;
    n->head = PYRE__NIL;
    n->kind = (uint8_t)kind;
    n->a = a;
    n->b = b;
    return (uint32_t)P->nnodes++;
}

static int item_add(struct parser *P, int kind, uint32_t lo, uint32_t hi)
{
    if (P->nitems == P->capitems) {
        size_t cap = P->capitems ? P->capitems * 2 : 64;
        struct pyre__item *it = pyre__reallocarray(P->items, cap, sizeof(*it));
        if (it == NULL)
            return PYRE_ENOMEM;
        P->items = it;
        P->capitems = cap;
    }
    P->items[P->nitems].kind = (uint8_t)kind;
    P->items[P->nitems].lo = lo;
    P->items[P->nitems].hi = hi;
    P->nitems++;
    return 0;
}

static void seq_append(struct parser *P, struct seq *s, uint32_t k)
{
    P->nodes[k].next = PYRE__NIL;
    if (s->head == PYRE__NIL)
        s->head = k;
    else
        P->nodes[s->tail].next = k;
    s->tail = k;
}

static int append_new(struct parser *P, struct seq *s, int kind, uint32_t a)
{
    uint32_t k = node_new(P, kind, a, 0);

    if (k == PYRE__NIL)
        return PYRE_ENOMEM;
    seq_append(P, s, k);
    return 0;
}

static int items_equal(const struct parser *P, uint32_t a, uint32_t b,
                       uint32_t n)
{
    uint32_t i;

    for (i = 0; i < n; i++) {
        const struct pyre__item *x = &P->items[a + i], *y = &P->items[b + i];
        if (x->kind != y->kind || x->lo != y->lo || x->hi != y->hi)
            return 0;
    }
    return 1;
}

/* Python's == on two parsed items: by value for characters, anchors and
 * classes; a node with a subpattern inside only equals itself. */
static int node_equal(const struct parser *P, uint32_t x, uint32_t y)
{
    const struct pyre__node *a = &P->nodes[x], *b = &P->nodes[y];

    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case GRADER__N_LIT:
    case GRADER__N_NLIT:
    case GRADER__N_AT:
        return a->a == b->a;
    case GRADER__N_ANY:
        return 1;
    case GRADER__N_IN:
        return a->flag == b->flag && a->b == b->b &&
               items_equal(P, a->a, b->a, a->b);
    default:
        return x == y;
    }
}

/* Python's _uniq on the items [first, nitems): keep each first one. */
static void items_uniq(struct parser *P, size_t first)
{
    size_t i, j, out = first;

    for (i = first; i < P->nitems; i++) {
        for (j = first; j < out; j++)
            if (items_equal(P, (uint32_t)i, (uint32_t)j, 1))
                break;
        if (j == out)
            P->items[out++] = P->items[i];
    }
    P->nitems = out;
}

/* ---- escapes ------------------------------------------------------------ */

enum { E_LIT, E_CAT, E_AT };

/* \x, \u, \U: exactly n hex digits, each its own token. */
static int escape_hex(struct parser *P, uint32_t c, size_t at, int n,
                      uint32_t *val)
{
    int i, h;

    *val = 0;
    for (i = 0; i < n && P->i < P->n && (h = hexval(P->p[P->i])) >= 0; i++) {
        *val = *val * 16 + (uint32_t)h;
        P->i++;
    }
    if (i != n)
        return fail(P, at, "incomplete escape \\%c", (char)c);
    if (*val > 0x10ffff)
        return fail(P, at, "bad escape \\%c", (char)c);
    return 0;
}

/* Up to `more` octal digits after the first: the value. */
static uint32_t octal_more(struct parser *P, uint32_t c, int more)
{
    uint32_t v = c - '0';

    while (more-- > 0 && P->i < P->n && is_octal(P->p[P->i]))
        v = v * 8 + (P->p[P->i++] - '0');
    return v;
}

/* \1 to \9 outside a class: three octal digits are a character,
 * anything else a group reference. */
static int escape_digit(struct parser *P, uint32_t c, size_t at, uint32_t *val)
{
    uint32_t group = c - '0';

    if (P->i < P->n && is_digit(P->p[P->i])) {
        uint32_t d = P->p[P->i++];
        if (is_octal(c) && is_octal(d) && P->i < P->n &&
            is_octal(P->p[P->i])) {
            *val = ((c - '0') * 8 + (d - '0')) * 8 + (P->p[P->i++] - '0');
            if (*val > 0377)
                return fail(P, at,
                            "octal escape value outside of range "
                            "0-0o377");
            return 0;
        }
        group = group * 10 + (d - '0');
    }
    if (group <= P->groups)
        return fail(P, at, "backreferences are not supported");
    return fail(P, at, "invalid group reference %u", (unsigned)group);
}

static int escape_cat(uint32_t c, uint32_t *val)
{
    switch (c) {
    case 'd':
        *val = GRADER__CAT_DIGIT;
        return 1;
    case 'D':
        *val = GRADER__CAT_NOT_DIGIT;
        return 1;
    case 's':
        *val = GRADER__CAT_SPACE;
        return 1;
    case 'S':
        *val = GRADER__CAT_NOT_SPACE;
        return 1;
    case 'w':
        *val = GRADER__CAT_WORD;
        return 1;
    case 'W':
        *val = GRADER__CAT_NOT_WORD;
        return 1;
    }
    return 0;
}

static int escape_char(uint32_t c, uint32_t *val)
{
    static const char from[] = "afnrtv\\", to[] = "\a\f\n\r\t\v\\";
    const char *hit = c < 0x80 ? strchr(from, (int)c) : NULL;

    if (hit == NULL || c == 0)
        return 0;
    *val = (unsigned char)to[hit - from];
    return 1;
}

/* An anchor escape outside a class: 1 and its code. */
static int escape_at(uint32_t c, uint32_t *val)
{
    switch (c) {
    case 'A':
        *val = GRADER__AT_BEGINNING_STRING;
        return 1;
    case 'b':
        *val = GRADER__AT_BOUNDARY;
        return 1;
    case 'B':
        *val = GRADER__AT_NON_BOUNDARY;
        return 1;
    case 'Z':
        *val = GRADER__AT_END_STRING;
        return 1;
    }
    return 0;
}

/* The escape whose character c was just read (at: its backslash),
 * inside a class or not (_class_escape, _escape): its kind and value. */
static int escape(struct parser *P, uint32_t c, size_t at, int in_class,
                  int *kind, uint32_t *val)
{
    *kind = E_LIT;
    if (escape_cat(c, val)) {
        *kind = E_CAT;
        return 0;
    }
    if (in_class && c == 'b') {
        *val = '\b';
        return 0;
    }
    if (!in_class && escape_at(c, val)) {
        *kind = E_AT;
        return 0;
    }
    if (escape_char(c, val))
        return 0;
    if (c == 'x' || c == 'u' || c == 'U')
        return escape_hex(P, c, at, c == 'x' ? 2 : c == 'u' ? 4 : 8, val);
    if (c == 'N')
        return fail(P, at, "named characters \\N{...} are not supported");
    if (c == '0' || (in_class && is_octal(c))) {
        *val = octal_more(P, c, 2);
        if (*val > 0377)
            return fail(P, at, "octal escape value outside of range 0-0o377");
        return 0;
    }
    if (is_digit(c)) {
        if (in_class)
            return fail(P, at, "bad escape \\%c", (char)c);
        return escape_digit(P, c, at, val);
    }
    if (ascii_letter(c))
        return fail(P, at, "bad escape \\%c", (char)c);
    *val = c;
    return 0;
}

/* ---- the parser --------------------------------------------------------- */

static int parse_sub(struct parser *P, int top, struct seq *out);

/* [...] (at: the '['): a class, or a (negated) literal when it holds
 * one character only. */
static int class_item(struct parser *P, size_t at, uint32_t *c, int *kind,
                      uint32_t *val)
{
    if (get(P, c))
        return escape(P, *c, at, 1, kind, val);
    *kind = E_LIT;
    *val = *c;
    return 0;
}

static int parse_class_body(struct parser *P, size_t at, size_t first)
{
    uint32_t c, c2, v1, v2;
    int k1, k2, rc;

    for (;;) {
        size_t here = P->i;
        if (P->i >= P->n)
            return fail(P, at, "unterminated character set");
        if (peek_is(P, ']') && P->nitems > first) {
            P->i++;
            return 0;
        }
        if ((rc = class_item(P, here, &c, &k1, &v1)) != 0)
            return rc;
        if (!take(P, '-')) {
            rc = item_add(P, k1 == E_CAT ? GRADER__I_CAT : GRADER__I_LIT, v1,
                          v1);
            if (rc != 0)
                return rc;
            continue;
        }
        if (P->i >= P->n)
            return fail(P, at, "unterminated character set");
        if (take(P, ']')) {
            if ((rc = item_add(P, k1 == E_CAT ? GRADER__I_CAT : GRADER__I_LIT,
                               v1, v1)) ||
                (rc = item_add(P, GRADER__I_LIT, '-', '-')))
                return rc;
            return 0;
        }
        if ((rc = class_item(P, P->i, &c2, &k2, &v2)) != 0)
            return rc;
        if (k1 != E_LIT || k2 != E_LIT || v2 < v1)
            return fail(P, here, "bad character range");
        if ((rc = item_add(P, GRADER__I_RANGE, v1, v2)) != 0)
            return rc;
    }
}

static int parse_class(struct parser *P, size_t at, struct seq *s)
{
    size_t first = P->nitems;
    int negate = take(P, '^'), rc;
    uint32_t k;

    if ((rc = parse_class_body(P, at, first)) != 0)
        return rc;
    items_uniq(P, first);
    if (P->nitems - first == 1 && P->items[first].kind == GRADER__I_LIT) {
        uint32_t c = P->items[first].lo;
        P->nitems = first;
        return append_new(P, s, negate ? GRADER__N_NLIT : GRADER__N_LIT, c);
    }
    k = node_new(P, GRADER__N_IN, (uint32_t)first,
                 (uint32_t)(P->nitems - first));
    if (k == PYRE__NIL)
        return PYRE_ENOMEM;
    P->nodes[k].flag = (uint8_t)negate;
    seq_append(P, s, k);
    return 0;
}

/* Digits of a {m,n}: the value, saturated at MAXREPEAT; *any if some. */
static uint32_t repeat_count(struct parser *P, int *any)
{
    uint64_t v = 0;

    *any = 0;
    while (P->i < P->n && is_digit(P->p[P->i])) {
        v = v * 10 + (P->p[P->i++] - '0');
        if (v > MAXREPEAT)
            v = MAXREPEAT;
        *any = 1;
    }
    return (uint32_t)v;
}

/* After a '{': 1 with the bounds if a quantifier follows, 0 if the '{'
 * is a literal (the position is then back after it). */
static int parse_braces(struct parser *P, size_t at, uint32_t *min,
                        uint32_t *max, int *rc)
{
    size_t here = P->i;
    int has_lo, has_hi;
    uint32_t lo, hi;

    *rc = 0;
    if (peek_is(P, '}'))
        return 0;
    lo = repeat_count(P, &has_lo);
    if (take(P, ','))
        hi = repeat_count(P, &has_hi);
    else
        hi = lo, has_hi = has_lo;
    if (!take(P, '}')) {
        P->i = here;
        return 0;
    }
    *min = has_lo ? lo : 0;
    *max = has_hi ? hi : MAXREPEAT;
    if ((has_lo && lo >= MAXREPEAT) || (has_hi && hi >= MAXREPEAT))
        *rc = fail(P, at, "the repetition number is too large");
    else if (*max < *min)
        *rc = fail(P, at, "min repeat greater than max repeat");
    return 1;
}

static int parse_repeat(struct parser *P, uint32_t c, size_t at, struct seq *s)
{
    uint32_t min = c == '+', max = c == '?' ? 1 : MAXREPEAT, item, copy;
    int rc, lazy;
    struct pyre__node *n;

    if (c == '{' && !parse_braces(P, at, &min, &max, &rc))
        return append_new(P, s, GRADER__N_LIT, '{');
    if (c == '{' && rc != 0)
        return rc;
    item = s->tail;
    if (item == PYRE__NIL || P->nodes[item].kind == GRADER__N_AT)
        return fail(P, at, "nothing to repeat");
    if (P->nodes[item].kind == GRADER__N_REPEAT)
        return fail(P, at, "multiple repeat");
    lazy = take(P, '?');
    if (!lazy && peek_is(P, '+'))
        return fail(P, at, "possessive quantifiers are not supported");
    if ((copy = node_new(P, GRADER__N_LIT, 0, 0)) == PYRE__NIL)
        return PYRE_ENOMEM;
    P->nodes[copy] = P->nodes[item];
    P->nodes[copy].next = PYRE__NIL;
    n = &P->nodes[item];
    /* a bare (?:...) repeated is its content repeated */
    if (n->kind == GRADER__N_SUB && n->a == 0 && n->add == 0 && n->del == 0)
        copy = n->head;
    memset(n, 0, sizeof(*n));
    n->kind = GRADER__N_REPEAT;
    n->a = min;
    n->b = max;
    n->flag = (uint8_t)lazy;
    n->head = copy;
    n->next = PYRE__NIL;
    return 0;
}

/* A letter of Python's inline flags (re._parser.FLAGS). */
static int is_flag_letter(uint32_t c)
{
    return c < 0x80 && c != 0 && strchr("aiLmstux", (int)c) != NULL;
}

/* A flag we take: its bit. 'u' (a str pattern's default) and 'x' (when
 * turned off) change nothing, but a group that names them is no bare
 * (?:...) to Python, which keeps it whole: they get bits the compiler
 * ignores. */
#define FLAG_U 0x08u
#define FLAG_X 0x10u
static int flag_bit(uint32_t c, unsigned *bit)
{
    *bit = c == 'i'   ? PYRE_IGNORECASE
           : c == 's' ? PYRE_DOTALL
           : c == 'm' ? PYRE_MULTILINE
           : c == 'u' ? FLAG_U
           : c == 'x' ? FLAG_X
                      : 0;
    return *bit != 0;
}

/* Flags turned on, from the letter *c on; *c is then ')', '-' or ':'. */
static int flags_on(struct parser *P, uint32_t *c, unsigned *add)
{
    unsigned bit;
    int esc;

    for (;;) {
        size_t at = P->i - 1;
        if (*c == 'L')
            return fail(P, at,
                        "bad inline flags: cannot use 'L' flag with "
                        "a str pattern");
        if (*c == 'x' || *c == 'a' || *c == 't' || !flag_bit(*c, &bit))
            return fail(P, at, "the inline flag '%c' is not supported",
                        (char)*c);
        *add |= bit;
        if (P->i >= P->n)
            return fail(P, P->i, "missing -, : or )");
        esc = get(P, c);
        if (!esc && (*c == ')' || *c == '-' || *c == ':'))
            return 0;
        if (esc || !is_flag_letter(*c))
            return fail(P, P->i - 1, "unknown flag, or missing -, : or )");
    }
}

/* Flags turned off, after the '-', up to the ':'. */
static int flags_off(struct parser *P, unsigned *del)
{
    unsigned bit;
    uint32_t c;
    int esc;

    if (P->i >= P->n)
        return fail(P, P->i, "missing flag");
    esc = get(P, &c);
    for (;;) {
        size_t at = P->i - 1;
        if (esc || !is_flag_letter(c))
            return fail(P, at, "unknown flag, or missing flag or :");
        if (c == 'a' || c == 'u' || c == 'L' || c == 't' || !flag_bit(c, &bit))
            return fail(P, at, "bad inline flags: cannot turn off '%c'",
                        (char)c);
        *del |= bit;
        if (P->i >= P->n)
            return fail(P, P->i, "missing :");
        esc = get(P, &c);
        if (!esc && c == ':')
            return 0;
    }
}

/* (?flags) or (?flags-flags: (c the first letter): 1 for global flags,
 * 0 for scoped ones in *add and *del, or an error. */
static int parse_flags(struct parser *P, uint32_t c, unsigned *add,
                       unsigned *del)
{
    int rc;

    *add = *del = 0;
    if (c != '-' && (rc = flags_on(P, &c, add)) != 0)
        return rc;
    if (c == ')')
        return 1;
    if (c == '-' && (rc = flags_off(P, del)) != 0)
        return rc;
    if (*add & *del)
        return fail(P, P->i, "bad inline flags: flag turned on and off");
    return 0;
}

/* (?P<name>: the name up to '>', ASCII identifiers only. */
static int group_name(struct parser *P, size_t at, uint32_t *start,
                      uint32_t *len)
{
    size_t i, g;
    uint32_t c;
    int ascii = 1, ident = 1;

    *start = (uint32_t)P->i;
    for (;;) {
        if (P->i >= P->n)
            return fail(P, at,
                        P->i == *start ? "missing group name"
                                       : "missing >, unterminated "
                                         "name");
        if (take(P, '>'))
            break;
        if (get(P, &c))
            ident = 0;
        ascii &= c < 0x80;
    }
    *len = (uint32_t)(P->i - 1 - *start);
    if (*len == 0)
        return fail(P, at, "missing group name");
    for (i = 0; i < *len && ident && ascii; i++) {
        c = P->p[*start + i];
        ident = ascii_letter(c) || c == '_' || (i > 0 && is_digit(c));
    }
    if (ident && !ascii)
        return fail(P, at, "non-ASCII group names are not supported");
    if (!ident)
        return fail(P, at, "bad character in group name");
    for (g = 0; g < P->groups; g++)
        if (P->names[g][1] == *len &&
            memcmp(P->p + P->names[g][0], P->p + *start,
                   *len * sizeof(*P->p)) == 0)
            return fail(P, at, "redefinition of group name");
    return 0;
}

static int parse_lookahead(struct parser *P, int kind, size_t at,
                           struct seq *s)
{
    struct seq body;
    uint32_t k;
    int rc;

    if ((rc = parse_sub(P, 0, &body)) != 0)
        return rc;
    if (!take(P, ')'))
        return fail(P, at, "missing ), unterminated subpattern");
    if ((k = node_new(P, kind, 0, 0)) == PYRE__NIL)
        return PYRE_ENOMEM;
    P->nodes[k].head = body.head;
    seq_append(P, s, k);
    return 0;
}

/* What follows "(?": 1 when it made a whole item (a lookahead, a
 * comment, global flags), 0 when a group body follows (its name or
 * scoped flags filled), or an error. */
static int group_ext(struct parser *P, int first, size_t at, struct seq *s,
                     uint32_t name[2], unsigned *add, unsigned *del)
{
    uint32_t c;
    int rc;

    if (P->i >= P->n)
        return fail(P, P->i, "unexpected end of pattern");
    if (get(P, &c))
        return fail(P, at, "unknown extension ?\\%c", (char)c);
    if (c == 'P') {
        if (take(P, '<'))
            return group_name(P, at, &name[0], &name[1]);
        if (take(P, '='))
            return fail(P, at, "named backreferences are not supported");
        return fail(P, at, "unknown extension ?P");
    }
    if (c == ':')
        return 0;
    if (c == '#') {
        for (;;) {
            if (P->i >= P->n)
                return fail(P, at, "missing ), unterminated comment");
            if (take(P, ')'))
                return 1;
            get(P, &c);
        }
    }
    if (c == '=' || c == '!') {
        rc = parse_lookahead(
            P, c == '=' ? GRADER__N_ASSERT : GRADER__N_ASSERT_NOT, at, s);
        return rc != 0 ? rc : 1;
    }
    if (c == '<') {
        if (P->i < P->n && (peek_is(P, '=') || peek_is(P, '!')))
            return fail(P, at, "lookbehind assertions are not supported");
        return fail(P, at, "unknown extension ?<");
    }
    if (c == '(')
        return fail(P, at, "conditional groups are not supported");
    if (c == '>')
        return fail(P, at, "atomic groups are not supported");
    if (!is_flag_letter(c) && c != '-')
        return fail(P, at, "unknown extension ?%c", c < 0x80 ? (char)c : '?');
    if ((rc = parse_flags(P, c, add, del)) <= 0)
        return rc;
    if (!first || s->head != PYRE__NIL)
        return fail(P, at, "global flags not at the start of the expression");
    P->flags |= *add;
    return 1;
}

static int parse_group(struct parser *P, int first, size_t at, struct seq *s)
{
    uint32_t name[2] = {0, 0}, group = 0, k;
    unsigned add = 0, del = 0;
    int capture = 1, rc;
    struct seq body;

    if (take(P, '?')) {
        if ((rc = group_ext(P, first, at, s, name, &add, &del)) != 0)
            return rc < 0 ? rc : 0;
        capture = name[1] > 0; /* not (?: nor scoped flags */
    }
    if (capture) {
        if (P->groups == PYRE_GROUPS_MAX)
            return fail(P, at, "more than %d groups are not supported",
                        PYRE_GROUPS_MAX);
        P->names[P->groups][0] = name[0];
        P->names[P->groups][1] = name[1];
        group = (uint32_t)++P->groups;
    }
    if ((rc = parse_sub(P, 0, &body)) != 0)
        return rc;
    if (!take(P, ')'))
        return fail(P, at, "missing ), unterminated subpattern");
    if ((k = node_new(P, GRADER__N_SUB, group, 0)) == PYRE__NIL)
        return PYRE_ENOMEM;
    P->nodes[k].head = body.head;
    P->nodes[k].add = (uint8_t)add;
    P->nodes[k].del = (uint8_t)del;
    seq_append(P, s, k);
    return 0;
}

/* One token's worth of _parse's loop, appended to s. */
static int parse_atom(struct parser *P, int first, struct seq *s)
{
    size_t at = P->i;
    uint32_t c, v;
    int kind, rc;

    if (get(P, &c)) {
        if ((rc = escape(P, c, at, 0, &kind, &v)) != 0)
            return rc;
        if (kind == E_CAT) {
            uint32_t k = node_new(P, GRADER__N_IN, (uint32_t)P->nitems, 1);
            if (k == PYRE__NIL || item_add(P, GRADER__I_CAT, v, v) != 0)
                return PYRE_ENOMEM;
            seq_append(P, s, k);
            return 0;
        }
        return append_new(P, s, kind == E_AT ? GRADER__N_AT : GRADER__N_LIT,
                          v);
    }
    switch (c) {
    case '[':
        return parse_class(P, at, s);
    case '*':
    case '+':
    case '?':
    case '{':
        return parse_repeat(P, c, at, s);
    case '.':
        return append_new(P, s, GRADER__N_ANY, 0);
    case '(':
        return parse_group(P, first, at, s);
    case '^':
        return append_new(P, s, GRADER__N_AT, GRADER__AT_BEGINNING);
    case '$':
        return append_new(P, s, GRADER__N_AT, GRADER__AT_END);
    }
    return append_new(P, s, GRADER__N_LIT, c);
}

/* _parse: a sequence up to '|', ')' or the end, bare (?:...) dissolved
 * into it. first: the top level's first alternative, where global flags
 * may stand. */
static int parse_seq(struct parser *P, int first, struct seq *out)
{
    struct seq s = {PYRE__NIL, PYRE__NIL}, flat = {PYRE__NIL, PYRE__NIL};
    uint32_t k, next, j, jn;
    int rc;

    while (P->i < P->n && !peek_is(P, '|') && !peek_is(P, ')'))
        if ((rc = parse_atom(P, first, &s)) != 0)
            return rc;
    for (k = s.head; k != PYRE__NIL; k = next) {
        const struct pyre__node *n = &P->nodes[k];
        next = n->next;
        if (n->kind != GRADER__N_SUB || n->a != 0 || n->add != 0 ||
            n->del != 0) {
            seq_append(P, &flat, k);
            continue;
        }
        for (j = n->head; j != PYRE__NIL; j = jn) {
            jn = P->nodes[j].next;
            seq_append(P, &flat, j);
        }
    }
    *out = flat;
    return 0;
}

/* Take out a first item common to every alternative (alts: the GRADER__N_ALT
 * chain), as long as there is one. */
static void factor_prefix(struct parser *P, uint32_t alts, struct seq *res)
{
    uint32_t a, prefix;

    for (;;) {
        prefix = PYRE__NIL;
        for (a = alts; a != PYRE__NIL; a = P->nodes[a].next) {
            uint32_t h = P->nodes[a].head;
            if (h == PYRE__NIL ||
                (prefix != PYRE__NIL && !node_equal(P, h, prefix)))
                return;
            if (prefix == PYRE__NIL)
                prefix = h;
        }
        for (a = alts; a != PYRE__NIL; a = P->nodes[a].next)
            P->nodes[a].head = P->nodes[P->nodes[a].head].next;
        seq_append(P, res, prefix);
    }
}

/* An alternation of single characters and classes becomes one class;
 * 1 when done, 0 when it is no such alternation, or an error. */
static int branch_as_class(struct parser *P, uint32_t alts, struct seq *res)
{
    uint32_t a, k, i;
    size_t first = P->nitems;

    for (a = alts; a != PYRE__NIL; a = P->nodes[a].next) {
        const struct pyre__node *h;
        if (P->nodes[a].head == PYRE__NIL)
            return 0;
        h = &P->nodes[P->nodes[a].head];
        if (h->next != PYRE__NIL ||
            !(h->kind == GRADER__N_LIT ||
              (h->kind == GRADER__N_IN && h->flag == 0)))
            return 0;
    }
    for (a = alts; a != PYRE__NIL; a = P->nodes[a].next) {
        const struct pyre__node h = P->nodes[P->nodes[a].head];
        if (h.kind == GRADER__N_LIT &&
            item_add(P, GRADER__I_LIT, h.a, h.a) != 0)
            return PYRE_ENOMEM;
        for (i = 0; h.kind == GRADER__N_IN && i < h.b; i++) {
            struct pyre__item it = P->items[h.a + i];
            if (item_add(P, it.kind, it.lo, it.hi) != 0)
                return PYRE_ENOMEM;
        }
    }
    items_uniq(P, first);
    k = node_new(P, GRADER__N_IN, (uint32_t)first,
                 (uint32_t)(P->nitems - first));
    if (k == PYRE__NIL)
        return PYRE_ENOMEM;
    seq_append(P, res, k);
    return 1;
}

/* _parse_sub: alternatives separated by '|'. */
static int parse_sub(struct parser *P, int top, struct seq *out)
{
    uint32_t alts = PYRE__NIL, last = PYRE__NIL, k;
    struct seq s, res = {PYRE__NIL, PYRE__NIL};
    size_t nalt = 0;
    int rc;

    if (++P->depth > PYRE_DEPTH_MAX)
        return fail(P, P->i,
                    "parentheses nested over %d deep are not "
                    "supported",
                    PYRE_DEPTH_MAX);
    do {
        if ((rc = parse_seq(P, top && nalt == 0, &s)) != 0)
            return rc;
        if ((k = node_new(P, GRADER__N_ALT, 0, 0)) == PYRE__NIL)
            return PYRE_ENOMEM;
        P->nodes[k].head = s.head;
        if (alts == PYRE__NIL)
            alts = k;
        else
            P->nodes[last].next = k;
        last = k;
        nalt++;
    } while (take(P, '|'));
    P->depth--;
    if (nalt == 1) {
        *out = s;
        return 0;
    }
    factor_prefix(P, alts, &res);
    if ((rc = branch_as_class(P, alts, &res)) < 0)
        return rc;
    if (rc == 0) {
        if ((k = node_new(P, GRADER__N_BRANCH, 0, 0)) == PYRE__NIL)
            return PYRE_ENOMEM;
        P->nodes[k].head = alts;
        seq_append(P, &res, k);
    }
    *out = res;
    return 0;
}

/* The pattern's code points into P->p: PYRE_EARG if it is not UTF-8
 * or ends in a lone backslash (the tokenizer's first complaint). */
static int decode_pattern(struct parser *P, const unsigned char *s, size_t len,
                          uint32_t **cps)
{
    size_t i = 0, n = 0, k;

    *cps = pyre__calloc(len + 1, sizeof(**cps));
    if (*cps == NULL)
        return PYRE_ENOMEM;
    while (i < len) {
        if ((k = pyre_utf8_seq(s + i, len - i)) == 0) {
            snprintf(P->msg, P->msgsize, "pattern is not UTF-8 at byte %zu",
                     i);
            return PYRE_EARG;
        }
        (*cps)[n++] = pyre__decode(s, len, i, &k);
        i += k;
    }
    P->p = *cps;
    P->n = n;
    for (i = 0; i < n; i++)
        if (P->p[i] == '\\' && ++i == n)
            return fail(P, n - 1, "bad escape (end of pattern)");
    return 0;
}

int pyre__parse(const char *pat, size_t len, unsigned flags,
                struct pyre__tree *t, char *msg, size_t msgsize)
{
    struct parser P;
    struct seq root = {PYRE__NIL, PYRE__NIL};
    uint32_t *cps = NULL;
    int rc;

    memset(&P, 0, sizeof(P));
    memset(t, 0, sizeof(*t));
    P.msg = msgsize ? msg : NULL;
    P.msgsize = msgsize;
    if (msgsize)
        msg[0] = '\0';
    if ((flags & ~7u) != 0)
        return fail(&P, 0, "unknown flags 0x%x", flags);
    if (len > PYRE_PATTERN_MAX)
        return fail(&P, 0, "patterns over %d bytes are not supported",
                    PYRE_PATTERN_MAX);
    P.flags = flags;
    rc = decode_pattern(&P, (const unsigned char *)pat, len, &cps);
    if (rc == 0)
        rc = parse_sub(&P, 1, &root);
    if (rc == 0 && P.i < P.n)
        rc = fail(&P, P.i, "unbalanced parenthesis");
    pyre__dealloc(cps);
    t->nodes = P.nodes;
    t->items = P.items;
    t->root = root.head;
    t->groups = P.groups;
    t->flags = P.flags;
    if (rc != 0)
        pyre__tree_release(t);
    return rc;
}

void pyre__tree_release(struct pyre__tree *t)
{
    pyre__dealloc(t->nodes);
    pyre__dealloc(t->items);
    memset(t, 0, sizeof(*t));
}
