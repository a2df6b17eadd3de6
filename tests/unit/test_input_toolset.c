/*
 * test_input_toolset.c - the built-in tool-call items (data/toolcalls,
 * docs/toolcalls.md "The built-in set") are right by construction: the
 * file loads under the tool-call task (every item, ids prefixed by
 * their category, BFCL's five categories each present), and the
 * fixture tests/data/toolcalls/replies.jsonl (written with the items by
 * data/toolcalls/make_items.py) holds for each item one canonical right
 * reply, graded right with the item's own tools as the task's docs, and
 * wrong replies, each graded as the bucket it names; every bucket
 * family but over_cap is seen.
 *
 * Tests: orchestrator/input/questions.c
 * Tests: grader/task_calls.c
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "../../grader/task.h"
#include "../../orchestrator/input/questions.h"
#include "../../toolcall/toolcall.h"

#define ITEMS   "data/toolcalls/items.jsonl"
#define REPLIES "tests/data/toolcalls/replies.jsonl"

static const char *const categories[] = {"simple", "multiple", "parallel",
                                         "parallel_multiple", "irrelevance"};
#define NCAT (sizeof(categories) / sizeof(categories[0]))

static void test_items_load(void **state)
{
    struct questions qs;
    size_t per[NCAT] = {0};
    json_t *lines;
    json_error_t jerr;
    char msg[600];
    FILE *f;

    (void)state;
    if (questions_load_as(ITEMS, 0, GRADER_REF_CALLS, &qs, msg, sizeof(msg)) !=
        0)
        fail_msg("%s", msg);
    assert_true(qs.n >= 40);
    assert_non_null(f = fopen(ITEMS, "r"));
    lines = json_array();
    for (size_t i = 0; i < qs.n; i++) {
        char *line = NULL;
        size_t cap = 0;
        json_t *o;
        assert_true(getline(&line, &cap, f) > 0);
        o = json_loads(line, 0, &jerr);
        free(line);
        assert_non_null(o);
        json_array_append_new(lines, o);
    }
    fclose(f);
    for (size_t i = 0; i < qs.n; i++) {
        const struct question *q = &qs.q[i];
        const char *cat = json_string_value(
            json_object_get(json_array_get(lines, i), "category"));
        size_t k, len;
        assert_non_null(cat);
        for (k = 0; k < NCAT && strcmp(cat, categories[k]) != 0; k++)
            ;
        if (k == NCAT)
            fail_msg("'%s': category '%s'", q->id, cat);
        per[k]++;
        len = strlen(cat);
        /* the id is the category's, then a name and a number */
        if (strncmp(q->id, cat, len) != 0 || q->id[len] != '-' ||
            strchr(q->id + len + 1, '-') == NULL)
            fail_msg("id '%s' is not '%s-NAME-N'", q->id, cat);
        assert_string_equal(q->tool_choice, "\"auto\"");
        assert_int_equal(strcmp(q->answer, "[]") == 0,
                         strcmp(cat, "irrelevance") == 0);
    }
    for (size_t k = 0; k < NCAT; k++)
        if (per[k] < 5)
            fail_msg("%zu items of '%s'", per[k], categories[k]);
    json_decref(lines);
    questions_release(&qs);
}

static const struct question *find(const struct questions *qs, const char *id)
{
    for (size_t i = 0; i < qs->n; i++)
        if (strcmp(qs->q[i].id, id) == 0)
            return &qs->q[i];
    return NULL;
}

/* One fixture line graded; its bucket's index returned, the item's
 * right replies counted in right[i]. */
static int grade_line(const struct grader_task *t, const struct questions *qs,
                      json_t *c, size_t *right)
{
    const char *id = json_string_value(json_object_get(c, "id"));
    const char *want = json_string_value(json_object_get(c, "bucket"));
    json_t *calls = json_object_get(c, "calls");
    const char *content = json_string_value(json_object_get(c, "content"));
    const struct question *q = find(qs, id ? id : "");
    char *ctext =
        json_is_array(calls) ? json_dumps(calls, JSON_COMPACT) : NULL;
    struct grader_grade g;
    char why[300];
    enum toolcall_bucket b;

    if (q == NULL || want == NULL || toolcall_bucket_parse(want, &b) != 0)
        fail_msg("a fixture line for '%s' names no item or bucket", id);
    struct grader_reply rp = {q->id,   strlen(q->id),
                              content, content ? strlen(content) : 0,
                              ctext,   ctext ? strlen(ctext) : 0, NULL};
    if (grader_task_grade_calls(t, 0, &rp, q->answer, strlen(q->answer), &g,
                                why, sizeof(why)) != 0)
        fail_msg("'%s': %s", id, why);
    if (g.bucket != (int)b)
        fail_msg("'%s': a '%s' reply graded '%s' (%s)", id, want,
                 toolcall_bucket_name((enum toolcall_bucket)g.bucket),
                 ctext ? ctext : content);
    assert_int_equal(g.right, b == TOOLCALL_RIGHT);
    right[q - qs->q] += b == TOOLCALL_RIGHT;
    free(ctext);
    return (int)b;
}

static void test_replies(void **state)
{
    struct grader_task *t;
    struct questions qs;
    size_t seen[TOOLCALL_NBUCKETS] = {0}, *right, n = 0;
    char msg[600], *line = NULL;
    size_t cap = 0;
    FILE *f;
    int rc;

    (void)state;
    if (questions_load_as(ITEMS, 0, GRADER_REF_CALLS, &qs, msg, sizeof(msg)) !=
        0)
        fail_msg("%s", msg);
    assert_non_null(t = grader_task_builtin("tool-call", &rc));
    for (size_t i = 0; i < qs.n; i++) /* the docs are the item's tools */
        if (grader_task_add_docs(t, qs.q[i].id, strlen(qs.q[i].id),
                                 qs.q[i].tools, strlen(qs.q[i].tools), msg,
                                 sizeof(msg)) != 0)
            fail_msg("%s", msg);
    right = calloc(qs.n, sizeof(*right));
    assert_non_null(f = fopen(REPLIES, "r"));
    while (getline(&line, &cap, f) > 0) {
        json_error_t jerr;
        json_t *c = json_loads(line, 0, &jerr);
        if (c == NULL)
            fail_msg("%s: %s", REPLIES, jerr.text);
        seen[grade_line(t, &qs, c, right)]++;
        json_decref(c);
        n++;
    }
    free(line);
    fclose(f);
    for (size_t i = 0; i < qs.n; i++)
        if (right[i] != 1)
            fail_msg("'%s' has %zu right replies, not one", qs.q[i].id,
                     right[i]);
    for (int b = 0; b < TOOLCALL_NBUCKETS; b++)
        if (b != TOOLCALL_OVER_CAP && seen[b] == 0)
            fail_msg("no reply graded '%s'",
                     toolcall_bucket_name((enum toolcall_bucket)b));
    assert_true(n >= qs.n * 4);
    free(right);
    grader_task_free(t);
    questions_release(&qs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_items_load),
        cmocka_unit_test(test_replies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
