/*
 * longitem.c - a long item's record in a question file (longitem.h).
 */
#include "longitem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../haystack/haystack.h"
#include "../../rundir/files.h"
#include "../../util/util.h"
#include "../../weights/f16range.h"
#include "../../weights/vocab.h"

/* An integer member of o from lo to hi into *out; why when not. */
static const char *whole(json_t *o, const char *key, long long lo,
                         long long hi, int needed, long long *out, char *why,
                         size_t whysize)
{
    json_t *v = json_object_get(o, key);

    if (v == NULL && !needed)
        return NULL;
    if (!json_is_integer(v) || json_integer_value(v) < lo ||
        json_integer_value(v) > hi) {
        snprintf(why, whysize,
                 "\"long\".\"%s\" must be a whole number from "
                 "%lld to %lld",
                 key, lo, hi);
        return why;
    }
    *out = (long long)json_integer_value(v);
    return NULL;
}

/* The item's answers, one a line, into ref. */
static int answers_of(const struct haystack_item *h, char *ref, size_t refsize)
{
    size_t i, n = 0, len;

    for (i = 0; i < h->nanswers; i++) {
        len = strlen(h->answers[i]);
        if (n + len + 2 > refsize)
            return -1;
        if (i > 0)
            ref[n++] = '\n';
        memcpy(ref + n, h->answers[i], len);
        n += len;
    }
    ref[n] = '\0';
    return 0;
}

/* Whether o's "answers" list, if any, is the item's (one a line). */
static int same_answers(json_t *o, const char *ref)
{
    json_t *a = json_object_get(o, "answers");
    const char *p = ref;
    size_t i, len;

    if (a == NULL)
        return 1;
    if (!json_is_array(a))
        return 0;
    for (i = 0; i < json_array_size(a); i++) {
        const char *s = json_string_value(json_array_get(a, i));
        if (s == NULL || (i > 0 && *p++ != '\n'))
            return 0;
        len = strlen(s);
        if (strncmp(p, s, len) != 0)
            return 0;
        p += len;
    }
    return *p == '\0';
}

int longitem_read(json_t *o, struct longitem *it, char *ref, size_t refsize,
                  char *why, size_t whysize)
{
    json_t *l = json_object_get(o, "long");
    const char *kind = json_string_value(json_object_get(l, "kind"));
    struct haystack_item h;
    enum haystack_kind k;
    long long seed = 0, index = 0, length = 0, fill = 0, tokens = -1,
              depth = -1;
    static const char *const keys[] = {"kind", "seed",   "index", "length",
                                       "fill", "tokens", "depth"};
    const char *key;
    json_t *v;

    if (!json_is_object(l)) {
        snprintf(why, whysize, "\"long\" must be an object");
        return -1;
    }
    json_object_foreach(l, key, v)
    {
        size_t i;
        for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
            if (strcmp(key, keys[i]) == 0)
                break;
        if (i == sizeof(keys) / sizeof(keys[0])) {
            snprintf(why, whysize, "\"long\" has an unknown key '%.64s'", key);
            return -1;
        }
    }
    if (kind == NULL || haystack_kind_parse(kind, &k) != 0) {
        snprintf(why, whysize, "\"long\".\"kind\" must name a kind (%s, ...)",
                 haystack_kind_name(0));
        return -1;
    }
    if (whole(l, "seed", 0, LONGITEM_SEED_MAX, 1, &seed, why, whysize) ||
        whole(l, "index", 0, 0xffffffffLL, 1, &index, why, whysize) ||
        whole(l, "length", 1, HAYSTACK_TARGET_MAX, 1, &length, why, whysize) ||
        whole(l, "fill", 0, (long long)HAYSTACK_FILL_MAX, 1, &fill, why,
              whysize) ||
        whole(l, "tokens", 0, 2 * (long long)HAYSTACK_TARGET_MAX, 0, &tokens,
              why, whysize) ||
        whole(l, "depth", 0, 100, 0, &depth, why, whysize))
        return -1;
    if (haystack_item_make(k, (uint64_t)seed, (uint32_t)index, &h) != 0 ||
        answers_of(&h, ref, refsize) != 0) {
        snprintf(why, whysize, "item %lld of %s cannot be made", index, kind);
        return -1;
    }
    if (json_object_get(l, "depth") != NULL && depth != h.depth) {
        snprintf(why, whysize,
                 "\"long\".\"depth\" %lld is not item %lld's (%d): made by "
                 "another version of graveyard long?",
                 depth, index, h.depth);
        return -1;
    }
    if (!same_answers(o, ref)) {
        snprintf(why, whysize,
                 "\"answers\" are not item %lld's of %s (seed %lld): made by "
                 "another version of graveyard long?",
                 index, kind, seed);
        return -1;
    }
    *it = (struct longitem){(int)k,       seed,         (unsigned long)index,
                            (size_t)fill, (long)length, (long)tokens,
                            h.depth};
    return 0;
}

