/*
 * util.c - allocation and capped buffers.
 */
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void util_oom(const char *what)
{
    fprintf(stderr, "graveyard: out of memory (%s)\n", what);
    abort();
}

void *xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);

    if (q == NULL) {
        fprintf(stderr, "graveyard: out of memory (%zu bytes)\n", size);
        abort();
    }
    return q;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = xrealloc(NULL, n);

    memcpy(p, s, n);
    return p;
}

void buf_init(struct buf *b, size_t max)
{
    memset(b, 0, sizeof(*b));
    b->max = max;
}

int buf_add(struct buf *b, const char *s, size_t n)
{
    size_t max = b->max ? b->max : BUF_MAX_DEFAULT;

    if (n > max || b->len > max - n)
        return -1;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        b->p = xrealloc(b->p, cap);
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 0;
}

void buf_append(struct buf *b, const char *s, size_t n)
{
    if (buf_add(b, s, n) != 0) {
        fprintf(stderr,
                "graveyard: a buffer passed its cap of %zu bytes (a bug)\n",
                b->max ? b->max : (size_t)BUF_MAX_DEFAULT);
        abort();
    }
}

void buf_puts(struct buf *b, const char *s)
{
    buf_append(b, s, strlen(s));
}

void buf_release(struct buf *b)
{
    size_t max = b->max;

    free(b->p);
    buf_init(b, max);
}

int buf_path(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (b->max == 0)
        b->max = BUF_PATH_MAX;
    b->len = 0;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n > b->max) {
        buf_append(b, "", 0);
        return -1;
    }
    if ((size_t)n + 1 > b->cap) {
        b->p = xrealloc(b->p, (size_t)n + 1);
        b->cap = (size_t)n + 1;
    }
    va_start(ap, fmt);
    vsnprintf(b->p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len = (size_t)n;
    return 0;
}
