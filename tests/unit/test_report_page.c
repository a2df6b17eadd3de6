/*
 * test_report_page.c - what the page stands on and how it writes text:
 * the cells' facts (grader_bury_cells) agree with bury's counts on the
 * study's ladder; the picture's fronts and picks; texts kept with
 * GRADER_READ_KEEP; the escaping of the data block and of HTML text; the
 * report's pieces (doc.h) as Markdown and as HTML, their links from the
 * pieces' kinds; and a whole page built from hostile replies, in which no
 * reply can end the data block or become markup.
 *
 * Tests: report/page.c
 * Tests: report/doc.c
 * Tests: report/doc_html.c
 * Tests: report/doc_md.c
 */
#include "helpers.h"
#include "study.h"

#include <jansson.h>
#include <zlib.h>

#include "ladder.h"
#include "fmt.h"
#include "doc.h"
#include "page.h"
#include "render.h"

/* ---- the study's ladder, as test_grader_ladder builds it ---------------- */

/* The study's nine rungs; rung i decodes at 40 + 6i tok/s. */
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
                      "\"content\":\"work\\nAnswer: %s\","
                      "\"decode_tps\":%.1f}\n",
                      q, study_right(i, q) ? "100" : "99",
                      40.0 + 6.0 * (double)i);
        x->r[i] = load_text(x->qs, test_dir, ladder[i], &t, 0);
        free(t.p);
    }
}

/* The article's bytes (ladder.tsv). */
static const long long study_bytes[NR] = {9311305152, 9311305152, 4967497152,
                                          3845346752, 3630288320, 3427880384,
                                          3360161216, 3201351104, 2989088192};

static void metas_of(struct grader_meta *m, int bytes)
{
    size_t i;

    for (i = 0; i < NR; i++) {
        memset(&m[i], 0, sizeof(m[i]));
        m[i].bytes = bytes ? study_bytes[i] : -1;
        m[i].gpu_mib_loaded = m[i].gpu_mib_before = -1;
    }
}

/* Every rung's cells carry exactly bury's counts: right, dead, ghosts,
 * first deaths; and a tombstone's right-again rungs are ROSE there. */
static void test_cells_agree_with_bury(void **state)
{
    struct rungs x;
    struct grader_bury b;
    struct grader_error err;
    uint16_t *facts;
    size_t i, q, nq;

    (void)state;
    load_study(&x);
    nq = grader_qset_count(x.qs);
    assert_int_equal(grader_bury(x.qs, x.r, NR, 0, &b, &err), 0);
    facts = calloc(NR * nq, sizeof(*facts));
    assert_non_null(facts);
    grader_bury_cells(&b, x.r, nq, facts);
    for (i = 0; i < NR; i++) {
        size_t right = 0, dead = 0, ghosts = 0, tombs = 0, answered = 0;
        for (q = 0; q < nq; q++) {
            uint16_t f = facts[i * nq + q];
            answered += (f & GRADER_F_ANSWERED) != 0;
            right += (f & GRADER_F_RIGHT) != 0;
            dead += (f & GRADER_F_DEAD) != 0;
            ghosts += (f & GRADER_F_GHOST) != 0;
            tombs += (f & GRADER_F_TOMB) != 0;
            /* a tombstone is a death, and dead cells are wrong */
            if (f & GRADER_F_TOMB)
                assert_true(f & GRADER_F_DEAD);
            if (f & (GRADER_F_DEAD | GRADER_F_ROSE))
                assert_int_equal(!(f & GRADER_F_RIGHT), !!(f & GRADER_F_DEAD));
            assert_true(f & GRADER_F_SAID);
        }
        assert_int_equal(answered, NQ);
        assert_int_equal(right, (size_t)study[i][0]);
        assert_int_equal(dead, b.lines[i].dead);
        assert_int_equal(dead, (size_t)study[i][1]);
        assert_int_equal(ghosts, b.lines[i].ghosts);
        assert_int_equal(tombs, b.lines[i].first_deaths);
    }
    for (i = 0; i < b.ntombs; i++) {
        const struct grader_tombstone *t = &b.tombs[i];
        size_t k;
        for (k = 1; k < NR; k++) {
            uint16_t f = facts[k * nq + t->q];
            assert_int_equal(!!(f & GRADER_F_ROSE),
                             !!(t->right_again & (1ULL << k)));
            assert_int_equal(!!(f & GRADER_F_TOMB), k == t->died_at);
        }
    }
    free(facts);
    grader_bury_release(&b);
    free_rungs(&x);
}

/* The picks of rep against a brute force over its figures: the smallest
 * and the fastest of the reference and the rungs whose verdict is
 * equivalent. */
static void check_picks(const struct grader_ladder *rep)
{
    long smallest = -1, fastest = -1;
    size_t p;

    for (p = 0; p < NR; p++) {
        const struct grader_figures *a = &rep->rungs[p];
        int eq = p == 0 || a->verdict.kind == GRADER_VERDICT_EQUIVALENT;
        assert_int_equal(!!(rep->pick.equivalent & (1ULL << p)), eq);
        if (eq &&
            (smallest < 0 || a->pct_bytes < rep->rungs[smallest].pct_bytes))
            smallest = (long)p;
        if (eq &&
            (fastest < 0 || a->line->sum.median_tps >
                                rep->rungs[fastest].line->sum.median_tps))
            fastest = (long)p;
    }
    assert_int_equal(rep->pick.smallest, smallest);
    assert_int_equal(rep->pick.fastest, fastest);
}

