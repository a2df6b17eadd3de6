/*
 * tensors.c - what both readers share (tensors.h): freeing, and the file
 * order with its overlap and duplicate-name checks.
 */
#include "tensors.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tensors_free(struct wtable *t)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        free(t->t[i].name);
    free(t->t);
    t->t = NULL;
    t->n = 0;
}

char *tensors_oneline(char *msg)
{
    char *p;

    for (p = msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return msg;
}

static int by_offset(const void *a, const void *b)
{
    const struct wtensor *x = a, *y = b;

    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return x->size < y->size ? -1 : x->size > y->size;
}

static int by_name(const void *a, const void *b)
{
    const struct wtensor *const *x = a, *const *y = b;

    return strcmp((*x)->name, (*y)->name);
}

static int names_unique(const struct wtable *t, char *msg, size_t msgsize)
{
    const struct wtensor **p;
    size_t i;
    int rc = 0;

    if (t->n < 2)
        return 0;
    p = malloc(t->n * sizeof *p);
    if (p == NULL) {
        snprintf(msg, msgsize, "out of memory for %zu tensor names", t->n);
        return -1;
    }
    for (i = 0; i < t->n; i++)
        p[i] = &t->t[i];
    qsort(p, t->n, sizeof *p, by_name);
    for (i = 1; i < t->n && rc == 0; i++)
        if (strcmp(p[i - 1]->name, p[i]->name) == 0) {
            snprintf(msg, msgsize, "tensor table names '%.200s' twice",
                     p[i]->name);
            rc = -1;
        }
    free(p);
    return rc;
}

int tensors_order(struct wtable *t, char *msg, size_t msgsize)
{
    size_t i;

    if (names_unique(t, msg, msgsize) != 0)
        return -1;
    if (t->n > 1)
        qsort(t->t, t->n, sizeof *t->t, by_offset);
    for (i = 1; i < t->n; i++) {
        const struct wtensor *a = &t->t[i - 1], *b = &t->t[i];
        /* a GGUF tensor of a type whose size is not known has size 0:
         * it cannot be seen to overlap, and is not read */
        if (a->size > 0 && b->size > 0 && a->off + a->size > b->off) {
            snprintf(msg, msgsize,
                     "tensors '%.200s' and '%.200s' overlap at byte %" PRIu64,
                     a->name, b->name, b->off);
            return -1;
        }
    }
    return 0;
}
