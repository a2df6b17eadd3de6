/*
 * gguf.c - the tensor table of a GGUF file (tensors.h).
 *
 * The format (ggml's docs/gguf.md and gguf.cpp): "GGUF", a u32 version,
 * u64 tensor and key-value counts, the key-values (a string key, a u32
 * type, a value; arrays hold one type, never arrays), then per tensor a
 * string name, u32 dimension count (at most 4), that many u64 dimensions,
 * a u32 ggml type and a u64 offset from the data section, which starts at
 * the next multiple of general.alignment (default 32). Everything is
 * little-endian. Strings are a u64 length and bytes.
 */
#include "tensors.h"
#include "vocab.h"
#include "../util/util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every ggml type of both lineages (upstream ggml.h's enum ggml_type and
 * ik_llama.cpp's, with their type traits: ggml_blck_size, ggml_type_size
 * and ik's row_meta_size, the bytes each row carries before its blocks,
 * so a tensor's bytes are rows x (row_meta + blocks x bytes)). Where the
 * two number one id differently in name only the name says both; Q8_K
 * (an intermediate, in no file) differs in size and is left unsized. An
 * id in neither is "type N", its size unknown and not checked. */
static const struct gtype {
    unsigned id;
    const char *name;
    unsigned block, bytes, row_meta;
    enum wkind kind;
} gtypes[] = {
    {0, "F32", 1, 4, 0, WK_F32},
    {1, "F16", 1, 2, 0, WK_F16},
    {2, "Q4_0", 32, 18, 0, WK_SKIP},
    {3, "Q4_1", 32, 20, 0, WK_SKIP},
    {6, "Q5_0", 32, 22, 0, WK_SKIP},
    {7, "Q5_1", 32, 24, 0, WK_SKIP},
    {8, "Q8_0", 32, 34, 0, WK_SKIP},
    {9, "Q8_1", 32, 36, 0, WK_SKIP},
    {10, "Q2_K", 256, 84, 0, WK_SKIP},
    {11, "Q3_K", 256, 110, 0, WK_SKIP},
    {12, "Q4_K", 256, 144, 0, WK_SKIP},
    {13, "Q5_K", 256, 176, 0, WK_SKIP},
    {14, "Q6_K", 256, 210, 0, WK_SKIP},
    {15, "Q8_K", 0, 0, 0,
     WK_SKIP}, /* both name it Q8_K: 292 bytes upstream, 296 in the fork */
    {16, "IQ2_XXS", 256, 66, 0, WK_SKIP},
    {17, "IQ2_XS", 256, 74, 0, WK_SKIP},
    {18, "IQ3_XXS", 256, 98, 0, WK_SKIP},
    {19, "IQ1_S", 256, 50, 0, WK_SKIP},
    {20, "IQ4_NL", 32, 18, 0, WK_SKIP},
    {21, "IQ3_S", 256, 110, 0, WK_SKIP},
    {22, "IQ2_S", 256, 82, 0, WK_SKIP},
    {23, "IQ4_XS", 256, 136, 0, WK_SKIP},
    {24, "I8", 1, 1, 0, WK_SKIP},
    {25, "I16", 1, 2, 0, WK_SKIP},
    {26, "I32", 1, 4, 0, WK_SKIP},
    {27, "I64", 1, 8, 0, WK_SKIP},
    {28, "F64", 1, 8, 0, WK_SKIP},
    {29, "IQ1_M", 256, 56, 0, WK_SKIP},
    {30, "BF16", 1, 2, 0, WK_BF16},
    {31, "Q4_0_4_4", 32, 18, 0, WK_SKIP}, /* fork */
    {32, "Q4_0_4_8", 32, 18, 0, WK_SKIP}, /* fork */
    {33, "Q4_0_8_8", 32, 18, 0, WK_SKIP}, /* fork */
    {34, "TQ1_0", 256, 54, 0, WK_SKIP},   /* upstream */
    {35, "TQ2_0", 256, 66, 0, WK_SKIP},   /* upstream */
    {36, "I2_S", 1, 1, 0, WK_SKIP},       /* fork */
    {39, "MXFP4", 32, 17, 0, WK_SKIP},
    {40, "NVFP4", 64, 36, 0, WK_SKIP}, /* upstream */
    {41, "Q1_0/Q1_0_G128", 128, 18, 0, WK_SKIP},
    {42, "Q2_0", 64, 18, 0, WK_SKIP},         /* upstream */
    {97, "Q8_0_X4", 32, 34, 0, WK_SKIP},      /* fork */
    {98, "Q8_1_X4", 32, 36, 0, WK_SKIP},      /* fork */
    {99, "Q8_2_X4", 32, 36, 0, WK_SKIP},      /* fork */
    {133, "Q6_0", 32, 26, 0, WK_SKIP},        /* fork */
    {134, "IQ1_BN", 64, 13, 2, WK_SKIP},      /* fork */
    {135, "IQ2_BN", 64, 16, 4, WK_SKIP},      /* fork */
    {136, "Q8_K64", 64, 68, 0, WK_SKIP},      /* fork */
    {137, "IQ2_K", 256, 76, 0, WK_SKIP},      /* fork */
    {138, "IQ3_K", 256, 110, 0, WK_SKIP},     /* fork */
    {139, "IQ4_K", 256, 144, 0, WK_SKIP},     /* fork */
    {140, "IQ5_K", 256, 176, 0, WK_SKIP},     /* fork */
    {141, "IQ6_K", 256, 212, 0, WK_SKIP},     /* fork */
    {144, "IQ4_KS", 256, 136, 4, WK_SKIP},    /* fork */
    {145, "IQ2_KS", 256, 70, 2, WK_SKIP},     /* fork */
    {146, "IQ4_KSS", 256, 128, 4, WK_SKIP},   /* fork */
    {147, "Q8_K16", 64, 64, 20, WK_SKIP},     /* fork */
    {148, "Q8_K32", 256, 296, 0, WK_SKIP},    /* fork */
    {149, "Q8_KR8", 256, 296, 0, WK_SKIP},    /* fork */
    {150, "Q8_K128", 128, 140, 0, WK_SKIP},   /* fork */
    {151, "Q8_KV", 32, 32, 8, WK_SKIP},       /* fork */
    {152, "IQ5_KS", 256, 168, 4, WK_SKIP},    /* fork */
    {153, "IQ2_KT", 256, 68, 4, WK_SKIP},     /* fork */
    {154, "IQ3_KT", 256, 100, 4, WK_SKIP},    /* fork */
    {155, "IQ4_KT", 256, 128, 4, WK_SKIP},    /* fork */
    {156, "IQ3_KS", 256, 102, 2, WK_SKIP},    /* fork */
    {157, "IQ2_KL", 256, 86, 2, WK_SKIP},     /* fork */
    {158, "IQ1_KT", 256, 56, 4, WK_SKIP},     /* fork */
    {202, "Q4_0_R8", 32, 18, 0, WK_SKIP},     /* fork */
    {206, "Q5_0_R4", 32, 22, 0, WK_SKIP},     /* fork */
    {208, "Q8_0_R8", 32, 34, 0, WK_SKIP},     /* fork */
    {210, "Q2_K_R4", 256, 84, 0, WK_SKIP},    /* fork */
    {211, "Q3_K_R4", 256, 110, 0, WK_SKIP},   /* fork */
    {212, "Q4_K_R4", 256, 144, 0, WK_SKIP},   /* fork */
    {213, "Q5_K_R4", 256, 176, 0, WK_SKIP},   /* fork */
    {214, "Q6_K_R4", 256, 210, 0, WK_SKIP},   /* fork */
    {216, "IQ2_XXS_R4", 256, 66, 0, WK_SKIP}, /* fork */
    {217, "IQ2_XS_R4", 256, 74, 0, WK_SKIP},  /* fork */
    {218, "IQ3_XXS_R4", 256, 98, 0, WK_SKIP}, /* fork */
    {219, "IQ1_S_R4", 32, 6, 2, WK_SKIP},     /* fork */
    {220, "IQ4_NL_R4", 32, 18, 0, WK_SKIP},   /* fork */
    {221, "IQ3_S_R4", 256, 110, 0, WK_SKIP},  /* fork */
    {222, "IQ2_S_R4", 256, 82, 0, WK_SKIP},   /* fork */
    {223, "IQ4_XS_R8", 256, 136, 0, WK_SKIP}, /* fork */
    {229, "IQ1_M_R4", 32, 7, 2, WK_SKIP},     /* fork */
    {230, "BF16_R16", 1, 2, 0, WK_SKIP},      /* fork */
    {233, "Q6_0_R4", 32, 26, 0, WK_SKIP},     /* fork */
    {335, "IQ2_BN_R4", 64, 16, 4, WK_SKIP},   /* fork */
    {337, "IQ2_K_R4", 256, 76, 0, WK_SKIP},   /* fork */
    {338, "IQ3_K_R4", 256, 110, 0, WK_SKIP},  /* fork */
    {339, "IQ4_K_R4", 256, 144, 0, WK_SKIP},  /* fork */
    {340, "IQ5_K_R4", 256, 176, 0, WK_SKIP},  /* fork */
    {344, "IQ4_KS_R4", 256, 136, 4, WK_SKIP}, /* fork */
    {352, "IQ5_KS_R4", 256, 168, 4, WK_SKIP}, /* fork */
    {353, "MXFP4_R8", 32, 17, 0, WK_SKIP},    /* fork */
    {397, "Q8_K_R16", 256, 258, 0, WK_SKIP},  /* fork */
    {398, "Q8_KV_R8", 32, 32, 4, WK_SKIP},    /* fork */
    {399, "Q8_K_R8", 256, 258, 0, WK_SKIP},   /* fork */
};

