/*
 * pyre_driver.c - the C side of the differential test against Python's
 * re (tests/pyre/diff.py): reads JSON lines and answers each with one.
 *
 *   {"pattern": P, "flags": F, "text": HEX}  ->  {"error": MSG}
 *       | {"limit": true} | {"matches": [[s0, e0, s1, e1, ...], ...],
 *                             "sub": HEX}
 *   {"lower": HEX}                            ->  {"lower": HEX}
 *
 * Texts travel as hex so that bytes that are not UTF-8 can be tried;
 * spans are byte offsets, -1 for a group that did not take part, "sub"
 * is re.sub(P, "", text). F: 1 IGNORECASE, 2 DOTALL, 4 MULTILINE.
 * Exit 2 on a line it cannot read.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grader.h"

static int hexdigit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* (not sscanf, which measures the rest of the string at each call: a
 * text of a megabyte took minutes) */
static char *unhex(const char *h, size_t *len)
{
    size_t n = strlen(h) / 2, i;
    char *out = malloc(n + 1);

    if (out == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        int hi = hexdigit(h[2 * i]), lo = hexdigit(h[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(out);
            return NULL;
        }
        out[i] = (char)(hi * 16 + lo);
    }
    out[n] = '\0';
    *len = n;
    return out;
}

static json_t *hex(const char *s, size_t n)
{
    char *h = malloc(2 * n + 1);
    json_t *j;
    size_t i;

    if (h == NULL)
        return NULL;
    for (i = 0; i < n; i++)
        sprintf(h + 2 * i, "%02x", (unsigned char)s[i]);
    h[2 * n] = '\0';
    j = json_string(h);
    free(h);
    return j;
}

static json_t *run_re(const char *pat, unsigned flags, const char *text,
                      size_t len)
{
    long spans[2 * (PYRE_GROUPS_MAX + 1)];
    struct pyre *re;
    struct pyre_iter it;
    char msg[256], *sub;
    size_t i, ng, sublen;
    json_t *out, *list;
    int rc = pyre_compile(pat, strlen(pat), flags, &re, msg, sizeof(msg));

    if (rc != 0)
        return json_pack("{ss}", "error", rc == GRADER_EARG ? msg : "?");
    ng = pyre_groups(re);
    list = json_array();
    pyre_iter_init(&it, re, text, len);
    while ((rc = pyre_iter_next(&it, spans)) == 1) {
        json_t *m = json_array();
        for (i = 0; i < 2 * (ng + 1); i++)
            json_array_append_new(m, json_integer(spans[i]));
        json_array_append_new(list, m);
    }
    pyre_iter_release(&it);
    if (rc == 0)
        rc = pyre_sub_empty(re, text, len, &sub, &sublen);
    pyre_free(re);
    if (rc != 0) {
        json_decref(list);
        return rc == GRADER_ELIMIT ? json_pack("{sb}", "limit", 1)
                                   : json_pack("{ss}", "error", "?");
    }
    out = json_pack("{soso}", "matches", list, "sub", hex(sub, sublen));
    grader_alloc_free(sub);
    return out;
}

static json_t *answer(json_t *in)
{
    const char *pat, *h;
    size_t len, olen;
    char *text, *low;
    json_t *out;
    int flags = 0;

    if (json_unpack(in, "{ss}", "lower", &h) == 0) {
        if ((text = unhex(h, &len)) == NULL ||
            pyre_str_lower(text, len, &low, &olen) != 0)
            return NULL;
        out = json_pack("{so}", "lower", hex(low, olen));
        grader_alloc_free(low);
        free(text);
        return out;
    }
    if (json_unpack(in, "{sssiss}", "pattern", &pat, "flags", &flags, "text",
                    &h) != 0 ||
        (text = unhex(h, &len)) == NULL)
        return NULL;
    out = run_re(pat, (unsigned)flags, text, len);
    free(text);
    return out;
}

int main(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long lineno = 0;

    while ((n = getline(&line, &cap, stdin)) > 0) {
        json_error_t err;
        json_t *in = json_loadb(line, (size_t)n, 0, &err), *out;
        lineno++;
        out = in ? answer(in) : NULL;
        if (out == NULL) {
            fprintf(stderr, "pyre_driver: line %ld: cannot read it\n", lineno);
            return 2;
        }
        json_dumpf(out, stdout, JSON_COMPACT);
        putchar('\n');
        json_decref(in);
        json_decref(out);
    }
    free(line);
    return 0;
}
