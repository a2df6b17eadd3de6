/*
 * toolcalls.c - the fake llama-server's tool calls (toolcalls.h).
 *
 * A rule's "tool_calls" is a list of calls, streamed in its order:
 *   {"name": "get_weather",           the function named
 *    "arguments": "{\"city\": ...}",  its arguments' text, any bytes
 *    "repeat": 1,                     the text that many times over
 *    "index": 0,                      its index (default: its place)
 *    "split": [3, 9],                 cut the text at these byte offsets
 *    "chunk": 4}                      else pieces of this many bytes,
 *                                     never inside a UTF-8 character
 */
#include "toolcalls.h"

#include <stdlib.h>
#include <string.h>

static void die(const char *what)
{
    fprintf(stderr, "fake-llama-server: %s\n", what);
    exit(1);
}

/* p[0..n) as a JSON string with its quotes: '"', '\\' and control bytes
 * escaped, every other byte as it is (new: free()). */
static char *quoted(const char *p, size_t n)
{
    char *q = malloc(6 * n + 3), *o = q;

    if (q == NULL)
        die("out of memory");
    *o++ = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '"' || c == '\\') {
            *o++ = '\\';
            *o++ = (char)c;
        } else if (c < 0x20) {
            o += sprintf(o, "\\u%04x", c);
        } else {
            *o++ = (char)c;
        }
    }
    *o++ = '"';
    *o = '\0';
    return q;
}

/* The raw text a delta came of: before (the call's head, or NULL), the
 * piece p[0..n), after (its closing, or NULL) (new). */
static char *raw_of(const char *before, const char *p, size_t n,
                    const char *after)
{
    size_t b = before ? strlen(before) : 0, a = after ? strlen(after) : 0;
    char *t = malloc(b + n + a + 1);

    if (t == NULL)
        die("out of memory");
    memcpy(t, before ? before : "", b);
    memcpy(t + b, p, n);
    memcpy(t + b + n, after ? after : "", a);
    t[b + n + a] = '\0';
    return t;
}

/* One delta of call index: its head (id, type, name) when name is given,
 * and the piece of arguments p[0..n); lp: its log-probabilities' JSON,
 * or NULL. */
static void delta(fake_event_cb add, void *ctx, long index, const char *name,
                  const char *p, size_t n, const char *lp)
{
    char *args = quoted(p, n), *nm = NULL, *head = NULL, *e;

    if (name != NULL) {
        nm = quoted(name, strlen(name));
        if (asprintf(&head, "\"id\":\"call_%ld\",\"type\":\"function\",",
                     index) < 0)
            die("out of memory");
    }
    if (asprintf(&e,
                 "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":%ld,"
                 "%s\"function\":{%s%s%s\"arguments\":%s}}]},\"index\":0,"
                 "%s%s%s\"finish_reason\":null}],\"object\":"
                 "\"chat.completion.chunk\",\"model\":\"fake\"}",
                 index, head ? head : "", nm ? "\"name\":" : "", nm ? nm : "",
                 nm ? "," : "", args, lp ? "\"logprobs\":" : "", lp ? lp : "",
                 lp ? "," : "") < 0)
        die("out of memory");
    add(ctx, e);
    free(e);
    free(head);
    free(nm);
    free(args);
}

/* Where the next piece of a text of len bytes ends, from off: the next
 * "split" offset, else off + chunk backed off to a character's start. */
static size_t piece_end(const char *t, size_t len, size_t off, json_t *split,
                        size_t *si, size_t chunk)
{
    size_t end;

    if (json_is_array(split)) {
        while (*si < json_array_size(split)) {
            json_int_t at = json_integer_value(json_array_get(split, (*si)++));
            if (at > (json_int_t)off && (size_t)at < len)
                return (size_t)at;
        }
        return len;
    }
    end = off + chunk < len ? off + chunk : len;
    while (end < len && end > off + 1 &&
           ((unsigned char)t[end] & 0xc0) == 0x80)
        end--;
    return end;
}

