/*
 * test_grader_probs_codec.c - the probs record (grader/probs.h): a record
 * decodes to what was encoded, the chosen token outside its alternatives
 * included; a torn, changed or lying record is refused, never read past.
 *
 * Tests: grader/probs.c
 */
#include "helpers.h"

#include "alloc.h"
#include "internal.h"
#include "probs.h"

#define NT 3
#define TN 2

static struct grader_probs_entry chosen[NT], top[NT * TN];

/* Three tokens, top 2: the first chosen as listed first, the second as
 * listed second, the third from outside its list. */
static void fill(struct grader_probs_answer *a)
{
    static const char *texts[] = {"An", "swer", ":", " 1", "7", "\xc3"};
    for (int t = 0; t < NT; t++) {
        for (int k = 0; k < TN; k++) {
            struct grader_probs_entry *e = &top[t * TN + k];
            e->id = (uint32_t)(100 * t + k);
            e->lp = -0.25f * (float)(k + 1) - (float)t;
            e->text = texts[t * TN + k];
            e->len = (uint8_t)strlen(e->text);
        }
        chosen[t] = top[t * TN];
    }
    chosen[1] = top[1 * TN + 1]; /* the second listed: k = 1 */
    chosen[2].id = 999;
    chosen[2].lp = -9.5f;
    chosen[2].text = NULL;
    chosen[2].len = 0;
    memset(a, 0, sizeof *a);
    a->id = "test-17";
    a->id_len = 7;
    a->topn = TN;
    a->ntok = NT;
    a->chosen = chosen;
    a->top = top;
}

static unsigned char *encode(const struct grader_probs_answer *a,
                             size_t *len)
{
    *len = grader_probs_encoded_size(a);
    assert_true(*len > 0);
    unsigned char *buf = malloc(*len);
    assert_non_null(buf);
    assert_int_equal(grader_probs_encode(a, buf, *len), *len);
    return buf;
}

/* x decoded from b, y as encoded: the same id and log-probability, and
 * the table gives y's text. */
static void same_entry(const struct grader_probs_answer *b,
                       const struct grader_probs_entry *x,
                       const struct grader_probs_entry *y)
{
    size_t len;
    assert_int_equal(x->id, y->id);
    assert_true(x->lp == y->lp);
    assert_null(x->text);
    const char *text = grader_probs_entry_text(b, x, &len);
    assert_int_equal(len, y->len);
    if (y->len > 0)
        assert_memory_equal(text, y->text, y->len);
    else
        assert_null(text);
}

static void test_round_trip(void **state)
{
    (void)state;
    struct grader_probs_answer a, b;
    size_t len, size;
    fill(&a);
    unsigned char *buf = encode(&a, &len);

    assert_int_equal(grader_probs_record_size(buf, len, &size), 0);
    assert_int_equal(size, len);
    assert_int_equal(grader_probs_decode(buf, len, &b, NULL), 0);
    assert_int_equal(b.id_len, 7);
    assert_memory_equal(b.id, "test-17", 7);
    assert_int_equal(b.topn, TN);
    assert_int_equal(b.ntok, NT);
    assert_int_equal(b.flags, 0);
    for (int t = 0; t < NT; t++) {
        same_entry(&b, &b.chosen[t], &chosen[t]);
        for (int k = 0; k < TN; k++)
            same_entry(&b, &b.top[t * TN + k], &top[t * TN + k]);
    }
    grader_probs_answer_free(&b);

    /* Each text once in the table (5 bytes and its own); a token 1 + 8 N
     * bytes, and 8 more for the one chosen from outside its list. */
    size_t hdr = 8 + 1 + 7 + 1 + 1 + 4 + 4 + 8;
    size_t texts = 0;
    for (int i = 0; i < NT * TN; i++)
        texts += 5 + top[i].len;
    assert_int_equal(len, hdr + texts + NT * (1 + 8 * TN) + 8);
    free(buf);
}

/* An id given two texts keeps the first; an id without one has none;
 * the table is in id order whatever order the tokens came in. */
static void test_texts(void **state)
{
    (void)state;
    struct grader_probs_entry c[3] = {
        {.id = 7, .lp = -1.0f, .len = 1, .text = "b"},
        {.id = 3, .lp = -1.0f, .len = 2, .text = "aa"},
        {.id = 7, .lp = -1.0f, .len = 1, .text = "z"},
    };
    struct grader_probs_answer a = {.id = "q", .id_len = 1, .topn = 1,
                                    .ntok = 3, .chosen = c, .top = c}, b;
    size_t len, n;
    unsigned char *buf = encode(&a, &len);
    assert_int_equal(grader_probs_decode(buf, len, &b, NULL), 0);
    assert_int_equal(b.ntext, 2);
    const char *t = grader_probs_text(&b, 7, &n);
    assert_int_equal(n, 1);
    assert_memory_equal(t, "b", 1);
    t = grader_probs_text(&b, 3, &n);
    assert_int_equal(n, 2);
    assert_memory_equal(t, "aa", 2);
    assert_null(grader_probs_text(&b, 5, &n));
    assert_int_equal(n, 0);
    assert_null(grader_probs_text(&b, 9, &n));
    grader_probs_answer_free(&b);
    free(buf);
}

