/*
 * alloc.c - the allocator hooks behind alloc.h.
 */
#include "alloc.h"
#include "internal.h"
#include "../pyre/pyre.h"
#include "../toolcall/toolcall.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static grader_malloc_fn g_malloc = malloc;
static grader_realloc_fn g_realloc = realloc;
static grader_free_fn g_free = free;

/* Allocations that failed on this thread: jansson reports some of its
 * out-of-memory failures as syntax errors, so callers compare this count
 * before and after a parse to tell the two apart. */
static _Thread_local unsigned long g_failures;

unsigned long grader_alloc_failures(void)
{
    return g_failures;
}

static void *counted(void *p)
{
    if (p == NULL)
        g_failures++;
    return p;
}

void grader_set_alloc(grader_malloc_fn m, grader_realloc_fn r,
                      grader_free_fn f)
{
    g_malloc = m ? m : malloc;
    g_realloc = r ? r : realloc;
    g_free = f ? f : free;
    /* pyre (pyre/, a library of its own) allocates through these hooks
     * too, counted: one chaos test fails both libraries' allocations */
    pyre_set_alloc(grader__malloc, grader__realloc, grader__free);
    /* and the tool-call checker (toolcall/), the same way */
    toolcall_set_alloc(grader__malloc, grader__free);
}

void *grader_alloc_malloc(size_t size)
{
    return counted(g_malloc(size ? size : 1));
}

void grader_alloc_free(void *ptr)
{
    if (ptr != NULL)
        g_free(ptr);
}

void *grader__malloc(size_t size)
{
    return counted(g_malloc(size ? size : 1));
}

void *grader__calloc(size_t n, size_t size)
{
    size_t total;
    void *p;

    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    total = n * size;
    p = counted(g_malloc(total ? total : 1));
    if (p != NULL)
        memset(p, 0, total);
    return p;
}

void *grader__realloc(void *ptr, size_t size)
{
    return counted(g_realloc(ptr, size ? size : 1));
}

void *grader__reallocarray(void *ptr, size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    return grader__realloc(ptr, n * size);
}

void grader__free(void *ptr)
{
    if (ptr != NULL)
        g_free(ptr);
}

char *grader__strndup(const char *s, size_t n)
{
    char *p = grader__malloc(n + 1);

    if (p == NULL)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}
