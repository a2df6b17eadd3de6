/*
 * test_grader_cost.c - what a right answer costs (grader/cost.h), figured by
 * hand on small rungs: tokens and seconds per right answer with unknown
 * answers priced at the known ones' mean, the cap-hit rate, thinking
 * tokens by the thinking block's share of the reply's bytes, tokens
 * against the reference on the questions both know; and the power
 * samples integrated to joules (trapezoids, the edges held, a segment
 * without a reading at the mean power, a killed one at its last reading,
 * a torn last line left out), and the lines the file refuses.
 *
 * Tests: grader/cost.c
 */
#include "helpers.h"

#include "cost.h"
#include "qset.h"
#include "rows.h"

/* Rows (one string) read as rung name into qs. */
static struct grader_rung *rung_of(struct grader_qset *qs, const char *name,
                                   const char *rows)
{
    struct grader_reader rd;
    struct grader_rung *r = grader_rung_new(name, name);
    struct grader_error err;
    int rc;

    assert_non_null(r);
    grader_reader_init(&rd, qs, r, 0);
    rc = grader_reader_feed(&rd, rows, strlen(rows), &err);
    if (rc == 0)
        rc = grader_reader_finish(&rd, &err);
    grader_reader_release(&rd);
    if (rc != 0)
        fail_msg("%s:%ld: %s", err.file, err.line, err.text);
    return r;
}

#define ROW(id, said, extra)                                                  \
    "{\"id\":\"" id "\",\"reference\":\"7\",\"content\":\"Answer: " said      \
    "\"" extra "}\n"

/* The reference: two right of four; 600 tokens over three rows that
 * know them, 6 s over three that know their times; one at the cap. */
static const char ref_rows[] =
    ROW("q1", "7",
        ",\"completion_tokens\":100,\"prompt_ms\":10,"
        "\"predicted_ms\":990")
        ROW("q2", "7",
            ",\"completion_tokens\":200,\"prompt_ms\":20,"
            "\"predicted_ms\":1980")
            ROW("q3", "8",
                ",\"completion_tokens\":300,\"prompt_ms\":0,"
                "\"predicted_ms\":3000,\"finish_reason\":\"length\"")
                ROW("q4", "8",
                    ",\"completion_tokens\":null,\"prompt_ms\":null,"
                    "\"predicted_ms\":12");

/* A rung that thinks once ("xyz", 3 bytes, beside "Answer: 7", 9: a
 * quarter of its 160 tokens) and says more: 900 tokens where the
 * reference said 600 on q1..q3. */
static const char rung_rows[] =
    ROW("q1", "7",
        ",\"completion_tokens\":160,\"reasoning_content\":\"xyz\","
        "\"prompt_ms\":5,\"predicted_ms\":1995")
        ROW("q2", "8",
            ",\"completion_tokens\":290,\"prompt_ms\":1e13,"
            "\"predicted_ms\":1")
            ROW("q3", "7",
                ",\"completion_tokens\":450,\"prompt_ms\":0,"
                "\"predicted_ms\":4000,\"truncated\":true")
                ROW("q4", "8", ",\"completion_tokens\":100");

static void test_cost_by_hand(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *ref, *r;
    struct grader_power power = {3, 7200.0, 10.0, 0.0};
    struct grader_cost c;

    (void)state;
    assert_non_null(qs);
    ref = rung_of(qs, "BF16", ref_rows);
    r = rung_of(qs, "Q4_0", rung_rows);
    assert_near(ref->answers[0].ms, 1000.0, 1e-3, "q1's ms");
    assert_true(ref->answers[3].ms < 0); /* prompt_ms null */
    assert_true(r->answers[1].ms < 0);   /* 1e13 ms: no measurement */

    grader_cost_of(ref, ref, NULL, &c);
    assert_int_equal(c.n, 4);
    assert_int_equal(c.right, 2);
    assert_int_equal(c.cut_off, 1);
    assert_near(c.cap_hit, 0.25, 1e-12, "reference cap hit");
    assert_int_equal(c.tokens_known, 3);
    assert_int_equal(c.tokens, 600);
    /* 600 / 3 a row, 4 rows, 2 right */
    assert_near(c.tokens_per_right, 400.0, 1e-9, "reference tokens/right");
    /* 6 s / 3 a row, 4 rows, 2 right */
    assert_near(c.seconds_per_right, 4.0, 1e-6, "reference s/right");
    assert_near(c.think_per_answer, -1.0, 0, "no thinking");
    assert_near(c.tokens_x, 1.0, 0, "the reference against itself");
    assert_near(c.joules, -1.0, 0, "no power");
    assert_near(c.wh_per_right, -1.0, 0, "no power: no Wh");

    grader_cost_of(r, ref, &power, &c);
    assert_int_equal(c.right, 2);
    assert_int_equal(c.cut_off, 1);
    assert_int_equal(c.tokens, 1000);
    assert_near(c.tokens_per_right, 500.0, 1e-9, "rung tokens/right");
    /* q1 2 s and q3 4 s known (q2's 1e13 ms is none, q4 has none): 3 s
     * a row, 4 rows, 2 right */
    assert_int_equal(c.ms_known, 2);
    assert_near(c.seconds, 6.0, 1e-6, "rung seconds");
    assert_near(c.seconds_per_right, 6.0, 1e-6, "rung s/right");
    assert_int_equal(c.thought, 1);
    /* 160 * 3 / 12 = 40 thinking tokens over 4 answers */
    assert_near(c.think_per_answer, 10.0, 1e-9, "thinking tokens/answer");
    /* q1..q3, where the reference knows its tokens: 900 / 600 */
    assert_near(c.tokens_x, 1.5, 1e-12, "tokens x reference");
    assert_near(c.joules, 7200.0, 0, "joules");
    assert_near(c.wh_per_right, 1.0, 1e-12, "Wh/right");

    grader_rung_free(ref);
    grader_rung_free(r);
    grader_qset_free(qs);
}

