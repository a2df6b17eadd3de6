/*
 * config_long.c - a config's "lengths" and "long" (docs/longctx.md, "A
 * ladder of lengths"): the lengths every long item is made at, and which
 * items. With them the ladder makes its question file itself, into the
 * run folder (RUNDIR/long.jsonl, then the config's "questions"), graded
 * by the task ruler: so "questions" is not given beside them, and a task
 * other than ruler is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../haystack/haystack.h"
#include "../../rundir/rundir.h"
#include "../../util/util.h"
#include "config_int.h"
#include "longitem.h"

/* One length as written: a whole number, or a string "16K". Appended to
 * the list text out (comma-separated) for longitem_lengths. */
static int length_text(struct config_ctx *x, json_t *v, size_t i,
                       struct buf *out)
{
    char one[64];

    if (json_is_integer(v))
        snprintf(one, sizeof(one), "%lld", (long long)json_integer_value(v));
    else if (json_is_string(v) && json_string_length(v) > 0 &&
             json_string_length(v) < 32 &&
             strchr(json_string_value(v), ',') == NULL)
        snprintf(one, sizeof(one), "%s", json_string_value(v));
    else
        BAD("'lengths[%zu]' is not a length in tokens (a whole number, or a "
            "string such as \"16K\")",
            i);
    if ((out->len > 0 && buf_add(out, ",", 1) != 0) ||
        buf_add(out, one, strlen(one)) != 0)
        BAD("'lengths' is too long");
    return 0;
}

/* "long": {"kinds": [...] or "all", "items": N, "seed": S}. */
static int long_object(struct config_ctx *x, json_t *o, struct config *c)
{
    static const char *const keys[] = {"kinds", "items", "seed", NULL};
    json_t *kinds = json_object_get(o, "kinds"), *seed, *v;
    enum haystack_kind k;
    size_t i;

    c->long_kinds = (1u << HAYSTACK_NKINDS) - 1;
    c->long_items = 30;
    c->long_seed = 1;
    if (o == NULL)
        return 0;
    if (!json_is_object(o))
        BAD("'long' must be an object (\"kinds\", \"items\", \"seed\")");
    if (config_known_keys(x, o, "long", keys) ||
        config_integer(x, o, "items", "long", 1, LONGITEM_ITEMS_MAX,
                       &c->long_items))
        return -1;
    if ((seed = json_object_get(o, "seed")) != NULL) {
        if (!json_is_integer(seed) || json_integer_value(seed) < 0 ||
            json_integer_value(seed) > LONGITEM_SEED_MAX)
            BAD("'long.seed' must be a whole number from 0 to 2^53 - 1");
        c->long_seed = (long long)json_integer_value(seed);
    }
    if (kinds == NULL || (json_is_string(kinds) &&
                          strcmp(json_string_value(kinds), "all") == 0))
        return 0;
    if (!json_is_array(kinds) || json_array_size(kinds) == 0)
        BAD("'long.kinds' must be \"all\" or a list of kinds (niah-single, "
            "niah-multikey, niah-multivalue, niah-multiquery, vt, cwe, fwe)");
    c->long_kinds = 0;
    json_array_foreach(kinds, i, v)
    {
        if (!json_is_string(v) ||
            haystack_kind_parse(json_string_value(v), &k) != 0)
            BAD("'long.kinds[%zu]': no kind %s%.60s%s (niah-single, "
                "niah-multikey, niah-multivalue, niah-multiquery, vt, cwe, "
                "fwe)",
                i, json_is_string(v) ? "'" : "",
                json_is_string(v) ? json_string_value(v) : "of that type",
                json_is_string(v) ? "'" : "");
        if (c->long_kinds & (1u << k))
            BAD("'long.kinds' names '%s' twice", json_string_value(v));
        c->long_kinds |= 1u << k;
    }
    return 0;
}

int config_load_long(struct config_ctx *x, json_t *root, struct config *c)
{
    json_t *lengths = json_object_get(root, "lengths"), *v;
    struct buf list = {0};
    char why[300];
    size_t i;
    int rc = 0;

    if (lengths == NULL) {
        if (json_object_get(root, "long") != NULL)
            BAD("'long' says which long items to make at 'lengths', which "
                "is not given");
        return 0;
    }
    if (!json_is_array(lengths) || json_array_size(lengths) == 0)
        BAD("'lengths' must be a list of lengths in tokens, such as [4096, "
            "\"16K\"]");
    if (c->questions != NULL)
        BAD("'questions' and 'lengths' both given: with 'lengths' the ladder "
            "makes its long items itself (into the run folder's long.jsonl); "
            "to ask a question file of long items, give 'questions' alone");
    if (c->task != NULL && strcmp(c->task, "ruler") != 0)
        BAD("'task' is '%s': the long items made for 'lengths' are graded by "
            "the task ruler (leave 'task' out, or give \"ruler\")",
            c->task);
    buf_init(&list, 4096);
    buf_append(&list, "", 0); /* a NUL there for an empty list */
    json_array_foreach(lengths, i, v)
    {
        if ((rc = length_text(x, v, i, &list)) != 0)
            break;
    }
    if (rc == 0 && longitem_lengths(list.p, c->lengths, CONFIG_MAX_LENGTHS,
                                    &c->nlengths, why, sizeof(why)) != 0) {
        c->nlengths = 0;
        snprintf(x->msg, x->msgsize, "%s: 'lengths': %s", x->path, why);
        rc = -1;
    }
    buf_release(&list);
    if (rc != 0)
        return rc;
    if (c->task == NULL)
        c->task = xstrdup("ruler");
    return long_object(x, json_object_get(root, "long"), c);
}

int config_long_questions(struct config_ctx *x, struct config *c)
{
    struct buf b = {0};

    if (c->nlengths == 0)
        return 0;
    if (rundir_path_buf(&b, c->run_dir, RD_LONG_ITEMS, NULL) != 0) {
        buf_release(&b);
        BAD("'run_dir' is too long for its long.jsonl");
    }
    c->questions = xstrdup(b.p);
    buf_release(&b);
    return 0;
}
