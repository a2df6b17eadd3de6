/*
 * test_rundir_meta.c - bytes and GPU figures from rows/<RUNG>.done and
 * ladder.tsv (read by ladderfile.h, the one reader of it), and .done's
 * writer read back by its reader.
 *
 * Tests: rundir/meta.c
 * Tests: rundir/done.c
 */
#include "helpers.h"

#include <errno.h>

#include "done.h" /* rundir/ */
#include "meta.h"

static char rows[128];

static void setup_files(const char *done, const char *tsv)
{
    char path[512];

    tmpdir_remove(test_dir);
    tmpdir_make(test_dir, sizeof(test_dir));
    snprintf(rows, sizeof(rows), "%s/rows", test_dir);
    assert_int_equal(mkdir(rows, 0755), 0);
    if (done)
        write_file(rows, "Q4_0.done", done, path, sizeof(path));
    if (tsv)
        write_file(test_dir, "ladder.tsv", tsv, path, sizeof(path));
}

static void test_nothing_known(void **state)
{
    struct grader_meta m;
    char msg[512];

    (void)state;
    setup_files(NULL, NULL);
    assert_int_equal(rundir_meta_read(test_dir, "Q4_0", &m, msg, sizeof(msg)), 0);
    assert_true(m.bytes == -1 && m.gpu_mib_loaded == -1 &&
                m.gpu_mib_before == -1);
}

static void test_done_first_then_tsv(void **state)
{
    struct grader_meta m;
    char msg[512];

    (void)state;
    setup_files("{\"bytes\": 5, \"gpu_mib_loaded\": 1639, "
                "\"gpu_mib_before\": 0}\n",
                "rung\tfile\tbytes\tsha256\nQ4_0\t/m/q.gguf\t3360161216\tabababababababababababababababababababababababababababababababab\n");
    assert_int_equal(rundir_meta_read(test_dir, "Q4_0", &m, msg, sizeof(msg)), 0);
    assert_true(m.bytes == 5);
    assert_true(m.gpu_mib_loaded == 1639);
    assert_true(m.gpu_mib_before == 0);
    setup_files("{\"n\": 250}\n",
                "rung\tfile\tbytes\tsha256\nQ4_0X\t/m/x\t1\tabababababababababababababababababababababababababababababababab\n"
                "Q4_0\t/m/q.gguf\t3360161216\tabababababababababababababababababababababababababababababababab\n");
    assert_int_equal(rundir_meta_read(test_dir, "Q4_0", &m, msg, sizeof(msg)), 0);
    assert_true(m.bytes == 3360161216LL);
    assert_true(m.gpu_mib_loaded == -1);
    assert_string_equal(m.sha256, "abababababababababababababababababababab"
                                  "abababababababababababab");
}

static void test_bad_files(void **state)
{
    struct grader_meta m;
    char msg[512];

    (void)state;
    setup_files("{\"bytes\": ", NULL);
    assert_int_equal(rundir_meta_read(test_dir, "Q4_0", &m, msg, sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "Q4_0.done"));
    setup_files("{\"gpu_mib_loaded\": \"lots\"}", NULL);
    assert_int_equal(rundir_meta_read(test_dir, "Q4_0", &m, msg, sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "gpu_mib_loaded"));
    setup_files(NULL, "rung\tfile\tbytes\tsha256\nQ4_0\t/m/q\t12x\tabababababababababababababababababababababababababababababababab\n");
    assert_int_equal(rundir_meta_read(test_dir, "Q4_0", &m, msg, sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "ladder.tsv:2:"));
}

/* A rung's summary printed again on resume: read as any run-folder file
 * and found to be this rung's, or refused with the file named. */
