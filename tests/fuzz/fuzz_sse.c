/*
 * fuzz_sse.c - libFuzzer harness for the SSE parser and the reply that
 * takes its events: the input fed whole and in slices (sizes from the
 * input) must give the same events and the same pending state; every
 * event then goes to a reply, which must not crash on any of them, and
 * whose count of escaped bytes (the row budget) must match what it kept.
 * The first byte also asks for log-probabilities (0 to 20 of them): the
 * reply's tokens must then make a probs record that decodes again
 * (grader/probs.h), whatever the stream held.
 *
 * Tests: orchestrator/server/sse.c
 * Tests: orchestrator/server/reply.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../grader/grader.h"
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

/* The reply's tokens as a record, decoded again: any failure aborts. */
static void record_round_trip(const struct reply *r)
{
    unsigned char *rec;
    size_t len;
    struct grader_probs_answer a;

    if (reply_probs_record(r, "q", &rec, &len) != 0)
        abort();
    if (grader_probs_decode(rec, len, &a, NULL) != 0 || a.id_len != 1)
        abort();
    grader_probs_answer_free(&a);
    free(rec);
}

static int run(const uint8_t *data, size_t size, size_t slice,
               struct seen *s)
{
    struct sse p;
    size_t off = 0, kept;
    int rc = 0, pending;
    unsigned topn = size ? data[0] % 21 : 0;

    memset(s, 0, sizeof(*s));
    reply_init(&s->reply, 1 << 16);
    reply_want_probs(&s->reply, topn);
    sse_init(&p, 1 << 16, collect, s);
    while (rc == 0 && off < size) {
        size_t n = slice && slice < size - off ? slice : size - off;
        rc = sse_feed(&p, (const char *)data + off, n);
        off += n;
    }
    pending = sse_pending(&p);
    sse_release(&p);
    (void)reply_outcome(&s->reply);
    /* the row budget: what is kept, escaped, is what was counted (a tool
     * call's name and arguments with their room), and never more than
     * the cap */
    kept = reply_escaped_len(s->reply.content.p, s->reply.content.len) +
           reply_escaped_len(s->reply.reasoning.p, s->reply.reasoning.len);
    for (size_t i = 0; i < s->reply.ncalls; i++)
        kept += REPLY_CALL_ROOM +
                reply_escaped_len(s->reply.calls[i].name.p,
                                  s->reply.calls[i].name.len) +
                reply_escaped_len(s->reply.calls[i].args.p,
                                  s->reply.calls[i].args.len);
    if (s->reply.escaped != kept || s->reply.escaped > s->reply.cap ||
        s->reply.ncalls > REPLY_CALLS_MAX)
        abort();
    if (topn > 0)
        record_round_trip(&s->reply);
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
