/*
 * ask.c - the requests in flight (runner_int.h): each asks one question,
 * its stream parsed (sse.h) into its reply (reply.h) as it comes, watched
 * for its idle limit and deadline, and its end told to the rung as an
 * event; then the row it makes, for the one writer of rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../grader/grader.h"
#include "request.h"
#include "runner_int.h"
#include "../server/shape.h"
#include "../input/longitem.h"
#include "../input/taskfile.h"

#define ERRBODY_CAP 65536 /* an HTTP error's body kept */
#define BUSY_TRIES  5     /* 429s on one ask before its error row */
#define BUSY_MAX_S  60    /* a Retry-After longer than this is cut to it */

static int sse_event(void *ctx, const char *data, size_t len);

static struct slot *slot_for(struct runner *r, size_t q)
{
    size_t i;

    for (i = 0; i < r->asks.width; i++)
        if (r->asks.slots[i].busy && r->asks.slots[i].asked == q)
            return &r->asks.slots[i];
    return NULL;
}

/* abort_loops: the text an event added, to the loop watch; a loop ends
 * the request as an answer with finish_reason "loop" (1). */
static int watch_loop(struct slot *sl, size_t clen, size_t rlen)
{
    const struct reply *y = &sl->reply;
    int in_r = y->reasoning.len > rlen;
    const char *p = in_r ? y->reasoning.p + rlen : y->content.p + clen;
    size_t n = in_r ? y->reasoning.len - rlen : y->content.len - clen;
    int kind =
        loopwatch_piece(&sl->lw, p, n, in_r, y->content.p, y->content.len,
                        y->reasoning.p, y->reasoning.len);

    if (kind < 0)
        util_oom("the loop watch");
    if (kind == LOOP_NONE)
        return 0;
    sl->looped = kind;
    snprintf(sl->reply.finish, sizeof(sl->reply.finish), "loop");
    sl->reply.completion_tokens = (long long)sl->lw.pieces;
    return 1;
}

static int sse_event(void *ctx, const char *data, size_t len)
{
    struct slot *sl = ctx;
    size_t clen = sl->reply.content.len, rlen = sl->reply.reasoning.len;
    int rc = reply_event(&sl->reply, data, len, sl->fault_msg,
                         sizeof(sl->fault_msg));

    if (rc != 0) {
        sl->fault = reply_error_kind(rc);
        return 1;
    }
    if (sl->r->o->abort_loops && sl->reply.finish[0] == '\0' &&
        (sl->reply.content.len > clen || sl->reply.reasoning.len > rlen) &&
        watch_loop(sl, clen, rlen))
        return 1;
    /* progress is counted in tokens: comments, empty events and a
     * byte-at-a-time trickle do not keep a request alive */
    if (sl->reply.progress != sl->progress_seen) {
        sl->progress_seen = sl->reply.progress;
        sl->last_token_ms = uv_now(&sl->r->sup.loop);
    }
    return 0;
}

static int body_cb(void *ctx, long status, const char *p, size_t n)
{
    struct slot *sl = ctx;
    int rc;

    sl->http_status = status;
    sl->got += n;
    if (status >= 300) { /* a redirect's body is not a stream either */
        /* an error body is JSON, not SSE: its first ERRBODY_CAP bytes are
         * kept for the row (a message is short; more is noise) */
        size_t room = ERRBODY_CAP - sl->errbody.len;
        return buf_add(&sl->errbody, p, n < room ? n : room) == 0 ? 0 : 1;
    }
    rc = sse_feed(&sl->sse, p, n);
    if (rc == SSE_ETOOBIG && sl->fault == NULL) {
        sl->fault = "too_long";
        snprintf(sl->fault_msg, sizeof(sl->fault_msg),
                 "a stream line or event longer than %u bytes",
                 (unsigned)REPLY_CAP);
    }
    return rc == 0 ? 0 : 1;
}

