/*
 * alloc.h - the grader's allocator hooks.
 *
 * The grader is a library: out of memory is an error it returns, never an
 * abort. Every allocation goes through these three functions so that the
 * chaos test (tests/unit/test_chaos.c) can fail the Nth one and check that
 * each caller turns it into GRADER_ENOMEM and leaks nothing.
 */
#ifndef GRADER_ALLOC_H
#define GRADER_ALLOC_H

#include <stddef.h>

typedef void *(*grader_malloc_fn)(size_t size);
typedef void *(*grader_realloc_fn)(void *ptr, size_t size);
typedef void (*grader_free_fn)(void *ptr);

/* Replace the allocator (NULLs restore the C library's). Not
 * thread-safe: call before any other grader function. */
void grader_set_alloc(grader_malloc_fn m, grader_realloc_fn r,
                      grader_free_fn f);

/* The hooks as plain functions, counted, for a library a caller wants on
 * the same allocator: report/emit.h hands them to jansson, so that one
 * chaos test fails the grader's and jansson's allocations alike. */
void *grader_alloc_malloc(size_t size);
void grader_alloc_free(void *ptr);

/* How many allocations through these hooks (a library's given them
 * included) have failed on this thread so far: jansson can lose bytes
 * when one fails and still return a result, so a caller compares this
 * before and after. */
unsigned long grader_alloc_failures(void);

#endif
