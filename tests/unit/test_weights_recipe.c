/*
 * test_weights_recipe.c - graveyard tensors' recipes (weights/recipe.h)
 * on GGUF files the test writes: kinds, types of both lineages (a row
 * meta type of ik_llama.cpp's, an id neither has), the quantize
 * key-values, two files that differ in one tensor, a bad table refused
 * with the file's name.
 *
 * Tests: weights/recipe.c
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "f16range.h"
#include "recipe.h"
#include "tensors.h"

#define WEIGHTS_PREFIX "recipe"
#include "weights_files.h"

static char *file_of(const char *name)
{
    static char path[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
    return path[k];
}

struct gt {
    const char *name;
    uint64_t d0, d1;
    uint32_t type;
    uint64_t bytes; /* what the tensor takes, to place the next */
};

/* quantize.imatrix.file's value in the files write_gguf writes. */
static const char *imatrix_file = "imatrix.dat";

/* A GGUF v3 file: the quantize key-values (general.file_type u32,
 * general.quantization_version u32, quantize.imatrix.file string
 * (imatrix_file),
 * quantize.imatrix.chunks_count i32 -5, general.name kept too), then the
 * tensors, each on its own 32-byte-aligned bytes, zeros. cut: bytes to
 * drop from the end. */
static void write_gguf(const char *name, const struct gt *t, size_t nt,
                       size_t cut)
{
    static struct bytes b;
    uint64_t off = 0;
    size_t i;
    FILE *f;

    b.n = 0;
    put(&b, "GGUF", 4);
    put_u32(&b, 3);
    put_u64(&b, nt);
    put_u64(&b, 5);
    put_str(&b, "general.name");
    put_u32(&b, 8);
    put_str(&b, "tiny");
    put_str(&b, "general.file_type");
    put_u32(&b, 4);
    put_u32(&b, 7);
    put_str(&b, "general.quantization_version");
    put_u32(&b, 4);
    put_u32(&b, 2);
    put_str(&b, "quantize.imatrix.file");
    put_u32(&b, 8);
    put_str(&b, imatrix_file);
    put_str(&b, "quantize.imatrix.chunks_count");
    put_u32(&b, 5);
    put_u32(&b, (uint32_t)-5);
    for (i = 0; i < nt; i++) {
        put_str(&b, t[i].name);
        put_u32(&b, t[i].d1 ? 2 : 1);
        put_u64(&b, t[i].d0);
        if (t[i].d1)
            put_u64(&b, t[i].d1);
        put_u32(&b, t[i].type);
        put_u64(&b, off);
        off += (t[i].bytes + 31) / 32 * 32;
    }
    while (b.n % 32 != 0)
        b.p[b.n++] = 0;
    assert_true(b.n + off <= sizeof b.p);
    memset(b.p + b.n, 0, (size_t)off);
    b.n += (size_t)off;
    f = fopen(file_of(name), "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b.p, 1, b.n - cut, f), b.n - cut);
    assert_int_equal(fclose(f), 0);
}

static const struct gt base[] = {
    {"token_embd.weight", 64, 4, 8, 4 * 2 * 34},   /* Q8_0 */
    {"blk.0.attn_norm.weight", 64, 0, 0, 256},     /* F32 */
    {"blk.0.attn_v.weight", 64, 2, 2, 2 * 2 * 18}, /* Q4_0 */
    {"blk.1.attn_v.weight", 64, 2, 2, 2 * 2 * 18}, /* Q4_0 */
    {"blk.0.ffn_up.weight", 256, 3, 145, 3 * (2 + 70)}, /* IQ2_KS */
    {"output.weight", 64, 1, 14, 0},               /* Q6_K: bad row */
};

static json_t *kind(json_t *r, const char *k)
{
    size_t i;
    json_t *v;

    json_array_foreach(json_object_get(r, "kinds"), i, v)
        if (strcmp(json_string_value(json_object_get(v, "kind")), k) == 0)
            return v;
    fail_msg("no kind %s", k);
    return NULL;
}

static void test_recipe(void **state)
{
    struct gt t[5];
    json_t *r, *v, *m;
    char msg[512];

    (void)state;
    memcpy(t, base, sizeof t);
    write_gguf("a.gguf", t, 5, 0);
    assert_int_equal(recipe_of(file_of("a.gguf"), &r, msg, sizeof msg),
                     F16R_OK);
    assert_int_equal(json_integer_value(json_object_get(r, "tensors")), 5);
    /* 272 + 256 + 72 + 72 + 216 bytes */
    assert_int_equal(json_integer_value(json_object_get(r, "bytes")), 888);
    v = kind(r, "attn_v");
    assert_int_equal(json_integer_value(json_object_get(v, "bytes")), 144);
    assert_true(json_real_value(json_object_get(v, "bpw")) == 4.5);
    v = kind(r, "ffn_up"); /* ik's row meta: 2 bytes a row */
    assert_int_equal(json_integer_value(json_object_get(v, "bytes")), 216);
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(v, "types"), 0),
                            "type")),
                        "IQ2_KS");
    assert_int_equal(json_integer_value(
                         json_object_get(kind(r, "norms"), "tensors")),
                     1);
    assert_int_equal(json_integer_value(
                         json_object_get(kind(r, "embeddings"), "bytes")),
                     272);
    m = json_object_get(r, "metadata");
    assert_int_equal(json_object_size(m), 5); /* general.name too: init's */
    assert_string_equal(json_string_value(json_object_get(m, "general.name")),
                        "tiny");
    assert_string_equal(
        json_string_value(json_object_get(m, "general.file_type")), "7");
    assert_string_equal(json_string_value(json_object_get(
                            m, "quantize.imatrix.chunks_count")),
                        "-5");
    assert_string_equal(
        json_string_value(json_object_get(m, "quantize.imatrix.file")),
        "imatrix.dat");
    json_decref(r);
}

