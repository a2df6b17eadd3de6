/*
 * pyre_uni.c - the Unicode behind the regular expressions: Python 3.11's
 * \d, \s, \w, its simple case mappings and str.lower(), looked up in the
 * generated tables (pyre_tables.h), and the UTF-8 reading of a text.
 */
#include "pyre_impl.h"

#include "pyre_tables.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Whether c lies in one of the n sorted, disjoint ranges r. */
static int in_ranges(const uint32_t (*r)[2], size_t n, uint32_t c)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c < r[mid][0])
            hi = mid;
        else if (c > r[mid][1])
            lo = mid + 1;
        else
            return 1;
    }
    return 0;
}

/* The first of the n pairs sorted by [0] whose [0] is >= c. */
static size_t lower_bound(const uint32_t (*p)[2], size_t n, uint32_t c)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p[mid][0] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static uint32_t map_pairs(const uint32_t (*p)[2], size_t n, uint32_t c)
{
    size_t i = lower_bound(p, n, c);

    return (i < n && p[i][0] == c) ? p[i][1] : c;
}

uint32_t pyre__lower(uint32_t c)
{
    if (c < 0x80)
        return (c >= 'A' && c <= 'Z') ? c + 32 : c;
    return map_pairs(pyre_lower, NELEM(pyre_lower), c);
}

uint32_t pyre__upper(uint32_t c)
{
    if (c < 0x80)
        return (c >= 'a' && c <= 'z') ? c - 32 : c;
    return map_pairs(pyre_upper, NELEM(pyre_upper), c);
}

static int is_digit(uint32_t c)
{
    if (c < 0x80)
        return c >= '0' && c <= '9';
    return in_ranges(pyre_digit, NELEM(pyre_digit), c);
}

static int is_space(uint32_t c)
{
    if (c < 0x80)
        return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20);
    return in_ranges(pyre_space, NELEM(pyre_space), c);
}

int pyre__word(uint32_t c)
{
    if (c < 0x80)
        return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
               (c >= 'a' && c <= 'z') || c == '_';
    return in_ranges(pyre_word, NELEM(pyre_word), c);
}

int pyre__cat(unsigned cats, uint32_t c)
{
    if ((cats & GRADER__CAT_DIGIT) && is_digit(c))
        return 1;
    if ((cats & GRADER__CAT_NOT_DIGIT) && !is_digit(c))
        return 1;
    if ((cats & GRADER__CAT_SPACE) && is_space(c))
        return 1;
    if ((cats & GRADER__CAT_NOT_SPACE) && !is_space(c))
        return 1;
    if ((cats & GRADER__CAT_WORD) && pyre__word(c))
        return 1;
    if ((cats & GRADER__CAT_NOT_WORD) && !pyre__word(c))
        return 1;
    return 0;
}

size_t pyre__fixes(uint32_t c, uint32_t out[2])
{
    size_t lo = 0, hi = NELEM(pyre_fixes), n = 0;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pyre_fixes[mid][0] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == NELEM(pyre_fixes) || pyre_fixes[lo][0] != c)
        return 0;
    while (n < 2 && pyre_fixes[lo][1 + n] != 0) {
        out[n] = pyre_fixes[lo][1 + n];
        n++;
    }
    return n;
}

uint32_t pyre__fix_key(size_t i)
{
    return i < NELEM(pyre_fixes) ? pyre_fixes[i][0] : 0;
}

size_t pyre__lower_in(uint32_t a, uint32_t b, const uint32_t (**first)[2])
{
    size_t i = lower_bound(pyre_lower, NELEM(pyre_lower), a);
    size_t j = b == UINT32_MAX
                   ? NELEM(pyre_lower)
                   : lower_bound(pyre_lower, NELEM(pyre_lower), b + 1);

    *first = pyre_lower + i;
    return j - i;
}

/* _sre.unicode_iscased(c) is lower(c) != c or upper(c) != c: some entry
 * of either table falls in [a, b]. */
