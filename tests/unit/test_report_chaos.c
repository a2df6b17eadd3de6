/*
 * test_report_chaos.c - out of memory at every allocation in turn.
 *
 * The grader is a library: it must turn a failed allocation into
 * GRADER_ENOMEM (or a NULL from emit) and free everything it took. This
 * runs the whole pipeline (read two rungs, bury, autopsy, repeat, emit)
 * once cleanly, counting its allocations, then once failing allocation 1,
 * once failing allocation 2, ... up to the last, and checks each time that
 * no allocation is left live and that the run either reports out of
 * memory or, where jansson absorbed the failure itself, prints exactly
 * what the clean run printed (jansson test_chaos, curl's torture tests).
 * Then the same for a whole report's doc (doc.h: REPORT.md's pieces, the
 * page's report): every failed allocation gives no doc and leaks nothing.
 *
 * Tests: report/emit.c
 * Tests: report/doc.c
 * Tests: grader/alloc.c
 */
#include "helpers.h"
#include "chaos.h"

#include "alloc.h"
#include "bury.h"
#include "doc.h"
#include "emit.h"
#include "ladder.h"
#include "render.h"
#include "repeat.h"

static char path_a[512], path_b[512];
static struct text printed; /* what the last pipeline emitted */
static struct grader_error last_err;

static int text_sink(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    text_addf(&printed, "%.*s", (int)n, s);
    return 0;
}

static int emit_all(const struct grader_bury *b, const struct grader_qset *qs,
                    const struct grader_rung *const *r,
                    const struct grader_repeat_line *rl)
{
    struct grader_autopsy_line al[2];
    json_t *j[6];
    size_t i;
    int ok = 1;

    grader_autopsy(b, r, al);
    j[0] = emit_bury_line(b, 1, NULL);
    j[1] = emit_bury_summary(b);
    j[2] = NULL;
    if (emit_graveyard(b, qs, text_sink, NULL) != 0)
        ok = 0;
    j[3] = emit_autopsy_line(&al[1]);
    j[4] = emit_repeat_line(rl);
    j[5] = emit_number("1234.5");
    for (i = 0; i < 6; i++) {
        char *s;
        if (i == 2)
            continue;
        s = j[i] ? emit_dumps(j[i]) : NULL;
        if (s == NULL)
            ok = 0;
        else
            text_addf(&printed, "%s\n", s);
        emit_free(s);
        json_decref(j[i]);
    }
    return ok ? 0 : GRADER_ENOMEM;
}

/* The whole pipeline; 0 or a grader error code. */
static int pipeline(void)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *a = NULL, *b = NULL;
    struct grader_bury bury;
    struct grader_repeat_line rl;
    struct grader_error err = {{0}, 0, {0}};
    int rc;

    printed.len = 0;
    if (printed.p)
        printed.p[0] = '\0';
    if (qs == NULL)
        return GRADER_ENOMEM;
    rc = test_rung_read(qs, "A", path_a, GRADER_READ_TEXT, &a, &err);
    if (rc == 0)
        rc = test_rung_read(qs, "B", path_b, GRADER_READ_TEXT, &b, &err);
    if (rc == 0) {
        const struct grader_rung *r[2] = {a, b};
        rc = grader_bury(qs, r, 2, 0, &bury, &err);
        if (rc == 0) {
            rc = grader_repeat(a, b, qs, 0, &rl, &err);
            if (rc == 0)
                rc = emit_all(&bury, qs, r, &rl);
            grader_bury_release(&bury);
        }
    }
    if (rc == GRADER_ENOMEM && err.text[0] == '\0')
        snprintf(err.text, sizeof(err.text), "emit ran out of memory");
    grader_rung_free(a);
    grader_rung_free(b);
    grader_qset_free(qs);
    if (rc != 0)
        last_err = err;
    else
        memset(&last_err, 0, sizeof(last_err));
    return rc;
}

static void test_every_allocation_fails(void **state)
{
    struct text t = {0}, u = {0};
    char id[16], *clean;
    long total, absorbed = 0;
    int i, rc;

    (void)state;
    /* enough rows to grow every array (they start at 16), a loop */
    for (i = 0; i < 40; i++) {
        snprintf(id, sizeof(id), "q%d", i);
        add_row(&t, id, "5", i % 3 ? "5" : "4");
        add_row(&u, id, "5", i % 5 ? "5" : NULL);
    }
    text_addf(&t, "{\"id\":\"loop\",\"reference\":\"1\",\"content\":"
                  "\"a\\na\\na\\na\\na\\nb\\nc\\nd\"}\n");
    text_addf(&u, "{\"id\":\"loop\",\"reference\":\"1\",\"content\":"
                  "\"Answer: 1\"}\n");
    write_file(test_dir, "A.jsonl", t.p, path_a, sizeof(path_a));
    write_file(test_dir, "B.jsonl", u.p, path_b, sizeof(path_b));
    free(t.p);
    free(u.p);
    grader_set_alloc(chaos_malloc, chaos_realloc, chaos_free);
    emit_alloc_init(); /* jansson's allocations fail in turn too */
    /* first without failures: the pipeline works, and is counted */
    fail_at = -1;
    calls = live = 0;
    rc = pipeline();
    if (rc != 0)
        fail_msg("pipeline fails without failing allocations: %s",
                 last_err.text);
    assert_int_equal(live, 0);
    total = calls;
    clean = strdup(printed.p);
    assert_non_null(clean);
    for (fail_at = 1; fail_at <= total; fail_at++) {
        calls = 0;
        live = 0;
        rc = pipeline();
        if (live != 0)
            fail_msg("failing allocation %ld leaks %ld blocks", fail_at, live);
        if (rc == 0) {
            absorbed++;
            if (strcmp(printed.p, clean) != 0)
                fail_msg("failing allocation %ld changed the output:\n%s\n"
                         "instead of\n%s",
                         fail_at, printed.p, clean);
        } else if (rc != GRADER_ENOMEM) {
            fail_msg("failing allocation %ld gave %s, not NOMEM: %s", fail_at,
                     grader_err_name(rc), last_err.text);
        }
    }
    grader_set_alloc(NULL, NULL, NULL);
    assert_true(total > 50);
    /* nearly every failure must reach us: a few jansson absorbs itself */
    assert_true(absorbed * 10 < total);
    print_message("chaos: %ld allocations failed in turn, %ld absorbed "
                  "by jansson with the same output\n",
                  total, absorbed);
    free(clean);
    free(printed.p);
}

