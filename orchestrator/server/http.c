/*
 * http.c - libcurl multi on libuv.
 */
#include "http.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/cli.h"

struct http {
    uv_loop_t *loop;
    CURLM *multi;
    uv_timer_t timer;
    uv_idle_t wake; /* keeps the loop from sleeping after a done in timer_cb */
    int wake_turns; /* wake's runs since it was started */
    int closing, pending_closes;
    void (*closed_cb)(void *ctx);
    void *closed_ctx;
    struct http_req *reqs; /* running requests (curl 7.88 cannot list them) */
    int in_done;           /* inside a done callback */
    int free_pending;      /* http_free was called from one */
    char *auth;            /* "Authorization: Bearer KEY", or NULL */
    long retry_after;      /* the request being ended: its Retry-After */
    int fresh;             /* the next request on a new connection */
    char why[512];         /* why the last http_request did not start */
};

struct http_req {
    struct http *h;
    CURL *easy;
    struct curl_slist *headers;
    char *body;
    http_data_cb data;
    http_done_cb done;
    void *ctx;
    char errbuf[CURL_ERROR_SIZE];
    struct http_req *prev, *next;
};

static void unlink_req(struct http_req *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        r->h->reqs = r->next;
    if (r->next)
        r->next->prev = r->prev;
}

/* Detach r from curl and free it (its callback is the caller's affair). */
static void free_req(struct http_req *r)
{
    unlink_req(r);
    curl_multi_remove_handle(r->h->multi, r->easy);
    curl_easy_cleanup(r->easy);
    curl_slist_free_all(r->headers);
    free(r->body);
    free(r);
}

/* One uv_poll per socket curl watches. */
struct sock {
    uv_poll_t poll;
    curl_socket_t fd;
    struct http *h;
};

/* A response's Retry-After in seconds (a date is turned into seconds by
 * libcurl), 0 when none. */
static long retry_after_of(CURL *easy)
{
    curl_off_t s = 0;

    if (curl_easy_getinfo(easy, CURLINFO_RETRY_AFTER, &s) != CURLE_OK || s < 0)
        return 0;
    return s > 86400 ? 86400 : (long)s;
}

void http_fresh_next(struct http *h)
{
    h->fresh = 1;
}

long http_retry_after(const struct http *h)
{
    return h->retry_after;
}

int http_set_bearer(struct http *h, const char *key)
{
    static const char pre[] = "Authorization: Bearer ";
    size_t n = strlen(key);

    if (n == 0 || n > 4096 || strpbrk(key, "\r\n") != NULL)
        return -1;
    h->auth = xrealloc(NULL, sizeof(pre) + n);
    memcpy(h->auth, pre, sizeof(pre) - 1);
    memcpy(h->auth + sizeof(pre) - 1, key, n + 1);
    return 0;
}

/* Report each finished transfer to its done callback; the count
 * reported. */
static int check_done(struct http *h)
{
    CURLMsg *m;
    int left, n = 0;

    while ((m = curl_multi_info_read(h->multi, &left)) != NULL) {
        struct http_req *r;
        long status = 0;
        const char *err = NULL;
        if (m->msg != CURLMSG_DONE)
            continue;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&r);
        curl_easy_getinfo(m->easy_handle, CURLINFO_RESPONSE_CODE, &status);
        h->retry_after = retry_after_of(m->easy_handle);
        if (m->data.result != CURLE_OK)
            err =
                r->errbuf[0] ? r->errbuf : curl_easy_strerror(m->data.result);
        /* the message points into r->errbuf: report before freeing */
        h->in_done++;
        r->done(r->ctx, status, err);
        h->in_done--;
        free_req(r);
        n++;
        if (h->free_pending)
            break;
    }
    if (h->free_pending && h->in_done == 0) {
        h->free_pending = 0;
        http_free(h, h->closed_cb, h->closed_ctx);
    }
    return n;
}