enum {
    T_U8,
    T_I8,
    T_U16,
    T_I16,
    T_U32,
    T_I32,
    T_F32,
    T_BOOL,
    T_STRING,
    T_ARRAY,
    T_U64,
    T_I64,
    T_F64,
    T_COUNT
};

static const unsigned scalar_size[T_COUNT] = {1, 1, 2, 2, 4, 4, 4,
                                              1, 0, 0, 8, 8, 8};

#define GGUF_KV_MAX   (1u << 20)
#define GGUF_DIMS_MAX 4

struct rd {
    const unsigned char *p;
    size_t len, pos;
    uint64_t file_size;
    int more; /* ran off buf before the end of the file */
    char *msg;
    size_t msgsize;
};

/* Room for n more bytes: 0, or -1 (with r->more set when reading more of
 * the file would help, else a message). */
static int need(struct rd *r, uint64_t n, const char *what)
{
    if (n <= r->len - r->pos)
        return 0;
    if (r->len < r->file_size && n <= r->file_size - r->pos)
        r->more = 1;
    else
        snprintf(r->msg, r->msgsize,
                 "%s at byte %zu runs past the end of the file (%" PRIu64
                 " bytes): truncated?",
                 what, r->pos, r->file_size);
    return -1;
}

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;

    while (n-- > 0)
        v = (v << 8) | p[n];
    return v;
}