/* The fronts and picks on the study's ladder, against a brute force over
 * the figures, and the answer pinned. */
static void test_pick_study(void **state)
{
    struct grader_meta m[NR];
    struct grader_ladder rep;
    struct grader_error err;
    struct rungs x;
    size_t p, q;

    (void)state;
    load_study(&x);
    metas_of(m, 1);
    assert_int_equal(grader_ladder_build(x.qs, m, x.r, NR, NULL, 0, NULL, NULL,
                                         0, 0, &rep, &err),
                     0);
    assert_int_equal(rep.pick.npoints, NR);
    for (p = 0; p < NR; p++) {
        const struct grader_figures *a = &rep.rungs[p];
        int beaten_b = 0, beaten_s = 0;
        for (q = 0; q < NR; q++) {
            const struct grader_figures *o = &rep.rungs[q];
            if (q == p)
                continue;
            beaten_b |= o->pct_bytes <= a->pct_bytes && o->acc >= a->acc &&
                        (o->pct_bytes < a->pct_bytes || o->acc > a->acc);
            beaten_s |= o->line->sum.median_tps >= a->line->sum.median_tps &&
                        o->acc >= a->acc &&
                        (o->line->sum.median_tps > a->line->sum.median_tps ||
                         o->acc > a->acc);
        }
        assert_int_equal(!!(rep.pick.bytes_front & (1ULL << p)), !beaten_b);
        assert_int_equal(!!(rep.pick.speed_front & (1ULL << p)), !beaten_s);
    }
    /* at 2 points only F16 is equivalent (docs/grading.md, "Verdicts");
     * at 5, every rung from F16 to Q4_K_M; an interval that includes zero
     * (Q4_0's -6.9 to +1.1) is not enough */
    check_picks(&rep);
    assert_int_equal(rep.pick.equivalent, (1 << 0) | (1 << 1));
    grader_ladder_verdicts(&rep, 5.0);
    check_picks(&rep);
    assert_int_equal(rep.pick.equivalent, 0x3f);
    assert_int_equal(rep.pick.smallest, 5);
    /* the study's figures: Q5_K_M beats BF16, F16, Q8_0 and Q6_K on both
     * size and accuracy, so none of those is on the bytes front */
    assert_false(rep.pick.bytes_front &
                 ((1 << 0) | (1 << 1) | (1 << 2) | (1 << 3)));
    assert_true(rep.pick.bytes_front & (1 << 4));
    /* Q3_K_M's 42 dead against 4 ghosts is far outside the noise */
    assert_false(rep.pick.equivalent & (1 << 7));
    assert_int_equal(rep.pick.no_bytes, 0);
    grader_ladder_release(&rep);

    /* no bytes: no bytes front, no smallest; speeds still there */
    metas_of(m, 0);
    assert_int_equal(grader_ladder_build(x.qs, m, x.r, NR, NULL, 0, NULL, NULL,
                                         0, 0, &rep, &err),
                     0);
    assert_int_equal(rep.pick.bytes_front, 0);
    assert_int_equal(rep.pick.no_bytes, NR);
    assert_int_equal(rep.pick.smallest, -1);
    assert_true(rep.pick.fastest >= 0);
    grader_ladder_release(&rep);
    free_rungs(&x);
}

/* Two files of one size: the less accurate is off the front (a tie on x
 * is settled by accuracy, among equivalent files too), and a reference
 * alone is the pick when no rung is equivalent. */
static void test_pick_ties(void **state)
{
    static const int right[3] = {10, 9, 7};
    static const char *const name[3] = {"REF", "A", "B"};
    struct grader_meta m[3];
    struct grader_ladder rep;
    struct grader_error err;
    struct rungs x;
    size_t i, q;

    (void)state;
    x.qs = grader_qset_new();
    x.n = 3;
    for (i = 0; i < 3; i++) {
        struct text t = {0};
        for (q = 0; q < 10; q++)
            text_addf(&t,
                      "{\"id\":\"q%zu\",\"reference\":\"1\",\"content\":"
                      "\"Answer: %d\",\"decode_tps\":%d}\n",
                      q, (int)q < right[i] ? 1 : 2, 50);
        x.r[i] = load_text(x.qs, test_dir, name[i], &t, 0);
        free(t.p);
        memset(&m[i], 0, sizeof(m[i]));
        m[i].bytes = i ? 50 : 100;
        m[i].gpu_mib_loaded = m[i].gpu_mib_before = -1;
    }
    assert_int_equal(grader_ladder_build(x.qs, m, x.r, 3, NULL, 0, NULL, NULL,
                                         0, 0, &rep, &err),
                     0);
    assert_int_equal(rep.pick.bytes_front, (1 << 0) | (1 << 1));
    /* equal speeds: only the most accurate is on that front */
    assert_int_equal(rep.pick.speed_front, 1 << 0);
    /* on 10 questions nothing is equivalent within 2 points: the
     * reference stays the pick */
    assert_int_equal(rep.pick.equivalent, 1 << 0);
    assert_int_equal(rep.pick.smallest, 0);
    /* within 99 both are: the tie on size goes to the more accurate */
    grader_ladder_verdicts(&rep, 99.0);
    assert_int_equal(rep.pick.equivalent, 7);
    assert_int_equal(rep.pick.smallest, 1);
    grader_ladder_release(&rep);
    free_rungs(&x);
}

/* ---- kept texts -------------------------------------------------------- */

