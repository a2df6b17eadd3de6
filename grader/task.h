/*
 * task.h - what a question asks for and how its reply is graded: the
 * answer's shape as a property of a task (docs/tasks.md).
 *
 * A task names the prompt template, the stop strings sent with each
 * request, the kind of reference its question file gives (a number, a
 * letter) and one or more rules, each an independent way of grading the
 * same reply. The default task, answer-line, is the study's rule and
 * prompt, so every run folder made before tasks existed grades the same.
 * The others reproduce the scores people already read: lm-eval's GSM8K
 * filters (strict-match and flexible-extract, quirks included), the last
 * \boxed{} of llama.cpp's evaluator, and multiple choice by letter.
 *
 * A task is built in (grader_task_builtin) or assembled by a caller from
 * a user's task file (the orchestrator parses the JSON: the grader reads
 * none). Owned by the caller: grader_task_free. A task is read-only once
 * built, and may be shared by any number of readers.
 */
#ifndef GRADER_TASK_H
#define GRADER_TASK_H

#include <stddef.h>

#include "number.h"

#define GRADER_TASK_NAME_MAX  64 /* a task's or a rule's name, NUL included */
#define GRADER_TASK_MAX_RULES 4  /* rules of one task */
#define GRADER_TASK_MAX_STOPS                                                 \
    8                            /* human-eval's five (the Codex paper's),    \
                                    lm-eval's humaneval eight; its chat       \
                                    payload keeps stop[:4] */
#define GRADER_RULE_MAX_IGNORE 8 /* regexes_to_ignore of one rule */
#define GRADER_TASK_TEXT_MAX   (64u * 1024) /* a template, a stop, a pattern */

/* What a rule extracts, shown and compared by the reports (the decision
 * right or wrong is made on the whole text; only the copy kept is cut). */
#define GRADER_GRADE_MAX 64

enum grader_rule_kind {
    GRADER_RULE_ANSWER_LINE, /* the number after the last "Answer:" */
    GRADER_RULE_REGEX,       /* lm-eval's regex filter and exact_match */
    GRADER_RULE_BOXED,       /* the content of the last \boxed{...} */
    GRADER_RULE_CHOICE,      /* the letter after the last "Answer:" */
    GRADER_RULE_LAST_DIGITS, /* llama-eval's: last \b(\d+)\b of the last
                                10 lines, against the reference's leading
                                digits */
    GRADER_RULE_RULER_ALL,   /* lm-eval's RULER string_match_all: every
                                expected string in the reply */
    GRADER_RULE_RULER_PART,  /* its string_match_part: right when one is
                                (docs/tasks.md, "RULER's scorers") */
    GRADER_RULE_TOOLCALL,    /* BFCL's AST checker on the reply's tool
                                calls (toolcall/toolcall.h): graded by
                                grader_task_grade_calls only */
    GRADER_RULE_EXEC,        /* the code of the reply's first fenced
                                block, run with the item's tests in the
                                sandbox: graded from the row's recorded
                                outcome by grader_task_grade_exec only */
    GRADER_RULE_EXEC_BODY,   /* the same, the whole reply being the
                                function's body after the item's prompt
                                (a completion model's way) */
};

enum grader_ref_kind {
    GRADER_REF_NUMBER,  /* grader_num_parse reads it ("2,350") */
    GRADER_REF_LETTER,  /* one letter A to Z (any case; kept upper-case) */
    GRADER_REF_ANSWERS, /* expected strings, one a line ("a\nb"): a
                           question file's "answers" list (RULER's
                           outputs), GRADER_ANSWERS_MAX of them at most */
    GRADER_REF_CALLS,   /* a tool item's possible answers, BFCL's shape
                           ([{"fn": {"arg": [accepted...]}}]), as JSON
                           text (docs/toolcalls.md) */
    GRADER_REF_CODE,    /* a code item's tests as run, their sha256 in hex:
                           the code is graded by running it (docs/code.md) */
};

/* The expected strings of one reference: at most this many, each at most
 * GRADER_ANSWER_BYTES bytes, all of them (with their newlines) at most
 * GRADER_ANSWERS_BYTES; none empty, none with a control character. */