/* The arguments' text of call c: "arguments" "repeat" times (new). */
static char *arguments(json_t *c, size_t *len)
{
    json_t *a = json_object_get(c, "arguments");
    json_t *r = json_object_get(c, "repeat");
    size_t n = json_is_string(a) ? json_string_length(a) : 0;
    size_t times = json_is_integer(r) && json_integer_value(r) > 0
                       ? (size_t)json_integer_value(r)
                       : 1;
    char *t = malloc(n * times + 1);

    if (t == NULL)
        die("out of memory");
    for (size_t i = 0; i < times; i++)
        memcpy(t + i * n, json_string_value(a) ? json_string_value(a) : "", n);
    t[n * times] = '\0';
    *len = n * times;
    return t;
}

/* One delta of the call and, with lp, the log-probabilities of the raw
 * text it came of (before, the piece, after). */
static void delta_lp(fake_event_cb add, fake_lp_cb lp, void *ctx, long index,
                     const char *name, const char *p, size_t n,
                     const char *before, const char *after)
{
    char *raw = lp ? raw_of(before, p, n, after) : NULL;
    char *l = raw ? lp(ctx, raw, strlen(raw)) : NULL;

    delta(add, ctx, index, name, p, n, l);
    free(l);
    free(raw);
}

size_t fake_tool_calls(json_t *req, json_t *rule, size_t *left,
                       fake_event_cb add, fake_lp_cb lp, void *ctx, FILE *log,
                       int *calls)
{
    json_t *list = json_object_get(rule, "tool_calls"), *c;
    json_t *tools = json_object_get(req, "tools");
    char *choice = json_dumps(json_object_get(req, "tool_choice"),
                              JSON_COMPACT | JSON_ENCODE_ANY);
    size_t i, sent = 0;

    *calls = 0;
    if (json_is_array(tools))
        fprintf(log, "fake: tools %zu tool_choice %s\n",
                json_array_size(tools), choice ? choice : "(none)");
    free(choice);
    if (!json_is_array(list))
        return 0;
    if (!json_is_array(tools)) {
        fprintf(log, "fake: no tools asked: the reply without its calls\n");
        return 0;
    }
    json_array_foreach(list, i, c)
    {
        json_t *ix = json_object_get(c, "index"),
               *ch = json_object_get(c, "chunk");
        long index =
            json_is_integer(ix) ? (long)json_integer_value(ix) : (long)i;
        size_t chunk = json_is_integer(ch) && json_integer_value(ch) > 0
                           ? (size_t)json_integer_value(ch)
                           : 4;
        const char *name = json_string_value(json_object_get(c, "name"));
        size_t len, off = 0, si = 0;
        char *t, *head;

        if (*left == 0)
            break;
        t = arguments(c, &len);
        if (asprintf(&head, "{\"name\": \"%s\", \"parameters\": ",
                     name ? name : "") < 0)
            die("out of memory");
        /* the head, with the first piece */
        off = piece_end(t, len, 0, json_object_get(c, "split"), &si, chunk);
        delta_lp(add, lp, ctx, index, name ? name : "", t, off, head,
                 off == len ? "}" : NULL);
        free(head);
        (*calls)++;
        sent++;
        (*left)--;
        while (off<len && * left> 0) {
            size_t end = piece_end(t, len, off, json_object_get(c, "split"),
                                   &si, chunk);
            delta_lp(add, lp, ctx, index, NULL, t + off, end - off, NULL,
                     end == len ? "}" : NULL);
            off = end;
            sent++;
            (*left)--;
        }
        free(t);
    }
    return sent;
}

const char *fake_tools_refused(json_t *req, int jinja)
{
    json_t *tools = json_object_get(req, "tools");
    json_t *choice = json_object_get(req, "tool_choice");

    if (jinja)
        return NULL;
    if (json_array_size(tools) > 0)
        return "tools param requires --jinja flag";
    /* read as text, else "auto" (json_value's default) */
    if (json_is_string(choice) && strcmp(json_string_value(choice), "auto"))
        return "tool_choice param requires --jinja flag";
    return NULL;
}

int fake_tools_logprobs_refused(json_t *req, long status)
{
    return status != 0 && json_array_size(json_object_get(req, "tools")) > 0 &&
           json_is_true(json_object_get(req, "logprobs")) &&
           json_is_true(json_object_get(req, "stream"));
}
