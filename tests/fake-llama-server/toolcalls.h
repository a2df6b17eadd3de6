/*
 * toolcalls.h - the fake llama-server's tool calls (issue 37,
 * docs/fake-llama-server.md "Tool calls"): a reply rule's "tool_calls"
 * streamed as upstream streams them, each call's name in the first delta
 * of its index and its arguments' text over many deltas, cut where the
 * script says (inside a JSON string, inside a UTF-8 character: the raw
 * bytes are sent as they are, as a broken server would), or in pieces of
 * "chunk" bytes that never cut a character (as the real server does).
 */
#ifndef FAKE_TOOLCALLS_H
#define FAKE_TOOLCALLS_H

#include <jansson.h>
#include <stdio.h>

/* Called with one event's data (a chunk's JSON, not NUL-free in general:
 * it is the text as made, with raw bytes where the script cut a
 * character). */
typedef void (*fake_event_cb)(void *ctx, const char *data);

/* The choices[0].logprobs of a chunk whose tokens spell raw[0..n), as
 * compact JSON (new: free()), or NULL for a chunk without them. */
typedef char *(*fake_lp_cb)(void *ctx, const char *raw, size_t n);

/* The rule's "tool_calls" (absent: none) for request req: streamed only
 * when req carries "tools" (logged either way, with tool_choice), each
 * piece one "token" taken from *left. With lp (the model file's
 * "logprobs_calls" and a request for them), each delta carries the
 * log-probabilities of the model's raw generated text it came of, as
 * Llama 3.1's template has it written: the first delta of a call the
 * tokens of '{"name": "NAME", "parameters": ' and its piece, the last
 * also the closing '}', the others their piece's. Returns the pieces
 * sent; *calls the calls begun (0: finish as a plain reply). */
size_t fake_tool_calls(json_t *req, json_t *rule, size_t *left,
                       fake_event_cb add, fake_lp_cb lp, void *ctx, FILE *log,
                       int *calls);

/* What both lineages answer, as HTTP 500, a request whose "tools" (a
 * list, not empty) or "tool_choice" (other than "auto") a server with its
 * chat templates off (jinja 0) cannot take: "tools param requires --jinja
 * flag" (upstream server-common.cpp, the fork the same; seen on ik
 * 8337e4cd). NULL when it takes it. */
const char *fake_tools_refused(json_t *req, int jinja);

/* 1 when a build that refuses log-probabilities beside tools on a stream
 * (status: the model file's "logprobs_tools", 400 upstream's, 500 the
 * fork's; 0 a build that takes them) refuses req: "tools" a list, not
 * empty, "logprobs" true and "stream" true ("logprobs is not supported
 * with tools + stream", upstream a135ec0ba and ik 8337e4cd alike). */
int fake_tools_logprobs_refused(json_t *req, long status);

#endif