static void expect_kept(const struct grader_rung *r, size_t i, int field,
                        const char *want, size_t want_len)
{
    size_t len;
    const char *s = grader_rung_kept(r, &r->answers[i], field, &len);

    if (want == NULL) {
        assert_null(s);
        return;
    }
    assert_non_null(s);
    assert_int_equal(len, want_len);
    assert_memory_equal(s, want, len);
}

static void test_keep(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *r, *plain;
    struct text t = {0};

    (void)state;
    text_addf(&t,
              "{\"id\":\"a\",\"reference\":\"1\",\"content\":\"x\\u0000y\","
              "\"reasoning_content\":\"think\",\"finish_reason\":"
              "\"length\",\"error\":null}\n");
    text_addf(&t, "{\"id\":\"b\",\"reference\":\"2\",\"content\":null,"
                  "\"error\":\"HTTP 500: \\\"bad\\\"\"}\n");
    text_addf(&t, "{\"id\":\"c\",\"reference\":\"3\",\"content\":\"\","
                  "\"finish_reason\":\"stop\"}\n");
    r = load_text(qs, test_dir, "K", &t, GRADER_READ_KEEP);
    plain = load_text(qs, test_dir, "P", &t, 0);
    free(t.p);
    assert_int_equal(r->n, 3);
    expect_kept(r, 0, GRADER_KEEP_CONTENT, "x\0y", 3);
    expect_kept(r, 0, GRADER_KEEP_REASONING, "think", 5);
    expect_kept(r, 0, GRADER_KEEP_FINISH, "length", 6);
    expect_kept(r, 0, GRADER_KEEP_ERROR, NULL, 0);
    expect_kept(r, 1, GRADER_KEEP_CONTENT, NULL, 0);
    expect_kept(r, 1, GRADER_KEEP_ERROR, "HTTP 500: \"bad\"", 15);
    expect_kept(r, 1, GRADER_KEEP_FINISH, NULL, 0);
    expect_kept(r, 2, GRADER_KEEP_CONTENT, "", 0);
    expect_kept(r, 2, GRADER_KEEP_FINISH, "stop", 4);
    /* grading is the same either way */
    assert_int_equal(r->answers[1].flags, plain->answers[1].flags);
    expect_kept(plain, 0, GRADER_KEEP_CONTENT, NULL, 0);
    grader_rung_free(r);
    grader_rung_free(plain);
    grader_qset_free(qs);
}

/* ---- escaping ---------------------------------------------------------- */

static char *render(void (*fn)(FILE *, const char *, size_t), const char *s,
                    size_t len, size_t *outlen)
{
    char *p = NULL;
    FILE *f = open_memstream(&p, outlen);

    assert_non_null(f);
    fn(f, s, len);
    assert_int_equal(fclose(f), 0);
    return p;
}

/* The data block's strings: nothing that can end a script, valid JSON,
 * and what JSON.parse gives back is the text (bad UTF-8 as U+FFFD). */
