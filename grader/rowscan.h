/*
 * rowscan.h - a JSON parser made for one shape: a row, a flat JSON object
 * whose few fields the grader needs are strings, numbers, booleans or
 * null.
 *
 * Why not jansson here: the grader reads a million rows in seconds, and
 * jansson builds a tree with a hash table and a heap string per row, which
 * measured 70 % of bury's time at 59 MB/s (docs/performance.md). This
 * scanner validates the whole line as JSON (RFC 8259: structure, string
 * escapes, UTF-8, number grammar, duplicate keys), copies out only the
 * fields in struct grader_row, and skips every other value. It allocates
 * nothing per row: long strings are unescaped into two buffers that are
 * reused row after row (or pointed to in place when they have no escape).
 * tests/fuzz/fuzz_rowscan.c checks it against jansson on every input.
 */
#ifndef GRADER_ROWSCAN_H
#define GRADER_ROWSCAN_H

#include <stddef.h>

/* The fields of one row, borrowed from the line or the scanner's buffers:
 * valid until the next grader_rowscan call. Absent is the same as null. */
struct grader_row {
    const char *id; /* NULL when absent or null */
    size_t id_len;
    const char *ref; /* reference as written; an integer reference
                        is given as its digits */
    size_t ref_len;
    int ref_is_string; /* 0 when the reference was a JSON integer */
    const char *content, *reasoning; /* NULL when null */
    size_t content_len, reasoning_len;
    const char *finish; /* finish_reason, NULL when null or longer than
                           511 bytes */
    size_t finish_len;
    int finish_length; /* finish_reason is "length" */
    int has_error;     /* error is a string */
    const char *error; /* its text (the page shows it), NULL when null */
    size_t error_len;
    int truncated;        /* 1 true, 0 false or null */
    long long tokens;     /* completion_tokens, -1 when null */
    long long saved;      /* tokens_saved: what an answer cut short as a
                             loop did not spend of the cap, -1 when null */
    long long violations; /* the reply's breaches of the constraint the
                             request carried (a grammar, a JSON schema),
                             as the runner checked it; -1 when null (no
                             constraint, or none checked) */
    double tps;           /* decode_tps, -1 when null */
    double prompt_ms, predicted_ms; /* the server's timings, -1 when null */
    /* a long item's (docs/longctx.md): the prompt's target length in the
     * server's tokens and the asked needle's depth in %, -1 when null or
     * absent (every other row) */
    long long length, depth;
    /* a tool item's (docs/toolcalls.md): its "tool_calls" list as raw
     * JSON text in the line, NULL when null or absent */
    const char *calls;
    size_t calls_len;
    /* a code item's (docs/code.md): its recorded execution, "exec" (the
     * outcome's name, enum grader_exec_outcome; -1 when null or absent),
     * "tests_passed" and "tests_total" (-1 when null), "exception" and
     * "code_hash" (NULL when null; at most 511 bytes each) */
    int exec;
    long long tests_passed, tests_total;
    const char *output; /* "exec_output": the tail of what it printed,
                           NULL when null or absent */
    size_t output_len;
    const char *exception, *code_hash;
    size_t exception_len, code_hash_len;
};

#define GRADER_ROWSCAN_SMALL 512
/* a reference: a tool item's possible answers as compact JSON are one
 * (BFCL's longest, parallel_multiple's, is 1,393 bytes) */
#define GRADER_ROWSCAN_REF 4096

struct grader_rowscan {
    char *buf[4]; /* unescaped content, reasoning_content, error and
                     exec_output */
    size_t cap[4];
    /* id, reference, finish_reason and field names are unescaped here */
    char id[GRADER_ROWSCAN_SMALL], ref[GRADER_ROWSCAN_REF];
    char key[GRADER_ROWSCAN_SMALL], small[GRADER_ROWSCAN_SMALL];
    /* a code row's exception type and code hash */
    char exception[GRADER_ROWSCAN_SMALL], code_hash[GRADER_ROWSCAN_SMALL];
    /* a number too long for a small copy ("64.3000...0001" is valid
     * JSON, and strtod needs it whole to round as jansson does) */
    char *num;
    size_t numcap;
};

void grader_rowscan_init(struct grader_rowscan *s);
void grader_rowscan_release(struct grader_rowscan *s);

/*
 * Parse the row in p[0..len) (one line, no newline). Returns 0 and fills
 * row; GRADER_EPARSE with a message naming the column or field in msg;
 * GRADER_ENOMEM when a buffer cannot grow.
 */
int grader_rowscan(struct grader_rowscan *s, const char *p, size_t len,
                   struct grader_row *row, char *msg, size_t msgsize);

/* The scanner reads UTF-8 with pyre's pyre_utf8_seq (pyre/pyre.h). */

#endif