/* Two files that differ in one tensor: that one, and its bytes. */
static void test_differ_in_one(void **state)
{
    struct gt t[5];
    json_t *r[2], *d, *e;
    char msg[512];

    (void)state;
    memcpy(t, base, sizeof t);
    write_gguf("a.gguf", t, 5, 0);
    t[3].type = 8; /* blk.1.attn_v: Q8_0 */
    t[3].bytes = 2 * 2 * 34;
    write_gguf("b.gguf", t, 5, 0);
    assert_int_equal(recipe_of(file_of("a.gguf"), &r[0], msg, sizeof msg),
                     F16R_OK);
    assert_int_equal(recipe_of(file_of("b.gguf"), &r[1], msg, sizeof msg),
                     F16R_OK);
    d = recipe_diff(r, 2);
    assert_non_null(d);
    assert_int_equal(json_array_size(json_object_get(d, "differ")), 1);
    e = json_array_get(json_object_get(d, "differ"), 0);
    assert_string_equal(json_string_value(json_object_get(e, "tensor")),
                        "blk.1.attn_v.weight");
    assert_string_equal(
        json_string_value(json_array_get(json_object_get(e, "types"), 0)),
        "Q4_0");
    assert_string_equal(
        json_string_value(json_array_get(json_object_get(e, "types"), 1)),
        "Q8_0");
    assert_int_equal(json_integer_value(
                         json_array_get(json_object_get(d, "bytes"), 0)),
                     72);
    assert_int_equal(json_integer_value(
                         json_array_get(json_object_get(d, "bytes"), 1)),
                     136);
    /* the layers of a kind whose type varies */
    e = json_object_get(kind(r[1], "attn_v"), "types");
    assert_int_equal(json_array_size(e), 2);
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(e, 1), "layers")),
                        "1");
    json_decref(d);
    json_decref(r[0]);
    json_decref(r[1]);
}

