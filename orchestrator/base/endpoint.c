/*
 * endpoint.c - a served model's URL, checked before any connection: a
 * key sent over plain http to another machine is a key given away, so
 * the refusal must come before libcurl is asked anything. And the one
 * filter of the key's traces in what is kept of an endpoint's word.
 */
#define _GNU_SOURCE /* memmem */
#include "endpoint.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/util.h"

/* 127.0.0.0/8 written as a dotted quad of four numbers 0..255. */
static int loopback_v4(const char *h, size_t len)
{
    int part = 0, digits = 0, val = 0, first = -1;

    for (size_t i = 0; i <= len; i++) {
        if (i == len || h[i] == '.') {
            if (digits == 0 || val > 255)
                return 0;
            if (first < 0)
                first = val;
            part++;
            digits = val = 0;
            continue;
        }
        if (h[i] < '0' || h[i] > '9' || ++digits > 3)
            return 0;
        val = val * 10 + (h[i] - '0');
    }
    return part == 4 && first == 127;
}

int endpoint_loopback(const char *host, size_t len)
{
    return (len == 9 && strncmp(host, "localhost", 9) == 0) ||
           (len == 5 && strncmp(host, "[::1]", 5) == 0) ||
           loopback_v4(host, len);
}

int endpoint_url_check(const char *url, int allow_plain_http, char *msg,
                       size_t msgsize)
{
    const char *host, *end;
    size_t hlen;
    int https;

    if (strlen(url) > ENDPOINT_URL_MAX) {
        snprintf(msg, msgsize, "the endpoint URL is longer than %d bytes",
                 ENDPOINT_URL_MAX);
        return -1;
    }
    for (const char *p = url; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f) {
            snprintf(msg, msgsize,
                     "the endpoint URL '%.200s' holds a space or a control "
                     "character",
                     url);
            return -1;
        }
    https = strncmp(url, "https://", 8) == 0;
    if (!https && strncmp(url, "http://", 7) != 0) {
        snprintf(msg, msgsize,
                 "the endpoint URL '%.200s' is not https:// or http://", url);
        return -1;
    }
    host = url + (https ? 8 : 7);
    if (strpbrk(url, "?#@") != NULL) {
        snprintf(msg, msgsize,
                 "the endpoint URL '%.200s' may not hold a user, a query or "
                 "a fragment (the key goes in api_key_env)",
                 url);
        return -1;
    }
    /* the host ends at the port or the path; a bracketed IPv6 at ']' */
    end = host[0] == '[' ? strchr(host, ']') : host + strcspn(host, ":/");
    if (end == NULL || end == host) {
        snprintf(msg, msgsize, "the endpoint URL '%.200s' names no host", url);
        return -1;
    }
    hlen = (size_t)(end - host) + (host[0] == '[');
    if (!https && !allow_plain_http && !endpoint_loopback(host, hlen)) {
        snprintf(msg, msgsize,
                 "the endpoint URL '%.200s' is plain http to another "
                 "machine: use https, or say \"allow_plain_http\": true "
                 "(its answers and key would cross the network in clear)",
                 url);
        return -1;
    }
    return 0;
}

/* ---- a key's traces ---------------------------------------------------- */

/* Mark in mark[] every run of text that is a run of ENDPOINT_FRAG_MIN
 * bytes or more of form (the whole form when it is shorter): each such
 * run is covered by the windows of that length it holds. */
static void mark_form(const char *text, size_t len, const char *form,
                      size_t flen, unsigned char *mark)
{
    size_t w = flen < ENDPOINT_FRAG_MIN ? flen : ENDPOINT_FRAG_MIN;

    if (w == 0 || len < w)
        return;
    for (size_t j = 0; j + w <= flen; j++) {
        const char *p = text, *end = text + len, *hit;
        while ((size_t)(end - p) >= w &&
               (hit = memmem(p, (size_t)(end - p), form + j, w)) != NULL) {
            memset(mark + (hit - text), 1, w);
            p = hit + 1;
        }
    }
}

