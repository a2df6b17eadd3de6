/*
 * shape.c - a constrained reply checked against its constraint.
 */
#include "shape.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../grader/grader.h"

void shape_of(const json_t *request, struct shape *s)
{
    const json_t *g = json_object_get(request, "grammar");
    const json_t *js = json_object_get(request, "json_schema");
    const json_t *rf = json_object_get(request, "response_format");
    const char *type = json_string_value(json_object_get(rf, "type"));

    memset(s, 0, sizeof(*s));
    if (json_is_object(js)) {
        s->kind = SHAPE_JSON;
        s->name = "json_schema";
        s->schema = js;
    } else if (type != NULL && strcmp(type, "json_schema") == 0) {
        /* OpenAI's shape, {"json_schema": {"schema": S}}, or llama.cpp's
         * shorter {"schema": S} */
        const json_t *inner = json_object_get(rf, "json_schema");
        const json_t *sch = json_object_get(inner, "schema");
        s->kind = SHAPE_JSON;
        s->name = "json_schema";
        s->schema = json_is_object(sch) ? sch : json_object_get(rf, "schema");
        if (!json_is_object(s->schema))
            s->schema = NULL;
    } else if (type != NULL && strcmp(type, "json_object") == 0) {
        s->kind = SHAPE_JSON;
        s->name = "json_object";
    } else if (json_is_string(g) && json_string_length(g) > 0) {
        s->kind = strstr(json_string_value(g), "Answer:") ? SHAPE_ANSWER
                                                          : SHAPE_GRAMMAR;
        s->name = "grammar";
    }
}

struct tally {
    long n;
    char *why;
    size_t whysize;
};

static void breach(struct tally *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void breach(struct tally *t, const char *fmt, ...)
{
    va_list ap;

    if (t->n++ == 0) {
        va_start(ap, fmt);
        vsnprintf(t->why, t->whysize, fmt, ap);
        va_end(ap);
    }
}

/* The last non-blank line: "Answer:", spaces, a number, spaces. */
static void answer_line(const char *p, size_t len, struct tally *t)
{
    struct grader_num num;
    size_t end = len, start, used;

    while (end > 0 && strchr(" \t\r\n", p[end - 1]))
        end--;
    start = end;
    while (start > 0 && p[start - 1] != '\n')
        start--;
    while (start < end && (p[start] == ' ' || p[start] == '\t'))
        start++;
    if (end - start < 7 || memcmp(p + start, "Answer:", 7) != 0) {
        breach(t, "the last line is not \"Answer: <number>\"");
        return;
    }
    start += 7;
    while (start < end && p[start] == ' ')
        start++;
    used = grader_num_scan(p + start, end - start, &num);
    if (used == 0 || start + used != end)
        breach(t, "the answer line holds no number alone");
}

/* A JSON value against a schema's "type" (a string or a list of them). */
static int type_ok(const json_t *v, const json_t *type)
{
    size_t i;
    const json_t *t;
    const char *s = json_string_value(type);

    if (json_is_array(type)) {
        json_array_foreach(type, i, t) if (type_ok(v, t)) return 1;
        return json_array_size(type) == 0;
    }
    if (s == NULL)
        return 1; /* no type to check */
    return (strcmp(s, "object") == 0 && json_is_object(v)) ||
           (strcmp(s, "array") == 0 && json_is_array(v)) ||
           (strcmp(s, "string") == 0 && json_is_string(v)) ||
           (strcmp(s, "integer") == 0 && json_is_integer(v)) ||
           (strcmp(s, "number") == 0 && json_is_number(v)) ||
           (strcmp(s, "boolean") == 0 && json_is_boolean(v)) ||
           (strcmp(s, "null") == 0 && json_is_null(v));
}

static void json_reply(const struct shape *s, const char *p, size_t len,
                       struct tally *t)
{
    json_error_t jerr;
    json_t *v =
        json_loadb(p, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
    const json_t *sch = s->schema, *req, *props, *x;
    const char *key;
    size_t i;

    if (v == NULL) {
        breach(t, "not JSON: %s (column %d)", jerr.text, jerr.column);
        return;
    }
    if (sch == NULL && !json_is_object(v))
        breach(t, "not a JSON object");
    if (sch != NULL && !type_ok(v, json_object_get(sch, "type")))
        breach(t, "not of the schema's type");
    req = sch ? json_object_get(sch, "required") : NULL;
    json_array_foreach(req, i, x)
    {
        if (json_is_string(x) && json_is_object(v) &&
            json_object_get(v, json_string_value(x)) == NULL)
            breach(t, "no \"%.100s\", which the schema requires",
                   json_string_value(x));
    }
    props = sch ? json_object_get(sch, "properties") : NULL;
    if (json_is_object(props) && json_is_object(v))
        json_object_foreach((json_t *)props, key, x)
        {
            const json_t *got = json_object_get(v, key);
            if (got != NULL && !type_ok(got, json_object_get(x, "type")))
                breach(t, "\"%.100s\" is not of its type", key);
        }
    json_decref(v);
}

long shape_check(const struct shape *s, const char *content, size_t len,
                 char *why, size_t whysize)
{
    struct tally t = {0, why, whysize};

    if (whysize > 0)
        why[0] = '\0';
    if (s->kind == SHAPE_NONE || s->kind == SHAPE_GRAMMAR)
        return -1;
    if (content == NULL) {
        breach(&t, "no content");
        return t.n;
    }
    if (s->kind == SHAPE_ANSWER)
        answer_line(content, len, &t);
    else
        json_reply(s, content, len, &t);
    return t.n;
}
