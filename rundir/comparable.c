/*
 * comparable.c - two manifests compared both ways (comparable.h).
 */
#include "comparable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "manifest_keys.h"

/* key's value into out as compact JSON, or "absent" */
static void shown(const json_t *v, char *out, size_t size)
{
    char *s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT |
                                    JSON_REAL_PRECISION(15))
                : NULL;

    snprintf(out, size, "%s", v == NULL ? "absent" : s ? s : "?");
    free(s);
}

/* Sorted, but a file's sha256 first: when its bytes differ, that is the
 * difference to name, not the name it goes by. */
static int by_name(const void *x, const void *y)
{
    const char *a = *(const char *const *)x, *b = *(const char *const *)y;
    int sa = strcmp(a, MKS_SHA256) == 0, sb = strcmp(b, MKS_SHA256) == 0;

    return sa != sb ? sb - sa : strcmp(a, b);
}

/* The keys of a and b, each once, sorted, into out (at most max; more
 * are left out: a manifest's objects hold a few dozen). */
static size_t keys_of(json_t *a, json_t *b, const char **out, size_t max)
{
    json_t *objs[2] = {a, b}, *v;
    const char *k;
    size_t n = 0, i, o;

    for (o = 0; o < 2; o++) {
        if (!json_is_object(objs[o]))
            continue;
        json_object_foreach(objs[o], k, v)
        {
            (void)v;
            for (i = 0; i < n && strcmp(out[i], k) != 0; i++)
                ;
            if (i == n && n < max)
                out[n++] = k;
        }
    }
    qsort(out, n, sizeof(*out), by_name);
    return n;
}

/* key's values va (in pa) and vb (in pb) at where: 0 the same, 1 with
 * the deepest key that differs in d. */
static int walk(json_t *pa, json_t *pb, const char *where, const char *key,
                json_t *va, json_t *vb, int depth, struct comparable_diff *d)
{
    const char *keys[128];
    char sub[256];
    size_t n, i;

    if (va != NULL && vb != NULL && manifest_same_value(pa, pb, key, va, vb))
        return 0;
    if (va != NULL && vb != NULL && json_is_object(va) && json_is_object(vb) &&
        depth < 8) {
        n = keys_of(va, vb, keys, sizeof(keys) / sizeof(keys[0]));
        for (i = 0; i < n; i++) {
            snprintf(sub, sizeof(sub), "%s.%s", where, keys[i]);
            if (walk(va, vb, sub, keys[i], json_object_get(va, keys[i]),
                     json_object_get(vb, keys[i]), depth + 1, d))
                return 1;
        }
    }
    snprintf(d->key, sizeof(d->key), "%s", where);
    shown(va, d->a, sizeof(d->a));
    shown(vb, d->b, sizeof(d->b));
    return 1;
}

int comparable_shared(json_t *a, json_t *b, struct comparable_diff *d)
{
    const char *keys[128];
    size_t n = keys_of(a, b, keys, sizeof(keys) / sizeof(keys[0])), i;

    for (i = 0; i < n; i++) {
        if (strcmp(keys[i], MK_RUNGS) == 0 ||
            strcmp(keys[i], MK_FORCED) == 0 ||
            strcmp(keys[i], MK_SERVER_BINARY) == 0)
            continue; /* per rung, or the machine's own */
        if (walk(a, b, keys[i], keys[i], json_object_get(a, keys[i]),
                 json_object_get(b, keys[i]), 0, d))
            return 1;
    }
    return 0;
}

int comparable_rung(json_t *a, const char *ra, json_t *b, const char *rb,
                    struct comparable_diff *d)
{
    json_t *ea = json_object_get(json_object_get(a, MK_RUNGS), ra),
           *eb = json_object_get(json_object_get(b, MK_RUNGS), rb);
    char where[128];

    snprintf(where, sizeof(where), MK_RUNGS ".%s", ra);
    if (!json_is_object(ea) || !json_is_object(eb)) {
        snprintf(d->key, sizeof(d->key), "%s", where);
        shown(ea, d->a, sizeof(d->a));
        shown(eb, d->b, sizeof(d->b));
        return 1;
    }
    return walk(a, b, where, ra, ea, eb, 0, d);
}
