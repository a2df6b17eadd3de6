/*
 * summary.c - a reply's tool calls as one short line (toolcall_summary),
 * for the reports' "what the rung said" column and for telling two
 * rungs' calls apart; and the nesting count that caps what is parsed
 * (toolcall.c's too).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* The deepest nesting of [ and { in JSON text, counted up to cap + 1
 * (strings skipped, escapes too), without parsing it. */
size_t toolcall__json_depth(const char *s, size_t n, size_t cap)
{
    size_t depth = 0, max = 0;
    int in_str = 0;

    for (size_t i = 0; i < n && max <= cap; i++) {
        char c = s[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = 0;
        } else if (c == '"') {
            in_str = 1;
        } else if (c == '[' || c == '{') {
            if (++depth > max)
                max = depth;
        } else if ((c == ']' || c == '}') && depth > 0) {
            depth--;
        }
    }
    return max;
}

/* The line being made: its first bytes kept in out, every byte hashed
 * (FNV-1a) and counted. */
struct line {
    char *out;
    size_t size, n;
    uint64_t hash;
};

static void put(struct line *l, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f) /* one line, nothing a terminal acts on */
            c = ' ';
        l->hash = (l->hash ^ c) * 0x100000001b3ULL;
        if (l->n < l->size - 1)
            l->out[l->n] = (char)c;
        l->n++;
    }
}

/* The arguments' text as ARGS: compact, keys sorted, when it is a JSON
 * object or other value; else as sent. 0, or TOOLCALL_ENOMEM. */
static int put_args(struct line *l, const char *text, size_t len)
{
    json_error_t je;
    unsigned long failures = toolcall_alloc_failures();
    size_t flags = JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY, need;
    json_t *v = NULL;
    char *buf;

    memset(&je, 0, sizeof je);
    if (len <= TOOLCALL_MAX_ARGS &&
        toolcall__json_depth(text, len, TOOLCALL_MAX_DEPTH) <=
            TOOLCALL_MAX_DEPTH)
        v = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (v == NULL && toolcall__oom(&je, failures))
        return TOOLCALL_ENOMEM;
    if (v == NULL) {
        put(l, text, len);
        return 0;
    }
    need = json_dumpb(v, NULL, 0, flags);
    buf = need > 0 ? toolcall__alloc(need) : NULL;
    if (buf == NULL || json_dumpb(v, buf, need, flags) != need) {
        toolcall__free(buf);
        json_decref(v);
        return TOOLCALL_ENOMEM;
    }
    put(l, buf, need);
    toolcall__free(buf);
    json_decref(v);
    return 0;
}

/* A line longer than out: cut at a character, "~" and the hash. */
static void cut(struct line *l)
{
    size_t k;

    if (l->n < l->size) {
        l->out[l->n] = '\0';
        return;
    }
    k = l->size - 10; /* "~" and 8 hex digits and the NUL */
    while (k > 0 && ((unsigned char)l->out[k] & 0xc0) == 0x80)
        k--; /* out[k] begins a character: cut before it */
    snprintf(l->out + k, l->size - k, "~%08x",
             (unsigned)(l->hash ^ (l->hash >> 32)));
}

int toolcall_summary(const struct toolcall_reply *reply, char *out,
                     size_t outsize)
{
    struct line l = {out, outsize, 0, 0xcbf29ce484222325ULL};
    unsigned long failures = toolcall_alloc_failures();
    json_error_t je;
    json_t *list, *c;
    size_t i;
    int rc = 0;

    if (out == NULL || outsize < 12)
        return TOOLCALL_EARG;
    out[0] = '\0';
    if (reply == NULL || reply->calls == NULL || reply->calls_len == 0)
        return 0;
    if (reply->calls_len > TOOLCALL_MAX_REPLY ||
        toolcall__json_depth(reply->calls, reply->calls_len,
                             TOOLCALL_MAX_DEPTH) > TOOLCALL_MAX_DEPTH)
        return TOOLCALL_EARG;
    memset(&je, 0, sizeof je);
    list = json_loadb(reply->calls, reply->calls_len, JSON_ALLOW_NUL, &je);
    if (list == NULL && toolcall__oom(&je, failures))
        return TOOLCALL_ENOMEM;
    if (!json_is_array(list) || json_array_size(list) > TOOLCALL_MAX_CALLS)
        rc = TOOLCALL_EARG;
    json_array_foreach(list, i, c)
    {
        json_t *name = json_object_get(c, "name"),
               *args = json_object_get(c, "arguments");
        if (rc != 0 || !json_is_string(name) || !json_is_string(args)) {
            rc = rc != 0 ? rc : TOOLCALL_EARG;
            break;
        }
        if (i > 0)
            put(&l, "; ", 2);
        put(&l, json_string_value(name), json_string_length(name));
        put(&l, "(", 1);
        if ((rc = put_args(&l, json_string_value(args),
                           json_string_length(args))) != 0)
            break;
        put(&l, ")", 1);
    }
    if (rc == 0)
        rc = (int)json_array_size(list);
    json_decref(list);
    if (rc < 0)
        out[0] = '\0';
    else
        cut(&l);
    return rc;
}
