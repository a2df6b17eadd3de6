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

void md_causes_table(struct doc *d, const struct grader_ladder *rep,
                     const struct md_causes *c)
{
    char align[40];
    size_t i, k, cols = 1 + c->nheads + (size_t)c->n;

    if (cols >= sizeof(align)) /* a taxonomy this wide is a bug */
        return;
    memset(align, 'r', cols);
    align[0] = 'l';
    align[cols] = '\0';
    doc_table(d, align);
    doc_row(d);
    doc_cellf(d, "Rung");
    for (k = 0; k < c->nheads; k++)
        doc_cellf(d, "%s", c->heads[k]);
    for (k = 0; k < (size_t)c->n; k++)
        doc_cellf(d, "%s", c->words[k]);
    for (i = 0; i < rep->chain.nrungs; i++) {
        const struct grader_autopsy_line *l = &rep->rungs[i].autopsy;
        const size_t *all = c->counts(l, 0), *dead = c->counts(l, 1),
                     *cut = c->counts(l, 2);
        doc_row(d);
        doc_cell(d);
        doc_rung(d, l->rung->name, 0);
        c->lead(d, l);
        for (k = 0; k < (size_t)c->n; k++)
            md_cause_cell(d, all[k], dead[k], cut[k]);
    }
}

/* A rung's tool replies and how many made a call. */
static void tool_lead(struct doc *d, const struct grader_autopsy_line *l)
{
    char a[FMT_SIZE], b[FMT_SIZE];

    doc_cellf(d, "%s", fmt_count(a, (long long)l->tool_answers));
    doc_cellf(d, "%s", fmt_count(b, (long long)l->called));
}

static const size_t *tool_counts(const struct grader_autopsy_line *l,
                                 int which)
{
    return which == 0   ? l->buckets
           : which == 1 ? l->dead_buckets
                        : l->cut_buckets;
}

void md_toolcalls(struct doc *d, const struct grader_ladder *rep)
{
    static const char *const heads[] = {"Tool replies", "Made a call"};
    const struct md_causes c = {
        heads, 2, words, TOOLCALL_NBUCKETS, tool_lead, tool_counts};

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
    md_causes_table(d, rep, &c);
}
