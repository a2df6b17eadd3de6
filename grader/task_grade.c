/*
 * task_grade.c - one reply graded by one rule of a task (task.h), and a
 * prompt template filled for one question.
 *
 * The regex rule is lm-eval's RegexFilter followed by its exact_match
 * (lm_eval/filters/extraction.py, lm_eval/api/metrics.py), transcribed
 * step by step; ../shared/reference/peers-2.md section 4.3 quotes both,
 * and docs/grading.md says where the two differ (nowhere on a reply a
 * server can send, by the differential test).
 */
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "extract.h"
#include "internal.h"
#include "../pyre/pyre.h"
#include "task.h"
#include "task_int.h"

/* A text being worked on: owned (grader__free) or borrowed. */
struct text {
    char *p;
    size_t n;
    int owned;
};

static void text_drop(struct text *x)
{
    if (x->owned)
        grader__free(x->p);
    x->p = NULL;
    x->n = 0;
    x->owned = 0;
}

/* x becomes the new text out[0..n), owned. */
static void text_own(struct text *x, char *out, size_t n)
{
    text_drop(x);
    x->p = out;
    x->n = n;
    x->owned = 1;
}

/* x = re.sub(re, "", x). 0 or an error; x is unchanged on error. */
static int sub(const struct pyre *re, struct text *x)
{
    char *out;
    size_t n;
    int rc;

    if (!pyre_may_match(re, x->p, x->n))
        return 0; /* nothing to take out: no copy */
    if ((rc = pyre_sub_empty(re, x->p ? x->p : "", x->n, &out, &n)) != 0)
        return rc;
    text_own(x, out, n);
    return 0;
}

/* x = x.lower(). */
static int lower(struct text *x)
{
    char *out;
    size_t n, i;
    int rc;

    for (i = 0; i < x->n; i++) /* ASCII with no capital: as it is */
        if ((unsigned char)x->p[i] >= 0x80 ||
            (x->p[i] >= 'A' && x->p[i] <= 'Z'))
            break;
    if (i == x->n)
        return 0;
    if ((rc = pyre_str_lower(x->p, x->n, &out, &n)) != 0)
        return rc;
    text_own(x, out, n);
    return 0;
}

/* The text a stop string would have ended the reply at: lm-eval sends
 * its stops to the server, which stops there and leaves the stop out;
 * cutting here gives the same text when a server did not. */
static size_t stop_cut(const struct grader_task *t, const char *text,
                       size_t len)
{
    size_t cut = len, i;

    for (i = 0; i < t->nstops; i++) {
        const char *stop = t->stops[i], *hit;
        size_t sl = strlen(stop), k = 0;
        if (sl == 0) /* found at once */
            return 0;
        /* the first stop[0] at k with the stop ending by cut, then the
         * rest of it: memchr rather than a memcmp at every byte */
        while (k + sl <= cut &&
               (hit = memchr(text + k, stop[0], cut - sl + 1 - k)) != NULL) {
            k = (size_t)(hit - text);
            if (memcmp(hit + 1, stop + 1, sl - 1) == 0) {
                cut = k;
                break;
            }
            k++;
        }
    }
    return cut;
}

/*
 * The match lm-eval's group_select picks among re.findall's, as a span
 * of text: Python indexes the list, so -1 is the last and k >= 0 the
 * (k+1)-th; an index outside the list (Python's IndexError) is *none = 1.
 */