/* The key of the endpoint asked, whose traces no text of its answers
 * may keep: NULL for a server graveyard started, or no key. */
static const char *endpoint_key(const struct runner *r)
{
    if (r->o->endpoint == NULL || r->o->api_key_env == NULL)
        return NULL;
    return getenv(r->o->api_key_env);
}

static void scrub_buf(struct buf *b, const char *key)
{
    if (b->len == 0)
        return;
    b->len = endpoint_redact(b->p, b->len, key);
    b->p[b->len] = '\0';
}

static void scrub_str(char *s, const char *key)
{
    if (s != NULL)
        s[endpoint_redact(s, strlen(s), key)] = '\0';
}

/* Mark a token's traces of key (marks over its own text) as '*'s, in
 * place: a token's length is its place in the reply, which a probs
 * record keeps. */
static void star_marked(char *text, const unsigned char *mark, size_t n)
{
    for (size_t j = 0; j < n; j++)
        if (mark[j])
            text[j] = '*';
}

/* A token id has one text in a record (its table keeps one by id): where
 * a chosen token's text was starred, every entry of the same id (the
 * same token listed among the alternatives, here or at another place)
 * takes the starred text (all stars where its length differs), or a
 * short piece of the key would come back through it. orig: the chosen
 * tokens' texts as they were, joined. */
static void same_id_same_text(struct reply_probs *p, const char *orig)
{
    size_t stride = 1 + p->topn, at = 0, i, j, k;

    for (i = 0; i < p->ntok; i++) {
        const struct reply_tok *c = &p->tok[i * stride];
        const char *now = p->text.p + c->text;
        if (c->len == 0 || memcmp(now, orig + at, c->len) == 0) {
            at += c->len;
            continue;
        }
        at += c->len;
        for (j = 0; j < p->ntok; j++)
            for (k = 0; k < stride; k++) {
                struct reply_tok *t = &p->tok[j * stride + k];
                if (t == c || t->id != c->id)
                    continue;
                if (t->len == c->len)
                    memcpy(p->text.p + t->text, now, c->len);
                else
                    memset(p->text.p + t->text, '*', t->len);
            }
    }
}

/* The tokens' texts of a reply's log-probabilities, which the probs file
 * keeps: the chosen tokens' texts read as one text (a key spread over
 * several tokens is a trace too), each alternative on its own, every
 * byte of a trace a '*', no token's length changed. */
static void scrub_probs(struct reply_probs *p, const char *key)
{
    size_t stride = 1 + p->topn, total = 0, at = 0, i, k;
    unsigned char *mark;
    char *all;

    if (p->ntok == 0)
        return;
    for (i = 0; i < p->ntok; i++)
        total += p->tok[i * stride].len;
    all = xrealloc(NULL, total + 1);
    mark = xrealloc(NULL, total + 256);
    for (i = 0; i < p->ntok; i++) {
        const struct reply_tok *t = &p->tok[i * stride];
        memcpy(all + at, p->text.p + t->text, t->len);
        at += t->len;
    }
    memset(mark, 0, total);
    endpoint_trace_marks(all, total, key, mark);
    for (i = at = 0; i < p->ntok; i++) {
        const struct reply_tok *t = &p->tok[i * stride];
        star_marked(p->text.p + t->text, mark + at, t->len);
        at += t->len;
    }
    for (i = 0; i < p->ntok; i++)
        for (k = 1; k < stride; k++) {
            const struct reply_tok *t = &p->tok[i * stride + k];
            if (t->id == GRADER_PROBS_NONE || t->len == 0)
                continue;
            memset(mark, 0, t->len);
            endpoint_trace_marks(p->text.p + t->text, t->len, key, mark);
            star_marked(p->text.p + t->text, mark, t->len);
        }
    same_id_same_text(p, all);
    free(mark);
    free(all);
}