static void test_json_string(void **state)
{
    static const struct {
        const char *in;
        size_t len;
        const char *want; /* after a JSON parse */
    } cases[] = {
        {"</script><script>alert(1)</script>", 34,
         "</script><script>alert(1)</script>"},
        {"<!-- x --> & \"q\" 'a' \\", 22, "<!-- x --> & \"q\" 'a' \\"},
        {"line\xe2\x80\xa8sep\xe2\x80\xa9", 13,
         "line\xe2\x80\xa8sep\xe2\x80\xa9"},
        {"bad \xff byte", 10, "bad \xef\xbf\xbd byte"},
        {"overlong \xc0\xaf", 11, "overlong \xef\xbf\xbd\xef\xbf\xbd"},
        {"surrogate \xed\xa0\x80", 13,
         "surrogate \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
        {"cut \xe2\x82", 6, "cut \xef\xbf\xbd\xef\xbf\xbd"},
        {"ctl \x01\x1f\x7f\t\n", 9, "ctl \x01\x1f\x7f\t\n"},
        {"caf\xc3\xa9 \xf0\x9f\x91\xbb", 10, "caf\xc3\xa9 \xf0\x9f\x91\xbb"},
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n;
        char *out = render(page_json_string, cases[i].in, cases[i].len, &n);
        json_error_t e;
        json_t *v = json_loadb(out, n, JSON_DECODE_ANY, &e);
        size_t k;
        /* no raw < > & at all, no raw U+2028/9 */
        for (k = 0; k < n; k++)
            assert_true(out[k] != '<' && out[k] != '>' && out[k] != '&');
        assert_null(strstr(out, "\xe2\x80\xa8"));
        assert_null(strstr(out, "\xe2\x80\xa9"));
        if (v == NULL)
            fail_msg("case %zu: %s: %s", i, out, e.text);
        assert_string_equal(json_string_value(v), cases[i].want);
        json_decref(v);
        free(out);
    }
}

static void test_html_text(void **state)
{
    size_t n;
    char *out;

    (void)state;
    out = render(fmt_markup, "<img src=x onerror=\"alert(1)\">&'\xff", 33, &n);
    assert_string_equal(out, "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"
                             "&amp;'\xef\xbf\xbd");
    free(out);
}

/* ---- the report's pieces ------------------------------------------------ */

/* d as HTML (the picture given) or, html 0, as Markdown; a new string. */
static char *doc_out(const struct doc *d, int html)
{
    char *p = NULL;
    size_t len;
    FILE *f = open_memstream(&p, &len);

    assert_non_null(f);
    if (html) {
        const struct doc_svg pic = {"pareto.svg", "<svg id=\"pic\"></svg>",
                                    20};
        doc_html(f, d, &pic, 1);
    } else
        doc_md(f, d);
    assert_int_equal(fclose(f), 0);
    return p;
}

/* Each kind of piece, written both ways: the Markdown as the reports have
 * always written it, the HTML from the kinds. The rung links come from
 * doc_rung, not from a heading's words or a cell's text: "total" is no
 * rung, "Q4_0" as plain text is no link, and a tomb link stands under any
 * heading. */
static void test_doc_pieces(void **state)
{
    struct doc *d = doc_new();
    char *md, *h;

    (void)state;
    assert_non_null(d);
    doc_heading(d, 1);
    doc_raw(d, "graveyard: ");
    doc_text(d, "a *ladder* <b>", 4096);
    doc_para(d);
    doc_raw(d, "Text with ");
    doc_code(d, "code <b> `x` a|b", 256);
    doc_raw(d, " and ");
    doc_bold(d, "bold");
    doc_raw(d, " & <script>x</script>.");
    doc_heading(d, 2);
    doc_raw(d, "The ladder");
    doc_table(d, "lr");
    doc_row(d);
    doc_cellf(d, "Rung");
    doc_cellf(d, "Right");
    doc_row(d);
    doc_cell(d);
    doc_rung(d, "BF16", 0);
    doc_cellf(d, "%d", 7);
    doc_row(d);
    doc_cellf(d, "total");
    doc_cellf(d, "12");
    doc_row(d);
    doc_cellf(d, "Q4_0");
    doc_cellf(d, "5");
    doc_table(d, "lll");
    doc_row(d);
    doc_cellf(d, "Rung");
    doc_cellf(d, "Verdict");
    doc_cellf(d, "%s", "");
    doc_row(d);
    doc_cell(d);
    doc_rung(d, "Q4_0", 0);
    doc_cellf(d, "within");
    doc_cell(d);
    doc_image(d, "pic", "pareto.svg", 1);
    doc_image(d, "cover", "cover.svg", 0);
    doc_heading(d, 2);
    doc_raw(d, "Deaths, by another name");
    doc_table(d, "lr");
    doc_row(d);
    doc_cellf(d, "Rung");
    doc_cellf(d, "First deaths");
    doc_row(d);
    doc_cell(d);
    doc_rung(d, "Q4_0", 1);
    doc_cellf(d, "3");
    doc_heading(d, 2);
    doc_raw(d, "Tombstones");
    doc_list(d);
    doc_item(d);
    doc_question(d, "test_687", 2048);
    doc_raw(d, ", answer 13. Died at Q4_0.");
    doc_item(d);
    doc_raw(d, "plain item");
    doc_para_last(d);
    doc_raw(d, "The end.");
    assert_true(doc_ok(d));
    md = doc_out(d, 0);
    assert_string_equal(
        md, "# graveyard: a \\*ladder\\* &lt;b&gt;\n\n"
            "Text with `code <b> 'x' a\\|b` and **bold** & "
            "<script>x</script>.\n\n"
            "## The ladder\n\n"
            "| Rung | Right |\n|---|---:|\n| BF16 | 7 |\n| total | 12 |\n"
            "| Q4_0 | 5 |\n\n"
            "| Rung | Verdict |  |\n|---|---|---|\n| Q4_0 | within |  |\n\n"
            "![pic](pareto.svg)\n\n![cover](cover.svg)\n\n"
            "## Deaths, by another name\n\n"
            "| Rung | First deaths |\n|---|---:|\n| Q4_0 | 3 |\n\n"
            "## Tombstones\n\n"
            "- **test\\_687**, answer 13. Died at Q4_0.\n"
            "- plain item\n\nThe end.\n");
    h = doc_out(d, 1);
    /* the first heading is the page's own */
    assert_null(strstr(h, "<h1"));
    assert_null(strstr(h, "graveyard:"));
    assert_null(strstr(h, "*ladder*"));
    assert_non_null(strstr(h, "<p>Text with <code>code &lt;b&gt; 'x' "
                              "a|b</code> and <strong>bold</strong> &amp; "
                              "&lt;script&gt;x&lt;/script&gt;.</p>\n"));
    assert_null(strstr(h, "<script"));
    assert_non_null(strstr(h, "<h2>The ladder</h2>\n<div class=\"tw\">"
                              "<table>\n<thead><tr><th>Rung</th><th "
                              "class=\"n\">Right</th></tr></thead><tbody>\n"));
    assert_non_null(strstr(h,
                           "<td><a href=\"#f=dead&amp;r=BF16\">BF16</a></td>"
                           "<td class=\"n\">7</td>"));
    assert_non_null(strstr(h, "<tr><td>total</td>"));
    assert_non_null(strstr(h, "<tr><td>Q4_0</td><td class=\"n\">5</td>"));
    /* an empty last cell is a cell, in the header as in the rows */
    assert_non_null(strstr(h, "<th>Verdict</th><th></th></tr>"));
    assert_non_null(strstr(h, "<td>within</td><td></td></tr>"));
    assert_non_null(strstr(h, "<a href=\"#f=tomb&amp;r=Q4_0\">Q4_0</a>"));
    assert_non_null(strstr(h, "<figure class=\"pic\"><svg id=\"pic\"></svg>"
                              "</figure>\n"));
    assert_null(strstr(h, "cover"));
    assert_non_null(strstr(h, "<ul>\n<li><a href=\"#q=test_687\"><strong>"
                              "test_687</strong></a>, answer 13. Died at "
                              "Q4_0.</li>\n<li>plain item</li>\n</ul>\n"
                              "<p>The end.</p>\n"));
    free(md);
    free(h);
    doc_free(d);
}

/* An epitaph's link is the id itself, whatever it holds: the Markdown
 * writes it with fmt_id, the link carries the id percent-encoded (#q=...,
 * which the script decodes and looks up in the data's ids) and the text
 * shows it: "a<b" links to a<b, "line\nbreak" to a line end. */
static void test_doc_epitaph_ids(void **state)
{
    static const struct {
        const char *id, *href, *shown;
    } want[] = {
        {"a<b", "a%3Cb", "a&lt;b"},
        {"x&y", "x%26y", "x&amp;y"},
        {"q\"1", "q%221", "q&quot;1"},
        {"line\nbreak", "line%0Abreak", "line&#10;break"},
        {"line break", "line%20break", "line break"},
        {"cr\r", "cr%0D", "cr&#13;"},
        {"#frag", "%23frag", "#frag"},
        {"it's a>b &amp; c", "it%27s%20a%3Eb%20%26amp%3B%20c",
         "it's a&gt;b &amp;amp; c"},
        {"a\\*", "a%5C%2A", "a\\*"},
        {"**", "%2A%2A", "**"},
        {"caf\xc3\xa9 \xe2\x80\xa8", "caf%C3%A9%20%E2%80%A8",
         "caf\xc3\xa9 \xe2\x80\xa8"},
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        struct doc *d = doc_new();
        char md[512], id[256], expect[512], *h, *m;
        assert_non_null(d);
        doc_heading(d, 2);
        doc_raw(d, "Tombstones");
        doc_list(d);
        doc_item(d);
        doc_question(d, want[i].id, 2048);
        doc_raw(d, ", answer 5.");
        h = doc_out(d, 1);
        m = doc_out(d, 0);
        fmt_id(id, sizeof(id), want[i].id);
        snprintf(md, sizeof(md), "## Tombstones\n\n- **%s**, answer 5.\n\n",
                 id);
        assert_string_equal(m, md);
        snprintf(expect, sizeof(expect),
                 "<li><a href=\"#q=%s\"><strong>%s</strong></a>, answer "
                 "5.</li>",
                 want[i].href, want[i].shown);
        if (strstr(h, expect) == NULL)
            fail_msg("id %zu: %s\nwant %s", i, h, expect);
        free(h);
        free(m);
        doc_free(d);
    }
}

/* A whole report's doc, from the study's ladder and a folder whose
 * settings hold Markdown's marks: REPORT.md escapes them as it always
 * has, and the page shows them as text, where reading the Markdown back
 * made "**x**" bold and "`y`" code. */
static void test_report_doc(void **state)
{
    struct grader_meta m[NR];
    struct grader_ladder rep;
    struct grader_error err;
    struct rundir_run run;
    struct rungs x;
    struct doc *d;
    json_error_t je;
    char *md, *h;

    (void)state;
    load_study(&x);
    metas_of(m, 1);
    assert_int_equal(grader_ladder_build(x.qs, m, x.r, NR, NULL, 0, NULL, NULL,
                                         0, 0, &rep, &err),
                     0);
    memset(&run, 0, sizeof(run));
    run.dir = "runs/t4";
    run.name = "t4 <ladder>";
    run.manifest = json_loads("{\"request\": {\"temperature\": 0, \"stop\": "
                              "[\"**x**\", \"`y`\", \"a|b\"]}}",
                              0, &je);
    assert_non_null(run.manifest);
    d = render_report_doc(&run, &rep, x.qs);
    assert_non_null(d);
    md = doc_out(d, 0);
    h = doc_out(d, 1);
    assert_true(strncmp(md, "# graveyard: t4 &lt;ladder&gt;\n\n", 32) == 0);
    assert_non_null(strstr(md, "| Sampling | temperature 0, stop "
                               "[\"**x**\",\"`y`\",\"a\\|b\"] |\n"));
    assert_non_null(strstr(h, "<td>Sampling</td><td>temperature 0, stop "
                              "[&quot;**x**&quot;,&quot;`y`&quot;,&quot;"
                              "a|b&quot;]</td>"));
    /* every rung's row of the ladder links to its deaths; the first
     * deaths' rows to its tombstones */
    for (size_t i = 0; i < NR; i++) {
        char link[128];
        snprintf(link, sizeof(link), "<td><a href=\"#f=dead&amp;r=%s\">",
                 ladder[i]);
        assert_non_null(strstr(h, link));
        snprintf(link, sizeof(link), "<td><a href=\"#f=tomb&amp;r=%s\">",
                 ladder[i]);
        if (i > 0)
            assert_non_null(strstr(h, link));
    }
    assert_non_null(strstr(h, "<li><a href=\"#q=test-"));
    free(md);
    free(h);
    doc_free(d);
    json_decref(run.manifest);
    grader_ladder_release(&rep);
    free_rungs(&x);
}

/* ---- a whole page from hostile replies -------------------------------- */

/* Standard base64 back to bytes; the number of bytes. */
static long unbase64(const char *s, size_t n, unsigned char *out)
{
    static const char abc[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    unsigned long acc = 0;
    long len = 0;
    int bits = 0;
    size_t i;

    for (i = 0; i < n && s[i] != '='; i++) {
        acc = (acc << 6) | (unsigned long)(strchr(abc, s[i]) - abc);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[len++] = (unsigned char)(acc >> bits);
        }
    }
    return len;
}

/* The text of the <script id="ID"> block in page h; *end its close. */
static char *script_body(char *h, const char *id, char **end)
{
    char open[64], *p;

    snprintf(open, sizeof(open), "id=\"%s\">", id);
    p = strstr(h, open);
    assert_non_null(p);
    p += strlen(open);
    *end = strstr(p, "</script>");
    assert_non_null(*end);
    return p;
}

static size_t count(const char *h, const char *needle)
{
    size_t n = 0;

    for (h = strstr(h, needle); h; h = strstr(h + 1, needle))
        n++;
    return n;
}

static void test_page_hostile(void **state)
{
    static const char *const hostile[] = {
        "</script><script>alert(1)</script>",
        "<img src=x onerror=\"alert(2)\">",
        "\"quotes\" and 'single' and \\\\ and &amp;",
        "</SCRIPT ><!--",
    };
    struct grader_qset *qs = grader_qset_new();
    const struct grader_rung *r[2];
    struct grader_bury b;
    struct grader_error err;
    struct text t = {0};
    uint16_t facts[2 * 4];
    uint32_t order[4] = {0, 1, 2, 3};
    uint8_t cells[2 * 4], marks[2 * 4];
    const char *names[2] = {"REF", "<b>Q</b>"},
               *qtext[4] = {"q <i>0</i>", NULL, NULL, NULL},
               *verdicts[2] = {NULL, "cannot tell </script><b>"};
    struct page_run run = {"run \"one\"", r, facts};
    struct page p;
    struct doc *doc = doc_new();
    char *h = NULL, *data, *end;
    size_t len, i;
    FILE *f;
    json_t *d;
    json_error_t je;

    (void)state;
    for (i = 0; i < 4; i++) {
        json_t *s = json_string(hostile[i]);
        char *js = json_dumps(s, JSON_ENCODE_ANY);
        text_addf(&t,
                  "{\"id\":\"</script>%zu\",\"reference\":\"1\","
                  "\"content\":%s,\"error\":%s}\n",
                  i, js, i == 3 ? js : "null");
        free(js);
        json_decref(s);
    }
    r[0] = load_text(qs, test_dir, "REF", &t, GRADER_READ_KEEP);
    r[1] = load_text(qs, test_dir, "Q", &t, GRADER_READ_KEEP);
    free(t.p);
    assert_int_equal(grader_bury(qs, r, 2, 0, &b, &err), 0);
    grader_bury_cells(&b, r, 4, facts);
    grader_grid(r, 1, 2, order, 4, cells);
    grader_grid_marks(cells, 2, 4, marks);
    assert_non_null(doc);
    doc_table(doc, "ll");
    doc_row(doc);
    doc_cell(doc);
    doc_text(doc, "<b>", 64);
    doc_cellf(doc, "x");
    doc_row(doc);
    doc_cell(doc);
    doc_rung(doc, names[1], 0);
    doc_cell(doc);
    doc_celltext(doc, "<i>", 64);
    p = (struct page){"report",  "title </script>",
                      "sub <b>", qs,
                      4,         names,
                      NULL,      2,
                      &run,      1,
                      order,     4,
                      cells,     marks,
                      qtext,     "note <i>",
                      doc,       NULL,
                      0,         1,
                      NULL,      verdicts,
                      NULL,      0};
    f = open_memstream(&h, &len);
    assert_int_equal(render_page(f, &p), 0);
    assert_int_equal(fclose(f), 0);
    /* exactly the page's own two scripts, and no element from the text */
    assert_int_equal(count(h, "<script"), 2);
    assert_int_equal(count(h, "</script>"), 2);
    assert_int_equal(count(h, "<img"), 0);
    assert_int_equal(count(h, "<b>"), 0);
    assert_int_equal(count(h, "<i>"), 0);
    assert_non_null(strstr(h, "script-src 'sha256-"));
    assert_non_null(strstr(h, "default-src 'none'"));
    /* the data block parses, and gives the texts back as they were */
    data = script_body(h, "gy-data", &end);
    d = json_loadb(data, (size_t)(end - data), 0, &je);
    if (d == NULL)
        fail_msg("data block: %s", je.text);
    {
        json_t *T = json_object_get(d, "T");
        json_t *x = json_object_get(
            json_array_get(
                json_object_get(json_array_get(json_object_get(d, "runs"), 0),
                                "r"),
                1),
            "x");
        for (i = 0; i < 4; i++) {
            json_int_t k = json_integer_value(json_array_get(x, i));
            assert_string_equal(
                json_string_value(json_array_get(T, (size_t)k)), hostile[i]);
        }
        /* each reply once: REF's and Q's are the same texts, and the
         * error of row 3 is its content */
        assert_int_equal(json_array_size(T), 4 + 1);
        assert_string_equal(
            json_string_value(json_array_get(json_object_get(d, "ids"), 0)),
            "</script>0");
        /* no code view's arrays on a page of another task */
        assert_null(json_object_get(
            json_array_get(
                json_object_get(json_array_get(json_object_get(d, "runs"), 0),
                                "r"),
                1),
            "cd"));
        /* each row's verdict as written; none at the reference */
        x = json_object_get(d, "rows");
        assert_true(
            json_is_null(json_object_get(json_array_get(x, 0), "verdict")));
        assert_string_equal(json_string_value(json_object_get(
                                json_array_get(x, 1), "verdict")),
                            verdicts[1]);
    }
    /* gzipped (the default): base64 of a gzip stream of the same JSON */
    {
        char *g = NULL, *z, *zend, *plain_json;
        size_t glen, plen = (size_t)(end - data), zlen, k;
        unsigned char *bin, *out;
        unsigned long outlen;
        z_stream zs;
        p.plain = 0;
        f = open_memstream(&g, &glen);
        assert_int_equal(render_page(f, &p), 0);
        assert_int_equal(fclose(f), 0);
        assert_null(strstr(g, "id=\"gy-data\""));
        z = script_body(g, "gy-z", &zend);
        zlen = (size_t)(zend - z);
        for (k = 0; k < zlen; k++)
            assert_non_null(strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
                                   "opqrstuvwxyz0123456789+/=",
                                   z[k]));
        bin = malloc(zlen);
        out = malloc(plen + 16);
        assert_non_null(bin);
        assert_non_null(out);
        zlen = (size_t)unbase64(z, zlen, bin);
        memset(&zs, 0, sizeof(zs));
        assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
        zs.next_in = bin;
        zs.avail_in = (uInt)zlen;
        zs.next_out = out;
        zs.avail_out = (uInt)(plen + 16);
        assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
        outlen = zs.total_out;
        inflateEnd(&zs);
        plain_json = data;
        assert_int_equal(outlen, plen);
        assert_memory_equal(out, plain_json, plen);
        free(bin);
        free(out);
        free(g);
    }
    json_decref(d);
    free(h);
    doc_free(doc);
    grader_bury_release(&b);
    grader_rung_free((struct grader_rung *)r[0]);
    grader_rung_free((struct grader_rung *)r[1]);
    grader_qset_free(qs);
}

