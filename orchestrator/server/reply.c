/*
 * reply.c - chat-completion chunks into one answer.
 */
#include "reply.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../grader/grader.h"

void reply_init(struct reply *r, size_t cap)
{
    memset(r, 0, sizeof(*r));
    r->cap = cap;
    /* raw bytes never pass the escaped budget: the same cap holds */
    buf_init(&r->content, cap);
    buf_init(&r->reasoning, cap);
    r->completion_tokens = r->predicted_n = r->prompt_n = -1;
    r->decode_tps = r->prompt_ms = r->predicted_ms = -1;
}

void reply_release(struct reply *r)
{
    buf_release(&r->content);
    buf_release(&r->reasoning);
    free(r->error);
    r->error = NULL;
}

/* What a timing may be before it is no measurement: a reply takes hours,
 * not a year of milliseconds, and no prompt or reply is 1e15 tokens. */
#define TIMING_MS_MAX 1e12
#define TIMING_N_MAX  1e15

/* A timing from 0 to max, or -1 (null in the row): null itself (inf and
 * NaN are sent as null), and a number that is negative or past max, which
 * a row would keep but no summary could use (docs/rows.md). */
static double num(json_t *o, const char *key, double max)
{
    json_t *v = json_object_get(o, key);
    double d = json_is_number(v) ? json_number_value(v) : -1;

    return d >= 0 && d <= max ? d : -1;
}

static void timings(struct reply *r, json_t *t)
{
    if (!json_is_object(t))
        return;
    /* in range before the cast: a double past a long long is undefined */
    r->predicted_n = (long long)num(t, "predicted_n", TIMING_N_MAX);
    r->prompt_n = (long long)num(t, "prompt_n", TIMING_N_MAX);
    r->decode_tps = num(t, "predicted_per_second", GRADER_TPS_MAX);
    r->prompt_ms = num(t, "prompt_ms", TIMING_MS_MAX);
    r->predicted_ms = num(t, "predicted_ms", TIMING_MS_MAX);
}

size_t reply_escaped_len(const char *text, size_t len)
{
    size_t i, n = 0;

    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' ||
            c == '\r' || c == '\t')
            n += 2;
        else if (c < 0x20)
            n += 6;
        else
            n += 1;
    }
    return n;
}

const char *reply_error_kind(int code)
{
    switch (code) {
    case REPLY_EUTF8:
        return "bad_utf8";
    case REPLY_ENUL:
        return "nul";
    case REPLY_ETOOBIG:
        return "too_long";
    default:
        return "bad_stream";
    }
}

static int too_big(size_t cap, char *msg, size_t msgsize)
{
    snprintf(msg, msgsize,
             "reply longer than a row holds (%zu bytes once escaped)", cap);
    return REPLY_ETOOBIG;
}

int reply_fits(const char *content, size_t clen, const char *reasoning,
               size_t rlen, size_t cap, char *msg, size_t msgsize)
{
    size_t e = content ? reply_escaped_len(content, clen) : 0;

    if (e > cap || (reasoning && reply_escaped_len(reasoning, rlen) > cap - e))
        return too_big(cap, msg, msgsize);
    return 0;
}

/* A delta's text field (key) into b. Absent or null is no text (the role
 * chunk's "content": null); any other non-string is a broken stream, not
 * a piece to drop: the reply would be graded with a hole in it. */
static int append(struct reply *r, struct buf *b, json_t *delta,
                  const char *key, char *msg, size_t msgsize)
{
    json_t *v = json_object_get(delta, key);
    const char *s;
    size_t n, e;

    if (v == NULL || json_is_null(v))
        return 0;
    if (!json_is_string(v)) {
        snprintf(msg, msgsize, "stream delta's \"%s\" is not text (a %s)", key,
                 json_is_number(v)   ? "number"
                 : json_is_object(v) ? "JSON object"
                 : json_is_array(v)  ? "JSON array"
                                     : "boolean");
        return REPLY_EBAD;
    }
    s = json_string_value(v);
    n = json_string_length(v);
    if (n == 0)
        return 0;
    if (memchr(s, '\0', n) != NULL) {
        snprintf(msg, msgsize, "the reply holds a \\u0000 character");
        return REPLY_ENUL;
    }
    e = reply_escaped_len(s, n);
    if (r->escaped + e > r->cap)
        return too_big(r->cap, msg, msgsize);
    if (buf_add(b, s, n) != 0) { /* cannot happen: raw <= escaped */
        snprintf(msg, msgsize, "reply longer than %zu bytes", r->cap);
        return REPLY_ETOOBIG;
    }
    r->escaped += e;
    r->progress++;
    return 0;
}

int reply_event(struct reply *r, const char *data, size_t len, char *msg,
                size_t msgsize)
{
    json_error_t jerr;
    json_t *o, *choice, *delta, *v;
    int rc = 0;

    r->events++;
    if (len == 6 && memcmp(data, "[DONE]", 6) == 0) {
        r->done = 1;
        return 0;
    }
    /* NULs are let through the parser and refused by name below */
    o = json_loadb(data, len, JSON_ALLOW_NUL, &jerr);
    if (o == NULL && json_error_code(&jerr) == json_error_invalid_utf8) {
        snprintf(msg, msgsize, "stream event is not valid UTF-8");
        return REPLY_EUTF8;
    }
    if (!json_is_object(o)) {
        snprintf(msg, msgsize, "stream event is not a JSON object: %s",
                 o ? "wrong type" : jerr.text);
        json_decref(o);
        return REPLY_EBAD;
    }
    if ((v = json_object_get(o, "error")) != NULL) {
        json_t *m = json_object_get(v, "message");
        free(r->error);
        r->error = xstrdup(json_is_string(m) ? json_string_value(m)
                                             : "error event without message");
        r->progress++;
        json_decref(o);
        return 0;
    }
    v = json_object_get(o, "choices");
    if (!json_is_array(v)) {
        snprintf(msg, msgsize, "stream event has no \"choices\"");
        json_decref(o);
        return REPLY_EBAD;
    }
    choice = json_array_get(v, 0); /* the usage chunk has choices: [] */
    delta = json_object_get(choice, "delta");
    if (json_is_object(delta)) {
        rc = append(r, &r->content, delta, "content", msg, msgsize);
        if (rc == 0)
            rc = append(r, &r->reasoning, delta, "reasoning_content", msg,
                        msgsize);
    }
    v = json_object_get(choice, "finish_reason");
    if (rc == 0 && json_is_string(v)) {
        snprintf(r->finish, sizeof(r->finish), "%s", json_string_value(v));
        r->progress++;
    }
    v = json_object_get(json_object_get(o, "usage"), "completion_tokens");
    if (json_is_integer(v))
        r->completion_tokens = json_integer_value(v);
    if (json_is_object(json_object_get(o, "timings")))
        r->progress++;
    timings(r, json_object_get(o, "timings"));
    json_decref(o);
    return rc;
}

enum reply_outcome reply_outcome(const struct reply *r)
{
    if (r->error != NULL)
        return REPLY_ERROR;
    if (r->finish[0] != '\0' || r->done)
        return REPLY_FINISHED;
    return REPLY_CUT;
}

long long reply_tokens(const struct reply *r)
{
    return r->completion_tokens >= 0 ? r->completion_tokens : r->predicted_n;
}

int reply_truncated(const struct reply *r, long long max_tokens)
{
    long long n = reply_tokens(r);

    return strcmp(r->finish, "length") == 0 ||
           (max_tokens > 0 && n >= max_tokens);
}
