/*
 * http.h - HTTP requests on the libuv loop, through libcurl's multi
 * interface (curl's docs/examples/multi-uv.c pattern: the socket callback
 * drives uv_poll handles, the timer callback one uv_timer, and finished
 * transfers are drained with curl_multi_info_read).
 *
 * <curl/curl.h> is included here and nowhere else.
 */
#ifndef HTTP_H
#define HTTP_H

#include <stddef.h>
#include <uv.h>

struct http;
struct http_req;

/* Body bytes as they arrive, with the response's HTTP status; a non-zero
 * return aborts the transfer. */
typedef int (*http_data_cb)(void *ctx, long status, const char *p, size_t n);

/*
 * The end of a request, exactly once. status is the HTTP status (0 when no
 * response came); err is NULL on a complete transfer, else a sentence
 * ("connection refused", "no data for 30 s", ...). The request is freed
 * after this returns.
 *
 * It may run from curl's timer, before the loop polls (a kept-alive
 * connection whose reply is there the moment the request is sent: libuv
 * 1.44 runs due timers first in a turn). The client then keeps that
 * turn's poll from waiting, so that a caller turning the loop with
 * UV_RUN_ONCE until this ran gets control back; without that a count
 * once slept on in epoll_wait, done, while its server's pipes kept the
 * loop alive (tokenize.c, docs/longctx.md).
 */
typedef void (*http_done_cb)(void *ctx, long status, const char *err);

/* A client on loop. Returns NULL with a message in msg if libcurl cannot
 * start (an option of the multi handle refused is named). */
struct http *http_new(uv_loop_t *loop, char *msg, size_t msgsize);

/* Close every handle; cb (may be NULL) runs once all are closed. Pending
 * requests are cancelled without their callbacks. Safe to call from a done
 * callback: the freeing then waits until that callback has returned. */
void http_free(struct http *h, void (*cb)(void *ctx), void *ctx);

/* libcurl's global cleanup, once every client is freed (runner_run's
 * end); a later http_new sets it up again. */
void http_global_cleanup(void);

/*
 * Start a request to url: GET when body is NULL, else POST of body
 * (application/json). timeout_ms bounds the whole transfer (0: none; a
 * stream's idle and deadline limits are the caller's, counted in tokens,
 * not bytes). Returns the request, or NULL when it could not start (done
 * is then not called; http_error says why: every curl option set is
 * checked, and one libcurl refuses is named with the URL).
 */
struct http_req *http_request(struct http *h, const char *url,
                              const char *body, long timeout_ms,
                              http_data_cb data, http_done_cb done, void *ctx);

/* Why the last http_request of h returned NULL ("libcurl refused
 * CURLOPT_URL for 'http://...': ..."), "" after one that started. The
 * text is h's, until its next request. */
const char *http_error(const struct http *h);

/* Every later request of h carries "Authorization: Bearer KEY" (an
 * endpoint's key, docs/run.md "A served model"); h keeps a copy, wiped
 * when h is freed. -1 for a key that is empty, over 4096 bytes, or holds a
 * line break. */
int http_set_bearer(struct http *h, const char *key);

/* The next request of h opens a new connection, and closes it after:
 * not one the server kept alive and may have just closed (libcurl's
 * CURLOPT_FRESH_CONNECT and CURLOPT_FORBID_REUSE). */
void http_fresh_next(struct http *h);

/* Within a done callback: the response's Retry-After in seconds (capped
 * at a day), 0 when it had none. */
long http_retry_after(const struct http *h);

/* Abort a request: its done callback runs with err "cancelled", then it
 * is freed. Like a done callback, that one may free the client. */
void http_cancel(struct http *h, struct http_req *r);

#endif