static void test_done_strict(void **state)
{
    static const char good[] = "{\"rung\": \"Q4_0\", \"n\": 4, \"right\": 3, "
                               "\"errors\": 0, \"truncated\": 1}\n";
    char path[512], msg[512], *text = NULL, *big;
    json_t *o = NULL;

    (void)state;
    setup_files(good, NULL); /* each setup makes a new folder */
    snprintf(path, sizeof(path), "%s/Q4_0.done", rows);
    assert_int_equal(rundir_done_load(path, "Q4_0", &text, &o, msg,
                                      sizeof(msg)),
                     0);
    assert_string_equal(text, good);
    assert_int_equal(json_integer_value(json_object_get(o, "right")), 3);
    free(text);
    json_decref(o);
    assert_int_equal(rundir_done_load(path, "Q8_0", NULL, NULL, msg,
                                      sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "not the summary of rung 'Q8_0'"));
    setup_files("{\"rung\": \"Q4_0\", \"n\": 4}\n", NULL);
    snprintf(path, sizeof(path), "%s/Q4_0.done", rows);
    assert_int_equal(rundir_done_load(path, "Q4_0", NULL, NULL, msg,
                                      sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "\"right\" must be"));
    setup_files("{\"rung\": \"Q4_0\"}\n\"x\"\n", NULL);
    snprintf(path, sizeof(path), "%s/Q4_0.done", rows);
    assert_int_equal(rundir_done_load(path, "Q4_0", NULL, NULL, msg,
                                      sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "not one line"));
    big = malloc(RUNDIR_DONE_MAX + 10);
    memset(big, ' ', RUNDIR_DONE_MAX + 8);
    memcpy(big, good, strlen(good) - 1);
    big[RUNDIR_DONE_MAX + 8] = '\0';
    setup_files(big, NULL);
    snprintf(path, sizeof(path), "%s/Q4_0.done", rows);
    free(big);
    assert_int_equal(rundir_done_load(path, NULL, NULL, NULL, msg,
                                      sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "over 65536 bytes"));
    assert_int_equal(errno, EINVAL);
    setup_files(NULL, NULL);
    snprintf(path, sizeof(path), "%s/Q4_0.done", rows);
    assert_int_equal(rundir_done_load(path, "Q4_0", NULL, NULL, msg,
                                      sizeof(msg)),
                     1);
}

/* A summary as the runner fills it. */
static void done_fill(struct rundir_done *d, int served)
{
    memset(d, 0, sizeof(*d));
    d->rung = "Q4_0";
    d->n = 250;
    d->right = 201;
    d->errors = 1;
    d->truncated = 3;
    d->median_tps = 41.5;
    d->mean_tokens = -1;
    d->bytes = 3360161216ULL;
    d->served = served;
    d->server = "version: 4 (abc)";
    d->step_limit = served ? 0 : 2;
    d->gpu_before = 0;
    d->gpu_loaded = 1639;
    d->gpu_name = "Tesla T4";
    snprintf(d->layers, sizeof(d->layers), "36/36");
    rundir_done_buffer(d, "CUDA0", 4384.5);
    rundir_done_buffer(d, "CPU_Mapped", 768);
    rundir_done_buffer(d, "CUDA0", 4400.25); /* seen again: the later */
    d->cpu_s = 1.5;
    d->peak_rss_kb = 9000;
    d->rows_bytes_written = 77;
    d->server_starts = 1;
    d->log_dropped = 0;
}

/* The writer's line, read by the strict reader (the runner's resume)
 * and by the lenient one (the report's figures): every figure comes back,
 * in the order the file has always had. */
