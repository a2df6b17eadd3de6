/*
 * alloc.c - toolcall's memory, through the hooks a caller may set
 * (toolcall_set_alloc: the tests fail each allocation in turn), with the
 * failures counted, so that a parse jansson gave up on for want of memory
 * is told from bad input (toolcall__oom). Its own file so that check.c and
 * toolcall.c both take from it and neither from the other.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static toolcall_malloc_fn t_malloc = malloc;
static toolcall_free_fn t_free = free;
static _Thread_local unsigned long t_failures;

void toolcall_set_alloc(toolcall_malloc_fn m, toolcall_free_fn f)
{
    t_malloc = m ? m : malloc;
    t_free = f ? f : free;
}

void *toolcall_alloc_malloc(size_t size)
{
    void *p = t_malloc(size ? size : 1);
    if (p == NULL)
        t_failures++;
    return p;
}

void toolcall_alloc_free(void *ptr)
{
    if (ptr != NULL)
        t_free(ptr);
}

unsigned long toolcall_alloc_failures(void)
{
    return t_failures;
}

void *toolcall__alloc(size_t n)
{
    void *p = toolcall_alloc_malloc(n);
    if (p != NULL)
        memset(p, 0, n ? n : 1);
    return p;
}

void toolcall__free(void *p)
{
    toolcall_alloc_free(p);
}

int toolcall__oom(const json_error_t *je, unsigned long failures)
{
    return json_error_code(je) == json_error_out_of_memory ||
           t_failures != failures;
}
