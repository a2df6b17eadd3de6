/*
 * test_report_page_duels.c - the page's duels (docs/page.md, "Duels";
 * issue 39): the pairs the caller gives go into the data block as the
 * grid's row indexes with their words, escaped as every string is; a pair
 * naming a rung the grid has not (or one rung twice) is left out; no
 * pairs, and the data block is what it was.
 *
 * With GY_DUEL_PAGE=PATH it also writes the browser suite's fixture
 * (tests/browser/duel_test.py): the same ladder's page, gzipped as the
 * report writes it, at PATH.
 *
 * The ladder: REF, A and B over six questions (x = wrong):
 *
 *          q0 q1 q2 q3 q4 q5
 *     REF   .  .  .  .  .  x
 *     A     .  .  x  .  .  x
 *     B     .  x  .  x  x  .
 *
 * A and B disagree on q1, q3, q4 (A right) and q2, q5 (B right); REF and
 * A on q2 alone (REF right). B's reply to q2 and A's to q3 carry markup.
 *
 * Tests: report/page.c
 */
#include "helpers.h"

#include <jansson.h>

#include "bury.h"
#include "compare.h"
#include "doc.h"
#include "page.h"

#define DQ 6
#define DR 3

static const char *const names[DR] = {"REF", "Q4_K_M (alpha)",
                                      "Q4_K_M <beta>"};
/* 1: right, per rung and question */
static const int right[DR][DQ] = {
    {1, 1, 1, 1, 1, 0}, {1, 1, 0, 1, 1, 0}, {1, 0, 1, 0, 0, 1}};
static const char *const qtext[DQ] = {
    "Tom has 3 apples and buys 7 more. How many apples?",
    "A <b>bold</b> question: what is 5 + 6?",
    "What is 2 * 6? </script><script>alert('q')</script>",
    NULL, /* a question whose text is not known */
    "What is 20 - 6?",
    "What is 3 * 5?"};

/* The ladder's replies: a hostile one at B q2 and A q3. */
static void reply(char *out, size_t size, size_t i, size_t q)
{
    long ref = 10 + (long)q, said = right[i][q] ? ref : ref + 1;

    if (i == 2 && q == 2)
        snprintf(out, size,
                 "</script><script>alert(1)</script>\n<img src=x "
                 "onerror=alert(2)>\nSo twice six.\nAnswer: %ld",
                 said);
    else if (i == 1 && q == 3)
        snprintf(out, size,
                 "A <b>bold</b> claim & a line\n\nthen more work.\n"
                 "Answer: %ld",
                 said);
    else
        snprintf(out, size, "%s works on question %zu.\nAnswer: %ld", names[i],
                 q, said);
}

struct duel_fix {
    struct grader_qset *qs;
    const struct grader_rung *r[DR];
    uint16_t facts[DR * DQ];
    uint32_t order[DQ];
    uint8_t cells[DR * DQ], marks[DR * DQ];
    struct page_run run;
    struct page p;
};

