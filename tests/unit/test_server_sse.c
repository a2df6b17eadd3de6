/*
 * test_server_sse.c - SSE framing and the chunks of a streamed answer, on
 * transcripts shaped like upstream llama.cpp's and the ik fork's.
 *
 * Tests: orchestrator/server/sse.c
 * Tests: orchestrator/server/reply.c
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "../../orchestrator/server/reply.h"
#include "../../orchestrator/server/sse.h"

/* Events collected by the callback, joined by '|'. */
static struct buf seen;

static int collect(void *ctx, const char *data, size_t len)
{
    (void)ctx;
    buf_append(&seen, data, len);
    buf_append(&seen, "|", 1);
    return 0;
}

/* Parse text in slices of step bytes (0: whole); returns the events. */
static const char *events(const char *text, size_t step, int *pending)
{
    struct sse s;
    size_t off = 0, n = strlen(text);

    seen.len = 0;
    buf_append(&seen, "", 0);
    sse_init(&s, 1 << 16, collect, NULL);
    while (off < n) {
        size_t k = step && step < n - off ? step : n - off;
        assert_int_equal(sse_feed(&s, text + off, k), 0);
        off += k;
    }
    *pending = sse_pending(&s);
    sse_release(&s);
    return seen.p;
}

static void expect_events(const char *text, const char *want, int pend)
{
    size_t step;
    int pending;

    for (step = 0; step <= strlen(text); step++) {
        const char *got = events(text, step, &pending);
        if (strcmp(got, want) != 0)
            fail_msg("slices of %zu: got '%s', want '%s'", step, got, want);
        assert_int_equal(pending, pend);
    }
}

static void test_framing(void **state)
{
    (void)state;
    expect_events("data: a\n\ndata: b\n\n", "a|b|", 0);
    /* CRLF and CR line ends; a CRLF split across feeds */
    expect_events("data: a\r\n\r\ndata: b\r\rdata: c\n\n", "a|b|c|", 0);
    /* comments (pings), other fields, no space after the colon */
    expect_events(": ping\n\nevent: x\nid: 7\ndata:a\n\n", "a|", 0);
    /* multi-line data is joined with LF; "data" alone adds a blank line */
    expect_events("data: a\ndata: b\ndata\n\n", "a\nb\n|", 0);
    /* blank lines without data dispatch nothing */
    expect_events("\n\n\ndata: x\n\n\n", "x|", 0);
    /* a stream cut in the middle of an event is pending */
    expect_events("data: a\n\ndata: {\"cho", "a|", 1);
    expect_events("data: a\n\ndata: b\n", "a|", 1);
}

static void test_cap(void **state)
{
    struct sse s;
    char big[300];

    (void)state;
    memset(big, 'x', sizeof(big));
    sse_init(&s, 256, collect, NULL);
    assert_int_equal(sse_feed(&s, "data: ", 6), 0);
    assert_int_equal(sse_feed(&s, big, sizeof(big)), SSE_ETOOBIG);
    sse_release(&s);
}

/* Feed a whole transcript to a reply. */
static void take(struct reply *r, const char *text)
{
    char msg[256];
    const char *p = text;

    while ((p = strstr(p, "data: ")) != NULL) {
        const char *end = strstr(p, "\n\n");
        assert_non_null(end);
        if (reply_event(r, p + 6, (size_t)(end - p - 6), msg,
                        sizeof(msg)) != 0)
            fail_msg("%s", msg);
        p = end + 2;
    }
}

/* Upstream: role chunk, deltas, finish chunk, usage chunk with timings. */
static const char upstream[] =
    "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":"
    "{\"role\":\"assistant\",\"content\":null}}],\"object\":"
    "\"chat.completion.chunk\"}\n\n"
    "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":"
    "{\"reasoning_content\":\"Twins \"}}]}\n\n"
    "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":"
    "{\"content\":\"Answer: \"}}]}\n\n"
    "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":"
    "{\"content\":\"13\"}}]}\n\n"
    "data: {\"choices\":[{\"finish_reason\":\"length\",\"index\":0,"
    "\"delta\":{}}]}\n\n"
    "data: {\"choices\":[],\"usage\":{\"completion_tokens\":1024,"
    "\"prompt_tokens\":41},\"timings\":{\"prompt_n\":41,\"prompt_ms\":92.5,"
    "\"predicted_n\":1024,\"predicted_ms\":9100.0,"
    "\"predicted_per_second\":112.6,\"prompt_per_second\":null}}\n\n"
    "data: [DONE]\n\n";

static void test_upstream_stream(void **state)
{
    struct reply r;

    (void)state;
    reply_init(&r, 1 << 20);
    take(&r, upstream);
    assert_int_equal(reply_outcome(&r), REPLY_FINISHED);
    assert_int_equal(r.content.len, 10);
    assert_memory_equal(r.content.p, "Answer: 13", 10);
    assert_memory_equal(r.reasoning.p, "Twins ", 6);
    assert_string_equal(r.finish, "length");
    assert_true(r.done);
    assert_int_equal(reply_tokens(&r), 1024);
    assert_true(r.decode_tps == 112.6);
    assert_true(r.prompt_ms == 92.5);
    assert_int_equal(r.prompt_n, 41);
    assert_true(reply_truncated(&r, 1024));
    reply_release(&r);
}

/* Timings a server can send that no row should keep: inf is sent as
 * null by llama-server, but a number past any decoder (1e40 tokens/s), a
 * negative one, or a count past a long long is stored as unknown (null in
 * the row), never cast or carried into a summary that cannot print it. */
