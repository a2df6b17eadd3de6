/*
 * md_code.c - how each rung's code fails (docs/code.md): one row per rung
 * of the chain, one column per outcome of running its code with the
 * item's tests in the sandbox, each cell the rung's replies with that
 * outcome and, where some of them are dead (the reference's code
 * passed), how many. Every figure is the grader's (grader_autopsy), from
 * the outcomes the rows record.
 */
#include "../grader/grader.h"
#include "fmt.h"
#include "md_toolcalls.h"

/* The columns' words, in the outcomes' order (task.h): a reader of the
 * report reads these, a program report.json's names. */
static const char *const words[] = {"Passed",       "Failed",  "Error",
                                    "Syntax error", "Timeout", "Killed",
                                    "No code"};
_Static_assert(sizeof(words) / sizeof(words[0]) == GRADER_EXEC_OUTCOMES,
               "an outcome of task.h has no column here");

static int any(const struct grader_ladder *rep)
{
    for (size_t i = 0; i < rep->chain.nrungs; i++)
        if (rep->rungs[i].autopsy.code_answers > 0)
            return 1;
    return 0;
}

/* A rung's code replies. */
static void code_lead(struct doc *d, const struct grader_autopsy_line *l)
{
    char a[FMT_SIZE];

    doc_cellf(d, "%s", fmt_count(a, (long long)l->code_answers));
}

static const size_t *code_counts(const struct grader_autopsy_line *l,
                                 int which)
{
    return which == 0   ? l->outcomes
           : which == 1 ? l->dead_outcomes
                        : l->cut_outcomes;
}

void md_code(struct doc *d, const struct grader_ladder *rep)
{
    static const char *const heads[] = {"Code replies"};
    const struct md_causes c = {
        heads, 1, words, GRADER_EXEC_OUTCOMES, code_lead, code_counts};

    if (!any(rep))
        return;
    doc_heading(d, 2);
    doc_raw(d, "Code: how each rung's code fails");
    doc_para(d);
    doc_raw(d,
            "Each reply's code run with its item's tests in the sandbox "
            "(docs/code.md, docs/sandbox.md); right is passed, every test, so "
            "the ladder's accuracy is pass@1 (one greedy sample a problem) "
            "with its interval. "
            "Failed is an assertion of a test, error another exception, "
            "killed a limit (CPU, memory, processes, file size, output); "
            "\"dead\" counts the replies of items whose code passed at %s, "
            "\"cut off\" those stopped at the token cap (code cut short "
            "rarely compiles: the cap's doing before the model's). Error "
            "rows have no outcome.",
            rep->chain.lines[0].rung->name);
    md_causes_table(d, rep, &c);
}
