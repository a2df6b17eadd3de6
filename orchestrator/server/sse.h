/*
 * sse.h - a resumable parser for Server-Sent Events (the framing of
 * llama-server's streamed /v1/chat/completions).
 *
 * Feed it the response body in any slices; it calls back once per event
 * with the event's data. It follows the WHATWG event-stream rules that a
 * chat stream uses: lines end in LF, CRLF or CR; a line starting with ':'
 * is a comment (newer servers send them as pings) and is ignored; "data:"
 * lines append to the event's data (one optional space after the colon;
 * several data lines are joined by LF); other fields ("event", "id",
 * "retry") are ignored; a blank line dispatches the event. Pure: no I/O,
 * no clock, so it is tested one byte at a time and fuzzed.
 */
#ifndef SSE_H
#define SSE_H

#include <stddef.h>

#include "../../util/util.h"

/* Called with one event's data (not NUL-terminated, no trailing LF).
 * A non-zero return stops the parser and is returned by sse_feed. */
typedef int (*sse_event_cb)(void *ctx, const char *data, size_t len);

enum { SSE_ETOOBIG = -1 }; /* a line or an event over the cap */

struct sse {
    struct buf line; /* the line being read */
    struct buf data; /* the event being built */
    int has_data;    /* a data line was seen since the last dispatch */
    int after_cr;    /* the last byte was CR: a following LF is its pair */
    size_t cap;      /* most bytes a line or an event may hold */
    sse_event_cb cb;
    void *ctx;
};

void sse_init(struct sse *s, size_t cap, sse_event_cb cb, void *ctx);
void sse_release(struct sse *s);

/* Parse p[0..n). Returns 0, SSE_ETOOBIG, or the callback's non-zero. */
int sse_feed(struct sse *s, const char *p, size_t n);

/* Whether the body ended in the middle of a line or an event: a stream
 * that ends so was cut off. */
int sse_pending(const struct sse *s);

#endif
