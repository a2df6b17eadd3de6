/*
 * fuzz_extract.c - libFuzzer harness for the answer extractor, the number
 * rules and loop detection. Besides not crashing, it checks invariants:
 * an extracted number's canonical form parses back to itself, and the
 * loop detector answers the same on a fresh and on a reused scratch.
 *
 * Tests: grader/extract.c
 * Tests: grader/number.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "extract.h"
#include "number.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct grader_loop_scratch reused;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    struct grader_num n, back;
    struct grader_loop_scratch fresh;
    size_t half = size / 2;
    int a, b;

    if (grader_extract(text, size, &n)) {
        if (grader_num_parse(n.s, strlen(n.s), &back) != 0 ||
            strcmp(back.s, n.s) != 0)
            abort();
    }
    (void)grader_num_parse(text, size, &n);
    grader_loop_scratch_init(&fresh);
    a = grader_looped(&fresh, text, half, text + half, size - half);
    b = grader_looped(&reused, text, half, text + half, size - half);
    if (a != b)
        abort();
    grader_loop_scratch_release(&fresh);
    return 0;
}