static int select_match(const struct rule *r, const char *text, size_t len,
                        long *spans, size_t nspans, int *none)
{
    struct pyre_iter it;
    long want = r->group_select, count = 0, k = 0;
    int rc;

    *none = 1;
    if (want == -1) { /* the last: one pass, each match read into the
                       * half of spans the latest is not in */
        long *half[2];
        int h = 0;
        half[0] = spans;
        half[1] = spans + nspans / 2;
        pyre_iter_init(&it, r->re, text, len);
        while ((rc = pyre_iter_next(&it, half[h])) == 1) {
            *none = 0;
            h ^= 1;
        }
        pyre_iter_release(&it);
        if (!*none && h == 0) /* the latest is in the second half */
            memcpy(spans, half[1], nspans / 2 * sizeof(*spans));
        return rc < 0 ? rc : 0;
    }
    if (want < 0) { /* count first: Python counts from the end */
        pyre_iter_init(&it, r->re, text, len);
        while ((rc = pyre_iter_next(&it, spans)) == 1)
            count++;
        pyre_iter_release(&it);
        if (rc < 0)
            return rc;
        want += count;
        if (want < 0)
            return 0;
    }
    pyre_iter_init(&it, r->re, text, len);
    while ((rc = pyre_iter_next(&it, spans)) == 1)
        if (k++ == want) {
            *none = 0;
            break;
        }
    pyre_iter_release(&it);
    return rc < 0 ? rc : 0;
}

/* What RegexFilter keeps of the selected match: the whole match with no
 * group, the group with one ("" when it did not take part), the first
 * non-empty one of several (none: the fallback, *fell = 1). */
static void filter_value(const struct rule *r, const char *text,
                         const long *spans, size_t groups, struct text *x,
                         int *fell)
{
    size_t g;

    *fell = 0;
    x->owned = 0;
    if (groups == 0 || groups == 1) {
        g = groups;
        x->p = spans[2 * g] < 0 ? (char *)"" : (char *)text + spans[2 * g];
        x->n =
            spans[2 * g] < 0 ? 0 : (size_t)(spans[2 * g + 1] - spans[2 * g]);
        return;
    }
    for (g = 1; g <= groups; g++)
        if (spans[2 * g] >= 0 && spans[2 * g + 1] > spans[2 * g]) {
            x->p = (char *)text + spans[2 * g];
            x->n = (size_t)(spans[2 * g + 1] - spans[2 * g]);
            return;
        }
    *fell = 1;
    x->p = r->fallback;
    x->n = strlen(r->fallback);
}

/* exact_match after regexes_to_ignore and ignore_case, on copies. */
static int exact_match(const struct rule *r, struct text *pred,
                       struct text *ref, int *equal)
{
    size_t i;
    int rc;

    for (i = 0; i < r->nignore; i++)
        if ((rc = sub(r->ignore[i], pred)) != 0 ||
            (rc = sub(r->ignore[i], ref)) != 0)
            return rc;
    if (r->ignore_case && ((rc = lower(pred)) != 0 || (rc = lower(ref)) != 0))
        return rc;
    *equal = pred->n == ref->n && memcmp(pred->p, ref->p, pred->n) == 0;
    return 0;
}

static int regex_rule(const struct grader_task *t, const struct rule *r,
                      const char *text, size_t len, const char *ref,
                      size_t ref_len, struct grader_grade *out)
{
    size_t groups = pyre_groups(r->re);
    /* twice the spans a match has: select_match keeps one match while it
     * reads the next; on the stack for up to 7 groups */
    long small[4 * 8], *spans = small;
    struct text x = {0}, y = {(char *)ref, ref_len, 0};
    int none, fell = 1, rc, equal = 0;

    memset(small, 0, sizeof(small));
    if (groups + 1 > 8 &&
        (spans = grader__calloc(4 * (groups + 1), sizeof(*spans))) == NULL)
        return GRADER_ENOMEM;
    if (text == NULL) /* "a non-string response becomes ''" */
        text = "", len = 0;
    len = stop_cut(t, text, len);
    rc = select_match(r, text, len, spans, 4 * (groups + 1), &none);
    if (rc == 0 && !none)
        filter_value(r, text, spans, groups, &x, &fell);
    if (rc == 0 && none) {
        x.p = r->fallback;
        x.n = strlen(r->fallback);
    }
    if (rc == 0)
        rc = sub(t->strip, &x);
    if (rc == 0) {
        out->said = !(none || fell);
        grader__grade_copy(out->extracted, x.p, x.n);
        rc = exact_match(r, &x, &y, &equal);
        out->right = equal;
        if (rc == 0)
            grader__grade_copy(out->compared, x.p, x.n);
    }
    text_drop(&x);
    text_drop(&y);
    if (spans != small)
        grader__free(spans);
    return rc;
}

