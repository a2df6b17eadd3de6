/*
 * tokenize.h - a llama-server's own count of a text's tokens, asked of its
 * POST /tokenize (both lineages: {"content": TEXT, "add_special": false}
 * in, {"tokens": [...]} out; ../shared/reference/llama-server.md).
 *
 * For the commands that make long items (cmd_long.c): a length of "16K"
 * is 16K tokens of the model the server holds. The client runs a loop of
 * its own for each count, so its caller blocks, as a command may; no room
 * whose code runs on the runner's loop calls it.
 *
 * A struct tokenizer holds the loop, the HTTP client and, from
 * tokenize_serve, the server it started, from open to tokenize_close.
 */
#ifndef TOKENIZE_H
#define TOKENIZE_H

#include <stddef.h>

/* A reply of /tokenize is at most this long (a 2^24-token prompt's ids, 9
 * bytes each with the comma, and room). */
#define TOKENIZE_REPLY_MAX ((size_t)160 << 20)

struct tokenizer;

/* A client of the server at base ("http://127.0.0.1:8080", no trailing
 * path); timeout_ms bounds each count. NULL with a message in msg. */
struct tokenizer *tokenize_open(const char *base, long timeout_ms, char *msg,
                                size_t msgsize);
/*
 * A server of o's rung started here to count (graveyard long --config,
 * and the ladder making a config's "lengths"): o's binary, model,
 * arguments and environment as the rung's own server gets them (launch.h:
 * 127.0.0.1, a session of its own, killed if we die), its output into a
 * capped log at log (o->log_cap), its /health waited for within
 * o->health_timeout_s. tokenize_close stops it (SIGTERM, then SIGKILL
 * after o->grace_ms) and waits for it. NULL with a message naming the
 * model and the log when it cannot start or is not ready.
 */
struct run_opts;
struct tokenizer *tokenize_serve(const struct run_opts *o, const char *log,
                                 long timeout_ms, char *msg, size_t msgsize);

/* Stops tokenize_serve's server first, when there is one. */
void tokenize_close(struct tokenizer *t);

/*
 * The server's count of text[0..len) (no BOS: add_special false, so the
 * count is the text's own; the chat template's tokens come on top, and
 * the row's prompt_tokens records the whole). 0 and *tokens, or -1 with
 * one line in msg naming the URL: no answer, an HTTP error (a build
 * without /tokenize answers 404), a reply that is not {"tokens": [...]},
 * or one over TOKENIZE_REPLY_MAX.
 */
int tokenize_count(struct tokenizer *t, const char *text, size_t len,
                   long *tokens, char *msg, size_t msgsize);

/* How many counts t made, and their seconds in all (for the summary). */
unsigned long tokenize_calls(const struct tokenizer *t);
double tokenize_seconds(const struct tokenizer *t);

#endif