static void test_absurd_timings(void **state)
{
    const char absurd[] =
        "{\"choices\":[],\"timings\":{\"prompt_n\":1e40,\"prompt_ms\":1e300,"
        "\"predicted_n\":-3,\"predicted_ms\":-1.5,"
        "\"predicted_per_second\":1e40}}";
    const char fine[] =
        "{\"choices\":[],\"timings\":{\"prompt_n\":41,\"prompt_ms\":0,"
        "\"predicted_n\":7,\"predicted_ms\":3600000,"
        "\"predicted_per_second\":1000000000}}";
    struct reply r;
    char msg[256];

    (void)state;
    reply_init(&r, 1 << 20);
    assert_int_equal(reply_event(&r, absurd, strlen(absurd), msg, sizeof(msg)),
                     0);
    assert_true(r.decode_tps == -1);
    assert_true(r.prompt_ms == -1);
    assert_true(r.predicted_ms == -1);
    assert_int_equal(r.prompt_n, -1);
    assert_int_equal(r.predicted_n, -1);
    assert_int_equal(reply_tokens(&r), -1);
    assert_int_equal(reply_event(&r, fine, strlen(fine), msg, sizeof(msg)), 0);
    assert_true(r.decode_tps == 1e9);
    assert_true(r.prompt_ms == 0);
    assert_true(r.predicted_ms == 3600000);
    assert_int_equal(r.prompt_n, 41);
    assert_int_equal(reply_tokens(&r), 7);
    reply_release(&r);
}

/* The ik fork: "stop" at the cap, no usage chunk, timings on the finish
 * chunk; section 8 of the reference. */
static void test_ik_stream(void **state)
{
    struct reply r;

    (void)state;
    reply_init(&r, 1 << 20);
    take(&r, "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,"
             "\"delta\":{\"role\":\"assistant\",\"content\":null}}]}\n\n"
             "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,"
             "\"delta\":{\"content\":\"one two\"}}]}\n\n"
             "data: {\"choices\":[{\"finish_reason\":\"stop\",\"index\":0,"
             "\"delta\":{}}],\"timings\":{\"prompt_n\":41,"
             "\"predicted_n\":8,\"predicted_per_second\":112.6,"
             "\"n_ctx\":1024,\"n_past\":48}}\n\n"
             "data: [DONE]\n\n");
    assert_int_equal(reply_outcome(&r), REPLY_FINISHED);
    assert_string_equal(r.finish, "stop");
    assert_int_equal(reply_tokens(&r), 8);
    assert_true(reply_truncated(&r, 8));  /* says stop, hit the cap */
    assert_false(reply_truncated(&r, 9));
    reply_release(&r);
}

static void test_error_and_cut(void **state)
{
    struct reply r;
    char msg[256];

    (void)state;
    /* an error event mid-stream: no finish, no [DONE] */
    reply_init(&r, 1 << 20);
    take(&r, "data: {\"choices\":[{\"delta\":{\"content\":\"Answer\"}}]}\n\n"
             "data: {\"error\":{\"code\":500,\"message\":\"Failed to parse "
             "input at pos 0\",\"type\":\"server_error\"}}\n\n");
    assert_int_equal(reply_outcome(&r), REPLY_ERROR);
    assert_string_equal(r.error, "Failed to parse input at pos 0");
    reply_release(&r);
    /* a server that died mid-answer: deltas, then nothing */
    reply_init(&r, 1 << 20);
    take(&r, "data: {\"choices\":[{\"delta\":{\"content\":\"Ans\"}}]}\n\n");
    assert_int_equal(reply_outcome(&r), REPLY_CUT);
    reply_release(&r);
    /* not a chunk */
    reply_init(&r, 1 << 20);
    assert_int_equal(reply_event(&r, "{\"x\":1}", 7, msg, sizeof(msg)),
                     REPLY_EBAD);
    assert_non_null(strstr(msg, "choices"));
    assert_int_equal(reply_event(&r, "nope", 4, msg, sizeof(msg)),
                     REPLY_EBAD);
    assert_string_equal(reply_error_kind(REPLY_EBAD), "bad_stream");
    reply_release(&r);
    /* over the cap */
    reply_init(&r, 4);
    {
        const char *five = "{\"choices\":[{\"delta\":{\"content\":"
                           "\"12345\"}}]}";
        assert_int_equal(reply_event(&r, five, strlen(five), msg,
                                     sizeof(msg)),
                         REPLY_ETOOBIG);
    }
    assert_non_null(strstr(msg, "4 bytes once escaped"));
    reply_release(&r);
}

/* Each fault of a stream has its own code and name in a row. */
static void test_named_faults(void **state)
{
    struct reply r;
    char msg[256];
    /* 0xff is never UTF-8; \u0000 is a NUL */
    const char bad_utf8[] = "{\"choices\":[{\"delta\":{\"content\":"
                            "\"a\xff\"}}]}";
    const char nul[] = "{\"choices\":[{\"delta\":{\"content\":"
                       "\"a\\u0000b\"}}]}";
    const char empty[] = "{\"choices\":[{\"delta\":{}}]}";
    const char piece[] = "{\"choices\":[{\"delta\":{\"content\":\"x\"}}]}";

    (void)state;
    reply_init(&r, 1 << 20);
    assert_int_equal(reply_event(&r, bad_utf8, strlen(bad_utf8), msg,
                                 sizeof(msg)),
                     REPLY_EUTF8);
    assert_string_equal(reply_error_kind(REPLY_EUTF8), "bad_utf8");
    assert_int_equal(reply_event(&r, nul, strlen(nul), msg, sizeof(msg)),
                     REPLY_ENUL);
    assert_string_equal(reply_error_kind(REPLY_ENUL), "nul");
    assert_string_equal(reply_error_kind(REPLY_ETOOBIG), "too_long");
    /* progress counts tokens: an empty delta is not one */
    assert_int_equal(reply_event(&r, empty, strlen(empty), msg, sizeof(msg)),
                     0);
    assert_int_equal(r.progress, 0);
    assert_int_equal(reply_event(&r, piece, strlen(piece), msg, sizeof(msg)),
                     0);
    assert_int_equal(r.progress, 1);
    reply_release(&r);
}