/* The bytes of a mask at text[i]: '*', '.', or U+2026 (3 bytes); 0 for
 * none. */
static size_t mask_at(const char *text, size_t len, size_t i)
{
    if (text[i] == '*' || text[i] == '.')
        return 1;
    if (i + 3 <= len && memcmp(text + i, "\xe2\x80\xa6", 3) == 0)
        return 3;
    return 0;
}

/* A masked echo: the key's prefix (3 bytes or more) right before a run of
 * masks (a star or an ellipsis; three dots at least), its suffix (3 or
 * more) right after. */
static void mark_masked(const char *text, size_t len, const char *key,
                        size_t klen, unsigned char *mark)
{
    size_t i = 0, e, m, p, q, dots;

    while (i < len) {
        if (mask_at(text, len, i) == 0) {
            i++;
            continue;
        }
        for (e = i, dots = 0; e < len && (m = mask_at(text, len, e)) > 0;
             e += m)
            dots += text[e] == '.';
        if (dots < 3 && dots == e - i) { /* a full stop, not a mask */
            i = e;
            continue;
        }
        for (p = klen - 1 < i ? klen - 1 : i; p >= 3; p--)
            if (memcmp(text + i - p, key, p) == 0)
                break;
        for (q = klen - 1 < len - e ? klen - 1 : len - e; q >= 3; q--)
            if (memcmp(text + e, key + klen - q, q) == 0)
                break;
        if (p >= 3 && q >= 3)
            memset(mark + i - p, 1, e + q - (i - p));
        i = e;
    }
}

/* key's JSON-escaped form into out (6 bytes a byte at most), "/" as
 * slash_esc says. */
static size_t json_form(const char *key, size_t klen, int slash_esc, char *out)
{
    size_t n = 0;

    for (size_t i = 0; i < klen; i++) {
        unsigned char c = (unsigned char)key[i];
        const char *esc = c == '"'                  ? "\\\""
                          : c == '\\'               ? "\\\\"
                          : c == '\b'               ? "\\b"
                          : c == '\f'               ? "\\f"
                          : c == '\n'               ? "\\n"
                          : c == '\r'               ? "\\r"
                          : c == '\t'               ? "\\t"
                          : (c == '/' && slash_esc) ? "\\/"
                                                    : NULL;
        if (esc != NULL)
            n += (size_t)sprintf(out + n, "%s", esc);
        else if (c < 0x20)
            n += (size_t)sprintf(out + n, "\\u%04x", c);
        else
            out[n++] = (char)c;
    }
    return n;
}

/* key URL-encoded (every byte but letters, digits and -._~), hex in
 * upper or lower case, into out (3 bytes a byte at most). */
