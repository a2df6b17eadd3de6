/*
 * safetensors.c - the header of a safetensors file (tensors.h).
 *
 * The format (huggingface/safetensors, docs "Format"): 8 bytes of
 * little-endian header length N, N bytes of a JSON object, then the data.
 * Each key but "__metadata__" is a tensor:
 *   {"dtype": "BF16", "shape": [2048, 256], "data_offsets": [BEGIN, END]}
 * with the offsets counted from the first byte after the header.
 */
#include "tensors.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The dtypes the format defines, with their size in bits. */
static const struct {
    const char *name;
    unsigned bits;
    enum wkind kind;
} dtypes[] = {
    {"F32", 32, WK_F32},     {"F16", 16, WK_F16},     {"BF16", 16, WK_BF16},
    {"F64", 64, WK_SKIP},    {"I64", 64, WK_SKIP},    {"U64", 64, WK_SKIP},
    {"I32", 32, WK_SKIP},    {"U32", 32, WK_SKIP},    {"I16", 16, WK_SKIP},
    {"U16", 16, WK_SKIP},    {"I8", 8, WK_SKIP},      {"U8", 8, WK_SKIP},
    {"BOOL", 8, WK_SKIP},    {"F8_E5M2", 8, WK_SKIP}, {"F8_E4M3", 8, WK_SKIP},
    {"F8_E8M0", 8, WK_SKIP}, {"F6_E2M3", 6, WK_SKIP}, {"F6_E3M2", 6, WK_SKIP},
    {"F4", 4, WK_SKIP},      {"C64", 64, WK_SKIP},
};

uint64_t safetensors_header_len(const unsigned char buf[8])
{
    uint64_t v = 0;
    int i;

    for (i = 7; i >= 0; i--)
        v = (v << 8) | buf[i];
    return v;
}

static int u64_of(json_t *j, uint64_t *v)
{
    if (!json_is_integer(j) || json_integer_value(j) < 0)
        return -1;
    *v = (uint64_t)json_integer_value(j);
    return 0;
}

/* Element count of a shape: -1 when it is not an array of non-negative
 * integers or the product overflows. */
static int shape_count(json_t *shape, uint64_t *n)
{
    size_t i;
    json_t *d;

    if (!json_is_array(shape))
        return -1;
    *n = 1;
    json_array_foreach(shape, i, d)
    {
        uint64_t v;
        if (u64_of(d, &v) != 0 || __builtin_mul_overflow(*n, v, n))
            return -1;
    }
    return 0;
}

static int one_tensor(const char *name, json_t *v, uint64_t data_start,
                      uint64_t file_size, struct wtensor *t, char *msg,
                      size_t msgsize)
{
    json_t *dt = json_object_get(v, "dtype"),
           *off = json_object_get(v, "data_offsets");
    uint64_t begin, end, bits, want;
    size_t k;

    if (!json_is_object(v) || !json_is_string(dt)) {
        snprintf(msg, msgsize, "tensor '%.200s' has no dtype string", name);
        return -1;
    }
    for (k = 0; k < sizeof dtypes / sizeof *dtypes; k++)
        if (strcmp(json_string_value(dt), dtypes[k].name) == 0)
            break;
    if (k == sizeof dtypes / sizeof *dtypes) {
        snprintf(msg, msgsize, "tensor '%.200s' has unknown dtype '%.40s'",
                 name, json_string_value(dt));
        return -1;
    }
    if (shape_count(json_object_get(v, "shape"), &t->n) != 0) {
        snprintf(msg, msgsize,
                 "tensor '%.200s' has a shape that is not a list of "
                 "non-negative integers (or overflows)",
                 name);
        return -1;
    }
    if (!json_is_array(off) || json_array_size(off) != 2 ||
        u64_of(json_array_get(off, 0), &begin) != 0 ||
        u64_of(json_array_get(off, 1), &end) != 0 || end < begin) {
        snprintf(msg, msgsize,
                 "tensor '%.200s' has data_offsets that are not "
                 "[BEGIN, END] with BEGIN <= END",
                 name);
        return -1;
    }
    if (end > file_size - data_start) {
        snprintf(msg, msgsize,
                 "tensor '%.200s': data_offsets end %" PRIu64
                 " is past the end of the file (%" PRIu64
                 " data bytes): truncated?",
                 name, end, file_size - data_start);
        return -1;
    }
    bits = dtypes[k].bits;
    if (__builtin_mul_overflow(t->n, bits, &want))
        want = UINT64_MAX;
    else
        want = want / 8 + (want % 8 != 0);
    if (end - begin != want) {
        snprintf(msg, msgsize,
                 "tensor '%.200s': %" PRIu64 " bytes at data_offsets, but "
                 "%s x %" PRIu64 " elements is %" PRIu64 " bytes",
                 name, end - begin, dtypes[k].name, t->n, want);
        return -1;
    }
    t->kind = dtypes[k].kind;
    snprintf(t->dtype, sizeof t->dtype, "%s", dtypes[k].name);
    t->off = data_start + begin;
    t->size = end - begin;
    t->sized = 1;
    return 0;
}

