/*
 * tables_check.h - what both table fuzzers (fuzz_safetensors.c,
 * fuzz_gguf.c) demand of weights/tensors.h: a table names only bytes
 * inside the file, in order, without overlaps; a refusal is one line of
 * printable text with no table left behind.
 */
#ifndef TABLES_CHECK_H
#define TABLES_CHECK_H

#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "tensors.h"

static inline void check_table(const struct wtable *t, uint64_t file_size)
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

static inline void check_refusal(const struct wtable *t, const char *msg)
{
    const char *p;

    assert(t->t == NULL && t->n == 0);
    for (p = msg; *p; p++)
        assert((unsigned char)*p >= 0x20 && *p != 0x7f);
}

#endif
