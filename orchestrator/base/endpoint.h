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

/* Pieces of a key shorter than this are not traces of it on their own
 * (a key shorter than this is a trace only whole). */
#define ENDPOINT_FRAG_MIN 8

/*
 * The one filter of every text kept from an endpoint (its error bodies
 * and stream error events, the content and reasoning it streamed, what
 * it says of itself in /props and /v1/models, and so the rows, the log
 * and the manifest): each trace of key in text[0..len) is overwritten in
 * place, and the new length returned (never more than len; text is not
 * NUL-terminated here). A trace is, in the key itself, its JSON-escaped
 * form (with "/" as is and as "\/") and its URL-encoded form (hex upper
 * or lower case), any run of ENDPOINT_FRAG_MIN bytes or more (a key cut
 * by a server, its tail); and a masked echo, a prefix of 3 bytes or more,
 * a run of '*', "..." or "â¦", and a suffix of 3 or more
 * ("sk-abc...wxyz", OpenAI's "Incorrect API key provided"). A trace of
 * 10 bytes or more becomes "[redacted]", a shorter one as many '*'. key
 * NULL or "" changes nothing. Memory is len bytes while it runs.
 */
size_t endpoint_redact(char *text, size_t len, const char *key);

/* endpoint_redact's traces of key in text (len bytes), found but not
 * overwritten: each byte of one is set to 1 in mark (len bytes, zeroed
 * by the caller). For texts whose length must stay as it is, such as a
 * reply's tokens, whose boundaries a probs record keeps. */
void endpoint_trace_marks(const char *text, size_t len, const char *key,
                          unsigned char *mark);

/* What an endpoint said about itself (its /props or /v1/models body,
 * len bytes) for the manifest: the JSON with every string cut to
 * ENDPOINT_STR_CAP bytes, nesting past 8 levels dropped, the members
 * whose names speak of a secret ("key", "token" as a whole word,
 * "secret", "password", "authorization") or hold a trace of key (the
 * endpoint's own, or NULL: endpoint_redact's traces) dropped, and any
 * string holding such a trace replaced by "[redacted]". A body that
 * is not JSON becomes {"not_json": its first 200 bytes, redacted}.
 * Never NULL. */
json_t *endpoint_said(const char *body, size_t len, const char *key);

#endif
