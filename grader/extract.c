/*
 * extract.c - answer extraction and loop detection over a reply's text.
 */
#include "extract.h"

#include <string.h>

#include "alloc.h"
#include "error.h"
#include "internal.h"

static int lower(int c)
{
    return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

/* Whether the 6 bytes before the colon at text[colon] spell "answer"
 * (internal.h: the choice rule finds its "Answer:" the same way). */
int grader__answer_before(const char *text, size_t colon)
{
    static const char word[] = "answer";
    size_t i;

    if (colon < 6)
        return 0;
    for (i = 0; i < 6; i++)
        if (lower((unsigned char)text[colon - 6 + i]) != word[i])
            return 0;
    return 1;
}

/* The last ':' in text[0..len), or NULL (memrchr is not in C11). */
static const char *last_colon(const char *text, size_t len)
{
    while (len > 0) {
        len--;
        if (text[len] == ':')
            return text + len;
    }
    return NULL;
}

/* Skip spaces, tabs and markdown emphasis. */
static size_t skip_decor(const char *p, size_t len)
{
    size_t i = 0;

    while (i < len &&
           (p[i] == ' ' || p[i] == '\t' || p[i] == '*' || p[i] == '_'))
        i++;
    return i;
}

int grader_extract(const char *text, size_t len, struct grader_num *out)
{
    const char *p, *end;
    size_t colon = len, i, c;
    char sign = 0;

    if (text == NULL)
        return 0;
    /* walk back over colons until one closes "answer" */
    for (;;) {
        const char *hit = last_colon(text, colon);
        if (hit == NULL)
            return 0;
        colon = (size_t)(hit - text);
        if (grader__answer_before(text, colon))
            break;
    }
    p = text + colon + 1;
    end = text + len;
    i = skip_decor(p, (size_t)(end - p));
    /* a sign may stand before or after the currency sign: -$5 or $-5 */
    if (p + i < end && (p[i] == '-' || p[i] == '+'))
        sign = p[i++];
    c = grader__currency_len(p + i, (size_t)(end - p - i));
    if (c > 0) {
        i += c;
        while (p + i < end && (p[i] == ' ' || p[i] == '\t'))
            i++;
    }
    /* with the sign already taken, a second one is not a number */
    if (sign != 0 && (p + i >= end || p[i] < '0' || p[i] > '9'))
        return 0;
    if (grader_num_scan(p + i, (size_t)(end - p - i), out) == 0)
        return 0;
    if (sign == '-' && strcmp(out->s, "0") != 0) {
        size_t n = strlen(out->s);
        if (n + 2 > sizeof(out->s))
            return 0;
        memmove(out->s + 1, out->s, n + 1);
        out->s[0] = '-';
        out->v = -out->v;
    }
    return 1;
}

/* ---- loop detection ---------------------------------------------------- */

struct grader__line_slot {
    uint64_t hash;
    const char *p;
    uint32_t len;
    uint32_t count;
};

void grader_loop_scratch_init(struct grader_loop_scratch *s)
{
    s->slots = NULL;
    s->cap = 0;
    s->mask = 0;
}

void grader_loop_scratch_release(struct grader_loop_scratch *s)
{
    grader__free(s->slots);
    grader_loop_scratch_init(s);
}

/* MurmurHash64A (Austin Appleby, public domain), 8 bytes a step. */
uint64_t grader__hash64(const char *p, size_t len, uint64_t seed)
{
    const uint64_t m = 0xc6a4a7935bd1e995ULL;
    const int r = 47;
    uint64_t h = seed ^ (len * m), k;
    size_t i = 0;

    for (; i + 8 <= len; i += 8) {
        memcpy(&k, p + i, 8);
        k *= m;
        k ^= k >> r;
        k *= m;
        h ^= k;
        h *= m;
    }
    if (i < len) {
        k = 0;
        memcpy(&k, p + i, len - i);
        h ^= k;
        h *= m;
    }
    h ^= h >> r;
    h *= m;
    h ^= h >> r;
    return h;
}

static int trim_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/*
 * Use a table of at least twice want slots (load under 1/2) and clear only
 * that many, so one long reply does not slow every later short one.
 */
static int loop_reserve(struct grader_loop_scratch *s, size_t want)
{
    size_t used = 64;
    struct grader__line_slot *slots;

    while (used < want * 2)
        used *= 2;
    if (used > s->cap) {
        slots = grader__reallocarray(s->slots, used, sizeof(*slots));
        if (slots == NULL)
            return GRADER_ENOMEM;
        s->slots = slots;
        s->cap = used;
    }
    s->mask = used - 1;
    memset(s->slots, 0, used * sizeof(*s->slots));
    return 0;
}

static size_t count_lines(const char *p, size_t len)
{
    size_t n = 1;
    const char *q = p, *end = p + len;

    while (q < end && (q = memchr(q, '\n', (size_t)(end - q))) != NULL) {
        n++;
        q++;
    }
    return n;
}

/* Count one line; returns its count so far. */
static uint32_t loop_add(struct grader_loop_scratch *s, const char *p,
                         size_t len)
{
    uint64_t h = grader__hash64(p, len, 0x9e3779b97f4a7c15ULL);
    size_t mask = s->mask, i = (size_t)h & mask;

    for (;; i = (i + 1) & mask) {
        struct grader__line_slot *slot = &s->slots[i];
        if (slot->count == 0) {
            slot->hash = h;
            slot->p = p;
            slot->len = (uint32_t)len;
            slot->count = 1;
            return 1;
        }
        if (slot->hash == h && slot->len == len &&
            memcmp(slot->p, p, len) == 0)
            return ++slot->count;
    }
}

static int loop_text(struct grader_loop_scratch *s, const char *p, size_t len)
{
    const char *end = p + len;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *a = p, *b = nl ? nl : end;
        p = nl ? nl + 1 : end;
        while (a < b && trim_space(*a))
            a++;
        while (b > a && trim_space(b[-1]))
            b--;
        if (a == b || (size_t)(b - a) > UINT32_MAX)
            continue;
        if (loop_add(s, a, (size_t)(b - a)) >= GRADER_LOOP_REPEATS)
            return 1;
    }
    return 0;
}

int grader_looped(struct grader_loop_scratch *s, const char *a, size_t alen,
                  const char *b, size_t blen)
{
    size_t lines = 0;
    int rc;

    if (a == NULL)
        alen = 0;
    if (b == NULL)
        blen = 0;
    /* fewer lines than the threshold cannot loop: the common case */
    if (alen > 0)
        lines += count_lines(a, alen);
    if (blen > 0)
        lines += count_lines(b, blen);
    if (lines < GRADER_LOOP_REPEATS)
        return 0;
    rc = loop_reserve(s, lines);
    if (rc != 0)
        return rc;
    if (alen > 0 && loop_text(s, a, alen))
        return 1;
    if (blen > 0 && loop_text(s, b, blen))
        return 1;
    return 0;
}
