/*
 * endpoint.c - a served model's URL, checked before any connection: a
 * key sent over plain http to another machine is a key given away, so
 * the refusal must come before libcurl is asked anything.
 */
#include "endpoint.h"

#include <ctype.h>
#include <stdio.h>
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
        snprintf(msg, msgsize, "the endpoint URL '%.200s' names no host",
                 url);
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

/* Whether a member's name speaks of a secret. */
static int secret_name(const char *name)
{
    static const char *const words[] = {"key", "secret", "password",
                                        "passwd", "authorization", "bearer",
                                        "credential", NULL};
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

/* A string as kept: redacted when it holds the key, else cut. */
static json_t *kept_string(const char *s, size_t n, const char *key)
{
    if (key != NULL && key[0] != '\0' && strstr(s, key) != NULL)
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
            if (!secret_name(name))
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
