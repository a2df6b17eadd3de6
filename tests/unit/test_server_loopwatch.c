/*
 * test_server_loopwatch.c - a looping reply seen while it streams
 * (orchestrator/server/loopwatch.h): the line rule fires at the fifth line, not
 * before; the token rule at its span, not before; and neither fires on
 * any reply of the golden folders that the grader does not call looped,
 * nor on any of GSM8K's 1,319 worked solutions (from ../shared, when it
 * is beside the checkout), streamed in 4-byte pieces (the fake server's)
 * and in words (a tokenizer's).
 *
 * Tests: orchestrator/server/loopwatch.c
 */
#include <glob.h>
#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../orchestrator/server/loopwatch.h"

#define GSM8K "../shared/data/gsm8k/test.jsonl"

/* Stream reasoning then content in pieces of size bytes (0: words, the
 * space kept with the word before it); returns the loop seen and in
 * *at the pieces it took. */
static int stream(const char *reasoning, const char *content, size_t size,
                  size_t *at)
{
    static struct loopwatch w;
    static int ready;
    char r[1 << 16], c[1 << 16];
    size_t rl = 0, cl = 0;
    int kind = LOOP_NONE;

    if (!ready) {
        loopwatch_init(&w);
        ready = 1;
    }
    loopwatch_reset(&w);
    for (int part = 0; part < 2 && kind == LOOP_NONE; part++) {
        const char *t = part == 0 ? reasoning : content;
        size_t len = t ? strlen(t) : 0, off = 0;
        while (off < len && kind == LOOP_NONE) {
            size_t n = size;
            if (size == 0) {
                n = strcspn(t + off, " \n");
                n += off + n < len; /* the space or line end with it */
            }
            if (n > len - off)
                n = len - off;
            assert_true(rl + cl + n < sizeof(r));
            if (part == 0) {
                memcpy(r + rl, t + off, n);
                rl += n;
            } else {
                memcpy(c + cl, t + off, n);
                cl += n;
            }
            kind = loopwatch_piece(&w, t + off, n, part == 0, c, cl, r, rl);
            assert_true(kind >= 0);
            off += n;
        }
    }
    *at = w.pieces;
    return kind;
}

static char *repeat(const char *head, const char *unit, int times)
{
    static char buf[1 << 16];
    size_t n = 0;

    n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s", head);
    for (int i = 0; i < times; i++)
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s", unit);
    return buf;
}

static void test_lines(void **state)
{
    size_t at;

    (void)state;
    /* four repeats: nothing; the fifth line end: a loop */
    assert_int_equal(
        stream(NULL, repeat("Let me see.\n", "We add 3.\n", 4), 4, &at),
        LOOP_NONE);
    assert_int_equal(
        stream(NULL, repeat("Let me see.\n", "We add 3.\n", 9), 4, &at),
        LOOP_LINES);
    assert_int_equal(at, (12 + 5 * 10 + 3) / 4); /* the 5th '\n' */
    /* a line still coming is not a line: "We add 3" four times whole
     * and a fifth that becomes "We add 30" */
    assert_int_equal(
        stream(NULL, repeat("", "We add 3\n", 4) /* static buf */, 1, &at),
        LOOP_NONE);
    /* across the thinking block and the answer */
    assert_int_equal(stream("x\nWe add 3.\nWe add 3.\nWe add 3.\n",
                            "We add 3.\nWe add 3.\nAnswer: 3", 0, &at),
                     LOOP_LINES);
}

static void test_tokens(void **state)
{
    size_t at;

    (void)state;
    /* a span of 3 words, back to back: fires at 200 pieces */
    assert_int_equal(stream(NULL, repeat("Hmm ", "and so on ", 100), 0, &at),
                     LOOP_TOKENS);
    assert_int_equal(at, 1 + 200); /* "Hmm ", then 200 repeating */
    assert_int_equal(stream(NULL, repeat("Hmm ", "and so on ", 66), 0, &at),
                     LOOP_NONE); /* 198 repeating */
    /* one piece over and over */
    assert_int_equal(stream(NULL, repeat("", "!", 300), 1, &at), LOOP_TOKENS);
    assert_int_equal(at, 200);
    /* a long period needs five of it: 60 words x 5 = 300 pieces */
    {
        char unit[512];
        size_t n = 0;
        for (int i = 0; i < 60; i++)
            n += (size_t)snprintf(unit + n, sizeof(unit) - n, "w%d ", i);
        assert_int_equal(stream(NULL, repeat("", unit, 4), 0, &at), LOOP_NONE);
        assert_int_equal(stream(NULL, repeat("", unit, 6), 0, &at),
                         LOOP_TOKENS);
        assert_int_equal(at, 300);
    }
}

/* Every reply of a JSONL file (rows, or GSM8K's "answer" solutions):
 * a loop seen must be one the grader sees in the whole reply. Returns
 * the replies read. */
static size_t no_false_loop(const char *path, const char *field, size_t *fired)
{
    struct grader_loop_scratch s;
    char line[1 << 17];
    size_t n = 0, at;
    FILE *f = fopen(path, "r");

    assert_non_null(f);
    grader_loop_scratch_init(&s);
    while (fgets(line, sizeof(line), f) != NULL) {
        json_t *o = json_loads(line, 0, NULL);
        const char *c = json_string_value(json_object_get(o, field));
        const char *r =
            json_string_value(json_object_get(o, "reasoning_content"));
        size_t sizes[2] = {4, 0};
        if (o == NULL)
            continue; /* the bad-input folders */
        for (int k = 0; k < 2; k++) {
            int kind = stream(r, c, sizes[k], &at);
            int whole =
                grader_looped(&s, c, c ? strlen(c) : 0, r, r ? strlen(r) : 0);
            if (kind != LOOP_NONE && whole != 1)
                fail_msg("%s: '%.60s' cut as a %s loop after %zu pieces", path,
                         c ? c : "", loopwatch_name(kind), at);
            *fired += kind != LOOP_NONE;
        }
        n++;
        json_decref(o);
    }
    fclose(f);
    grader_loop_scratch_release(&s);
    return n;
}

static void test_golden_and_gsm8k(void **state)
{
    glob_t g;
    size_t rows = 0, fired = 0, solutions = 0, none = 0;

    (void)state;
    assert_int_equal(glob("tests/golden/data/*/rows/*.jsonl", 0, NULL, &g), 0);
    for (size_t i = 0; i < g.gl_pathc; i++)
        rows += no_false_loop(g.gl_pathv[i], "content", &fired);
    globfree(&g);
    assert_true(rows > 300);
    assert_true(fired > 0); /* the looping rows are caught */
    if (access(GSM8K, R_OK) == 0) {
        solutions = no_false_loop(GSM8K, "answer", &none);
        assert_int_equal(solutions, 1319);
        assert_int_equal(none, 0);
    } else {
        /* a clone alone: the full test set is not shipped */
        print_message("skip: %s is not here (../shared beside the "
                      "checkout); the golden replies are checked without "
                      "it\n",
                      GSM8K);
    }
    print_message("loopwatch: %zu golden replies (%zu cuts, each a loop the "
                  "grader sees), %zu GSM8K solutions (%zu cuts)\n",
                  rows, fired, solutions, none);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_tokens),
        cmocka_unit_test(test_golden_and_gsm8k),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
