/*
 * mdhtml.c - the reports' Markdown as HTML, for the page (mdhtml.h).
 *
 * Only the subset md.c and md_compare.c write: '#' headings, paragraphs,
 * pipe tables with an alignment row, '- ' bullets, an image on a line of
 * its own, and inline **bold**, `code`, backslash escapes and the HTML
 * entities fmt_text writes. Anything else is shown as text. Text from
 * outside reaches the Markdown escaped (fmt.h), so it is unescaped here
 * by Markdown's rules and escaped again as HTML: it stays text.
 */
#include <ctype.h>
#include <string.h>

#include "fmt.h"
#include "mdhtml.h"

struct md {
    FILE *f;
    const char *const *names;
    size_t nnames;
    const char *image, *svg;
    size_t svg_len;
    int first_deaths; /* under a "First deaths" heading */
};

/* An entity fmt_text writes, kept as it is: &lt; &gt; &amp; &quot; and
 * numeric ones. Its length, or 0. */
static size_t entity(const char *s, size_t len)
{
    static const char *const named[] = {"&lt;", "&gt;", "&amp;", "&quot;",
                                        "&apos;"};
    size_t i;

    for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
        if (len >= strlen(named[i]) &&
            memcmp(s, named[i], strlen(named[i])) == 0)
            return strlen(named[i]);
    if (len >= 4 && s[1] == '#') {
        for (i = 2; i < len && i < 10 && isxdigit((unsigned char)s[i]); i++)
            ;
        if (i > 2 && i < len && s[i] == ';')
            return i + 1;
    }
    return 0;
}

/* Inline text: **bold**, `code`, \x escapes, entities. */
static void inline_text(FILE *f, const char *s, size_t len)
{
    const char *q;
    size_t i = 0, j, n;
    int bold = 0;

    while (i < len) {
        if (s[i] == '\\' && i + 1 < len && ispunct((unsigned char)s[i + 1])) {
            fmt_markup(f, s + i + 1, 1);
            i += 2;
        } else if (s[i] == '&' && (n = entity(s + i, len - i)) > 0) {
            fwrite(s + i, 1, n, f);
            i += n;
        } else if (s[i] == '*' && i + 1 < len && s[i + 1] == '*') {
            fputs(bold ? "</strong>" : "<strong>", f);
            bold = !bold;
            i += 2;
        } else if (s[i] == '`' && i + 1 < len &&
                   (q = memchr(s + i + 1, '`', len - i - 1)) != NULL) {
            j = (size_t)(q - s);
            fputs("<code>", f);
            fmt_markup(f, s + i + 1, j - i - 1);
            fputs("</code>", f);
            i = j + 1;
        } else {
            for (j = i + 1; j < len && strchr("\\&*`", s[j]) == NULL; j++)
                ;
            fmt_markup(f, s + i, j - i);
            i = j;
        }
    }
    if (bold)
        fputs("</strong>", f);
}

/* A fragment's value: letters, digits and -_. as they are, the rest as
 * %XX (the script decodes it). */
static void fragment(FILE *f, const char *s, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (isalnum(c) || c == '-' || c == '_' || c == '.')
            fputc(c, f);
        else
            fprintf(f, "%%%02X", c);
    }
}

static const char *trim(const char *s, size_t *len)
{
    while (*len > 0 && (*s == ' ' || *s == '\t'))
        s++, (*len)--;
    while (*len > 0 && (s[*len - 1] == ' ' || s[*len - 1] == '\t'))
        (*len)--;
    return s;
}

/* The next cell of a table line at *p (after a '|'), honouring \| and
 * code spans; its text and length, *p moved past its closing '|'. *open
 * is set when no '|' closes it (what trails the row's last pipe). */
static const char *cell(const char **p, const char *end, size_t *len,
                        int *open)
{
    const char *s = *p, *q = s;
    int code = 0;

    while (q < end && (code || *q != '|')) {
        if (*q == '\\' && q + 1 < end)
            q++;
        else if (*q == '`')
            code = !code;
        q++;
    }
    *len = (size_t)(q - s);
    *open = q >= end;
    *p = q < end ? q + 1 : q;
    return trim(s, len);
}

