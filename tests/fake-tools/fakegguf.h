/*
 * fakegguf.h - the little GGUF the fake converter and quantizer write and
 * the fake llama-server reads (tests only; docs/build.md, "The fake
 * tools"). A real GGUF v3: string key-values (fake.script, the fake
 * server's behaviour as JSON; fake.ladder, every rung's; fake.type) and a
 * few tensors, so that graveyard's own reader, f16-range and a real
 * llama-quantize's parser see a well-formed file.
 */
#ifndef FAKEGGUF_H
#define FAKEGGUF_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fg_kv {
    const char *key, *value; /* strings only */
};

struct fg_tensor {
    const char *name;
    uint32_t type; /* ggml: 0 F32, 1 F16, 8 Q8_0, 24 I8, 30 BF16 */
    uint64_t ne;   /* one dimension */
    const unsigned char *data;
    size_t bytes;
};

static inline void fg_u32(FILE *f, uint32_t v)
{
    fwrite(&v, 4, 1, f);
}
static inline void fg_u64(FILE *f, uint64_t v)
{
    fwrite(&v, 8, 1, f);
}
static inline void fg_str(FILE *f, const char *s)
{
    fg_u64(f, strlen(s));
    fwrite(s, 1, strlen(s), f);
}

/* The words of the fake vocabulary, after <unk>, <s>, </s> and the 256
 * byte tokens. */
static const char *const fg_words[] = {
    "Answer", ":", " ",  "\n", "0",       "1",        "2",   "3",   "4",
    "5",      "6", "7",  "8",  "9",       " the",     " is", "=",   "+",
    "-",      "x", "**", ".",  "<think>", "</think>", "Let", " me",
};
#define FG_NWORDS (sizeof fg_words / sizeof *fg_words)

/*
 * A vocabulary as llama.cpp's converter writes one (tokenizer.ggml.model,
 * .pre, .tokens, .token_type): 3 key-values. "demo" is the one every fake
 * file of a ladder carries; any other name is another tokenizer's (the
 * words in the other order, and a token of its name), so that graveyard's
 * vocabulary check sees two (docs/run.md, "Logprobs and the vocabulary").
 */
static inline void fg_write_vocab(FILE *f, const char *name)
{
    int other = strcmp(name, "demo") != 0;
    uint64_t n = 3 + 256 + FG_NWORDS + (other ? 1 : 0), i;
    char b[16];

    fg_str(f, "tokenizer.ggml.model");
    fg_u32(f, 8);
    fg_str(f, "llama");
    fg_str(f, "tokenizer.ggml.pre");
    fg_u32(f, 8);
    fg_str(f, "default");
    fg_str(f, "tokenizer.ggml.tokens");
    fg_u32(f, 9);
    fg_u32(f, 8);
    fg_u64(f, n);
    fg_str(f, "<unk>");
    fg_str(f, "<s>");
    fg_str(f, "</s>");
    for (i = 0; i < 256; i++) {
        snprintf(b, sizeof b, "<0x%02X>", (unsigned)i);
        fg_str(f, b);
    }
    for (i = 0; i < FG_NWORDS; i++)
        fg_str(f, fg_words[other ? FG_NWORDS - 1 - i : i]);
    if (other) {
        fg_u64(f, strlen(name) + 4);
        fputs("<|", f);
        fputs(name, f);
        fputs("|>", f);
    }
    fg_str(f, "tokenizer.ggml.token_type");
    fg_u32(f, 9);
    fg_u32(f, 5); /* i32: 2 unknown, 3 control, 6 byte, 1 normal */
    fg_u64(f, n);
    for (i = 0; i < n; i++)
        fg_u32(f, i == 0 ? 2 : i < 3 ? 3 : i < 259 ? 6 : 1);
}

/* Everything but the tensors' bytes, with the vocabulary named (NULL or
 * "none": none, a GGUF as the fake tools wrote before issue 26); returns
 * where the data starts. */
static inline long fg_write_head(FILE *f, const struct fg_kv *kv, size_t nkv,
                                 const char *vocab, const struct fg_tensor *t,
                                 size_t nt)
{
    int has_vocab = vocab != NULL && strcmp(vocab, "none") != 0;
    uint64_t off = 0;
    size_t i;
    long pos;

    fwrite("GGUF", 1, 4, f);
    fg_u32(f, 3);
    fg_u64(f, nt);
    fg_u64(f, nkv + (has_vocab ? 4 : 0));
    for (i = 0; i < nkv; i++) {
        size_t kl = strlen(kv[i].key);
        fg_str(f, kv[i].key);
        /* ARCH.context_length is a u32, as llama.cpp writes it */
        if (kl > 15 && strcmp(kv[i].key + kl - 15, ".context_length") == 0) {
            fg_u32(f, 4);
            fg_u32(f, (uint32_t)strtoul(kv[i].value, NULL, 10));
            continue;
        }
        fg_u32(f, 8);
        fg_str(f, kv[i].value);
    }
    if (has_vocab)
        fg_write_vocab(f, vocab);
    for (i = 0; i < nt; i++) {
        fg_str(f, t[i].name);
        fg_u32(f, 1);
        fg_u64(f, t[i].ne);
        fg_u32(f, t[i].type);
        fg_u64(f, off);
        off += (t[i].bytes + 31) / 32 * 32;
    }
    pos = ftell(f);
    while (pos % 32 != 0) {
        fputc(0, f);
        pos++;
    }
    return pos;
}

