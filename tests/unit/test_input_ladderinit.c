/*
 * test_input_ladderinit.c - graveyard init's ladder from a folder's files,
 * given by hand: ordered by bits per weight, the reference the highest,
 * rung names from the type (or what the file names do not share), one
 * file of a type in the chain and the rest beside it; and general.
 * file_type's names of both lineages.
 * Tests: orchestrator/input/ladderinit.c
 */
#include "helpers.h"

#include "../../orchestrator/input/ladderinit.h"

static void add(struct init_plan *p, const char *path, const char *type,
                const char *general, double bpw, unsigned long long bytes)
{
    struct init_file *f = &p->f[p->n++];

    memset(f, 0, sizeof(*f));
    snprintf(f->path, sizeof(f->path), "%s", path);
    snprintf(f->type, sizeof(f->type), "%s", type);
    snprintf(f->general, sizeof(f->general), "%s", general);
    f->bpw = bpw;
    f->bytes = bytes;
    f->parts = 1;
}

/* A study-shaped folder, read in path order: ordered by bits, the
 * reference BF16 (F16 has its bits but fewer bytes? no: the same bits
 * and bytes, so the path decides), the QAT Q4_0 beside the plain one
 * because its general.name is not the reference's. */
static void test_study_folder(void **state)
{
    static struct init_plan p;
    char msg[256];

    (void)state;
    memset(&p, 0, sizeof(p));
    add(&p, "/m/gemma-4-e2b-it-Q2_K.gguf", "Q2_K", "Gemma 4 E2B", 3.2, 2);
    add(&p, "/m/gemma-4-e2b-it-Q4_0.gguf", "Q4_0", "Gemma 4 E2B", 4.6, 4);
    add(&p, "/m/gemma-4-e2b-it-qat-q4_0.gguf", "Q4_0", "Gemma 4 E2B QAT", 4.6,
        5);
    add(&p, "/m/gemma-4-e2b-it-BF16.gguf", "BF16", "Gemma 4 E2B", 16, 9);
    add(&p, "/m/gemma-4-e2b-it-F16.gguf", "F16", "Gemma 4 E2B", 16, 9);
    add(&p, "/m/gemma-4-e2b-it-Q8_0.gguf", "Q8_0", "Gemma 4 E2B", 8.5, 7);
    assert_int_equal(init_order(&p, msg, sizeof(msg)), 0);
    assert_string_equal(p.f[0].name, "BF16"); /* "BF16" < "F16" by path */
    assert_int_equal(p.ref, 0);
    assert_string_equal(p.f[1].name, "F16");
    assert_string_equal(p.f[2].name, "Q8_0");
    /* same bits: the larger file first */
    assert_string_equal(p.f[3].name, "qat-q4_0");
    assert_true(p.f[3].side);
    assert_string_equal(p.f[4].name, "Q4_0");
    assert_false(p.f[4].side);
    assert_string_equal(p.f[5].name, "Q2_K");
}

/* No general.name: of one type, the first by path is the chain's. Files
 * no type word names get what their names do not share. */
static void test_names_without_types(void **state)
{
    static struct init_plan p;
    char msg[256];

    (void)state;
    memset(&p, 0, sizeof(p));
    add(&p, "/m/llama-big.gguf", "", "", 16, 10);
    add(&p, "/m/llama-small.gguf", "", "", 4, 3);
    add(&p, "/m/llama-b-Q4_0.gguf", "Q4_0", "", 4.5, 4);
    add(&p, "/m/llama-a-Q4_0.gguf", "Q4_0", "", 4.5, 4);
    assert_int_equal(init_order(&p, msg, sizeof(msg)), 0);
    assert_string_equal(p.f[0].name, "big");
    assert_string_equal(p.f[1].name, "a-Q4_0");
    assert_false(p.f[1].side);
    assert_string_equal(p.f[2].name, "b-Q4_0");
    assert_true(p.f[2].side);
    assert_string_equal(p.f[3].name, "small");
}

