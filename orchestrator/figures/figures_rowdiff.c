/*
 * figures_rowdiff.c - graveyard verify BUNDLE: which row was edited. The
 * report's page (REPORT.html) carries every row it shows, question by
 * question and rung by rung (docs/page.md, "The data block"): what the
 * grader made of it (its facts), the answer it said, its tokens, its
 * texts and finish reason. When the page the bundle holds and the page
 * its rows render now differ there, the row that changed is named by
 * file, line and question id, not only its file's sha256.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/tarball.h"
#include "figures_int.h"

#define PAGE_DATA_MAX (512u << 20) /* the JSON our own page unpacks to */
#define ROWS_NAMED    8            /* rows named per rung, then a count */

static int b64(int c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* The page's data block (base64 of gzip of JSON) parsed, or NULL; at
 * most max bytes of JSON, *len how many. */
static json_t *page_data(const char *html, size_t n, size_t max, size_t *len)
{
    static const char open[] = "<script type=\"application/gzip\" "
                               "id=\"gy-z\">";
    const char *end = html + n, *p = NULL, *q;
    struct buf gz = {0}, js = {0};
    unsigned acc = 0;
    int bits = 0, v;
    json_t *j = NULL;

    for (q = html; q + sizeof(open) - 1 <= end; q++)
        if (memcmp(q, open, sizeof(open) - 1) == 0) {
            p = q + sizeof(open) - 1;
            break;
        }
    if (p == NULL)
        return NULL;
    buf_init(&gz, n);
    for (; p < end && *p != '<'; p++) {
        if (*p == '=' || (v = b64((unsigned char)*p)) < 0)
            continue;
        acc = (acc << 6) | (unsigned)v;
        if ((bits += 6) >= 8) {
            char c = (char)((acc >> (bits -= 8)) & 0xff);
            if (buf_add(&gz, &c, 1) != 0)
                goto out;
        }
    }
    if (tarball_gunzip(gz.p, gz.len, max, &js) == 0) {
        j = json_loadb(js.p, js.len, 0, NULL);
        *len = js.len;
    }
out:
    buf_release(&gz);
    buf_release(&js);
    return j;
}

/* Row r's value of field at question q, as a comparable JSON value: a
 * string field through the string table T. Borrowed, or NULL. */
static json_t *cell(json_t *d, json_t *row, const char *field, size_t q)
{
    json_t *v = json_array_get(json_object_get(row, field), q);

    if (strcmp(field, "c") == 0 || strcmp(field, "k") == 0)
        return v;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return NULL;
    return json_array_get(json_object_get(d, "T"),
                          (size_t)json_integer_value(v));
}

/* The line of rows file f whose "id" is id, 0 when none. */
static size_t id_line(const struct figures__bfile *f, const char *id)
{
    const char *p = f->p, *end = f->p + f->n;
    size_t line = 0;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        json_t *r = json_loadb(p, len, 0, NULL);
        const char *rid = json_string_value(json_object_get(r, "id"));
        int hit = rid != NULL && strcmp(rid, id) == 0;

        line++;
        json_decref(r);
        if (hit)
            return line;
        p += len + 1;
    }
    return 0;
}

/* Rung i of the two pages compared question by question; each row that
 * differs named (the first ROWS_NAMED, then how many more). */
static size_t rung_rows(json_t *have, json_t *want, size_t i,
                        const struct figures__bfile *f, size_t nf)
{
    static const char *const fields[] = {"c", "s", "k", "x", "y", "fr", "e"};
    json_t *hr = json_array_get(
               json_object_get(
                   json_array_get(json_object_get(have, "runs"), 0), "r"),
               i),
           *wr = json_array_get(
               json_object_get(
                   json_array_get(json_object_get(want, "runs"), 0), "r"),
               i);
    const char *rung = json_string_value(json_object_get(
        json_array_get(json_object_get(want, "rows"), i), "name"));
    json_t *ids = json_object_get(want, "ids");
    const struct figures__bfile *rf = NULL;
    char name[120];
    size_t q, k, named = 0;

    if (rung == NULL || hr == NULL || wr == NULL)
        return 0;
    snprintf(name, sizeof(name), "rows/%.100s.jsonl", rung);
    for (k = 0; k < nf; k++)
        if (strcmp(f[k].name, name) == 0)
            rf = &f[k];
    for (q = 0; q < json_array_size(ids); q++) {
        const char *id = json_string_value(json_array_get(ids, q)), *what;
        for (k = 0; k < sizeof(fields) / sizeof(fields[0]); k++)
            if (!json_equal(cell(have, hr, fields[k], q),
                            cell(want, wr, fields[k], q)) &&
                (cell(have, hr, fields[k], q) != NULL ||
                 cell(want, wr, fields[k], q) != NULL))
                break;
        if (k == sizeof(fields) / sizeof(fields[0]) || id == NULL)
            continue;
        what = k == 0   ? "its grading"
               : k == 1 ? "the answer it said"
               : k == 2 ? "its tokens"
               : k == 5 ? "its finish reason"
               : k == 6 ? "its error"
                        : "its text";
        if (named++ < ROWS_NAMED)
            printf("%s:%zu: question '%.100s': %s is not what REPORT.html "
                   "shows\n",
                   name, rf ? id_line(rf, id) : 0, id, what);
    }
    if (named > ROWS_NAMED)
        printf("%s: %zu more rows not what REPORT.html shows\n", name,
               named - ROWS_NAMED);
    return named;
}

/* The two pages show the same questions and the same rungs. */
static int same_grid(json_t *h, json_t *w)
{
    json_t *hr = json_object_get(h, "rows"), *wr = json_object_get(w, "rows");
    size_t i;

    if (!json_equal(json_object_get(h, "ids"), json_object_get(w, "ids")) ||
        json_array_size(hr) != json_array_size(wr))
        return 0;
    for (i = 0; i < json_array_size(wr); i++)
        if (!json_equal(json_object_get(json_array_get(hr, i), "name"),
                        json_object_get(json_array_get(wr, i), "name")))
            return 0;
    return 1;
}

size_t figures__rows_named(const char *have, size_t have_n, const char *want,
                           size_t want_n, const struct figures__bfile *f,
                           size_t nf)
{
    /* ours first: the bundle's, a stranger's, may unpack to no more than
     * twice as much (a gzip bomb in its page is refused there) */
    size_t wlen = 0, hlen = 0;
    json_t *w = page_data(want, want_n, PAGE_DATA_MAX, &wlen),
           *h = w ? page_data(have, have_n, 2 * wlen + (1u << 20), &hlen)
                  : NULL;
    size_t i, named = 0;

    if (h != NULL && w != NULL && same_grid(h, w))
        for (i = 0; i < json_array_size(json_object_get(w, "rows")); i++)
            named += rung_rows(h, w, i, f, nf);
    json_decref(h);
    json_decref(w);
    return named;
}
