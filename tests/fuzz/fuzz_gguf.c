/*
 * fuzz_gguf.c - libFuzzer harness for the gguf table reader
 * (weights/tensors.h): any bytes give a table or a one-line refusal,
 * never a crash, a leak or a read outside the input; a table it gives
 * names only bytes inside the file, in order, without overlaps.
 */
#include <assert.h>
#include <stdint.h>

#include "tables_check.h"

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
    return 0;
}
