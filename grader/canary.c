/*
 * canary.c - a trusted run's first answers against a new build's.
 */
#include "canary.h"
#include "internal.h"

#include <string.h>

static int same(const char *x, const char *y)
{
    if (x == NULL || y == NULL)
        return x == y;
    return strcmp(x, y) == 0;
}

static void keep_id(struct grader_canary *out, uint32_t q)
{
    if (out->nids < GRADER_CANARY_IDS)
        out->ids[out->nids++] = q;
}

int grader_canary(const struct grader_rung *trusted,
                  const struct grader_rung *now, size_t n,
                  struct grader_canary *out, struct grader_error *err)
{
    int text = (trusted->read_flags & now->read_flags & GRADER_READ_TEXT) != 0;
    size_t j;

    memset(out, 0, sizeof(*out));
    if (n == 0)
        return grader__fail(err, GRADER_EARG, trusted->path, 0,
                            "a canary of 0 questions checks nothing");
    out->wanted = n < trusted->n ? n : trusted->n;
    for (j = 0; j < out->wanted; j++) {
        const struct grader_answer *x = &trusted->answers[j];
        const struct grader_answer *y = grader_rung_find(now, x->q);
        const char *sx, *sy;
        int rx, ry, ex, ey;
        if (y == NULL) {
            out->missing++;
            keep_id(out, x->q);
            continue;
        }
        out->compared++;
        rx = (x->flags & GRADER_A_RIGHT) != 0;
        ry = (y->flags & GRADER_A_RIGHT) != 0;
        ex = (x->flags & GRADER_A_ERROR) != 0;
        ey = (y->flags & GRADER_A_ERROR) != 0;
        out->right_trusted += (size_t)rx;
        out->right_now += (size_t)ry;
        out->changed_right += rx != ry;
        sx = grader_rung_said(trusted, x);
        sy = grader_rung_said(now, y);
        /* neither has a number: the words are all there is to compare
         * (a build that writes garbage where the trusted run wrote other
         * words without a number has changed) */
        if (ex != ey || !same(sx, sy) ||
            (sx == NULL && sy == NULL && text &&
             (x->text[0] != y->text[0] || x->text[1] != y->text[1]))) {
            out->changed++;
            keep_id(out, x->q);
        }
        out->same_text +=
            text && x->text[0] == y->text[0] && x->text[1] == y->text[1];
    }
    return 0;
}