#define GRADER_ANSWERS_MAX   32
#define GRADER_ANSWER_BYTES  1024
#define GRADER_ANSWERS_BYTES 4096

/* A tool item's possible answers as JSON text: less than this (the row
 * scanner's cap on a reference, GRADER_ROWSCAN_REF). */
#define GRADER_CALLS_REF_BYTES 4096

struct grader_task;

/* The study's prompt, the default task's (../shared/design/METHOD.md). */
extern const char grader_prompt_answer_line[];

/* ---- building one --------------------------------------------------- */

/*
 * The built-in task named name, new (grader_task_free), or NULL with
 * *rc GRADER_EARG (no such task) or GRADER_ENOMEM. The names, in the order
 * `--task help` lists them, come from grader_task_builtin_name(i) until
 * it returns NULL.
 */
struct grader_task *grader_task_builtin(const char *name, int *rc);
const char *grader_task_builtin_name(size_t i);
/* One line on what built-in task i is, or NULL. */
const char *grader_task_builtin_about(size_t i);

/* An empty task (no prompt, no stop, no rule), new, or NULL (no memory,
 * or a name that is empty or too long). */
struct grader_task *grader_task_new(const char *name,
                                    enum grader_ref_kind ref);
void grader_task_free(struct grader_task *t);

/* Set the prompt template (copied): {question} is replaced by the
 * question and {choices} by its lettered options ("A. ...\n"). 0, or
 * GRADER_EARG (too long, or no {question}) with msg, or GRADER_ENOMEM. */
int grader_task_set_prompt(struct grader_task *t, const char *tmpl, char *msg,
                           size_t msgsize);
/* Add a stop string (copied). 0, GRADER_EARG (empty, too long, more than
 * GRADER_TASK_MAX_STOPS) with msg, or GRADER_ENOMEM. */
int grader_task_add_stop(struct grader_task *t, const char *stop, char *msg,
                         size_t msgsize);
/* The token cap a run of this task uses when its config gives none (0:
 * the run's own default). lm-eval's max_gen_toks is 256. */
void grader_task_set_max_tokens(struct grader_task *t, long max_tokens);
/* Ask by /v1/completions (1: the prompt continued as it is, a completion
 * model's way, docs/code.md's "Completion style") or by
 * /v1/chat/completions (0, the default: the prompt as the user's
 * message). */
void grader_task_set_completions(struct grader_task *t, int on);

/* A rule that is not a regex (answer-line, boxed, choice, last-digits).
 * 0, or GRADER_EARG with msg (a name taken, too many rules, a choice rule
 * on a numeric task or a numeric one on a letter task), GRADER_ENOMEM. */
int grader_task_add_rule(struct grader_task *t, const char *name,
                         enum grader_rule_kind kind, char *msg,
                         size_t msgsize);

/*
 * A regex rule with lm-eval's semantics (docs/grading.md, "lm-eval's
 * rules"): re.findall(pattern, reply); the match group_select (0 the
 * first, -1 the last; outside the matches: the fallback); of a tuple of
 * groups, the first non-empty one; then strip(). No match: fallback
 * ("[invalid]" in lm-eval). Right when the extracted text equals the
 * reference as written after each of ignore[0..nignore) is removed from
 * both in order (re.sub(s, "", x)) and, with ignore_case, both are
 * lower-cased. Patterns use Python's re syntax (pyre.h). 0, or
 * GRADER_EARG with msg naming the pattern and what is wrong, or
 * GRADER_ENOMEM.
 */
int grader_task_add_regex(struct grader_task *t, const char *name,
                          const char *pattern, long group_select,
                          const char *fallback, const char *const *ignore,
                          size_t nignore, int ignore_case, char *msg,
                          size_t msgsize);

/* ---- reading one ------------------------------------------------------ */

const char *grader_task_name(const struct grader_task *t);
enum grader_ref_kind grader_task_ref(const struct grader_task *t);
const char *grader_task_prompt(const struct grader_task *t); /* or NULL */
size_t grader_task_nstops(const struct grader_task *t);
const char *grader_task_stop(const struct grader_task *t, size_t i);
long grader_task_max_tokens(const struct grader_task *t);
/* 1 when t asks by /v1/completions (grader_task_set_completions). */
int grader_task_completions(const struct grader_task *t);
size_t grader_task_nrules(const struct grader_task *t);
const char *grader_task_rule_name(const struct grader_task *t, size_t i);
enum grader_rule_kind grader_task_rule_kind(const struct grader_task *t,
                                            size_t i);