static void fix_build(struct duel_fix *x)
{
    struct grader_bury b;
    struct grader_error err;
    char content[400];
    size_t i, q;

    memset(x, 0, sizeof(*x));
    x->qs = grader_qset_new();
    assert_non_null(x->qs);
    for (i = 0; i < DR; i++) {
        struct text t = {0};
        for (q = 0; q < DQ; q++) {
            json_t *s;
            char *js;
            reply(content, sizeof(content), i, q);
            s = json_string(content);
            js = json_dumps(s, JSON_ENCODE_ANY);
            text_addf(&t,
                      "{\"id\":\"d-%zu\",\"reference\":\"%ld\","
                      "\"content\":%s,\"finish_reason\":\"stop\","
                      "\"completion_tokens\":%zu}\n",
                      q, 10 + (long)q, js, 20 + q);
            free(js);
            json_decref(s);
        }
        x->r[i] = load_text(x->qs, test_dir, names[i], &t, GRADER_READ_KEEP);
        free(t.p);
    }
    assert_int_equal(grader_bury(x->qs, x->r, DR, 0, &b, &err), 0);
    grader_bury_cells(&b, x->r, DQ, x->facts);
    grader_bury_release(&b);
    for (q = 0; q < DQ; q++)
        x->order[q] = (uint32_t)q;
    grader_grid(x->r, 1, DR, x->order, DQ, x->cells);
    grader_grid_marks(x->cells, DR, DQ, x->marks);
    /* the fixture is what the table above says */
    for (i = 0; i < DR; i++)
        for (q = 0; q < DQ; q++)
            assert_int_equal(!!(x->facts[i * DQ + q] & GRADER_F_RIGHT),
                             right[i][q]);
    x->run = (struct page_run){"run", x->r, x->facts};
    x->p.kind = "report";
    x->p.title = "graveyard: duels";
    x->p.subtitle = "6 questions \xc2\xb7 a duel fixture";
    x->p.qs = x->qs;
    x->p.nq = DQ;
    x->p.names = names;
    x->p.nrows = DR;
    x->p.runs = &x->run;
    x->p.nruns = 1;
    x->p.order = x->order;
    x->p.ncols = DQ;
    x->p.cells = x->cells;
    x->p.marks = x->marks;
    x->p.qtext = qtext;
    x->p.qnote = "question texts from a fixture";
}

static void fix_free(struct duel_fix *x)
{
    for (size_t i = 0; i < DR; i++)
        grader_rung_free((struct grader_rung *)x->r[i]);
    grader_qset_free(x->qs);
}

/* The page of x, rendered: the whole page into *html, its data block
 * parsed (plain). */
static json_t *page_data(struct duel_fix *x, char **html)
{
    size_t len;
    FILE *f = open_memstream(html, &len);
    char *data, *end;
    json_t *d;
    json_error_t je;

    x->p.plain = 1;
    assert_non_null(f);
    assert_int_equal(render_page(f, &x->p), 0);
    assert_int_equal(fclose(f), 0);
    data = strstr(*html, "id=\"gy-data\">");
    assert_non_null(data);
    data += strlen("id=\"gy-data\">");
    end = strstr(data, "</script>");
    assert_non_null(end);
    d = json_loadb(data, (size_t)(end - data), 0, &je);
    if (d == NULL)
        fail_msg("data block: %s", je.text);
    return d;
}

static size_t count(const char *h, const char *needle)
{
    size_t n = 0;

    for (h = strstr(h, needle); h; h = strstr(h + 1, needle))
        n++;
    return n;
}

static const char verdict[] = "cannot tell at \xc2\xb1"
                              "2 points </script><b>bold</b>";
static const struct page_duel duels[] = {
    {"Q4_K_M (alpha)", "Q4_K_M <beta>", verdict, NULL},
    {"REF", "gone", "no such rung", NULL}, /* a rung not on the page */
    {"REF", "Q4_K_M (alpha)", NULL, "REF right only on 1, alpha on 0"},
    {"Q4_K_M <beta>", "Q4_K_M <beta>", NULL, NULL}, /* one rung twice */
};

static void expect_duel(json_t *e, long a, long b, const char *v,
                        const char *n)
{
    json_t *jv = json_object_get(e, "v"), *jn = json_object_get(e, "n");

    assert_int_equal(json_integer_value(json_object_get(e, "a")), a);
    assert_int_equal(json_integer_value(json_object_get(e, "b")), b);
    if (v == NULL)
        assert_true(json_is_null(jv));
    else
        assert_string_equal(json_string_value(jv), v);
    if (n == NULL)
        assert_true(json_is_null(jn));
    else
        assert_string_equal(json_string_value(jn), n);
}

/* The pairs present, by row, their words as given; the missing rung's
 * pair and the one-rung pair left out; the words escaped. */