/* Every text of sl's request that its row or the log may keep (content,
 * reasoning, the tool calls, an error body, an error event, a fault's message,
 * the finish_reason) and error (NULL or a text made of them), with the
 * endpoint's key's traces overwritten (endpoint_redact): an endpoint
 * that echoes its key puts it in none of them. */
static void scrub(struct slot *sl, char *error)
{
    const char *key = endpoint_key(sl->r);

    if (key == NULL || key[0] == '\0')
        return;
    scrub_probs(&sl->reply.probs, key);
    scrub_buf(&sl->reply.content, key);
    scrub_buf(&sl->reply.reasoning, key);
    for (size_t i = 0; i < sl->reply.ncalls; i++) {
        scrub_buf(&sl->reply.calls[i].name, key);
        scrub_buf(&sl->reply.calls[i].args, key);
    }
    scrub_buf(&sl->errbody, key);
    scrub_str(sl->reply.error, key);
    scrub_str(sl->reply.finish, key);
    scrub_str(sl->fault_msg, key);
    scrub_str(error, key);
}

/* Cancel a slot's request in flight; its done callback is ignored. */
static void cancel(struct slot *sl)
{
    if (sl->later_open)
        uv_timer_stop(&sl->later); /* a 429's wait is over too */
    if (sl->req == NULL)
        return;
    sl->cancelling = 1;
    http_cancel(sl->r->http, sl->req); /* request_done runs now */
    sl->cancelling = 0;
    sl->req = NULL;
}

static void watch_cb(uv_timer_t *t);

/* The watch wakes at the first request's idle limit or deadline. */
static void rearm_watch(struct runner *r)
{
    uint64_t now = uv_now(&r->sup.loop), first = UINT64_MAX;
    size_t i;

    for (i = 0; i < r->asks.width; i++) {
        const struct slot *sl = &r->asks.slots[i];
        uint64_t idle_at = sl->last_token_ms + r->asks.idle_ms;
        uint64_t late_at = sl->started_ms + r->asks.deadline_ms;
        if (sl->req == NULL)
            continue;
        if (idle_at < first)
            first = idle_at;
        if (late_at < first)
            first = late_at;
    }
    uv_timer_stop(&r->asks.watch);
    if (first != UINT64_MAX)
        uv_timer_start(&r->asks.watch, watch_cb, first > now ? first - now : 0,
                       0);
}

/* The watch: a request with no token for idle_ms (hung), or past its
 * deadline, is cancelled and said to the rung. */
static void watch_cb(uv_timer_t *t)
{
    struct runner *r = t->data;
    uint64_t now = uv_now(&r->sup.loop);
    struct rung_event ev;
    size_t i;

    for (i = 0; i < r->asks.width && !r->ended; i++) {
        struct slot *sl = &r->asks.slots[i];
        uint64_t idle_at = sl->last_token_ms + r->asks.idle_ms;
        uint64_t late_at = sl->started_ms + r->asks.deadline_ms;
        if (sl->req == NULL || (now < idle_at && now < late_at))
            continue;
        cancel(sl);
        scrub(sl, NULL);
        memset(&ev, 0, sizeof(ev));
        ev.type = now >= idle_at ? EV_IDLE : EV_DEADLINE;
        ev.question = sl->asked;
        runner_event(r, &ev);
    }
    if (!r->ended)
        rearm_watch(r);
}

/* How a request that ended (not cancelled) ended, as the rung's event;
 * error holds its text. */
