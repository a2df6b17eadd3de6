/*
 * test_report_probs.c - the split figures (probs.h) as the reports show
 * them, from a hand-filled grader_probs_ladder beside the study's ladder:
 * REPORT.md's "Where they split" (its rows, NAN as a dash, Spearman's rho,
 * the repeat's check) and the ladder table's "Mean KLD" column;
 * report.json's "probs"; the page's data block; the cover's KLD bands;
 * and a hostile token text (quotes, <script>, \x01, a lone 0xC3) made fit
 * to show everywhere. Without probs every one is as before.
 *
 * With GY_PROBS_PAGE=PATH in the environment, the page test also writes
 * its page there, for the browser check (tests/browser/probs_test.py);
 * GY_PROBS_JSON=PATH its report.json, for the schema check
 * (tests/schemas/validate.py); GY_PROBS_COVER=PATH its cover and
 * GY_PROBS_MD=PATH its REPORT.md, to look at.
 *
 * Tests: report/svg.c
 * Tests: report/json.c
 * Tests: report/md.c
 * Tests: report/md_probs.c
 * Tests: report/emit_probs.c
 */
#include "helpers.h"
#include "study.h"

#include <jansson.h>
#include <math.h>

#include "doc.h"
#include "emit.h"
#include "fmt.h"
#include "ladder.h"
#include "page.h"
#include "render.h"

#define HOSTILE "x \"q\" <script>alert(1)</script>\x01 \xc3"
/* fmt_shown's: \x01 as an escape, the lone 0xC3 as U+FFFD */
#define HOSTILE_SHOWN "x \"q\" <script>alert(1)</script>\\x01 \xef\xbf\xbd"

static void load_study(struct rungs *x)
{
    size_t i, q;

    x->qs = grader_qset_new();
    assert_non_null(x->qs);
    x->n = NR;
    for (i = 0; i < NR; i++) {
        struct text t = {0};
        for (q = 0; q < NQ; q++)
            text_addf(&t,
                      "{\"id\":\"test-%zu\",\"reference\":\"100\","
                      "\"content\":\"work\\nAnswer: %s\"}\n",
                      q, study_right(i, q) ? "100" : "99");
        x->r[i] = load_text(x->qs, test_dir, ladder[i], &t, 0);
        free(t.p);
    }
}

struct fixture {
    struct rungs x;
    struct grader_meta m[NR];
    struct grader_ladder rep;
    struct grader_probs_ladder pk;
    struct grader_probs_cell cell;
    struct rundir_run run;
    size_t dead_q; /* a question dead at Q8_0 */
};

static void alt(struct grader_probs_alt *a, uint32_t id, float lp,
                const char *text)
{
    a->id = id;
    a->lp = lp;
    snprintf(a->text, sizeof(a->text), "%s", text);
}

/* The study's ladder with split figures: Q8_0 (rung 2) hand-filled, Q6_K
 * (rung 3) without a probs file, the rest alike and plain. */
