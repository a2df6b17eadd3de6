/*
 * recipe.c - what is in a GGUF file, from its tensor table (recipe.h).
 */
#include "recipe.h"
#include "f16range.h"
#include "tensors.h"
#include "../util/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *const recipe_kinds[RECIPE_NKINDS] = {
    "attn_q",   "attn_k",     "attn_v", "attn_o", "ffn_up", "ffn_gate",
    "ffn_down", "embeddings", "output", "norms",  "other"};

enum {
    K_Q,
    K_K,
    K_V,
    K_O,
    K_UP,
    K_GATE,
    K_DOWN,
    K_EMB,
    K_OUT,
    K_NORM,
    K_OTHER
};

static int starts(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* llama.cpp's tensor names (llama-arch.cpp): blk.N.attn_q.weight,
 * blk.N.ffn_up_exps.weight, token_embd.weight, output.weight, and norms
 * by the word in them. */
int recipe_kind(const char *name, long *layer)
{
    static const struct {
        const char *prefix;
        int kind;
    } m[] = {
        {"attn_q.", K_Q},      {"attn_k.", K_K},       {"attn_v.", K_V},
        {"attn_output.", K_O}, {"ffn_up", K_UP},       {"ffn_gate", K_GATE},
        {"ffn_down", K_DOWN},  {"token_embd.", K_EMB}, {"output.", K_OUT},
    };
    const char *s = name;
    size_t i;

    *layer = -1;
    if (starts(name, "blk.") && name[4] >= '0' && name[4] <= '9') {
        char *end;
        long l = strtol(name + 4, &end, 10);
        if (*end == '.' && l >= 0 && l < 1000000) {
            *layer = l;
            s = end + 1;
        }
    }
    if (strstr(s, "norm") != NULL)
        return K_NORM;
    for (i = 0; i < sizeof m / sizeof *m; i++)
        if (starts(s, m[i].prefix) && (*layer >= 0) == (m[i].kind < K_EMB))
            return m[i].kind;
    return K_OTHER;
}

/* One type within a kind: its tensors, and the layers they sit in. */
struct rtype {
    const char *name; /* the first tensor's dtype */
    uint64_t tensors, elements, bytes;
    int sized;
    long *layers;
    size_t nl;
};

struct rkind {
    struct rtype *t;
    size_t n;
};

static void kinds_free(struct rkind *k)
{
    size_t i, j;

    for (i = 0; i < RECIPE_NKINDS; i++) {
        for (j = 0; j < k[i].n; j++)
            free(k[i].t[j].layers);
        free(k[i].t);
    }
}

static int add_tensor(struct rkind *kinds, const struct wtensor *w)
{
    long layer;
    struct rkind *k = &kinds[recipe_kind(w->name, &layer)];
    struct rtype *t = NULL;
    size_t i;

    for (i = 0; i < k->n && t == NULL; i++)
        if (strcmp(k->t[i].name, w->dtype) == 0)
            t = &k->t[i];
    if (t == NULL) {
        struct rtype *nt = realloc(k->t, (k->n + 1) * sizeof *nt);
        if (nt == NULL)
            return -1;
        k->t = nt;
        t = &k->t[k->n++];
        memset(t, 0, sizeof *t);
        t->name = w->dtype;
        t->sized = 1;
    }
    t->tensors++;
    t->elements += w->n;
    t->bytes += w->size;
    t->sized &= w->sized;
    if (layer >= 0 && (t->nl == 0 || t->layers[t->nl - 1] != layer)) {
        long *nl = realloc(t->layers, (t->nl + 1) * sizeof *nl);
        if (nl == NULL)
            return -1;
        t->layers = nl;
        t->layers[t->nl++] = layer;
    }
    return 0;
}

static int by_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;

    return x < y ? -1 : x > y;
}

/* Layers as ranges, "0-3,27" (cut with "..." past the buffer). */
static void ranges(long *l, size_t n, char *out, size_t size)
{
    size_t i, j, o = 0;

    qsort(l, n, sizeof *l, by_long);
    out[0] = '\0';
    for (i = 0; i < n; i = j) {
        int w;
        for (j = i + 1; j < n && l[j] <= l[j - 1] + 1; j++)
            ;
        w = l[j - 1] == l[i]
                ? snprintf(out + o, size - o, "%s%ld", o ? "," : "", l[i])
                : snprintf(out + o, size - o, "%s%ld-%ld", o ? "," : "", l[i],
                           l[j - 1]);
        if (w < 0 || (size_t)w >= size - o) {
            snprintf(out + (o < size - 4 ? o : size - 4), 4, "...");
            return;
        }
        o += (size_t)w;
    }
}