/* No right answer: nothing per right answer is known. */
static void test_cost_none_right(void **state)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *r;
    struct grader_power power = {2, 10.0, 2.0, 0.0};
    struct grader_cost c;

    (void)state;
    r = rung_of(qs, "Q2_K", ROW("q1", "1", ",\"completion_tokens\":5"));
    grader_cost_of(r, r, &power, &c);
    assert_int_equal(c.right, 0);
    assert_near(c.tokens_per_right, -1.0, 0, "tokens/right");
    assert_near(c.seconds_per_right, -1.0, 0, "s/right");
    assert_near(c.wh_per_right, -1.0, 0, "Wh/right");
    assert_near(c.joules, 10.0, 0, "joules stand");
    grader_rung_free(r);
    grader_qset_free(qs);
}

static void integrate_ok(const char *text, struct grader_power *p)
{
    struct grader_error err;
    int rc = grader_power_integrate(text, strlen(text), "x.power", p, &err);

    if (rc != 0)
        fail_msg("%s:%ld: %s", err.file, err.line, err.text);
}

static void test_power_by_hand(void **state)
{
    struct grader_power p;

    (void)state;
    /* trapezoids: 0-1 s (100+200)/2 = 150 J, 1-2 s 250 J; the last
     * reading held 0.5 s to the end: 150 J */
    integrate_ok("b 1733400000000\n0 100\n1000 200\n2000 300\ne 2500\n", &p);
    assert_int_equal(p.samples, 3);
    assert_near(p.joules, 550.0, 1e-9, "one segment");
    assert_near(p.seconds, 2.5, 1e-12, "its time");
    /* a second segment whose first reading is 0.5 s in: held back to its
     * start (40 J) and on to its end (80 J) */
    integrate_ok("b 1733400000000\n0 100\n1000 200\n2000 300\ne 2500\n"
                 "b 1733400010000\n500 80.00\ne 1500\n",
                 &p);
    assert_near(p.joules, 670.0, 1e-9, "two segments");
    assert_near(p.seconds, 4.0, 1e-12, "their time");
    /* a segment without a reading: 1 s at the mean power, 670 J / 4 s */
    integrate_ok("b 1733400000000\n0 100\n1000 200\n2000 300\ne 2500\n"
                 "b 1733400010000\n500 80.00\ne 1500\n"
                 "b 1733400020000\ne 1000\n",
                 &p);
    assert_near(p.joules, 837.5, 1e-9, "an unsampled second");
    assert_near(p.unsampled_s, 1.0, 1e-12, "unsampled");
    assert_near(p.seconds, 5.0, 1e-12, "with it");
    /* killed: no e line, the segment ends at its last reading; a torn
     * last line is left out */
    integrate_ok("b 1\n0 60\n1000 60\n20", &p);
    assert_int_equal(p.samples, 2);
    assert_near(p.joules, 60.0, 1e-9, "killed");
    assert_near(p.seconds, 1.0, 1e-12, "killed time");
    /* no reading at all: unknown */
    integrate_ok("b 1\ne 5000\n", &p);
    assert_int_equal(p.samples, 0);
    assert_near(p.joules, -1.0, 0, "no readings");
    integrate_ok("", &p);
    assert_int_equal(p.samples, 0);
}

static void refused(const char *text, long line)
{
    struct grader_power p;
    struct grader_error err;
    int rc = grader_power_integrate(text, strlen(text), "x.power", &p, &err);

    if (rc != GRADER_EPARSE)
        fail_msg("took \"%s\": %d", text, rc);
    assert_int_equal(err.line, line);
    assert_non_null(strstr(err.file, "x.power"));
}

static void test_power_refused(void **state)
{
    (void)state;
    refused("0 100\n", 1);              /* a reading before any b */
    refused("b 1\n0 100\nx 3\n", 3);    /* no such line */
    refused("b 1\n1000 1\n500 2\n", 3); /* time going back */
    refused("b 1\n0 [N/A]\n", 2);
    refused("b 1\n0 -5\n", 2);
    refused("b 1\n0 100000.5\n", 2);     /* past GRADER_WATTS_MAX */
    refused("b 1\n0 1\ne 10\n5 1\n", 4); /* a reading after the end */
    refused("b 1\n0 1 2\n", 2);
    refused("b 1\n0 1e3\n", 2);
    refused("b 1\n100 1\ne 50\n", 3); /* an end before the last reading */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cost_by_hand),
        cmocka_unit_test(test_cost_none_right),
        cmocka_unit_test(test_power_by_hand),
        cmocka_unit_test(test_power_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