static int is_rung(const struct md *m, const char *s, size_t len)
{
    size_t i;

    for (i = 0; i < m->nnames; i++)
        if (strlen(m->names[i]) == len && memcmp(m->names[i], s, len) == 0)
            return 1;
    return 0;
}

/* A table: lines[0] the header, lines[1] the alignment row. */
static void table(struct md *m, const char *const *line, const size_t *llen,
                  size_t n)
{
    char align[64];
    size_t i, c, len, ncol = 0;
    int open;
    const char *p, *end, *s;

    memset(align, 'l', sizeof(align));
    p = line[1] + 1;
    end = line[1] + llen[1];
    while (p < end && ncol < sizeof(align)) {
        s = cell(&p, end, &len, &open);
        if (open && len == 0)
            break;
        align[ncol++] = len > 0 && s[len - 1] == ':' ? 'r' : 'l';
    }
    fputs("<div class=\"tw\"><table>\n", m->f);
    for (i = 0; i < n; i++) {
        if (i == 1)
            continue;
        fputs(i == 0 ? "<thead><tr>" : "<tr>", m->f);
        p = line[i] + 1;
        end = line[i] + llen[i];
        for (c = 0; p < end; c++) {
            const char *tag = i == 0 ? "th" : "td";
            s = cell(&p, end, &len, &open);
            if (open && len == 0)
                break;
            fprintf(m->f, "<%s%s>", tag,
                    c < sizeof(align) && align[c] == 'r' ? " class=\"n\""
                                                         : "");
            if (i > 0 && c == 0 && is_rung(m, s, len)) {
                fprintf(m->f, "<a href=\"#f=%s&amp;r=",
                        m->first_deaths ? "tomb" : "dead");
                fragment(m->f, s, len);
                fputs("\">", m->f);
                inline_text(m->f, s, len);
                fputs("</a>", m->f);
            } else {
                inline_text(m->f, s, len);
            }
            fprintf(m->f, "</%s>", tag);
        }
        fputs(i == 0 ? "</tr></thead><tbody>\n" : "</tr>\n", m->f);
    }
    fputs("</tbody></table></div>\n", m->f);
}

/* The character an entity that entity() keeps stands for, into out (4
 * bytes at most); its length, or 0 for one this does not read (fmt_text
 * and fmt_id write none such). */
static size_t entity_char(const char *s, size_t n, char *out)
{
    static const char *const named[] = {"&lt;", "&gt;", "&amp;", "&quot;",
                                        "&apos;"};
    static const char chars[] = "<>&\"'";
    unsigned long c = 0;
    size_t i;

    for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
        if (n == strlen(named[i]) && memcmp(s, named[i], n) == 0) {
            out[0] = chars[i];
            return 1;
        }
    for (i = 2; i + 1 < n; i++) { /* &#N; in decimal */
        if (!isdigit((unsigned char)s[i]))
            return 0;
        c = c * 10 + (unsigned long)(s[i] - '0');
    }
    if (c == 0 || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xC0 | (c >> 6));
        out[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | (c >> 12));
        out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (c >> 18));
    out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* Markdown that fmt_id wrote, read back to the text it was made from:
 * backslash escapes and entities read as inline_text shows them (an id's
 * "&lt;" is '<', its "&#10;" a line end). Its length in out, cut whole at
 * size bytes. */
static size_t unmarkdown(const char *s, size_t len, char *out, size_t size)
{
    size_t i = 0, k = 0, n, c;
    char ch[4];

    while (i < len) {
        if (s[i] == '\\' && i + 1 < len && ispunct((unsigned char)s[i + 1])) {
            ch[0] = s[i + 1];
            c = 1;
            n = 2;
        } else if (s[i] == '&' && (n = entity(s + i, len - i)) > 0 &&
                   (c = entity_char(s + i, n, ch)) > 0) {
            /* ch holds it */
        } else {
            ch[0] = s[i];
            c = n = 1;
        }
        if (k + c > size)
            break;
        memcpy(out + k, ch, c);
        k += c;
        i += n;
    }
    return k;
}

/* Where the bold that opens before s closes, on a line ending at end: an
 * escaped star ("\*" in an id) is not its close. NULL if it does not. */
