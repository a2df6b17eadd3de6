/*
 * fuzz_gguf.c - libFuzzer harness for the gguf table reader
 * (weights/tensors.h): any bytes give a table or a one-line refusal,
 * never a crash, a leak or a read outside the input; a table it gives
 * names only bytes inside the file, in order, without overlaps.
 */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "tensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct wtable *t, uint64_t file_size)
{
    size_t i;

    for (i = 0; i < t->n; i++) {
        assert(t->t[i].name != NULL);
        assert(t->t[i].off <= file_size);
        assert(t->t[i].size <= file_size - t->t[i].off);
        if (i > 0 && t->t[i - 1].size > 0 && t->t[i].size > 0)
            assert(t->t[i - 1].off + t->t[i - 1].size <= t->t[i].off);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wtable t;
    char msg[512];
    int rc;

    /* the whole file in memory */
    rc = gguf_parse(data, size, size, &t, msg, sizeof msg);
    assert(rc == 0 || rc == -1);
    if (rc == 0) {
        check(&t, size);
        tensors_free(&t);
    }
    /* half of it read so far: the reader may ask for more, never reads
     * past what it was given */
    rc = gguf_parse(data, size / 2, size, &t, msg, sizeof msg);
    if (rc == 0) {
        check(&t, size);
        tensors_free(&t);
    }
    assert(rc >= -1 && rc <= 1);
    return 0;
}
