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
 * unique. Errors name the file and line.
 */
#ifndef QUESTIONS_H
#define QUESTIONS_H

#include <stddef.h>

struct question {
    char *id;
    char *text;
    char *answer; /* the reference as written: "100", "2,350" */
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
void questions_release(struct questions *qs);

/* The default prompt's text: the one place it lives. {question} is
 * replaced by the question; the manifest records the prompt in use so a
 * change is noticed. A config or --prompt may give another. */
extern const char questions_prompt[];

/* The user message for q from prompt (new string, free with free()). */
char *questions_prompt_for(const char *prompt, const struct question *q);

#endif
