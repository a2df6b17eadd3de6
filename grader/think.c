/*
 * think.c - thinking off against thinking on, question by question.
 */
#include "think.h"

#include <string.h>

#include "alloc.h"
#include "internal.h"

static double ratio(double on, double off)
{
    return on >= 0 && off > 0 ? on / off : -1.0;
}

int grader_think(const struct grader_qset *qs,
                 const struct grader_rung *const *off,
                 const struct grader_rung *const *on, size_t n,
                 struct grader_think_line *out, struct grader_error *err)
{
    const struct grader_rung *pair[2];
    struct grader_bury boff, bon, check;
    size_t i, j;
    int rc;

    /* the on pass must answer the off reference's questions: bury the on
     * reference against the off one, which checks exactly that */
    if (n == 0)
        return grader__fail(err, GRADER_EARG, "", 0, "no rungs to compare");
    pair[0] = off[0];
    pair[1] = on[0];
    if ((rc = grader_bury(qs, pair, 2, 0, &check, err)) != 0)
        return rc;
    grader_bury_release(&check);
    if ((rc = grader_bury(qs, off, n, 0, &boff, err)) != 0)
        return rc;
    if ((rc = grader_bury(qs, on, n, 0, &bon, err)) != 0) {
        grader_bury_release(&boff);
        return rc;
    }
    for (i = 0; i < n; i++) {
        struct grader_think_line *l = &out[i];
        const struct grader_summary *so = &boff.lines[i].sum,
                                    *sn = &bon.lines[i].sum;
        memset(l, 0, sizeof(*l));
        l->off = off[i];
        l->on = on[i];
        l->n = off[0]->n;
        l->right_off = so->right;
        l->right_on = sn->right;
        l->dead_off = boff.lines[i].dead;
        l->dead_on = bon.lines[i].dead;
        l->mean_tokens_off = so->mean_tokens;
        l->mean_tokens_on = sn->mean_tokens;
        l->median_tps_off = so->median_tps;
        l->median_tps_on = sn->median_tps;
        l->tokens_x = ratio(sn->mean_tokens, so->mean_tokens);
        l->speed_x = ratio(sn->median_tps, so->median_tps);
        for (j = 0; j < off[0]->n; j++) {
            uint32_t q = off[0]->answers[j].q;
            const struct grader_answer *ao = grader_rung_find(off[i], q),
                                       *an = grader_rung_find(on[i], q);
            int dead_off = grader_answer_right(grader_rung_find(off[0], q)) &&
                           !grader_answer_right(ao);
            int dead_on = grader_answer_right(grader_rung_find(on[0], q)) &&
                          !grader_answer_right(an);
            l->right_both +=
                grader_answer_right(ao) && grader_answer_right(an);
            if (i == 0)
                continue;
            l->dead_both += dead_off && dead_on;
            if (dead_off && (ao->flags & GRADER_A_CUT_OFF)) {
                l->dead_off_cut_off++;
                l->cut_off_right_on += grader_answer_right(an);
            }
        }
    }
    grader_bury_release(&boff);
    grader_bury_release(&bon);
    return 0;
}