/* A delta's content or reasoning_content that is neither text nor null
 * (a number, an object, an array, a bool) is a broken stream, named as
 * one: dropping it would grade a reply with a piece missing. */
static void test_delta_not_text(void **state)
{
    static const char *const bad[] = {
        "{\"choices\":[{\"delta\":{\"content\":5}}]}",
        "{\"choices\":[{\"delta\":{\"content\":true}}]}",
        "{\"choices\":[{\"delta\":{\"content\":[\"a\"]}}]}",
        "{\"choices\":[{\"delta\":{\"reasoning_content\":{}}}]}",
        "{\"choices\":[{\"delta\":{\"reasoning_content\":0.5}}]}",
    };
    const char ok[] = "{\"choices\":[{\"delta\":{\"content\":null,"
                      "\"reasoning_content\":null,\"role\":\"assistant\"}}]}";
    struct reply r;
    char msg[256];
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        reply_init(&r, 1 << 20);
        msg[0] = '\0';
        assert_int_equal(
            reply_event(&r, bad[i], strlen(bad[i]), msg, sizeof(msg)),
            REPLY_EBAD);
        assert_non_null(strstr(msg, "not text"));
        assert_non_null(
            strstr(msg, i < 3 ? "\"content\"" : "\"reasoning_content\""));
        reply_release(&r);
    }
    assert_string_equal(reply_error_kind(REPLY_EBAD), "bad_stream");
    /* null is the role chunk's: no text, no fault */
    reply_init(&r, 1 << 20);
    assert_int_equal(reply_event(&r, ok, strlen(ok), msg, sizeof(msg)), 0);
    assert_int_equal(r.content.len, 0);
    reply_release(&r);
}

/* A /v1/completions stream (reply_want_text) as both lineages send it
 * (upstream b9215 and ik_llama.cpp by hand, a tiny model, 6 tokens):
 * choices[0].text pieces, no role chunk, one last chunk with the finish,
 * usage and timings; the fork says "stop" at the cap. */
static const char completion_up[] =
    "data: {\"choices\":[{\"text\":\"    return\",\"index\":0,\"logprobs\":"
    "null,\"finish_reason\":null}],\"object\":\"text_completion\"}\n\n"
    "data: {\"choices\":[{\"text\":\" a + b\",\"index\":0,\"logprobs\":"
    "null,\"finish_reason\":null}],\"object\":\"text_completion\"}\n\n"
    "data: {\"choices\":[{\"text\":\"\",\"index\":0,\"logprobs\":null,"
    "\"finish_reason\":\"length\"}],\"object\":\"text_completion\","
    "\"usage\":{\"completion_tokens\":6,\"prompt_tokens\":9,"
    "\"total_tokens\":15},\"timings\":{\"prompt_n\":9,\"prompt_ms\":11.2,"
    "\"predicted_n\":6,\"predicted_ms\":28.2,\"predicted_per_second\":"
    "212.7}}\n\n"
    "data: [DONE]\n\n";

static void test_completion_stream(void **state)
{
    struct reply r;

    (void)state;
    reply_init(&r, 1 << 20);
    reply_want_text(&r);
    take(&r, completion_up);
    assert_int_equal(reply_outcome(&r), REPLY_FINISHED);
    assert_int_equal(r.content.len, 16);
    assert_memory_equal(r.content.p, "    return a + b", 16);
    assert_int_equal(r.reasoning.len, 0);
    assert_string_equal(r.finish, "length");
    assert_int_equal(reply_tokens(&r), 6);
    assert_int_equal(r.prompt_n, 9);
    assert_true(r.decode_tps == 212.7);
    assert_true(reply_truncated(&r, 6));
    reply_release(&r);
    /* the fork's: "stop" at the cap, n_ctx and n_past in its timings */
    reply_init(&r, 1 << 20);
    reply_want_text(&r);
    take(&r, "data: {\"choices\":[{\"text\":\" x\",\"index\":0,"
             "\"logprobs\":null,\"finish_reason\":null}]}\n\n"
             "data: {\"choices\":[{\"text\":\"\",\"index\":0,\"logprobs\":"
             "null,\"finish_reason\":\"stop\"}],\"usage\":{"
             "\"completion_tokens\":6},\"timings\":{\"prompt_n\":9,"
             "\"predicted_n\":6,\"n_ctx\":2048,\"n_past\":14}}\n\n"
             "data: [DONE]\n\n");
    assert_int_equal(reply_outcome(&r), REPLY_FINISHED);
    assert_memory_equal(r.content.p, " x", 2);
    assert_true(reply_truncated(&r, 6));
    reply_release(&r);
    /* a chat reply does not read a completion's text: each reply reads
     * the stream of the path it asked */
    reply_init(&r, 1 << 20);
    take(&r, completion_up);
    assert_int_equal(r.content.len, 0);
    reply_release(&r);
}

