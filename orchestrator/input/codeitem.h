/*
 * codeitem.h - a code item (issue 38, docs/code.md): a Python problem
 * with its tests, read from the shapes people have, as they are:
 *   HumanEval's {"task_id", "prompt", "canonical_solution", "test",
 *     "entry_point"} (openai/human-eval, evalplus's extra keys ignored,
 *     and graveyard's own data/code/problems.jsonl);
 *   MBPP's {"task_id": N, "text", "code", "test_list", "test_setup_code",
 *     "challenge_test_list"} (google-research's mbpp.jsonl) and its
 *     sanitized {"source_file", "task_id", "prompt", "code",
 *     "test_imports", "test_list"}.
 * The item's tests are the sources run one by one after the candidate's
 * code; the question's reference is their sha256, so two rungs with one
 * reference ran the same tests.
 */
#ifndef CODEITEM_H
#define CODEITEM_H

#include <jansson.h>
#include <stddef.h>

/* Caps of one item (docs/code.md): its tests, their bytes as run (the
 * setup's included), its prompt (HumanEval's prompt, MBPP's text). */
#define CODEITEM_TESTS_MAX   64
#define CODEITEM_TESTS_BYTES (256u << 10)
#define CODEITEM_PROMPT_MAX  (64u << 10)

struct codeitem {
    char *prompt; /* HumanEval's prompt (imports, signature, docstring):
                     run before the candidate's code when the code does
                     not define everything; NULL for MBPP */
    char *entry;  /* the entry point's name; MBPP: the function the first
                     test calls, or NULL */
    char *setup;  /* MBPP's test_setup_code / test_imports joined, or
                     NULL */
    char **tests; /* separate test sources, run one by one in order */
    size_t ntests;
    int split;  /* 1 when HumanEval's check() was split into its
                   asserts */
    char *line; /* the item's line as the file gave it (questions.c sets
                   it): the canary's subset writes it again, so that the
                   same tests make the same reference */
};

/* What a code line gives the question beside its item (new, free()). */
struct codeitem_question {
    char *id;     /* HumanEval's task_id; MBPP's int task_id N as "mbpp/N" */
    char *text;   /* what {question} becomes (docs/code.md) */
    char ref[65]; /* the sha256 (hex) of the tests as run */
};

/*
 * Whether line o is a code line: it has "entry_point" (HumanEval's) or
 * "test_list" (MBPP's). 1 or 0.
 */
int codeitem_is(const json_t *o);

/*
 * Read code line o into *it (new, codeitem_release) and *q. Returns 0, or
 * -1 with the problem in why, naming the key (nothing is kept then).
 */
int codeitem_read(const json_t *o, struct codeitem *it,
                  struct codeitem_question *q, char *why, size_t whysize);

void codeitem_release(struct codeitem *it);

/*
 * HumanEval's test for entry as separate sources into *tests (new, each
 * and the list free()), *n of them: when test defines check(candidate)
 * whose body is only asserts, comments and blank lines, one source an
 * assert (the text before def check, "candidate = ENTRY", the assert
 * dedented) and 1 is returned; otherwise the one source test +
 * "check(ENTRY)" (human-eval's way) and 0. A check of more than
 * CODEITEM_TESTS_MAX asserts is run whole, as one.
 */
int codeitem_split(const char *test, const char *entry, char ***tests,
                   size_t *n);

/*
 * The function an MBPP test calls first (new), skipping Python's
 * built-ins that wrap it (set, sorted, ...) and methods (math.isclose),
 * or NULL when it calls none.
 */
char *codeitem_called(const char *test);

#endif
