/*
 * haystack_driver.c - tests/tasks/haystack_port.py's other half: one line
 * "KIND SEED INDEX FILL" on stdin, one JSON line out with the item that
 * haystack/ makes and its prompt at that fill: {"answers", "needles",
 * "depths", "depth", "query", "prompt"}, or {"error"}. Not part of
 * graveyard.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../haystack/haystack.h"

static json_t *strings(const char (*s)[HAYSTACK_ANSWER_MAX], size_t n)
{
    json_t *a = json_array();
    size_t i;

    for (i = 0; a != NULL && i < n; i++)
        json_array_append_new(a, json_string(s[i]));
    return a;
}

int main(void)
{
    char kind[64];
    unsigned long long seed;
    unsigned long index, fill;
    struct haystack_prompt p = {0};

    while (scanf("%63s %llu %lu %lu", kind, &seed, &index, &fill) == 4) {
        enum haystack_kind k;
        struct haystack_item it;
        json_t *out, *needles = json_array(), *depths = json_array();
        char *s;
        size_t i;
        int rc = haystack_kind_parse(kind, &k);
        if (rc == 0)
            rc = haystack_item_make(k, seed, (uint32_t)index, &it);
        if (rc == 0)
            rc = haystack_render(&it, fill, &p);
        if (rc != 0) {
            out = json_pack("{s:s}", "error", haystack_strerror(rc));
        } else {
            for (i = 0; i < it.nneedles; i++) {
                json_array_append_new(needles, json_string(it.needles[i]));
                json_array_append_new(depths,
                                      json_integer(it.needle_depth[i]));
            }
            out = json_pack("{s:o,s:O,s:O,s:i,s:s,s:s%}", "answers",
                            strings((const char(*)[HAYSTACK_ANSWER_MAX])
                                        it.answers,
                                    it.nanswers),
                            "needles", needles, "depths", depths, "depth",
                            it.depth, "query", it.query, "prompt", p.text,
                            p.len);
        }
        json_decref(needles);
        json_decref(depths);
        s = out ? json_dumps(out, JSON_COMPACT) : NULL;
        if (s == NULL) {
            fprintf(stderr, "haystack_driver: no memory\n");
            return 2;
        }
        puts(s);
        fflush(stdout);
        free(s);
        json_decref(out);
    }
    haystack_prompt_release(&p);
    return 0;
}