static void fixture_build(struct fixture *f)
{
    struct grader_error err;
    struct grader_probs_ladder *p = &f->pk;
    size_t i, q;

    memset(f, 0, sizeof(*f));
    load_study(&f->x);
    for (i = 0; i < NR; i++) {
        f->m[i].bytes = -1;
        f->m[i].gpu_mib_loaded = f->m[i].gpu_mib_before = -1;
    }
    assert_int_equal(grader_ladder_build(f->x.qs, f->m, f->x.r, NR, NULL, 0,
                                         NULL, NULL, 0, 0, &f->rep, &err),
                     0);
    for (q = 0; q < NQ; q++)
        if (study_right(0, q) && !study_right(2, q))
            break;
    assert_true(q < NQ);
    f->dead_q = q;
    p->topn = 4;
    p->nrungs = NR;
    p->nq = NQ;
    p->kld = malloc(NR * NQ * sizeof(*p->kld));
    assert_non_null(p->kld);
    for (i = 0; i < NR; i++) {
        p->have[i] = i != 3;
        for (q = 0; q < NQ; q++)
            /* the reference and Q6_K not compared; a decade a rung below */
            p->kld[i * NQ + q] = i == 0 || i == 3 ? NAN
                                 : q % 5 == 0     ? 0.0f
                                                  : 0.0005f * (float)(i * i);
        if (i > 0) {
            p->rung[i].both = NQ;
            p->rung[i].flips = i;
            p->rung[i].kld_mean = 0.001 * (double)i;
            p->rung[i].kld_p99 = 0.01 * (double)i;
            p->rung[i].split_pos_median = 0.5;
            p->rung[i].fragility_auc = 0.75;
        }
    }
    p->kld[2 * NQ + f->dead_q] = 2.5f; /* the dead cell: the darkest band */
    p->rung[2] = (struct grader_probs_rung){250,    40,     4,      1,
                                            30,     6,      12345,  0.0123,
                                            0.25,   0.375,  NAN};
    p->spearman = 0.9;
    p->repeat = 1;
    f->cell.rung = 2;
    f->cell.question = f->dead_q;
    f->cell.s = (struct grader_split){
        7,   20,  18,  1.5, 0.8, -1.2, 0.8, 0.05, 0.8, 8, NAN};
    snprintf(f->cell.before, sizeof(f->cell.before), "%s", HOSTILE);
    alt(&f->cell.ref_tok, 11, -0.2f, "<script>");
    alt(&f->cell.rung_tok, 12, -0.4f, "\xc3");
    alt(&f->cell.ref_top[0], 11, -0.2f, "<script>");
    alt(&f->cell.ref_top[1], 12, -1.7f, "\xc3");
    alt(&f->cell.ref_top[2], 13, -3.0f, "\"\n\"");
    alt(&f->cell.ref_top[3], GRADER_PROBS_NONE, -INFINITY, "");
    alt(&f->cell.rung_top[0], 12, -0.4f, "\xc3");
    alt(&f->cell.rung_top[1], 11, -1.2f, "<script>");
    alt(&f->cell.rung_top[2], 14, -3.5f, "\x01");
    alt(&f->cell.rung_top[3], 15, -4.0f, "&amp;");
    p->cells = &f->cell;
    p->ncells = 1;
    f->run.dir = "runs/probs";
    f->run.name = "probs";
}

static void fixture_free(struct fixture *f)
{
    free(f->pk.kld);
    grader_ladder_release(&f->rep);
    free_rungs(&f->x);
}

static char *doc_str(const struct doc *d, int html)
{
    char *s = NULL;
    size_t len;
    FILE *m = open_memstream(&s, &len);

    assert_non_null(m);
    if (html)
        doc_html(m, d, NULL, 0);
    else
        doc_md(m, d);
    assert_int_equal(fclose(m), 0);
    return s;
}

static char *report_md(struct fixture *f, int html)
{
    struct doc *d = render_report_doc(&f->run, &f->rep, f->x.qs);
    char *s;

    assert_non_null(d);
    s = doc_str(d, html);
    doc_free(d);
    return s;
}

/* ---- fmt: the numbers and the texts ------------------------------------ */

static void test_fmt(void **state)
{
    char out[FMT_SIZE], s[FMT_SHOWN_SIZE(16)];

    (void)state;
    assert_string_equal(fmt_signed(out, NAN, 2), FMT_DASH);
    assert_string_equal(fmt_signed(out, -INFINITY, 2), FMT_DASH);
    assert_string_equal(fmt_signed(out, -0.5, 2), "\xe2\x88\x92" "0.50");
    assert_string_equal(fmt_signed(out, -0.0001, 2), "0.00");
    assert_string_equal(fmt_signed(out, 0.0123, 4), "0.0123");
    assert_string_equal(fmt_shown(s, sizeof(s), HOSTILE + 31, 3, 0),
                        "\\x01 \xef\xbf\xbd"); /* "\x01 \xc3" */
    assert_string_equal(fmt_shown(s, sizeof(s), "a\nb\tc\x7f\\\r", 8, 0),
                        "a\\nb\\tc\\x7f\\\\\\r");
    assert_string_equal(fmt_shown(s, sizeof(s), "a\nb\tc\\\x1b", 7, 1),
                        "a\nb\tc\\\\x1b");
    assert_string_equal(fmt_shown(s, sizeof(s), "\xc3\xa9\xe2\x82", 4, 0),
                        "\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd");
    /* a tail cut inside a character starts at the next one; a token
     * that is part of one shows U+FFFD for each byte */
    assert_string_equal(fmt_shown(s, sizeof(s), "\x82\xac" "abc", 5, 1), "abc");
    assert_string_equal(fmt_shown(s, sizeof(s), "\x82\xac" "a", 3, 0),
                        "\xef\xbf\xbd\xef\xbf\xbd" "a");
        /* cut at a character, never in one */
    assert_string_equal(fmt_shown(s, 6, "ab\x01", 3, 0), "ab");
    assert_int_equal(fmt_kld_level(NAN), 0);
    assert_int_equal(fmt_kld_level(0.0009), 0);
    assert_int_equal(fmt_kld_level(0.001), 1);
    assert_int_equal(fmt_kld_level(0.05), 2);
    assert_int_equal(fmt_kld_level(0.5), 3);
    assert_int_equal(fmt_kld_level(7.0), 4);
}

