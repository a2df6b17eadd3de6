/*
 * internal.h - what toolcall.c and check.c share: the Python types of
 * BFCL's checker, an item's function docs and answers once read, and
 * the one call's check (check.c, BFCL's simple_function_checker).
 */
#ifndef TOOLCALL_INTERNAL_H
#define TOOLCALL_INTERNAL_H

#include <jansson.h>

#include "toolcall.h"

/* The Python type a JSON value decodes to (json.loads), and the one a
 * schema type asks (BFCL's PYTHON_TYPE_MAPPING; "number" as "float",
 * "object" as "dict", the OpenAI names of BFCL's own). */
enum toolcall__pt {
    TOOLCALL__NONE, /* no type: no nested type asked, no answer's type */
    TOOLCALL__NULL, /* null (Python's NoneType) */
    TOOLCALL__STR,
    TOOLCALL__INT,
    TOOLCALL__FLOAT,
    TOOLCALL__BOOL,
    TOOLCALL__LIST,
    TOOLCALL__DICT
};

/* The Python type of value (bool is not int). */
enum toolcall__pt toolcall__pytype(const json_t *value);

/* The Python type a schema's "type" name asks: 0 and *out, or -1 for a
 * name BFCL does not know. */
int toolcall__schema_type(const char *name, enum toolcall__pt *out);

/* One call of the model, decoded: name borrowed from the reply's JSON,
 * args new (NULL when the call was refused: bucket says why). */
struct toolcall__call {
    const char *name;
    json_t *args;
    enum toolcall_bucket bucket; /* RIGHT while it may still be checked */
    char why[TOOLCALL_DETAIL];
};

/*
 * BFCL's simple_function_checker on one call: params is the function
 * doc's "parameters" object (borrowed, shapes checked by toolcall.c),
 * args the call's arguments, answer the possible answer's {"arg":
 * [accepted...]} object. Returns TOOLCALL_RIGHT, WRONG_ARGS, WRONG_TYPE
 * or WRONG_VALUE, in that precedence (every name first, then every type,
 * then every value), why filled on a failure; TOOLCALL_ENOMEM (negative,
 * as an int) when an allocation failed.
 */
int toolcall__check_call(const json_t *params, const json_t *args,
                         const json_t *answer, char *why, size_t why_size);

/* n zeroed bytes through toolcall_set_alloc's hooks (counted), or NULL;
 * toolcall__free gives them back. */
void *toolcall__alloc(size_t n);
void toolcall__free(void *p);

/* A json_loadb that failed with je (zeroed before it), with failures
 * the count of toolcall_alloc_failures() before it, failed for memory:
 * jansson said so, or one of its allocations through toolcall's hooks
 * failed (jansson reports some as syntax errors). 1, or 0. */
int toolcall__oom(const json_error_t *je, unsigned long failures);

/* BFCL's standardize_string: ' ,./-_*^' removed, lower-cased (ASCII,
 * Latin-1 and Cyrillic capitals), ' made ". Returns a new string of
 * *out_len bytes (NUL-terminated), or NULL out of memory. */
char *toolcall__standardize(const char *s, size_t len, size_t *out_len);

/* The deepest nesting of [ and { in JSON text s[0..n), counted up to
 * cap + 1 (strings and escapes skipped), without parsing it (summary.c):
 * what jansson would recurse through, checked before it is asked to. */
size_t toolcall__json_depth(const char *s, size_t n, size_t cap);

/* Python's == on two decoded values (1 == 1.0 == True, [1] == [1.0]). */
int toolcall__py_eq(const json_t *a, const json_t *b);

#endif