/* A regex rule's grade of a reply its pattern could not search within the
 * step budget: lm-eval's when nothing matched, the fallback stripped and
 * compared with the reference as an extraction is ("[invalid]": wrong).
 * The fallback is short: its own error (out of memory) is returned. */
static int fallback_grade(const struct grader_task *t, const struct rule *r,
                          const char *ref, size_t ref_len,
                          struct grader_grade *out)
{
    struct text x = {(char *)r->fallback, strlen(r->fallback), 0};
    struct text y = {(char *)ref, ref_len, 0};
    int rc, equal = 0;

    rc = sub(t->strip, &x);
    grader__grade_copy(out->extracted, x.p, x.n);
    if (rc == 0)
        rc = exact_match(r, &x, &y, &equal);
    out->right = rc == 0 && equal;
    text_drop(&x);
    text_drop(&y);
    return rc;
}

/*
 * llama.cpp's llama-eval, GSM8K, regex grader (examples/llama-eval,
 * Grader._truncate_response and the gsm8k pattern; docs/tasks.md): the
 * reply's last 10 lines (split on "\n"), the last match of \b(\d+)\b
 * there, compared as a string with the gold: the reference's leading
 * digits as an integer, str(int(...)), or the whole reference when it
 * does not start with a digit. So "1,072" is "072" in a reply and "1" as
 * a gold, and a negative answer never matches: llama-eval's quirks, kept.
 */
int grader__rule_last_digits(const struct grader_task *t, const char *text,
                             size_t len, const char *ref, size_t ref_len,
                             struct grader_grade *out)
{
    struct pyre_iter it;
    long spans[4], last[2] = {-1, -1};
    size_t start = 0, lines = 0, i, g0, g1;
    char gold[GRADER_GRADE_MAX];
    int rc;

    if (text == NULL) /* None.split raises there: no answer either way */
        return 0;
    for (i = len; i > 0; i--) /* where the last 10 lines begin */
        if (text[i - 1] == '\n' && ++lines == 10) {
            start = i;
            break;
        }
    pyre_iter_init(&it, t->digits, text + start, len - start);
    while ((rc = pyre_iter_next(&it, spans)) == 1) {
        last[0] = spans[2];
        last[1] = spans[3];
    }
    pyre_iter_release(&it);
    if (rc < 0)
        return rc;
    if (last[0] < 0)
        return 0;
    out->said = 1;
    grader__grade_copy(out->extracted, text + start + last[0],
                       (size_t)(last[1] - last[0]));
    /* the gold: strip(), then re.match(r"\d+") as an int, else as is */
    for (g0 = 0; g0 < ref_len && strchr(" \t\r\n", ref[g0]); g0++)
        ;
    for (g1 = ref_len; g1 > g0 && strchr(" \t\r\n", ref[g1 - 1]); g1--)
        ;
    for (i = g0; i < g1 && ref[i] >= '0' && ref[i] <= '9'; i++)
        ;
    if (i > g0) {
        while (g0 + 1 < i && ref[g0] == '0') /* str(int()): no leading 0 */
            g0++;
        g1 = i;
    }
    grader__grade_copy(gold, ref + g0, g1 - g0);
    out->right = (size_t)(last[1] - last[0]) == g1 - g0 &&
                 g1 - g0 < GRADER_GRADE_MAX &&
                 memcmp(text + start + last[0], gold, g1 - g0) == 0;
    return 0;
}

static int grade_by(const struct grader_task *t, const struct rule *r,
                    const char *text, size_t len, const char *ref,
                    size_t ref_len, const struct grader_num *canon,
                    struct grader_grade *out);

int grader_task_grade(const struct grader_task *t, size_t rule,
                      const char *text, size_t len, const char *ref,
                      size_t ref_len, const struct grader_num *canon,
                      struct grader_grade *out)
{
    const struct rule *r = &t->rules[rule];
    int rc;

