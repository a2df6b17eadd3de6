/*
 * fuzz_rowscan.c - differential fuzzing of the row scanner against
 * jansson: on every input both must agree on whether it is a valid row
 * and, when it is, on every field the grader reads.
 *
 * Known, allowed differences (each is the scanner being stricter or
 * checking less where it cannot matter to a row):
 *   - jansson refuses integers and reals it cannot hold, and duplicate or
 *     NUL keys inside nested values; the scanner skips nested values and
 *     numbers of fields it does not read without converting them.
 *   - the scanner refuses nesting past 64, more than 64 fields, and field
 *     names over 511 bytes, which jansson takes.
 * A tool row's "tool_calls" is kept as its text, which must parse to the
 * list jansson read.
 *
 * Tests: grader/rowscan.c
 */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number.h"
#include "rowscan.h"
#include "task.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct grader_rowscan scan;

/* The fields as the old jansson reader took them; 0 ok, -1 a type error. */
static int from_tree(json_t *o, struct grader_row *w, char *ref, size_t cap)
{
    json_t *v;

    memset(w, 0, sizeof(*w));
    w->tokens = -1;
    w->tps = -1;
    w->violations = -1;
    w->saved = -1;
    w->prompt_ms = w->predicted_ms = -1;
    w->length = w->depth = -1;
    w->exec = -1;
    w->tests_passed = w->tests_total = -1;
    if (!json_is_object(o))
        return -1;
    v = json_object_get(o, "id");
    if (v && !json_is_null(v)) {
        if (!json_is_string(v) || json_string_length(v) == 0 ||
            json_string_length(v) > 256 ||
            memchr(json_string_value(v), 0, json_string_length(v)))
            return -1;
        w->id = json_string_value(v);
        w->id_len = json_string_length(v);
    }
    v = json_object_get(o, "reference");
    if (json_is_string(v)) {
        if (json_string_length(v) > 4095) /* GRADER_ROWSCAN_REF, its NUL */
            return -1;
        w->ref = json_string_value(v);
        w->ref_len = json_string_length(v);
    } else if (json_is_integer(v)) {
        snprintf(ref, cap, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        w->ref = ref;
        w->ref_len = strlen(ref);
    } else if (v && !json_is_null(v)) {
        return -1;
    }
#define TEXT(key, s, n)                                                       \
    v = json_object_get(o, key);                                              \
    if (v && !json_is_null(v)) {                                              \
        if (!json_is_string(v))                                               \
            return -1;                                                        \
        s = json_string_value(v);                                             \
        n = json_string_length(v);                                            \
    }
    TEXT("content", w->content, w->content_len)
    TEXT("reasoning_content", w->reasoning, w->reasoning_len)
    v = json_object_get(o, "finish_reason");
    if (v && !json_is_null(v) && !json_is_string(v))
        return -1;
    w->finish_length = json_is_string(v) && json_string_length(v) == 6 &&
                       memcmp(json_string_value(v), "length", 6) == 0;
    if (json_is_string(v) && json_string_length(v) <= 511) {
        w->finish = json_string_value(v);
        w->finish_len = json_string_length(v);
    }
    v = json_object_get(o, "error");
    if (v && !json_is_null(v) && !json_is_string(v))
        return -1;
    w->has_error = json_is_string(v);
    if (w->has_error) {
        w->error = json_string_value(v);
        w->error_len = json_string_length(v);
    }
    v = json_object_get(o, "truncated");
    if (v && !json_is_null(v) && !json_is_boolean(v))
        return -1;
    w->truncated = json_is_true(v);
    v = json_object_get(o, "completion_tokens");
    if (v && !json_is_null(v)) {
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return -1;
        w->tokens = json_integer_value(v);
    }
    v = json_object_get(o, "violations");
    if (v && !json_is_null(v)) {
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return -1;
        w->violations = json_integer_value(v);
    }
    v = json_object_get(o, "tokens_saved");
    if (v && !json_is_null(v)) {
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return -1;
        w->saved = json_integer_value(v);
    }
    /* a long item's (docs/longctx.md) */
    v = json_object_get(o, "length");
    if (v && !json_is_null(v)) {
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return -1;
        w->length = json_integer_value(v);
    }
    v = json_object_get(o, "depth");
    if (v && !json_is_null(v)) {
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return -1;
        w->depth = json_integer_value(v);
    }
    /* a code item's execution (docs/code.md) */
    v = json_object_get(o, "exec");
    if (v && !json_is_null(v)) {
        if (!json_is_string(v) ||
            (w->exec = grader_exec_parse(json_string_value(v),
                                         json_string_length(v))) < 0)
            return -1;
    }
    v = json_object_get(o, "tests_passed");
    if (v && !json_is_null(v)) {
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return -1;
        w->tests_passed = json_integer_value(v);
    }
    v = json_object_get(o, "tests_total");
    if (v && !json_is_null(v)) {
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return -1;
        w->tests_total = json_integer_value(v);
    }
#define SHORT(key, s, n)                                                      \
    v = json_object_get(o, key);                                              \
    if (v && !json_is_null(v)) {                                              \
        if (!json_is_string(v) || json_string_length(v) > 511 ||              \
            memchr(json_string_value(v), 0, json_string_length(v)))           \
            return -1;                                                        \
        s = json_string_value(v);                                             \
        n = json_string_length(v);                                            \
    }
    SHORT("exception", w->exception, w->exception_len)
    SHORT("code_hash", w->code_hash, w->code_hash_len)
    TEXT("exec_output", w->output, w->output_len)
    /* a tool item's calls: a list (the scanner keeps its text) or null */
    v = json_object_get(o, "tool_calls");
    if (v && !json_is_null(v) && !json_is_array(v))
        return -1;
    v = json_object_get(o, "decode_tps");
    if (v && !json_is_null(v)) {
        if (!json_is_number(v) || json_number_value(v) < 0)
            return -1;
        w->tps = json_number_value(v);
    }
    v = json_object_get(o, "prompt_ms");
    if (v && !json_is_null(v)) {
        if (!json_is_number(v) || json_number_value(v) < 0)
            return -1;
        w->prompt_ms = json_number_value(v);
    }
    v = json_object_get(o, "predicted_ms");
    if (v && !json_is_null(v)) {
        if (!json_is_number(v) || json_number_value(v) < 0)
            return -1;
        w->predicted_ms = json_number_value(v);
    }
    return 0;
}

static int same_bytes(const char *a, size_t an, const char *b, size_t bn)
{
    if (a == NULL || b == NULL)
        return a == b;
    return an == bn && memcmp(a, b, an) == 0;
}

/* The scanner's tool_calls text is the tree's value: both absent or
 * null, or the text parses to an equal list. */
static int same_calls(const struct grader_row *w, json_t *v)
{
    json_t *mine;
    int eq;

    if (w->calls == NULL)
        return v == NULL || json_is_null(v);
    mine = json_loadb(w->calls, w->calls_len, JSON_ALLOW_NUL, NULL);
    eq = mine != NULL && json_equal(mine, v);
    json_decref(mine);
    return eq;
}

static int allowed_reject(const char *msg)
{
    return strstr(msg, "nested too deeply") || strstr(msg, "64 fields") ||
           strstr(msg, "longer than 511") || strstr(msg, "NUL byte");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data;
    struct grader_row ours, theirs;
    struct grader_num na, nb;
    json_error_t jerr;
    char msg[256], ref[64];
    json_t *o;
    int rc, typed;

    /* a row is one line; and jansson's buffer reader takes a raw NUL byte
     * for the end of input in places, so it is no reference there (the
     * scanner refuses raw NULs, as RFC 8259 does) */
    if (memchr(data, '\n', size) != NULL || memchr(data, '\0', size))
        return 0;
    rc = grader_rowscan(&scan, p, size, &ours, msg, sizeof(msg));
    o = json_loadb(p, size, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
    if (o == NULL) {
        if (rc == 0 && !strstr(jerr.text, "too big") &&
            !strstr(jerr.text, "overflow") &&
            !strstr(jerr.text, "duplicate object key") &&
            !strstr(jerr.text, "NUL byte in object key")) {
            fprintf(stderr, "scanner took a row jansson refuses: %s\n",
                    jerr.text);
            abort();
        }
        return 0;
    }
    typed = from_tree(o, &theirs, ref, sizeof(ref));
    if (rc != 0) {
        if (json_is_object(o) && typed == 0 && !allowed_reject(msg)) {
            fprintf(stderr, "scanner refused a row jansson takes: %s\n", msg);
            abort();
        }
        json_decref(o);
        return 0;
    }
    if (typed != 0) {
        fprintf(stderr, "scanner took a field of the wrong type\n");
        abort();
    }
    if (!same_calls(&ours, json_object_get(o, "tool_calls"))) {
        fprintf(stderr, "tool_calls differ\n");
        abort();
    }
    if (!same_bytes(ours.id, ours.id_len, theirs.id, theirs.id_len) ||
        !same_bytes(ours.content, ours.content_len, theirs.content,
                    theirs.content_len) ||
        !same_bytes(ours.reasoning, ours.reasoning_len, theirs.reasoning,
                    theirs.reasoning_len) ||
        ours.finish_length != theirs.finish_length ||
        !same_bytes(ours.finish, ours.finish_len, theirs.finish,
                    theirs.finish_len) ||
        ours.has_error != theirs.has_error ||
        !same_bytes(ours.error, ours.error_len, theirs.error,
                    theirs.error_len) ||
        ours.truncated != theirs.truncated || ours.tokens != theirs.tokens ||
        ours.violations != theirs.violations || ours.saved != theirs.saved ||
        ours.length != theirs.length || ours.depth != theirs.depth ||
        ours.exec != theirs.exec || ours.tests_passed != theirs.tests_passed ||
        ours.tests_total != theirs.tests_total ||
        !same_bytes(ours.exception, ours.exception_len, theirs.exception,
                    theirs.exception_len) ||
        !same_bytes(ours.code_hash, ours.code_hash_len, theirs.code_hash,
                    theirs.code_hash_len) ||
        !same_bytes(ours.output, ours.output_len, theirs.output,
                    theirs.output_len) ||
        !(ours.tps == theirs.tps || (isnan(ours.tps) && isnan(theirs.tps))) ||
        ours.prompt_ms != theirs.prompt_ms ||
        ours.predicted_ms != theirs.predicted_ms)
        abort();
    if ((ours.ref == NULL) != (theirs.ref == NULL))
        abort();
    if (ours.ref != NULL) {
        int a = grader_num_parse(ours.ref, ours.ref_len, &na);
        int b = grader_num_parse(theirs.ref, theirs.ref_len, &nb);
        if (a != b || (a == 0 && strcmp(na.s, nb.s) != 0))
            abort();
    }
    json_decref(o);
    return 0;
}
