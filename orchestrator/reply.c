/*
 * reply.c - chat-completion chunks into one answer.
 */
#include "reply.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void reply_init(struct reply *r, size_t cap)
{
    memset(r, 0, sizeof(*r));
    r->cap = cap;
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

/* A number field that may be null (inf/NaN timings are sent as null). */
static double num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    return json_is_number(v) ? json_number_value(v) : -1;
}

static void timings(struct reply *r, json_t *t)
{
    if (!json_is_object(t))
        return;
    r->predicted_n = (long long)num(t, "predicted_n");
    r->prompt_n = (long long)num(t, "prompt_n");
    r->decode_tps = num(t, "predicted_per_second");
    r->prompt_ms = num(t, "prompt_ms");
    r->predicted_ms = num(t, "predicted_ms");
}

static int append(struct reply *r, struct buf *b, json_t *v, char *msg,
                  size_t msgsize)
{
    size_t n;

    if (!json_is_string(v))
        return 0;
    n = json_string_length(v);
    if (b->len + n > r->cap) {
        snprintf(msg, msgsize, "reply longer than %zu bytes", r->cap);
        return -1;
    }
    buf_append(b, json_string_value(v), n);
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
    o = json_loadb(data, len, 0, &jerr);
    if (!json_is_object(o)) {
        snprintf(msg, msgsize, "stream event is not a JSON object: %s",
                 o ? "wrong type" : jerr.text);
        json_decref(o);
        return -1;
    }
    if ((v = json_object_get(o, "error")) != NULL) {
        json_t *m = json_object_get(v, "message");
        free(r->error);
        r->error = strdup(json_is_string(m) ? json_string_value(m)
                                            : "error event without message");
        if (r->error == NULL)
            abort();
        json_decref(o);
        return 0;
    }
    v = json_object_get(o, "choices");
    if (!json_is_array(v)) {
        snprintf(msg, msgsize, "stream event has no \"choices\"");
        json_decref(o);
        return -1;
    }
    choice = json_array_get(v, 0); /* the usage chunk has choices: [] */
    delta = json_object_get(choice, "delta");
    if (json_is_object(delta)) {
        rc = append(r, &r->content, json_object_get(delta, "content"), msg,
                    msgsize);
        if (rc == 0)
            rc = append(r, &r->reasoning,
                        json_object_get(delta, "reasoning_content"), msg,
                        msgsize);
    }
    v = json_object_get(choice, "finish_reason");
    if (json_is_string(v))
        snprintf(r->finish, sizeof(r->finish), "%s", json_string_value(v));
    v = json_object_get(json_object_get(o, "usage"), "completion_tokens");
    if (json_is_integer(v))
        r->completion_tokens = json_integer_value(v);
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
