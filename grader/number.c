/*
 * number.c - scan decimal numbers as people write them in answers and
 * bring them to one canonical string so that equal values compare equal.
 */
#include "number.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

size_t grader__currency_len(const char *p, size_t len)
{
    static const char *const signs[] = {"$", "\xc2\xa3", "\xe2\x82\xac",
                                        "\xc2\xa5", "\xe2\x82\xb9"};
    size_t i;

    for (i = 0; i < sizeof(signs) / sizeof(signs[0]); i++) {
        size_t n = strlen(signs[i]);
        if (len >= n && memcmp(p, signs[i], n) == 0)
            return n;
    }
    return 0;
}

/* Length of the run of digits at p. */
static size_t digits(const char *p, size_t len)
{
    size_t i = 0;

    while (i < len && is_digit(p[i]))
        i++;
    return i;
}

/*
 * Build the canonical form from the integer digits (commas already known to
 * sit between groups, skipped here) and the fraction digits.
 */
static int canonical(int neg, const char *ip, size_t ilen, const char *fp,
                     size_t flen, struct grader_num *out)
{
    char buf[GRADER_NUM_MAX];
    size_t n = 0, i;
    int nonzero = 0;

    /* integer part without commas and leading zeros */
    for (i = 0; i < ilen; i++) {
        if (ip[i] == ',')
            continue;
        if (n == 0 && ip[i] == '0')
            continue;
        if (n + 1 >= sizeof(buf))
            return -1;
        buf[n++] = ip[i];
        nonzero = 1;
    }
    if (n == 0) {
        buf[n++] = '0';
    }
    while (flen > 0 && fp[flen - 1] == '0')
        flen--;
    if (flen > 0) {
        if (n + 1 + flen >= sizeof(buf))
            return -1;
        buf[n++] = '.';
        memcpy(buf + n, fp, flen);
        n += flen;
        nonzero = 1;
    }
    buf[n] = '\0';
    if (neg && nonzero) {
        if (n + 2 > sizeof(out->s))
            return -1;
        out->s[0] = '-';
        memcpy(out->s + 1, buf, n + 1);
    } else {
        memcpy(out->s, buf, n + 1);
    }
    out->v = strtod(out->s, NULL);
    return 0;
}

size_t grader_num_scan(const char *p, size_t len, struct grader_num *out)
{
    size_t i = 0, ilen, flen = 0, lead;
    const char *ip, *fp = NULL;
    int neg = 0;

    if (i < len && (p[i] == '-' || p[i] == '+')) {
        neg = p[i] == '-';
        i++;
    }
    ip = p + i;
    lead = digits(p + i, len - i);
    if (lead == 0)
        return 0;
    i += lead;
    /* thousands groups only after a lead of 1 to 3 digits */
    if (lead <= 3) {
        while (i + 4 <= len && p[i] == ',' && digits(p + i + 1, 3) == 3 &&
               (i + 4 == len || !is_digit(p[i + 4])))
            i += 4;
    }
    ilen = (size_t)(p + i - ip);
    if (i + 1 < len && p[i] == '.' && is_digit(p[i + 1])) {
        fp = p + i + 1;
        flen = digits(fp, len - i - 1);
        i += 1 + flen;
    }
    if (canonical(neg, ip, ilen, fp, flen, out) != 0)
        return 0;
    return i;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int grader_num_parse(const char *s, size_t len, struct grader_num *out)
{
    size_t i = 0, c, used;

    while (len > 0 && is_space(s[len - 1]))
        len--;
    while (i < len && is_space(s[i]))
        i++;
    c = grader__currency_len(s + i, len - i);
    i += c;
    used = grader_num_scan(s + i, len - i, out);
    if (used == 0 || i + used != len)
        return -1;
    return 0;
}
