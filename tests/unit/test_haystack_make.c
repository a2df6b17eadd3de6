/*
 * test_haystack_make.c - the long-context items (haystack/): the same
 * seed gives the same bytes and another seed others, the answers do not
 * depend on the fill, each needle sits in the prompt where it is recorded
 * and at its depth, cwe's common words are the ten most common and fwe's
 * three the most frequent, and bad
 * input and the caps are refused.
 *
 * Tests: haystack/haystack.c
 * Tests: haystack/haystack_render.c
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "haystack.h"

static const size_t fills[] = {0, 1, 7, 100, 2500};
#define NFILLS (sizeof(fills) / sizeof(fills[0]))

/* How many times s occurs in text[0..len). */
static size_t occurrences(const char *text, size_t len, const char *s)
{
    size_t n = 0, l = strlen(s), i;

    for (i = 0; l > 0 && i + l <= len; i++)
        if (text[i] == s[0] && memcmp(text + i, s, l) == 0) {
            n++;
            i += l - 1;
        }
    return n;
}

/* splitmix64's published outputs from state 0 (Vigna's splitmix64.c),
 * so that a port can check its PRNG first. */
static void test_splitmix64(void **state)
{
    uint64_t s = 0;

    (void)state;
    assert_true(haystack_splitmix64(&s) == 0xe220a8397b1dcdafULL);
    assert_true(haystack_splitmix64(&s) == 0x6e789e6aa1b965f4ULL);
    assert_true(haystack_splitmix64(&s) == 0x06c45d188009454fULL);
    for (int i = 0; i < 1000; i++)
        assert_true(haystack_below(&s, 7) < 7);
}

static void test_same_seed_same_bytes(void **state)
{
    int k;

    (void)state;
    for (k = 0; k < HAYSTACK_NKINDS; k++) {
        struct haystack_item a, b, c;
        struct haystack_prompt pa = {0}, pb = {0}, pc = {0};
        assert_int_equal(haystack_item_make(k, 42, 5, &a), 0);
        assert_int_equal(haystack_item_make(k, 42, 5, &b), 0);
        assert_int_equal(haystack_item_make(k, 43, 5, &c), 0);
        assert_memory_equal(&a, &b, sizeof(a));
        assert_int_equal(haystack_render(&a, 300, &pa), 0);
        assert_int_equal(haystack_render(&b, 300, &pb), 0);
        assert_int_equal(haystack_render(&c, 300, &pc), 0);
        assert_int_equal(pa.len, pb.len);
        assert_memory_equal(pa.text, pb.text, pa.len);
        if (pa.len == pc.len && memcmp(pa.text, pc.text, pa.len) == 0)
            fail_msg("%s: seeds 42 and 43 make the same prompt",
                     haystack_kind_name(k));
        if (strcmp(a.answers[0], c.answers[0]) == 0)
            fail_msg("%s: seeds 42 and 43 give the same answer '%s'",
                     haystack_kind_name(k), a.answers[0]);
        /* another item of the same seed differs too */
        assert_int_equal(haystack_item_make(k, 42, 6, &c), 0);
        assert_string_not_equal(a.answers[0], c.answers[0]);
        haystack_prompt_release(&pa);
        haystack_prompt_release(&pb);
        haystack_prompt_release(&pc);
    }
}

/* The needle kinds and vt at every fill: each needle at its recorded
 * offset, each answer inside a needle and nowhere else in the prompt,
 * the item itself untouched by rendering. */
static void test_needles_where_recorded(void **state)
{
    int k;

    (void)state;
    for (k = 0; k < HAYSTACK_NKINDS; k++) {
        struct haystack_item it, before;
        struct haystack_prompt p = {0};
        size_t f, i, j;
        if (k == HAYSTACK_CWE || k == HAYSTACK_FWE)
            continue;
        assert_int_equal(haystack_item_make(k, 9, 11, &it), 0);
        before = it;
        assert_true(it.nanswers >= 1 && it.nanswers <= it.nneedles);
        for (f = 0; f < NFILLS; f++) {
            assert_int_equal(haystack_render(&it, fills[f], &p), 0);
            assert_int_equal(strlen(p.text), p.len);
            for (i = 0; i < it.nneedles; i++) {
                size_t l = strlen(it.needles[i]);
                if (p.needle_at[i] + l > p.len ||
                    memcmp(p.text + p.needle_at[i], it.needles[i], l) != 0)
                    fail_msg("%s fill %zu: needle %zu '%s' not at %zu",
                             haystack_kind_name(k), fills[f], i, it.needles[i],
                             p.needle_at[i]);
            }
            for (j = 0; j < it.nanswers; j++) {
                size_t in = 0, want;
                /* the answer j is in needle j */
                assert_non_null(strstr(it.needles[j], it.answers[j]));
                for (i = 0; i < it.nneedles; i++)
                    in += occurrences(it.needles[i], strlen(it.needles[i]),
                                      it.answers[j]);
                want = in;
                if (occurrences(p.text, p.len, it.answers[j]) != want)
                    fail_msg("%s fill %zu: answer '%s' %zu times in the "
                             "prompt, %zu in its needles",
                             haystack_kind_name(k), fills[f], it.answers[j],
                             occurrences(p.text, p.len, it.answers[j]), want);
            }
        }
        assert_memory_equal(&it, &before, sizeof(it));
        haystack_prompt_release(&p);
    }
}