static size_t url_form(const char *key, size_t klen, int lower, char *out)
{
    size_t n = 0;

    for (size_t i = 0; i < klen; i++) {
        unsigned char c = (unsigned char)key[i];
        if (isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~')
            out[n++] = (char)c;
        else
            n += (size_t)sprintf(out + n, lower ? "%%%02x" : "%%%02X", c);
    }
    return n;
}

void endpoint_trace_marks(const char *text, size_t len, const char *key,
                          unsigned char *mark)
{
    size_t klen = key ? strlen(key) : 0, flen, plen = 0, i;
    char *form, *prev;

    if (klen == 0 || len == 0)
        return;
    form = xrealloc(NULL, 6 * klen + 1);
    prev = xrealloc(NULL, 6 * klen + 1);
    mark_form(text, len, key, klen, mark);
    for (i = 0; i < 4; i++) {
        flen = i < 2 ? json_form(key, klen, (int)i, form)
                     : url_form(key, klen, (int)i - 2, form);
        /* a key of letters and digits has one form: searched once */
        if (!(flen == klen && memcmp(form, key, klen) == 0) &&
            !(i % 2 == 1 && flen == plen && memcmp(form, prev, flen) == 0))
            mark_form(text, len, form, flen, mark);
        memcpy(prev, form, flen);
        plen = flen;
    }
    mark_masked(text, len, key, klen, mark);
    free(prev);
    free(form);
}

size_t endpoint_redact(char *text, size_t len, const char *key)
{
    size_t i, o, run;
    unsigned char *mark;

    if (key == NULL || key[0] == '\0' || len == 0)
        return len;
    mark = xrealloc(NULL, len);
    memset(mark, 0, len);
    endpoint_trace_marks(text, len, key, mark);
    for (i = o = 0; i < len; i += run) {
        for (run = 1; i + run < len && mark[i + run] == mark[i]; run++)
            ;
        if (!mark[i]) {
            memmove(text + o, text + i, run);
            o += run;
        } else if (run >= 10) {
            memcpy(text + o, "[redacted]", 10);
            o += 10;
        } else {
            memset(text + o, '*', run);
            o += run;
        }
    }
    free(mark);
    return o;
}

/* Whether a member's name speaks of a secret. */
static int secret_name(const char *name)
{
    static const char *const words[] = {
        "key",           "secret", "password",   "passwd",
        "authorization", "bearer", "credential", NULL};
    char low[64];
    size_t i;

    for (i = 0; name[i] && i < sizeof(low) - 1; i++)
        low[i] = (char)tolower((unsigned char)name[i]);
    low[i] = '\0';
    for (i = 0; words[i]; i++)
        if (strstr(low, words[i]) != NULL)
            return 1;
    /* "token" alone, "api_token", "hf_token": not "max_tokens" */
    i = strlen(low);
    return strcmp(low, "token") == 0 ||
           (i > 6 && strcmp(low + i - 6, "_token") == 0);
}

/* Whether s (n bytes) holds a trace of key (endpoint_redact's). */
static int holds_key(const char *s, size_t n, const char *key)
{
    char *copy;
    size_t m;
    int changed;

    if (key == NULL || key[0] == '\0' || n == 0)
        return 0;
    copy = xrealloc(NULL, n);
    memcpy(copy, s, n);
    m = endpoint_redact(copy, n, key);
    changed = m != n || memcmp(copy, s, n) != 0;
    free(copy);
    return changed;
}

/* A string as kept: redacted when it holds a trace of the key, else
 * cut. */
static json_t *kept_string(const char *s, size_t n, const char *key)
{
    if (holds_key(s, n, key))
        return json_string("[redacted]");
    if (n > ENDPOINT_STR_CAP)
        n = ENDPOINT_STR_CAP;
    /* a cut inside a UTF-8 sequence is not a string jansson takes */
    while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
        n--;
    return json_stringn(s, n);
}

static json_t *clean(json_t *v, const char *key, int depth)
{
    const char *name;
    json_t *out, *x;
    size_t i;

    if (depth > 8)
        return json_null();
    switch (json_typeof(v)) {
    case JSON_STRING:
        return kept_string(json_string_value(v), json_string_length(v), key);
    case JSON_OBJECT:
        out = json_object();
        json_object_foreach(v, name, x)
        {
            if (!secret_name(name) && !holds_key(name, strlen(name), key))
                json_object_set_new(out, name, clean(x, key, depth + 1));
        }
        return out;
    case JSON_ARRAY:
        out = json_array();
        json_array_foreach(v, i, x)
        {
            json_array_append_new(out, clean(x, key, depth + 1));
        }
        return out;
    default:
        return json_incref(v);
    }
}

json_t *endpoint_said(const char *body, size_t len, const char *key)
{
    json_t *v = json_loadb(body, len, 0, NULL), *out;
    char head[201];
    size_t n = len < 200 ? len : 200;

    if (v == NULL) {
        memcpy(head, body, n);
        head[n] = '\0';
        /* printable only: a binary body is not the manifest's */
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)head[i] < ' ' || (unsigned char)head[i] >= 0x7f)
                head[i] = '?';
        out = json_pack("{s:o}", "not_json", kept_string(head, n, key));
    } else {
        out = clean(v, key, 0);
        json_decref(v);
    }
    if (out == NULL)
        util_oom("an endpoint's answer");
    return out;
}
