/*
 * endpoint.h - a served model (docs/run.md, "A served model"): a rung
 * whose server graveyard does not start. What is pure about it lives
 * here: whether its URL may be asked (https, or plain http to this
 * machine only unless allowed) and the one header that carries its key.
 */
#ifndef ENDPOINT_H
#define ENDPOINT_H

#include <jansson.h>
#include <stddef.h>

#define ENDPOINT_URL_MAX  512   /* an endpoint's base URL, at most */
#define ENDPOINT_SAID_CAP 65536 /* bytes of /props or /v1/models read */
#define ENDPOINT_STR_CAP  2000  /* a string kept of them, at most */

/* Whether url may be an endpoint's base: "https://HOST[:PORT][/PATH]", or
 * "http://" to a loopback host (127.0.0.0/8, ::1, localhost) unless
 * allow_plain_http. No user or password in it (it would be written into
 * the manifest), no query, no fragment, no control character or space.
 * 0, or -1 with the reason in msg. */
int endpoint_url_check(const char *url, int allow_plain_http, char *msg,
                       size_t msgsize);

/* Whether host (as in a URL: "[::1]" bracketed) is this machine's
 * loopback. */
int endpoint_loopback(const char *host, size_t len);

/* What an endpoint said about itself (its /props or /v1/models body,
 * len bytes) for the manifest: the JSON with every string cut to
 * ENDPOINT_STR_CAP bytes, nesting past 8 levels dropped, the members
 * whose names speak of a secret ("key", "token" as a whole word,
 * "secret", "password", "authorization") dropped, and any string holding
 * key (the endpoint's own, or NULL) replaced by "[redacted]". A body that
 * is not JSON becomes {"not_json": its first 200 bytes, redacted}.
 * Never NULL. */
json_t *endpoint_said(const char *body, size_t len, const char *key);

#endif