int pyre__cased_in(uint32_t a, uint32_t b)
{
    size_t i = lower_bound(pyre_lower, NELEM(pyre_lower), a);

    if (i < NELEM(pyre_lower) && pyre_lower[i][0] <= b)
        return 1;
    i = lower_bound(pyre_upper, NELEM(pyre_upper), a);
    return i < NELEM(pyre_upper) && pyre_upper[i][0] <= b;
}

size_t pyre__lower_full(uint32_t c, uint32_t out[3])
{
    size_t i, n = 0;

    for (i = 0; i < NELEM(pyre_lower_multi); i++) {
        if (pyre_lower_multi[i][0] != c)
            continue;
        while (n < 3 && pyre_lower_multi[i][1 + n] != 0) {
            out[n] = pyre_lower_multi[i][1 + n];
            n++;
        }
        return n;
    }
    out[0] = pyre__lower(c);
    return 1;
}

int pyre__case_ignorable(uint32_t c)
{
    return in_ranges(pyre_case_ignorable, NELEM(pyre_case_ignorable), c);
}

int pyre__cased(uint32_t c)
{
    return in_ranges(pyre_cased, NELEM(pyre_cased), c);
}

/* ---- UTF-8 ------------------------------------------------------------ */

size_t pyre_utf8_seq(const unsigned char *p, size_t len)
{
    unsigned c = p[0];
    size_t n, i;
    uint32_t cp;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, cp = c & 0x07;
    else
        return 0;
    if (len < n)
        return 0;
    for (i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    /* overlong forms, surrogates, past U+10FFFF */
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return 0;
    return n;
}

uint32_t pyre__decode(const unsigned char *s, size_t n, size_t p, size_t *len)
{
    size_t k, i;
    uint32_t c = s[p];

    if (c < 0x80) {
        *len = 1;
        return c;
    }
    k = pyre_utf8_seq(s + p, n - p);
    if (k == 0) {
        *len = 1;
        return 0xdc00 + c; /* surrogateescape */
    }
    c &= 0x7f >> k; /* the lead byte's payload: 5, 4 or 3 bits */
    for (i = 1; i < k; i++)
        c = (c << 6) | (s[p + i] & 0x3f);
    *len = k;
    return c;
}

size_t pyre__prev(const unsigned char *s, size_t p)
{
    size_t k;

    if (p == 0)
        return 0;
    if ((s[p - 1] & 0xc0) != 0x80)
        return p - 1; /* ASCII, or a lead byte standing alone */
    /* a continuation byte ends a valid sequence only if the first byte
     * back that is not one, k back, starts a sequence exactly k long;
     * otherwise it stands alone (forward reading agrees: a lead byte is
     * never inside another sequence) */
    for (k = 2; k <= 4 && k <= p; k++) {
        unsigned b = s[p - k];
        if ((b & 0xc0) == 0x80)
            continue;
        if (b >= 0xc0 && pyre_utf8_seq(s + p - k, k) == k)
            return p - k;
        return p - 1;
    }
    return p - 1;
}

size_t pyre__encode(uint32_t c, unsigned char *out)
{
    if (c < 0x80) {
        out[0] = (unsigned char)c;
        return 1;
    }
    if (c >= 0xdc80 && c <= 0xdcff) {
        out[0] = (unsigned char)(c - 0xdc00); /* a byte that was not UTF-8 */
        return 1;
    }
    if (c < 0x800) {
        out[0] = (unsigned char)(0xc0 | (c >> 6));
        out[1] = (unsigned char)(0x80 | (c & 0x3f));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (unsigned char)(0xe0 | (c >> 12));
        out[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
        out[2] = (unsigned char)(0x80 | (c & 0x3f));
        return 3;
    }
    out[0] = (unsigned char)(0xf0 | (c >> 18));
    out[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
    out[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
    out[3] = (unsigned char)(0x80 | (c & 0x3f));
    return 4;
}