static int u32(struct rd *r, uint32_t *v, const char *what)
{
    if (need(r, 4, what) != 0)
        return -1;
    *v = (uint32_t)le(r->p + r->pos, 4);
    r->pos += 4;
    return 0;
}

static int u64(struct rd *r, uint64_t *v, const char *what)
{
    if (need(r, 8, what) != 0)
        return -1;
    *v = le(r->p + r->pos, 8);
    r->pos += 8;
    return 0;
}

/* A string: its bytes stay in buf (*s, *n). */
static int str(struct rd *r, const unsigned char **s, uint64_t *n,
               const char *what)
{
    if (u64(r, n, what) != 0 || need(r, *n, what) != 0)
        return -1;
    *s = r->p + r->pos;
    r->pos += (size_t)*n;
    return 0;
}

static int bad(struct rd *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int bad(struct rd *r, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(r->msg, r->msgsize, fmt, ap);
    va_end(ap);
    return -1;
}

static int skip_value(struct rd *r, uint32_t type, int in_array)
{
    const unsigned char *s;
    uint64_t n, i;
    uint32_t et;

    if (type >= T_COUNT)
        return bad(r, "bad key-value type %u", type);
    if (type == T_STRING)
        return str(r, &s, &n, "a string value");
    if (type != T_ARRAY) {
        if (need(r, scalar_size[type], "a value") != 0)
            return -1;
        r->pos += scalar_size[type];
        return 0;
    }
    if (in_array)
        return bad(r, "an array of arrays (GGUF allows none) at byte %zu",
                   r->pos);
    if (u32(r, &et, "an array type") != 0 || u64(r, &n, "an array length"))
        return -1;
    if (et >= T_COUNT || et == T_ARRAY)
        return bad(r, "bad array element type %u", et);
    if (et != T_STRING) {
        uint64_t bytes;
        if (__builtin_mul_overflow(n, scalar_size[et], &bytes))
            return bad(r, "an array of %" PRIu64 " elements overflows", n);
        if (need(r, bytes, "an array") != 0)
            return -1;
        r->pos += (size_t)bytes;
        return 0;
    }
    /* every string is at least its 8-byte length: a count the file cannot
     * hold is refused before a loop of that many turns */
    if (n > (r->file_size - r->pos) / 8)
        return bad(r, "an array of %" PRIu64 " strings runs past the end", n);
    for (i = 0; i < n; i++) {
        uint64_t sl;
        if (str(r, &s, &sl, "a string in an array") != 0)
            return -1;
    }
    return 0;
}

const char *const vocab_keys[VOCAB_NKEYS] = {
    "tokenizer.ggml.model",  "tokenizer.ggml.pre",
    "tokenizer.ggml.tokens", "tokenizer.ggml.token_type",
    "tokenizer.ggml.scores", "tokenizer.ggml.merges",
};

/* What each vocabulary key must hold: a string, an array of strings, or
 * an array of numbers (ids' types, scores). */
enum { VK_STRING, VK_STRINGS, VK_NUMBERS };
static const int vocab_kind[VOCAB_NKEYS] = {
    VK_STRING, VK_STRING, VK_STRINGS, VK_NUMBERS, VK_NUMBERS, VK_STRINGS};

/* A string value's bytes at off (its u64 length first) into out, shown
 * by the one rule for outside text (util_printable) and cut: for a
 * message or a recipe, never for the hash. */
static void printable(const unsigned char *p, size_t off, char *out,
                      size_t size)
{
    util_printable((const char *)p + off + 8, (size_t)le(p + off, 8), out,
                   size);
}

/* The value of key k (its type read, r at the value): one of the
 * vocabulary's, checked and skipped with where it lies kept in v; 1 when
 * k is not one of them (nothing read), 0, or -1 with the message. */
static int vocab_value(struct rd *r, const unsigned char *k, uint64_t kn,
                       uint32_t type, struct vocab *v)
{
    size_t i, start = r->pos - 4;
    uint32_t et;

    for (i = 0; i < VOCAB_NKEYS; i++)
        if (strlen(vocab_keys[i]) == kn && memcmp(k, vocab_keys[i], kn) == 0)
            break;
    if (i == VOCAB_NKEYS)
        return 1;
    if (v->kv[i].len != 0)
        return bad(r, "%s is given twice", vocab_keys[i]);
    if (type != (vocab_kind[i] == VK_STRING ? T_STRING : T_ARRAY))
        return bad(r, "%s is not %s (type %u)", vocab_keys[i],
                   vocab_kind[i] == VK_STRING ? "a string" : "an array", type);
    if (type == T_ARRAY) {
        if (need(r, 4, "an array type") != 0)
            return -1;
        et = (uint32_t)le(r->p + r->pos, 4);
        if ((vocab_kind[i] == VK_STRINGS) != (et == T_STRING) ||
            et == T_ARRAY || et >= T_COUNT || et == T_BOOL)
            return bad(
                r, "%s is not an array of %s (element type %u)", vocab_keys[i],
                vocab_kind[i] == VK_STRINGS ? "strings" : "numbers", et);
    }
    if (skip_value(r, type, 0) != 0)
        return -1;
    v->kv[i].off = start;
    v->kv[i].len = r->pos - start;
    if (i == 0 || i == 1)
        printable(r->p, start + 4, i == 0 ? v->model : v->pre,
                  sizeof v->model);
    else if (i == 2)
        v->ntokens = le(r->p + start + 8, 8);
    else if (i == 5)
        v->nmerges = le(r->p + start + 8, 8);
    return 0;
}

/* Is key k one the recipe keeps (tensors.h, WT_META_MAX)? */
static int meta_key(const unsigned char *k, uint64_t kn)
{
    static const char *const keys[] = {"general.name", "general.file_type",
                                       "general.quantization_version"};
    static const char imx[] = "quantize.imatrix.";
    size_t i;

    for (i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strlen(keys[i]) == kn && memcmp(k, keys[i], kn) == 0)
            return 1;
    return kn > sizeof imx - 1 && memcmp(k, imx, sizeof imx - 1) == 0;
}

/* A kept key's value, r at it: skipped, and written "key=value" into the
 * table's next meta slot (dropped past WT_META_MAX). */
static int meta_value(struct rd *r, const unsigned char *k, uint64_t kn,
                      uint32_t type, struct wtable *tab)
{
    size_t at = r->pos;
    const unsigned char *p = r->p + at;
    char v[128], key[121]; /* each shown and cut: they fit a slot */
    union {
        float f;
        uint32_t u;
    } f32;
    union {
        double d;
        uint64_t u;
    } f64;

    if (skip_value(r, type, 0) != 0)
        return -1;
    if (tab->nmeta >= WT_META_MAX)
        return 0;
    switch (type) {
    case T_U8:
    case T_U16:
    case T_U32:
    case T_U64:
    case T_BOOL:
        snprintf(v, sizeof v, "%" PRIu64, le(p, (int)scalar_size[type]));
        break;
    case T_I8:
    case T_I16:
    case T_I32:
    case T_I64: {
        int bits = 8 * (int)scalar_size[type];
        uint64_t u = le(p, (int)scalar_size[type]);
        int64_t x = bits < 64 && (u >> (bits - 1)) & 1
                        ? (int64_t)(u - (UINT64_C(1) << bits))
                        : (int64_t)u;
        snprintf(v, sizeof v, "%" PRId64, x);
        break;
    }
    case T_F32:
        f32.u = (uint32_t)le(p, 4);
        snprintf(v, sizeof v, "%.9g", (double)f32.f);
        break;
    case T_F64:
        f64.u = le(p, 8);
        snprintf(v, sizeof v, "%.17g", f64.d);
        break;
    case T_STRING:
        printable(r->p, at, v, sizeof v);
        break;
    default: /* an array: its length */
        snprintf(v, sizeof v, "[%" PRIu64 " items]", le(p + 4, 8));
    }
    util_printable((const char *)k, (size_t)kn, key, sizeof key);
    snprintf(tab->meta[tab->nmeta++], WT_META_LEN, "%s=%s", key, v);
    return 0;
}

/* The key-values: general.alignment, the vocabulary's when v is not
 * NULL, the recipe's (meta_key) when tab is not NULL. */
static int key_values(struct rd *r, uint64_t nkv, uint64_t *align,
                      struct vocab *v, struct wtable *tab)
{
    uint64_t i, kn;
    const unsigned char *k;
    uint32_t type;

    for (i = 0; i < nkv; i++) {
        if (str(r, &k, &kn, "a key") != 0 || u32(r, &type, "a value type"))
            return -1;
        /* ARCH.context_length: the context the model was trained on
         * (a long ladder's lengths are checked against it) */
        if (v != NULL && kn > 15 &&
            memcmp(k + kn - 15, ".context_length", 15) == 0 &&
            (type == T_U32 || type == T_U64)) {
            uint32_t c32;
            if (type == T_U32 ? u32(r, &c32, "a context length")
                              : u64(r, &v->ctx_train, "a context length"))
                return -1;
            if (type == T_U32)
                v->ctx_train = c32;
            continue;
        }
        if (v != NULL) {
            int e = vocab_value(r, k, kn, type, v);
            if (e <= 0) {
                if (e < 0)
                    return -1;
                continue;
            }
        }
        if (tab != NULL && meta_key(k, kn)) {
            if (meta_value(r, k, kn, type, tab) != 0)
                return -1;
            continue;
        }
        if (kn == 17 && memcmp(k, "general.alignment", 17) == 0) {
            uint32_t a;
            if (type != T_U32)
                return bad(r, "general.alignment is not a u32 (type %u)",
                           type);
            if (u32(r, &a, "general.alignment") != 0)
                return -1;
            if (a == 0 || (a & (a - 1)) != 0)
                return bad(r, "general.alignment %u is not a power of two", a);
            *align = a;
            continue;
        }
        if (skip_value(r, type, 0) != 0)
            return -1;
    }
    return 0;
}

static const struct gtype *gtype_of(uint32_t id)
{
    size_t i;

    for (i = 0; i < sizeof gtypes / sizeof *gtypes; i++)
        if (gtypes[i].id == id)
            return &gtypes[i];
    return NULL;
}

int gguf_type_info(uint32_t id, const char **name, unsigned *block,
                   unsigned *bytes, unsigned *row_meta)
{
    const struct gtype *g = gtype_of(id);

    if (g == NULL)
        return -1;
    *name = g->name;
    *block = g->block;
    *bytes = g->bytes;
    *row_meta = g->row_meta;
    return 0;
}

/* One tensor's name, shape, type and offset (relative to the data). */
static int tensor_info(struct rd *r, struct wtensor *t, uint64_t *dims0)
{
    const unsigned char *name;
    uint64_t nl, d, rb;
    uint32_t nd, type, i;
    const struct gtype *g;

    if (str(r, &name, &nl, "a tensor name") != 0)
        return -1;
    if (nl == 0 || nl > WT_NAME_MAX || memchr(name, 0, (size_t)nl) != NULL)
        return bad(r,
                   "a tensor name of %" PRIu64
                   " bytes (empty, too long or with a NUL)",
                   nl);
    t->name = strndup((const char *)name, (size_t)nl);
    if (t->name == NULL)
        return bad(r, "out of memory");
    if (u32(r, &nd, "a dimension count") != 0)
        return -1;
    if (nd > GGUF_DIMS_MAX)
        return bad(r, "tensor '%.200s' has %u dimensions (at most 4)", t->name,
                   nd);
    t->n = 1;
    for (i = 0; i < nd; i++) {
        if (u64(r, &d, "a dimension") != 0)
            return -1;
        if (i == 0)
            *dims0 = d;
        if (d > INT64_MAX || __builtin_mul_overflow(t->n, d, &t->n))
            return bad(r, "tensor '%.200s': its element count overflows",
                       t->name);
    }
    if (nd == 0)
        *dims0 = 1;
    if (u32(r, &type, "a tensor type") != 0 || u64(r, &t->off, "an offset"))
        return -1;
    g = gtype_of(type);
    t->gtype = type;
    t->size = 0;
    t->kind = g == NULL ? WK_SKIP : g->kind;
    if (g == NULL)
        snprintf(t->dtype, sizeof t->dtype, "type %u", type);
    else
        snprintf(t->dtype, sizeof t->dtype, "%s", g->name);
    if (g == NULL || g->block == 0)
        return 0;
    if (*dims0 % g->block != 0)
        return bad(r,
                   "tensor '%.200s': a row of %" PRIu64
                   " is not whole blocks of its type",
                   t->name, *dims0);
    /* rows x (the row's meta bytes + its blocks): ggml_row_size */
    if (*dims0 == 0 ||
        __builtin_mul_overflow(*dims0 / g->block, (uint64_t)g->bytes, &rb) ||
        __builtin_add_overflow(rb, (uint64_t)g->row_meta, &rb) ||
        __builtin_mul_overflow(t->n / *dims0, rb, &t->size))
        t->size = 0;
    if (*dims0 != 0 && t->size == 0 && t->n != 0)
        return bad(r, "tensor '%.200s': its size overflows", t->name);
    t->sized = 1;
    return 0;
}

static int header(struct rd *r, uint64_t *nt, uint64_t *nkv)
{
    uint32_t version;

    if (need(r, 4, "the magic") != 0)
        return -1;
    if (memcmp(r->p, "GGUF", 4) != 0)
        return bad(r, "bad magic (not a GGUF file)");
    r->pos = 4;
    if (u32(r, &version, "the version") != 0)
        return -1;
    if (version == 1)
        return bad(r, "GGUF version 1 is not supported (its counts are "
                      "32-bit): convert the model again");
    if (version != 2 && version != 3)
        return bad(r,
                   "bad GGUF version %u"
                   " (2 and 3 are known; a big-endian file is not supported)",
                   version);
    if (u64(r, nt, "the tensor count") != 0 || u64(r, nkv, "the key count"))
        return -1;
    if (*nt > WT_TENSORS_MAX || *nkv > GGUF_KV_MAX)
        return bad(r,
                   "bad tensor table: %" PRIu64
                   " tensors or key-values is over the cap",
                   *nt > *nkv ? *nt : *nkv);
    return 0;
}

static int place(struct rd *r, struct wtable *out, uint64_t align)
{
    uint64_t data = (r->pos + align - 1) / align * align;
    size_t i;

    for (i = 0; i < out->n; i++) {
        struct wtensor *t = &out->t[i];
        if (t->off % align != 0)
            return bad(r,
                       "tensor '%.200s': offset %" PRIu64
                       " is not a multiple of the alignment",
                       t->name, t->off);
        if (data > r->file_size || t->off > r->file_size - data ||
            t->size > r->file_size - data - t->off)
            return bad(r,
                       "tensor '%.200s': its bytes run past the end of the "
                       "file (offset %" PRIu64 "): truncated?",
                       t->name, t->off);
        t->off += data;
    }
    return tensors_order(out, r->msg, r->msgsize);
}

int gguf_parse(const unsigned char *buf, size_t len, uint64_t file_size,
               struct wtable *out, char *msg, size_t msgsize)
{
    struct rd r = {buf,    len < file_size ? len : (size_t)file_size,
                   0,      file_size,
                   0,      msg,
                   msgsize};
    uint64_t nt, nkv, align = 32, i, dims0;
    int rc = -1;

    out->t = NULL;
    out->n = 0;
    out->nmeta = 0;
    if (header(&r, &nt, &nkv) != 0 ||
        key_values(&r, nkv, &align, NULL, out) != 0)
        goto done;
    /* a tensor's info is at least 24 bytes: a count the file cannot hold
     * is refused before the table is allocated */
    if (nt > (file_size - r.pos) / 24) {
        bad(&r, "bad tensor table: %" PRIu64 " tensors cannot fit in the file",
            nt);
        goto done;
    }
    out->t = calloc(nt ? nt : 1, sizeof *out->t);
    if (out->t == NULL) {
        bad(&r, "out of memory for %" PRIu64 " tensors", nt);
        goto done;
    }
    for (i = 0; i < nt; i++) {
        int e = tensor_info(&r, &out->t[i], &dims0);
        if (out->t[i].name != NULL)
            out->n++;
        if (e != 0)
            goto done;
    }
    rc = place(&r, out, align);
done:
    if (rc != 0) {
        tensors_free(out);
        tensors_oneline(msg);
        if (r.more)
            return 1;
    }
    return rc;
}

int gguf_vocab_parse(const unsigned char *buf, size_t len, uint64_t file_size,
                     struct vocab *v, char *msg, size_t msgsize)
{
    struct rd r = {buf,    len < file_size ? len : (size_t)file_size,
                   0,      file_size,
                   0,      msg,
                   msgsize};
    uint64_t nt, nkv, align = 32;

    memset(v, 0, sizeof *v);
    if (header(&r, &nt, &nkv) != 0 ||
        key_values(&r, nkv, &align, v, NULL) != 0) {
        tensors_oneline(msg);
        return r.more ? 1 : -1;
    }
    if (v->kv[2].len == 0) {
        snprintf(msg, msgsize,
                 "no vocabulary: no tokenizer.ggml.tokens among "
                 "its %" PRIu64 " key-values",
                 nkv);
        return -1;
    }
    return 0;
}

void vocab_feed(const struct vocab *v, const unsigned char *buf,
                vocab_sink_fn sink, void *ctx)
{
    unsigned char n[8];
    size_t i, j;

    sink(ctx, VOCAB_MAGIC, strlen(VOCAB_MAGIC));
    for (i = 0; i < VOCAB_NKEYS; i++) {
        uint64_t kl = strlen(vocab_keys[i]), vl = v->kv[i].len;
        unsigned char present = vl != 0;
        for (j = 0; j < 8; j++)
            n[j] = (unsigned char)(kl >> (8 * j));
        sink(ctx, n, 8);
        sink(ctx, vocab_keys[i], (size_t)kl);
        sink(ctx, &present, 1);
        if (!present)
            continue;
        for (j = 0; j < 8; j++)
            n[j] = (unsigned char)(vl >> (8 * j));
        sink(ctx, n, 8);
        sink(ctx, buf + v->kv[i].off, v->kv[i].len);
    }
}