static int header_bounds(size_t len, uint64_t file_size, uint64_t *hlen,
                         const unsigned char *buf, char *msg, size_t msgsize)
{
    if (file_size < 8 || len < 8) {
        snprintf(msg, msgsize,
                 "%" PRIu64 " bytes: shorter than the 8-byte header length "
                 "(truncated, or not safetensors)",
                 file_size);
        return -1;
    }
    *hlen = safetensors_header_len(buf);
    if (*hlen > file_size - 8) {
        snprintf(msg, msgsize,
                 "header length %" PRIu64 " runs past the end of the file "
                 "(%" PRIu64 " bytes): truncated, or not safetensors",
                 *hlen, file_size);
        return -1;
    }
    if (*hlen > ST_HEADER_MAX) {
        snprintf(msg, msgsize,
                 "header length %" PRIu64 " is over the %u MiB cap", *hlen,
                 ST_HEADER_MAX >> 20);
        return -1;
    }
    if (len - 8 < *hlen) {
        snprintf(msg, msgsize, "header of %" PRIu64 " bytes not read whole",
                 *hlen);
        return -1;
    }
    return 0;
}

static int fill_table(json_t *h, uint64_t data_start, uint64_t file_size,
                      struct wtable *out, char *msg, size_t msgsize)
{
    const char *name;
    json_t *v;
    size_t cap = json_object_size(h);

    if (cap > WT_TENSORS_MAX) {
        snprintf(msg, msgsize, "%zu tensors: over the cap of %u", cap,
                 WT_TENSORS_MAX);
        return -1;
    }
    out->t = calloc(cap ? cap : 1, sizeof *out->t);
    if (out->t == NULL) {
        snprintf(msg, msgsize, "out of memory for %zu tensors", cap);
        return -1;
    }
    json_object_foreach(h, name, v)
    {
        struct wtensor *t = &out->t[out->n];
        if (strcmp(name, "__metadata__") == 0)
            continue;
        if (one_tensor(name, v, data_start, file_size, t, msg, msgsize) != 0)
            return -1;
        t->name = strdup(name);
        if (t->name == NULL) {
            snprintf(msg, msgsize, "out of memory");
            return -1;
        }
        out->n++;
    }
    return tensors_order(out, msg, msgsize);
}

int safetensors_parse(const unsigned char *buf, size_t len, uint64_t file_size,
                      struct wtable *out, char *msg, size_t msgsize)
{
    uint64_t hlen;
    json_error_t err;
    json_t *h;
    int rc;

    out->t = NULL;
    out->n = 0;
    out->nmeta = 0;
    if (header_bounds(len, file_size, &hlen, buf, msg, msgsize) != 0)
        return -1;
    h = json_loadb((const char *)buf + 8, (size_t)hlen, JSON_REJECT_DUPLICATES,
                   &err);
    if (h == NULL || !json_is_object(h)) {
        snprintf(msg, msgsize, "header is not a JSON object%s%.160s",
                 h == NULL ? ": " : "", h == NULL ? err.text : "");
        json_decref(h);
        tensors_oneline(msg); /* jansson quotes the bad token */
        return -1;
    }
    rc = fill_table(h, 8 + hlen, file_size, out, msg, msgsize);
    json_decref(h);
    if (rc != 0) {
        tensors_free(out);
        tensors_oneline(msg);
    }
    return rc;
}