static void poll_cb(uv_poll_t *p, int status, int events)
{
    struct sock *s = p->data;
    int flags = 0, running;

    if (status < 0)
        flags = CURL_CSELECT_ERR;
    if (events & UV_READABLE)
        flags |= CURL_CSELECT_IN;
    if (events & UV_WRITABLE)
        flags |= CURL_CSELECT_OUT;
    curl_multi_socket_action(s->h->multi, s->fd, flags, &running);
    check_done(s->h);
}

static void wake_cb(uv_idle_t *w)
{
    struct http *h = w->data;

    if (++h->wake_turns >= 2)
        uv_idle_stop(w);
}

/*
 * curl's timer. A transfer can end in here: on a kept-alive connection
 * curl sends the request, finds the whole reply already there and
 * finishes, all inside this socket action. libuv 1.44 (Debian 12) runs a
 * due timer at the start of a loop turn, before it polls, and a
 * UV_RUN_ONCE turn then polls with no timeout when nothing else is due:
 * a caller that turns the loop until its done callback ran (tokenize.c)
 * slept on with its request done, until some other handle woke the loop
 * (a server's log line), or never. An active idle handle makes libuv
 * poll without waiting: wake is started after a done reported here, and
 * stops at its second run, so that it is still active when the turn's
 * poll timeout is chosen in every libuv (1.44.2 looks before running
 * idle callbacks, older ones after). It is unreferenced: it keeps no
 * loop alive by itself.
 */
