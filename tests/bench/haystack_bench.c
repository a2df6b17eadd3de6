/*
 * haystack_bench.c - how long the long-context generator (haystack/) takes
 * to make one item at a token target, with a cheap counter (bytes / 4)
 * and with one that reads every byte (words), as the run will with a
 * server's /tokenize costing far more: per kind, the best and the median
 * of 21 items (each its own seed index), the fill, the prompt's bytes and
 * the counting calls. Prints one table row per kind and target, and exits
 * 1 when a 64K item with bytes / 4 takes 50 ms or more (docs/performance.md,
 * "Making long items"). Not part of make check: make bench-haystack.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "haystack.h"

#define ITEMS 21

static long bytes4_cb(void *ctx, const char *text, size_t len)
{
    (void)ctx;
    (void)text;
    return (long)(len / 4);
}

static long words_cb(void *ctx, const char *text, size_t len)
{
    long n = 0;
    size_t i;

    (void)ctx;
    for (i = 0; i < len; i++)
        n += text[i] == ' ' || text[i] == '\n' || text[i] == '.';
    return n;
}

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* One kind at one target with one counter: 0, or 1 when over budget. */
static int bench(int kind, long target, haystack_count_cb cb,
                 const char *counter, double budget_ms)
{
    double ms[ITEMS];
    struct haystack_prompt p = {0};
    struct haystack_fit fit = {0};
    unsigned calls = 0;
    int i;

    for (i = 0; i < ITEMS; i++) {
        struct haystack_item it;
        char msg[256];
        double t0 = now_ms();
        if (haystack_item_make(kind, 2026, (uint32_t)i, &it) != 0 ||
            haystack_fit(&it, target, cb, NULL, &p, &fit, msg, sizeof(msg))) {
            fprintf(stderr, "haystack_bench: %s\n", msg);
            exit(2);
        }
        ms[i] = now_ms() - t0;
        calls += fit.calls;
    }
    qsort(ms, ITEMS, sizeof(ms[0]), cmp_double);
    printf("| %s | %ld | %s | %.2f | %.2f | %zu | %zu | %.1f |\n",
           haystack_kind_name(kind), target, counter, ms[0], ms[ITEMS / 2],
           fit.fill, p.len, (double)calls / ITEMS);
    haystack_prompt_release(&p);
    return budget_ms > 0 && ms[ITEMS / 2] >= budget_ms;
}

int main(void)
{
    static const long targets[] = {4096, 16384, 65536};
    int kind, over = 0;
    size_t t;

    printf("| kind | target | counter | best ms | median ms | fill | bytes "
           "| calls |\n|---|---:|---|---:|---:|---:|---:|---:|\n");
    for (kind = 0; kind < HAYSTACK_NKINDS; kind++)
        for (t = 0; t < sizeof(targets) / sizeof(targets[0]); t++) {
            over |= bench(kind, targets[t], bytes4_cb, "bytes/4",
                          targets[t] == 65536 ? 50.0 : 0);
            if (targets[t] == 65536)
                over |= bench(kind, targets[t], words_cb, "words", 0);
        }
    if (over)
        fprintf(stderr, "haystack_bench: a 64K item took 50 ms or more\n");
    return over;
}
