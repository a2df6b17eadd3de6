/*
 * error.h - the grader's error codes and the context that goes with them.
 *
 * Every grader function that can fail returns 0 or a negative GRADER_E*
 * code from one table (libuv's UV_ERRNO_MAP idea), and fills an optional
 * struct grader_error that the caller puts on the stack (jansson's
 * json_error_t idea): which file, which line, and one sentence.
 */
#ifndef GRADER_ERROR_H
#define GRADER_ERROR_H

#include <stddef.h>

/* X(name, message): the message is a fallback when no context was set. */
#define GRADER_ERRNO_MAP(X)                                                   \
    X(NOMEM, "out of memory")                                                 \
    X(IO, "input/output error")                                               \
    X(NOENT, "no such file")                                                  \
    X(PARSE, "malformed row")                                                 \
    X(TOOBIG, "row over the size cap")                                        \
    X(DUPID, "duplicate question id")                                         \
    X(REFMISMATCH, "reference answer differs between rungs")                  \
    X(MISSING, "questions missing")                                           \
    X(EXTRA, "questions the reference does not have")                         \
    X(ARG, "invalid argument")                                                \
    X(LIMIT, "pattern took too long")

enum grader_errno {
    GRADER_OK = 0,
#define GRADER__ENUM(name, msg) GRADER_E##name,
    GRADER__FIRST = -100,
    GRADER_ERRNO_MAP(GRADER__ENUM)
#undef GRADER__ENUM
};

#define GRADER_ERROR_TEXT 512
#define GRADER_ERROR_PATH 512

/* Filled by a failing call. line is 0 when the error is not about a line. */
struct grader_error {
    char file[GRADER_ERROR_PATH];
    long line;
    char text[GRADER_ERROR_TEXT];
};

/* The code's name ("PARSE") and its fallback message. Unknown codes give
 * "UNKNOWN" and "unknown error". */
const char *grader_err_name(int code);
const char *grader_strerror(int code);

/* Write "FILE:LINE: TEXT" (or "FILE: TEXT", or "TEXT") into buf. */
void grader_error_format(const struct grader_error *err, char *buf,
                         size_t size);

#endif