/* Hostile completion events: a text that is not text, no choices, a
 * choices that is not a list, a NUL, past the cap: each its fault, by
 * name; null text is none (no fault). A chat delta in a completion
 * stream adds nothing. */
static void test_completion_hostile(void **state)
{
    static const char *const bad[] = {
        "{\"choices\":[{\"text\":5}]}",
        "{\"choices\":[{\"text\":true}]}",
        "{\"choices\":[{\"text\":[\"a\"]}]}",
        "{\"choices\":[{\"text\":{\"a\":\"b\"}}]}",
    };
    static const char *const what[] = {"a number", "a boolean", "a JSON array",
                                       "a JSON object"};
    struct reply r;
    char msg[256];
    size_t i;
    const char *ev;

    (void)state;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        reply_init(&r, 1 << 20);
        reply_want_text(&r);
        msg[0] = '\0';
        assert_int_equal(
            reply_event(&r, bad[i], strlen(bad[i]), msg, sizeof(msg)),
            REPLY_EBAD);
        assert_non_null(strstr(msg, "stream choice's \"text\" is not text"));
        assert_non_null(strstr(msg, what[i]));
        reply_release(&r);
    }
    reply_init(&r, 1 << 20);
    reply_want_text(&r);
    ev = "{\"object\":\"text_completion\",\"text\":\"x\"}";
    assert_int_equal(reply_event(&r, ev, strlen(ev), msg, sizeof(msg)),
                     REPLY_EBAD);
    assert_non_null(strstr(msg, "no \"choices\""));
    ev = "{\"choices\":{\"text\":\"x\"}}";
    assert_int_equal(reply_event(&r, ev, strlen(ev), msg, sizeof(msg)),
                     REPLY_EBAD);
    ev = "{\"choices\":[{\"text\":\"a\\u0000b\"}]}";
    assert_int_equal(reply_event(&r, ev, strlen(ev), msg, sizeof(msg)),
                     REPLY_ENUL);
    ev = "{\"choices\":[{\"text\":null,\"finish_reason\":null}]}";
    assert_int_equal(reply_event(&r, ev, strlen(ev), msg, sizeof(msg)), 0);
    ev = "{\"choices\":[{\"delta\":{\"content\":\"chat\"}}]}";
    assert_int_equal(reply_event(&r, ev, strlen(ev), msg, sizeof(msg)), 0);
    assert_int_equal(r.content.len, 0);
    assert_int_equal(reply_outcome(&r), REPLY_CUT);
    reply_release(&r);
    /* the row's cap holds for a completion's text as for a chat's */
    reply_init(&r, 8);
    reply_want_text(&r);
    ev = "{\"choices\":[{\"text\":\"0123456789\"}]}";
    assert_int_equal(reply_event(&r, ev, strlen(ev), msg, sizeof(msg)),
                     REPLY_ETOOBIG);
    reply_release(&r);
}

/* The cap is on escaped bytes: a reply of control characters (six bytes
 * each in a row) stops at a sixth of the cap, so its row always fits the
 * row reader's cap. */
static void test_escaped_cap(void **state)
{
    char text[256], chunk[128], msg[256];
    struct reply r;
    json_t *s;
    char *dumped;
    size_t i, n = 0;

    (void)state;
    /* every byte value jansson may meet, against json_dumps itself */
    for (i = 1; i < 128; i++)
        text[n++] = (char)i;
    s = json_stringn(text, n);
    dumped = json_dumps(s, JSON_ENCODE_ANY | JSON_COMPACT);
    assert_int_equal(reply_escaped_len(text, n), strlen(dumped) - 2);
    free(dumped);
    json_decref(s);
    /* \u0001 ten times is 60 bytes escaped: over a cap of 59 */
    reply_init(&r, 59);
    snprintf(chunk, sizeof(chunk),
             "{\"choices\":[{\"delta\":{\"content\":\"%s\"}}]}",
             "\\u0001\\u0001\\u0001\\u0001\\u0001");
    assert_int_equal(reply_event(&r, chunk, strlen(chunk), msg, sizeof(msg)),
                     0);
    assert_int_equal(r.escaped, 30);
    assert_int_equal(reply_event(&r, chunk, strlen(chunk), msg, sizeof(msg)),
                     REPLY_ETOOBIG);
    assert_int_equal(r.content.len, 5);
    reply_release(&r);
}

/* reply_fits, import's check, counts as reply_event does: content and
 * reasoning together, escaped, with the streamed reply's message. */
static void test_fits(void **state)
{
    char msg[256];

    (void)state;
    assert_int_equal(reply_fits("\x01\x01", 2, "ab", 2, 14, msg, sizeof(msg)),
                     0);
    assert_int_equal(reply_fits("\x01\x01", 2, "abc", 3, 14, msg, sizeof(msg)),
                     REPLY_ETOOBIG);
    assert_non_null(strstr(msg, "14 bytes once escaped"));
    assert_int_equal(reply_fits(NULL, 0, "\"\"\"", 3, 5, msg, sizeof(msg)),
                     REPLY_ETOOBIG);
    assert_int_equal(reply_fits(NULL, 0, NULL, 0, 0, msg, sizeof(msg)), 0);
    assert_true(REPLY_ROW_CAP < GRADER_ROW_MAX);
}


/* ---- log-probabilities ("logprobs": N) ---- */

/* Three tokens as upstream and the fork stream them: "bytes" (a piece of
 * a UTF-8 sequence, which no "token" string can carry) first, else the
 * "token"; a chosen token outside its top list; fewer alternatives than
 * asked (padded with NONE, -inf); a null logprob (the server's -inf). */
