/*
 * test_weights_tables.c - f16-range end to end on files the test writes
 * (weights/f16range.h, tensors.h): safetensors files, folders, sharded
 * checkpoints and GGUF files, then every bad input docs/f16-range.md
 * lists, each refused with one line that names the file.
 *
 * Tests: weights/tensors.c
 * Tests: weights/safetensors.c
 * Tests: weights/gguf.c
 * Tests: weights/f16range.c
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "f16range.h"
#include "tensors.h"

#define WEIGHTS_PREFIX "weights"
#include "weights_files.h"

static void pad_to(struct bytes *b, size_t align)
{
    while (b->n % align != 0)
        b->p[b->n++] = 0;
}

static char *file_of(const char *name)
{
    static char path[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
    return path[k];
}

static void write_file(const char *name, const void *p, size_t n)
{
    FILE *f = fopen(file_of(name), "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* A safetensors file: header JSON as given, then data. */
static void write_st(const char *name, const char *header, const void *data,
                     size_t n)
{
    static struct bytes b;
    b.n = 0;
    put_u64(&b, strlen(header));
    put(&b, header, strlen(header));
    put(&b, data, n);
    write_file(name, b.p, b.n);
}

static uint16_t bf(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}

/* ---- running ------------------------------------------------------- */

struct result {
    int rc;
    char msg[1024];
    char out[8192];
    struct f16range_total tot;
};

static struct result *run(const char *path)
{
    static struct result r;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    assert_non_null(f);
    memset(&r, 0, sizeof r);
    r.rc = f16range_run(path, f, NULL, NULL, &r.tot, r.msg, sizeof r.msg);
    assert_int_equal(fclose(f), 0);
    snprintf(r.out, sizeof r.out, "%s", text ? text : "");
    free(text);
    return &r;
}

/* A bad input: F16R_EBADINPUT (exit 2), one line naming the file and
 * saying what. */
static void refused(const char *path, const char *what)
{
    struct result *r = run(path);
    if (r->rc != F16R_EBADINPUT || strstr(r->msg, what) == NULL ||
        strchr(r->msg, '\n') != NULL)
        fail_msg("%s: rc %d, msg '%s', want '%s'", path, r->rc, r->msg, what);
    if (strstr(r->msg, dir) == NULL)
        fail_msg("message does not name the file: %s", r->msg);
}

/* ---- safetensors --------------------------------------------------- */

static void test_st_lines(void **state)
{
    uint16_t w[4] = {bf(65536.0f), bf(0x1p-25f), bf(0x1p-24f), bf(-0.5f)};
    float x[2] = {0.25f, -900.0f};
    unsigned char data[8 + 8 + 8];
    struct result *r;

    (void)state;
    memcpy(data, x, 8);          /* F32 first in the file */
    memcpy(data + 8, w, 8);      /* then BF16 */
    memset(data + 16, 7, 8);     /* an I64 */
    write_st("a.safetensors",
             "{\"__metadata__\":{\"format\":\"pt\"},"
             "\"z.bf16\":{\"dtype\":\"BF16\",\"shape\":[2,2],"
             "\"data_offsets\":[8,16]},"
             "\"ids\":{\"dtype\":\"I64\",\"shape\":[1],"
             "\"data_offsets\":[16,24]},"
             "\"a.f32\":{\"dtype\":\"F32\",\"shape\":[2],"
             "\"data_offsets\":[0,8]}}",
             data, sizeof data);
    r = run(file_of("a.safetensors"));
    assert_int_equal(r->rc, F16R_OK);
    /* file order, not name order; the study's fields, then ours */
    assert_string_equal(
        r->out,
        "{\"tensor\": \"a.f32\", \"n\": 2, \"overflow\": 0, \"underflow\": 0, "
        "\"subnormal\": 0, \"absmax\": 900.0, \"nonfinite\": 0, "
        "\"dtype\": \"F32\"}\n"
        "{\"tensor\": \"z.bf16\", \"n\": 4, \"overflow\": 1, \"underflow\": "
        "1, \"subnormal\": 1, \"absmax\": 65536.0, \"nonfinite\": 0, "
        "\"dtype\": \"BF16\"}\n"
        "{\"tensor\": \"TOTAL\", \"tensors\": 2, \"n\": 6, \"overflow\": 1, "
        "\"underflow\": 1, \"subnormal\": 1, \"absmax\": 65536.0, "
        "\"nonfinite\": 0, \"skipped\": [{\"tensor\": \"ids\", \"dtype\": "
        "\"I64\"}]}\n");
    assert_int_equal(r->tot.tensors, 2);
    assert_int_equal(r->tot.skipped, 1);
}

