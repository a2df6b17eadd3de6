/*
 * pyre_alloc.c - the allocator hooks behind grader_re_set_alloc (pyre.h),
 * which every allocation of pyre goes through: a test fails each in turn,
 * and the grader hands pyre its own counted hooks (grader/alloc.c), pyre
 * knowing nothing of the grader.
 */
#include "pyre_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static grader_re_malloc_fn g_malloc = malloc;
static grader_re_realloc_fn g_realloc = realloc;
static grader_re_free_fn g_free = free;

void grader_re_set_alloc(grader_re_malloc_fn m, grader_re_realloc_fn r,
                         grader_re_free_fn f)
{
    g_malloc = m ? m : malloc;
    g_realloc = r ? r : realloc;
    g_free = f ? f : free;
}

void grader_re_text_free(char *text)
{
    grader__re_dealloc(text);
}

void *grader__re_malloc(size_t size)
{
    return g_malloc(size ? size : 1);
}

void *grader__re_calloc(size_t n, size_t size)
{
    void *p;

    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    if ((p = grader__re_malloc(n * size)) != NULL)
        memset(p, 0, n * size);
    return p;
}

void *grader__re_realloc(void *ptr, size_t size)
{
    return g_realloc(ptr, size ? size : 1);
}

void *grader__re_reallocarray(void *ptr, size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    return grader__re_realloc(ptr, n * size);
}

void grader__re_dealloc(void *ptr)
{
    if (ptr != NULL)
        g_free(ptr);
}