static const char with_probs[] =
    "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":"
    "null},\"logprobs\":null}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"Hm\"},"
    "\"logprobs\":{\"content\":[{\"id\":71,\"token\":\"Hm\",\"bytes\":[72,"
    "109],\"logprob\":-0.25,\"top_logprobs\":[{\"id\":71,\"token\":\"Hm\","
    "\"bytes\":[72,109],\"logprob\":-0.25},{\"id\":9,\"token\":\"So\","
    "\"bytes\":[83,111],\"logprob\":-1.5},{\"id\":4,\"token\":\"x\","
    "\"logprob\":null}]}]}}]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"content\":\"\\u00e2\"},\"logprobs\":{"
    "\"content\":[{\"id\":300,\"token\":\"?\",\"bytes\":[226,128],"
    "\"logprob\":-2.0,\"top_logprobs\":[{\"id\":301,\"token\":\"a\","
    "\"logprob\":-0.5},{\"id\":302,\"token\":\"b\",\"logprob\":-1.0}]}]}}"
    "]}\n\n"
    "data: {\"choices\":[{\"delta\":{\"content\":\"7\"},\"logprobs\":{"
    "\"content\":[{\"id\":55,\"token\":\"7\",\"logprob\":0,"
    "\"top_logprobs\":[{\"id\":55,\"token\":\"7\",\"logprob\":0}]}]}}]}\n\n"
    "data: {\"choices\":[{\"finish_reason\":\"stop\",\"delta\":{}}]}\n\n"
    "data: [DONE]\n\n";

static const struct reply_tok *tok(const struct reply *r, size_t i,
                                   size_t j)
{
    return &r->probs.tok[i * (1 + r->probs.topn) + j];
}

static void expect_tok(const struct reply *r, size_t i, size_t j,
                       uint32_t id, float lp, const char *text, size_t len)
{
    const struct reply_tok *t = tok(r, i, j);

    assert_int_equal(t->id, id);
    assert_true(t->lp == lp);
    assert_int_equal(t->len, len);
    assert_memory_equal(r->probs.text.p + t->text, text, len);
}

static void test_logprobs(void **state)
{
    struct reply r;
    unsigned char *rec = NULL;
    size_t len, size;

    (void)state;
    reply_init(&r, 1 << 20);
    reply_want_probs(&r, 3);
    take(&r, with_probs);
    assert_int_equal(reply_outcome(&r), REPLY_FINISHED);
    assert_int_equal(r.probs.ntok, 3);
    assert_int_equal(r.probs.seen, 3);
    assert_int_equal(r.probs.flags, 0);
    expect_tok(&r, 0, 0, 71, -0.25f, "Hm", 2);
    expect_tok(&r, 0, 2, 9, -1.5f, "So", 2);
    assert_true(isinf(tok(&r, 0, 3)->lp) && tok(&r, 0, 3)->lp < 0);
    expect_tok(&r, 0, 3, 4, -INFINITY, "x", 1);
    expect_tok(&r, 1, 0, 300, -2.0f, "\xe2\x80", 2); /* the bytes */
    expect_tok(&r, 1, 1, 301, -0.5f, "a", 1);        /* the token */
    expect_tok(&r, 1, 2, 302, -1.0f, "b", 1);
    assert_int_equal(tok(&r, 1, 3)->id, GRADER_PROBS_NONE); /* padding */
    assert_true(isinf(tok(&r, 1, 3)->lp));
    expect_tok(&r, 2, 0, 55, 0.0f, "7", 1);
    assert_int_equal(tok(&r, 2, 2)->id, GRADER_PROBS_NONE);
    /* the record: what the codec frames, of the size it says */
    assert_int_equal(reply_probs_record(&r, "q1", &rec, &len), 0);
    assert_int_equal(grader_probs_record_size(rec, len, &size), 0);
    assert_int_equal(size, len);
    assert_memory_equal(rec, GRADER_PROBS_MAGIC, 4);
    assert_int_equal(rec[8], 2);
    assert_memory_equal(rec + 9, "q1", 2);
    assert_int_equal(rec[11], 3); /* N */
    free(rec);
    assert_int_equal(reply_probs_record(&r, "", &rec, &len), -1);
    assert_null(rec);
    reply_release(&r);
    /* not asked: the entries are not kept, nor looked at */
    reply_init(&r, 1 << 20);
    take(&r, with_probs);
    assert_int_equal(r.probs.ntok, 0);
    assert_int_equal(r.probs.seen, 0);
    reply_release(&r);
}

/* A logprobs entry that is not what the servers send is a broken stream
 * (bad_stream), as a malformed chunk is: never an answer kept with a
 * hole in its tokens. */
