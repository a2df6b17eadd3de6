/*
 * codeitem.c - a code item read from HumanEval's or MBPP's line; its
 * tests split, joined for the reference (codeitem.h, docs/code.md).
 */
#include "codeitem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../grader/grader.h"
#include "../../util/util.h"
#include "../base/hash.h"

/* The separator of the tests joined for the reference: a control
 * character no test may hold, so two lists never join alike. */
static const char ref_sep[] = "\n\x1e\n";

void codeitem_release(struct codeitem *it)
{
    free(it->prompt);
    free(it->entry);
    free(it->setup);
    for (size_t i = 0; i < it->ntests; i++)
        free(it->tests[i]);
    free(it->tests);
    free(it->line);
    memset(it, 0, sizeof(*it));
}

int codeitem_is(const json_t *o)
{
    return json_object_get(o, "entry_point") != NULL ||
           json_object_get(o, "test_list") != NULL;
}

/* s[0..n) as a new string. */
static char *dupn(const char *s, size_t n)
{
    char *p = xrealloc(NULL, n + 1);

    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

/* ---- splitting HumanEval's check -------------------------------------- */

/* Python's lexical state across lines: inside a string (quote, triple),
 * the depth of brackets open. */
struct scan {
    char quote;
    int triple, depth;
};

/* Scan line [p, e) (without its newline) on from st; 1 when it ends in a
 * backslash that continues it outside a string. */
static int scan_line(struct scan *st, const char *p, const char *e)
{
    for (; p < e; p++) {
        if (st->quote != 0) {
            if (*p == '\\' && p + 1 < e)
                p++;
            else if (*p == st->quote &&
                     (!st->triple || (e - p >= 3 && p[1] == st->quote &&
                                      p[2] == st->quote))) {
                p += st->triple ? 2 : 0;
                st->quote = 0;
            }
            continue;
        }
        if (*p == '#')
            return 0;
        if (*p == '\'' || *p == '"') {
            st->quote = *p;
            st->triple = e - p >= 3 && p[1] == *p && p[2] == *p;
            p += st->triple ? 2 : 0;
        } else if (*p == '(' || *p == '[' || *p == '{')
            st->depth++;
        else if ((*p == ')' || *p == ']' || *p == '}') && st->depth > 0)
            st->depth--;
        else if (*p == '\\' && p + 1 == e)
            return 1;
    }
    if (st->quote != 0 && !st->triple)
        st->quote = 0; /* an unclosed one-line string: Python's error */
    return 0;
}

/* The end of the line at p (its newline, or the string's end). */
static const char *line_end(const char *p)
{
    const char *nl = strchr(p, '\n');

    return nl ? nl : p + strlen(p);
}

/* Whether [p, e) is blank or a comment alone. */
static int blank_or_comment(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f'))
        p++;
    return p == e || *p == '#';
}

/* The assert at p (its first line indented by ind[0..nind)) dedented,
 * appended to out; *next the text after it. -1 when it does not end
 * before the test does. */
static int take_assert(const char *p, const char *ind, size_t nind,
                       struct buf *out, const char **next)
{
    struct scan st = {0, 0, 0};

    for (;;) {
        const char *e = line_end(p);
        int in_string = st.quote != 0, more;
        if (!in_string && (size_t)(e - p) >= nind && memcmp(p, ind, nind) == 0)
            p += nind;
        more = scan_line(&st, p, e);
        buf_append(out, p, (size_t)(e - p));
        buf_append(out, "\n", 1);
        if (!more && st.depth == 0 && st.quote == 0) {
            *next = *e ? e + 1 : e;
            return 0;
        }
        if (*e == '\0')
            return -1;
        p = e + 1;
    }
}

/* Whether the line at p begins an assert statement at indentation ind. */
static int is_assert(const char *p, const char *ind, size_t nind)
{
    if (memcmp(p, ind, nind) != 0)
        return 0;
    p += nind;
    return strncmp(p, "assert", 6) == 0 &&
           (p[6] == ' ' || p[6] == '(' || p[6] == '\t');
}

/* check's body at body split into asserts (each into tests[], new, with
 * head before it); the count, or 0 when the body is not only asserts,
 * comments and blank lines, or holds more than CODEITEM_TESTS_MAX. */
static size_t split_body(const char *body, const char *head, char **tests)
{
    const char *p = body, *ind = NULL;
    size_t nind = 0, n = 0;

    while (*p) {
        const char *e = line_end(p);
        struct buf b = {0};
        if (blank_or_comment(p, e)) {
            p = *e ? e + 1 : e;
            continue;
        }
        if (ind == NULL) { /* the first statement sets the body's indent */
            ind = p;
            nind = strspn(p, " \t");
        }
        if (nind == 0 || n == CODEITEM_TESTS_MAX || !is_assert(p, ind, nind))
            break;
        buf_puts(&b, head);
        if (take_assert(p, ind, nind, &b, &p) != 0) {
            buf_release(&b);
            break;
        }
        tests[n++] = b.p;
    }
    if (*p == '\0' && n > 0)
        return n;
    while (n > 0)
        free(tests[--n]);
    return 0;
}

int codeitem_split(const char *test, const char *entry, char ***tests,
                   size_t *n)
{
    static const char sig[] = "def check(candidate):";
    const char *def = test, *e;
    char **t = xrealloc(NULL, CODEITEM_TESTS_MAX * sizeof(*t));
    struct buf b = {0};
    size_t k = 0;

    while ((def = strstr(def, sig)) != NULL && def != test && def[-1] != '\n')
        def += sizeof(sig) - 1;
    if (def != NULL) {
        e = line_end(def);
        if (blank_or_comment(def + sizeof(sig) - 1, e) && *e) {
            buf_append(&b, test, (size_t)(def - test));
            buf_puts(&b, "candidate = ");
            buf_puts(&b, entry);
            buf_puts(&b, "\n");
            k = split_body(e + 1, b.p, t);
            buf_release(&b);
        }
    }
    if (k == 0) { /* human-eval's program: the test, then check(ENTRY) */
        buf_puts(&b, test);
        buf_puts(&b, "\ncheck(");
        buf_puts(&b, entry);
        buf_puts(&b, ")\n");
        t[0] = b.p;
    }
    *tests = t;
    *n = k > 0 ? k : 1;
    return k > 0;
}

/* ---- the function an MBPP test calls ---------------------------------- */

static int ident_char(char c, int first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
}

/* Names a test calls that are not the function under test. */
static int wrapper(const char *s, size_t n)
{
    static const char *const names[] = {
        "assert", "not",  "and",   "or",   "in",        "is",        "set",
        "sorted", "list", "tuple", "dict", "abs",       "round",     "len",
        "str",    "int",  "float", "sum",  "min",       "max",       "all",
        "any",    "bool", "type",  "repr", "frozenset", "isinstance"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strlen(names[i]) == n && memcmp(names[i], s, n) == 0)
            return 1;
    return 0;
}

char *codeitem_called(const char *test)
{
    const char *p = test;
    char quote = 0;

    for (; *p; p++) {
        const char *s = p;
        if (quote != 0) {
            if (*p == '\\' && p[1] != '\0')
                p++;
            else if (*p == quote)
                quote = 0;
            continue;
        }
        if (*p == '\'' || *p == '"') {
            quote = *p;
            continue;
        }
        if (!ident_char(*p, 1) ||
            (p > test && (ident_char(p[-1], 0) || p[-1] == '.')))
            continue;
        while (ident_char(p[1], 0))
            p++;
        const char *q = p + 1;
        while (*q == ' ')
            q++;
        if (*q == '(' && !wrapper(s, (size_t)(p + 1 - s)))
            return dupn(s, (size_t)(p + 1 - s));
    }
    return NULL;
}

/* ---- a line ----------------------------------------------------------- */

/* Why string v, key's, is refused (the problem, into why), or NULL: a
 * string of 1 to max bytes without NUL or a control character but tab,
 * newline, return and form feed. */
static const char *text_bad(const json_t *v, const char *key, size_t max,
                            char *why, size_t whysize)
{
    const char *s = json_string_value(v);
    size_t n = s ? json_string_length(v) : 0;

    if (s == NULL || n == 0) {
        snprintf(why, whysize, "%s must be a non-empty string", key);
        return why;
    }
    if (n > max) {
        snprintf(why, whysize, "%s is over the cap of %zu bytes", key, max);
        return why;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') ||
            c == 0x7f) {
            snprintf(why, whysize,
                     "%s holds a control character (byte %zu, 0x%02x)", key,
                     i + 1, c);
            return why;
        }
    }
    return NULL;
}