static void test_st_folder_and_shards(void **state)
{
    uint16_t w[2] = {bf(1.0f), bf(0x1p-30f)};
    char sub[200];
    struct result *r;

    (void)state;
    snprintf(sub, sizeof sub, "%s/ckpt", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    write_st("ckpt/model.safetensors",
             "{\"w\":{\"dtype\":\"BF16\",\"shape\":[2],"
             "\"data_offsets\":[0,4]}}",
             w, 4);
    r = run(sub);
    assert_int_equal(r->rc, F16R_OK);
    assert_non_null(strstr(r->out, "\"tensor\": \"w\""));
    assert_int_equal(r->tot.c.underflow, 1);
    /* an index wins over model.safetensors; shards in name order */
    write_st("ckpt/model-00002-of-00002.safetensors",
             "{\"b\":{\"dtype\":\"BF16\",\"shape\":[2],"
             "\"data_offsets\":[0,4]}}",
             w, 4);
    write_st("ckpt/model-00001-of-00002.safetensors",
             "{\"a\":{\"dtype\":\"BF16\",\"shape\":[1],"
             "\"data_offsets\":[0,2]}}",
             w, 2);
    write_file("ckpt/model.safetensors.index.json",
               "{\"metadata\":{},\"weight_map\":{"
               "\"b\":\"model-00002-of-00002.safetensors\","
               "\"a\":\"model-00001-of-00002.safetensors\"}}",
               strlen("{\"metadata\":{},\"weight_map\":{"
                      "\"b\":\"model-00002-of-00002.safetensors\","
                      "\"a\":\"model-00001-of-00002.safetensors\"}}"));
    r = run(sub);
    assert_int_equal(r->rc, F16R_OK);
    assert_true(strstr(r->out, "\"a\"") < strstr(r->out, "\"b\""));
    assert_int_equal(r->tot.tensors, 2);
    assert_int_equal(r->tot.c.n, 3);
    assert_int_equal(r->tot.c.underflow, 1);
}

static void test_st_bad(void **state)
{
    unsigned char z[16] = {0};
    struct bytes b;

    (void)state;
    write_file("short.safetensors", z, 5);
    refused(file_of("short.safetensors"), "shorter than the 8-byte header");
    b.n = 0;
    put_u64(&b, 1000);
    put(&b, "{}", 2);
    write_file("hlen.safetensors", b.p, b.n);
    refused(file_of("hlen.safetensors"), "runs past the end of the file");
    write_st("array.safetensors", "[1,2]", z, 0);
    refused(file_of("array.safetensors"), "not a JSON object");
    write_st("junk.safetensors", "{\"a\":", z, 0);
    refused(file_of("junk.safetensors"), "not a JSON object");
    write_st("past.safetensors",
             "{\"w\":{\"dtype\":\"BF16\",\"shape\":[8],"
             "\"data_offsets\":[0,16]}}",
             z, 8);
    refused(file_of("past.safetensors"), "past the end of the file");
    write_st("size.safetensors",
             "{\"w\":{\"dtype\":\"F32\",\"shape\":[3],"
             "\"data_offsets\":[0,8]}}",
             z, 8);
    refused(file_of("size.safetensors"), "F32 x 3 elements is 12 bytes");
    write_st("dtype.safetensors",
             "{\"w\":{\"dtype\":\"Q4\",\"shape\":[1],"
             "\"data_offsets\":[0,1]}}",
             z, 1);
    refused(file_of("dtype.safetensors"), "unknown dtype 'Q4'");
    write_st("shape.safetensors",
             "{\"w\":{\"dtype\":\"BF16\",\"shape\":[-1],"
             "\"data_offsets\":[0,2]}}",
             z, 2);
    refused(file_of("shape.safetensors"), "shape");
    write_st("huge.safetensors",
             "{\"w\":{\"dtype\":\"BF16\",\"shape\":[4294967296,4294967296],"
             "\"data_offsets\":[0,2]}}",
             z, 2);
    refused(file_of("huge.safetensors"), "overflows");
    write_st("overlap.safetensors",
             "{\"a\":{\"dtype\":\"BF16\",\"shape\":[4],"
             "\"data_offsets\":[0,8]},"
             "\"b\":{\"dtype\":\"BF16\",\"shape\":[2],"
             "\"data_offsets\":[4,8]}}",
             z, 8);
    refused(file_of("overlap.safetensors"), "overlap");
    write_st("dup.safetensors",
             "{\"a\":{\"dtype\":\"BF16\",\"shape\":[1],"
             "\"data_offsets\":[0,2]},"
             "\"a\":{\"dtype\":\"BF16\",\"shape\":[1],"
             "\"data_offsets\":[2,4]}}",
             z, 4);
    refused(file_of("dup.safetensors"), "not a JSON object");
    /* what a message quotes from the file stays on one line: a name
     * with a newline in it, a bad escape jansson quotes (fuzz_safetensors
     * found the second) */
    write_st("nl-name.safetensors",
             "{\"a\\nb\":{\"dtype\":\"Q4\",\"shape\":[1],"
             "\"data_offsets\":[0,1]}}",
             z, 1);
    refused(file_of("nl-name.safetensors"), "tensor 'a?b' has unknown dtype");
    write_st("nl-escape.safetensors", "{\"sp\\\n\x01p\":1}", z, 0);
    refused(file_of("nl-escape.safetensors"), "not a JSON object");
    {
        /* the reader itself, as the fuzzer calls it */
        static const char h[] = "{\"sp\\\n\x01p\":1}";
        unsigned char buf[64];
        struct wtable t;
        char m[256];
        uint64_t n = sizeof h - 1;
        memcpy(buf, &n, 8);
        memcpy(buf + 8, h, n);
        assert_int_equal(safetensors_parse(buf, 8 + n, 8 + n, &t, m, sizeof m),
                         -1);
        if (strpbrk(m, "\n\x01") != NULL)
            fail_msg("two lines: %s", m);
    }
    refused(file_of("nothing-here.safetensors"), "No such file");
    refused(dir, "neither model.safetensors");
}

static void test_index_bad(void **state)
{
    uint16_t w[1] = {0};
    char sub[200];
    const char *idx = "{\"weight_map\":{\"a\":\"one.safetensors\","
                      "\"b\":\"two.safetensors\"}}";

    (void)state;
    snprintf(sub, sizeof sub, "%s/sharded", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    write_file("sharded/model.safetensors.index.json", idx, strlen(idx));
    write_st("sharded/one.safetensors",
             "{\"a\":{\"dtype\":\"BF16\",\"shape\":[1],"
             "\"data_offsets\":[0,2]}}",
             w, 2);
    refused(sub, "names shard 'two.safetensors', which is missing");
    write_st("sharded/two.safetensors",
             "{\"c\":{\"dtype\":\"BF16\",\"shape\":[1],"
             "\"data_offsets\":[0,2]}}",
             w, 2);
    refused(sub, "holds tensor 'c', which the index does not put there");
    idx = "{\"weight_map\":{\"a\":\"../one.safetensors\"}}";
    write_file("sharded/model.safetensors.index.json", idx, strlen(idx));
    refused(sub, "not a file name in this folder");
    idx = "{\"metadata\":{}}";
    write_file("sharded/model.safetensors.index.json", idx, strlen(idx));
    refused(sub, "no \"weight_map\"");
}

/* ---- GGUF ---------------------------------------------------------- */

struct gt {
    const char *name;
    uint32_t ndims;
    uint64_t dims[5];
    uint32_t type;
    uint64_t off;
};

/* A GGUF v3 file with two key-values (a string array and the
 * alignment), the tensors given, and data bytes. */
static void write_gguf(const char *name, uint32_t version, const struct gt *t,
                       size_t nt, const void *data, size_t n)
{
    static struct bytes b;
    size_t i, j;

    b.n = 0;
    put(&b, "GGUF", 4);
    put_u32(&b, version);
    put_u64(&b, nt);
    put_u64(&b, 2);
    put_str(&b, "tokenizer.ggml.tokens");
    put_u32(&b, 9); /* array */
    put_u32(&b, 8); /* of strings */
    put_u64(&b, 2);
    put_str(&b, "<s>");
    put_str(&b, "</s>");
    put_str(&b, "general.alignment");
    put_u32(&b, 4);
    put_u32(&b, 32);
    for (i = 0; i < nt; i++) {
        put_str(&b, t[i].name);
        put_u32(&b, t[i].ndims);
        for (j = 0; j < t[i].ndims; j++)
            put_u64(&b, t[i].dims[j]);
        put_u32(&b, t[i].type);
        put_u64(&b, t[i].off);
    }
    pad_to(&b, 32);
    put(&b, data, n);
    write_file(name, b.p, b.n);
}

static void test_gguf_lines(void **state)
{
    unsigned char data[128] = {0};
    uint16_t w[4] = {bf(70000.0f), 0, 0, 0};
    float x[4] = {1.0f, 0x1p-26f, 0, 0};
    struct gt t[] = {
        {"blk.0.ffn.weight", 2, {2, 2}, 30, 0},  /* BF16 */
        {"token_embd.weight", 1, {4}, 0, 32},    /* F32 */
        {"blk.0.attn_q.weight", 1, {32}, 8, 64}, /* Q8_0: skipped */
        {"ik.weight", 1, {7}, 37, 96},           /* in neither lineage */
    };
    struct result *r;

    (void)state;
    memcpy(data, w, 8);
    memcpy(data + 32, x, 16);
    write_gguf("m.gguf", 3, t, 4, data, sizeof data);
    r = run(file_of("m.gguf"));
    if (r->rc != F16R_OK)
        fail_msg("%s", r->msg);
    assert_int_equal(r->tot.tensors, 2);
    assert_int_equal(r->tot.c.overflow, 1);
    assert_int_equal(r->tot.c.underflow, 1);
    assert_non_null(strstr(r->out, "\"skipped\": [{\"tensor\": "
                                    "\"blk.0.attn_q.weight\", \"dtype\": "
                                    "\"Q8_0\"}"));
    assert_non_null(strstr(r->out, "\"dtype\": \"type 37\""));
    assert_true(strstr(r->out, "blk.0.ffn") < strstr(r->out, "token_embd"));
    write_gguf("v2.gguf", 2, t, 2, data, sizeof data);
    assert_int_equal(run(file_of("v2.gguf"))->rc, F16R_OK);
}

static void test_gguf_bad(void **state)
{
    unsigned char data[64] = {0};
    struct gt ok = {"w", 1, {4}, 0, 0};
    struct gt t;

    (void)state;
    write_file("magic.gguf", "GGUG\3\0\0\0", 8);
    refused(file_of("magic.gguf"), "not a GGUF");
    write_gguf("v1.gguf", 1, &ok, 1, data, 16);
    refused(file_of("v1.gguf"), "version 1 is not supported");
    write_gguf("v9.gguf", 9, &ok, 1, data, 16);
    refused(file_of("v9.gguf"), "bad GGUF version 9");
    write_gguf("be.gguf", 0x03000000u, &ok, 1, data, 16);
    refused(file_of("be.gguf"), "big-endian");
    write_file("cut.gguf", "GGUF\3\0\0\0\1\0\0\0\0\0\0\0\1", 17);
    refused(file_of("cut.gguf"), "runs past the end of the file");
    t = ok;
    t.off = 64;
    write_gguf("past.gguf", 3, &t, 1, data, 16);
    refused(file_of("past.gguf"), "run past the end of the file");
    t = ok;
    t.ndims = 5;
    write_gguf("dims.gguf", 3, &t, 1, data, 16);
    refused(file_of("dims.gguf"), "5 dimensions");
    t = ok;
    t.off = 4;
    write_gguf("align.gguf", 3, &t, 1, data, 64);
    refused(file_of("align.gguf"), "not a multiple of the alignment");
    t = ok;
    t.type = 8; /* Q8_0 rows are blocks of 32 */
    write_gguf("block.gguf", 3, &t, 1, data, 64);
    refused(file_of("block.gguf"), "not whole blocks");
    {
        struct gt two[2] = {ok, ok};
        write_gguf("dup.gguf", 3, two, 2, data, 64);
        refused(file_of("dup.gguf"), "names 'w' twice");
        two[1].name = "v";
        two[1].off = 0;
        two[1].dims[0] = 2;
        write_gguf("overlap.gguf", 3, two, 2, data, 64);
        refused(file_of("overlap.gguf"), "overlap");
    }
    {
        /* a tensor count the file cannot hold */
        struct bytes b;
        b.n = 0;
        put(&b, "GGUF", 4);
        put_u32(&b, 3);
        put_u64(&b, 1000);
        put_u64(&b, 0);
        write_file("count.gguf", b.p, b.n);
        refused(file_of("count.gguf"), "cannot fit in the file");
        /* an array of arrays */
        b.n = 0;
        put(&b, "GGUF", 4);
        put_u32(&b, 3);
        put_u64(&b, 0);
        put_u64(&b, 1);
        put_str(&b, "k");
        put_u32(&b, 9);
        put_u32(&b, 9);
        put_u64(&b, 1);
        write_file("nested.gguf", b.p, b.n);
        refused(file_of("nested.gguf"), "array element type 9");
    }
}

/* Key-values longer than the first read (1 MiB): the reader asks for
 * more and gets there; cut short, the same file is refused. */
static void test_gguf_long_table(void **state)
{
    static struct bytes b;
    const size_t big = 3u << 20;
    char *pad = malloc(big);
    float x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    FILE *f;
    struct result *r;

    (void)state;
    assert_non_null(pad);
    memset(pad, 'x', big);
    b.n = 0;
    put(&b, "GGUF", 4);
    put_u32(&b, 3);
    put_u64(&b, 1);
    put_u64(&b, 1);
    put_str(&b, "big");
    put_u32(&b, 8);
    put_u64(&b, big);
    f = fopen(file_of("long.gguf"), "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b.p, 1, b.n, f), b.n);
    assert_int_equal(fwrite(pad, 1, big, f), big);
    b.n = (b.n + big) % 32; /* where the table starts, mod the alignment */
    {
        size_t start = b.n;
        put_str(&b, "w");
        put_u32(&b, 1);
        put_u64(&b, 8);
        put_u32(&b, 0);
        put_u64(&b, 0);
        pad_to(&b, 32);
        put(&b, x, sizeof x);
        assert_int_equal(fwrite(b.p + start, 1, b.n - start, f),
                         b.n - start);
    }
    assert_int_equal(fclose(f), 0);
    r = run(file_of("long.gguf"));
    if (r->rc != F16R_OK)
        fail_msg("%s", r->msg);
    assert_int_equal(r->tot.tensors, 1);
    assert_int_equal(r->tot.c.n, 8);
    assert_int_equal(truncate(file_of("long.gguf"), 2u << 20), 0);
    refused(file_of("long.gguf"), "runs past the end of the file");
    free(pad);
}

/* weights' convention is the grader's: 0, or a negative code from the
 * one table, each with a name and a fallback message; a missing file is
 * bad input, with the file named in msg. */
static void test_error_codes(void **state)
{
    struct result *r;

    (void)state;
    assert_true(F16R_EIO < 0);
    assert_true(F16R_EBADINPUT < 0);
    assert_true(F16R_EIO != F16R_EBADINPUT);
    assert_string_equal(f16r_err_name(F16R_OK), "OK");
    assert_string_equal(f16r_err_name(F16R_EIO), "IO");
    assert_string_equal(f16r_err_name(F16R_EBADINPUT), "BADINPUT");
    assert_string_equal(f16r_err_name(7), "UNKNOWN");
    assert_string_equal(f16r_strerror(F16R_EIO), "a read or a write failed");
    assert_string_equal(f16r_strerror(-1), "unknown error");
    r = run(file_of("absent.safetensors"));
    assert_int_equal(r->rc, F16R_EBADINPUT);
    assert_non_null(strstr(r->msg, "absent.safetensors"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_st_lines),
        cmocka_unit_test(test_st_folder_and_shards),
        cmocka_unit_test(test_st_bad),
        cmocka_unit_test(test_index_bad),
        cmocka_unit_test(test_gguf_lines),
        cmocka_unit_test(test_gguf_bad),
        cmocka_unit_test(test_gguf_long_table),
        cmocka_unit_test(test_error_codes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