/* ---- a code rung's code, outcome and output (docs/report.md) ----------- */

static const char sha64[] =
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

/* A code row: content "Here.\n```python\nCODE```\nDone." (no fence when
 * code is NULL), its outcome, the hash of the code that ran, output. */
static void code_row(struct text *t, const char *id, const char *code,
                     const char *exec, int passed, const char *output)
{
    char hex[17] = "", content[512];
    json_t *c, *o;
    char *cs, *os;

    if (code != NULL) {
        grader_code_hash(code, strlen(code), hex);
        snprintf(content, sizeof(content), "Here.\n```python\n%s```\nDone.",
                 code);
    } else {
        snprintf(content, sizeof(content), "I would rather not.");
    }
    c = json_string(content);
    o = output ? json_string(output) : json_null();
    cs = json_dumps(c, JSON_ENCODE_ANY);
    os = json_dumps(o, JSON_ENCODE_ANY);
    text_addf(t,
              "{\"id\":\"%s\",\"reference\":\"%s\",\"content\":%s,"
              "\"exec\":\"%s\",\"tests_passed\":%d,\"tests_total\":3,"
              "\"exception\":%s,\"code_hash\":%s%s%s,\"exec_output\":%s}\n",
              id, sha64, cs, exec, passed,
              strcmp(exec, "failed") == 0 ? "\"AssertionError\"" : "null",
              code ? "\"" : "", code ? hex : "null", code ? "\"" : "", os);
    free(cs);
    free(os);
    json_decref(c);
    json_decref(o);
}

