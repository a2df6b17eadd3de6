/*
 * rule_driver.c - tests/tasks/rule_diff.py's other half: one JSON object
 * a line on stdin, {"task", "rule", "text", "ref"}, graded by that rule of
 * that built-in task (grader/task.h), one JSON line out: {"said",
 * "extracted", "right"} or {"error"}. Not part of graveyard.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../grader/grader.h"

int main(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;

    while ((got = getline(&line, &cap, stdin)) > 0) {
        json_t *in = json_loadb(line, (size_t)got, 0, NULL), *out;
        const char *name = json_string_value(json_object_get(in, "task"));
        const char *rule = json_string_value(json_object_get(in, "rule"));
        const char *text = json_string_value(json_object_get(in, "text"));
        const char *ref = json_string_value(json_object_get(in, "ref"));
        struct grader_task *t;
        struct grader_num canon;
        struct grader_grade g;
        long k;
        int rc = 0;

        if (name == NULL || rule == NULL || ref == NULL ||
            (t = grader_task_builtin(name, &rc)) == NULL) {
            fprintf(stderr, "rule_driver: bad line: %s", line);
            return 2;
        }
        k = grader_task_rule_index(t, rule);
        if (k < 0 ||
            grader_task_ref_parse(t, ref, strlen(ref), &canon) != 0)
            out = json_pack("{s:s}", "error", "no such rule, or a bad ref");
        else if ((rc = grader_task_grade(
                      t, (size_t)k, text, text ? json_string_length(
                                                     json_object_get(in,
                                                                     "text"))
                                               : 0,
                      ref, strlen(ref), &canon, &g)) != 0)
            out = json_pack("{s:s}", "error", grader_err_name(rc));
        else
            out = json_pack("{s:b,s:s,s:b}", "said", g.said, "extracted",
                            g.extracted, "right", g.right);
        {
            char *s = json_dumps(out, JSON_COMPACT | JSON_ENSURE_ASCII);
            puts(s);
            free(s);
        }
        fflush(stdout);
        json_decref(out);
        json_decref(in);
        grader_task_free(t);
    }
    free(line);
    return 0;
}
