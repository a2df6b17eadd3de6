/*
 * md_code.c - how each rung's code fails (docs/code.md): one row per rung
 * of the chain, one column per outcome of running its code with the
 * item's tests in the sandbox, each cell the rung's replies with that
 * outcome and, where some of them are dead (the reference's code
 * passed), how many. Every figure is the grader's (grader_autopsy), from
 * the outcomes the rows record.
 */
#include <string.h>

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

void md_code(struct doc *d, const struct grader_ladder *rep)
{
    char align[GRADER_EXEC_OUTCOMES + 3], a[FMT_SIZE];
    size_t i;
    int k;

    if (!any(rep))
        return;
    doc_heading(d, 2);
    doc_raw(d, "Code: how each rung's code fails");
    doc_para(d);
    doc_raw(d,
            "Each reply's code run with its item's tests in the sandbox "
            "(docs/code.md, docs/sandbox.md); right is passed, every test. "
            "Failed is an assertion of a test, error another exception, "
            "killed a limit (CPU, memory, processes, file size, output); "
            "\"dead\" counts the replies of items whose code passed at %s, "
            "\"cut off\" those stopped at the token cap (code cut short "
            "rarely compiles: the cap's doing before the model's). Error "
            "rows have no outcome.",
            rep->chain.lines[0].rung->name);
    memset(align, 'r', sizeof(align));
    align[0] = 'l';
    align[GRADER_EXEC_OUTCOMES + 2] = '\0';
    doc_table(d, align);
    doc_row(d);
    doc_cellf(d, "Rung");
    doc_cellf(d, "Code replies");
    for (k = 0; k < GRADER_EXEC_OUTCOMES; k++)
        doc_cellf(d, "%s", words[k]);
    for (i = 0; i < rep->chain.nrungs; i++) {
        const struct grader_autopsy_line *l = &rep->rungs[i].autopsy;
        doc_row(d);
        doc_cell(d);
        doc_rung(d, l->rung->name, 0);
        doc_cellf(d, "%s", fmt_count(a, (long long)l->code_answers));
        for (k = 0; k < GRADER_EXEC_OUTCOMES; k++)
            md_cause_cell(d, l->outcomes[k], l->dead_outcomes[k],
                          l->cut_outcomes[k]);
    }
}
