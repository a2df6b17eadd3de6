/*
 * fmt.c - numbers as the reports print them.
 */
#include "fmt.h"

#include "../grader/grader.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *fmt_count(char *out, long long v)
{
    char digits[32];
    size_t n, i, o = 0;

    if (v < 0) {
        snprintf(out, FMT_SIZE, "%s", FMT_DASH);
        return out;
    }
    n = (size_t)snprintf(digits, sizeof(digits), "%lld", v);
    for (i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
    return out;
}

/* Past this a fixed point prints more digits than anyone reads, and
 * past 1e93 more than FMT_SIZE holds (%.1f of 1e300 is 302 characters):
 * such a figure prints as 1e+40, whole, never cut to its first digits. */
#define FMT_FIXED_MAX 1e15

char *fmt_fixed(char *out, double v, int digits)
{
    if (v < 0 || !isfinite(v))
        snprintf(out, FMT_SIZE, "%s", FMT_DASH);
    else if (v >= FMT_FIXED_MAX)
        snprintf(out, FMT_SIZE, "%.2g", v);
    else
        snprintf(out, FMT_SIZE, "%.*f", digits, v);
    return out;
}

char *fmt_margin(char *out, double points)
{
    int digits = 4;

    snprintf(out, FMT_SIZE, "%.*g", digits, points);
    while (points < 100.0 && strtod(out, NULL) >= 100.0 && digits < 17)
        snprintf(out, FMT_SIZE, "%.*g", ++digits, points);
    return out;
}

char *fmt_p(char *out, double p)
{
    if (p >= 0.001)
        snprintf(out, FMT_SIZE, "%.3f", p);
    else if (p < 1e-300) /* a 1,319-to-0 split underflows a double */
        snprintf(out, FMT_SIZE, "< 1e-300");
    else
        snprintf(out, FMT_SIZE, "%.1e", p);
    return out;
}

char *fmt_signed(char *out, double v, int digits)
{
    if (!isfinite(v))
        snprintf(out, FMT_SIZE, "%s", FMT_DASH);
    else if (fabs(v) >= FMT_FIXED_MAX)
        snprintf(out, FMT_SIZE, "%.2g", v);
    else if (v < 0 && snprintf(out, FMT_SIZE, "%.*f", digits, -v) > 0 &&
             strspn(out, "0.") != strlen(out)) /* -0.00 prints as 0.00 */
        snprintf(out, FMT_SIZE, "\xe2\x88\x92%.*f", digits, -v);
    else
        snprintf(out, FMT_SIZE, "%.*f", digits, fabs(v));
    return out;
}

char *fmt_pct_ci(char *out, double v, double lo, double hi)
{
    snprintf(out, FMT_SIZE, "%.1f (%.1f\xe2\x80\x93%.1f)", 100.0 * v,
             100.0 * lo, 100.0 * hi);
    return out;
}

/* A signed number of percentage points with a real minus sign; -0.0
 * prints as 0.0. */
static int signed1(char *out, size_t size, double v, int plus)
{
    double r = round(v * 1000.0) / 10.0;

    if (r == 0.0)
        return snprintf(out, size, "%s0.0", plus ? "\xc2\xb1" : "");
    if (r < 0)
        return snprintf(out, size, "\xe2\x88\x92%.1f", -r);
    return snprintf(out, size, "%s%.1f", plus ? "+" : "", r);
}

char *fmt_pp_ci(char *out, double v, double lo, double hi)
{
    char a[24], b[24], c[24];

    signed1(a, sizeof(a), v, 1);
    signed1(b, sizeof(b), lo, 1);
    signed1(c, sizeof(c), hi, 1);
    snprintf(out, FMT_SIZE, "%s (%s to %s)", a, b, c);
    return out;
}

void fmt_cell(char *out, size_t size, const char *s)
{
    size_t o = 0;

    for (; *s != '\0' && o + 2 < size; s++) {
        if (*s == '|') {
            out[o++] = '\\';
            out[o++] = '|';
        } else {
            out[o++] = (*s == '\n' || *s == '\r') ? ' ' : *s;
        }
    }
    out[o] = '\0';
}

/* fmt_text and fmt_id: line ends as spaces, or (lines) as entities. */
static void text(char *out, size_t size, const char *s, int lines)
{
    static const char punct[] = "\\`*_[]()#|!~";
    size_t o = 0;

    for (; *s != '\0'; s++) {
        const char *rep = NULL;
        char two[3] = {'\\', *s, '\0'};
        if (*s == '<')
            rep = "&lt;";
        else if (*s == '>')
            rep = "&gt;";
        else if (*s == '&')
            rep = "&amp;";
        else if (*s == '\n')
            rep = lines ? "&#10;" : " ";
        else if (*s == '\r')
            rep = lines ? "&#13;" : " ";
        else if (strchr(punct, *s) != NULL)
            rep = two;
        if (rep == NULL) {
            if (o + 2 > size)
                break;
            out[o++] = *s;
        } else {
            size_t n = strlen(rep);
            if (o + n + 1 > size)
                break;
            memcpy(out + o, rep, n);
            o += n;
        }
    }
    out[o] = '\0';
}

void fmt_text(char *out, size_t size, const char *s)
{
    text(out, size, s, 0);
}

void fmt_id(char *out, size_t size, const char *s)
{
    text(out, size, s, 1);
}

void fmt_code(char *out, size_t size, const char *s)
{
    size_t o = 0;

    for (; *s != '\0' && o + 3 < size; s++) {
        if (*s == '|') {
            out[o++] = '\\';
            out[o++] = '|';
        } else if (*s == '`') {
            out[o++] = '\'';
        } else {
            out[o++] = (*s == '\n' || *s == '\r') ? ' ' : *s;
        }
    }
    out[o] = '\0';
}

char *fmt_number(char *out, const char *canonical)
{
    const char *digits = canonical + (canonical[0] == '-');
    size_t whole = strcspn(digits, "."), i, o = 0;

    /* no room to group, or no number (a letter; a list of expected
     * strings' canonical form, "answers:2:..."): as it is */
    if (strlen(canonical) > FMT_SIZE / 2 || whole == 0 ||
        strspn(digits, "0123456789") != whole ||
        (digits[whole] == '.' && strspn(digits + whole + 1, "0123456789") !=
                                     strlen(digits + whole + 1))) {
        snprintf(out, FMT_SIZE, "%.*s", FMT_SIZE - 1, canonical);
        return out;
    }
    if (canonical[0] == '-')
        out[o++] = '-';
    for (i = 0; i < whole; i++) {
        if (i > 0 && (whole - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    snprintf(out + o, FMT_SIZE - o, "%s", digits + whole);
    return out;
}

void fmt_markup(FILE *f, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, n;

    while (i < len) {
        switch (p[i]) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            if ((p[i] < 0x20 && p[i] != '\t' && p[i] != '\n' &&
                 p[i] != '\r') ||
                (n = pyre_utf8_seq(p + i, len - i)) == 0) {
                fputs(FMT_REPLACEMENT, f);
                break;
            }
            fwrite(p + i, 1, n, f);
            i += n;
            continue;
        }
        i++;
    }
}

char *fmt_shown(char *out, size_t size, const char *s, size_t len, int lines)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, o = 0, n;

    if (size == 0)
        return out;
    /* a reply's tail cut inside a character: its first bytes are the
     * rest of that character, not text */
    while (lines && i < len && i < 3 && (p[i] & 0xc0) == 0x80)
        i++;
    while (i < len) {
        unsigned char c = p[i];
        char esc[5];
        const char *put = (const char *)p + i;
        size_t w;
        if (lines && (c == '\n' || c == '\t')) {
            n = w = 1;
        } else if (c < 0x20 || c == 0x7f || (!lines && c == '\\')) {
            /* an escape in ASCII, which every font shows: \n \t \r \\,
             * else \xNN */
            const char *named = c == '\n'   ? "n"
                                : c == '\t' ? "t"
                                : c == '\r' ? "r"
                                : c == '\\' ? "\\"
                                            : NULL;
            esc[0] = '\\';
            if (named != NULL) {
                esc[1] = named[0];
                w = 2;
            } else {
                esc[1] = 'x';
                esc[2] = hex[c >> 4];
                esc[3] = hex[c & 15];
                w = 4;
            }
            put = esc;
            n = 1;
        } else if ((n = pyre_utf8_seq(p + i, len - i)) == 0) {
            put = FMT_REPLACEMENT;
            n = 1;
            w = 3;
        } else {
            w = n;
        }
        if (o + w + 1 > size)
            break;
        memcpy(out + o, put, w);
        o += w;
        i += n;
    }
    out[o] = '\0';
    return out;
}

int fmt_kld_level(double k)
{
    if (!(k >= 0.001)) /* NAN too */
        return 0;
    return k < 0.01 ? 1 : k < 0.1 ? 2 : k < 1.0 ? 3 : 4;
}

void fmt_svg_open(FILE *f, double w, double h, double tx, double ty,
                  const char *title)
{
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
            "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
            "<text x=\"%.0f\" y=\"%.0f\" font-size=\"15\">",
            w, h, w, h, tx, ty);
    fmt_markup(f, title, strlen(title));
    fputs("</text>\n", f);
}
