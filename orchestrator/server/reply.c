/*
 * reply.c - chat-completion chunks into one answer.
 */
#include "reply.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../grader/grader.h"

void reply_init(struct reply *r, size_t cap)
{
    memset(r, 0, sizeof(*r));
    r->cap = cap;
    /* raw bytes never pass the escaped budget: the same cap holds */
    buf_init(&r->content, cap);
    buf_init(&r->reasoning, cap);
    r->completion_tokens = r->predicted_n = r->prompt_n = -1;
    r->decode_tps = r->prompt_ms = r->predicted_ms = -1;
    buf_init(&r->probs.text, GRADER_PROBS_RECORD_MAX);
}

void reply_release(struct reply *r)
{
    buf_release(&r->content);
    buf_release(&r->reasoning);
    for (size_t i = 0; i < r->ncalls; i++) {
        buf_release(&r->calls[i].name);
        buf_release(&r->calls[i].args);
    }
    free(r->calls);
    r->calls = NULL;
    r->ncalls = 0;
    free(r->error);
    r->error = NULL;
    free(r->probs.tok);
    r->probs.tok = NULL;
    r->probs.ntok = r->probs.room = 0;
    buf_release(&r->probs.text);
}

void reply_want_text(struct reply *r)
{
    r->completion = 1;
}

void reply_want_probs(struct reply *r, unsigned topn)
{
    r->probs.topn = topn <= GRADER_PROBS_TOPN_MAX ? topn : 0;
}

/* What a timing may be before it is no measurement: a reply takes hours,
 * not a year of milliseconds, and no prompt or reply is 1e15 tokens. */
#define TIMING_MS_MAX 1e12
#define TIMING_N_MAX  1e15

/* A timing from 0 to max, or -1 (null in the row): null itself (inf and
 * NaN are sent as null), and a number that is negative or past max, which
 * a row would keep but no summary could use (docs/rows.md). */
static double num(json_t *o, const char *key, double max)
{
    json_t *v = json_object_get(o, key);
    double d = json_is_number(v) ? json_number_value(v) : -1;

    return d >= 0 && d <= max ? d : -1;
}

static void timings(struct reply *r, json_t *t)
{
    if (!json_is_object(t))
        return;
    /* in range before the cast: a double past a long long is undefined */
    r->predicted_n = (long long)num(t, "predicted_n", TIMING_N_MAX);
    r->prompt_n = (long long)num(t, "prompt_n", TIMING_N_MAX);
    r->decode_tps = num(t, "predicted_per_second", GRADER_TPS_MAX);
    r->prompt_ms = num(t, "prompt_ms", TIMING_MS_MAX);
    r->predicted_ms = num(t, "predicted_ms", TIMING_MS_MAX);
}

size_t reply_escaped_len(const char *text, size_t len)
{
    size_t i, n = 0;

    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' ||
            c == '\r' || c == '\t')
            n += 2;
        else if (c < 0x20)
            n += 6;
        else
            n += 1;
    }
    return n;
}

const char *reply_error_kind(int code)
{
    switch (code) {
    case REPLY_EUTF8:
        return "bad_utf8";
    case REPLY_ENUL:
        return "nul";
    case REPLY_ETOOBIG:
        return "too_long";
    case REPLY_ECALLS:
        return "too_many_calls";
    default:
        return "bad_stream";
    }
}

static int too_big(size_t cap, char *msg, size_t msgsize)
{
    snprintf(msg, msgsize,
             "reply longer than a row holds (%zu bytes once escaped)", cap);
    return REPLY_ETOOBIG;
}

int reply_fits(const char *content, size_t clen, const char *reasoning,
               size_t rlen, size_t cap, char *msg, size_t msgsize)
{
    size_t e = content ? reply_escaped_len(content, clen) : 0;

    if (e > cap || (reasoning && reply_escaped_len(reasoning, rlen) > cap - e))
        return too_big(cap, msg, msgsize);
    return 0;
}

/* Text s[0..n) into b, within the row's budget: a NUL refused by name,
 * and what would pass the budget refused whole (nothing of it kept). */
