/*
 * sse.c - event-stream framing: bytes to lines, lines to events.
 */
#include "sse.h"

#include <string.h>

void sse_init(struct sse *s, size_t cap, sse_event_cb cb, void *ctx)
{
    memset(s, 0, sizeof(*s));
    s->cap = cap;
    s->cb = cb;
    s->ctx = ctx;
    /* the buffers carry the cap: a line or an event over it is refused */
    buf_init(&s->line, cap);
    buf_init(&s->data, cap);
}

void sse_release(struct sse *s)
{
    buf_release(&s->line);
    buf_release(&s->data);
}

/* One complete line (without its end). */
static int line(struct sse *s, const char *p, size_t n)
{
    const char *colon, *value;
    size_t name, vlen;
    int rc;

    if (n == 0) {
        if (!s->has_data)
            return 0;
        /* drop the LF that followed the last data line */
        rc = s->cb(s->ctx, s->data.p, s->data.len - 1);
        s->data.len = 0;
        s->has_data = 0;
        return rc;
    }
    if (p[0] == ':')
        return 0;
    colon = memchr(p, ':', n);
    name = colon ? (size_t)(colon - p) : n;
    if (name != 4 || memcmp(p, "data", 4) != 0)
        return 0;
    value = colon ? colon + 1 : p + n;
    vlen = (size_t)(p + n - value);
    if (vlen > 0 && value[0] == ' ') {
        value++;
        vlen--;
    }
    if (buf_add(&s->data, value, vlen) != 0 || buf_add(&s->data, "\n", 1) != 0)
        return SSE_ETOOBIG;
    s->has_data = 1;
    return 0;
}

int sse_feed(struct sse *s, const char *p, size_t n)
{
    const char *end = p + n;
    int rc;

    while (p < end) {
        const char *q = p;
        if (s->after_cr) {
            s->after_cr = 0;
            if (*p == '\n') {
                p++;
                continue;
            }
        }
        while (q < end && *q != '\n' && *q != '\r')
            q++;
        if (q == end)
            return buf_add(&s->line, p, (size_t)(q - p)) == 0 ? 0
                                                              : SSE_ETOOBIG;
        if (s->line.len > 0) {
            if (buf_add(&s->line, p, (size_t)(q - p)) != 0)
                return SSE_ETOOBIG;
            rc = line(s, s->line.p, s->line.len);
            s->line.len = 0;
        } else {
            rc = line(s, p, (size_t)(q - p));
        }
        if (rc != 0)
            return rc;
        s->after_cr = *q == '\r';
        p = q + 1;
    }
    return 0;
}

int sse_pending(const struct sse *s)
{
    return s->line.len > 0 || s->has_data;
}