static void outcome(struct slot *sl, const char *err, struct rung_event *ev,
                    char *error, size_t errsize)
{
    enum reply_outcome out = reply_outcome(&sl->reply);
    long status = sl->http_status;

    memset(ev, 0, sizeof(*ev));
    ev->question = sl->asked;
    ev->type = EV_REFUSED;
    ev->text = error;
    error[0] = '\0';
    if (sl->looped) {
        /* closed by us, as a loop: what arrived is the answer */
        ev->type = EV_ANSWER;
    } else if (sl->fault != NULL) {
        /* the server is alive and said something we cannot take */
        ev->kind = sl->fault;
        ev->text = sl->fault_msg;
    } else if (status >= 300 && status < 400) {
        /* never followed (http.c): the key must not go where it points */
        snprintf(error, errsize,
                 "HTTP %ld: the endpoint redirects elsewhere, and redirects "
                 "are not followed (give the URL it points to)",
                 status);
        ev->kind = "redirect";
    } else if (status >= 400) {
        json_t *body = json_loadb(sl->errbody.p ? sl->errbody.p : "",
                                  sl->errbody.len, 0, NULL);
        const char *m = json_string_value(
            json_object_get(json_object_get(body, "error"), "message"));
        snprintf(error, errsize, "HTTP %ld: %.500s", status,
                 m ? m : (sl->errbody.len ? sl->errbody.p : ""));
        json_decref(body);
        ev->kind = "http";
    } else if (err == NULL && !sse_pending(&sl->sse) &&
               out == REPLY_FINISHED) {
        ev->type = EV_ANSWER;
    } else if (err == NULL && out == REPLY_ERROR) {
        snprintf(error, errsize, "stream error: %.500s", sl->reply.error);
        ev->kind = "stream_error";
    } else if (err == NULL) {
        ev->kind = "bad_stream";
        ev->text = "the stream ended without a finish_reason or [DONE]";
    } else {
        /* the connection broke: a server that died does that; so does
         * a kept-alive connection it closed, before the first byte */
        ev->type = EV_BROKE;
        ev->text = NULL;
        ev->empty = sl->got == 0;
    }
}

static int send_ask(struct slot *sl);

/* A 429's wait is over: the same ask again (not a new attempt). */
/* The rung fails, exit 1, saying text (one line, the caller's). */
static void fail_rung(struct runner *r, const char *text)
{
    struct rung_event ev;

    memset(&ev, 0, sizeof(ev));
    ev.type = EV_FAIL;
    ev.code = 1;
    ev.text = text;
    runner_event(r, &ev);
}

static void later_cb(uv_timer_t *t)
{
    struct slot *sl = t->data;
    char text[600];

    if (sl->r->ended || send_ask(sl) == 0)
        return;
    snprintf(text, sizeof(text), "cannot start a request: %s",
             http_error(sl->r->http));
    fail_rung(sl->r, text);
}

/* HTTP 429, "too many requests": asked again after its Retry-After (at
 * most BUSY_MAX_S; without one 1, 2, 4... s), BUSY_TRIES times at most,
 * then an error row as any HTTP error. 1 when it waits. */
static int busy_wait(struct slot *sl, long status)
{
    struct runner *r = sl->r;
    long s = http_retry_after(r->http);

    if (status != 429 || sl->busy_tries >= BUSY_TRIES)
        return 0;
    if (s <= 0)
        s = 1L << sl->busy_tries;
    if (s > BUSY_MAX_S)
        s = BUSY_MAX_S;
    sl->busy_tries++;
    if (!sl->later_open) {
        uv_timer_init(&r->sup.loop, &sl->later);
        sl->later.data = sl;
        sl->later_open = 1;
    }
    runner_say(r, "%.200s: HTTP 429 (busy); asking again in %ld s (%d of %d)",
               r->qs.q[sl->asked].id, s, sl->busy_tries, BUSY_TRIES);
    uv_timer_start(&sl->later, later_cb, (uint64_t)s * 1000, 0);
    return 1;
}

/* The key refused: the rung ends at once, in one line, not a row a
 * question. */
static int key_refused(struct slot *sl, long status)
{
    struct runner *r = sl->r;
    char text[RUNG_TEXT];

    if (r->o->endpoint == NULL || (status != 401 && status != 403))
        return 0;
    snprintf(text, sizeof(text),
             "the endpoint %.500s answered HTTP %ld: the key was refused "
             "(api_key_env%s%.100s); stopping the rung",
             r->srv.url, status, r->o->api_key_env ? " " : " not set",
             r->o->api_key_env ? r->o->api_key_env : "");
    fail_rung(r, text);
    return 1;
}

