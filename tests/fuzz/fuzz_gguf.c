/*
 * fuzz_gguf.c - libFuzzer harness for the gguf table reader
 * (weights/tensors.h): any bytes give a table or a one-line refusal,
 * never a crash, a leak or a read outside the input; a table it gives
 * names only bytes inside the file, in order, without overlaps. The
 * vocabulary reader (weights/vocab.h) on the same bytes: a vocabulary
 * whose every span lies inside the input, or a one-line refusal. The
 * quantize key-values the recipe keeps (graveyard tensors): at most
 * WT_META_MAX, each one printable line "key=value", shown by the one rule
 * for outside text (util_printable shows it as it is), as every tensor
 * name is when graveyard tensors shows it.
 *
 * Tests: weights/tensors.c
 * Tests: weights/gguf.c
 */
#include <assert.h>
#include <stdint.h>

#include "tables_check.h"
#include "vocab.h"
#include "../../util/util.h"

static size_t fed;

static void sink(void *ctx, const void *p, size_t n)
{
    (void)ctx;
    /* each piece's ends read: ASan sees one outside the input */
    if (n > 0)
        fed +=
            ((const unsigned char *)p)[0] + ((const unsigned char *)p)[n - 1];
}

static void vocab_check(const uint8_t *data, size_t len, size_t size)
{
    struct vocab v;
    char msg[512];
    size_t i;
    int rc = gguf_vocab_parse(data, len, size, &v, msg, sizeof msg);

    assert(rc >= -1 && rc <= 1);
    if (len == size)
        assert(rc != 1);
    if (rc == -1)
        assert(msg[0] != '\0' && strchr(msg, '\n') == NULL);
    if (rc != 0)
        return;
    for (i = 0; i < VOCAB_NKEYS; i++)
        assert(v.kv[i].len == 0 ||
               (v.kv[i].off < len && v.kv[i].len <= len - v.kv[i].off));
    assert(v.kv[2].len > 0);
    vocab_feed(&v, data, sink, NULL);
}

/* Shown text is printable, one line, and shown again unchanged. */
static void shown_check(const char *s)
{
    static char out[4 * WT_NAME_MAX + 1], again[sizeof out];
    size_t j, n = util_printable(s, strlen(s), out, sizeof out);

    for (j = 0; j < n; j++)
        assert(((unsigned char)out[j] >= 0x20 || out[j] == '\t') &&
               out[j] != 0x7f);
    assert(util_printable(out, n, again, sizeof again) == n);
    assert(memcmp(out, again, n) == 0);
}

static void meta_check(const struct wtable *t)
{
    char again[WT_META_LEN];
    size_t i, j, n;

    assert(t->nmeta <= WT_META_MAX);
    for (i = 0; i < t->nmeta; i++) {
        assert(memchr(t->meta[i], 0, WT_META_LEN) != NULL);
        assert(strchr(t->meta[i], '=') != NULL);
        for (j = 0; t->meta[i][j]; j++) /* a tab is shown as it is */
            assert(((unsigned char)t->meta[i][j] >= 0x20 ||
                    t->meta[i][j] == '\t') &&
                   t->meta[i][j] != 0x7f);
        n = util_printable(t->meta[i], j, again, sizeof again);
        assert(n == j && memcmp(again, t->meta[i], j) == 0);
    }
    for (i = 0; i < t->n; i++)
        shown_check(t->t[i].name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wtable t;
    char msg[512];
    int rc;

    /* the whole file in memory */
    rc = gguf_parse(data, size, size, &t, msg, sizeof msg);
    assert(rc == 0 || rc == -1);
    if (rc == 0) {
        meta_check(&t);
        check_table(&t, size);
        tensors_free(&t);
    } else {
        check_refusal(&t, msg);
    }
    /* half of it read so far: the reader may ask for more, never reads
     * past what it was given */
    rc = gguf_parse(data, size / 2, size, &t, msg, sizeof msg);
    if (rc == 0) {
        check_table(&t, size);
        tensors_free(&t);
    } else if (rc == -1) {
        check_refusal(&t, msg);
    }
    assert(rc >= -1 && rc <= 1);
    vocab_check(data, size, size);
    vocab_check(data, size / 2, size);
    return 0;
}