/* Another file of the reference's own type is beside it; names that
 * would clash are made unique; a name no rung may have is replaced. */
static void test_reference_type_and_clashes(void **state)
{
    static struct init_plan p;
    char msg[256];

    (void)state;
    memset(&p, 0, sizeof(p));
    add(&p, "/m/x/BF16.gguf", "BF16", "M", 16, 9);
    add(&p, "/m/y/BF16.gguf", "BF16", "M", 16, 8);
    add(&p, "/m/---.gguf", "", "", 2, 1);
    assert_int_equal(init_order(&p, msg, sizeof(msg)), 0);
    assert_false(p.f[0].side);
    assert_true(p.f[1].side);
    assert_string_not_equal(p.f[0].name, p.f[1].name);
    assert_string_equal(p.f[2].name, "R3");
}

/* The config init writes: the chain, the side rungs, a comment each. */
static void test_config(void **state)
{
    static struct init_plan p;
    char msg[256];
    json_t *c;

    (void)state;
    memset(&p, 0, sizeof(p));
    add(&p, "/m/a-Q4_0.gguf", "Q4_0", "", 4.5, 4000000000ULL);
    add(&p, "/m/a-BF16.gguf", "BF16", "", 16, 9000000000ULL);
    add(&p, "/m/a-qat-Q4_0.gguf", "Q4_0", "", 4.5, 4000000000ULL);
    assert_int_equal(init_order(&p, msg, sizeof(msg)), 0);
    c = init_config(&p, "a", "/q.jsonl", "runs/a", "llama-server", "/m");
    assert_string_equal(json_string_value(json_object_get(c, "reference")),
                        "BF16");
    assert_int_equal(json_array_size(json_object_get(c, "rungs")), 2);
    assert_int_equal(json_array_size(json_object_get(c, "side_rungs")), 1);
    assert_non_null(strstr(
        json_string_value(json_object_get(
            json_array_get(json_object_get(c, "rungs"), 1), "_comment")),
        "Q4_0, 4.50 bits per weight, 4.0 GB"));
    /* the two Q4_0 files are a duel, the chain's first */
    assert_int_equal(json_array_size(json_object_get(c, "duels")), 1);
    assert_string_equal(
        json_string_value(
            json_array_get(json_array_get(json_object_get(c, "duels"), 0), 0)),
        json_string_value(json_object_get(
            json_array_get(json_object_get(c, "rungs"), 1), "name")));
    assert_string_equal(
        json_string_value(
            json_array_get(json_array_get(json_object_get(c, "duels"), 0), 1)),
        json_string_value(json_object_get(
            json_array_get(json_object_get(c, "side_rungs"), 0), "name")));
    json_decref(c);
    /* no type twice: no duels */
    memset(&p, 0, sizeof(p));
    add(&p, "/m/a-Q4_0.gguf", "Q4_0", "", 4.5, 4000000000ULL);
    add(&p, "/m/a-BF16.gguf", "BF16", "", 16, 9000000000ULL);
    assert_int_equal(init_order(&p, msg, sizeof(msg)), 0);
    c = init_config(&p, "a", "/q.jsonl", "runs/a", "llama-server", "/m");
    assert_null(json_object_get(c, "duels"));
    json_decref(c);
}

static void test_ftype_names(void **state)
{
    (void)state;
    assert_string_equal(init_ftype_name(15), "Q4_K_M");
    assert_string_equal(init_ftype_name(32), "BF16");
    assert_string_equal(init_ftype_name(140), "IQ4_K"); /* ik_llama.cpp */
    assert_null(init_ftype_name(4)); /* removed: Q4_1_SOME_F16 */
    assert_null(init_ftype_name(1024));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_study_folder),
        cmocka_unit_test(test_names_without_types),
        cmocka_unit_test(test_reference_type_and_clashes),
        cmocka_unit_test(test_config),
        cmocka_unit_test(test_ftype_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