/* Why a server refuses every tool item, by the words of its error body,
 * and what to do: both lineages answer every request with "tools" HTTP 500
 * "tools param requires --jinja flag" ("tool_choice param ..." the same)
 * when their chat templates are off (a build whose default is off, the ik
 * fork's, run without --jinja), and every streamed request with "tools"
 * and "logprobs" "logprobs is not supported with tools + stream"
 * (upstream a135ec0ba HTTP 400, ik 8337e4cd HTTP 500). */
static const struct {
    const char *words; /* in the error's message */
    const char *why;   /* after the message; %s: where the flag goes */
} TOOL_REFUSALS[] = {
    {"requires --jinja", "its chat templates are off; give \"--jinja\" in %s "
                         "(docs/toolcalls.md)"},
    {"logprobs is not supported with tools",
     "llama-server streams no log-probabilities beside tools, so no split "
     "can be shown for tool items; leave \"logprobs\" off for them "
     "(docs/toolcalls.md, \"Logprobs\")"},
};

/* A tool item refused for a reason every tool item shares
 * (TOOL_REFUSALS): every tool item would be an error row and the rung a
 * night of them, so it ends at once, in one line naming the item, the
 * server's words and the fix, not a row a question. 1 when so. */
static int tool_refused(struct slot *sl, long status)
{
    struct runner *r = sl->r;
    const struct question *q = &r->qs.q[sl->asked];
    char text[RUNG_TEXT], shown[256], why[300];
    json_t *body;
    const char *m;
    size_t i, n = sizeof(TOOL_REFUSALS) / sizeof(TOOL_REFUSALS[0]);

    if (status < 400 || q->tools == NULL || sl->errbody.len == 0)
        return 0;
    body = json_loadb(sl->errbody.p, sl->errbody.len, 0, NULL);
    m = json_string_value(
        json_object_get(json_object_get(body, "error"), "message"));
    for (i = 0; m != NULL && i < n; i++)
        if (strstr(m, TOOL_REFUSALS[i].words) != NULL)
            break;
    if (m == NULL || i == n) {
        json_decref(body);
        return 0;
    }
    util_printable(m, strlen(m), shown, sizeof(shown));
    json_decref(body);
    snprintf(why, sizeof(why), TOOL_REFUSALS[i].why,
             r->o->endpoint ? "the endpoint's server args"
                            : "the rung's server_args");
    snprintf(text, sizeof(text),
             "the server refused tool item '%.256s' (HTTP %ld: %s): %s; "
             "stopping the rung",
             q->id, status, shown, why);
    fail_rung(r, text);
    return 1;
}

/* The end of a request, as an event for the rung. */
static void request_done(void *ctx, long status, const char *err)
{
    struct slot *sl = ctx;
    struct runner *r = sl->r;
    struct rung_event ev;
    char error[800];

    if (sl->cancelling)
        return;
    /* an error with an empty body never reached body_cb: its status is
     * the header's all the same (a bare 401 stops the rung, a bare 429
     * is asked again, a bare 302 is a redirect) */
    if (sl->http_status == 0)
        sl->http_status = status;
    sl->req = NULL;
    rearm_watch(r);
    scrub(sl, NULL);
    if (sl->fault == NULL &&
        (busy_wait(sl, sl->http_status) || key_refused(sl, sl->http_status) ||
         tool_refused(sl, sl->http_status)))
        return;
    outcome(sl, err, &ev, error, sizeof(error));
    /* an error body's message is JSON-unescaped: its traces again */
    scrub(sl, error);
    runner_event(r, &ev);
}

/* Ask question q (A_ASK) on its slot (asked again) or a free one. 0, or
 * -1 when the request cannot start. */
