/*
 * ruler.c - lm-eval's RULER scorers as rules (task.h,
 * GRADER_RULE_RULER_ALL and GRADER_RULE_RULER_PART; docs/tasks.md,
 * "RULER's scorers"), transcribed from lm-eval-harness's
 * lm_eval/tasks/ruler/common_utils.py (commit 3e9e457a):
 *
 *   postprocess_pred: s.strip(), every [\x00-\x1f] made "\n", strip()
 *   string_match_all: sum(r.lower() in pred.lower() for r in ref)
 *                     / len(ref)
 *   string_match_part: max over the one reply of the same share (lm-eval's
 *                     code, which for one reply is string_match_all's
 *                     number; NVIDIA's RULER takes max over the
 *                     references instead, 1 when any one is there)
 *
 * A row is right or wrong: ruler-all is right at a share of 1 (every
 * string there), ruler-part when any one is (NVIDIA's verdict, lm-eval's
 * share above 0). The share itself is the rule's extracted text, "k/n";
 * what it compares is which strings were found, one '1' or '0' each.
 * tests/tasks/ruler_diff.py holds both verdicts to lm-eval's Python on
 * canned replies.
 */
#include <string.h>

#include "alloc.h"
#include "internal.h"
#include "../pyre/pyre.h"
#include "task.h"
#include "task_int.h"

/* text[0..len) holds s[0..n) (Python's `s in text`; "" is in anything). */
static int contains(const char *text, size_t len, const char *s, size_t n)
{
    const char *p = text, *end = text + len;

    if (n == 0)
        return 1;
    while ((size_t)(end - p) >= n &&
           (p = memchr(p, s[0], (size_t)(end - p) - n + 1)) != NULL) {
        if (memcmp(p, s, n) == 0)
            return 1;
        p++;
    }
    return 0;
}

/* *x (owned, NUL-terminated, *n bytes) with re.sub(strip, "", x). */
static int strip(const struct grader_task *t, char **x, size_t *n)
{
    char *out;
    size_t m;
    int rc;

    if (!pyre_may_match(t->strip, *x, *n))
        return 0;
    if ((rc = pyre_sub_empty(t->strip, *x, *n, &out, &m)) != 0)
        return rc;
    grader__free(*x);
    *x = out;
    *n = m;
    return 0;
}

/* postprocess_pred, then lower(): the reply as lm-eval compares it, new
 * (grader__free). */
static int reply_form(const struct grader_task *t, const char *text,
                      size_t len, char **out, size_t *n)
{
    char *x = grader__strndup(text, len), *low;
    size_t i;
    int rc;

    if (x == NULL)
        return GRADER_ENOMEM;
    *n = len;
    rc = strip(t, &x, n);
    for (i = 0; rc == 0 && i < *n; i++)
        if ((unsigned char)x[i] < 0x20)
            x[i] = '\n';
    if (rc == 0)
        rc = strip(t, &x, n);
    if (rc == 0 && (rc = pyre_str_lower(x, *n, &low, n)) == 0) {
        grader__free(x);
        x = low;
    }
    if (rc != 0) {
        grader__free(x);
        return rc;
    }
    *out = x;
    return 0;
}

/* "k/n" into out. */
static void share(char *out, size_t k, size_t n)
{
    char digits[48];
    size_t d = 0, o = 0, v[2] = {k, n}, i;

    for (i = 0; i < 2; i++) {
        size_t x = v[i];
        do
            digits[d++] = (char)('0' + x % 10);
        while ((x /= 10) > 0);
        while (d > 0)
            out[o++] = digits[--d];
        if (i == 0)
            out[o++] = '/';
    }
    out[o] = '\0';
}

int grader__rule_ruler(const struct grader_task *t, int all, const char *text,
                       size_t len, const char *ref, size_t ref_len,
                       struct grader_grade *out)
{
    char *reply = NULL, *low;
    size_t n = 0, found = 0, count = 0, start = 0, i, m;
    int rc = 0;

    if (text == NULL) /* no reply: nothing found */
        text = "", len = 0;
    if ((rc = reply_form(t, text, len, &reply, &n)) != 0)
        return rc;
    for (i = 0; i <= ref_len && rc == 0; i++) {
        if (i < ref_len && ref[i] != '\n')
            continue;
        if ((rc = pyre_str_lower(ref + start, i - start, &low, &m)) != 0)
            break;
        if (contains(reply, n, low, m)) {
            found++;
            if (count < GRADER_GRADE_MAX - 1)
                out->compared[count] = '1';
        } else if (count < GRADER_GRADE_MAX - 1)
            out->compared[count] = '0';
        count++;
        grader__free(low);
        start = i + 1;
    }
    grader__free(reply);
    if (rc != 0)
        return rc;
    out->compared[count < GRADER_GRADE_MAX ? count : GRADER_GRADE_MAX - 1] =
        '\0';
    out->said = n > 0;
    out->right = count > 0 && (all ? found == count : found > 0);
    share(out->extracted, found, count);
    return 0;
}