static int add_text(struct reply *r, struct buf *b, const char *s, size_t n,
                    char *msg, size_t msgsize)
{
    size_t e;

    if (n == 0)
        return 0;
    if (memchr(s, '\0', n) != NULL) {
        snprintf(msg, msgsize, "the reply holds a \\u0000 character");
        return REPLY_ENUL;
    }
    e = reply_escaped_len(s, n);
    if (r->escaped + e > r->cap)
        return too_big(r->cap, msg, msgsize);
    if (buf_add(b, s, n) != 0) { /* cannot happen: raw <= escaped */
        snprintf(msg, msgsize, "reply longer than %zu bytes", r->cap);
        return REPLY_ETOOBIG;
    }
    r->escaped += e;
    r->progress++;
    return 0;
}

/* What a value that should be text is instead, for a message. */
static const char *not_text(const json_t *v)
{
    return json_is_number(v)   ? "number"
           : json_is_object(v) ? "JSON object"
           : json_is_array(v)  ? "JSON array"
                               : "boolean";
}

/* A delta's text field (key) into b (a completion's: its choice's,
 * where "choice"). Absent or null is no text (the role chunk's
 * "content": null); any other non-string is a broken stream, not a piece
 * to drop: the reply would be graded with a hole in it. */
static int append(struct reply *r, struct buf *b, json_t *delta,
                  const char *where, const char *key, char *msg,
                  size_t msgsize)
{
    json_t *v = json_object_get(delta, key);

    if (v == NULL || json_is_null(v))
        return 0;
    if (!json_is_string(v)) {
        snprintf(msg, msgsize, "stream %s's \"%s\" is not text (a %s)", where,
                 key, not_text(v));
        return REPLY_EBAD;
    }
    return add_text(r, b, json_string_value(v), json_string_length(v), msg,
                    msgsize);
}

/* ---- tool calls --------------------------------------------------------- */

static int bad_call(char *msg, size_t msgsize, const char *what)
{
    snprintf(msg, msgsize, "stream delta's tool call: %s", what);
    return REPLY_EBAD;
}

/* The call of index i, made with those before it when new (each taking
 * its room in the row's budget). */
static int call_at(struct reply *r, json_int_t i, struct reply_call **out,
                   char *msg, size_t msgsize)
{
    if (i >= REPLY_CALLS_MAX) {
        snprintf(
            msg, msgsize,
            "more than %d tool calls in one reply (index %" JSON_INTEGER_FORMAT
            ")",
            REPLY_CALLS_MAX, i);
        return REPLY_ECALLS;
    }
    while (r->ncalls <= (size_t)i) {
        if (r->escaped + REPLY_CALL_ROOM > r->cap)
            return too_big(r->cap, msg, msgsize);
        r->calls = xrealloc(r->calls, (r->ncalls + 1) * sizeof(*r->calls));
        buf_init(&r->calls[r->ncalls].name, r->cap);
        buf_init(&r->calls[r->ncalls].args, r->cap);
        r->ncalls++;
        r->escaped += REPLY_CALL_ROOM;
    }
    *out = &r->calls[i];
    return 0;
}

/* One entry of delta.tool_calls: {"index", "id", "type", "function":
 * {"name", "arguments"}}. The name is its first delta's (a later one is
 * not joined: servers that repeat it send it whole); the arguments'
 * pieces are joined as sent. */
static int tool_call(struct reply *r, json_t *c, char *msg, size_t msgsize)
{
    json_t *i = json_object_get(c, "index"), *f, *name, *args;
    struct reply_call *call;
    int rc;

    if (!json_is_object(c))
        return bad_call(msg, msgsize, "a tool call is not a JSON object");
    if (!json_is_integer(i) || json_integer_value(i) < 0)
        return bad_call(msg, msgsize, "a tool call without an \"index\"");
    f = json_object_get(c, "function");
    name = json_object_get(f, "name");
    args = json_object_get(f, "arguments");
    if (f != NULL && !json_is_null(f) && !json_is_object(f))
        return bad_call(msg, msgsize, "\"function\" is not a JSON object");
    if (name != NULL && !json_is_null(name) && !json_is_string(name))
        return bad_call(msg, msgsize, "its \"name\" is not text");
    if (args != NULL && !json_is_null(args) && !json_is_string(args))
        return bad_call(msg, msgsize,
                        "its \"arguments\" is not text (the "
                        "arguments' JSON as a string)");
    if ((rc = call_at(r, json_integer_value(i), &call, msg, msgsize)) != 0)
        return rc;
    if (call->name.len == 0 && json_is_string(name) &&
        (rc = add_text(r, &call->name, json_string_value(name),
                       json_string_length(name), msg, msgsize)) != 0)
        return rc;
    if (json_is_string(args))
        return add_text(r, &call->args, json_string_value(args),
                        json_string_length(args), msg, msgsize);
    return 0;
}

