/*
 * fuzz_toolcall.c - libFuzzer harness for the tool-call checker
 * (toolcall.h). The first byte's low bit is the shape; the rest is split
 * at NUL bytes into the calls' JSON text and the content (two parts, a
 * fixed item of three functions) or the function docs, the possible
 * answers, the calls and the content (four parts). Besides not crashing
 * or leaking, it checks what every verdict must satisfy: 0 with a bucket
 * of the taxonomy, a stable name for it, a call index within the calls'
 * cap and a detail that ends within its buffer; or an error code of the
 * table with a message (never out of memory: nothing fails here); and
 * the same input graded twice gives the same.
 *
 * Tests: toolcall/toolcall.c
 * Tests: toolcall/check.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "toolcall.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char DOCS[] =
    "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
    "\"parameters\":{\"type\":\"object\",\"properties\":{\"location\":"
    "{\"type\":\"string\"},\"days\":{\"type\":\"integer\"},\"unit\":"
    "{\"type\":\"number\"}},\"required\":[\"location\"]}}},"
    "{\"name\":\"trip\",\"parameters\":{\"type\":\"dict\",\"properties\":"
    "{\"stops\":{\"type\":\"array\",\"items\":{\"type\":\"dict\"}},"
    "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"guest\":{\"type\":\"dict\"}},\"required\":[]}},"
    "{\"name\":\"any\",\"parameters\":{\"properties\":{\"x\":"
    "{\"type\":\"any\"},\"t\":{\"type\":\"tuple\",\"items\":"
    "{\"type\":\"float\"}}}}}]";
static const char ANSWERS[] =
    "[{\"get_weather\":{\"location\":[\"Boston, MA\"],\"days\":[1,\"\"],"
    "\"unit\":[1.5,\"\"]}},{\"trip\":{\"stops\":[[{\"city\":[\"Rome\"]}],"
    "\"\"],\"tags\":[[\"a\",\"B c\"]],\"guest\":[{\"name\":[\"Ann\"]}]}},"
    "{\"any\":{\"x\":[\"v\",\"\"],\"t\":[[1.0,2.0]]}}]";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *part[4] = {0};
    size_t len[4] = {0}, n = 0, start = 1;
    struct toolcall_item item;
    struct toolcall_reply reply;
    struct toolcall_result res, again;
    struct toolcall_error err;
    int rc;

    if (size < 1)
        return 0;
    for (size_t i = 1; i <= size && n < 4; i++)
        if (i == size || data[i] == '\0') {
            part[n] = (const char *)data + start;
            len[n++] = i - start;
            start = i + 1;
        }
    item.shape = (data[0] & 1) ? TOOLCALL_PARALLEL : TOOLCALL_ONE;
    if (n < 4) {
        item.docs = DOCS;
        item.docs_len = sizeof DOCS - 1;
        item.answers = ANSWERS;
        item.answers_len = sizeof ANSWERS - 1;
        item.shape = TOOLCALL_PARALLEL;
        reply.calls = part[0];
        reply.calls_len = len[0];
        reply.content = part[1];
        reply.content_len = len[1];
    } else {
        item.docs = part[0];
        item.docs_len = len[0];
        item.answers = part[1];
        item.answers_len = len[1];
        reply.calls = part[2];
        reply.calls_len = len[2];
        reply.content = part[3];
        reply.content_len = len[3];
    }
    rc = toolcall_check(&item, &reply, &res, &err);
    if (rc != 0) {
        if (rc > 0 || rc == TOOLCALL_ENOMEM ||
            strcmp(toolcall_strerror(rc), "unknown error") == 0 ||
            memchr(err.text, '\0', sizeof err.text) == NULL ||
            err.text[0] == '\0')
            abort();
        return 0;
    }
    if ((int)res.bucket < 0 || res.bucket >= TOOLCALL_NBUCKETS ||
        toolcall_bucket_name(res.bucket) == NULL || res.call < -1 ||
        res.call >= TOOLCALL_MAX_CALLS ||
        memchr(res.detail, '\0', sizeof res.detail) == NULL)
        abort();
    if (toolcall_check(&item, &reply, &again, &err) != 0 ||
        again.bucket != res.bucket || again.call != res.call)
        abort();
    return 0;
}
