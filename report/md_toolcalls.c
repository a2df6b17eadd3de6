/*
 * md_toolcalls.c - how each rung's tool calls fail (docs/toolcalls.md):
 * one row per rung of the chain, one column per bucket of the checker's
 * taxonomy in its precedence, each cell the rung's replies in that
 * bucket and, where some of them are dead (the reference's call was
 * right), how many. Every figure is the grader's (grader_autopsy).
 */
#include "md_toolcalls.h"

#include <string.h>

#include "../toolcall/toolcall.h"
#include "fmt.h"

/* The columns' words, in the buckets' order (toolcall.h): a reader of
 * the report reads these, a program the JSON's stable names. */
static const char *const words[] = {
    "Right",      "No call",          "Leaked as text", "Malformed",
    "Over a cap", "Unknown function", "Wrong function", "Wrong arguments",
    "Wrong type", "Wrong value",      "Wrong count",    "Call where none"};
_Static_assert(sizeof(words) / sizeof(words[0]) == TOOLCALL_NBUCKETS,
               "a bucket of toolcall.h has no column here");

static int any(const struct grader_ladder *rep)
{
    for (size_t i = 0; i < rep->chain.nrungs; i++)
        if (rep->rungs[i].autopsy.tool_answers > 0)
            return 1;
    return 0;
}

void md_cause_cell(struct doc *d, size_t n, size_t dead, size_t cut)
{
    char a[FMT_SIZE], b[FMT_SIZE], c[FMT_SIZE];

    fmt_count(a, (long long)n);
    fmt_count(b, (long long)dead);
    fmt_count(c, (long long)cut);
    if (dead > 0 && cut > 0)
        doc_cellf(d, "%s (%s dead, %s cut off)", a, b, c);
    else if (dead > 0)
        doc_cellf(d, "%s (%s dead)", a, b);
    else if (cut > 0)
        doc_cellf(d, "%s (%s cut off)", a, c);
    else
        doc_cellf(d, "%s", a);
}

void md_toolcalls(struct doc *d, const struct grader_ladder *rep)
{
    char align[TOOLCALL_NBUCKETS + 5], a[FMT_SIZE], b[FMT_SIZE];
    size_t i;
    int k;

    if (!any(rep))
        return;
    doc_heading(d, 2);
    doc_raw(d, "Tool calls: how each rung's calls fail");
    doc_para(d);
    doc_raw(d,
            "Each reply to a tool item graded by BFCL's AST checker "
            "(docs/toolcalls.md): the function, its arguments' names, "
            "types and values, parallel calls as a set. A reply lands in "
            "the first bucket that applies, in the columns' order; "
            "\"dead\" counts the replies of items whose call was right "
            "at %s; \"cut off\" those stopped at the token cap (a call "
            "cut short is malformed: the cap's doing before the model's). "
            "Error rows have no bucket.",
            rep->chain.lines[0].rung->name);
    memset(align, 'r', sizeof(align));
    align[0] = 'l';
    align[TOOLCALL_NBUCKETS + 3] = '\0';
    doc_table(d, align);
    doc_row(d);
    doc_cellf(d, "Rung");
    doc_cellf(d, "Tool replies");
    doc_cellf(d, "Made a call");
    for (k = 0; k < TOOLCALL_NBUCKETS; k++)
        doc_cellf(d, "%s", words[k]);
    for (i = 0; i < rep->chain.nrungs; i++) {
        const struct grader_autopsy_line *l = &rep->rungs[i].autopsy;
        doc_row(d);
        doc_cell(d);
        doc_rung(d, l->rung->name, 0);
        doc_cellf(d, "%s", fmt_count(a, (long long)l->tool_answers));
        doc_cellf(d, "%s", fmt_count(b, (long long)l->called));
        for (k = 0; k < TOOLCALL_NBUCKETS; k++)
            md_cause_cell(d, l->buckets[k], l->dead_buckets[k],
                          l->cut_buckets[k]);
    }
}