/* Whether s is a Python name. */
static int python_name(const char *s)
{
    if (s == NULL || !ident_char(s[0], 1) || strlen(s) > 255)
        return 0;
    for (size_t i = 1; s[i]; i++)
        if (!ident_char(s[i], 0))
            return 0;
    return 1;
}

/* The item's id from "task_id": a string as given, an MBPP line's whole
 * number N as "mbpp/N". */
static const char *id_read(const json_t *o, int mbpp, char **id, char *why,
                           size_t whysize)
{
    const json_t *v = json_object_get(o, "task_id");
    char num[48];

    if (mbpp && json_is_integer(v)) {
        snprintf(num, sizeof(num), "mbpp/%" JSON_INTEGER_FORMAT,
                 json_integer_value(v));
        *id = xstrdup(num);
        return NULL;
    }
    if (!json_is_string(v) || json_string_length(v) == 0 ||
        json_string_length(v) > GRADER_ID_MAX ||
        text_bad(v, "\"task_id\"", GRADER_ID_MAX, why, whysize) != NULL ||
        strchr(json_string_value(v), '\n') != NULL) {
        snprintf(why, whysize,
                 "\"task_id\" must be a string of 1 to %d bytes on one line%s",
                 GRADER_ID_MAX, mbpp ? ", or a whole number" : "");
        return why;
    }
    *id = xstrdup(json_string_value(v));
    return NULL;
}

