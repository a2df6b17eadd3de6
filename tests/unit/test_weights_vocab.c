/*
 * test_weights_vocab.c - a GGUF's vocabulary bytes (weights/vocab.h) on
 * files the test writes: the exact bytes fed for a small vocabulary, the
 * keys that change them and those that do not, a head past the first
 * read, and hostile files (counts and lengths past the file, wrong types,
 * a key twice, no vocabulary), each refused with one line naming the file.
 *
 * Tests: weights/gguf.c
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "f16range.h"
#include "vocab.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/graveyard-vocab-XXXXXX");
    return mkdtemp(dir) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
    char cmd[128];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* ---- writing files ------------------------------------------------- */

struct bytes {
    unsigned char *p;
    size_t n, cap;
};

static void put(struct bytes *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void put_u32(struct bytes *b, uint32_t v)
{
    put(b, &v, 4);
}
static void put_u64(struct bytes *b, uint64_t v)
{
    put(b, &v, 8);
}

static void put_str(struct bytes *b, const char *s)
{
    put_u64(b, strlen(s));
    put(b, s, strlen(s));
}

static char *file_of(const char *name)
{
    static char path[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
    return path[k];
}

static void write_file(const char *name, const struct bytes *b)
{
    FILE *f = fopen(file_of(name), "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b->p, 1, b->n, f), b->n);
    assert_int_equal(fclose(f), 0);
}

/* What a GGUF holds, as the tests vary it. */
struct spec {
    const char *model, *pre;   /* NULL: absent */
    const char *const *tokens; /* NULL-ended; NULL: no tokens key */
    int types, scores, merges; /* the other keys present */
    int swap;                  /* tokens written before model */
    const char *name;          /* general.name */
    unsigned tensor_type;      /* the one tensor's ggml type */
};

static const char *const toks[] = {"<unk>", "<s>", "</s>", "a",
                                   "b",     "ab",  NULL};

static size_t ntoks(const char *const *t)
{
    size_t n = 0;
    while (t[n] != NULL)
        n++;
    return n;
}

static void kv_tokens(struct bytes *b, const struct spec *s, size_t *nkv)
{
    size_t i, n = ntoks(s->tokens);

    put_str(b, "tokenizer.ggml.tokens");
    put_u32(b, 9);
    put_u32(b, 8);
    put_u64(b, n);
    for (i = 0; i < n; i++)
        put_str(b, s->tokens[i]);
    (*nkv)++;
}

static void kv_model(struct bytes *b, const struct spec *s, size_t *nkv)
{
    if (s->model == NULL)
        return;
    put_str(b, "tokenizer.ggml.model");
    put_u32(b, 8);
    put_str(b, s->model);
    (*nkv)++;
}

/* The key-values of s after the header (their count in *nkv). */
static void kvs(struct bytes *b, const struct spec *s, size_t *nkv)
{
    size_t i, n = s->tokens ? ntoks(s->tokens) : 0;

    put_str(b, "general.name");
    put_u32(b, 8);
    put_str(b, s->name ? s->name : "tiny");
    (*nkv)++;
    if (s->swap && s->tokens)
        kv_tokens(b, s, nkv);
    kv_model(b, s, nkv);
    if (s->pre != NULL) {
        put_str(b, "tokenizer.ggml.pre");
        put_u32(b, 8);
        put_str(b, s->pre);
        (*nkv)++;
    }
    if (!s->swap && s->tokens)
        kv_tokens(b, s, nkv);
    if (s->scores) {
        put_str(b, "tokenizer.ggml.scores");
        put_u32(b, 9);
        put_u32(b, 6); /* f32 */
        put_u64(b, n);
        for (i = 0; i < n; i++) {
            float f = -(float)i * (float)s->scores;
            put(b, &f, 4);
        }
        (*nkv)++;
    }
    if (s->types) {
        put_str(b, "tokenizer.ggml.token_type");
        put_u32(b, 9);
        put_u32(b, 5); /* i32 */
        put_u64(b, n);
        for (i = 0; i < n; i++)
            put_u32(b, i < 3 ? (uint32_t)s->types : 1);
        (*nkv)++;
    }
    if (s->merges) {
        put_str(b, "tokenizer.ggml.merges");
        put_u32(b, 9);
        put_u32(b, 8);
        put_u64(b, 1);
        put_str(b, s->merges == 1 ? "a b" : "b a");
        (*nkv)++;
    }
    put_str(b, "tokenizer.ggml.bos_token_id");
    put_u32(b, 4);
    put_u32(b, 1);
    (*nkv)++;
}

/* s as a GGUF v3 file: the key-values, one tensor of 32 elements and its
 * bytes. */
static void write_spec(const char *name, const struct spec *s)
{
    struct bytes b = {0}, k = {0};
    unsigned char data[128] = {0};
    size_t nkv = 0;

    kvs(&k, s, &nkv);
    put(&b, "GGUF", 4);
    put_u32(&b, 3);
    put_u64(&b, 1);
    put_u64(&b, nkv);
    put(&b, k.p, k.n);
    put_str(&b, "w");
    put_u32(&b, 1);
    put_u64(&b, 32);
    put_u32(&b, s->tensor_type);
    put_u64(&b, 0);
    while (b.n % 32 != 0)
        put(&b, "", 1);
    put(&b, data, sizeof data);
    write_file(name, &b);
    free(b.p);
    free(k.p);
}

/* ---- reading ------------------------------------------------------- */

static void collect(void *ctx, const void *p, size_t n)
{
    put(ctx, p, n);
}

struct got {
    int rc;
    struct vocab v;
    struct bytes fed;
    char msg[1024];
};

static struct got *got_of(const char *name)
{
    static struct got g;
    free(g.fed.p);
    memset(&g, 0, sizeof g);
    g.rc = vocab_read_file(file_of(name), &g.v, collect, &g.fed, g.msg,
                           sizeof g.msg);
    return &g;
}

/* The bytes fed for name, a new buffer the caller frees. */
static struct bytes fed_of(const char *name)
{
    struct got *g = got_of(name);
    struct bytes b = {0};

    if (g->rc != F16R_OK)
        fail_msg("%s: rc %d, %s", name, g->rc, g->msg);
    put(&b, g->fed.p, g->fed.n);
    return b;
}

static int same(const struct bytes *a, const struct bytes *b)
{
    return a->n == b->n && memcmp(a->p, b->p, a->n) == 0;
}

/* A bad input: F16R_EBADINPUT, one line naming the file and saying
 * what, nothing fed. */
static void refused(const char *name, const char *what)
{
    struct got *g = got_of(name);

    if (g->rc != F16R_EBADINPUT || strstr(g->msg, what) == NULL ||
        strchr(g->msg, '\n') != NULL || strstr(g->msg, dir) == NULL)
        fail_msg("%s: rc %d, msg '%s', want '%s'", name, g->rc, g->msg, what);
    assert_int_equal(g->fed.n, 0);
}

/* ---- the tests ----------------------------------------------------- */

/* The exact bytes, as vocab.h spells them, for model and tokens alone. */
static void test_bytes_exact(void **state)
{
    static const char *const two[] = {"<s>", "hé", NULL};
    struct spec s = {"llama", NULL, two, 0, 0, 0, 0, NULL, 0};
    struct bytes want = {0}, got;
    size_t i;

    (void)state;
    write_spec("exact.gguf", &s);
    put(&want, VOCAB_MAGIC, strlen(VOCAB_MAGIC));
    for (i = 0; i < VOCAB_NKEYS; i++) {
        put_str(&want, vocab_keys[i]);
        if (i == 0) {
            put(&want, "\1", 1);
            put_u64(&want, 4 + 8 + 5);
            put_u32(&want, 8);
            put_str(&want, "llama");
        } else if (i == 2) {
            put(&want, "\1", 1);
            put_u64(&want, 4 + 4 + 8 + 8 + 3 + 8 + 3);
            put_u32(&want, 9);
            put_u32(&want, 8);
            put_u64(&want, 2);
            put_str(&want, "<s>");
            put_str(&want, "hé");
        } else {
            put(&want, "\0", 1);
        }
    }
    got = fed_of("exact.gguf");
    assert_true(same(&got, &want));
    assert_int_equal(got_of("exact.gguf")->v.ntokens, 2);
    assert_int_equal(got_of("exact.gguf")->v.gguf, 1);
    assert_string_equal(got_of("exact.gguf")->v.model, "llama");
    assert_string_equal(got_of("exact.gguf")->v.pre, "");
    free(got.p);
    free(want.p);
}

/* What is not the vocabulary changes nothing: the tensors' types (a
 * quantized rung), general.name, the keys' order in the file. */
static void test_same_vocab(void **state)
{
    struct spec a = {"llama", "default", toks, 3, 1, 1, 0, "F32", 0};
    struct spec b = a;
    struct bytes x, y;

    (void)state;
    write_spec("a.gguf", &a);
    b.name = "Q8_0";
    b.tensor_type = 8;
    b.swap = 1;
    write_spec("b.gguf", &b);
    x = fed_of("a.gguf");
    y = fed_of("b.gguf");
    assert_true(same(&x, &y));
    assert_int_equal(got_of("b.gguf")->v.nmerges, 1);
    free(x.p);
    free(y.p);
}

/* Each vocabulary key changes the bytes: a token, the model, the
 * pre-tokenizer, a token's type, the scores, the merges, and a key
 * present against absent. */
static void test_each_key_counts(void **state)
{
    static const char *const other[] = {"<unk>", "<s>", "</s>", "a",
                                        "b",     "ba",  NULL};
    const struct spec base = {"llama", "default", toks, 3, 1, 1, 0, NULL, 0};
    struct spec v[9];
    struct bytes ref, x;
    char name[32];
    size_t i;

    (void)state;
    for (i = 0; i < 9; i++)
        v[i] = base;
    v[0].tokens = other;
    v[1].model = "gpt2";
    v[2].pre = "qwen2";
    v[3].types = 4;
    v[4].scores = 2;
    v[5].merges = 2;
    v[6].pre = NULL;
    v[7].scores = 0;
    v[8].merges = 0;
    write_spec("base.gguf", &base);
    ref = fed_of("base.gguf");
    for (i = 0; i < 9; i++) {
        snprintf(name, sizeof name, "v%zu.gguf", i);
        write_spec(name, &v[i]);
        x = fed_of(name);
        if (same(&x, &ref))
            fail_msg("variant %zu fed the same bytes as the base", i);
        free(x.p);
    }
    free(ref.p);
}

/* A vocabulary past the first 1 MiB read: read again, bigger, and the
 * same bytes as a parse of the whole head at once. */
static void test_big_head(void **state)
{
    enum { N = 150000 };
    static const char *big[N + 1];
    static char text[N][16];
    struct spec s = {"gpt2", "qwen2", big, 1, 0, 0, 0, NULL, 0};
    struct bytes b;
    size_t i;

    (void)state;
    for (i = 0; i < N; i++) {
        snprintf(text[i], sizeof text[i], "tok%06zu", i);
        big[i] = text[i];
    }
    big[N] = NULL;
    write_spec("big.gguf", &s);
    b = fed_of("big.gguf");
    assert_true(b.n > (1u << 20) + (1u << 19));
    assert_int_equal(got_of("big.gguf")->v.ntokens, N);
    free(b.p);
}

static void head(struct bytes *b, uint64_t nkv)
{
    b->n = 0;
    put(b, "GGUF", 4);
    put_u32(b, 3);
    put_u64(b, 0);
    put_u64(b, nkv);
}

/* Hostile heads: each refused at once with one line, nothing fed. */
static void test_hostile(void **state)
{
    struct bytes b = {0};
    struct spec none = {"llama", "default", NULL, 0, 0, 0, 0, NULL, 0};
    struct timespec t0, t1;

    (void)state;
    /* a token array claiming 2^40 strings in a file of a few bytes */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    head(&b, 1);
    put_str(&b, "tokenizer.ggml.tokens");
    put_u32(&b, 9);
    put_u32(&b, 8);
    put_u64(&b, 1ull << 40);
    put_str(&b, "<s>");
    write_file("huge.gguf", &b);
    refused("huge.gguf", "strings runs past the end");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_true(t1.tv_sec - t0.tv_sec < 2);
    /* 2^40 token types: bytes the file does not have */
    head(&b, 1);
    put_str(&b, "tokenizer.ggml.token_type");
    put_u32(&b, 9);
    put_u32(&b, 5);
    put_u64(&b, 1ull << 40);
    write_file("types.gguf", &b);
    refused("types.gguf", "runs past the end of the file");
    /* a token's length past the end of the file */
    head(&b, 1);
    put_str(&b, "tokenizer.ggml.tokens");
    put_u32(&b, 9);
    put_u32(&b, 8);
    put_u64(&b, 1);
    put_u64(&b, 1ull << 50);
    put(&b, "abc", 3);
    write_file("len.gguf", &b);
    refused("len.gguf", "runs past the end of the file");
    /* the model's string, too */
    head(&b, 1);
    put_str(&b, "tokenizer.ggml.model");
    put_u32(&b, 8);
    put_u64(&b, UINT64_MAX);
    write_file("model.gguf", &b);
    refused("model.gguf", "runs past the end of the file");
    /* tokens that are numbers; a model that is a number */
    head(&b, 1);
    put_str(&b, "tokenizer.ggml.tokens");
    put_u32(&b, 9);
    put_u32(&b, 5);
    put_u64(&b, 1);
    put_u32(&b, 7);
    write_file("ints.gguf", &b);
    refused("ints.gguf", "not an array of strings");
    head(&b, 1);
    put_str(&b, "tokenizer.ggml.model");
    put_u32(&b, 4);
    put_u32(&b, 7);
    write_file("num.gguf", &b);
    refused("num.gguf", "tokenizer.ggml.model is not a string");
    /* a vocabulary key twice: which one would the server read? */
    head(&b, 2);
    put_str(&b, "tokenizer.ggml.pre");
    put_u32(&b, 8);
    put_str(&b, "a");
    put_str(&b, "tokenizer.ggml.pre");
    put_u32(&b, 8);
    put_str(&b, "b");
    write_file("twice.gguf", &b);
    refused("twice.gguf", "tokenizer.ggml.pre is given twice");
    /* a key count past the cap; not a GGUF; no vocabulary */
    head(&b, 1ull << 40);
    write_file("kv.gguf", &b);
    refused("kv.gguf", "over the cap");
    b.n = 0;
    put(&b, "PK\3\4 not a gguf", 16);
    write_file("zip.gguf", &b);
    refused("zip.gguf", "not a GGUF");
    assert_int_equal(got_of("zip.gguf")->v.gguf, 0);
    b.n = 0;
    put(&b, "GG", 2);
    write_file("short.gguf", &b);
    refused("short.gguf", "not a GGUF");
    assert_int_equal(got_of("short.gguf")->v.gguf, 0);
    /* a GGUF, bad or without a vocabulary, is one all the same */
    assert_int_equal(got_of("twice.gguf")->v.gguf, 1);
    write_spec("none.gguf", &none);
    refused("none.gguf", "no vocabulary: no tokenizer.ggml.tokens");
    assert_int_equal(got_of("none.gguf")->v.gguf, 1);
    free(b.p);
}

/* A FIFO where the model goes: refused, never waited on. */
static void test_fifo(void **state)
{
    char cmd[256];

    (void)state;
    snprintf(cmd, sizeof cmd, "mkfifo '%s'", file_of("fifo.gguf"));
    assert_int_equal(system(cmd), 0);
    refused("fifo.gguf", "not a regular file");
    assert_int_equal(got_of("fifo.gguf")->v.gguf, -1);
    assert_int_equal(got_of("absent.gguf")->rc, F16R_EBADINPUT);
    assert_int_equal(got_of("absent.gguf")->v.gguf, -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes_exact),
        cmocka_unit_test(test_same_vocab),
        cmocka_unit_test(test_each_key_counts),
        cmocka_unit_test(test_big_head),
        cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_fifo),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
