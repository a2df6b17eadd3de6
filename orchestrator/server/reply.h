/*
 * reply.h - one streamed answer, put together from its SSE events.
 *
 * Each event of /v1/chat/completions is a JSON chunk: the role chunk,
 * content and reasoning_content deltas, the finish chunk (finish_reason,
 * and "timings" on the last chunk), an optional usage chunk, "[DONE]", or
 * an {"error": ...} event mid-stream. reply_event takes them in order and
 * keeps what a row needs; reply_outcome says whether the stream finished.
 * Both upstream llama.cpp and the ik_llama.cpp fork are handled (the fork
 * always says "stop" and sends no usage: truncation comes from the token
 * count reaching max_tokens). ../shared/reference/llama-server.md 3.3, 4.2.
 */
#ifndef REPLY_H
#define REPLY_H

#include <stddef.h>

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

struct reply {
    struct buf content, reasoning;  /* the deltas, joined */
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
};

/* cap: the most bytes content and reasoning may take together once
 * escaped as JSON strings (what a row holds: rows.h's cap less room for
 * the other fields). Counting escaped bytes, not raw ones, keeps a reply
 * of control characters (six bytes each as \u0001) within the row
 * reader's cap. */
void reply_init(struct reply *r, size_t cap);
void reply_release(struct reply *r);

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
 * "nul", "too_long". */
const char *reply_error_kind(int code);

enum reply_outcome reply_outcome(const struct reply *r);

/* Completion tokens: usage when sent, else timings.predicted_n, else -1. */
long long reply_tokens(const struct reply *r);

/* Whether the answer hit the cap: finish_reason "length", or completion
 * tokens reaching max_tokens (the ik fork says "stop" either way). */
int reply_truncated(const struct reply *r, long long max_tokens);

#endif