json_t *longitem_record(const char *id, const struct longitem *it)
{
    struct haystack_item h;
    json_t *o, *a;

    if (haystack_item_make((enum haystack_kind)it->kind, (uint64_t)it->seed,
                           (uint32_t)it->index, &h) != 0)
        return NULL;
    a = json_array();
    for (size_t i = 0; a != NULL && i < h.nanswers; i++)
        if (json_array_append_new(a, json_string(h.answers[i])) != 0)
            util_oom("a long item");
    o = json_pack("{s:s,s:{s:s,s:I,s:I,s:I,s:I},s:o}", "id", id, "long",
                  "kind", haystack_kind_name((enum haystack_kind)it->kind),
                  "seed", (json_int_t)it->seed, "index", (json_int_t)it->index,
                  "length", (json_int_t)it->length, "fill",
                  (json_int_t)it->fill, "answers", a);
    if (o == NULL)
        util_oom("a long item");
    /* a recipe written by hand may not say (-1): then neither does this
     * one, which longitem_read would refuse with -1 in it */
    if (it->tokens >= 0 &&
        json_object_set_new(json_object_get(o, "long"), "tokens",
                            json_integer(it->tokens)) != 0)
        util_oom("a long item");
    if (h.depth != HAYSTACK_NO_DEPTH &&
        json_object_set_new(json_object_get(o, "long"), "depth",
                            json_integer(h.depth)) != 0)
        util_oom("a long item");
    return o;
}

char *longitem_prompt(const struct longitem *it, char *why, size_t whysize)
{
    struct haystack_item h;
    struct haystack_prompt p;
    char *text;
    int rc;

    memset(&p, 0, sizeof(p));
    if ((rc = haystack_item_make((enum haystack_kind)it->kind,
                                 (uint64_t)it->seed, (uint32_t)it->index,
                                 &h)) == 0)
        rc = haystack_render(&h, it->fill, &p);
    if (rc != 0) {
        snprintf(why, whysize, "item %lu of %s at fill %zu: %s", it->index,
                 haystack_kind_name((enum haystack_kind)it->kind), it->fill,
                 haystack_strerror(rc));
        haystack_prompt_release(&p);
        return NULL;
    }
    text = p.text; /* handed over: the prompt's buffer is malloc's */
    p.text = NULL;
    haystack_prompt_release(&p);
    return text;
}

char *longitem_summary(const struct longitem *it)
{
    struct haystack_item h;
    char buf[HAYSTACK_QUERY_MAX + 200], depth[32] = "";

    if (haystack_item_make((enum haystack_kind)it->kind, (uint64_t)it->seed,
                           (uint32_t)it->index, &h) != 0)
        h.query[0] = '\0';
    if (it->depth >= 0)
        snprintf(depth, sizeof(depth), "; needle at %d %%", it->depth);
    snprintf(buf, sizeof(buf),
             "%s item %lu (seed %lld), a prompt of %ld tokens%s%s%s "
             "(made again from its recipe: docs/longctx.md)",
             haystack_kind_name((enum haystack_kind)it->kind), it->index,
             it->seed, it->length, h.query[0] ? ": " : "", h.query, depth);
    return xstrdup(buf);
}