/* ---- REPORT.md --------------------------------------------------------- */

static void test_md_section(void **state)
{
    struct fixture f;
    char *md, *h, *plain;

    (void)state;
    fixture_build(&f);
    plain = report_md(&f, 0);
    f.rep.probs = &f.pk;
    md = report_md(&f, 0);
    h = report_md(&f, 1);
    if (getenv("GY_PROBS_MD") != NULL) {
        FILE *out = fopen(getenv("GY_PROBS_MD"), "w");
        assert_non_null(out);
        fputs(md, out);
        assert_int_equal(fclose(out), 0);
    }
    /* the ladder table: Mean KLD beside dead and ghosts, a dash for the
     * reference and for the rung without a probs file */
    assert_non_null(strstr(md, "| Dead | Ghosts | Mean KLD | Change vs"));
    assert_non_null(strstr(md, "| 4 | 2 | 0.0123 | "));
    assert_null(strstr(plain, "Mean KLD"));
    assert_null(strstr(plain, "Where they split"));
    /* the section's rows */
    assert_non_null(strstr(md, "\n## Where they split\n"));
    assert_non_null(strstr(md, "| Rung | Flips (dead + ghosts) | Mean KLD | "
                               "p99 KLD | Answers split | Split and died | "
                               "Split and survived | Median split position "
                               "% | Fragility AUC |\n"));
    assert_non_null(strstr(md, "| Q8_0 | 6 | 0.0123 | 0.2500 | 40 of 250 | "
                               "4 | 30 | 37.5 | " FMT_DASH " |\n"));
    assert_non_null(strstr(md, "| Q6_K | " FMT_DASH " | " FMT_DASH " | "));
    assert_non_null(strstr(md, "| Q5_K_M | 4 | 0.0040 | 0.0400 | 0 of 250 | "
                               "0 | 0 | 50.0 | 0.75 |\n"));
    assert_non_null(strstr(md, "Across the 7 rungs with a probs file, "
                               "Spearman's \xcf\x81 of flips against mean "
                               "KLD is 0.90."));
    assert_non_null(strstr(md, "A repeat of the reference gave mean KLD 0 "
                               "and no split: the run is deterministic."));
    /* the page's report section is the same doc */
    assert_non_null(strstr(h, "Where they split</h2>"));
    assert_non_null(strstr(h, ">Mean KLD</th>"));
    free(md);
    free(h);
    /* a repeat that moved: a warning with its figures; no Spearman */
    f.pk.repeat_kld_mean = 0.00042;
    f.pk.repeat_split = 3;
    f.pk.spearman = NAN;
    md = report_md(&f, 0);
    assert_non_null(strstr(md, "**Warning:** a repeat of the reference "
                               "(BF16) gave mean KLD 0.0004 and 3 answers "
                               "split"));
    assert_null(strstr(md, "the run is deterministic"));
    assert_non_null(strstr(md, "Spearman's \xcf\x81 of flips against mean "
                               "KLD: " FMT_DASH));
    free(md);
    f.pk.repeat = 0;
    md = report_md(&f, 0);
    assert_non_null(strstr(md, "No repeat of BF16 with log-probabilities"));
    free(md);
    free(plain);
    fixture_free(&f);
}

/* ---- report.json ------------------------------------------------------- */

static json_t *report_json(struct fixture *f)
{
    char *s = NULL;
    size_t len;
    FILE *m = open_memstream(&s, &len);
    json_error_t je;
    json_t *j;
    const char *path = getenv("GY_PROBS_JSON");

    assert_non_null(m);
    assert_int_equal(render_report_json(m, &f->run, &f->rep, f->x.qs), 0);
    assert_int_equal(fclose(m), 0);
    if (path != NULL && f->rep.probs != NULL) {
        FILE *out = fopen(path, "w");
        assert_non_null(out);
        fputs(s, out);
        assert_int_equal(fclose(out), 0);
    }
    j = json_loads(s, 0, &je);
    if (j == NULL)
        fail_msg("report.json: %s", je.text);
    free(s);
    return j;
}

