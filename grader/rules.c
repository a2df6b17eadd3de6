/*
 * rules.c - the rules of task.h that are not regular expressions: the
 * last \boxed{...} and the letter of a multiple-choice answer. Pure
 * functions of the reply's text, as extract.c's answer-line rule is.
 */
#include <string.h>

#include "internal.h"
#include "task.h"
#include "task_int.h"

static int lower(int c)
{
    return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

static int alnum(int c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
           (c >= 'A' && c <= 'Z');
}

/* Copy s[0..n) into out (GRADER_GRADE_MAX), cut before a UTF-8
 * continuation byte so the copy is whole characters. */
void grader__grade_copy(char *out, const char *s, size_t n)
{
    if (n >= GRADER_GRADE_MAX) {
        n = GRADER_GRADE_MAX - 1;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    memcpy(out, s, n);
    out[n] = '\0';
}

/* ---- \boxed{...} ------------------------------------------------------ */

/*
 * The content of the last "\boxed{" (spaces allowed before the brace)
 * whose braces close: *len and its start, or NULL. A last \boxed{ that
 * never closes (a reply cut off inside it) is no answer: an earlier one is
 * not used instead, as the answer-line rule never uses an earlier
 * "Answer:".
 */
static const char *last_boxed(const char *text, size_t len, size_t *out_len)
{
    static const char word[] = "\\boxed";
    size_t i = len, j, depth;

    while (i > 0) {
        i--;
        if (len - i < sizeof(word) - 1 ||
            memcmp(text + i, word, sizeof(word) - 1) != 0)
            continue;
        j = i + sizeof(word) - 1;
        while (j < len && text[j] == ' ')
            j++;
        if (j >= len || text[j] != '{')
            continue; /* "\boxed" in prose, or \boxedX: not a box */
        for (depth = 0, i = j; i < len; i++) {
            if (text[i] == '{')
                depth++;
            else if (text[i] == '}' && --depth == 0) {
                *out_len = i - j - 1;
                return text + j + 1;
            }
        }
        return NULL;
    }
    return NULL;
}

/* Append s[0..n) to out (capped at cap - 1, NUL-terminated). */
static void put(char *out, size_t cap, size_t *k, const char *s, size_t n)
{
    while (n-- > 0 && *k + 1 < cap)
        out[(*k)++] = *s++;
    out[*k] = '\0';
}

/*
 * TeX a boxed answer is commonly written in, made plain: {,} -> ","
 * (1{,}072), the spacing commands \! \, \; \: and "\ " dropped, \$ and \%
 * as $ and %, and \text{X} \textbf{X} \mathrm{X} \mbox{X} as X. out holds
 * at most cap - 1 bytes; longer is cut (a boxed answer is a few bytes).
 */
static void boxed_plain(const char *s, size_t n, char *out, size_t cap)
{
    static const char *const wraps[] = {"\\textbf{", "\\text{", "\\mathrm{",
                                        "\\mbox{"};
    size_t i = 0, k = 0, w;

    out[0] = '\0';
    while (i < n) {
        if (n - i >= 3 && memcmp(s + i, "{,}", 3) == 0) {
            put(out, cap, &k, ",", 1);
            i += 3;
            continue;
        }
        if (s[i] == '\\' && i + 1 < n && strchr("!,;: ", s[i + 1])) {
            i += 2;
            continue;
        }
        if (s[i] == '\\' && i + 1 < n &&
            (s[i + 1] == '$' || s[i + 1] == '%')) {
            put(out, cap, &k, s + i + 1, 1);
            i += 2;
            continue;
        }
        for (w = 0; w < sizeof(wraps) / sizeof(wraps[0]); w++) {
            size_t wl = strlen(wraps[w]);
            if (n - i >= wl && memcmp(s + i, wraps[w], wl) == 0)
                break;
        }
        if (w < sizeof(wraps) / sizeof(wraps[0])) {
            /* drop the command and its braces, keep what is inside */
            size_t wl = strlen(wraps[w]), depth = 1, j = i + wl;
            while (j < n && depth > 0) {
                if (s[j] == '{')
                    depth++;
                else if (s[j] == '}')
                    depth--;
                if (depth > 0)
                    j++;
            }
            boxed_plain(s + i + wl, j - i - wl, out + k, cap - k);
            k += strlen(out + k);
            i = j < n ? j + 1 : j;
            continue;
        }
        put(out, cap, &k, s + i, 1);
        i++;
    }
}

/* Trim spaces, tabs and newlines off both ends of s in place. */
static void trim(char *s)
{
    size_t n = strlen(s), b = 0;

    while (n > 0 && strchr(" \t\r\n", s[n - 1]))
        n--;
    while (b < n && strchr(" \t\r\n", s[b]))
        b++;
    memmove(s, s + b, n - b);
    s[n - b] = '\0';
}

int grader__rule_boxed(enum grader_ref_kind kind, const char *text, size_t len,
                       const struct grader_num *canon,
                       struct grader_grade *out)
{
    char plain[4 * GRADER_GRADE_MAX];
    struct grader_num num;
    const char *box;
    size_t n;

    out->said = out->right = 0;
    out->extracted[0] = '\0';
    if (text == NULL || (box = last_boxed(text, len, &n)) == NULL)
        return 0;
    boxed_plain(box, n, plain, sizeof(plain));
    trim(plain);
    if (plain[0] == '\0')
        return 0;
    out->said = 1;
    grader__grade_copy(out->extracted, plain, strlen(plain));
    if (kind == GRADER_REF_LETTER) {
        size_t l = strlen(plain);
        const char *letter = plain;
        if (l == 3 && plain[0] == '(' && plain[2] == ')') {
            letter = plain + 1;
            l = 1;
        }
        out->right = l == 1 && lower((unsigned char)letter[0]) ==
                                   lower((unsigned char)canon->s[0]);
        return 0;
    }
    /* a number, compared as the answer-line rule compares: "1,072",
     * "$1072" and "1072.00" are one answer; anything else is wrong */
    if (grader_num_parse(plain, strlen(plain), &num) == 0) {
        out->right = strcmp(num.s, canon->s) == 0;
        grader__grade_copy(out->compared, num.s, strlen(num.s));
    }
    return 0;
}

/* ---- a multiple-choice letter ------------------------------------------ */

int grader__rule_choice(const char *text, size_t len,
                        const struct grader_num *canon,
                        struct grader_grade *out)
{
    size_t colon = len, i;
    int c, bracket = 0;

    out->said = out->right = 0;
    out->extracted[0] = '\0';
    if (text == NULL)
        return 0;
    /* the last colon that closes "answer" */
    for (;;) {
        while (colon > 0 && text[colon - 1] != ':')
            colon--;
        if (colon == 0)
            return 0;
        colon--;
        if (grader__answer_before(text, colon))
            break;
    }
    i = colon + 1;
    while (i < len && strchr(" \t*_", text[i]))
        i++;
    if (i < len && (text[i] == '(' || text[i] == '['))
        bracket = 1, i++;
    if (i >= len)
        return 0;
    c = (unsigned char)text[i];
    /* a lower-case letter only in brackets: "Answer: a total of 5" is
     * prose, "Answer: (b)" a choice */
    if (!((c >= 'A' && c <= 'Z') || (bracket && c >= 'a' && c <= 'z')))
        return 0;
    /* "Answer: Because ..." is a word, not the letter B */
    if (i + 1 < len && alnum((unsigned char)text[i + 1]))
        return 0;
    out->said = 1;
    out->extracted[0] = (char)(c >= 'a' ? c - ('a' - 'A') : c);
    out->extracted[1] = '\0';
    out->right = out->extracted[0] == canon->s[0];
    return 0;
}