/* One length of a list, s[0..len): 0 and *out, or -1. */
static int one_length(const char *s, size_t len, long *out)
{
    long v = 0, mul = 1;
    size_t i;

    if (len > 0 && (s[len - 1] == 'K' || s[len - 1] == 'k')) {
        mul = 1024;
        len--;
    }
    if (len == 0 || len > 9)
        return -1;
    for (i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    v *= mul;
    if (v < 1 || v > HAYSTACK_TARGET_MAX)
        return -1;
    *out = v;
    return 0;
}

int longitem_lengths(const char *list, long *out, size_t max, size_t *n,
                     char *why, size_t whysize)
{
    const char *p = list, *e;
    size_t k, j;
    long v;

    *n = 0;
    do {
        e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (one_length(p, len, &v) != 0) {
            snprintf(why, whysize,
                     "'%.*s' is not a length: a whole number of tokens from "
                     "1 to %ld (or with K, 1024 tokens: 16K)",
                     (int)(len > 40 ? 40 : len), p, (long)HAYSTACK_TARGET_MAX);
            return -1;
        }
        for (k = 0; k < *n && out[k] < v; k++)
            ;
        if (k < *n && out[k] == v) {
            snprintf(why, whysize, "the length %ld is given twice", v);
            return -1;
        }
        if (*n == max) {
            snprintf(why, whysize, "more than %zu lengths", max);
            return -1;
        }
        for (j = (*n)++; j > k; j--)
            out[j] = out[j - 1];
        out[k] = v;
        p = e ? e + 1 : NULL;
    } while (p != NULL);
    return 0;
}

/* A line past this is one the question loader refuses (its
 * QUESTIONS_LINE_MAX): it says no length here. */
#define SCAN_LINE_MAX ((size_t)1 << 20)

int longitem_longest(const char *path, long *longest, long *guess, char *msg,
                     size_t msgsize)
{
    /* never waited on: a FIFO or a device is refused, not opened */
    FILE *f = files_fopen_read(path, 0, msg, msgsize);
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;

    *longest = *guess = 0;
    if (f == NULL)
        return -1;
    while ((got = getline(&line, &cap, f)) > 0) {
        json_t *o, *l, *p;
        long n = 0;
        if ((size_t)got > SCAN_LINE_MAX ||
            (strstr(line, "\"length\"") == NULL &&
             strstr(line, "\"answers\"") == NULL &&
             strstr(line, "\"outputs\"") == NULL))
            continue; /* the loader refuses it, or it is no long item */
        o = json_loadb(line, (size_t)got, 0, NULL);
        l = json_object_get(o, "long");
        if (json_is_integer(json_object_get(l, "tokens")))
            n = (long)json_integer_value(json_object_get(l, "tokens"));
        else if (json_is_integer(json_object_get(l, "length")))
            n = (long)json_integer_value(json_object_get(l, "length"));
        else if (json_is_integer(json_object_get(o, "length")))
            n = (long)json_integer_value(json_object_get(o, "length"));
        else if ((p = json_object_get(o, "prompt")) != NULL ||
                 (p = json_object_get(o, "question")) != NULL) {
            /* a long item of one's own without its length: a guess that
             * errs long (English runs near 4 bytes a token) */
            long g = (long)(json_string_length(p) / 3);
            if (g > *guess)
                *guess = g;
        }
        if (n > *longest && n <= 2 * HAYSTACK_TARGET_MAX)
            *longest = n;
        json_decref(o);
    }
    free(line);
    fclose(f);
    return 0;
}

static void no_sink(void *ctx, const void *p, size_t n)
{
    (void)ctx;
    (void)p;
    (void)n;
}

static const char *rope_arg(const char *const *args, size_t nargs)
{
    static const char *const rope[] = {"--rope-scaling", "--rope-scale",
                                       "--rope-freq-scale", "--yarn-orig-ctx"};

    for (size_t i = 0; i < nargs; i++)
        for (size_t k = 0; k < sizeof(rope) / sizeof(rope[0]); k++)
            if (strncmp(args[i], rope[k], strlen(rope[k])) == 0 &&
                (args[i][strlen(rope[k])] == '\0' ||
                 args[i][strlen(rope[k])] == '='))
                return rope[k];
    return NULL;
}

int longitem_context_for(const char *rung, const char *what, long longest,
                         long max_tokens, int given, long *ctx,
                         const char *model, const char *const *args,
                         size_t nargs, const char **rope, char *msg,
                         size_t msgsize)
{
    long need = longest + LONGITEM_TEMPLATE_TOKENS + max_tokens;
    struct vocab v;
    char why[600];

    *rope = rope_arg(args, nargs);
    if (given && *ctx < need) {
        snprintf(msg, msgsize,
                 "rung %s: ctx %ld cannot hold %s (%ld tokens) with the token "
                 "cap (%ld) and %d for the chat template: give ctx %ld or "
                 "more, or leave it out",
                 rung, *ctx, what, longest, max_tokens,
                 LONGITEM_TEMPLATE_TOKENS, need);
        return -1;
    }
    if (*ctx < need)
        *ctx = (need + 255) / 256 * 256;
    memset(&v, 0, sizeof(v));
    if (model == NULL || *rope != NULL ||
        vocab_read_file(model, &v, no_sink, NULL, why, sizeof(why)) !=
            F16R_OK ||
        v.ctx_train == 0 || (uint64_t)need <= v.ctx_train)
        return 0; /* not a GGUF (the fake's scripts), or it fits */
    snprintf(msg, msgsize,
             "rung %s: %s (%ld tokens) with the token cap and the chat "
             "template (%ld) is past what '%s' was trained on "
             "(context_length %llu): give shorter lengths, or RoPE scaling "
             "in the rung's server_args (--rope-scaling yarn, ...) to ask "
             "for it knowingly",
             rung, what, longest, need, model,
             (unsigned long long)v.ctx_train);
    return -1;
}

int longitem_context(const char *rung, const char *path, long max_tokens,
                     int given, long *ctx, const char *model,
                     const char *const *args, size_t nargs, const char **rope,
                     char *msg, size_t msgsize)
{
    long longest, guess, need;
    char why[600], what[700];

    *rope = rope_arg(args, nargs);
    if (longitem_longest(path, &longest, &guess, why, sizeof(why)) != 0 ||
        (longest == 0 && guess == 0))
        return 0; /* short questions; an unreadable file is said later */
    if (!given && guess > longest) { /* raised, never refused, on a guess */
        need = guess + LONGITEM_TEMPLATE_TOKENS + max_tokens;
        if (*ctx < need)
            *ctx = (need + 255) / 256 * 256;
    }
    if (longest == 0)
        return 0;
    snprintf(what, sizeof(what), "'%.600s''s longest prompt", path);
    return longitem_context_for(rung, what, longest, max_tokens, given, ctx,
                                model, args, nargs, rope, msg, msgsize);
}
