/*
 * fuzz_page.c - the page's two writers of outside text, on any bytes.
 *
 * page_json_string: the output parses as one JSON string (jansson), holds
 * no '<', '>' or '&' byte and no raw U+2028 / U+2029 (nothing in it can end
 * a <script> block or a line of old JavaScript), and gives the input back
 * when the input was UTF-8.
 *
 * doc_html (the input as every kind of run a report's doc holds: the
 * program's words, outside text, a cell's text, a code span, a rung's
 * link, an epitaph's id, in a heading, a paragraph, a table and a list):
 * every '<' it writes opens or closes one of the elements the renderer
 * makes itself, every attribute is one it writes, and the output is
 * UTF-8. So no text, however broken, can put an element, an attribute or
 * an event handler of its own on the page. doc_md writes the same doc.
 *
 * Tests: report/page.c
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "grader.h"
#include "doc.h"
#include "page.h"

static char *render_json(const char *s, size_t n, size_t *len)
{
    char *p = NULL;
    FILE *f = open_memstream(&p, len);

    if (f == NULL)
        abort();
    page_json_string(f, s, n);
    if (fclose(f) != 0)
        abort();
    return p;
}

static int utf8(const char *s, size_t n)
{
    size_t i = 0, k;

    while (i < n) {
        if ((k = pyre_utf8_seq((const unsigned char *)s + i, n - i)) == 0)
            return 0;
        i += k;
    }
    return 1;
}

static void check_json(const char *s, size_t n)
{
    size_t len, i;
    char *out = render_json(s, n, &len);
    json_error_t e;
    json_t *v = json_loadb(out, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);

    if (v == NULL || !json_is_string(v)) {
        fprintf(stderr, "not one JSON string: %s\n", e.text);
        abort();
    }
    for (i = 0; i < len; i++)
        if (out[i] == '<' || out[i] == '>' || out[i] == '&')
            abort();
    if (memmem(out, len, "\xe2\x80\xa8", 3) ||
        memmem(out, len, "\xe2\x80\xa9", 3))
        abort();
    if (utf8(s, n) && (json_string_length(v) != n ||
                       memcmp(json_string_value(v), s, n) != 0))
        abort();
    json_decref(v);
    free(out);
}

/* The elements and attributes the Markdown renderer writes itself. */
static const char *const allowed[] = {"<h2>",
                                      "</h2>",
                                      "<h3>",
                                      "</h3>",
                                      "<h4>",
                                      "</h4>",
                                      "<p>",
                                      "</p>",
                                      "<ul>",
                                      "</ul>",
                                      "<li>",
                                      "</li>",
                                      "<strong>",
                                      "</strong>",
                                      "<code>",
                                      "</code>",
                                      "<div class=\"tw\">",
                                      "</div>",
                                      "<table>",
                                      "</table>",
                                      "<thead>",
                                      "</thead>",
                                      "<tbody>",
                                      "</tbody>",
                                      "<tr>",
                                      "</tr>",
                                      "<th>",
                                      "<th class=\"n\">",
                                      "</th>",
                                      "<td>",
                                      "<td class=\"n\">",
                                      "</td>",
                                      "<a href=\"#",
                                      "</a>",
                                      "<figure class=\"pic\">",
                                      "<svg id=\"fz\">",
                                      "</svg>",
                                      "</figure>"};

/* s (NUL-ended) as each kind of run, in each kind of block. */
static struct doc *doc_of(const char *s)
{
    struct doc *d = doc_new();

    if (d == NULL)
        abort();
    doc_heading(d, 2);
    doc_text(d, s, 4096);
    doc_para(d);
    doc_raw(d, "%s", s);
    doc_bold(d, "%s", s);
    doc_tick(d, "%s", s);
    doc_code(d, s, 4096);
    doc_table(d, "lr");
    doc_row(d);
    doc_cellf(d, "%s", s);
    doc_cell(d);
    doc_celltext(d, s, 4096);
    doc_row(d);
    doc_cell(d);
    doc_rung(d, s, 0);
    doc_cell(d);
    doc_rung(d, s, 1);
    doc_image(d, "pic", "pareto.svg", 1);
    doc_list(d);
    doc_item(d);
    doc_question(d, s, 4096);
    doc_text(d, s, 4096);
    if (!doc_ok(d))
        abort();
    return d;
}

static void check_md(const char *s, size_t n)
{
    struct doc *d = doc_of(s);
    char *out = NULL, *md = NULL;
    size_t len = 0, mdlen = 0, i, k;
    FILE *f = open_memstream(&md, &mdlen);

    (void)n;
    if (f == NULL)
        abort();
    doc_md(f, d); /* its Markdown: only that it writes it */
    if (fclose(f) != 0 || (f = open_memstream(&out, &len)) == NULL)
        abort();
    free(md);
    {
        const struct doc_svg pic = {"pareto.svg", "<svg id=\"fz\"></svg>", 20};
        doc_html(f, d, &pic, 1);
    }
    doc_free(d);
    if (fclose(f) != 0)
        abort();
    for (i = 0; i < len; i++) {
        if (out[i] != '<')
            continue;
        for (k = 0; k < sizeof(allowed) / sizeof(allowed[0]); k++)
            if (strncmp(out + i, allowed[k], strlen(allowed[k])) == 0)
                break;
        if (k == sizeof(allowed) / sizeof(allowed[0])) {
            fprintf(stderr, "an element of the input's own: %.40s\n", out + i);
            abort();
        }
        if (strncmp(out + i, "<a href=\"#", 10) == 0) {
            /* a link's target: a fragment of letters, digits, -_.%&;= */
            size_t j = i + 10;
            while (j < len && out[j] != '"') {
                if (strchr(
                        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                        "0123456789-_.%&;=",
                        out[j]) == NULL)
                    abort();
                j++;
            }
            if (j + 1 >= len || out[j + 1] != '>')
                abort();
        }
    }
    if (!utf8(out, len))
        abort();
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);

    if (s == NULL)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0'; /* the renderer's Markdown comes from a memstream */
    check_json(s, size);
    check_md(s, size);
    free(s);
    return 0;
}
