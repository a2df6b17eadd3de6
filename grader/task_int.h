/*
 * task_int.h - what task.c, task_grade.c, task_builtin.c and rules.c
 * share: the task's body and the rules' functions. Private to grader/.
 */
#ifndef GRADER_TASK_INT_H
#define GRADER_TASK_INT_H

#include <stddef.h>
#include <stdint.h>

#include "number.h"
#include "../pyre/pyre.h"
#include "task.h"

struct rule {
    char name[GRADER_TASK_NAME_MAX];
    enum grader_rule_kind kind;
    /* GRADER_RULE_REGEX */
    struct pyre *re;
    char *pattern; /* the sources, as given: a manifest records them */
    char *ignore_src[GRADER_RULE_MAX_IGNORE];
    long group_select;
    char *fallback;
    struct pyre *ignore[GRADER_RULE_MAX_IGNORE];
    size_t nignore;
    int ignore_case;
};

/* A tool-call task's function docs, by item id (task_calls.c): an
 * open-addressing table of indexes into docs. */
struct tooldoc {
    char *id, *docs;
    size_t id_len, docs_len;
    uint64_t hash;
};
struct tooldocs {
    struct tooldoc *v;
    size_t n, cap;
    uint32_t *slot; /* index + 1, 0 empty */
    size_t nslot;
};

struct grader_task {
    char name[GRADER_TASK_NAME_MAX];
    enum grader_ref_kind ref;
    char *prompt;
    char *stops[GRADER_TASK_MAX_STOPS];
    size_t nstops;
    long max_tokens;
    int completions; /* asked by /v1/completions */
    struct rule rules[GRADER_TASK_MAX_RULES];
    size_t nrules;
    /* shared by every regex rule: strip() is \A\s+ and \s+\Z removed,
     * Python's whitespace being \s's (pyre.h); and llama-eval's digits */
    struct pyre *strip;
    struct pyre *digits;
    struct tooldocs docs;
};

/* A tool-call task's docs given back (task_calls.c). */
void grader__tooldocs_free(struct tooldocs *d);

/* Copy s[0..n) into out[GRADER_GRADE_MAX], cut at a character. */
void grader__grade_copy(char *out, const char *s, size_t n);

/* The last \boxed{...} (rules.c). */
int grader__rule_boxed(enum grader_ref_kind kind, const char *text, size_t len,
                       const struct grader_num *canon,
                       struct grader_grade *out);
/* The letter after the last "Answer:" (rules.c). */
int grader__rule_choice(const char *text, size_t len,
                        const struct grader_num *canon,
                        struct grader_grade *out);
/* lm-eval's RULER scorers, all (string_match_all) or part (ruler.c). */
int grader__rule_ruler(const struct grader_task *t, int all, const char *text,
                       size_t len, const char *ref, size_t ref_len,
                       struct grader_grade *out);
/* llama-eval's digits (task_grade.c). */
int grader__rule_last_digits(const struct grader_task *t, const char *text,
                             size_t len, const char *ref, size_t ref_len,
                             struct grader_grade *out);

#endif
