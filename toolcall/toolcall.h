/*
 * toolcall.h - a model's tool calls graded the way BFCL's AST checker
 * grades them (the Berkeley Function Calling Leaderboard, gorilla's
 * bfcl_eval/eval_checker/ast_eval/ast_checker.py; docs/grading.md, "Tool
 * calls (BFCL's AST checker)"), with one failure bucket of a fixed
 * taxonomy when they are wrong (issue 37).
 *
 * Every input is text the caller keeps: the item's function docs and
 * possible answers as JSON, the model's calls as the JSON list an
 * OpenAI-style server gave ({"name", "arguments": "TEXT"}, TEXT as
 * streamed), its content as plain bytes. Nothing parsed outlives a call.
 *
 * A library of its own (toolcall/, libtoolcall.a): libc and jansson, no
 * file, nothing of the orchestrator's, so that the grader may link it.
 * Every input has a cap (TOOLCALL_MAX_*): the model's side past one is a
 * bucket (TOOLCALL_OVER_CAP), the item's side an error; never a crash.
 */
#ifndef TOOLCALL_H
#define TOOLCALL_H

#include <stddef.h>

#define TOOLCALL_MAX_ARGS    ((size_t)1 << 20) /* one call's arguments */
#define TOOLCALL_MAX_CALLS   64                /* calls of one reply */
#define TOOLCALL_MAX_DEPTH   32                /* nesting of any JSON */
#define TOOLCALL_MAX_REPLY   ((size_t)8 << 20) /* the calls' JSON text */
#define TOOLCALL_MAX_CONTENT ((size_t)1 << 20) /* content read for leaks */
#define TOOLCALL_MAX_ITEM    ((size_t)1 << 20) /* the docs', the answers' */
#define TOOLCALL_DETAIL      200               /* a detail, NUL included */

/*
 * The failure buckets, in their precedence (the first that applies is
 * the one given): X(NAME, "stable name", meaning). The names are a
 * contract of rows and reports: never renamed, only added.
 */
#define TOOLCALL_BUCKETS(X)                                                   \
    X(RIGHT, "right", "the calls are right")                                  \
    X(NO_CALL, "no_call", "no call where one was expected")                   \
    X(LEAKED, "leaked_call", "a call written as text in the content")         \
    X(MALFORMED, "malformed_call",                                            \
      "arguments that are not a JSON object, or an unclosed leaked tag")      \
    X(OVER_CAP, "over_cap", "a call past a cap (size, count or nesting)")     \
    X(UNKNOWN_FUNCTION, "unknown_function", "a function the item lacks")      \
    X(WRONG_FUNCTION, "wrong_function",                                       \
      "a function of the item, not the one asked")                            \
    X(WRONG_ARGS, "wrong_arguments", "an argument missing or not expected")   \
    X(WRONG_TYPE, "wrong_type", "an argument of the wrong type")              \
    X(WRONG_VALUE, "wrong_value", "an argument with a value not accepted")    \
    X(WRONG_COUNT, "wrong_count", "too many or too few calls")                \
    X(CALL_NOT_EXPECTED, "call_not_expected", "a call where none is right")

enum toolcall_bucket {
#define TOOLCALL__B(name, str, text) TOOLCALL_##name,
    TOOLCALL_BUCKETS(TOOLCALL__B)
#undef TOOLCALL__B
        TOOLCALL_NBUCKETS
};

/* A bucket's stable name ("wrong_type"), or NULL out of range. */
const char *toolcall_bucket_name(enum toolcall_bucket bucket);
/* The bucket called name: 0 and *out, or TOOLCALL_EARG. */
int toolcall_bucket_parse(const char *name, enum toolcall_bucket *out);

/* The errors (about the item or the call, never the model's reply), as
 * libuv's UV_ERRNO_MAP: code, name, message. */
#define TOOLCALL_ERRORS(X)                                                    \
    X(EARG, -1, "bad argument")                                               \
    X(ENOMEM, -2, "out of memory")                                            \
    X(ECAP, -3, "an item's text over a cap")                                  \
    X(EDOCS, -4, "function docs that are not a list of functions")            \
    X(EANSWERS, -5, "possible answers that are not a list of calls")          \
    X(EUNKNOWN, -6, "a possible answer names an unknown function")

