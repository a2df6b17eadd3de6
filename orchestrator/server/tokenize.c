/*
 * tokenize.c - a llama-server's count of a text's tokens (tokenize.h).
 */
#include "tokenize.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "../../util/util.h"
#include "http.h"

struct tokenizer {
    uv_loop_t loop;
    struct http *http;
    char url[512];
    long timeout_ms;
    unsigned long calls;
    double seconds;
    /* the count in flight */
    struct buf body;
    long status;
    int done, over;
    char err[256];
};

struct tokenizer *tokenize_open(const char *base, long timeout_ms, char *msg,
                                size_t msgsize)
{
    struct tokenizer *t = calloc(1, sizeof(*t));
    size_t n = strlen(base);

    if (t == NULL)
        util_oom("a tokenizer");
    while (n > 0 && base[n - 1] == '/')
        n--;
    if (n == 0 || n + sizeof("/tokenize") > sizeof(t->url) ||
        (strncmp(base, "http://", 7) != 0 &&
         strncmp(base, "https://", 8) != 0)) {
        snprintf(msg, msgsize,
                 "'%s' is not a server's address (http://HOST:PORT)", base);
        free(t);
        return NULL;
    }
    memcpy(t->url, base, n);
    memcpy(t->url + n, "/tokenize", sizeof("/tokenize"));
    t->timeout_ms = timeout_ms;
    if (uv_loop_init(&t->loop) != 0) {
        snprintf(msg, msgsize, "cannot start a loop for '%s'", t->url);
        free(t);
        return NULL;
    }
    if ((t->http = http_new(&t->loop, msg, msgsize)) == NULL) {
        (void)uv_loop_close(&t->loop);
        free(t);
        return NULL;
    }
    return t;
}

void tokenize_close(struct tokenizer *t)
{
    if (t == NULL)
        return;
    http_free(t->http, NULL, NULL);
    (void)uv_run(&t->loop, UV_RUN_DEFAULT); /* the handles' closes */
    (void)uv_loop_close(&t->loop);
    buf_release(&t->body);
    free(t);
}

static int data_cb(void *ctx, long status, const char *p, size_t n)
{
    struct tokenizer *t = ctx;

    t->status = status;
    if (buf_add(&t->body, p, n) != 0) {
        t->over = 1;
        return -1; /* past TOKENIZE_REPLY_MAX: abort */
    }
    return 0;
}

static void done_cb(void *ctx, long status, const char *err)
{
    struct tokenizer *t = ctx;

    t->status = status;
    t->done = 1;
    if (err != NULL)
        snprintf(t->err, sizeof(t->err), "%s", err);
}

/* The count in a reply {"tokens": [...]}: -1 with why. */
static long count_of(const struct buf *b, char *why, size_t whysize)
{
    json_error_t jerr;
    json_t *o = json_loadb(b->p ? b->p : "", b->len, 0, &jerr);
    json_t *a = json_object_get(o, "tokens");
    long n = -1;

    if (o == NULL)
        snprintf(why, whysize, "a reply that is not JSON (%s)", jerr.text);
    else if (!json_is_array(a))
        snprintf(why, whysize, "a reply without a \"tokens\" list");
    else
        n = (long)json_array_size(a);
    json_decref(o);
    return n;
}

int tokenize_count(struct tokenizer *t, const char *text, size_t len,
                   long *tokens, char *msg, size_t msgsize)
{
    json_t *req = json_object();
    char *body, why[300] = "";
    uint64_t t0 = uv_hrtime();
    long n = -1;

    if (req == NULL ||
        json_object_set_new(req, "content", json_stringn(text, len)) != 0 ||
        json_object_set_new(req, "add_special", json_false()) != 0 ||
        (body = json_dumps(req, JSON_COMPACT)) == NULL)
        util_oom("a /tokenize request");
    json_decref(req);
    buf_release(&t->body);
    buf_init(&t->body, TOKENIZE_REPLY_MAX);
    t->status = 0;
    t->done = t->over = 0;
    t->err[0] = '\0';
    if (http_request(t->http, t->url, body, t->timeout_ms, data_cb, done_cb,
                     t) == NULL) {
        snprintf(msg, msgsize, "%s", http_error(t->http));
        free(body);
        return -1;
    }
    while (!t->done)
        if (uv_run(&t->loop, UV_RUN_ONCE) == 0 && !t->done)
            break; /* nothing left to run: cannot happen with a request */
    free(body);
    t->calls++;
    t->seconds += (double)(uv_hrtime() - t0) / 1e9;
    if (t->over)
        snprintf(why, sizeof(why), "a reply over %zu MiB",
                 TOKENIZE_REPLY_MAX >> 20);
    else if (!t->done || t->err[0] != '\0')
        snprintf(why, sizeof(why), "%s", t->done ? t->err : "no answer");
    else if (t->status == 404)
        snprintf(why, sizeof(why),
                 "HTTP 404: this server has no /tokenize (an old build?)");
    else if (t->status != 200)
        snprintf(why, sizeof(why), "HTTP %ld", t->status);
    else
        n = count_of(&t->body, why, sizeof(why));
    if (n < 0) {
        snprintf(msg, msgsize, "cannot count tokens at '%s': %s", t->url, why);
        return -1;
    }
    *tokens = n;
    return 0;
}

unsigned long tokenize_calls(const struct tokenizer *t)
{
    return t->calls;
}

double tokenize_seconds(const struct tokenizer *t)
{
    return t->seconds;
}