/* The report's doc of rep, written as Markdown then HTML into out; 0, or
 * GRADER_ENOMEM when it could not be built. */
static int report_doc(const struct rundir_run *run,
                      const struct grader_ladder *rep,
                      const struct grader_qset *qs, struct text *out)
{
    struct doc *d = render_report_doc(run, rep, qs);
    char *p = NULL;
    size_t len = 0;
    FILE *f;

    out->len = 0;
    if (d == NULL)
        return GRADER_ENOMEM;
    f = open_memstream(&p, &len);
    assert_non_null(f);
    doc_md(f, d);
    {
        const struct doc_svg pic = {"pareto.svg", "<svg></svg>", 11};
        doc_html(f, d, &pic, 1);
    }
    assert_int_equal(fclose(f), 0);
    text_addf(out, "%s", p);
    free(p);
    doc_free(d);
    return 0;
}

static void test_report_doc_allocations(void **state)
{
    static const char *const names[3] = {"REF", "MID", "LOW"};
    struct grader_qset *qs;
    const struct grader_rung *r[3];
    struct grader_meta m[3];
    struct grader_ladder rep;
    struct grader_error err;
    struct rundir_run run;
    struct text t[3] = {{0}, {0}, {0}}, out = {0};
    json_error_t je;
    char id[16], *clean;
    long total;
    int i, k, rc;

    (void)state;
    grader_set_alloc(NULL, NULL, NULL);
    emit_alloc_init();
    /* tombstones and ghosts past the doc's first chunk of symbols */
    for (i = 0; i < 300; i++) {
        snprintf(id, sizeof(id), "q<%d>", i);
        add_row(&t[0], id, "5", i % 3 ? "5" : "4");
        add_row(&t[1], id, "5", i % 5 ? "5" : "4");
        add_row(&t[2], id, "5", i % 2 ? "5" : NULL);
    }
    qs = grader_qset_new();
    assert_non_null(qs);
    for (k = 0; k < 3; k++) {
        r[k] = load_text(qs, test_dir, names[k], &t[k], 0);
        free(t[k].p);
        memset(&m[k], 0, sizeof(m[k]));
        m[k].bytes = 1000 - 300 * k;
        m[k].gpu_mib_loaded = m[k].gpu_mib_before = -1;
    }
    assert_int_equal(grader_ladder_build(qs, m, r, 3, NULL, 0, NULL, NULL, 0,
                                         0, &rep, &err),
                     0);
    memset(&run, 0, sizeof(run));
    run.dir = "runs/chaos";
    run.manifest = json_loads("{\"request\": {\"temperature\": 0, "
                              "\"stop\": [\"**\"]}}",
                              0, &je);
    assert_non_null(run.manifest);
    grader_set_alloc(chaos_malloc, chaos_realloc, chaos_free);
    emit_alloc_init(); /* the settings' JSON values fail in turn too */
    fail_at = -1;
    calls = live = 0;
    assert_int_equal(report_doc(&run, &rep, qs, &out), 0);
    assert_int_equal(live, 0);
    total = calls;
    clean = strdup(out.p);
    assert_non_null(clean);
    for (fail_at = 1; fail_at <= total; fail_at++) {
        calls = live = 0;
        rc = report_doc(&run, &rep, qs, &out);
        if (live != 0)
            fail_msg("failing allocation %ld leaks %ld blocks", fail_at, live);
        if (rc != GRADER_ENOMEM)
            fail_msg("failing allocation %ld of %ld gave a doc", fail_at,
                     total);
    }
    grader_set_alloc(NULL, NULL, NULL);
    emit_alloc_init();
    /* the symbols grew, the strings took more than one chunk */
    assert_true(total > 8);
    print_message("chaos: the report's doc, %ld allocations failed in turn\n",
                  total);
    json_decref(run.manifest);
    grader_ladder_release(&rep);
    for (k = 0; k < 3; k++)
        grader_rung_free((struct grader_rung *)r[k]);
    grader_qset_free(qs);
    free(clean);
    free(out.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_allocation_fails),
        cmocka_unit_test(test_report_doc_allocations),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
