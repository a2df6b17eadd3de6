/*
 * progress.c - the progress line, written and read.
 */
#include "progress.h"

#include <stdio.h>
#include <string.h>

#define FORMAT                                                                \
    "{\"done\": %ld, \"total\": %ld, \"right\": %ld, \"tps\": %.1f, "         \
    "\"sec_per_q\": %.3f}"

size_t progress_format(const struct progress *p, char *out, size_t size)
{
    int n = snprintf(out, size, FORMAT "\n", p->done, p->total, p->right,
                     p->tps, p->sec_per_q);

    return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

static int parse(const char *line, struct progress *p)
{
    struct progress q;
    int used = -1;

    if (sscanf(line,
               "{\"done\": %ld, \"total\": %ld, \"right\": %ld, \"tps\": "
               "%lf, \"sec_per_q\": %lf}%n",
               &q.done, &q.total, &q.right, &q.tps, &q.sec_per_q,
               &used) != 5 ||
        used < 0 || line[used] != '\0')
        return 0;
    *p = q;
    return 1;
}

int progress_take(struct progress_reader *r, const char *s, size_t n,
                  struct progress *p)
{
    int lines = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        if (s[i] != '\n') {
            if (r->len + 1 < sizeof(r->line))
                r->line[r->len++] = s[i];
            else
                r->overlong = 1;
            continue;
        }
        r->line[r->len] = '\0';
        if (!r->overlong)
            lines += parse(r->line, p);
        r->len = 0;
        r->overlong = 0;
    }
    return lines;
}

void progress_show(const struct progress *p, char *out, size_t size)
{
    long eta = p->sec_per_q > 0
                   ? (long)((double)(p->total - p->done) * p->sec_per_q)
                   : -1;

    if (p->total == 0) {
        snprintf(out, size, "starting");
        return;
    }
    snprintf(out, size,
             "%ld/%ld answered  %ld right  %.1f tok/s  ETA %ldm%02lds",
             p->done, p->total, p->right, p->tps, eta > 0 ? eta / 60 : 0,
             eta > 0 ? eta % 60 : 0);
}