static void timer_cb(uv_timer_t *t)
{
    struct http *h = t->data;
    int running;

    curl_multi_socket_action(h->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    if (check_done(h) > 0 && !h->closing) {
        h->wake_turns = 0;
        (void)uv_idle_start(&h->wake, wake_cb); /* only fails on a NULL cb */
    }
}

static int start_timeout(CURLM *multi, long ms, void *userp)
{
    struct http *h = userp;

    (void)multi;
    if (ms < 0)
        uv_timer_stop(&h->timer);
    else
        uv_timer_start(&h->timer, timer_cb, ms == 0 ? 1 : (uint64_t)ms, 0);
    return 0;
}

/* The client's memory, the key in it wiped first. */
static void free_client(struct http *h)
{
    if (h->auth != NULL)
        memset(h->auth, 0, strlen(h->auth));
    free(h->auth);
    free(h);
}

static void sock_closed(uv_handle_t *handle)
{
    struct sock *s = handle->data;
    struct http *h = s->h;

    free(s);
    if (--h->pending_closes == 0 && h->closing) {
        void (*cb)(void *) = h->closed_cb;
        void *ctx = h->closed_ctx;
        free_client(h);
        if (cb)
            cb(ctx);
    }
}

static int handle_socket(CURL *easy, curl_socket_t fd, int action, void *userp,
                         void *socketp)
{
    struct http *h = userp;
    struct sock *s = socketp;
    int events = 0;

    (void)easy;
    if (action == CURL_POLL_REMOVE) {
        if (s != NULL) {
            uv_poll_stop(&s->poll);
            curl_multi_assign(h->multi, fd, NULL);
            h->pending_closes++;
            uv_close((uv_handle_t *)&s->poll, sock_closed);
        }
        return 0;
    }
    if (s == NULL) {
        s = xrealloc(NULL, sizeof(*s));
        s->fd = fd;
        s->h = h;
        if (uv_poll_init_socket(h->loop, &s->poll, fd) != 0) {
            free(s);
            return -1;
        }
        s->poll.data = s;
        curl_multi_assign(h->multi, fd, s);
    }
    if (action != CURL_POLL_OUT)
        events |= UV_READABLE;
    if (action != CURL_POLL_IN)
        events |= UV_WRITABLE;
    /* a poll libuv refuses fails the transfer (curl takes -1 as an
     * error), rather than leaving it unwatched for ever */
    return uv_poll_start(&s->poll, events, poll_cb) == 0 ? 0 : -1;
}

/* curl_global_init has run (and curl_global_cleanup has not). libcurl's
 * global state is process-wide and not thread-safe to set up: graveyard
 * uses curl from the loop thread only. */
static int curl_ready;

/*
 * Every option set is checked (libcurl refuses one it does not know, a
 * value out of range, a string over its cap, a protocol it was built
 * without): a failure names the option, and for a request its URL, in
 * the client's message, and nothing is sent without it. The macros
 * spell the option's name once.
 */
static int mset_ok(CURLMcode rc, const char *name, char *msg, size_t msgsize)
{
    if (rc == CURLM_OK)
        return 0;
    snprintf(msg, msgsize, "libcurl refused %s: %s", name,
             curl_multi_strerror(rc));
    return -1;
}
#define MSET(h, opt, val, msg, msgsize)                                       \
    mset_ok(curl_multi_setopt((h)->multi, opt, val), #opt, msg, msgsize)

static int set_ok(struct http_req *r, CURLcode rc, const char *name,
                  const char *url)
{
    if (rc == CURLE_OK)
        return 0;
    snprintf(r->h->why, sizeof(r->h->why),
             "libcurl refused %s for '%.200s%s': %s", name, url,
             strlen(url) > 200 ? "..." : "", curl_easy_strerror(rc));
    return -1;
}
#define SET(r, opt, val, url)                                                 \
    set_ok((r), curl_easy_setopt((r)->easy, opt, val), #opt, url)

struct http *http_new(uv_loop_t *loop, char *msg, size_t msgsize)
{
    struct http *h;

    if (!curl_ready) {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
            snprintf(msg, msgsize, "libcurl did not start (curl_global_init)");
            return NULL;
        }
        curl_ready = 1;
    }
    h = xrealloc(NULL, sizeof(*h));
    memset(h, 0, sizeof(*h));
    h->loop = loop;
    h->multi = curl_multi_init();
    if (h->multi == NULL) {
        snprintf(msg, msgsize, "libcurl did not start (curl_multi_init)");
        free(h);
        return NULL;
    }
    if (MSET(h, CURLMOPT_SOCKETFUNCTION, handle_socket, msg, msgsize) != 0 ||
        MSET(h, CURLMOPT_SOCKETDATA, h, msg, msgsize) != 0 ||
        MSET(h, CURLMOPT_TIMERFUNCTION, start_timeout, msg, msgsize) != 0 ||
        MSET(h, CURLMOPT_TIMERDATA, h, msg, msgsize) != 0) {
        curl_multi_cleanup(h->multi);
        free(h);
        return NULL;
    }
    uv_timer_init(loop, &h->timer);
    h->timer.data = h;
    uv_idle_init(loop, &h->wake);
    h->wake.data = h;
    uv_unref((uv_handle_t *)&h->wake);
    return h;
}

static void handle_closed(uv_handle_t *handle)
{
    struct http *h = handle->data;

    if (--h->pending_closes == 0) {
        void (*cb)(void *) = h->closed_cb;
        void *ctx = h->closed_ctx;
        free_client(h);
        if (cb)
            cb(ctx);
    }
}

void http_free(struct http *h, void (*cb)(void *ctx), void *ctx)
{
    h->closed_cb = cb;
    h->closed_ctx = ctx;
    if (h->in_done > 0) {
        /* called from a done callback: the request being reported is
         * still in use; check_done frees everything once it returns */
        h->free_pending = 1;
        return;
    }
    h->closing = 1;
    /* cancel what is still running, without callbacks */
    while (h->reqs != NULL)
        free_req(h->reqs);
    curl_multi_cleanup(h->multi);
    h->pending_closes += 2;
    uv_close((uv_handle_t *)&h->timer, handle_closed);
    uv_close((uv_handle_t *)&h->wake, handle_closed);
}

static size_t write_cb(char *p, size_t size, size_t nmemb, void *userp)
{
    struct http_req *r = userp;
    size_t n = size * nmemb;
    long status = 0;

    /* curl knows the status before the first body byte */
    curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
    if (r->data != NULL && r->data(r->ctx, status, p, n) != 0)
        return 0; /* makes curl stop with CURLE_WRITE_ERROR */
    return n;
}

/* r's options for url (body: POST, else GET); 0, or -1 naming the
 * option libcurl refused in r->h->why. */
static int set_options(struct http_req *r, const char *url, const char *body,
                       long timeout_ms)
{
    struct http *h = r->h;

    if (SET(r, CURLOPT_URL, url, url) != 0 ||
        SET(r, CURLOPT_PRIVATE, r, url) != 0 ||
        SET(r, CURLOPT_ERRORBUFFER, r->errbuf, url) != 0 ||
        SET(r, CURLOPT_WRITEFUNCTION, write_cb, url) != 0 ||
        SET(r, CURLOPT_WRITEDATA, r, url) != 0 ||
        SET(r, CURLOPT_NOSIGNAL, 1L, url) != 0 ||
        SET(r, CURLOPT_PROXY, "", url) != 0 ||
        SET(r, CURLOPT_TIMEOUT_MS, timeout_ms, url) != 0 ||
        SET(r, CURLOPT_CONNECTTIMEOUT_MS, 5000L, url) != 0 ||
        /* a redirect is answered as it is (its status), never followed:
         * an endpoint's key must not travel to where a 3xx points; and
         * the certificate checks stay libcurl's defaults (on), never
         * turned off */
        SET(r, CURLOPT_FOLLOWLOCATION, 0L, url) != 0)
        return -1;
    if (h->fresh) {
        if (SET(r, CURLOPT_FRESH_CONNECT, 1L, url) != 0 ||
            SET(r, CURLOPT_FORBID_REUSE, 1L, url) != 0)
            return -1;
        h->fresh = 0;
    }
    if (h->auth != NULL)
        r->headers = curl_slist_append(NULL, h->auth);
    if (body != NULL) {
        size_t n = strlen(body);
        r->body = xrealloc(NULL, n + 1);
        memcpy(r->body, body, n + 1);
        r->headers =
            curl_slist_append(r->headers, "Content-Type: application/json");
        if (SET(r, CURLOPT_POSTFIELDS, r->body, url) != 0 ||
            SET(r, CURLOPT_POSTFIELDSIZE, (long)n, url) != 0)
            return -1;
    }
    if (r->headers != NULL && SET(r, CURLOPT_HTTPHEADER, r->headers, url) != 0)
        return -1;
    return 0;
}

struct http_req *http_request(struct http *h, const char *url,
                              const char *body, long timeout_ms,
                              http_data_cb data, http_done_cb done, void *ctx)
{
    struct http_req *r = xrealloc(NULL, sizeof(*r));

    memset(r, 0, sizeof(*r));
    r->h = h;
    r->data = data;
    r->done = done;
    r->ctx = ctx;
    h->why[0] = '\0';
    r->easy = curl_easy_init();
    if (r->easy == NULL) {
        snprintf(h->why, sizeof(h->why), "libcurl cannot make a request");
        free(r);
        return NULL;
    }
    if (set_options(r, url, body, timeout_ms) != 0)
        goto fail;
    if (curl_multi_add_handle(h->multi, r->easy) != CURLM_OK) {
        snprintf(h->why, sizeof(h->why), "libcurl cannot start '%.200s'", url);
        goto fail;
    }
    r->next = h->reqs;
    if (h->reqs)
        h->reqs->prev = r;
    h->reqs = r;
    return r;
fail:
    curl_easy_cleanup(r->easy);
    curl_slist_free_all(r->headers);
    free(r->body);
    free(r);
    return NULL;
}

const char *http_error(const struct http *h)
{
    return h->why;
}

void http_cancel(struct http *h, struct http_req *r)
{
    h->in_done++;
    r->done(r->ctx, 0, "cancelled");
    h->in_done--;
    free_req(r);
    if (h->free_pending && h->in_done == 0) {
        h->free_pending = 0;
        http_free(h, h->closed_cb, h->closed_ctx);
    }
}

void http_global_cleanup(void)
{
    if (curl_ready)
        curl_global_cleanup();
    curl_ready = 0;
}