static void test_logprobs_malformed(void **state)
{
    static const char *const bad[] = {
        "\"logprobs\":5",
        "\"logprobs\":{\"content\":{}}",
        "\"logprobs\":{\"content\":[7]}",
        "\"logprobs\":{\"content\":[{\"logprob\":-1}]}",
        "\"logprobs\":{\"content\":[{\"id\":-1,\"logprob\":-1}]}",
        "\"logprobs\":{\"content\":[{\"id\":4294967295,\"logprob\":-1}]}",
        "\"logprobs\":{\"content\":[{\"id\":1,\"logprob\":\"-1\"}]}",
        "\"logprobs\":{\"content\":[{\"id\":1}]}",
        "\"logprobs\":{\"content\":[{\"id\":1,\"logprob\":0.5}]}",
        "\"logprobs\":{\"content\":[{\"id\":1,\"logprob\":-1,\"bytes\":"
        "[300]}]}",
        "\"logprobs\":{\"content\":[{\"id\":1,\"logprob\":-1,\"bytes\":"
        "\"ab\"}]}",
        "\"logprobs\":{\"content\":[{\"id\":1,\"logprob\":-1,\"token\":5}]}",
        "\"logprobs\":{\"content\":[{\"id\":1,\"logprob\":-1,"
        "\"top_logprobs\":{}}]}",
        "\"logprobs\":{\"content\":[{\"id\":1,\"logprob\":-1,"
        "\"top_logprobs\":[{\"logprob\":-1}]}]}",
    };
    char ev[512], msg[256];
    struct reply r;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        reply_init(&r, 1 << 20);
        reply_want_probs(&r, 2);
        snprintf(ev, sizeof(ev),
                 "{\"choices\":[{\"delta\":{\"content\":\"a\"},%s}]}", bad[i]);
        msg[0] = '\0';
        if (reply_event(&r, ev, strlen(ev), msg, sizeof(msg)) != REPLY_EBAD)
            fail_msg("taken: %s", bad[i]);
        assert_non_null(strstr(msg, "logprobs"));
        assert_string_equal(reply_error_kind(REPLY_EBAD), "bad_stream");
        reply_release(&r);
    }
}

/* One stream of chunks (each "DELTA|LOGPROBS", LOGPROBS the entries'
 * list or "" for none) into a fresh reply asking N 2; returns what
 * probs.bad says ("" when the entries match the text). */
static const char *mismatch(const char *const *chunks, size_t n)
{
    static char bad[200];
    char ev[1024], msg[256];
    struct reply r;

    reply_init(&r, 1 << 20);
    reply_want_probs(&r, 2);
    for (size_t i = 0; i < n; i++) {
        const char *bar = strchr(chunks[i], '|');
        if (bar[1] == '\0')
            snprintf(ev, sizeof(ev), "{\"choices\":[{\"delta\":%.*s}]}",
                     (int)(bar - chunks[i]), chunks[i]);
        else
            snprintf(ev, sizeof(ev),
                     "{\"choices\":[{\"delta\":%.*s,\"logprobs\":{"
                     "\"content\":[%s]}}]}",
                     (int)(bar - chunks[i]), chunks[i], bar + 1);
        if (reply_event(&r, ev, strlen(ev), msg, sizeof(msg)) != 0)
            fail_msg("%s: %s", ev, msg);
    }
    snprintf(bad, sizeof(bad), "%s", r.probs.bad);
    reply_release(&r);
    return bad;
}

#define E(id, text) "{\"id\":" #id ",\"token\":\"" text "\",\"logprob\":-1}"
#define TOP(a, b)                                                             \
    "{\"id\":" #a ",\"token\":\"x\",\"logprob\":-1,\"top_logprobs\":["        \
    "{\"id\":" #a ",\"logprob\":-1},{\"id\":" #b ",\"logprob\":-2}]}"

/* The entries are reconciled with the reply's text: a hole (a chunk of
 * text without entries between chunks of the same text with them),
 * several entries whose bytes outrun their chunk's text, and a top N
 * naming one id twice are each said in probs.bad (the runner refuses the
 * rung on it). What both lineages send passes: one entry a chunk whose
 * bytes differ from the chunk's text (a held UTF-8 sequence or stop
 * string released with the next token), several entries that are the
 * chunk's text (the fork's held tokens), a reasoning chunk without
 * entries before the content chunk that carries them (one token, two
 * diffs), and chunks without entries at the end (the final result's
 * diffs). */
static void test_logprobs_mismatch(void **state)
{
    static const char *const hole[] = {"{\"content\":\"ab\"}|" E(1, "ab"),
                                       "{\"content\":\"cd\"}|",
                                       "{\"content\":\"ef\"}|" E(3, "ef")};
    static const char *const dups[] = {
        "{\"content\":\"ab\"}|" E(1, "ab"),
        "{\"content\":\"swer\"}|" E(2, "swer") "," E(2, "swer") "," E(2,
                                                                      "swer")};
    static const char *const top[] = {"{\"content\":\"x\"}|" TOP(7, 7)};
    static const char *const fine[] = {
        "{\"reasoning_content\":\"hm\"}|" E(1, "hm"),
        "{\"reasoning_content\":\" so\"}|",
        "{\"content\":\"The\"}|" E(2, " The"),
        "{\"content\":\"\\u00e9\"}|" E(3, "?"),
        "{\"content\":\"abcd\"}|" E(4, "ab") "," E(5, "cd"),
        "{\"content\":\"x\"}|" TOP(7, 8),
        "{\"content\":\" tail\"}|",
        "{\"content\":\" end\"}|"};

    (void)state;
    assert_non_null(strstr(mismatch(hole, 3), "without log-probabilities"));
    assert_non_null(strstr(mismatch(dups, 2), "3 entries"));
    assert_non_null(strstr(mismatch(top, 1), "token 7 twice"));
    assert_string_equal(mismatch(fine, 8), "");
}

/* A chunk of tool calls has no text of its own: its entries (the raw
 * text the calls were parsed from, several for a head delta) are kept as
 * they come, not held to the deltas' bytes, and counted in calls_seen;
 * calls without entries leave calls_seen 0 (the runner refuses such a
 * reply). Was: "3 entries for a chunk of 0 bytes of text". */