/* What a regex rule was built from (borrowed from t). */
struct grader_regex_rule {
    const char *pattern;
    long group_select;
    const char *fallback;
    const char *const *ignore;
    size_t nignore;
    int ignore_case;
};
/* Rule i's sources when it is a regex rule: 0, else -1. */
int grader_task_rule_regex(const struct grader_task *t, size_t i,
                           struct grader_regex_rule *out);

/* The index of the rule called name, or -1. */
long grader_task_rule_index(const struct grader_task *t, const char *name);

/*
 * Whether s[0..len) is a reference this task reads: 0 with its canonical
 * form in out (a number's canonical form; a letter upper-cased; for
 * answers "answers:N:" and a 64-bit hash of the text in hex, out->v N),
 * or -1.
 */
int grader_task_ref_parse(const struct grader_task *t, const char *s,
                          size_t len, struct grader_num *out);

/* ---- grading ---------------------------------------------------------- */

/* One reply graded by one rule. */
struct grader_grade {
    int said;  /* something was extracted (not the fallback) */
    int right; /* it is the reference, by the rule's comparison */
    char extracted[GRADER_GRADE_MAX]; /* what was extracted, "" when
                                         nothing; cut at a character
                                         boundary when longer */
    char compared[GRADER_GRADE_MAX];  /* the form the rule compares (a
                                         regex rule's after its ignore
                                         list and lower-casing; a number's
                                         canonical form), cut likewise:
                                         two answers are the same answer
                                         when these are equal */
    int bucket; /* a tool-call rule's verdict, enum toolcall_bucket
                   (TOOLCALL_RIGHT when right); -1 for other rules */
    int calls;  /* a tool-call rule's: the reply's calls, 0 when none */
};

/*
 * Grade text[0..len) (NULL: no reply) by rule of t against the reference
 * as written (ref[0..ref_len)) and its canonical form (from
 * grader_task_ref_parse). 0, GRADER_ENOMEM, or GRADER_ELIMIT (a user's
 * pattern that took too long on this reply): *out then holds the grade
 * by the rule's fallback, as when nothing matched (nothing said; a regex
 * rule's fallback extracted and compared, so "[invalid]" is wrong), which
 * a caller uses and counts rather than failing (docs/tasks.md). A
 * tool-call rule needs the reply's calls and id: GRADER_EARG here
 * (grader_task_grade_calls grades them).
 */
int grader_task_grade(const struct grader_task *t, size_t rule,
                      const char *text, size_t len, const char *ref,
                      size_t ref_len, const struct grader_num *canon,
                      struct grader_grade *out);

/* ---- tool calls (docs/toolcalls.md) ------------------------------------ */

/*
 * A tool-call task grades each reply against its item's function docs,
 * which the rows do not carry: the caller adds every item's, read from
 * the question file the run asked (the manifest pins it by sha256), before
 * any reply is graded. docs is the item's "tools" (OpenAI's function
 * schemas) or BFCL's "function" list, as JSON text (copied). 0, or
 * GRADER_EARG with msg (an id given twice, docs over TOOLCALL_MAX_ITEM,
 * a task whose rules are not tool-call rules), or GRADER_ENOMEM.
 */
int grader_task_add_docs(struct grader_task *t, const char *id, size_t id_len,
                         const char *docs, size_t docs_len, char *msg,
                         size_t msgsize);
/* How many items' docs t holds. */
size_t grader_task_ndocs(const struct grader_task *t);

/* A tool item's reply as its row keeps it: borrowed. */
struct grader_reply {
    const char *id; /* the item's: its docs are looked up by it */
    size_t id_len;
    const char *content; /* the message's text, NULL when none */
    size_t content_len;
    const char *calls; /* the row's "tool_calls" as JSON text, NULL when
                          null or absent */
    size_t calls_len;
    const struct grader_exec *exec; /* a code item's, or NULL */
};