static void test_done_round_trip(void **state)
{
    struct rundir_done d;
    struct grader_meta m;
    char path[512], msg[512], *text, line[4096];
    json_t *o, *back = NULL, *run;

    (void)state;
    done_fill(&d, 0);
    o = rundir_done_json(&d);
    assert_non_null(o);
    text = json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT);
    json_decref(o);
    assert_non_null(text);
    assert_string_equal(
        text, "{\"rung\":\"Q4_0\",\"n\":250,\"right\":201,\"errors\":1,"
              "\"truncated\":3,\"median_decode_tps\":41.5,"
              "\"mean_tokens\":null,\"bytes\":3360161216,\"server\":"
              "\"version: 4 (abc)\",\"step_limit\":2,\"gpu_mib_before\":0,"
              "\"gpu_mib_loaded\":1639,\"gpu_name\":\"Tesla T4\","
              "\"layers_offloaded\":\"36/36\",\"model_buffers_mib\":"
              "{\"CUDA0\":4400.25,\"CPU_Mapped\":768.0},\"run\":{\"cpu_s\":"
              "1.5,\"peak_rss_kb\":9000,\"rows_bytes_written\":77,"
              "\"server_starts\":1,\"server_log_dropped\":0}}");
    snprintf(line, sizeof(line), "%s\n", text);
    free(text);
    setup_files(line, NULL);
    snprintf(path, sizeof(path), "%s/Q4_0.done", rows);
    assert_int_equal(rundir_done_load(path, "Q4_0", NULL, &back, msg,
                                      sizeof(msg)),
                     0);
    run = json_object_get(back, "run");
    assert_int_equal(json_integer_value(json_object_get(run, "server_starts")),
                     1);
    json_decref(back);
    assert_int_equal(rundir_meta_read(test_dir, "Q4_0", &m, msg, sizeof(msg)),
                     0);
    assert_true(m.bytes == 3360161216LL && m.gpu_mib_loaded == 1639 &&
                m.gpu_mib_before == 0 && !m.unpinned);
    assert_string_equal(m.gpu_name, "Tesla T4");
}

/* A served model: no bytes of ours, and not pinned, as the report says. */
static void test_done_served(void **state)
{
    struct rundir_done d;
    struct grader_meta m;
    char msg[512], *text, line[4096];
    json_t *o;

    (void)state;
    done_fill(&d, 1);
    d.gpu_loaded = -1;
    d.gpu_name = "";
    d.layers[0] = '\0';
    d.nbuffers = 0;
    o = rundir_done_json(&d);
    assert_non_null(o);
    assert_true(json_is_null(json_object_get(o, "bytes")));
    assert_true(json_is_false(json_object_get(o, "pinned")));
    assert_null(json_object_get(o, "step_limit"));
    assert_null(json_object_get(o, "layers_offloaded"));
    assert_null(json_object_get(o, "model_buffers_mib"));
    assert_true(json_is_null(json_object_get(o, "gpu_name")));
    text = json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT);
    json_decref(o);
    snprintf(line, sizeof(line), "%s\n", text);
    free(text);
    setup_files(line, "rung\tfile\tbytes\tsha256\nQ4_0\thttp://h/v1\t0\t"
                      "abababababababababababababababababababababababababababab"
                      "abababab\n");
    assert_int_equal(rundir_meta_read(test_dir, "Q4_0", &m, msg, sizeof(msg)),
                     0);
    assert_true(m.unpinned && m.bytes == -1 && m.gpu_mib_loaded == -1);
}

/* The load log's buffers: capped, and a long name left out. */
static void test_done_buffers_capped(void **state)
{
    struct rundir_done d;
    char name[80];
    size_t i;

    (void)state;
    memset(&d, 0, sizeof(d));
    for (i = 0; i < RUNDIR_DONE_BUFFERS_MAX + 5; i++) {
        snprintf(name, sizeof(name), "CUDA%zu", i);
        rundir_done_buffer(&d, name, (double)i);
    }
    assert_int_equal(d.nbuffers, RUNDIR_DONE_BUFFERS_MAX);
    memset(name, 'x', 70);
    name[70] = '\0';
    memset(&d, 0, sizeof(d));
    rundir_done_buffer(&d, name, 1);
    rundir_done_buffer(&d, "", 1);
    assert_int_equal(d.nbuffers, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nothing_known),
        cmocka_unit_test(test_done_round_trip),
        cmocka_unit_test(test_done_served),
        cmocka_unit_test(test_done_buffers_capped),
        cmocka_unit_test(test_done_first_then_tsv),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_done_strict),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