static void test_logprobs_calls(void **state)
{
    static const char *const chunks[] = {
        "{\"content\":\"ok\"}|" E(1, "ok"),
        "{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"f\","
        "\"arguments\":\"{\"}}]}|" E(2, "{\\\"name") "," E(
            3, "\\\": \\\"f") "," E(4, "\\\", \\\"parameters\\\": {"),
        "{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":"
        "\"}\"}}]}|" E(5, "}}"),
        "{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":"
        "\"\"}}]}|"};
    char ev[1024], msg[256];
    struct reply r;
    size_t k;

    (void)state;
    for (k = 0; k < 2; k++) {
        reply_init(&r, 1 << 20);
        reply_want_probs(&r, 2);
        for (size_t i = 0; i < 4; i++) {
            const char *bar = strchr(chunks[i], '|');
            if (bar[1] == '\0' || (k == 1 && i > 0))
                snprintf(ev, sizeof(ev), "{\"choices\":[{\"delta\":%.*s}]}",
                         (int)(bar - chunks[i]), chunks[i]);
            else
                snprintf(ev, sizeof(ev),
                         "{\"choices\":[{\"delta\":%.*s,\"logprobs\":{"
                         "\"content\":[%s]}}]}",
                         (int)(bar - chunks[i]), chunks[i], bar + 1);
            if (reply_event(&r, ev, strlen(ev), msg, sizeof(msg)) != 0)
                fail_msg("%s: %s", ev, msg);
        }
        assert_string_equal(r.probs.bad, "");
        assert_int_equal(r.ncalls, 1);
        assert_string_equal(r.calls[0].args.p, "{}");
        assert_int_equal(r.probs.ntok, k == 0 ? 5 : 1);
        assert_int_equal(r.probs.calls_seen, k == 0 ? 4 : 0);
        if (k == 0)
            expect_tok(&r, 3, 0, 4, -1.0f, "\", \"parameters\": {", 18);
        reply_release(&r);
    }
}

/* Tokens past GRADER_PROBS_TOKENS_MAX are dropped and the answer marked
 * CUT; a text past 255 bytes is cut there. Memory stays one record's. */
static void test_logprobs_cap(void **state)
{
    size_t n = GRADER_PROBS_TOKENS_MAX + 5, i;
    struct buf ev = {0};
    char msg[256], one[64], longtok[400];
    struct reply r;

    (void)state;
    buf_init(&ev, 1u << 30);
    buf_puts(&ev, "{\"choices\":[{\"delta\":{},\"logprobs\":{\"content\":[");
    for (i = 0; i < n; i++) {
        snprintf(one, sizeof(one), "%s{\"id\":%zu,\"logprob\":-1}",
                 i ? "," : "", i);
        buf_puts(&ev, one);
    }
    buf_puts(&ev, "]}}]}");
    reply_init(&r, 1 << 20);
    reply_want_probs(&r, 1);
    assert_int_equal(reply_event(&r, ev.p, ev.len, msg, sizeof(msg)), 0);
    assert_int_equal(r.probs.ntok, GRADER_PROBS_TOKENS_MAX);
    assert_int_equal(r.probs.seen, n);
    assert_int_equal(r.probs.flags, GRADER_PROBS_CUT);
    assert_int_equal(tok(&r, GRADER_PROBS_TOKENS_MAX - 1, 0)->id,
                     GRADER_PROBS_TOKENS_MAX - 1);
    reply_release(&r);
    buf_release(&ev);
    memset(longtok, 'z', 300);
    longtok[300] = '\0';
    snprintf(msg, sizeof(msg), "%s", "");
    buf_init(&ev, 1u << 20);
    buf_puts(&ev, "{\"choices\":[{\"delta\":{},\"logprobs\":{\"content\":["
                  "{\"id\":1,\"logprob\":-1,\"token\":\"");
    buf_puts(&ev, longtok);
    buf_puts(&ev, "\"}]}}]}");
    reply_init(&r, 1 << 20);
    reply_want_probs(&r, 1);
    assert_int_equal(reply_event(&r, ev.p, ev.len, msg, sizeof(msg)), 0);
    assert_int_equal(tok(&r, 0, 0)->len, GRADER_PROBS_TEXT_MAX);
    assert_int_equal(r.probs.flags, 0);
    reply_release(&r);
    buf_release(&ev);
}

/* Tool calls as upstream streams them: the name in the first delta of an
 * index, the arguments' text over many deltas (split inside a JSON string
 * and between a character's escape and the next), two indexes
 * interleaved, content beside them, finish_reason "tool_calls". The text
 * is kept exactly as streamed, joined, never parsed. */
static const char tools_stream[] =
    "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":"
    "{\"role\":\"assistant\",\"content\":null}}]}\n\n"
    "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":"
    "{\"content\":\"Let me look.\"}}]}\n\n"
    "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":"
    "{\"tool_calls\":[{\"index\":0,\"id\":\"c0\",\"type\":\"function\","
    "\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"ci\"}}]}}]}"
    "\n\n"
    "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":"
    "{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":"
    "\"ty\\\": \\\"Z\\u00fc\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":"
    "{\"tool_calls\":[{\"index\":1,\"id\":\"c1\",\"type\":\"function\","
    "\"function\":{\"name\":\"get_time\",\"arguments\":\"\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":"
    "{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":"
    "\"rich\\\"}\"}},{\"index\":1,\"function\":{\"arguments\":"
    "\"{\\\"tz\\\":\\\"CET\\\"}\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"finish_reason\":\"tool_calls\",\"index\":0,"
    "\"delta\":{}}]}\n\n"
    "data: [DONE]\n\n";

