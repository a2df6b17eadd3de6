/*
 * fuzz_sse.c - libFuzzer harness for the SSE parser and the reply that
 * takes its events: the input fed whole and in slices (sizes from the
 * input) must give the same events and the same pending state; every
 * event then goes to a reply, which must not crash on any of them, and
 * whose count of escaped bytes (the row budget) must match what it kept.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../orchestrator/server/reply.h"
#include "../../orchestrator/server/sse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
    struct buf all;
    struct reply reply;
};

static int collect(void *ctx, const char *d, size_t n)
{
    struct seen *s = ctx;
    char msg[128];
    char sep = '\0';

    buf_append(&s->all, d, n);
    buf_append(&s->all, &sep, 1);
    (void)reply_event(&s->reply, d, n, msg, sizeof(msg));
    return 0;
}

static int run(const uint8_t *data, size_t size, size_t slice,
               struct seen *s)
{
    struct sse p;
    size_t off = 0;
    int rc = 0, pending;

    memset(s, 0, sizeof(*s));
    reply_init(&s->reply, 1 << 16);
    sse_init(&p, 1 << 16, collect, s);
    while (rc == 0 && off < size) {
        size_t n = slice && slice < size - off ? slice : size - off;
        rc = sse_feed(&p, (const char *)data + off, n);
        off += n;
    }
    pending = sse_pending(&p);
    sse_release(&p);
    (void)reply_outcome(&s->reply);
    /* the row budget: what is kept, escaped, is what was counted, and
     * never more than the cap */
    if (s->reply.escaped != reply_escaped_len(s->reply.content.p,
                                              s->reply.content.len) +
                                reply_escaped_len(s->reply.reasoning.p,
                                                  s->reply.reasoning.len) ||
        s->reply.escaped > s->reply.cap)
        abort();
    return rc * 2 + pending;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct seen a, b;
    size_t slice = size ? data[0] % 13 + 1 : 1;
    int ra = run(data, size, 0, &a), rb = run(data, size, slice, &b);

    if (ra != rb || a.all.len != b.all.len ||
        (a.all.len && memcmp(a.all.p, b.all.p, a.all.len) != 0))
        abort();
    buf_release(&a.all);
    buf_release(&b.all);
    reply_release(&a.reply);
    reply_release(&b.reply);
    return 0;
}