static const char *bold_close(const char *s, const char *end)
{
    for (; s + 1 < end; s++) {
        if (*s == '\\')
            s++;
        else if (s[0] == '*' && s[1] == '*')
            return s;
    }
    return NULL;
}

/* "- **ID**, ...": the id links to its question, by the id itself, read
 * back from its Markdown (the fragment the script reads: #q=ID). */
static void bullet(struct md *m, const char *s, size_t len)
{
    const char *close;

    fputs("<li>", m->f);
    if (len > 4 && memcmp(s, "**", 2) == 0 &&
        (close = bold_close(s + 2, s + len)) != NULL) {
        char id[1024];
        size_t k = unmarkdown(s + 2, (size_t)(close - s - 2), id, sizeof(id));
        fputs("<a href=\"#q=", m->f);
        fragment(m->f, id, k);
        fputs("\"><strong>", m->f);
        inline_text(m->f, s + 2, (size_t)(close - s - 2));
        fputs("</strong></a>", m->f);
        inline_text(m->f, close + 2, len - (size_t)(close + 2 - s));
    } else {
        inline_text(m->f, s, len);
    }
    fputs("</li>\n", m->f);
}

/* "![alt](file)" alone on a line. */
static int image(struct md *m, const char *s, size_t len)
{
    const char *open, *close;

    if (len < 5 || memcmp(s, "![", 2) != 0 || s[len - 1] != ')')
        return 0;
    if ((open = strstr(s, "](")) == NULL || open > s + len)
        return 0;
    close = s + len - 1;
    if (m->image != NULL && m->svg != NULL &&
        (size_t)(close - open - 2) == strlen(m->image) &&
        memcmp(open + 2, m->image, strlen(m->image)) == 0) {
        fputs("<figure class=\"pic\">", m->f);
        fwrite(m->svg, 1, m->svg_len, m->f);
        fputs("</figure>\n", m->f);
    }
    return 1;
}

static void heading(struct md *m, const char *s, size_t len)
{
    size_t level = 0;

    while (level < len && s[level] == '#')
        level++;
    s += level;
    len -= level;
    s = trim(s, &len);
    m->first_deaths = len >= 12 && memcmp(s, "First deaths", 12) == 0;
    if (level == 1)
        return;
    fprintf(m->f, "<h%zu>", level > 4 ? 4 : level);
    inline_text(m->f, s, len);
    fprintf(m->f, "</h%zu>\n", level > 4 ? 4 : level);
}

#define MAX_TABLE 512

void render_md_html(FILE *f, const char *md, size_t len,
                    const char *const *names, size_t nnames,
                    const char *image_name, const char *svg, size_t svg_len)
{
    struct md m = {f, names, nnames, image_name, svg, svg_len, 0};
    const char *p = md, *end = md + len, *line[MAX_TABLE];
    size_t llen[MAX_TABLE], n;
    int para = 0, list = 0;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        size_t l = (size_t)(e - p);
        int is_table = l > 0 && p[0] == '|',
            is_item = l > 1 && p[0] == '-' && p[1] == ' ';
        if ((l == 0 || is_table || is_item || p[0] == '#') && para) {
            fputs("</p>\n", f);
            para = 0;
        }
        if (!is_item && list) {
            fputs("</ul>\n", f);
            list = 0;
        }
        if (l == 0) {
            /* a blank line: nothing */
        } else if (p[0] == '#') {
            heading(&m, p, l);
        } else if (is_table) {
            n = 0;
            while (p < end && *p == '|' && n < MAX_TABLE) {
                nl = memchr(p, '\n', (size_t)(end - p));
                e = nl ? nl : end;
                line[n] = p;
                llen[n++] = (size_t)(e - p);
                p = nl ? nl + 1 : end;
            }
            if (n >= 2)
                table(&m, line, llen, n);
            else
                inline_text(f, line[0], llen[0]);
            continue;
        } else if (is_item) {
            if (!list)
                fputs("<ul>\n", f);
            list = 1;
            bullet(&m, p + 2, l - 2);
        } else if (!image(&m, p, l)) {
            fputs(para ? "\n" : "<p>", f);
            para = 1;
            inline_text(f, p, l);
        }
        p = nl ? nl + 1 : end;
    }
    if (para)
        fputs("</p>\n", f);
    if (list)
        fputs("</ul>\n", f);
}