/*
 * Grade reply by rule of t, a tool-call rule, against the possible
 * answers ref[0..ref_len) (the row's reference) and the item's docs:
 * out->right, out->bucket (the failure's kind), out->calls; said when the
 * reply made a call, extracted and compared then a line of its calls
 * (toolcall_summary: keys sorted, so the same calls are one answer
 * however a server spaced them). 0; GRADER_EARG with why (no docs for the
 * item, the item's docs or answers unusable, the rule not a tool-call
 * rule); GRADER_ENOMEM. A reply, however hostile, is a verdict, never an
 * error.
 */
int grader_task_grade_calls(const struct grader_task *t, size_t rule,
                            const struct grader_reply *reply, const char *ref,
                            size_t ref_len, struct grader_grade *out,
                            char *why, size_t whysize);

/* ---- code (docs/code.md) ----------------------------------------------- */

/* What running a reply's code came to: the sandbox's outcome as the row
 * records it ("exec"), in the order the report's table shows them. */
enum grader_exec_outcome {
    GRADER_EXEC_PASSED,  /* every test passed */
    GRADER_EXEC_FAILED,  /* a test's assertion failed */
    GRADER_EXEC_ERROR,   /* an exception (its type recorded) */
    GRADER_EXEC_SYNTAX,  /* the code does not compile */
    GRADER_EXEC_TIMEOUT, /* the wall-clock limit */
    GRADER_EXEC_KILLED,  /* a limit: cpu, memory, processes, file size,
                            output */
    GRADER_EXEC_NO_CODE, /* nothing to run in the reply */
    GRADER_EXEC_OUTCOMES
};

/* "passed", "failed", "error", "syntax_error", "timeout", "killed",
 * "no_code" (NULL past them); and back: the outcome, or -1. */
const char *grader_exec_name(int outcome);
int grader_exec_parse(const char *s, size_t len);

/* A row's recorded execution, as the grader reads it. */
struct grader_exec {
    int outcome;           /* enum grader_exec_outcome, -1: not executed */
    long passed, total;    /* tests passed of total, -1 when unknown */
    const char *exception; /* its type, NULL when none */
    size_t exception_len;
    const char *code_hash; /* the executed code's, 16 hex digits
                              (grader_code_hash), NULL when none */
    size_t code_hash_len;
};

/*
 * The code a rule of kind (GRADER_RULE_EXEC or _EXEC_BODY) takes from a
 * reply text[0..len): a fenced block's contents (the first whose info
 * string is empty, "python", "py" or "python3", any case; a block the
 * token cap left open runs to the end), or the whole reply for a body
 * rule. 1 with the span in *off, *n; 0 when there is none (no block, or
 * nothing but white space in it).
 */
int grader_code_extract(enum grader_rule_kind kind, const char *text,
                        size_t len, size_t *off, size_t *n);

/* The 64-bit hash of code[0..len) as 16 hex digits and a NUL into hex
 * (17 bytes): the row records it, so a row whose content is not the code
 * that ran is refused. */
void grader_code_hash(const char *code, size_t len, char *hex);

/*
 * Grade a code item's reply (reply->content, reply->exec) by rule of t,
 * an exec rule: right when the recorded outcome is passed; out->bucket
 * the outcome; said when the reply held code; extracted the outcome in
 * words ("failed 3/5", "error TypeError 0/5"), compared those words and
 * the code's hash ("failed 3/5 code:HEX16": two rungs that wrote the same
 * code gave one answer). 0; GRADER_EARG
 * with why (no recorded outcome, a hash that is not the content's code,
 * the rule not an exec rule).
 */
int grader_task_grade_exec(const struct grader_task *t, size_t rule,
                           const struct grader_reply *reply,
                           struct grader_grade *out, char *why,
                           size_t whysize);

/*
 * Fill a prompt template for one question: {question} -> question,
 * {choices} -> one line "L. option" per option (A, B, ...); every other
 * character as it is (a \boxed{} stays). Returns the new string
 * (grader_alloc_free), or NULL (no memory, more than 26 options).
 */
char *grader_prompt_fill(const char *tmpl, const char *question,
                         const char *const *choices, size_t nchoices);

#endif
