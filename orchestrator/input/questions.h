/*
 * questions.h - the question file a rung is asked, and the prompt.
 *
 * Two shapes are read, one JSON object per line:
 *   {"id": "test-788", "question": "...", "answer": "100"}
 *     (data/gsm8k/heldout-250.jsonl; answer may be a number)
 *   {"question": "...", "answer": "... #### 18"}
 *     (GSM8K's own test.jsonl: the reference is what follows "####", and
 *     the id is "test-N" for the 0-based line N)
 * Every reference must be a number as the grader reads one; ids must be
 * unique. Errors name the file and line. A line with "tools" is a tool
 * item (docs/toolcalls.md, toolitem.h), read by a tool-call task's
 * reader (GRADER_REF_CALLS) only, which reads nothing else: its
 * reference is the possible answers as compact JSON. A HumanEval or MBPP
 * line (it has "entry_point" or "test_list") is a code item (codeitem.h,
 * docs/code.md), read by a code task's reader (GRADER_REF_CODE) only,
 * which reads nothing else; a gzip-compressed file is refused by name.
 */
#ifndef QUESTIONS_H
#define QUESTIONS_H

#include <stddef.h>

#include "../../grader/grader.h"

struct question {
    char *id;
    char *text;
    char *answer;   /* the reference as written: "100", "2,350"; for a
                       multiple-choice task the right option's letter */
    char **choices; /* a multiple-choice task's options, in order (the
                       prompt letters them A, B, ...), or NULL */
    size_t nchoices;
    long line; /* its line in the file, from 1 (for messages) */
    /* a long item (docs/longctx.md): its target length in tokens and its
     * needle's depth in % (-1 each: none); lng its recipe when it was made
     * here (text is then a summary, and the prompt is made again from the
     * recipe by questions_prompt_for), else NULL */
    long length;
    int depth;
    struct longitem *lng;
    /* a tool item (docs/toolcalls.md): its "tools" and "tool_choice" as
     * compact JSON, sent with each request as given (NULL each: none, and
     * tool_choice NULL for a tool item that gives none); its "possible"
     * answers are its reference (answer), as compact JSON */
    char *tools;
    char *tool_choice;
    /* a code item (docs/code.md, codeitem.h), read by a code task's reader
     * (GRADER_REF_CODE) only, which reads nothing else: its reference
     * (answer) is the sha256 of its tests as run; NULL for other items */
    struct codeitem *code;
};

struct questions {
    struct question *q;
    size_t n, cap;
};

/* A question file's line may be at most this long. */
#define QUESTIONS_LINE_MAX (1u << 20)

/*
 * Load path; limit > 0 keeps the first limit questions (the study's
 * --limit 50). Returns 0, or -1 with "FILE:LINE: problem" in msg.
 */
int questions_load(const char *path, long limit, struct questions *out,
                   char *msg, size_t msgsize);

/*
 * The same for a task's kind of reference (GRADER_REF_NUMBER the shapes
 * above). GRADER_REF_ANSWERS reads long items: {"id", "prompt" or
 * "question", "answers": ["...", ...]} (RULER's "outputs" is read as
 * "answers"), 1 to GRADER_ANSWERS_MAX strings, none empty or holding a
 * control character, each at most GRADER_ANSWER_BYTES bytes and all at
 * most GRADER_ANSWERS_BYTES; the reference is the strings one a line
 * (docs/longctx.md). GRADER_REF_LETTER reads multiple-choice files
 * instead, in the common shapes (docs/tasks.md):
 *   {"id", "question", "choices": ["...", ...], "answer": "B" or 1}
 *     (MMLU's export: answer a 0-based index; or the letter)
 *   {"id", "question", "choices": {"text": [...], "label": [...]},
 *    "answerKey": "B" or "2"}  (ARC's: the key is one of the labels)
 *   {"id", "question": {"stem", "choices": [{"text", "label"}]},
 *    "answerKey"}  (ARC's original JSONL)
 * The reference becomes the right option's letter by position (A for
 * the first); 2 to 26 options. A line without an id is "test-N".
 */
int questions_load_as(const char *path, long limit, enum grader_ref_kind kind,
                      struct questions *out, char *msg, size_t msgsize);

/*
 * The same for readers that need only ids, texts and references (the
 * report's pages, the canary's subset, import, the run's checks before
 * the runner's own load): a long item's recipe is read and checked as
 * above (its answers must be the item's), but its prompt is not made, so
 * a recipe whose prompt cannot be made (over the prompt cap) loads here.
 * A question loaded so is never handed to questions_prompt_for: the
 * runner loads with questions_load_as, which refuses such an item before
 * any server starts. At 64K tokens a prompt costs ~3 ms to make.
 */
int questions_load_texts(const char *path, long limit,
                         enum grader_ref_kind kind, struct questions *out,
                         char *msg, size_t msgsize);
void questions_release(struct questions *qs);

/* The default prompt's text, the default task's (grader/task_builtin.c,
 * the one place it lives). {question} is replaced by the question; the
 * manifest records the prompt in use so a change is noticed. A task, a
 * config or --prompt may give another. */
#define questions_prompt grader_prompt_answer_line

/* The user message for q from prompt: {question} and {choices} filled
 * (grader_prompt_fill; new string, free with free()). */
char *questions_prompt_for(const char *prompt, const struct question *q);

#endif
