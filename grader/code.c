/*
 * code.c - a code task's part of the grader (task.h, docs/code.md): the
 * code a reply holds, and its verdict read from the execution the row
 * records.
 *
 * Why the grader does not run anything: it opens no file and starts no
 * process (docs/design.md). The runner takes the code with
 * grader_code_extract (this file, so the code that ran and the code the
 * report shows are one), runs it in the sandbox (orchestrator/sandbox/),
 * and writes the outcome and the code's hash into the row; the grader
 * grades that record, and refuses a row whose content's code is not the
 * code that ran.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "task.h"
#include "task_int.h"

#define SAY(...)                                                              \
    do {                                                                      \
        if (msg != NULL)                                                      \
            snprintf(msg, msgsize, __VA_ARGS__);                              \
    } while (0)

#define CODE_SEED 0x434f4445ULL /* "CODE" */

static const char *const outcome_names[GRADER_EXEC_OUTCOMES] = {
    "passed",  "failed", "error",  "syntax_error",
    "timeout", "killed", "no_code"};

const char *grader_exec_name(int outcome)
{
    return outcome >= 0 && outcome < GRADER_EXEC_OUTCOMES
               ? outcome_names[outcome]
               : NULL;
}

int grader_exec_parse(const char *s, size_t len)
{
    for (int i = 0; i < GRADER_EXEC_OUTCOMES; i++)
        if (strlen(outcome_names[i]) == len &&
            memcmp(outcome_names[i], s, len) == 0)
            return i;
    return -1;
}

/* Whether the fence's info string s[0..n) (the rest of its line) names
 * Python or nothing: "```python", "``` py", "```Python3". */
static int python_info(const char *s, size_t n)
{
    static const char *const names[] = {"python", "py", "python3"};

    while (n > 0 && (*s == ' ' || *s == '\t'))
        s++, n--;
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    if (n == 0)
        return 1;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        size_t k = strlen(names[i]);
        if (k == n) {
            size_t j = 0;
            while (j < k && (s[j] | 0x20) == names[i][j])
                j++;
            if (j == k)
                return 1;
        }
    }
    return 0;
}

/* The end of the line that starts at p (its '\n', or end). */
static const char *eol(const char *p, const char *end)
{
    const char *q = memchr(p, '\n', (size_t)(end - p));
    return q ? q : end;
}

/* A fence line: up to three spaces, then three or more backquotes. The
 * backquotes' count into *ticks; NULL when the line is none. */
static const char *fence(const char *p, const char *end, size_t *ticks)
{
    int sp = 0;

    while (p < end && *p == ' ' && sp < 3)
        p++, sp++;
    *ticks = 0;
    while (p < end && *p == '`')
        p++, (*ticks)++;
    return *ticks >= 3 ? p : NULL;
}

/* The first Python block of text: 1 with its contents' span, else 0. A
 * closing fence is a line of as many backquotes or more and nothing
 * else (CommonMark's rule); none closes it: it runs to the end. Another
 * language's block is passed over whole, its closing fence with it. */
static int fenced(const char *text, size_t len, size_t *off, size_t *n)
{
    const char *end = text + len, *p = text, *info, *body, *q;
    size_t ticks, close;

    while (p < end) {
        const char *line_end = eol(p, end);
        info = fence(p, line_end, &ticks);
        if (info == NULL ||
            memchr(info, '`', (size_t)(line_end - info)) != NULL) {
            p = line_end < end ? line_end + 1 : end;
            continue;
        }
        body = line_end < end ? line_end + 1 : end;
        for (q = body; q < end;) {
            const char *qe = eol(q, end), *rest = fence(q, qe, &close);
            if (rest != NULL && close >= ticks &&
                grader__blank(rest, (size_t)(qe - rest)))
                break;
            q = qe < end ? qe + 1 : end;
        }
        if (python_info(info, (size_t)(line_end - info)) &&
            !grader__blank(body, (size_t)(q - body))) {
            *off = (size_t)(body - text);
            *n = (size_t)(q - body);
            return 1;
        }
        /* an empty block, or another language's: on past its end */
        q = eol(q, end);
        p = q < end ? q + 1 : end;
    }
    return 0;
}