/* A delta's "tool_calls" (absent or null: none). */
static int tool_calls(struct reply *r, json_t *delta, char *msg,
                      size_t msgsize)
{
    json_t *tc = json_object_get(delta, "tool_calls"), *c;
    size_t k;
    int rc;

    if (tc == NULL || json_is_null(tc))
        return 0;
    if (!json_is_array(tc)) {
        snprintf(msg, msgsize, "stream delta's \"tool_calls\" is not a list");
        return REPLY_EBAD;
    }
    json_array_foreach(tc, k, c)
    {
        if ((rc = tool_call(r, c, msg, msgsize)) != 0)
            return rc;
    }
    return 0;
}

/* ---- log-probabilities ------------------------------------------------ */

/* The room a record gives its tokens: its cap less the head, the id and
 * the fields around the tokens (probs.h). */
#define PROBS_TOKENS_BYTES                                                    \
    (GRADER_PROBS_RECORD_MAX - GRADER_PROBS_HEAD - 1 - 255 - 1 - 1 - 4 - 8)

static int bad_probs(char *msg, size_t msgsize, const char *what)
{
    snprintf(msg, msgsize, "stream chunk's logprobs: %s", what);
    return REPLY_EBAD;
}

/* A token's text: its "bytes" (the raw bytes, which a token cut inside a
 * UTF-8 sequence needs), else its "token", cut at GRADER_PROBS_TEXT_MAX,
 * into t (the text not yet added to the buffer: t->len bytes at tx). */
static int tok_text(json_t *e, unsigned char *tx, struct reply_tok *t,
                    char *msg, size_t msgsize)
{
    json_t *b = json_object_get(e, "bytes"), *v;
    size_t i, n = 0;

    if (b != NULL && !json_is_null(b)) {
        if (!json_is_array(b))
            return bad_probs(msg, msgsize, "\"bytes\" is not a list");
        json_array_foreach(b, i, v)
        {
            if (!json_is_integer(v) || json_integer_value(v) < 0 ||
                json_integer_value(v) > 255)
                return bad_probs(msg, msgsize,
                                 "\"bytes\" holds other than 0 to 255");
            if (n < GRADER_PROBS_TEXT_MAX)
                tx[n++] = (unsigned char)json_integer_value(v);
        }
    } else if (json_is_string(json_object_get(e, "token"))) {
        v = json_object_get(e, "token");
        n = json_string_length(v);
        n = n < GRADER_PROBS_TEXT_MAX ? n : GRADER_PROBS_TEXT_MAX;
        memcpy(tx, json_string_value(v), n);
    } else if (json_object_get(e, "token") != NULL &&
               !json_is_null(json_object_get(e, "token"))) {
        return bad_probs(msg, msgsize, "\"token\" is not text");
    }
    t->len = (uint8_t)n;
    return 0;
}

/* One entry ({"id", "token", "bytes", "logprob"}) into t, its text into
 * tx. A logprob of null is the server's -inf (JSON has none). */
static int tok_entry(json_t *e, unsigned char *tx, struct reply_tok *t,
                     char *msg, size_t msgsize)
{
    json_t *id = json_object_get(e, "id"), *lp = json_object_get(e, "logprob");

    if (!json_is_object(e))
        return bad_probs(msg, msgsize, "an entry is not a JSON object");
    if (!json_is_integer(id) || json_integer_value(id) < 0 ||
        json_integer_value(id) >= (json_int_t)GRADER_PROBS_NONE)
        return bad_probs(msg, msgsize, "an entry has no token \"id\"");
    if (!json_is_number(lp) && !json_is_null(lp))
        return bad_probs(msg, msgsize, "an entry has no \"logprob\"");
    if (json_is_number(lp) && json_number_value(lp) > 1e-3)
        return bad_probs(msg, msgsize, "a \"logprob\" is above 0");
    t->id = (uint32_t)json_integer_value(id);
    t->lp = json_is_null(lp) ? -INFINITY : (float)json_number_value(lp);
    return tok_text(e, tx, t, msg, msgsize);
}