static struct grader_rung *code_rung(struct grader_qset *qs,
                                     struct grader_task *task,
                                     const char *name, const struct text *t)
{
    struct grader_rung *r = grader_rung_new(name, name);
    struct grader_reader rd;
    struct grader_error err;
    int rc;

    assert_non_null(r);
    grader_reader_init(&rd, qs, r, GRADER_READ_KEEP);
    grader_reader_set_rule(&rd, task, 0);
    rc = grader_reader_feed(&rd, t->p, strlen(t->p), &err);
    if (rc == 0)
        rc = grader_reader_finish(&rd, &err);
    grader_reader_release(&rd);
    if (rc != 0)
        fail_msg("%s:%ld: %s", err.file, err.line, err.text);
    return r;
}

/* T[k] of run 0's row 'row', field 'key', question q: NULL for -1 (and
 * the whole array absent: "absent"). */
static const char *code_field(json_t *d, size_t row, const char *key, size_t q)
{
    json_t *r = json_array_get(
        json_object_get(json_array_get(json_object_get(d, "runs"), 0), "r"),
        row);
    json_t *a = json_object_get(r, key);
    json_int_t k;

    if (a == NULL)
        return "absent";
    k = json_integer_value(json_array_get(a, q));
    return k < 0 ? NULL
                 : json_string_value(
                       json_array_get(json_object_get(d, "T"), (size_t)k));
}

