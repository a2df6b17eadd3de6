/*
 * reply.h - one streamed answer, put together from its SSE events.
 *
 * Each event of /v1/chat/completions is a JSON chunk: the role chunk,
 * content, reasoning_content and tool_calls deltas (a tool item's calls,
 * docs/toolcalls.md), the finish chunk (finish_reason,
 * and "timings" on the last chunk), an optional usage chunk, "[DONE]", or
 * an {"error": ...} event mid-stream. reply_event takes them in order and
 * keeps what a row needs; reply_outcome says whether the stream finished.
 * Both upstream llama.cpp and the ik_llama.cpp fork are handled (the fork
 * always says "stop" and sends no usage: truncation comes from the token
 * count reaching max_tokens). ../shared/reference/llama-server.md 3.3, 4.2.
 * A /v1/completions stream (reply_want_text) is read the same way but for
 * its text: each chunk's choices[0].text, no delta, no reasoning, no tool
 * calls (docs/code.md, "Completion style").
 */
#ifndef REPLY_H
#define REPLY_H

#include <stddef.h>
#include <stdint.h>

#include "../../grader/grader.h"
#include "../../grader/grader.h"
#include "../../util/util.h"

/* What a reply's content and reasoning may take in a row, JSON-escaped:
 * the row reader's cap less room for the other fields (the id is at most
 * 256 bytes, 1.5 KiB escaped). Every writer of rows keeps to it (the
 * runner, import), so the reader never refuses a row one of them wrote. */
#define REPLY_ROW_SLACK (64u << 10)
#define REPLY_ROW_CAP   (GRADER_ROW_MAX - REPLY_ROW_SLACK)

/* The error of a row that would still pass the reader's cap. */
#define REPLY_ROW_TOO_LONG "the row would be longer than the row reader's cap"

/* One token or alternative as streamed: its text is in the reply's
 * probs.text at offset text. */
struct reply_tok {
    uint32_t id; /* GRADER_PROBS_NONE: an alternative not sent */
    float lp;
    uint32_t text;
    uint8_t len;
};

/*
 * The log-probabilities of one answer ("logprobs": N asked): each token's
 * choices[0].logprobs.content[] entry, in order, reasoning tokens too.
 * Memory is one answer's: at most GRADER_PROBS_TOKENS_MAX tokens, and no
 * more than a record of GRADER_PROBS_RECORD_MAX bytes holds; tokens past
 * either are dropped and GRADER_PROBS_CUT set (the reply's text is kept
 * whole, as without logprobs).
 */
struct reply_probs {
    unsigned topn;            /* N asked, 0: off (entries are ignored) */
    unsigned flags;           /* GRADER_PROBS_CUT */
    size_t ntok;              /* tokens kept */
    size_t room;              /* tokens tok has room for */
    struct reply_tok *tok;    /* ntok * (1 + topn): the chosen token, then
                                 the top N as listed */
    size_t bytes;             /* what the kept tokens take in a record, at
                                 most (the chosen token's entry counted) */
    unsigned long seen;       /* entries streamed, kept or not */
    unsigned long calls_seen; /* those on chunks of tool calls */
    struct buf text;          /* the tokens' texts */
    int hole;                 /* a chunk of text came without entries: 1
                                 content, 2 reasoning, 0 none pending */
    char bad[200];            /* how the entries do not match the reply's
                                 text, "" when they do (reply_want_probs) */
};

/* The most tool calls one reply may make (indexes 0 to 63). */
#define REPLY_CALLS_MAX 64

/* What one tool call takes in a row beside its name and arguments,
 * escaped: {"name":"","arguments":""} and a comma. */
#define REPLY_CALL_ROOM 27

/* One tool call as streamed (choices[0].delta.tool_calls[] of one
 * "index"): its function's name (the first sent) and its arguments' text
 * exactly as streamed, the pieces joined, never parsed. */
struct reply_call {
    struct buf name, args;
};