int ask_start(struct runner *r, size_t q)
{
    struct slot *sl = slot_for(r, q);
    size_t i;

    for (i = 0; sl == NULL && i < r->asks.width; i++)
        if (!r->asks.slots[i].busy)
            sl = &r->asks.slots[i];
    if (sl == NULL) /* the rung asks at most width at once */
        return -1;
    cancel(sl);
    sl->busy = 1;
    sl->asked = q;
    sl->busy_tries = 0;
    return send_ask(sl);
}

/* The request of sl's question, from a clean reply. 0 or -1. */
static int send_ask(struct slot *sl)
{
    struct runner *r = sl->r;
    size_t q = sl->asked;
    char url[ENDPOINT_URL_MAX + 32], *body;

    sl->http_status = 0;
    sl->got = 0;
    sl->fault = NULL;
    buf_release(&sl->errbody);
    reply_release(&sl->reply);
    reply_init(&sl->reply, REPLY_CAP);
    reply_want_probs(&sl->reply, (unsigned)r->o->logprobs);
    if (r->o->task != NULL && grader_task_completions(r->o->task))
        reply_want_text(&sl->reply);
    sse_release(&sl->sse);
    sse_init(&sl->sse, REPLY_CAP, sse_event, sl);
    sl->progress_seen = 0;
    sl->looped = LOOP_NONE;
    loopwatch_reset(&sl->lw);
    sl->started_ms = sl->last_token_ms = uv_now(&r->sup.loop);
    if (r->asks.first_ask_ms == 0)
        r->asks.first_ask_ms = sl->started_ms;
    body = request_body(r->o, &r->qs.q[q]);
    snprintf(url, sizeof(url), "%s%s", r->srv.url, request_path(r->o));
    sl->req = http_request(r->http, url, body, 0, body_cb, request_done, sl);
    free(body);
    if (sl->req == NULL)
        return -1;
    rearm_watch(r);
    return 0;
}

/* The row of question qi from its slot, for the one writer of rows
 * (rowwrite.h); kind and error are NULL for an answer. A request that
 * carried a grammar or a JSON schema has the reply checked against it
 * (shape.h); one without keeps its rows as they were. */
static void slot_row(struct runner *r, const struct slot *sl, size_t qi,
                     int attempts, const char *kind, const char *error,
                     struct row *w)
{
    const struct question *q = &r->qs.q[qi];
    const struct reply *reply = &sl->reply;
    struct shape s;

    row_init(w);
    w->id = q->id;
    w->rung = r->o->rung;
    w->reference = q->answer;
    w->length = q->length;
    w->depth = q->depth;
    if (q->lng != NULL) {
        w->seed = q->lng->seed;
        w->fill = (long long)q->lng->fill;
    }
    if (!error && reply->content.len > 0) {
        w->content = reply->content.p;
        w->content_len = reply->content.len;
    }
    if (!error && reply->reasoning.len > 0) {
        w->reasoning = reply->reasoning.p;
        w->reasoning_len = reply->reasoning.len;
    }
    w->tool_item = q->tools != NULL; /* its calls, as streamed */
    if (!error) {
        w->calls = reply->calls;
        w->ncalls = reply->ncalls;
    }
    w->finish = reply->finish[0] ? reply->finish : NULL;
    w->truncated =
        !error && (sl->looped || reply_truncated(reply, r->o->max_tokens));
    w->tokens = reply_tokens(reply);
    w->tps = reply->decode_tps;
    w->error = error;
    w->error_kind = kind;
    w->measured = 1;
    w->prompt_tokens = reply->prompt_n;
    w->prompt_ms = reply->prompt_ms;
    w->predicted_ms = reply->predicted_ms;
    w->http_status = sl->http_status;
    w->attempts = attempts;
    w->latency_ms = (long long)(uv_now(&r->sup.loop) - sl->started_ms);
    w->grades = strcmp(grader_task_name(r->o->task), TASKFILE_DEFAULT) != 0;
    shape_of(r->o->request, &s);
    if (s.kind != SHAPE_NONE) {
        w->constrained = s.name;
        if (!error)
            w->violations = shape_check(&s, w->content, w->content_len, w->why,
                                        sizeof(w->why));
        w->violation = w->violations > 0 ? w->why : NULL;
    }
    /* cut short as a loop: what it would have cost at most */
    if (!error && sl->looped) {
        w->aborted = loopwatch_name(sl->looped);
        w->tokens_saved =
            r->o->max_tokens > w->tokens ? r->o->max_tokens - w->tokens : 0;
    }
}

