/*
 * fuzz_rows.c - libFuzzer harness for the resumable row reader, bury and
 * the JSON emitters. The input is fed twice, whole and in slices whose
 * sizes come from the input itself; both readings must agree on the
 * outcome and the number of rows (the reader is resumable at any byte).
 *
 * Tests: grader/rows.c
 * Tests: grader/bury.c
 * Tests: report/emit.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bury.h"
#include "emit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Read data into a new rung; slice 0 means whole. Returns the code. */
static int read_rows(struct grader_qset *qs, const uint8_t *data,
                     size_t size, size_t slice, struct grader_rung **out)
{
    struct grader_rung *r = grader_rung_new("F", "fuzz");
    struct grader_reader rd;
    struct grader_error err;
    size_t off = 0;
    int rc = 0;

    if (r == NULL)
        abort();
    grader_reader_init(&rd, qs, r, GRADER_READ_TEXT);
    while (rc == 0 && off < size) {
        size_t n = slice ? slice : size;
        if (n > size - off)
            n = size - off;
        rc = grader_reader_feed(&rd, (const char *)data + off, n, &err);
        off += n;
    }
    if (rc == 0)
        rc = grader_reader_finish(&rd, &err);
    grader_reader_release(&rd);
    *out = r;
    return rc;
}

static int count_sink(void *ctx, const char *s, size_t n)
{
    (void)s;
    *(size_t *)ctx += n;
    return 0;
}

static void bury_and_emit(struct grader_qset *qs, struct grader_rung *r)
{
    const struct grader_rung *rs[2] = {r, r};
    struct grader_autopsy_line al[2];
    struct grader_bury b;
    struct grader_error err;
    size_t written = 0;

    if (grader_bury(qs, rs, 2, 0, &b, &err) != 0)
        abort();
    if (b.lines[1].dead != 0 || b.ntombs != 0)
        abort(); /* a rung never dies against itself */
    grader_autopsy(&b, rs, al);
    if (emit_graveyard(&b, qs, count_sink, &written) != 0 ||
        written == 0)
        abort();
    grader_bury_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct grader_qset *qa = grader_qset_new(), *qb = grader_qset_new();
    struct grader_rung *a, *b;
    size_t slice = size ? (size_t)data[0] % 7 + 1 : 1;
    int ra, rb;

    if (qa == NULL || qb == NULL)
        abort();
    ra = read_rows(qa, data, size, 0, &a);
    rb = read_rows(qb, data, size, slice, &b);
    if (ra != rb || (ra == 0 && a->n != b->n))
        abort();
    if (ra == 0)
        bury_and_emit(qa, a);
    grader_rung_free(a);
    grader_rung_free(b);
    grader_qset_free(qa);
    grader_qset_free(qb);
    return 0;
}