    out->said = out->right = 0;
    out->bucket = -1;
    out->calls = 0;
    out->extracted[0] = out->compared[0] = '\0';
    rc = grade_by(t, r, text, len, ref, ref_len, canon, out);
    if (rc == 0 && out->said && out->compared[0] == '\0')
        memcpy(out->compared, out->extracted, sizeof(out->compared));
    if (rc == GRADER_ELIMIT) {
        /* past the budget on this reply: graded as if nothing matched,
         * so a finished rung is always graded (docs/tasks.md) */
        out->said = out->right = 0;
        out->extracted[0] = out->compared[0] = '\0';
        if (r->kind == GRADER_RULE_REGEX &&
            fallback_grade(t, r, ref, ref_len, out) == GRADER_ENOMEM)
            return GRADER_ENOMEM;
    }
    return rc;
}

/* The rule r of t on one reply (grader_task_grade's body). */
static int grade_by(const struct grader_task *t, const struct rule *r,
                    const char *text, size_t len, const char *ref,
                    size_t ref_len, const struct grader_num *canon,
                    struct grader_grade *out)
{
    struct grader_num num;

    switch (r->kind) {
    case GRADER_RULE_ANSWER_LINE:
        if (text != NULL && grader_extract(text, len, &num)) {
            out->said = 1;
            out->right = strcmp(num.s, canon->s) == 0;
            grader__grade_copy(out->extracted, num.s, strlen(num.s));
        }
        return 0;
    case GRADER_RULE_BOXED:
        return grader__rule_boxed(t->ref, text, len, canon, out);
    case GRADER_RULE_CHOICE:
        return grader__rule_choice(text, len, canon, out);
    case GRADER_RULE_LAST_DIGITS:
        return grader__rule_last_digits(t, text, len, ref, ref_len, out);
    case GRADER_RULE_REGEX:
        return regex_rule(t, r, text, len, ref, ref_len, out);
    case GRADER_RULE_RULER_ALL:
    case GRADER_RULE_RULER_PART:
        return grader__rule_ruler(t, r->kind == GRADER_RULE_RULER_ALL, text,
                                  len, ref, ref_len, out);
    case GRADER_RULE_TOOLCALL: /* needs the calls: grader_task_grade_calls */
    case GRADER_RULE_EXEC:     /* needs the outcome: grader_task_grade_exec */
    case GRADER_RULE_EXEC_BODY:
        break;
    }
    return GRADER_EARG;
}

/* ---- prompts ------------------------------------------------------------ */

char *grader_prompt_fill(const char *tmpl, const char *question,
                         const char *const *choices, size_t nchoices)
{
    size_t qn = strlen(question), cn = 0, n = 0, i, k = 0;
    const char *p;
    char *out;

    if (nchoices > 26)
        return NULL;
    for (i = 0; i < nchoices; i++)
        cn += strlen(choices[i]) + 4; /* "A. " and "\n" */
    /* the length: each placeholder replaced */
    for (p = tmpl; *p;) {
        if (strncmp(p, "{question}", 10) == 0)
            n += qn, p += 10;
        else if (strncmp(p, "{choices}", 9) == 0)
            n += cn, p += 9;
        else
            n++, p++;
    }
    if ((out = grader__malloc(n + 1)) == NULL)
        return NULL;
    for (p = tmpl; *p;) {
        if (strncmp(p, "{question}", 10) == 0) {
            memcpy(out + k, question, qn);
            k += qn, p += 10;
        } else if (strncmp(p, "{choices}", 9) == 0) {
            for (i = 0; i < nchoices; i++) {
                size_t l = strlen(choices[i]);
                out[k++] = (char)('A' + i);
                out[k++] = '.';
                out[k++] = ' ';
                memcpy(out + k, choices[i], l);
                k += l;
                if (i + 1 < nchoices)
                    out[k++] = '\n';
            }
            p += 9;
        } else
            out[k++] = *p++;
    }
    out[k] = '\0';
    return out;
}