static void test_json(void **state)
{
    struct fixture f;
    json_t *j, *p, *r, *c, *t;

    (void)state;
    fixture_build(&f);
    j = report_json(&f);
    assert_null(json_object_get(j, "probs"));
    json_decref(j);
    f.rep.probs = &f.pk;
    j = report_json(&f);
    p = json_object_get(j, "probs");
    assert_non_null(p);
    assert_int_equal(json_integer_value(json_object_get(p, "topn")), 4);
    /* the rungs with a file, the reference and Q6_K left out */
    r = json_object_get(p, "rungs");
    assert_int_equal(json_array_size(r), NR - 2);
    r = json_array_get(r, 0);
    assert_string_equal(json_string_value(json_object_get(r, "rung")), "F16");
    r = json_array_get(json_object_get(p, "rungs"), 1);
    assert_string_equal(json_string_value(json_object_get(r, "rung")), "Q8_0");
    assert_true(json_is_null(json_object_get(r, "fragility_auc")));
    assert_true(json_real_value(json_object_get(r, "kld_mean")) == 0.0123);
    assert_int_equal(json_integer_value(json_object_get(r, "split_died")), 4);
    assert_true(json_real_value(json_object_get(p, "spearman")) == 0.9);
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(p, "repeat"), "split")),
                     0);
    c = json_array_get(json_object_get(p, "dead"), 0);
    assert_non_null(c);
    assert_string_equal(json_string_value(json_object_get(c, "before")),
                        HOSTILE_SHOWN);
    assert_true(json_is_null(json_object_get(c, "fragility")));
    t = json_object_get(c, "rung_token");
    assert_int_equal(json_integer_value(json_array_get(t, 0)), 12);
    assert_string_equal(json_string_value(json_array_get(t, 2)),
                        "\xef\xbf\xbd");
    /* the reference's list: the one the server did not send left out */
    assert_int_equal(json_array_size(json_object_get(c, "ref_top")), 3);
    t = json_array_get(json_object_get(c, "rung_top"), 2);
    assert_string_equal(json_string_value(json_array_get(t, 2)), "\\x01");
    json_decref(j);
    fixture_free(&f);
}

/* ---- the page and the cover -------------------------------------------- */

