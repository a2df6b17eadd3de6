/*
 * test_report_decide.c - "Which file?" as the reports word it (report/
 * md_decide.c): the terminal's lines within 80 columns, opening with the
 * block and naming, margin by margin, what the grader decided
 * (grader_decide_ladder); the same block as the doc's top, written by
 * doc_md where it stands, by doc_html_top in <section id="decide">, and
 * left out of doc_html's report below.
 *
 * Tests: report/md_decide.c
 * Tests: report/doc_html.c
 */
#include "helpers.h"

#include <sys/stat.h>

#include "decide.h"
#include "doc.h"
#include "fmt.h"
#include "ladder.h"
#include "md_decide.h"
#include "render.h"

/* 200 questions; REF right on the first 180. MID answers as it does
 * (80 % of the bytes), LOW loses the first 10 it gets right (50 %), TINY
 * the first 60 (25 %). Every row decodes at 50 tok/s: no file is faster. */
static int right_of(int rung, size_t q)
{
    static const size_t lost[] = {0, 0, 10, 60};
    return q < 180 && q >= lost[rung];
}

static void build(struct rungs *x, struct grader_ladder *l, double margin)
{
    static const char *const names[] = {"REF", "MID", "LOW", "TINY"};
    static const long long bytes[] = {1000, 800, 500, 250};
    struct grader_meta m[4];
    struct grader_error err;
    char dir[128];

    snprintf(dir, sizeof(dir), "%s/ladder", test_dir);
    mkdir(dir, 0700);
    memset(m, 0, sizeof(m));
    x->qs = grader_qset_new();
    x->n = 4;
    for (int i = 0; i < 4; i++) {
        struct text t = {0};
        for (size_t q = 0; q < 200; q++) {
            char id[16];
            snprintf(id, sizeof(id), "q%zu", q);
            add_row(&t, id, "1", right_of(i, q) ? "1" : "2");
        }
        x->r[i] = load_text(x->qs, dir, names[i], &t, 0);
        free(t.p);
        m[i].bytes = bytes[i];
        m[i].gpu_mib_loaded = m[i].gpu_mib_before = -1;
    }
    assert_int_equal(grader_ladder_build(x->qs, m, x->r, 4, NULL, 0, NULL,
                                         NULL, 0, 0, l, &err),
                     0);
    grader_ladder_verdicts(l, margin);
}

/* What the block must say of margin x on the smallest side. */
static void want_words(const struct grader_ladder *l,
                       const struct grader_decide *dc,
                       const struct grader_decision *x, char *out, size_t size)
{
    char n[FMT_SIZE];

    if (x->smallest > 0)
        snprintf(
            out, size, "%s: ",
            grader_ladder_point(l, (size_t)x->smallest)->line->rung->name);
    else
        snprintf(
            out, size, "none can be told with %zu questions; %s would tell %s",
            dc->questions, fmt_count(n, x->small_n),
            grader_ladder_point(l, (size_t)x->small_by)->line->rung->name);
}

/* The terminal: the block first, every line within 80 columns, a line
 * per margin marked where it is the run's own (2.5 here, the fourth), the
 * grader's pick or the questions that would tell at each, and that no
 * file is faster. */