/* The record bytes an entry takes: id, logprob, length, text. */
static size_t entry_bytes(const struct reply_tok *t)
{
    return 4 + 4 + 1 + (size_t)t->len;
}

/* Keep the token whose parsed entries (chosen then topn) are in t, their
 * texts in tx (GRADER_PROBS_TEXT_MAX bytes an entry); or drop it past the
 * caps and mark the answer CUT. */
static void keep(struct reply_probs *p, struct reply_tok *t, unsigned char *tx)
{
    size_t per = 1 + p->topn, need = 1, i;

    for (i = 0; i < per; i++)
        need += entry_bytes(&t[i]);
    if (p->ntok >= GRADER_PROBS_TOKENS_MAX ||
        p->bytes + need > PROBS_TOKENS_BYTES) {
        p->flags |= GRADER_PROBS_CUT;
        return;
    }
    if (p->ntok == p->room) {
        p->room = p->room ? 2 * p->room : 256;
        p->tok = xrealloc(p->tok, p->room * per * sizeof(*p->tok));
    }
    for (i = 0; i < per; i++) {
        t[i].text = (uint32_t)p->text.len;
        /* within the cap: the record's bytes bound the texts' */
        buf_append(&p->text, (const char *)tx + i * GRADER_PROBS_TEXT_MAX,
                   t[i].len);
        p->tok[p->ntok * per + i] = t[i];
    }
    p->ntok++;
    p->bytes += need;
}

/* The first way the entries do not match the reply's text, in p->bad
 * (a later one is not said: the runner refuses the rung on the first). */