/* A needle's depth: niah-single's needle goes before the first
 * sentence that starts at or after filler word fill * depth / 100 (a
 * sentence has at most 12 words), and the 40 items of a seed take
 * RULER's 40 depths. */
static void test_depth_recorded(void **state)
{
    int seen[101] = {0}, n = 0;
    uint32_t i;

    (void)state;
    for (i = 0; i < 40; i++) {
        struct haystack_item it;
        struct haystack_prompt p = {0};
        const char *ctx, *at;
        size_t words = 0, fill = 1000, q;
        assert_int_equal(haystack_item_make(HAYSTACK_NIAH_SINGLE, 3, i, &it),
                         0);
        assert_true(it.depth >= 0 && it.depth <= 100);
        assert_int_equal(it.depth, it.needle_depth[0]);
        if (!seen[it.depth]++)
            n++;
        assert_int_equal(haystack_render(&it, fill, &p), 0);
        ctx = strchr(p.text, '\n') + 1;
        at = p.text + p.needle_at[0];
        for (; ctx < at; ctx++) /* each word before it, then a space */
            words += *ctx == ' ';
        q = fill * (size_t)it.depth / 100;
        if (words < q || words >= q + 12)
            fail_msg("item %u: depth %d%%, %zu words before the needle of "
                     "%zu",
                     i, it.depth, words, fill);
        if (words > 0 && !(at[-1] == ' ' && at[-2] == '.'))
            fail_msg("item %u: the needle cuts a sentence", i);
        haystack_prompt_release(&p);
    }
    assert_int_equal(n, 40);
}

/* cwe: at every fill the ten answers are written 30 times each and every
 * other word 3 times, in a list numbered from 1. */
static void test_cwe_counts(void **state)
{
    struct haystack_item it;
    struct haystack_prompt p = {0};
    size_t f, i;

    (void)state;
    assert_int_equal(haystack_item_make(HAYSTACK_CWE, 5, 2, &it), 0);
    assert_int_equal(it.nanswers, 10);
    assert_int_equal(it.depth, HAYSTACK_NO_DEPTH);
    for (f = 0; f < NFILLS; f++) {
        size_t entries = 0;
        char *line, *save = NULL, *copy;
        assert_int_equal(haystack_render(&it, fills[f], &p), 0);
        for (i = 0; i < it.nanswers; i++) {
            char word[12];
            snprintf(word, sizeof(word), ". %s\n", it.answers[i]);
            /* the last entry ends with "\nQuestion" too */
            if (occurrences(p.text, p.len, word) +
                    occurrences(p.text, p.len, it.answers[i]) !=
                60)
                fail_msg("fill %zu: common word '%s' not 30 times", fills[f],
                         it.answers[i]);
        }
        copy = strdup(p.text);
        assert_non_null(copy);
        for (line = strtok_r(copy, "\n", &save); line;
             line = strtok_r(NULL, "\n", &save)) {
            char *dot = strstr(line, ". ");
            if (dot == NULL || line[0] < '0' || line[0] > '9')
                continue;
            entries++;
            assert_int_equal(strtoul(line, NULL, 10), entries);
            if (occurrences(p.text, p.len, dot + 2) != 3 &&
                occurrences(p.text, p.len, dot + 2) != 30)
                fail_msg("fill %zu: word '%s' %zu times", fills[f], dot + 2,
                         occurrences(p.text, p.len, dot + 2));
        }
        assert_int_equal(entries, 300 + 3 * fills[f]);
        free(copy);
    }
    haystack_prompt_release(&p);
}

