/*
 * fuzz_safetensors.c - libFuzzer harness for the safetensors table reader
 * (weights/tensors.h): any bytes give a table or a one-line refusal,
 * never a crash, a leak or a read outside the input; a table it gives
 * names only bytes inside the file, in order, without overlaps.
 *
 * Tests: weights/tensors.c
 * Tests: weights/safetensors.c
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

    rc = safetensors_parse(data, size, size, &t, msg, sizeof msg);
    if (rc == 0) {
        check_table(&t, size);
        tensors_free(&t);
    } else {
        assert(rc == -1);
        check_refusal(&t, msg);
    }
    return 0;
}
