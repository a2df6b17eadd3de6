/*
 * chaos.h - a counting allocator for the out-of-memory tests: the
 * fail_at'th allocation fails (-1: none), calls counts allocations, live
 * counts blocks not yet freed. Install it with grader_set_alloc (alloc.h)
 * and fail each allocation in turn: every call must report out of
 * memory and leave live where it found it.
 */
#ifndef TEST_CHAOS_H
#define TEST_CHAOS_H

#include <stdlib.h>

static long fail_at = -1, calls, live;

static void *chaos_malloc(size_t n)
{
    void *p;

    if (++calls == fail_at)
        return NULL;
    p = malloc(n);
    if (p)
        live++;
    return p;
}

static void *chaos_realloc(void *old, size_t n)
{
    void *p;

    if (++calls == fail_at)
        return NULL;
    p = realloc(old, n);
    if (p && old == NULL)
        live++;
    return p;
}

static void chaos_free(void *p)
{
    if (p) {
        live--;
        free(p);
    }
}

#endif