/* fwe: at every fill, the three answers are the most frequent words of
 * the coded text after the dots, in order, each strictly above the next
 * (RULER's counts n * k^-2 / zeta(2), n = 200 + fill). */
static void test_fwe_counts(void **state)
{
    struct haystack_item it;
    struct haystack_prompt p = {0};
    size_t f, i;

    (void)state;
    assert_int_equal(haystack_item_make(HAYSTACK_FWE, 8, 3, &it), 0);
    assert_int_equal(it.nanswers, 3);
    assert_int_equal(it.nneedles, 0);
    assert_int_equal(it.depth, HAYSTACK_NO_DEPTH);
    for (f = 0; f < NFILLS; f++) {
        size_t n = 200 + fills[f], most = 0, c[3], words = 0;
        char *text, *w, *save = NULL, *start, *end;
        assert_int_equal(haystack_render(&it, fills[f], &p), 0);
        start = strstr(p.text, "coded words. ");
        end = strstr(p.text, "\nQuestion: ");
        assert_non_null(start);
        assert_non_null(end);
        start += strlen("coded words. ");
        text = strndup(start, (size_t)(end - start));
        assert_non_null(text);
        for (i = 0; i < 3; i++) {
            c[i] = occurrences(text, strlen(text), it.answers[i]);
            if (c[i] != (size_t)((double)n * 0.6079271018540267 /
                                 (double)((i + 2) * (i + 2))))
                fail_msg("fill %zu: answer %zu '%s' %zu times", fills[f], i,
                         it.answers[i], c[i]);
        }
        assert_true(c[0] > c[1] && c[1] > c[2]);
        for (w = strtok_r(text, " ", &save); w;
             w = strtok_r(NULL, " ", &save)) {
            size_t k = occurrences(start, (size_t)(end - start), w);
            words++;
            if (strcmp(w, "...") != 0 && strcmp(w, it.answers[0]) != 0 &&
                strcmp(w, it.answers[1]) != 0 &&
                strcmp(w, it.answers[2]) != 0 && k > most)
                most = k;
        }
        if (most >= c[2])
            fail_msg("fill %zu: another word %zu times, the third answer %zu",
                     fills[f], most, c[2]);
        assert_true(words <= n && words > n * 9 / 10);
        free(text);
    }
    haystack_prompt_release(&p);
}

static void test_bad_input_and_caps(void **state)
{
    struct haystack_item it;
    struct haystack_prompt p = {0};
    enum haystack_kind k;

    (void)state;
    assert_int_equal(haystack_item_make(HAYSTACK_NKINDS, 1, 1, &it),
                     HAYSTACK_EARG);
    assert_int_equal(haystack_item_make((enum haystack_kind) - 1, 1, 1, &it),
                     HAYSTACK_EARG);
    assert_int_equal(haystack_kind_parse("niah-multivalue", &k), 0);
    assert_int_equal(k, HAYSTACK_NIAH_MULTIVALUE);
    assert_int_equal(haystack_kind_parse("niah", &k), HAYSTACK_EARG);
    assert_null(haystack_kind_name(HAYSTACK_NKINDS));
    assert_string_equal(haystack_strerror(HAYSTACK_ESHORT),
                        "the target is shorter than the item without "
                        "filler");
    assert_int_equal(haystack_item_make(HAYSTACK_NIAH_SINGLE, 1, 1, &it), 0);
    assert_int_equal(haystack_render(&it, HAYSTACK_FILL_MAX + 1, &p),
                     HAYSTACK_EARG);
    /* a million sentences are over 8 MiB: refused at the cap */
    assert_int_equal(haystack_render(&it, HAYSTACK_FILL_MAX, &p),
                     HAYSTACK_ELIMIT);
    assert_true(p.cap <= HAYSTACK_PROMPT_MAX + 1);
    assert_int_equal(haystack_item_make(HAYSTACK_CWE, 1, 1, &it), 0);
    assert_int_equal(haystack_render(&it, HAYSTACK_FILL_MAX, &p),
                     HAYSTACK_ELIMIT);
    /* and a prompt under it still renders after */
    assert_int_equal(haystack_render(&it, 10, &p), 0);
    haystack_prompt_release(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_splitmix64),
        cmocka_unit_test(test_same_seed_same_bytes),
        cmocka_unit_test(test_needles_where_recorded),
        cmocka_unit_test(test_depth_recorded),
        cmocka_unit_test(test_cwe_counts),
        cmocka_unit_test(test_fwe_counts),
        cmocka_unit_test(test_bad_input_and_caps),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