/* A code rung's arrays: "cd" the code grader_code_extract takes from the
 * reply (not the words around it), "oc" the outcome's name, "o" what it
 * printed; none of them for a rung that ran no code. */
/* A body rule's reply that holds a fence (test_page_code's B, b). */
static const char fenced_body[] = "    y = 1\n```python\n    return y\n";

static void test_page_code(void **state)
{
    static const char ref_a[] = "def f(x):\n    return x + 1\n",
                      q_a[] = "def f(x):\n    return x - 1\n",
                      tb[] = "Traceback (most recent call last):\n"
                             "AssertionError: f(1) == 2\n";
    struct grader_qset *qs = grader_qset_new();
    int rc;
    struct grader_task *task = grader_task_builtin("code", &rc);
    const struct grader_rung *r[4];
    struct text tr = {0}, tq = {0}, tn = {0}, tbody = {0};
    struct grader_task *body = grader_task_new("body", GRADER_REF_CODE);
    char msg[200], hex[17];
    uint16_t facts[4 * 2] = {0};
    uint32_t order[2] = {0, 1};
    uint8_t cells[4 * 2] = {0}, marks[4 * 2] = {0};
    const char *names[4] = {"REF", "Q", "G", "B"};
    struct page_run run = {"run", r, facts};
    struct page p;
    char *h = NULL, *data, *end;
    size_t len;
    FILE *f;
    json_t *d;
    json_error_t je;

    (void)state;
    assert_non_null(task);
    code_row(&tr, "a", ref_a, "passed", 3, NULL);
    code_row(&tr, "b", ref_a, "passed", 3, "");
    code_row(&tq, "a", q_a, "failed", 1, tb);
    code_row(&tq, "b", NULL, "no_code", 0, NULL);
    /* G ran no code: its rows are errors (no outcome) */
    text_addf(&tn,
              "{\"id\":\"a\",\"reference\":\"%s\",\"content\":null,"
              "\"error\":\"HTTP 500\",\"exec\":null}\n{\"id\":\"b\","
              "\"reference\":\"%s\",\"content\":null,\"error\":\"HTTP 500\","
              "\"exec\":null}\n",
              sha64, sha64);
    r[0] = code_rung(qs, task, "REF", &tr);
    r[1] = code_rung(qs, task, "Q", &tq);
    r[2] = code_rung(qs, task, "G", &tn);
    /* B ran by a body rule: its reply whole is the code that ran */
    assert_non_null(body);
    assert_int_equal(grader_task_add_rule(body, "body", GRADER_RULE_EXEC_BODY,
                                          msg, sizeof(msg)),
                     0);
    grader_code_hash(q_a + 10, strlen(q_a + 10), hex);
    text_addf(
        &tbody,
        "{\"id\":\"a\",\"reference\":\"%s\",\"content\":\"    return x "
        "- 1\\n\",\"exec\":\"failed\",\"tests_passed\":1,\"tests_total\":3,"
        "\"exception\":null,\"code_hash\":\"%s\"}\n",
        sha64, hex);
    /* ... and one whose reply holds a fence: the reply whole ran, not
     * the block (the page finds which by the hash the grader kept) */
    grader_code_hash(fenced_body, strlen(fenced_body), hex);
    text_addf(&tbody,
              "{\"id\":\"b\",\"reference\":\"%s\",\"content\":\"    y = "
              "1\\n```python\\n    return y\\n\",\"exec\":\"failed\","
              "\"tests_passed\":0,\"tests_total\":3,\"exception\":null,"
              "\"code_hash\":\"%s\"}\n",
              sha64, hex);
    r[3] = code_rung(qs, body, "B", &tbody);
    free(tbody.p);
    free(tr.p);
    free(tq.p);
    free(tn.p);
    p = (struct page){"report", "code", NULL,  qs, 2,     names, NULL, 4,
                      &run,     1,      order, 2,  cells, marks, NULL, NULL,
                      NULL,     NULL,   0,     1,  NULL,  NULL, NULL, 0};
    f = open_memstream(&h, &len);
    assert_int_equal(render_page(f, &p), 0);
    assert_int_equal(fclose(f), 0);
    data = script_body(h, "gy-data", &end);
    d = json_loadb(data, (size_t)(end - data), 0, &je);
    if (d == NULL)
        fail_msg("data block: %s", je.text);
    assert_string_equal(code_field(d, 0, "cd", 0), ref_a);
    assert_string_equal(code_field(d, 1, "cd", 0), q_a);
    assert_null(code_field(d, 1, "cd", 1)); /* no code in the reply */
    assert_string_equal(code_field(d, 0, "oc", 0), "passed");
    assert_string_equal(code_field(d, 1, "oc", 0), "failed");
    assert_string_equal(code_field(d, 1, "oc", 1), "no_code");
    assert_string_equal(code_field(d, 1, "o", 0), tb);
    assert_null(code_field(d, 0, "o", 0));
    /* a rung that ran no code has none of them; a code rung no tool
     * field */
    assert_string_equal(code_field(d, 2, "cd", 0), "absent");
    assert_string_equal(code_field(d, 2, "oc", 0), "absent");
    assert_string_equal(code_field(d, 2, "o", 0), "absent");
    assert_string_equal(code_field(d, 1, "tc", 0), "absent");
    {
        const char *b = code_field(d, 3, "cd", 0);
        if (b == NULL || strcmp(b, q_a + 10) != 0)
            fail_msg("B's code: %s, want the reply whole", b ? b : "none");
        b = code_field(d, 3, "cd", 1);
        if (b == NULL || strcmp(b, fenced_body) != 0)
            fail_msg("B's code of b: '%s', want the reply whole",
                     b ? b : "none");
    }
    json_decref(d);
    free(h);
    for (len = 0; len < 4; len++)
        grader_rung_free((struct grader_rung *)r[len]);
    grader_task_free(task);
    grader_task_free(body);
    grader_qset_free(qs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cells_agree_with_bury),
        cmocka_unit_test(test_pick_study),
        cmocka_unit_test(test_pick_ties),
        cmocka_unit_test(test_keep),
        cmocka_unit_test(test_json_string),
        cmocka_unit_test(test_html_text),
        cmocka_unit_test(test_doc_pieces),
        cmocka_unit_test(test_doc_epitaph_ids),
        cmocka_unit_test(test_report_doc),
        cmocka_unit_test(test_page_hostile),
        cmocka_unit_test(test_page_code),
    };

    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