enum {
#define TOOLCALL_X(name, code, text) TOOLCALL_##name = (code),
    TOOLCALL_ERRORS(TOOLCALL_X)
#undef TOOLCALL_X
};

/* The message of an error code ("unknown error" for another). */
const char *toolcall_strerror(int code);

/*
 * The allocator (the grader's way, grader/alloc.h): toolcall's own
 * allocations go through these hooks (NULLs restore the C library's; not
 * thread-safe: set them before any other call). A caller may hand jansson
 * toolcall_alloc_malloc and toolcall_alloc_free (json_set_alloc_funcs):
 * then an allocation of jansson's that fails inside toolcall_check is
 * TOOLCALL_ENOMEM too, even one jansson reports as a syntax error or
 * survives by dropping a byte (its lexer's lex_save ignores a failed
 * append). toolcall_alloc_failures counts the failures on this thread.
 */
typedef void *(*toolcall_malloc_fn)(size_t size);
typedef void (*toolcall_free_fn)(void *ptr);
void toolcall_set_alloc(toolcall_malloc_fn m, toolcall_free_fn f);
void *toolcall_alloc_malloc(size_t size);
void toolcall_alloc_free(void *ptr);
unsigned long toolcall_alloc_failures(void);

/* How many calls the item wants: one (BFCL's simple and multiple) or a
 * set in any order (parallel, parallel_multiple); or as its possible
 * answers say (one when they list one call or none, else a set): what
 * an item that names no category of BFCL's means. */
enum toolcall_shape { TOOLCALL_ONE, TOOLCALL_PARALLEL, TOOLCALL_BY_ANSWERS };

/* The item: borrowed text, the caller's. An empty list of answers ("[]")
 * means no call is right (BFCL's irrelevance). */
struct toolcall_item {
    const char *docs; /* JSON: [{"type":"function","function":{...}}] or
                         BFCL's bare [{"name","parameters",...}] */
    size_t docs_len;
    const char *answers; /* JSON: [{"fname": {"arg": [accepted...]}}] */
    size_t answers_len;
    enum toolcall_shape shape;
};

/* The model's reply: borrowed. calls NULL (or calls_len 0) when the
 * server gave no structured call; content NULL when it gave none. */
struct toolcall_reply {
    const char *calls; /* JSON: [{"name": "...", "arguments": "TEXT"}] */
    size_t calls_len;
    const char *content; /* the message's text, any bytes */
    size_t content_len;
};

/* The verdict: right iff bucket is TOOLCALL_RIGHT. call is the model's
 * call the bucket is about (0-based), -1 when none; detail one sentence,
 * lower-case, its subject quoted. */
struct toolcall_result {
    enum toolcall_bucket bucket;
    int call;
    char detail[TOOLCALL_DETAIL];
};

/* An error's context, on the caller's stack: one sentence. */
struct toolcall_error {
    char text[TOOLCALL_DETAIL];
};

/*
 * Grade reply against item. Returns 0 and fills *res (any reply, however
 * hostile, is a verdict), or a negative TOOLCALL_E* code when the item
 * is unusable (docs or answers not in shape, past a cap, an answer that
 * names a function the docs lack) or an allocation failed; err (may be
 * NULL) then says which function, call or parameter.
 */
int toolcall_check(const struct toolcall_item *item,
                   const struct toolcall_reply *reply,
                   struct toolcall_result *res, struct toolcall_error *err);

/*
 * The reply's calls as one short line for a report, in out[0..outsize)
 * (outsize 12 or more): "name(ARGS); name2(ARGS)", each ARGS the call's
 * arguments re-serialised compactly with their keys sorted (so that two
 * servers' spacing or key order reads as one answer), or its text as
 * sent when that is not JSON. A longer line is cut at a character and
 * ends "~" and 8 hex digits of a hash of the whole line, so that two
 * different lines stay apart. Control characters become spaces.
 * Returns the number of calls (0, out "", when none), TOOLCALL_EARG when
 * the calls are not a list of {"name", "arguments"} under the caps
 * (out ""), or TOOLCALL_ENOMEM.
 */
int toolcall_summary(const struct toolcall_reply *reply, char *out,
                     size_t outsize);

#endif