/* The whole file into memory (a fake's files are small; 256 MiB cap). */
static inline unsigned char *fg_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *p;
    long n;

    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
        n > (256L << 20) || fseek(f, 0, SEEK_SET) != 0) {
        if (f)
            fclose(f);
        return NULL;
    }
    p = malloc((size_t)n + 1);
    if (p == NULL || fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        fclose(f);
        return NULL;
    }
    fclose(f);
    p[n] = '\0';
    *len = (size_t)n;
    return p;
}

/* A tensor of a GGUF in memory, as fg_parse lists it. */
struct fg_info {
    char name[96]; /* cut at 95 bytes */
    uint32_t type;
    uint64_t ne; /* its elements, every dimension's */
};

/* A string key-value of a GGUF in memory (a new string), or NULL. Other
 * types are skipped; anything malformed is NULL. *data_bytes (if not
 * NULL) gets the bytes after the tensor table; ti[0..maxti) (if not NULL)
 * the tensors, *nti how many (at most maxti). */
static inline char *fg_parse(const unsigned char *p, size_t len,
                             const char *key, size_t *data_bytes,
                             struct fg_info *ti, size_t maxti, size_t *nti)
{
    static const unsigned sz[13] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    size_t pos = 24, i, j;
    uint64_t nt, nkv, n, k;
    uint32_t type, et;
    char *found = NULL;

#define NEED(x)                                                               \
    if ((x) > len - pos)                                                      \
    goto bad
#define U32(v)                                                                \
    do {                                                                      \
        NEED(4);                                                              \
        memcpy(&(v), p + pos, 4);                                             \
        pos += 4;                                                             \
    } while (0)
#define U64(v)                                                                \
    do {                                                                      \
        NEED(8);                                                              \
        memcpy(&(v), p + pos, 8);                                             \
        pos += 8;                                                             \
    } while (0)
    if (len < 24 || memcmp(p, "GGUF", 4) != 0)
        return NULL;
    memcpy(&nt, p + 8, 8);
    memcpy(&nkv, p + 16, 8);
    for (i = 0; i < nkv; i++) {
        U64(n);
        NEED(n);
        k = pos;
        pos += n;
        U32(type);
        if (type == 8) {
            uint64_t m;
            U64(m);
            NEED(m);
            if (found == NULL && n == strlen(key) &&
                memcmp(p + k, key, n) == 0) {
                found = malloc(m + 1);
                memcpy(found, p + pos, m);
                found[m] = '\0';
            }
            pos += m;
        } else if (type == 9) {
            U32(et);
            U64(n);
            for (j = 0; j < n; j++) {
                if (et == 8) {
                    uint64_t m;
                    U64(m);
                    NEED(m);
                    pos += m;
                } else if (et < 13 && sz[et]) {
                    NEED(sz[et]);
                    pos += sz[et];
                } else
                    goto bad;
            }
        } else if (type < 13 && sz[type]) {
            NEED(sz[type]);
            pos += sz[type];
        } else
            goto bad;
    }
    if (nti != NULL)
        *nti = 0;
    for (i = 0; i < nt; i++) {
        uint32_t nd, d;
        uint64_t ne = 1, dim;
        U64(n);
        NEED(n);
        k = pos;
        pos += n;
        U32(nd);
        if (nd > 4)
            goto bad;
        NEED(8ull * nd + 12);
        for (d = 0; d < nd; d++) {
            memcpy(&dim, p + pos + 8ull * d, 8);
            ne *= dim;
        }
        if (ti != NULL && *nti < maxti) {
            struct fg_info *x = &ti[(*nti)++];
            size_t m = n < sizeof(x->name) ? n : sizeof(x->name) - 1;
            memcpy(x->name, p + k, m);
            x->name[m] = '\0';
            memcpy(&x->type, p + pos + 8ull * nd, 4);
            x->ne = ne;
        }
        pos += 8ull * nd + 12;
    }
    if (data_bytes != NULL)
        *data_bytes =
            len - (pos + 31) / 32 * 32 < len ? len - (pos + 31) / 32 * 32 : 0;
    return found;
bad:
    free(found);
    return NULL;
#undef NEED
#undef U32
#undef U64
}

static inline char *fg_get(const unsigned char *p, size_t len, const char *key,
                           size_t *data_bytes)
{
    return fg_parse(p, len, key, data_bytes, NULL, 0, NULL);
}

#endif