static void test_lines(void **state)
{
    struct rungs x;
    struct grader_ladder l;
    struct grader_decide dc;
    char *buf = NULL, want[256], line[512];
    size_t len = 0, cols, marked = 0;
    FILE *f;

    (void)state;
    build(&x, &l, 2.5);
    grader_decide_ladder(&l, &dc);
    assert_int_equal(dc.n, 4);
    f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(render_decision_lines(f, &l), 0);
    assert_int_equal(fclose(f), 0);
    assert_true(strncmp(buf, "Which file? ", 12) == 0);
    for (const char *p = buf; *p != '\0';) {
        size_t n = strcspn(p, "\n");
        snprintf(line, sizeof(line), "%.*s", (int)n, p);
        cols = 0;
        for (const char *c = line; *c != '\0'; c++)
            cols += ((unsigned char)*c & 0xc0) != 0x80;
        if (cols > 80)
            fail_msg("%zu columns: '%s'", cols, line);
        marked += strncmp(line,
                          "  \xc2\xb1"
                          "2.5 *",
                          8) == 0;
        p += n + (p[n] == '\n');
    }
    assert_int_equal(marked, 1);
    for (size_t i = 0; i < dc.n; i++) {
        want_words(&l, &dc, &dc.d[i], want, sizeof(want));
        if (strstr(buf, want) == NULL)
            fail_msg("margin %g: no '%s' in\n%s", dc.d[i].asked, want, buf);
    }
    assert_non_null(strstr(buf, "fastest: no file is faster than REF"));
    assert_non_null(strstr(buf, "verdict at \xc2\xb1"
                                "2.5\n"));
    free(buf);
    grader_ladder_release(&l);
    free_rungs(&x);
}

/* The doc: REPORT.md has the block where it stands; the page's top is
 * that block alone, in its section; the report below has it no more. */
static void test_doc_top(void **state)
{
    struct rungs x;
    struct grader_ladder l;
    struct grader_decide dc;
    struct doc *d = doc_new();
    char *md = NULL, *top = NULL, *low = NULL, want[256];
    size_t n1 = 0, n2 = 0, n3 = 0;
    FILE *f;

    (void)state;
    build(&x, &l, 2.0);
    grader_decide_ladder(&l, &dc);
    doc_heading(d, 1);
    doc_raw(d, "title");
    doc_para(d);
    doc_raw(d, "before");
    md_decision(d, &l);
    doc_heading(d, 2);
    doc_raw(d, "After");
    assert_true(doc_ok(d));

    assert_non_null(f = open_memstream(&md, &n1));
    doc_md(f, d);
    assert_int_equal(fclose(f), 0);
    assert_non_null(f = open_memstream(&top, &n2));
    doc_html_top(f, d);
    assert_int_equal(fclose(f), 0);
    assert_non_null(f = open_memstream(&low, &n3));
    doc_html(f, d, NULL, 0);
    assert_int_equal(fclose(f), 0);

    assert_non_null(strstr(md, "before\n\n## Which file?\n"));
    assert_non_null(strstr(md, "\n| **\xc2\xb1"
                               "2** (this run's) | "));
    assert_non_null(strstr(md, "| Rung | % of REF bytes | "));
    assert_non_null(strstr(md, "| TINY | 25.0 | "));
    assert_true(strstr(md, "## Which file?") < strstr(md, "## After"));
    for (size_t i = 0; i < dc.n; i++) {
        want_words(&l, &dc, &dc.d[i], want, sizeof(want));
        if (strstr(md, want) == NULL)
            fail_msg("margin %g: no '%s' in\n%s", dc.d[i].asked, want, md);
    }

    assert_true(strncmp(top, "<section id=\"decide\">\n<h2>Which file?</h2>",
                        42) == 0);
    assert_null(strstr(top, "After"));
    assert_null(strstr(top, "before"));
    assert_non_null(strstr(top, "</table></div>\n</section>\n"));
    assert_null(strstr(low, "Which file?"));
    assert_non_null(strstr(low, "<p>before</p>\n<h2>After</h2>"));

    free(md);
    free(top);
    free(low);
    doc_free(d);
    grader_ladder_release(&l);
    free_rungs(&x);
}

/* A doc without a top: doc_html_top writes nothing, doc_html all. */
static void test_no_top(void **state)
{
    struct doc *d = doc_new();
    char *top = NULL;
    size_t n = 0;
    FILE *f;

    (void)state;
    doc_heading(d, 2);
    doc_raw(d, "Only");
    assert_non_null(f = open_memstream(&top, &n));
    doc_html_top(f, d);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(n, 0);
    free(top);
    doc_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_doc_top),
        cmocka_unit_test(test_no_top),
    };

    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
