/*
 * config_json.c - one value of a config read and checked: its keys, a
 * string (${VAR}s expanded), an integer in its range, ngl, a list of
 * strings. Every part of the config reader calls these, and these call
 * none of them (config_json.h), so that includes and calls run one way:
 * config.c over config_rungs.c and config_request.c, over this.
 */
#include "config_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/cli.h"
#include "config.h" /* config_expand's declaration and CONFIG_NGL_MAX */

char *config_expand(const char *s, char *msg, size_t msgsize)
{
    struct buf b = {0};

    buf_append(&b, "", 0);
    while (*s) {
        const char *start = strstr(s, "${"), *end;
        char name[128], *v;
        if (start == NULL) {
            buf_puts(&b, s);
            break;
        }
        buf_append(&b, s, (size_t)(start - s));
        end = strchr(start, '}');
        if (end == NULL || (size_t)(end - start - 2) >= sizeof(name) ||
            end == start + 2) {
            snprintf(msg, msgsize, "unterminated or empty ${...} in '%s'",
                     start);
            buf_release(&b);
            return NULL;
        }
        memcpy(name, start + 2, (size_t)(end - start - 2));
        name[end - start - 2] = '\0';
        v = getenv(name);
        if (v == NULL) {
            snprintf(msg, msgsize, "${%s} is not set in the environment",
                     name);
            buf_release(&b);
            return NULL;
        }
        buf_puts(&b, v);
        s = end + 1;
    }
    return b.p;
}

/* Refuse keys not in allowed (NULL-terminated). */
int config_known_keys(struct config_ctx *x, json_t *o, const char *where,
                      const char *const *allowed)
{
    const char *key;
    json_t *v;
    size_t i;

    json_object_foreach(o, key, v)
    {
        if (key[0] == '_') /* "_comment" and the like: a person's note */
            continue;
        for (i = 0; allowed[i] && strcmp(allowed[i], key) != 0; i++)
            ;
        if (allowed[i] == NULL)
            BAD("unknown key '%s%s%s'", where, *where ? "." : "", key);
    }
    return 0;
}

/* A string value (required or not), ${VAR}s expanded. */
int config_str(struct config_ctx *x, json_t *o, const char *key,
               const char *where, int required, char **out)
{
    json_t *v = json_object_get(o, key);
    char sub[256];

    *out = NULL;
    if (v == NULL) {
        if (required)
            BAD("missing key '%s%s%s'", where, *where ? "." : "", key);
        return 0;
    }
    if (!json_is_string(v) || json_string_length(v) == 0)
        BAD("'%s%s%s' must be a non-empty string", where, *where ? "." : "",
            key);
    *out = config_expand(json_string_value(v), sub, sizeof(sub));
    if (*out == NULL)
        BAD("'%s%s%s': %s", where, *where ? "." : "", key, sub);
    return 0;
}

int config_integer(struct config_ctx *x, json_t *o, const char *key,
                   const char *where, long min, long max, long *out)
{
    json_t *v = json_object_get(o, key);

    if (v == NULL)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < min ||
        json_integer_value(v) > max)
        BAD("'%s%s%s' must be an integer from %ld to %ld", where,
            *where ? "." : "", key, min, max);
    *out = (long)json_integer_value(v);
    return 0;
}

/* ngl: an integer, or "auto". */
int config_ngl(struct config_ctx *x, json_t *o, const char *where, int *out)
{
    json_t *v = json_object_get(o, "ngl");
    long n;

    if (v == NULL)
        return 0;
    if (json_is_string(v) && strcmp(json_string_value(v), "auto") == 0) {
        *out = -1;
        return 0;
    }
    if (config_integer(x, o, "ngl", where, 0, CONFIG_NGL_MAX, &n) != 0)
        return -1;
    *out = (int)n;
    return 0;
}

int config_strings(struct config_ctx *x, json_t *o, const char *key,
                   const char *where, char **out, size_t *n, size_t max)
{
    json_t *v = json_object_get(o, key), *e;
    char sub[256];
    size_t i;

    *n = 0;
    if (v == NULL)
        return 0;
    if (!json_is_array(v) || json_array_size(v) > max)
        BAD("'%s%s%s' must be a list of at most %zu strings", where,
            *where ? "." : "", key, max);
    json_array_foreach(v, i, e)
    {
        if (!json_is_string(e))
            BAD("'%s%s%s[%zu]' must be a string", where, *where ? "." : "",
                key, i);
        out[i] = config_expand(json_string_value(e), sub, sizeof(sub));
        if (out[i] == NULL)
            BAD("'%s%s%s[%zu]': %s", where, *where ? "." : "", key, i, sub);
        (*n)++;
    }
    return 0;
}