void ask_init(struct runner *r)
{
    r->asks.width = r->o->parallel < 1 ? 1 : (size_t)r->o->parallel;
    r->asks.idle_ms = (uint64_t)r->o->idle_s * 1000;
    r->asks.deadline_ms = (uint64_t)r->o->request_timeout_s * 1000;
    for (size_t i = 0; i < RUNG_MAX_WIDTH; i++) {
        struct slot *sl = &r->asks.slots[i];
        sl->r = r;
        reply_init(&sl->reply, REPLY_CAP);
        sse_init(&sl->sse, REPLY_CAP, sse_event, sl);
        buf_init(&sl->errbody, ERRBODY_CAP);
        loopwatch_init(&sl->lw);
    }
}

/* A new server (A_START_SERVER): what is still in flight was asked of
 * the server gone. */
void ask_cancel_all(struct runner *r)
{
    for (size_t i = 0; i < r->asks.width; i++)
        cancel(&r->asks.slots[i]);
}

/* A death or a hang ends question q as an error row: nothing of the
 * broken attempts belongs in it. */
void ask_forget(struct runner *r, size_t q)
{
    struct slot *sl = slot_for(r, q);

    if (sl != NULL) {
        sl->http_status = 0;
        reply_release(&sl->reply);
        reply_init(&sl->reply, REPLY_CAP);
    }
}

double ask_row(struct runner *r, size_t q, int attempts, const char *kind,
               const char *error, struct row *w)
{
    struct slot *sl = slot_for(r, q), none;
    double tps;

    if (sl != NULL) {
        slot_row(r, sl, q, attempts, kind, error, w);
        return sl->reply.decode_tps;
    }
    /* a question that never reached a server: an empty reply, of which
     * the row keeps nothing */
    memset(&none, 0, sizeof(none));
    none.r = r;
    reply_init(&none.reply, REPLY_CAP);
    slot_row(r, &none, q, attempts, kind, error, w);
    tps = none.reply.decode_tps;
    reply_release(&none.reply);
    return tps;
}

const struct reply *ask_reply(struct runner *r, size_t q)
{
    const struct slot *sl = slot_for(r, q);

    return sl != NULL ? &sl->reply : NULL;
}

void ask_written(struct runner *r, size_t q)
{
    struct slot *sl = slot_for(r, q);

    if (sl != NULL)
        sl->busy = 0;
}

/* The end: libcurl is freed by the caller, so no request is in flight. */
void ask_close(struct runner *r)
{
    for (size_t i = 0; i < r->asks.width; i++) {
        struct slot *sl = &r->asks.slots[i];
        sl->req = NULL;
        if (sl->later_open && !uv_is_closing((uv_handle_t *)&sl->later))
            uv_close((uv_handle_t *)&sl->later, NULL);
    }
    if (!uv_is_closing((uv_handle_t *)&r->asks.watch))
        uv_close((uv_handle_t *)&r->asks.watch, NULL);
}

void ask_release(struct runner *r)
{
    for (size_t i = 0; i < RUNG_MAX_WIDTH; i++) {
        reply_release(&r->asks.slots[i].reply);
        sse_release(&r->asks.slots[i].sse);
        buf_release(&r->asks.slots[i].errbody);
        loopwatch_release(&r->asks.slots[i].lw);
    }
}