int grader_code_extract(enum grader_rule_kind kind, const char *text,
                        size_t len, size_t *off, size_t *n)
{
    *off = *n = 0;
    if (text == NULL)
        return 0;
    if (kind == GRADER_RULE_EXEC_BODY) {
        if (grader__blank(text, len))
            return 0;
        *n = len;
        return 1;
    }
    return kind == GRADER_RULE_EXEC ? fenced(text, len, off, n) : 0;
}

void grader_code_hash(const char *code, size_t len, char *hex)
{
    snprintf(hex, 17, "%016llx",
             (unsigned long long)grader__hash64(code, len, CODE_SEED));
}

/* The outcome in words, into out (GRADER_GRADE_MAX). */
static void outcome_words(const struct grader_exec *e, char *out)
{
    char tests[48] = "";

    if (e->total > 0 && e->passed >= 0)
        snprintf(tests, sizeof(tests), " %ld/%ld", e->passed, e->total);
    if (e->exception != NULL && e->exception_len > 0)
        snprintf(out, GRADER_GRADE_MAX, "%s %.*s%s",
                 grader_exec_name(e->outcome),
                 (int)(e->exception_len > 32 ? 32 : e->exception_len),
                 e->exception, tests);
    else
        snprintf(out, GRADER_GRADE_MAX, "%s%s", grader_exec_name(e->outcome),
                 tests);
}

int grader_task_grade_exec(const struct grader_task *t, size_t rule,
                           const struct grader_reply *reply,
                           struct grader_grade *out, char *msg, size_t msgsize)
{
    const struct grader_exec *e = reply->exec;
    enum grader_rule_kind kind;
    char hex[17];
    size_t off, n;
    int has;

    memset(out, 0, sizeof(*out));
    out->bucket = -1;
    if (rule >= t->nrules || (t->rules[rule].kind != GRADER_RULE_EXEC &&
                              t->rules[rule].kind != GRADER_RULE_EXEC_BODY)) {
        SAY("task '%s': rule %zu does not grade code", t->name, rule);
        return GRADER_EARG;
    }
    kind = t->rules[rule].kind;
    if (e == NULL || e->outcome < 0 || e->outcome >= GRADER_EXEC_OUTCOMES) {
        SAY("code item '%.*s': no recorded outcome (\"exec\")",
            (int)(reply->id_len > 64 ? 64 : reply->id_len),
            reply->id ? reply->id : "");
        return GRADER_EARG;
    }
    has = grader_code_extract(kind, reply->content, reply->content_len, &off,
                              &n);
    /* the code that ran must be the content's: a row edited after, or a
     * writer that ran something else, is no record of this reply */
    if (has != (e->outcome != GRADER_EXEC_NO_CODE) ||
        (has && (e->code_hash == NULL || e->code_hash_len != 16 ||
                 (grader_code_hash(reply->content + off, n, hex),
                  memcmp(hex, e->code_hash, 16) != 0)))) {
        SAY("code item '%.*s': the recorded execution (\"%s\", code_hash "
            "%.*s) is not of the code in its content (%s)",
            (int)(reply->id_len > 64 ? 64 : reply->id_len),
            reply->id ? reply->id : "", grader_exec_name(e->outcome),
            (int)(e->code_hash
                      ? (e->code_hash_len > 16 ? 16 : e->code_hash_len)
                      : 4),
            e->code_hash ? e->code_hash : "null",
            has ? "its hash differs" : "it holds no code");
        return GRADER_EARG;
    }
    out->bucket = e->outcome;
    out->right = e->outcome == GRADER_EXEC_PASSED;
    out->said = has;
    outcome_words(e, out->extracted);
    /* the same code is the same answer; the outcome first, so that an
     * epitaph can say what came of it (md.c shows it without the hash) */
    if (has)
        snprintf(out->compared, sizeof(out->compared), "%.40s code:%.16s",
                 out->extracted, hex);
    return 0;
}
