/*
 * md_cost.c - "What an answer costs": tokens, the server's seconds, the
 * cap, thinking tokens, tokens against the reference and energy, each
 * over the rung's right answers (grader/cost.h computes them).
 */
#include "md_cost.h"

#include <math.h>

#include "fmt.h"

/* A count-like figure rounded whole, grouped (12,345); a dash unknown. */
static char *whole(char *out, double v)
{
    return fmt_count(out, v < 0 || !isfinite(v) ? -1 : llround(v));
}

static void cost_row(struct doc *d, const struct grader_cost *c,
                     const char *name, int think, int power)
{
    char a[FMT_SIZE];

    doc_row(d);
    doc_cell(d);
    doc_rung(d, name, 0);
    doc_cellf(d, "%s", whole(a, c->tokens_per_right));
    doc_cellf(d, "%s", fmt_fixed(a, c->seconds_per_right, 2));
    doc_cellf(d, "%s", fmt_fixed(a, 100.0 * c->cap_hit, 1));
    if (think)
        doc_cellf(d, "%s", whole(a, c->think_per_answer));
    doc_cellf(d, "%s", fmt_fixed(a, c->tokens_x, 2));
    if (power)
        /* three significant digits or more: a fake GPU's (or a small
         * model's) right answer costs thousandths of a Wh */
        doc_cellf(d, "%s",
                  c->joules < 0 ? "no readings"
                                : fmt_fixed(a, c->wh_per_right,
                                            c->wh_per_right < 0.01  ? 5
                                            : c->wh_per_right < 0.1 ? 4
                                                                    : 3));
}

void md_cost(struct doc *d, const struct grader_ladder *rep)
{
    const char *ref = rep->chain.lines[0].rung->name;
    size_t i, n = rep->chain.nrungs + rep->nsides;
    int think = 0, power = 0;

    for (i = 0; i < n; i++) {
        const struct grader_cost *c = &grader_ladder_point(rep, i)->cost;
        think |= c->thought > 0;
        power |= c->joules >= 0;
    }
    doc_heading(d, 2);
    doc_raw(d, "What an answer costs");
    doc_table(d, think && power   ? "lrrrrrr"
                 : think || power ? "lrrrrr"
                                  : "lrrrr");
    doc_row(d);
    doc_cellf(d, "Rung");
    doc_cellf(d, "Tokens / right");
    doc_cellf(d, "Seconds / right");
    doc_cellf(d, "Cap hit %%");
    if (think)
        doc_cellf(d, "Thinking tokens / answer");
    doc_cellf(d, "Tokens \xc3\x97 %s", ref);
    if (power)
        doc_cellf(d, "Wh / right");
    for (i = 0; i < n; i++) {
        const struct grader_figures *x = grader_ladder_point(rep, i);
        cost_row(d, &x->cost, x->line->rung->name, think, power);
    }
    doc_para(d);
    doc_raw(d,
            "Each rung's whole spend over its right answers: a wrong answer "
            "costs as much as a right one. Tokens: the replies' completion "
            "tokens; seconds: the server's own prompt and decode time "
            "(not the client's wait); an answer without a count or a "
            "timing is priced at the mean of those with one. Cap hit: "
            "answers cut off at the token cap. Tokens \xc3\x97 %s: the "
            "rung's tokens over %s's on the questions both answered, so a "
            "rung that rambles costs more per answer even when it decodes "
            "faster.",
            ref, ref);
    if (think)
        doc_raw(d, " Thinking tokens are estimated: the server counts a "
                   "reply's tokens as one, so each reply's are split by "
                   "its thinking block's share of the reply's bytes.");
    if (power)
        doc_raw(d, " Wh: the GPU's power.draw, read once a second while "
                   "the rung answered (nvidia-smi), integrated over its "
                   "answering time.");
    else
        doc_raw(d, " Wh per right answer: no power readings (no "
                   "nvidia-smi).");
}
