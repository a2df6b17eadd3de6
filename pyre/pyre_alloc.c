/*
 * pyre_alloc.c - the allocator hooks behind pyre_set_alloc (pyre.h),
 * which every allocation of pyre goes through: a test fails each in turn,
 * and the grader hands pyre its own counted hooks (grader/alloc.c), pyre
 * knowing nothing of the grader.
 */
#include "pyre_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static pyre_malloc_fn g_malloc = malloc;
static pyre_realloc_fn g_realloc = realloc;
static pyre_free_fn g_free = free;

void pyre_set_alloc(pyre_malloc_fn m, pyre_realloc_fn r, pyre_free_fn f)
{
    g_malloc = m ? m : malloc;
    g_realloc = r ? r : realloc;
    g_free = f ? f : free;
}

void pyre_text_free(char *text)
{
    pyre__dealloc(text);
}

void *pyre__malloc(size_t size)
{
    return g_malloc(size ? size : 1);
}

void *pyre__calloc(size_t n, size_t size)
{
    void *p;

    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    if ((p = pyre__malloc(n * size)) != NULL)
        memset(p, 0, n * size);
    return p;
}

void *pyre__realloc(void *ptr, size_t size)
{
    return g_realloc(ptr, size ? size : 1);
}

void *pyre__reallocarray(void *ptr, size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    return pyre__realloc(ptr, n * size);
}

void pyre__dealloc(void *ptr)
{
    if (ptr != NULL)
        g_free(ptr);
}