/* The reference: the sha256 of the setup (when any) and each test,
 * joined by ref_sep; -1 when they are over CODEITEM_TESTS_BYTES. */
static int reference(const struct codeitem *it, char *hex)
{
    size_t total = it->setup ? strlen(it->setup) : 0;
    struct buf b = {0};

    for (size_t i = 0; i < it->ntests; i++)
        total += strlen(it->tests[i]);
    if (total > CODEITEM_TESTS_BYTES)
        return -1;
    if (it->setup != NULL) {
        buf_puts(&b, it->setup);
        buf_puts(&b, ref_sep);
    }
    for (size_t i = 0; i < it->ntests; i++) {
        if (i > 0)
            buf_puts(&b, ref_sep);
        buf_puts(&b, it->tests[i]);
    }
    hash_bytes(b.p, b.len, hex);
    buf_release(&b);
    return 0;
}

/* A HumanEval line into it and q; why on a refusal. */
static const char *humaneval(const json_t *o, struct codeitem *it,
                             struct codeitem_question *q, char *why,
                             size_t whysize)
{
    const json_t *prompt = json_object_get(o, "prompt"),
                 *test = json_object_get(o, "test"),
                 *entry = json_object_get(o, "entry_point");
    const char *p;
    struct buf b = {0};
    char def[300];

    if (text_bad(prompt, "\"prompt\"", CODEITEM_PROMPT_MAX, why, whysize) ||
        text_bad(test, "\"test\"", CODEITEM_TESTS_BYTES, why, whysize))
        return why;
    if (!python_name(json_string_value(entry)))
        return "\"entry_point\" must be a Python name";
    snprintf(def, sizeof(def), "def %s(", json_string_value(entry));
    p = json_string_value(prompt);
    while ((p = strstr(p, def)) != NULL && p != json_string_value(prompt) &&
           p[-1] != '\n' && p[-1] != ' ')
        p += strlen(def);
    if (p == NULL) {
        snprintf(why, whysize,
                 "\"prompt\" does not define its entry point (no \"def "
                 "%s(\")",
                 json_string_value(entry));
        return why;
    }
    it->prompt = xstrdup(json_string_value(prompt));
    it->entry = xstrdup(json_string_value(entry));
    it->split = codeitem_split(json_string_value(test), it->entry, &it->tests,
                               &it->ntests);
    buf_puts(&b, "```python\n");
    buf_puts(&b, it->prompt);
    if (it->prompt[strlen(it->prompt) - 1] != '\n')
        buf_puts(&b, "\n");
    buf_puts(&b, "```");
    q->text = b.p;
    return NULL;
}

/* MBPP's setup: test_setup_code (the original's) or test_imports (the
 * sanitized file's) into it->setup, NULL when empty; why on a refusal. */
