/*
 * merged.c - a merged run folder's files from its bundles' (merged.h).
 */
#include "merged.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ladderfile.h"
#include "manifest_keys.h"
#include "published.h"

/* ladder.json's keys (run.c reads the same) */
#define LJ_RUNGS  "rungs"
#define LJ_SIDE   "side_rungs"
#define LJ_THINK  "thinking"
#define LJ_MARGIN "margin_points"
#define LJ_DUELS  "duels"
/* .done's (done.c writes them) */
#define DONE_RUNG "rung"
#define DONE_GPU  "gpu_name"

size_t merged_ladder_rungs(const json_t *ladder, int side, const char **out,
                           size_t max)
{
    const json_t *a = json_object_get(ladder, side ? LJ_SIDE : LJ_RUNGS);
    size_t i, n = 0;

    for (i = 0; i < json_array_size(a) && n < max; i++)
        if (json_is_string(json_array_get(a, i)))
            out[n++] = json_string_value(json_array_get(a, i));
    return n;
}

static void shown(const json_t *v, char *out, size_t size)
{
    char *s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT |
                                    JSON_REAL_PRECISION(15))
                : NULL;

    snprintf(out, size, "%s", v == NULL ? "absent" : s ? s : "?");
    free(s);
}

int merged_ladder_differs(const json_t *x, const json_t *y, const char **key,
                          char *a, char *b, size_t size)
{
    static const char *const keys[] = {LJ_THINK, LJ_MARGIN, NULL};
    size_t i;

    for (i = 0; keys[i] != NULL; i++) {
        const json_t *u = json_object_get(x, keys[i]),
                     *v = json_object_get(y, keys[i]);
        if ((u == NULL && v == NULL) ||
            (u != NULL && v != NULL && json_equal(u, v)))
            continue;
        *key = keys[i];
        shown(u, a, size);
        shown(v, b, size);
        return 1;
    }
    return 0;
}

char *merged_manifest(const json_t *first, const struct merged_rung *r,
                      size_t n)
{
    json_t *m = json_deep_copy(first), *rungs = json_object();
    char *s = NULL;
    size_t i;

    if (m == NULL || rungs == NULL)
        goto out;
    for (i = 0; i < n; i++) {
        json_t *e = json_object_get(json_object_get(r[i].manifest, MK_RUNGS),
                                    r[i].orig);
        if (e != NULL && json_object_set(rungs, r[i].name, e) != 0)
            goto out;
    }
    if (json_object_set(m, MK_RUNGS, rungs) == 0)
        s = published_manifest(m);
out:
    json_decref(m);
    json_decref(rungs);
    return s;
}

/* 1 when name is one of the merged folder's rungs. */
static int merged_has(const struct merged_rung *r, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (name != NULL && strcmp(r[i].name, name) == 0)
            return 1;
    return 0;
}

/* 1 when the pair [a, b] is in duels already. */
static int duel_in(const json_t *duels, const char *a, const char *b)
{
    size_t i;
    json_t *p;

    json_array_foreach(duels, i, p)
    {
        if (strcmp(json_string_value(json_array_get(p, 0)), a) == 0 &&
            strcmp(json_string_value(json_array_get(p, 1)), b) == 0)
            return 1;
    }
    return 0;
}

/* Every bundle's duels whose two rungs the merged folder holds, each
 * once, in the bundles' order, into l's "duels" (none: left out). A pair
 * of a halved ladder named in the half that ran one of its rungs only is
 * kept once the other half's rung is there. 0, or -1 out of memory. */
static int merged_duels(json_t *l, const json_t *const *lads, size_t nlads,
                        const struct merged_rung *r, size_t n)
{
    json_t *duels = json_array(), *p;
    size_t k, i;

    if (duels == NULL)
        return -1;
    for (k = 0; k < nlads; k++)
        json_array_foreach(json_object_get(lads[k], LJ_DUELS), i, p)
        {
            const char *a = json_string_value(json_array_get(p, 0));
            const char *b = json_string_value(json_array_get(p, 1));

            if (!merged_has(r, n, a) || !merged_has(r, n, b) ||
                duel_in(duels, a, b))
                continue;
            if (json_array_append_new(duels, json_pack("[ss]", a, b)) != 0) {
                json_decref(duels);
                return -1;
            }
        }
    if (json_array_size(duels) == 0) {
        json_decref(duels);
        return json_object_del(l, LJ_DUELS), 0;
    }
    return json_object_set_new(l, LJ_DUELS, duels);
}