static json_t *bpw(uint64_t bytes, uint64_t elements, int sized)
{
    if (!sized || elements == 0)
        return json_null();
    return json_real((double)bytes * 8.0 / (double)elements);
}

static json_t *bytes_of(uint64_t bytes, int sized)
{
    return sized ? json_integer((json_int_t)bytes) : json_null();
}

/* One kind's object: its totals and its types. */
static json_t *kind_json(int i, struct rkind *k)
{
    json_t *o = json_object(), *types = json_array();
    uint64_t nt = 0, el = 0, by = 0;
    int sized = 1;
    size_t j;
    char lay[512];

    for (j = 0; j < k->n; j++) {
        struct rtype *t = &k->t[j];
        json_t *to = json_object();
        nt += t->tensors;
        el += t->elements;
        by += t->bytes;
        sized &= t->sized;
        json_object_set_new(to, "type", json_string(t->name));
        json_object_set_new(to, "tensors",
                            json_integer((json_int_t)t->tensors));
        json_object_set_new(to, "elements",
                            json_integer((json_int_t)t->elements));
        json_object_set_new(to, "bytes", bytes_of(t->bytes, t->sized));
        json_object_set_new(to, "bpw", bpw(t->bytes, t->elements, t->sized));
        if (t->nl > 0) {
            ranges(t->layers, t->nl, lay, sizeof lay);
            json_object_set_new(to, "layers", json_string(lay));
        }
        json_array_append_new(types, to);
    }
    json_object_set_new(o, "kind", json_string(recipe_kinds[i]));
    json_object_set_new(o, "tensors", json_integer((json_int_t)nt));
    json_object_set_new(o, "elements", json_integer((json_int_t)el));
    json_object_set_new(o, "bytes", bytes_of(by, sized));
    json_object_set_new(o, "bpw", bpw(by, el, sized));
    json_object_set_new(o, "types", types);
    return o;
}

/* Text from the file or the command line as o's key: shown by the one
 * rule for outside text (util_printable: controls, DEL, C1 controls and
 * bytes that are not UTF-8 as \xNN), and where that is not the text
 * itself, its bytes in hex as key_hex, so that nothing is lost. */
static void set_shown(json_t *o, const char *key, const char *raw)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = strlen(raw), i;
    char shown[4 * WT_NAME_MAX + 1], hkey[64], *h;

    util_printable(raw, n, shown, sizeof shown);
    json_object_set_new(o, key, json_string(shown));
    if (strcmp(shown, raw) == 0)
        return;
    h = malloc(2 * n + 1);
    if (h == NULL)
        return;
    for (i = 0; i < n; i++) {
        h[2 * i] = hex[(unsigned char)raw[i] >> 4];
        h[2 * i + 1] = hex[(unsigned char)raw[i] & 15];
    }
    h[2 * n] = '\0';
    snprintf(hkey, sizeof hkey, "%s_hex", key);
    json_object_set_new(o, hkey, json_string(h));
    free(h);
}