static const char *mbpp_setup(const json_t *o, struct codeitem *it, char *why,
                              size_t whysize)
{
    const json_t *code = json_object_get(o, "test_setup_code"),
                 *imports = json_object_get(o, "test_imports"), *v;
    struct buf b = {0};
    size_t i;

    if (code != NULL && !json_is_string(code))
        return "\"test_setup_code\" must be a string";
    if (code != NULL && json_string_length(code) > 0) {
        if (text_bad(code, "\"test_setup_code\"", CODEITEM_TESTS_BYTES, why,
                     whysize))
            return why;
        it->setup = xstrdup(json_string_value(code));
    }
    if (imports == NULL)
        return NULL;
    if (!json_is_array(imports) || json_array_size(imports) > 256)
        return "\"test_imports\" must be a list of at most 256 strings";
    json_array_foreach(imports, i, v)
    {
        if (text_bad(v, "a \"test_imports\" item", 4096, why, whysize))
            return why;
    }
    if (it->setup != NULL)
        buf_puts(&b, it->setup);
    json_array_foreach(imports, i, v)
    {
        if (b.len > 0)
            buf_puts(&b, "\n");
        buf_puts(&b, json_string_value(v));
    }
    if (b.len > 0) { /* the setup, then the imports, one a line */
        free(it->setup);
        it->setup = b.p;
    } else
        buf_release(&b);
    return NULL;
}

/* An MBPP line (either file's) into it and q; why on a refusal. */
static const char *mbpp(const json_t *o, struct codeitem *it,
                        struct codeitem_question *q, char *why, size_t whysize)
{
    const json_t *list = json_object_get(o, "test_list"), *v;
    const json_t *text = json_object_get(o, "text");
    const char *key = "\"text\"", *bad;
    struct buf b = {0};
    size_t i;

    if (text == NULL) { /* the sanitized file's */
        text = json_object_get(o, "prompt");
        key = "\"prompt\"";
    }
    if (text_bad(text, key, CODEITEM_PROMPT_MAX, why, whysize))
        return why;
    if (!json_is_array(list) || json_array_size(list) == 0 ||
        json_array_size(list) > CODEITEM_TESTS_MAX) {
        snprintf(why, whysize,
                 "\"test_list\" must be a list of 1 to %d strings",
                 CODEITEM_TESTS_MAX);
        return why;
    }
    json_array_foreach(list, i, v)
    {
        char what[48];
        snprintf(what, sizeof(what), "\"test_list\" item %zu", i + 1);
        if (!json_is_string(v)) {
            snprintf(why, whysize,
                     "\"test_list\" must be a list of strings: item %zu is "
                     "not one",
                     i + 1);
            return why;
        }
        if (text_bad(v, what, CODEITEM_TESTS_BYTES, why, whysize))
            return why;
    }
    if ((bad = mbpp_setup(o, it, why, whysize)) != NULL)
        return bad;
    it->tests = xrealloc(NULL, json_array_size(list) * sizeof(*it->tests));
    buf_puts(&b, json_string_value(text));
    buf_puts(&b, " Your code should pass these tests:\n\n");
    json_array_foreach(list, i, v)
    {
        it->tests[it->ntests++] = xstrdup(json_string_value(v));
        buf_puts(&b, json_string_value(v));
        buf_puts(&b, "\n");
    }
    it->entry = codeitem_called(it->tests[0]);
    q->text = b.p;
    return NULL;
}

int codeitem_read(const json_t *o, struct codeitem *it,
                  struct codeitem_question *q, char *why, size_t whysize)
{
    int is_mbpp = json_object_get(o, "test_list") != NULL;
    const char *bad;

    memset(it, 0, sizeof(*it));
    memset(q, 0, sizeof(*q));
    if (is_mbpp && json_object_get(o, "entry_point") != NULL)
        bad = "both \"test_list\" (MBPP's) and \"entry_point\" "
              "(HumanEval's): give one shape";
    else if ((bad = id_read(o, is_mbpp, &q->id, why, whysize)) == NULL)
        bad = is_mbpp ? mbpp(o, it, q, why, whysize)
                      : humaneval(o, it, q, why, whysize);
    if (bad == NULL && reference(it, q->ref) != 0) {
        snprintf(why, whysize,
                 "its tests as run (\"test\" or \"test_list\", with the "
                 "setup) are over the cap of %u bytes",
                 CODEITEM_TESTS_BYTES);
        bad = why;
    }
    if (bad == NULL)
        return 0;
    if (bad != why)
        snprintf(why, whysize, "%s", bad);
    codeitem_release(it);
    free(q->id);
    free(q->text);
    memset(q, 0, sizeof(*q));
    return -1;
}