static void mismatch(struct reply_probs *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void mismatch(struct reply_probs *p, const char *fmt, ...)
{
    va_list ap;

    if (p->bad[0] != '\0')
        return;
    va_start(ap, fmt);
    vsnprintf(p->bad, sizeof(p->bad), fmt, ap);
    va_end(ap);
}

/* A top N names each token once: N candidates of one distribution. Eight
 * copies of one id would count its probability eight times in a KLD. */
static void top_once(struct reply_probs *p, const struct reply_tok *top)
{
    for (size_t i = 1; i < p->topn; i++)
        for (size_t j = 0; j < i; j++)
            if (top[i].id != GRADER_PROBS_NONE && top[i].id == top[j].id) {
                mismatch(p, "the top %u lists token %" PRIu32 " twice",
                         p->topn, top[i].id);
                return;
            }
}

/* One choices[0].logprobs.content[] entry: the chosen token and its
 * top_logprobs (the first topn; fewer are padded with NONE). The chosen
 * token's text length goes to *len. */
static int probs_token(struct reply_probs *p, json_t *e, size_t *len,
                       char *msg, size_t msgsize)
{
    struct reply_tok t[1 + GRADER_PROBS_TOPN_MAX];
    unsigned char tx[(1 + GRADER_PROBS_TOPN_MAX) * GRADER_PROBS_TEXT_MAX];
    json_t *top, *a;
    size_t i;
    int rc;

    memset(t, 0, sizeof(t));
    if ((rc = tok_entry(e, tx, &t[0], msg, msgsize)) != 0)
        return rc;
    top = json_object_get(e, "top_logprobs");
    if (top != NULL && !json_is_null(top) && !json_is_array(top))
        return bad_probs(msg, msgsize, "\"top_logprobs\" is not a list");
    for (i = 0; i < p->topn; i++) {
        t[1 + i].id = GRADER_PROBS_NONE;
        t[1 + i].lp = -INFINITY;
        a = json_array_get(top, i);
        if (a != NULL &&
            (rc = tok_entry(a, tx + (1 + i) * GRADER_PROBS_TEXT_MAX, &t[1 + i],
                            msg, msgsize)) != 0)
            return rc;
    }
    p->seen++;
    top_once(p, &t[1]);
    *len = t[0].len;
    keep(p, t, tx);
    return 0;
}

/* The field of a chunk's text (1 content, 2 reasoning, 0 none) and its
 * bytes in *len. */
static int text_of(json_t *delta, size_t *len)
{
    json_t *c = json_object_get(delta, "content");
    json_t *rs = json_object_get(delta, "reasoning_content");
    int field = 0;

    *len = 0;
    if (json_is_string(rs) && json_string_length(rs) > 0) {
        *len += json_string_length(rs);
        field = 2;
    }
    if (json_is_string(c) && json_string_length(c) > 0) {
        *len += json_string_length(c);
        field = 1;
    }
    return field;
}

/*
 * choices[0].logprobs of one chunk, when asked for. Absent or null is a
 * chunk without tokens (the role and finish chunks), and reconciled with
 * the chunk's text (docs/rows.md, "What goes in"), by rules that what
 * both lineages send passes: upstream sends one entry a chunk, on the
 * last of a token's deltas (a reasoning delta before it has none), none
 * for a token that adds no text (a held stop string or UTF-8 sequence,
 * whose bytes come later with another token's entry) and none on the
 * final result's deltas; the fork may send a held run of tokens in one
 * chunk, whose text they are. So a chunk of text without entries is a
 * hole only when a chunk of the same text with entries follows it, and
 * several entries may not hold more bytes than their chunk's text. A
 * chunk of tool calls has no text of its own: its entries are the raw
 * text the calls were parsed from, kept as they come (neither lineage
 * sends any: both refuse logprobs beside tools on a stream).
 */
static int probs(struct reply *r, json_t *choice, json_t *delta, char *msg,
                 size_t msgsize)
{
    json_t *lp = json_object_get(choice, "logprobs"), *c, *e;
    struct reply_probs *p = &r->probs;
    size_t i, tlen, len, sum = 0;
    int rc, field = text_of(delta, &tlen);

    if (p->topn == 0)
        return 0;
    if (lp != NULL && !json_is_null(lp) && !json_is_object(lp))
        return bad_probs(msg, msgsize, "not a JSON object");
    c = json_object_get(lp, "content");
    if (c != NULL && !json_is_null(c) && !json_is_array(c))
        return bad_probs(msg, msgsize, "\"content\" is not a list");
    if (json_array_size(c) == 0) {
        if (field != 0)
            p->hole = field;
        return 0;
    }
    if (field != 0 && p->hole == field)
        mismatch(p,
                 "a chunk of its %s came without log-probabilities between "
                 "chunks with them (a hole: the tokens would not rebuild "
                 "the text)",
                 field == 1 ? "content" : "reasoning");
    if (field != 0)
        p->hole = 0;
    json_array_foreach(c, i, e)
    {
        if ((rc = probs_token(p, e, &len, msg, msgsize)) != 0)
            return rc;
        sum += len;
    }
    /* a call's tokens spell the text the model generated ('{"name": ...'
     * or a template's tags), not the deltas' arguments: no bytes to
     * hold them to; the runner refuses calls that came without any */
    if (json_array_size(json_object_get(delta, "tool_calls")) > 0) {
        p->calls_seen += json_array_size(c);
        return 0;
    }
    if (json_array_size(c) > 1 && sum > tlen)
        mismatch(p,
                 "%zu entries for a chunk of %zu bytes of text hold %zu "
                 "bytes of tokens",
                 json_array_size(c), tlen, sum);
    return 0;
}

int reply_probs_record(const struct reply *r, const char *id,
                       unsigned char **out, size_t *len)
{
    const struct reply_probs *p = &r->probs;
    size_t per = 1 + p->topn, n = p->ntok, i, j;
    struct grader_probs_entry *chosen =
        xrealloc(NULL, (n ? n : 1) * sizeof(*chosen));
    struct grader_probs_entry *top =
        xrealloc(NULL, (n ? n : 1) * p->topn * sizeof(*top) + 1);
    struct grader_probs_answer a;
    int rc = -1;

    for (i = 0; i < n; i++)
        for (j = 0; j < per; j++) {
            const struct reply_tok *t = &p->tok[i * per + j];
            struct grader_probs_entry *g =
                j == 0 ? &chosen[i] : &top[i * p->topn + j - 1];
            g->id = t->id;
            g->lp = t->lp;
            g->len = t->len;
            g->text = t->len ? p->text.p + t->text : NULL;
        }
    memset(&a, 0, sizeof(a));
    a.id = id;
    a.id_len = strlen(id);
    a.topn = p->topn;
    a.flags = p->flags;
    a.ntok = n;
    a.chosen = chosen;
    a.top = top;
    *out = NULL;
    *len = grader_probs_encoded_size(&a);
    if (*len > 0) {
        *out = xrealloc(NULL, *len);
        if (grader_probs_encode(&a, *out, *len) == *len)
            rc = 0;
    }
    if (rc != 0) {
        free(*out);
        *out = NULL;
    }
    free(chosen);
    free(top);
    return rc;
}

int reply_event(struct reply *r, const char *data, size_t len, char *msg,
                size_t msgsize)
{
    json_error_t jerr;
    json_t *o, *choice, *delta, *v;
    int rc = 0;

    r->events++;
    if (len == 6 && memcmp(data, "[DONE]", 6) == 0) {
        r->done = 1;
        return 0;
    }
    /* NULs are let through the parser and refused by name below */
    o = json_loadb(data, len, JSON_ALLOW_NUL, &jerr);
    if (o == NULL && json_error_code(&jerr) == json_error_invalid_utf8) {
        snprintf(msg, msgsize, "stream event is not valid UTF-8");
        return REPLY_EUTF8;
    }
    if (!json_is_object(o)) {
        snprintf(msg, msgsize, "stream event is not a JSON object: %s",
                 o ? "wrong type" : jerr.text);
        json_decref(o);
        return REPLY_EBAD;
    }
    if ((v = json_object_get(o, "error")) != NULL) {
        json_t *m = json_object_get(v, "message");
        free(r->error);
        r->error = xstrdup(json_is_string(m) ? json_string_value(m)
                                             : "error event without message");
        r->progress++;
        json_decref(o);
        return 0;
    }
    v = json_object_get(o, "choices");
    if (!json_is_array(v)) {
        snprintf(msg, msgsize, "stream event has no \"choices\"");
        json_decref(o);
        return REPLY_EBAD;
    }
    choice = json_array_get(v, 0); /* the usage chunk has choices: [] */
    delta = json_object_get(choice, "delta");
    if (r->completion) /* /v1/completions: the choice's "text" */
        rc = append(r, &r->content, choice, "choice", "text", msg, msgsize);
    else if (json_is_object(delta)) {
        rc = append(r, &r->content, delta, "delta", "content", msg, msgsize);
        if (rc == 0)
            rc = append(r, &r->reasoning, delta, "delta", "reasoning_content",
                        msg, msgsize);
        if (rc == 0)
            rc = tool_calls(r, delta, msg, msgsize);
    }
    if (rc == 0)
        rc = probs(r, choice, delta, msg, msgsize);
    v = json_object_get(choice, "finish_reason");
    if (rc == 0 && json_is_string(v)) {
        snprintf(r->finish, sizeof(r->finish), "%s", json_string_value(v));
        r->progress++;
    }
    v = json_object_get(json_object_get(o, "usage"), "completion_tokens");
    if (json_is_integer(v))
        r->completion_tokens = json_integer_value(v);
    if (json_is_object(json_object_get(o, "timings")))
        r->progress++;
    timings(r, json_object_get(o, "timings"));
    json_decref(o);
    return rc;
}

enum reply_outcome reply_outcome(const struct reply *r)
{
    if (r->error != NULL)
        return REPLY_ERROR;
    if (r->finish[0] != '\0' || r->done)
        return REPLY_FINISHED;
    return REPLY_CUT;
}

long long reply_tokens(const struct reply *r)
{
    return r->completion_tokens >= 0 ? r->completion_tokens : r->predicted_n;
}

int reply_truncated(const struct reply *r, long long max_tokens)
{
    long long n = reply_tokens(r);

    return strcmp(r->finish, "length") == 0 ||
           (max_tokens > 0 && n >= max_tokens);
}
