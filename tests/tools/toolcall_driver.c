/*
 * toolcall_driver.c - toolcall_check on each case of a JSONL file, for
 * tests/tools/bfcl_diff.py (BFCL's own verdicts against graveyard's).
 *
 * A case: {"id", "shape": "one"|"parallel", "docs": [...], "answers":
 * [...], "calls": [{"name","arguments":"TEXT"}] or null, "content": TEXT
 * or null}. Prints one line a case: {"id", "right", "bucket"} or {"id",
 * "error"}. Exit 0, or 2 on a line it cannot read.
 * Usage: toolcall_driver CASES.jsonl
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "toolcall.h"

static int one(json_t *c, const char *file, size_t line)
{
    struct toolcall_item item = {0};
    struct toolcall_reply reply = {0};
    struct toolcall_result res;
    struct toolcall_error err;
    const char *id = json_string_value(json_object_get(c, "id"));
    const char *shape = json_string_value(json_object_get(c, "shape"));
    json_t *calls = json_object_get(c, "calls");
    json_t *content = json_object_get(c, "content");
    char *docs = json_dumps(json_object_get(c, "docs"), JSON_COMPACT);
    char *answers = json_dumps(json_object_get(c, "answers"), JSON_COMPACT);
    char *ctext =
        json_is_array(calls) ? json_dumps(calls, JSON_COMPACT) : NULL;
    json_t *out;
    int rc;

    if (id == NULL || shape == NULL || docs == NULL || answers == NULL) {
        fprintf(stderr,
                "toolcall_driver: '%s' line %zu: a case without "
                "id, shape, docs or answers\n",
                file, line);
        free(docs);
        free(answers);
        free(ctext);
        return 2;
    }
    item.docs = docs;
    item.docs_len = strlen(docs);
    item.answers = answers;
    item.answers_len = strlen(answers);
    item.shape =
        strcmp(shape, "parallel") == 0 ? TOOLCALL_PARALLEL : TOOLCALL_ONE;
    reply.calls = ctext;
    reply.calls_len = ctext ? strlen(ctext) : 0;
    reply.content = json_string_value(content);
    reply.content_len = json_string_length(content);
    rc = toolcall_check(&item, &reply, &res, &err);
    if (rc != 0)
        out = json_pack("{s:s, s:s}", "id", id, "error", err.text);
    else
        out = json_pack("{s:s, s:b, s:s, s:i, s:s}", "id", id, "right",
                        res.bucket == TOOLCALL_RIGHT, "bucket",
                        toolcall_bucket_name(res.bucket), "call", res.call,
                        "detail", res.detail);
    free(docs);
    free(answers);
    free(ctext);
    if (out == NULL || json_dumpf(out, stdout, JSON_COMPACT) != 0) {
        json_decref(out);
        fprintf(stderr, "toolcall_driver: cannot write case '%s'\n", id);
        return 2;
    }
    putchar('\n');
    json_decref(out);
    return 0;
}

int main(int argc, char **argv)
{
    FILE *f;
    char *buf = NULL;
    size_t cap = 0, line = 0;
    ssize_t n;
    int rc = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: toolcall_driver CASES.jsonl\n");
        return 2;
    }
    f = fopen(argv[1], "r");
    if (f == NULL) {
        fprintf(stderr, "toolcall_driver: cannot open '%s'\n", argv[1]);
        return 2;
    }
    while (rc == 0 && (n = getline(&buf, &cap, f)) > 0) {
        json_error_t je;
        json_t *c;
        line++;
        if (n > 64 << 20) {
            fprintf(stderr, "toolcall_driver: '%s' line %zu: over 64 MiB\n",
                    argv[1], line);
            rc = 2;
            break;
        }
        c = json_loadb(buf, (size_t)n, JSON_ALLOW_NUL, &je);
        if (c == NULL) {
            fprintf(stderr, "toolcall_driver: '%s' line %zu: %s\n", argv[1],
                    line, je.text);
            rc = 2;
            break;
        }
        rc = one(c, argv[1], line);
        json_decref(c);
    }
    free(buf);
    fclose(f);
    return rc;
}