static void test_duels_data(void **state)
{
    struct duel_fix x;
    char *h = NULL;
    json_t *d, *a;

    (void)state;
    fix_build(&x);
    x.p.duels = duels;
    x.p.nduels = sizeof(duels) / sizeof(duels[0]);
    d = page_data(&x, &h);
    a = json_object_get(d, "duels");
    if (!json_is_array(a))
        fail_msg("no \"duels\" array in the data block");
    assert_int_equal(json_array_size(a), 2);
    expect_duel(json_array_get(a, 0), 1, 2, verdict, NULL);
    expect_duel(json_array_get(a, 1), 0, 1, NULL, duels[2].counts);
    /* nothing in the words became markup or ended a block */
    assert_int_equal(count(h, "<script"), 2);
    assert_int_equal(count(h, "</script>"), 2);
    assert_int_equal(count(h, "<b>"), 0);
    assert_non_null(
        strstr(h, "2 points \\u003c/script\\u003e\\u003cb\\u003e"));
    assert_null(strstr(h, "no such rung"));
    json_decref(d);
    free(h);
    fix_free(&x);
}

/* No pairs (NULL, or a count of 0): no "duels" key, and the block is
 * byte for byte the page without them; pairs that all name missing
 * rungs: an empty list. */
static void test_duels_none(void **state)
{
    struct duel_fix x;
    char *h0 = NULL, *h1 = NULL, *h2 = NULL;
    json_t *d0, *d1, *d2;

    (void)state;
    fix_build(&x);
    d0 = page_data(&x, &h0);
    assert_null(json_object_get(d0, "duels"));
    x.p.duels = duels;
    x.p.nduels = 0;
    d1 = page_data(&x, &h1);
    assert_string_equal(h0, h1);
    x.p.duels = duels + 1;
    x.p.nduels = 1;
    d2 = page_data(&x, &h2);
    assert_true(json_is_array(json_object_get(d2, "duels")));
    assert_int_equal(json_array_size(json_object_get(d2, "duels")), 0);
    json_decref(d0);
    json_decref(d1);
    json_decref(d2);
    free(h0);
    free(h1);
    free(h2);
    fix_free(&x);
}

/* The page as the report writes it (gzipped) renders with the duels; the
 * browser suite's fixture when GY_DUEL_PAGE names where to put it. */
static void test_duels_fixture(void **state)
{
    const char *path = getenv("GY_DUEL_PAGE");
    struct duel_fix x;
    struct doc *doc;
    char *h = NULL;
    size_t len;
    FILE *f;

    (void)state;
    fix_build(&x);
    x.p.duels = duels;
    x.p.nduels = sizeof(duels) / sizeof(duels[0]);
    x.p.plain = 0;
    /* a report below the grid, as REPORT.md's duels table might read, so
     * that the page is laid out as a report's: the section comes after */
    assert_non_null(doc = doc_new());
    doc_heading(doc, 2);
    doc_raw(doc, "Duels");
    doc_table(doc, "llrrl");
    doc_row(doc);
    doc_cellf(doc, "A");
    doc_cellf(doc, "B");
    doc_cellf(doc, "A right only");
    doc_cellf(doc, "B right only");
    doc_cellf(doc, "verdict");
    doc_row(doc);
    doc_cell(doc);
    doc_rung(doc, names[1], 0);
    doc_cell(doc);
    doc_rung(doc, names[2], 0);
    doc_cellf(doc, "3");
    doc_cellf(doc, "2");
    doc_cellf(doc, "cannot tell");
    x.p.doc = doc;
    f = path != NULL ? fopen(path, "w") : open_memstream(&h, &len);
    assert_non_null(f);
    assert_int_equal(render_page(f, &x.p), 0);
    assert_int_equal(fclose(f), 0);
    if (h != NULL)
        assert_non_null(strstr(h, "id=\"gy-z\""));
    free(h);
    doc_free(doc);
    fix_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_duels_data),
        cmocka_unit_test(test_duels_none),
        cmocka_unit_test(test_duels_fixture),
    };

    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