static size_t count(const char *h, const char *needle)
{
    size_t n = 0;

    for (const char *p = h; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

static char *page_of(struct fixture *f, const struct doc *d)
{
    uint16_t *facts = calloc(NR * NQ, sizeof(*facts));
    uint8_t *marks = calloc(NR * NQ, 1);
    const char *names[NR];
    struct page_run pr;
    struct page p;
    char *h = NULL;
    size_t len, i;
    FILE *m;

    assert_non_null(facts);
    assert_non_null(marks);
    for (i = 0; i < NR; i++)
        names[i] = ladder[i];
    grader_bury_cells(&f->rep.chain, f->x.r, NQ, facts);
    grader_grid_marks(f->rep.cells, NR, NQ, marks);
    pr = (struct page_run){"run", f->x.r, facts};
    memset(&p, 0, sizeof(p));
    p.kind = "report";
    p.title = "probs";
    p.qs = f->x.qs;
    p.nq = NQ;
    p.names = names;
    p.nrows = NR;
    p.runs = &pr;
    p.nruns = 1;
    p.order = f->rep.order;
    p.ncols = NQ;
    p.cells = f->rep.cells;
    p.marks = marks;
    p.doc = d;
    p.plain = 1;
    p.probs = f->rep.probs;
    m = open_memstream(&h, &len);
    assert_non_null(m);
    assert_int_equal(render_page(m, &p), 0);
    assert_int_equal(fclose(m), 0);
    free(facts);
    free(marks);
    return h;
}

static void test_page(void **state)
{
    struct fixture f;
    char *h, *plain, *data, *end;
    json_t *d, *pk, *c;
    json_error_t je;
    const char *path = getenv("GY_PROBS_PAGE");
    struct doc *doc;

    (void)state;
    fixture_build(&f);
    plain = page_of(&f, NULL);
    assert_null(strstr(plain, "\"pk\""));
    f.rep.probs = &f.pk;
    doc = render_report_doc(&f.run, &f.rep, f.x.qs);
    assert_non_null(doc);
    h = page_of(&f, doc);
    if (path != NULL) { /* first: the browser sees what a bug made */
        FILE *out = fopen(path, "w");
        assert_non_null(out);
        fputs(h, out);
        assert_int_equal(fclose(out), 0);
    }
    /* the page's two scripts, no more: no token text became markup */
    assert_int_equal(count(h, "<script"), 2);
    assert_int_equal(count(h, "</script>"), 2);
    data = strstr(h, "id=\"gy-data\">");
    assert_non_null(data);
    data += strlen("id=\"gy-data\">");
    end = strstr(data, "</script>");
    d = json_loadb(data, (size_t)(end - data), 0, &je);
    if (d == NULL)
        fail_msg("data block: %s", je.text);
    pk = json_object_get(d, "pk");
    assert_non_null(pk);
    /* Q8_0's shading: 0 where the KLD is 0, level 1 (0.002), the dead
     * cell's 4 (2.5); the reference none */
    {
        const char *kl0 = json_string_value(
                       json_array_get(json_object_get(pk, "kl"), 0)),
                   *kl2 = json_string_value(
                       json_array_get(json_object_get(pk, "kl"), 2));
        assert_int_equal(strlen(kl2), NQ);
        assert_int_equal(kl0[1], '0');
        assert_int_equal(kl2[0], '0');
        assert_int_equal(kl2[f.dead_q], '4');
        assert_int_equal(kl2[f.dead_q == 1 ? 2 : 1], '1');
    }
    assert_true(json_is_null(json_array_get(
        json_array_get(json_object_get(pk, "kld"), 3), 1)));
    c = json_array_get(json_object_get(pk, "cells"), 0);
    assert_int_equal(json_integer_value(json_object_get(c, "q")),
                     (json_int_t)f.dead_q);
    assert_string_equal(json_string_value(json_object_get(c, "b")),
                        HOSTILE_SHOWN);
    assert_string_equal(
        json_string_value(json_array_get(json_object_get(c, "qt"), 2)),
        "\xef\xbf\xbd");
    assert_string_equal(
        json_string_value(json_array_get(
            json_array_get(json_object_get(c, "ra"), 2), 2)),
        "\"\\n\"");
    assert_true(json_is_null(json_object_get(c, "fr")));
    json_decref(d);
    free(h);
    free(plain);
    doc_free(doc);
    fixture_free(&f);
}

static char *cover_of(struct fixture *f, int probs)
{
    uint8_t *marks = calloc(NR * NQ, 1);
    char *s = NULL;
    size_t len;
    FILE *m = open_memstream(&s, &len);

    assert_non_null(marks);
    assert_non_null(m);
    grader_grid_marks(f->rep.cells, NR, NQ, marks);
    if (probs < 0)
        render_cover(m, "cover", ladder, NR, 1, NQ, f->rep.cells, marks);
    else
        assert_int_equal(render_cover_probs(m, "cover", ladder, NR, NQ,
                                            f->rep.cells, marks,
                                            probs ? &f->pk : NULL,
                                            f->rep.order),
                         0);
    assert_int_equal(fclose(m), 0);
    free(marks);
    return s;
}

static void test_cover(void **state)
{
    struct fixture f;
    char *a, *b, *c;
    const char *path = getenv("GY_PROBS_COVER");

    (void)state;
    fixture_build(&f);
    a = cover_of(&f, -1);
    b = cover_of(&f, 0);
    c = cover_of(&f, 1);
    assert_string_equal(a, b); /* without probs: byte for byte */
    assert_null(strstr(a, "#6e0d2e"));
    /* the bands: the dead cell's darkest, and the scale's four swatches */
    assert_non_null(strstr(c, "height=\"5\" fill=\"#6e0d2e\""));
    assert_non_null(strstr(c, "height=\"5\" fill=\"#f2c4ce\""));
    assert_non_null(strstr(c, ">mean KLD from the reference, bottom band: "
                              "0.001\xe2\x80\x93" "0.01</text>"));
    assert_non_null(strstr(c, ">\xe2\x89\xa5 1</text>"));
    /* the caps are all still there */
    assert_int_equal(count(a, "fill=\"" REPORT_DEAD "\""),
                     count(c, "fill=\"" REPORT_DEAD "\""));
    if (path != NULL) {
        FILE *out = fopen(path, "w");
        assert_non_null(out);
        fputs(c, out);
        assert_int_equal(fclose(out), 0);
    }
    free(a);
    free(b);
    free(c);
    fixture_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fmt),
        cmocka_unit_test(test_md_section),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_page),
        cmocka_unit_test(test_cover),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