char *merged_ladder_json(const json_t *const *lads, size_t nlads,
                         const struct merged_rung *r, size_t n)
{
    json_t *l = json_deep_copy(lads[0]), *chain = json_array(),
           *side = json_array();
    char *s = NULL;
    size_t i;

    if (l == NULL || chain == NULL || side == NULL ||
        merged_duels(l, lads, nlads, r, n) != 0)
        goto out;
    for (i = 0; i < n; i++)
        if (r[i].side < 2 &&
            json_array_append_new(r[i].side ? side : chain,
                                  json_string(r[i].name)) != 0)
            goto out;
    if (json_object_set(l, LJ_RUNGS, chain) == 0 &&
        json_object_set(l, LJ_SIDE, side) == 0)
        s = json_dumps(l, JSON_INDENT(2));
out:
    json_decref(l);
    json_decref(chain);
    json_decref(side);
    return s;
}

char *merged_ladder_tsv(const struct merged_rung *r, size_t n, size_t *out_n)
{
    struct buf b = {0};
    char line[BUF_PATH_MAX + 256];
    size_t i;

    buf_puts(&b, "rung\tfile\tbytes\tsha256\n");
    for (i = 0; i < n; i++) {
        struct lrow *rows = NULL;
        const struct lrow *row;
        size_t nrows = 0;
        FILE *f;
        if (r[i].tsv == NULL || r[i].tsv_n == 0 ||
            (f = fmemopen((void *)r[i].tsv, r[i].tsv_n, "r")) == NULL)
            continue;
        /* verify read this copy with the same reader: it parses */
        if (ladderfile_parse(f, "ladder.tsv", &rows, &nrows, line,
                             sizeof(line)) == 0 &&
            (row = ladderfile_find(rows, nrows, r[i].orig)) != NULL) {
            snprintf(line, sizeof(line), "%s\t%s\t%llu\t%s\n", r[i].name,
                     row->file, row->bytes, row->sha256);
            buf_puts(&b, line);
        }
        fclose(f);
        free(rows);
    }
    *out_n = b.len;
    return b.p;
}

char *merged_done(const char *p, size_t n, const char *rung, size_t *out_n)
{
    json_t *o = json_loadb(p, n, 0, NULL);
    char *s = NULL;

    if (json_is_object(o) &&
        json_object_set_new(o, DONE_RUNG, json_string(rung)) == 0)
        s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    *out_n = s ? strlen(s) : 0;
    return s;
}

void merged_done_gpu(const char *p, size_t n, char *out, size_t size)
{
    json_t *d = p ? json_loadb(p, n, 0, NULL) : NULL;
    const char *g = json_string_value(json_object_get(d, DONE_GPU));

    snprintf(out, size, "%s", g && g[0] ? g : "not recorded");
    json_decref(d);
}

int merged_rows(const char *p, size_t n, const char *old, const char *new,
                struct buf *out)
{
    char want[80], put[80];
    const char *e = p + n;
    int wl = snprintf(want, sizeof(want), "\"" DONE_RUNG "\":\"%s\"", old);
    int pl = snprintf(put, sizeof(put), "\"" DONE_RUNG "\":\"%s\"", new);

    buf_init(out, PUBLISHED_MAX);
    while (p < e) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(e - p);
        const char *at = NULL, *q;
        /* a raw quote never stands inside a JSON string: the first match
         * is the row's own key */
        for (q = p; q + wl <= p + len && at == NULL; q++)
            if (memcmp(q, want, (size_t)wl) == 0)
                at = q;
        if (at == NULL ? buf_add(out, p, len) != 0
                       : (buf_add(out, p, (size_t)(at - p)) != 0 ||
                          buf_add(out, put, (size_t)pl) != 0 ||
                          buf_add(out, at + wl,
                                  len - (size_t)(at - p) - (size_t)wl) != 0))
            return -1;
        p += len;
    }
    return 0;
}