/* An id in neither lineage: named, its size unknown, never a crash. */
static void test_unknown_type(void **state)
{
    struct gt t[5];
    json_t *r, *tt;
    char msg[512];

    (void)state;
    memcpy(t, base, sizeof t);
    t[2].type = 37;
    write_gguf("u.gguf", t, 5, 0);
    assert_int_equal(recipe_of(file_of("u.gguf"), &r, msg, sizeof msg),
                     F16R_OK);
    assert_true(json_is_null(json_object_get(r, "bytes")));
    assert_true(json_is_null(json_object_get(kind(r, "attn_v"), "bpw")));
    tt = json_array_get(json_object_get(r, "tensor_table"), 2);
    assert_string_equal(json_string_value(json_object_get(tt, "type")),
                        "type 37");
    json_decref(r);
}

/* What recipe_run writes for paths[0..n) (text, or JSON when json), in
 * a buffer of the test's. */
static const char *run_to_text(const char **paths, size_t n, int json)
{
    static char out[1 << 16];
    char msg[512];
    FILE *f = tmpfile();
    size_t len;

    assert_non_null(f);
    assert_int_equal(recipe_run(paths, n, json, f, msg, sizeof msg), F16R_OK);
    rewind(f);
    len = fread(out, 1, sizeof out - 1, f);
    assert_true(len < sizeof out - 1);
    out[len] = '\0';
    fclose(f);
    return out;
}

/* A tensor of a JSON recipe's table by its index. */
static json_t *table_entry(json_t *doc, size_t file, size_t i)
{
    json_t *r = json_array_get(json_object_get(doc, "files"), file);

    return json_array_get(json_object_get(r, "tensor_table"), i);
}

/* Names holding ESC, BEL and bytes that are not UTF-8, an imatrix file
 * name of controls, a C1 control and a stray byte, and a type id neither
 * lineage has: the text shows each by the log lines' rule (\xNN, one
 * line each), a line after a '?' still ends, and --json keeps every name
 * shown by the same rule with its bytes in hex. */
static void test_hostile_names(void **state)
{
    struct gt t[5];
    const char *paths[2], *out, *line;
    json_t *doc, *e, *d;
    json_error_t err;
    size_t i;

    (void)state;
    memcpy(t, base, sizeof t);
    write_gguf("a.gguf", t, 5, 0);
    t[2].name = "blk.0.attn_v.\x1b[31mred\x07";
    t[3].name = "blk.1.attn_v.\xff\xfe";
    t[4].type = 200; /* neither lineage's: its size unknown */
    imatrix_file = "im\x1b]0;x\x07\xc2\x9b\xff.dat";
    write_gguf("h.gguf", t, 5, 0);
    imatrix_file = "imatrix.dat";
    paths[0] = file_of("h.gguf");
    paths[1] = file_of("a.gguf");
    out = run_to_text(paths, 2, 0);
    for (i = 0; out[i]; i++)
        if (out[i] != '\n' && (out[i] < 0x20 || out[i] > 0x7e))
            fail_msg("byte 0x%02x at %zu in: %s", (unsigned char)out[i], i,
                     out);
    assert_null(strstr(out, "(null)"));
    assert_non_null(strstr(out, "blk.0.attn_v.\\x1b[31mred\\x07"));
    assert_non_null(strstr(out, "blk.1.attn_v.\\xff\\xfe"));
    assert_non_null(strstr(out, "type 200"));
    assert_non_null(strstr(out, "quantize.imatrix.file = "
                                "im\\x1b]0;x\\x07\\xc2\\x9b\\xff.dat\n"));
    /* the unknown size's '?' ends its line as a number does */
    assert_non_null(strstr(out, " tensors, ? bytes, ? bits per weight\n"));
    line = strstr(out, "  total ");
    assert_non_null(line);
    assert_true(strchr(line, '\n') < strstr(line, paths[1]));
    assert_non_null(strstr(line, "\n\n"));
    out = run_to_text(paths, 2, 1);
    doc = json_loads(out, 0, &err);
    if (doc == NULL)
        fail_msg("not JSON (%s): %s", err.text, out);
    e = table_entry(doc, 0, 2);
    assert_string_equal(json_string_value(json_object_get(e, "name")),
                        "blk.0.attn_v.\\x1b[31mred\\x07");
    assert_string_equal(json_string_value(json_object_get(e, "name_hex")),
                        "626c6b2e302e6174746e5f762e1b5b33316d726564"
                        "07");
    e = table_entry(doc, 0, 3);
    assert_string_equal(json_string_value(json_object_get(e, "name")),
                        "blk.1.attn_v.\\xff\\xfe");
    assert_string_equal(json_string_value(json_object_get(e, "name_hex")),
                        "626c6b2e312e6174746e5f762efffe");
    /* a name that is its own shown text has no hex */
    assert_null(json_object_get(table_entry(doc, 0, 0), "name_hex"));
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(json_array_get(json_object_get(doc, "files"), 0),
                            "metadata"),
            "quantize.imatrix.file")),
        "im\\x1b]0;x\\x07\\xc2\\x9b\\xff.dat");
    /* each hostile name differs from a.gguf's, named in the differences */
    d = json_object_get(json_object_get(doc, "differences"), "differ");
    assert_true(json_array_size(d) >= 3);
    json_array_foreach(d, i, e)
        assert_non_null(json_string_value(json_object_get(e, "tensor")));
    json_decref(doc);
}