static void test_refused(void **state)
{
    (void)state;
    struct grader_probs_answer a, b;
    struct grader_error err;
    size_t len, size;
    fill(&a);
    unsigned char *buf = encode(&a, &len);

    /* A torn head, a torn body. */
    assert_int_equal(grader_probs_record_size(buf, 7, &size),
                     GRADER_EMISSING);
    assert_int_equal(grader_probs_decode(buf, len - 1, &b, &err),
                     GRADER_EPARSE);
    /* Each byte of the body changed in turn: the check or a field
     * refuses it, and nothing is read outside the buffer (ASan). */
    for (size_t i = 8; i < len; i++) {
        unsigned char *c = malloc(len);
        assert_non_null(c);
        memcpy(c, buf, len);
        c[i] ^= 0x41;
        assert_int_equal(grader_probs_decode(c, len, &b, &err),
                         GRADER_EPARSE);
        free(c);
    }
    /* No magic. */
    buf[0] = 'X';
    assert_int_equal(grader_probs_record_size(buf, len, &size),
                     GRADER_EPARSE);
    free(buf);
}

/* A record whose check is right but whose token count lies: refused
 * before an allocation the size of the lie. */
static void test_lying_count(void **state)
{
    (void)state;
    struct grader_probs_answer a, b;
    struct grader_error err;
    size_t len;
    fill(&a);
    a.ntok = 0;
    unsigned char *buf = encode(&a, &len);
    /* ntok sits after magic, length, id_len, id, topn and flags; no
     * texts follow it (ntok 0 put none in the table). */
    size_t at = 8 + 1 + 7 + 2;
    a.ntok = 0;
    buf[at] = 0xff;
    buf[at + 1] = 0xff;
    /* Re-sign it, as a writer with a bug would. */
    uint64_t h = grader__probs_check(buf + 8, len - 16);
    for (int i = 0; i < 8; i++)
        buf[len - 8 + i] = (unsigned char)(h >> (8 * i));
    assert_int_equal(grader_probs_decode(buf, len, &b, &err), GRADER_EPARSE);
    assert_non_null(strstr(err.text, "tokens"));
    free(buf);
}

static void test_caps(void **state)
{
    (void)state;
    struct grader_probs_answer a;
    fill(&a);
    a.topn = 0;
    assert_int_equal(grader_probs_encoded_size(&a), 0);
    a.topn = GRADER_PROBS_TOPN_MAX + 1;
    assert_int_equal(grader_probs_encoded_size(&a), 0);
    fill(&a);
    a.id_len = 0;
    assert_int_equal(grader_probs_encoded_size(&a), 0);
    a.id_len = 256;
    assert_int_equal(grader_probs_encoded_size(&a), 0);
    /* Too small a buffer: nothing written. */
    fill(&a);
    unsigned char small[16];
    assert_int_equal(grader_probs_encode(&a, small, sizeof small), 0);
}

/* Past the token cap the encoder keeps the first tokens and says CUT. */
static void test_cut(void **state)
{
    (void)state;
    size_t n = GRADER_PROBS_TOKENS_MAX + 5;
    struct grader_probs_entry *c = calloc(n, sizeof *c);
    assert_non_null(c);
    for (size_t i = 0; i < n; i++)
        c[i].id = (uint32_t)i;
    struct grader_probs_answer a = {.id = "q", .id_len = 1, .topn = 1,
                                    .ntok = n, .chosen = c, .top = c};
    size_t len;
    unsigned char *buf = encode(&a, &len);
    struct grader_probs_answer b;
    assert_int_equal(grader_probs_decode(buf, len, &b, NULL), 0);
    assert_int_equal(b.ntok, GRADER_PROBS_TOKENS_MAX);
    assert_int_equal(b.flags, GRADER_PROBS_CUT);
    assert_int_equal(b.chosen[b.ntok - 1].id, GRADER_PROBS_TOKENS_MAX - 1);
    grader_probs_answer_free(&b);
    free(buf);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_texts),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_lying_count),
        cmocka_unit_test(test_caps),
        cmocka_unit_test(test_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