static void test_tool_calls(void **state)
{
    struct reply r;

    (void)state;
    reply_init(&r, 1 << 20);
    take(&r, tools_stream);
    assert_int_equal(reply_outcome(&r), REPLY_FINISHED);
    assert_string_equal(r.finish, "tool_calls");
    assert_string_equal(r.content.p, "Let me look.");
    assert_int_equal(r.ncalls, 2);
    assert_string_equal(r.calls[0].name.p, "get_weather");
    assert_string_equal(r.calls[0].args.p, "{\"city\": \"Z\xc3\xbcrich\"}");
    assert_string_equal(r.calls[1].name.p, "get_time");
    assert_string_equal(r.calls[1].args.p, "{\"tz\":\"CET\"}");
    reply_release(&r);
    /* no tool call: none kept */
    reply_init(&r, 1 << 20);
    take(&r, upstream);
    assert_int_equal(r.ncalls, 0);
    reply_release(&r);
}

static void expect_tool_fault(size_t cap, const char *event, int code,
                              const char *words)
{
    struct reply r;
    char msg[256] = "";

    reply_init(&r, cap);
    if (reply_event(&r, event, strlen(event), msg, sizeof(msg)) != code ||
        strstr(msg, words) == NULL)
        fail_msg("'%s': got '%s', want %d and '%s'", event, msg, code, words);
    reply_release(&r);
}

#define TC(calls) "{\"choices\":[{\"delta\":{\"tool_calls\":" calls "}}]}"

/* Each malformed tool call is its own named fault: more than 64 indexes,
 * a NUL, text that is not text, no index, no list; arguments count
 * against the row's budget with the content (a reply over it: too_long,
 * nothing kept past it). */
static void test_tool_call_faults(void **state)
{
    struct reply r;
    char msg[256], ev[256];

    (void)state;
    expect_tool_fault(1 << 20,
                      TC("[{\"index\":64,\"function\":{\"name\":\"f\"}}]"),
                      REPLY_ECALLS, "more than 64 tool calls");
    assert_string_equal(reply_error_kind(REPLY_ECALLS), "too_many_calls");
    expect_tool_fault(1 << 20,
                      TC("[{\"index\":0,\"function\":{\"arguments\":"
                         "\"a\\u0000\"}}]"),
                      REPLY_ENUL, "\\u0000");
    expect_tool_fault(1 << 20,
                      TC("[{\"index\":0,\"function\":{\"arguments\":{}}}]"),
                      REPLY_EBAD, "\"arguments\" is not text");
    expect_tool_fault(1 << 20, TC("[{\"index\":0,\"function\":{\"name\":5}}]"),
                      REPLY_EBAD, "\"name\" is not text");
    expect_tool_fault(1 << 20, TC("[{\"function\":{\"name\":\"f\"}}]"),
                      REPLY_EBAD, "tool call without an \"index\"");
    expect_tool_fault(1 << 20, TC("[{\"index\":-1}]"), REPLY_EBAD,
                      "tool call without an \"index\"");
    expect_tool_fault(1 << 20, TC("{}"), REPLY_EBAD,
                      "\"tool_calls\" is not a list");
    expect_tool_fault(1 << 20, TC("[7]"), REPLY_EBAD,
                      "a tool call is not a JSON object");
    /* 63 is the last index taken */
    reply_init(&r, 1 << 20);
    snprintf(ev, sizeof(ev), "%s",
             TC("[{\"index\":63,\"function\":{\"name\":\"f\"}}]"));
    assert_int_equal(reply_event(&r, ev, strlen(ev), msg, sizeof(msg)), 0);
    assert_int_equal(r.ncalls, 64);
    assert_string_equal(r.calls[63].name.p, "f");
    assert_int_equal(r.calls[0].name.len, 0);
    reply_release(&r);
    /* the budget: a call's name and arguments escaped, and its braces */
    reply_init(&r, 60);
    snprintf(ev, sizeof(ev), "%s",
             TC("[{\"index\":0,\"function\":{\"name\":\"f\",\"arguments\":"
                "\"\\\"\\\"\"}}]"));
    assert_int_equal(reply_event(&r, ev, strlen(ev), msg, sizeof(msg)), 0);
    assert_int_equal(r.escaped, 27 + 1 + 4);
    assert_int_equal(reply_event(&r, ev, strlen(ev), msg, sizeof(msg)), 0);
    assert_int_equal(r.escaped, 27 + 1 + 8);
    snprintf(ev, sizeof(ev), "%s",
             TC("[{\"index\":0,\"function\":{\"arguments\":"
                "\"0123456789012345678901234\"}}]"));
    assert_int_equal(reply_event(&r, ev, strlen(ev), msg, sizeof(msg)),
                     REPLY_ETOOBIG);
    assert_string_equal(r.calls[0].args.p, "\"\"\"\"");
    reply_release(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_framing),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_upstream_stream),
        cmocka_unit_test(test_ik_stream),
        cmocka_unit_test(test_completion_stream),
        cmocka_unit_test(test_completion_hostile),
        cmocka_unit_test(test_absurd_timings),
        cmocka_unit_test(test_named_faults),
        cmocka_unit_test(test_delta_not_text),
        cmocka_unit_test(test_escaped_cap),
        cmocka_unit_test(test_fits),
        cmocka_unit_test(test_error_and_cut),
        cmocka_unit_test(test_logprobs),
        cmocka_unit_test(test_logprobs_malformed),
        cmocka_unit_test(test_logprobs_mismatch),
        cmocka_unit_test(test_logprobs_calls),
        cmocka_unit_test(test_logprobs_cap),
        cmocka_unit_test(test_tool_calls),
        cmocka_unit_test(test_tool_call_faults),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);

    buf_release(&seen);
    return rc;
}