static void test_kinds(void **state)
{
    static const struct {
        const char *name;
        const char *kind;
        long layer;
    } c[] = {
        {"blk.12.attn_q.weight", "attn_q", 12},
        {"blk.0.attn_k.bias", "attn_k", 0},
        {"blk.3.attn_output.weight", "attn_o", 3},
        {"blk.3.attn_q_norm.weight", "norms", 3},
        {"blk.7.ffn_gate_exps.weight", "ffn_gate", 7},
        {"blk.7.ffn_down_shexp.weight", "ffn_down", 7},
        {"blk.7.ffn_up.weight", "ffn_up", 7},
        {"blk.1.attn_qkv.weight", "other", 1},
        {"token_embd.weight", "embeddings", -1},
        {"output.weight", "output", -1},
        {"output_norm.weight", "norms", -1},
        {"rope_freqs.weight", "other", -1},
        {"blk.x.attn_q.weight", "other", -1},
    };
    size_t i;
    long layer;

    (void)state;
    for (i = 0; i < sizeof c / sizeof *c; i++) {
        int k = recipe_kind(c[i].name, &layer);
        assert_string_equal(recipe_kinds[k], c[i].kind);
        assert_int_equal(layer, c[i].layer);
    }
}

/* A bad table: one line naming the file; a row that is not whole blocks
 * of its type; a truncated file. */
static void test_bad(void **state)
{
    struct gt t[6];
    char msg[512], *p;
    const char *paths[2];
    FILE *devnull = fopen("/dev/null", "w");

    (void)state;
    assert_non_null(devnull);
    memcpy(t, base, sizeof t);
    write_gguf("rows.gguf", t, 6, 0);
    p = file_of("rows.gguf");
    paths[0] = p;
    assert_int_equal(recipe_run(paths, 1, 0, devnull, msg, sizeof msg),
                     F16R_EBADINPUT);
    assert_non_null(strstr(msg, p));
    assert_non_null(strstr(msg, "not whole blocks"));
    assert_null(strchr(msg, '\n'));
    write_gguf("cut.gguf", t, 5, 40);
    p = file_of("cut.gguf");
    paths[1] = p;
    paths[0] = file_of("rows.gguf");
    assert_int_equal(recipe_run(paths + 1, 1, 1, devnull, msg, sizeof msg),
                     F16R_EBADINPUT);
    assert_non_null(strstr(msg, p));
    assert_non_null(strstr(msg, "truncated"));
    fclose(devnull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recipe),
        cmocka_unit_test(test_differ_in_one),
        cmocka_unit_test(test_unknown_type),
        cmocka_unit_test(test_hostile_names),
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_bad),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
