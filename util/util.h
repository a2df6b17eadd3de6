/*
 * util.h - the orchestrator's small helpers: allocation that ends the
 * program with a message when memory runs out (redis's zmalloc policy for
 * a program; the grader, a library, returns an error instead), and a
 * growable byte buffer with a cap of its own (curl's dynbuf).
 *
 * Every buffer has a cap. Text from outside (an HTTP body, a stream's
 * lines, a child's output) goes in through buf_add, which refuses what
 * would pass the cap and says so; text graveyard builds itself, bounded
 * by construction, goes through buf_append, for which passing the cap is
 * a bug that ends the program with a message.
 */
#ifndef UTIL_H
#define UTIL_H

#include <stddef.h>

/* Allocation that ends the program with a message on out of memory. */
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);

/* Out of memory where a library (jansson) allocated: the message names
 * what was being made, then the program ends. */
void util_oom(const char *what) __attribute__((noreturn));

/* The cap of a buffer whose max is 0 (zero-initialised). */
#define BUF_MAX_DEFAULT (64u << 20)

/* A growable byte buffer, NUL-terminated once used. Zero-initialised it is
 * empty with the default cap; buf_init sets another. */
struct buf {
    char *p;
    size_t len, cap;
    size_t max; /* most bytes it may hold (0: BUF_MAX_DEFAULT) */
};

void buf_init(struct buf *b, size_t max);

/* Append s[0..n): 0, or -1 when the buffer would pass its max (nothing
 * is appended then). */
int buf_add(struct buf *b, const char *s, size_t n)
    __attribute__((warn_unused_result));

/* Append what must fit: past the max is a bug, reported, and the end. */
void buf_append(struct buf *b, const char *s, size_t n);
void buf_puts(struct buf *b, const char *s);

void buf_release(struct buf *b);

/*
 * s[0..n), text from outside (a server's or a tool's log line, a GGUF's
 * tensor name or key-value), as text to show: a control character (a tab
 * stays), DEL, a C1 control and each byte that is not UTF-8 become \xNN
 * (ESC is \x1b), so that what is shown never drives the terminal it is
 * shown on and is always one line of UTF-8. The one rule for such text
 * (util/printable.c). Into out (NUL-terminated, cut before a character
 * or escape that would not fit); returns the length written. A backslash
 * is kept as it is: the shown text is for a person, not a lossless
 * encoding.
 */
size_t util_printable(const char *s, size_t n, char *out, size_t size);

/* The most bytes a path may hold (the char[4200] paths were kept in, less
 * its NUL; rundir's RUNDIR_PATH_MAX is the same). */
#define BUF_PATH_MAX 4199

/*
 * A path formatted into b, emptied first; b's max becomes BUF_PATH_MAX
 * when it was 0. Returns 0, or -1 when the path passes the cap (b->p is
 * then ""): a truncated path would name another file, so the caller
 * refuses with a message naming the path's start. The caller releases b.
 */
int buf_path(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), warn_unused_result));

#endif
