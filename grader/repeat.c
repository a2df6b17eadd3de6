/*
 * repeat.c - question-by-question comparison of two runs of one rung.
 */
#include "repeat.h"
#include "internal.h"

#include <string.h>

static int same(const char *x, const char *y)
{
    if (x == NULL || y == NULL)
        return x == y;
    return strcmp(x, y) == 0;
}

/* First question of x that y lacks, or NULL; counts them in *n. */
static const char *only_in(const struct grader_rung *x,
                           const struct grader_rung *y,
                           const struct grader_qset *qs, size_t *n)
{
    const char *first = NULL;
    size_t j;

    *n = 0;
    for (j = 0; j < x->n; j++) {
        if (grader_rung_find(y, x->answers[j].q) == NULL && (*n)++ == 0)
            first = grader_qset_id(qs, x->answers[j].q);
    }
    return first;
}

int grader_repeat(const struct grader_rung *a, const struct grader_rung *b,
                  const struct grader_qset *qs, unsigned flags,
                  struct grader_repeat_line *out, struct grader_error *err)
{
    const char *fa, *fb;
    size_t j;

    memset(out, 0, sizeof(*out));
    if (!(a->read_flags & b->read_flags & GRADER_READ_TEXT))
        return grader__fail(err, GRADER_EARG, a->path, 0,
                            "rows were read without GRADER_READ_TEXT");
    out->a = a;
    out->b = b;
    fa = only_in(a, b, qs, &out->only_a);
    fb = only_in(b, a, qs, &out->only_b);
    if (!(flags & GRADER_COMMON) && out->only_a > 0)
        return grader__fail(err, GRADER_EMISSING, b->path, 0,
                            "rung '%s' is missing %zu questions that '%s' "
                            "has (first: '%s'); pass --common to compare "
                            "the questions in both",
                            b->name, out->only_a, a->path, fa);
    if (!(flags & GRADER_COMMON) && out->only_b > 0)
        return grader__fail(err, GRADER_EMISSING, a->path, 0,
                            "rung '%s' is missing %zu questions that '%s' "
                            "has (first: '%s'); pass --common to compare "
                            "the questions in both",
                            a->name, out->only_b, b->path, fb);
    for (j = 0; j < a->n; j++) {
        const struct grader_answer *x = &a->answers[j];
        const struct grader_answer *y = grader_rung_find(b, x->q);
        int rx, ry;
        if (y == NULL)
            continue;
        out->n++;
        rx = (x->flags & GRADER_A_RIGHT) != 0;
        ry = (y->flags & GRADER_A_RIGHT) != 0;
        out->right_a += (size_t)rx;
        out->right_b += (size_t)ry;
        out->mismatched_right += rx != ry;
        out->mismatched_extracted +=
            !same(grader_rung_said(a, x), grader_rung_said(b, y));
        if (x->text[0] != y->text[0] || x->text[1] != y->text[1]) {
            if (out->mismatched_text++ == 0)
                out->first_text = grader_qset_id(qs, x->q);
        }
    }
    return 0;
}