static json_t *table_json(const struct wtable *tab)
{
    json_t *a = json_array();
    size_t i;

    for (i = 0; i < tab->n; i++) {
        const struct wtensor *w = &tab->t[i];
        json_t *o = json_object();
        set_shown(o, "name", w->name);
        json_object_set_new(o, "type", json_string(w->dtype));
        json_object_set_new(o, "type_id", json_integer(w->gtype));
        json_object_set_new(o, "elements", json_integer((json_int_t)w->n));
        json_object_set_new(o, "bytes", bytes_of(w->size, w->sized));
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *meta_json(const struct wtable *tab)
{
    json_t *o = json_object();
    size_t i;

    for (i = 0; i < tab->nmeta; i++) {
        char *eq = strchr(tab->meta[i], '=');
        if (eq == NULL)
            continue;
        *eq = '\0';
        json_object_set_new(o, tab->meta[i], json_string(eq + 1));
        *eq = '=';
    }
    return o;
}

int recipe_of(const char *path, json_t **out, char *msg, size_t msgsize)
{
    struct wtable tab;
    struct rkind kinds[RECIPE_NKINDS];
    json_t *o, *ka;
    uint64_t el = 0, by = 0;
    int rc, sized = 1, i;
    size_t j;

    *out = NULL;
    memset(kinds, 0, sizeof kinds);
    rc = tensors_read_gguf(path, &tab, msg, msgsize);
    if (rc != F16R_OK)
        return rc;
    for (j = 0; j < tab.n; j++) {
        el += tab.t[j].n;
        by += tab.t[j].size;
        sized &= tab.t[j].sized;
        if (add_tensor(kinds, &tab.t[j]) != 0) {
            kinds_free(kinds);
            tensors_free(&tab);
            snprintf(msg, msgsize, "%s: out of memory", path);
            return F16R_EIO;
        }
    }
    o = json_object();
    ka = json_array();
    for (i = 0; i < RECIPE_NKINDS; i++)
        if (kinds[i].n > 0)
            json_array_append_new(ka, kind_json(i, &kinds[i]));
    set_shown(o, "file", path);
    json_object_set_new(o, "tensors", json_integer((json_int_t)tab.n));
    json_object_set_new(o, "elements", json_integer((json_int_t)el));
    json_object_set_new(o, "bytes", bytes_of(by, sized));
    json_object_set_new(o, "bpw", bpw(by, el, sized));
    json_object_set_new(o, "metadata", meta_json(&tab));
    json_object_set_new(o, "kinds", ka);
    json_object_set_new(o, "tensor_table", table_json(&tab));
    kinds_free(kinds);
    tensors_free(&tab);
    *out = o;
    return F16R_OK;
}

/* ---- side by side -------------------------------------------------- */

/* By name as shown, then by the bytes of those shown alike (a name
 * that is its own shown text first): two tensors are one name only when
 * their bytes are. */
static int by_name(const void *a, const void *b)
{
    const json_t *p = *(json_t *const *)a, *q = *(json_t *const *)b;
    const char *x = json_string_value(json_object_get(p, "name"));
    const char *y = json_string_value(json_object_get(q, "name"));
    int c = strcmp(x ? x : "", y ? y : "");

    if (c != 0)
        return c;
    x = json_string_value(json_object_get(p, "name_hex"));
    y = json_string_value(json_object_get(q, "name_hex"));
    if (x == NULL || y == NULL)
        return (x != NULL) - (y != NULL);
    return strcmp(x, y);
}

/* A file's tensors sorted by name, for bsearch: NULL when out of memory. */
static json_t **sorted(json_t *r, size_t *n)
{
    json_t *tt = json_object_get(r, "tensor_table");
    json_t **s;
    size_t i;

    *n = json_array_size(tt);
    s = malloc((*n ? *n : 1) * sizeof *s);
    if (s == NULL)
        return NULL;
    for (i = 0; i < *n; i++)
        s[i] = json_array_get(tt, i);
    qsort(s, *n, sizeof *s, by_name);
    return s;
}

static json_t *find(json_t **s, size_t n, json_t *key)
{
    json_t **f = bsearch(&key, s, n, sizeof *s, by_name);

    return f ? *f : NULL;
}

/* One name across the files: an entry when its type is not the same in
 * all of them (or a file lacks it), its bytes added to sum; else NULL. */
static json_t *compare(json_t *t, json_t ***s, const size_t *ns, size_t n,
                       json_int_t *sum, int *sized)
{
    json_t *types, *bytes, *e;
    const char *first = NULL;
    int same = 1;
    size_t i;

    for (i = 0; i < n && same; i++) {
        json_t *u = find(s[i], ns[i], t);
        const char *ty =
            u ? json_string_value(json_object_get(u, "type")) : NULL;
        if (i == 0)
            first = ty;
        else if (ty == NULL || first == NULL || strcmp(ty, first) != 0)
            same = 0;
    }
    if (same)
        return NULL;
    types = json_array();
    bytes = json_array();
    for (i = 0; i < n; i++) {
        json_t *u = find(s[i], ns[i], t);
        json_t *b = u ? json_object_get(u, "bytes") : NULL;
        json_array_append_new(
            types, u ? json_incref(json_object_get(u, "type")) : json_null());
        json_array_append_new(bytes, b ? json_incref(b) : json_null());
        if (json_is_integer(b))
            sum[i] += json_integer_value(b);
        else if (u != NULL)
            sized[i] = 0;
    }
    e = json_object();
    json_object_set_new(e, "tensor", json_incref(json_object_get(t, "name")));
    if (json_object_get(t, "name_hex") != NULL)
        json_object_set_new(e, "tensor_hex",
                            json_incref(json_object_get(t, "name_hex")));
    json_object_set_new(e, "types", types);
    json_object_set_new(e, "bytes", bytes);
    return e;
}

static void diff_names(json_t *const *r, size_t n, json_t ***s,
                       const size_t *ns, json_t *differ, json_int_t *sum,
                       int *sized)
{
    size_t f, i, k;

    for (f = 0; f < n; f++) {
        json_t *tt = json_object_get(r[f], "tensor_table");
        for (i = 0; i < json_array_size(tt); i++) {
            json_t *t = json_array_get(tt, i), *e;
            int seen = 0;
            for (k = 0; k < f && !seen; k++)
                seen = find(s[k], ns[k], t) != NULL;
            if (seen)
                continue;
            e = compare(t, s, ns, n, sum, sized);
            if (e != NULL)
                json_array_append_new(differ, e);
        }
    }
}

json_t *recipe_diff(json_t *const *r, size_t n)
{
    json_t ***s = calloc(n ? n : 1, sizeof *s);
    size_t *ns = calloc(n ? n : 1, sizeof *ns), i;
    json_int_t *sum = calloc(n ? n : 1, sizeof *sum);
    int *sized = calloc(n ? n : 1, sizeof *sized),
        ok = s && ns && sum && sized;
    json_t *o = NULL, *files, *differ, *bytes;

    for (i = 0; ok && i < n; i++) {
        sized[i] = 1;
        s[i] = sorted(r[i], &ns[i]);
        ok = s[i] != NULL;
    }
    if (ok) {
        o = json_object();
        files = json_array();
        differ = json_array();
        bytes = json_array();
        diff_names(r, n, s, ns, differ, sum, sized);
        for (i = 0; i < n; i++) {
            json_array_append_new(files,
                                  json_incref(json_object_get(r[i], "file")));
            json_array_append_new(bytes, sized[i] ? json_integer(sum[i])
                                                  : json_null());
        }
        json_object_set_new(o, "files", files);
        json_object_set_new(o, "differ", differ);
        json_object_set_new(o, "bytes", bytes);
    }
    for (i = 0; s && i < n; i++)
        free(s[i]);
    free(s);
    free(ns);
    free(sum);
    free(sized);
    return o;
}

/* ---- text ---------------------------------------------------------- */

/* A number by fmt (one "%*.Nf" between text), or where it is not known
 * '?' in its place, with fmt's text before and after it all the same. */
static void put_num(FILE *out, const char *fmt, json_t *v, int width)
{
    const char *pct = strchr(fmt, '%'), *end = strchr(pct, 'f') + 1;

    if (json_is_integer(v))
        fprintf(out, fmt, width, (double)json_integer_value(v));
    else if (json_is_real(v))
        fprintf(out, fmt, width, json_real_value(v));
    else
        fprintf(out, "%.*s%*s%s", (int)(pct - fmt), fmt, width, "?", end);
}

static void text_kind(FILE *out, json_t *k)
{
    json_t *types = json_object_get(k, "types"), *t;
    size_t i, nt = json_array_size(types);

    fprintf(out, "  %-10s %7" JSON_INTEGER_FORMAT " %14" JSON_INTEGER_FORMAT,
            json_string_value(json_object_get(k, "kind")),
            json_integer_value(json_object_get(k, "tensors")),
            json_integer_value(json_object_get(k, "elements")));
    put_num(out, " %*.0f", json_object_get(k, "bytes"), 14);
    put_num(out, " %*.3f", json_object_get(k, "bpw"), 7);
    fputs("  ", out);
    json_array_foreach(types, i, t)
    {
        const char *lay = json_string_value(json_object_get(t, "layers"));
        fprintf(out, "%s%s", i ? ", " : "",
                json_string_value(json_object_get(t, "type")));
        if (nt > 1) {
            fprintf(out, " (%" JSON_INTEGER_FORMAT " tensors",
                    json_integer_value(json_object_get(t, "tensors")));
            if (lay != NULL)
                fprintf(out, ", layers %s", lay);
            fputc(')', out);
        }
    }
    fputc('\n', out);
}

static void text_recipe(FILE *out, json_t *r)
{
    json_t *meta = json_object_get(r, "metadata"), *v, *k;
    const char *key;
    size_t i;

    fprintf(out, "%s: %" JSON_INTEGER_FORMAT " tensors, ",
            json_string_value(json_object_get(r, "file")),
            json_integer_value(json_object_get(r, "tensors")));
    put_num(out, "%*.0f bytes, ", json_object_get(r, "bytes"), 0);
    put_num(out, "%*.3f bits per weight\n", json_object_get(r, "bpw"), 0);
    json_object_foreach(meta, key, v)
        fprintf(out, "  %s = %s\n", key, json_string_value(v));
    fprintf(out, "  %-10s %7s %14s %14s %7s  %s\n", "kind", "tensors",
            "elements", "bytes", "bpw", "types");
    json_array_foreach(json_object_get(r, "kinds"), i, k) text_kind(out, k);
    fprintf(out, "  %-10s %7" JSON_INTEGER_FORMAT " %14" JSON_INTEGER_FORMAT,
            "total", json_integer_value(json_object_get(r, "tensors")),
            json_integer_value(json_object_get(r, "elements")));
    put_num(out, " %*.0f", json_object_get(r, "bytes"), 14);
    put_num(out, " %*.3f\n", json_object_get(r, "bpw"), 7);
}

static void text_diff(FILE *out, json_t *d)
{
    json_t *files = json_object_get(d, "files"), *e, *f;
    json_t *differ = json_object_get(d, "differ");
    size_t i, j;

    fprintf(out, "\ndifferences: %zu tensors differ in type\n",
            json_array_size(differ));
    if (json_array_size(differ) == 0)
        return;
    json_array_foreach(files, j, f)
        fprintf(out, "  [%zu] %s\n", j + 1, json_string_value(f));
    json_array_foreach(differ, i, e)
    {
        fprintf(out, "  %-32s",
                json_string_value(json_object_get(e, "tensor")));
        for (j = 0; j < json_array_size(files); j++) {
            const char *ty = json_string_value(
                json_array_get(json_object_get(e, "types"), j));
            fprintf(out, "  [%zu] %-8s", j + 1, ty ? ty : "-");
            put_num(out, " %*.0f",
                    json_array_get(json_object_get(e, "bytes"), j), 12);
        }
        fputc('\n', out);
    }
    fprintf(out, "  %-32s", "bytes in these tensors");
    for (j = 0; j < json_array_size(files); j++) {
        fprintf(out, "  [%zu] %-8s", j + 1, "");
        put_num(out, " %*.0f", json_array_get(json_object_get(d, "bytes"), j),
                12);
    }
    fputc('\n', out);
}

int recipe_run(const char *const *paths, size_t n, int json, FILE *out,
               char *msg, size_t msgsize)
{
    json_t **r = calloc(n ? n : 1, sizeof *r), *doc = NULL, *d = NULL;
    int rc = r ? F16R_OK : F16R_EIO;
    size_t i;

    msg[0] = '\0';
    if (r == NULL)
        snprintf(msg, msgsize, "out of memory");
    for (i = 0; rc == F16R_OK && i < n; i++)
        rc = recipe_of(paths[i], &r[i], msg, msgsize);
    if (rc == F16R_OK && n > 1 && (d = recipe_diff(r, n)) == NULL) {
        snprintf(msg, msgsize, "out of memory");
        rc = F16R_EIO;
    }
    if (rc == F16R_OK && json) {
        json_t *files = json_array();
        doc = json_object();
        for (i = 0; i < n; i++)
            json_array_append_new(files, json_incref(r[i]));
        json_object_set_new(doc, "files", files);
        if (d != NULL)
            json_object_set_new(doc, "differences", json_incref(d));
        if (json_dumpf(doc, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER) != 0 ||
            fputc('\n', out) == EOF)
            rc = F16R_EIO;
    } else if (rc == F16R_OK) {
        for (i = 0; i < n; i++) {
            if (i > 0)
                fputc('\n', out);
            text_recipe(out, r[i]);
        }
        if (d != NULL)
            text_diff(out, d);
    }
    if (rc == F16R_EIO && msg[0] == '\0')
        snprintf(msg, msgsize, "a write failed");
    for (i = 0; r && i < n; i++)
        json_decref(r[i]);
    free(r);
    json_decref(doc);
    json_decref(d);
    return rc;
}