struct reply {
    struct buf content, reasoning;  /* the deltas, joined */
    struct reply_call *calls;       /* tool calls by index, or NULL */
    size_t ncalls;                  /* 1 + the highest index seen */
    size_t cap;                     /* most bytes content and reasoning
                                       may take in a row, JSON-escaped */
    size_t escaped;                 /* what they take now */
    unsigned long progress;         /* pieces of text, finish, timings:
                                       grows only when tokens come */
    char finish[16];                /* finish_reason, "" until seen */
    int done;                       /* "data: [DONE]" was seen */
    int events;                     /* events taken */
    long long completion_tokens;    /* usage.completion_tokens, or -1 */
    long long predicted_n;          /* timings.predicted_n, or -1 */
    long long prompt_n;             /* timings.prompt_n, or -1 */
    double decode_tps;              /* timings.predicted_per_second, or -1 */
    double prompt_ms, predicted_ms; /* timings, or -1 */
    char *error;                    /* message of an error event, or NULL */
    struct reply_probs probs;       /* "logprobs": N asked */
    int completion;                 /* a /v1/completions stream: the text
                                       is choices[0].text */
};

enum reply_outcome {
    REPLY_FINISHED, /* a finish_reason and/or [DONE]: a whole answer */
    REPLY_ERROR,    /* the server sent an error event */
    REPLY_CUT,      /* the stream ended with neither: a failure */
};

/* What is wrong with an event: each is its own fault in a row. */
enum {
    REPLY_EBAD = -1,    /* not a chat-completion chunk (not JSON, no
                           "choices") */
    REPLY_EUTF8 = -2,   /* not valid UTF-8 */
    REPLY_ENUL = -3,    /* a \u0000 in it */
    REPLY_ETOOBIG = -4, /* the answer would not fit in a row */
    REPLY_ECALLS = -5,  /* a tool call's index past REPLY_CALLS_MAX */
};

/* cap: the most bytes content and reasoning may take together once
 * escaped as JSON strings (what a row holds: rows.h's cap less room for
 * the other fields). Counting escaped bytes, not raw ones, keeps a reply
 * of control characters (six bytes each as \u0001) within the row
 * reader's cap. */
void reply_init(struct reply *r, size_t cap);
void reply_release(struct reply *r);

/* Read r's events as /v1/completions sends them: each chunk's
 * choices[0].text is the reply's content (a delta is not read). Call
 * after reply_init. */
void reply_want_text(struct reply *r);

/* Ask for the tokens' log-probabilities: topn (1..GRADER_PROBS_TOPN_MAX)
 * alternatives each; 0 leaves them off. Call after reply_init. With it
 * on, an event whose choices[0].logprobs is not what both lineages send
 * (docs/rows.md, "The probs file") is REPLY_EBAD, a "bad_stream" row like
 * any other malformed chunk: an answer is never kept with a hole in its
 * tokens. */
void reply_want_probs(struct reply *r, unsigned topn);

/*
 * The record of r's tokens as question id's (grader_probs_encode): a new
 * buffer in *out (free()) of *len bytes. Returns 0, or -1 when the record
 * breaks a cap of probs.h (an id of 0 or over 255 bytes).
 */
int reply_probs_record(const struct reply *r, const char *id,
                       unsigned char **out, size_t *len);

/*
 * Take one event's data. Returns 0, or one of REPLY_E* with a message in
 * msg.
 */
int reply_event(struct reply *r, const char *data, size_t len, char *msg,
                size_t msgsize);

/* The bytes text takes as a JSON string's contents (jansson's escapes:
 * '"', '\\' and \b \f \n \r \t in two, other controls in six). */
size_t reply_escaped_len(const char *text, size_t len);

/* Whether content and reasoning (either NULL) fit cap once escaped, the
 * same count reply_event keeps: 0, or REPLY_ETOOBIG with the message a
 * streamed reply gets (a row's error, error_kind "too_long"). */
int reply_fits(const char *content, size_t clen, const char *reasoning,
               size_t rlen, size_t cap, char *msg, size_t msgsize);

/* The fault's name in a row's error_kind: "bad_stream", "bad_utf8",
 * "nul", "too_long", "too_many_calls". */
const char *reply_error_kind(int code);

enum reply_outcome reply_outcome(const struct reply *r);

/* Completion tokens: usage when sent, else timings.predicted_n, else -1. */
long long reply_tokens(const struct reply *r);

/* Whether the answer hit the cap: finish_reason "length", or completion
 * tokens reaching max_tokens (the ik fork says "stop" either way). */
int reply_truncated(const struct reply *r, long long max_tokens);

#endif
