/*
 * task.c - tasks and their rules: building one, reading one, grading a
 * reply by one rule (task.h). The built-in tasks' texts are in
 * task_builtin.c; the non-regex rules in rules.c.
 */
#include "task.h"

#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "extract.h"
#include "internal.h"
#include "../pyre/pyre.h"
#include "task_int.h"

#define SAY(...)                                                              \
    do {                                                                      \
        if (msg != NULL)                                                      \
            snprintf(msg, msgsize, __VA_ARGS__);                              \
    } while (0)

struct grader_task *grader_task_new(const char *name, enum grader_ref_kind ref)
{
    struct grader_task *t;
    size_t n = name ? strlen(name) : 0;

    if (n == 0 || n >= GRADER_TASK_NAME_MAX)
        return NULL;
    if ((t = grader__calloc(1, sizeof(*t))) == NULL)
        return NULL;
    memcpy(t->name, name, n + 1);
    t->ref = ref;
    return t;
}

void grader_task_free(struct grader_task *t)
{
    size_t i, k;

    if (t == NULL)
        return;
    grader__free(t->prompt);
    for (i = 0; i < t->nstops; i++)
        grader__free(t->stops[i]);
    for (i = 0; i < t->nrules; i++) {
        pyre_free(t->rules[i].re);
        grader__free(t->rules[i].pattern);
        grader__free(t->rules[i].fallback);
        for (k = 0; k < t->rules[i].nignore; k++) {
            pyre_free(t->rules[i].ignore[k]);
            grader__free(t->rules[i].ignore_src[k]);
        }
    }
    pyre_free(t->strip);
    pyre_free(t->digits);
    grader__tooldocs_free(&t->docs);
    grader__free(t);
}

int grader_task_set_prompt(struct grader_task *t, const char *tmpl, char *msg,
                           size_t msgsize)
{
    size_t n = strlen(tmpl);
    char *p;

    if (n > GRADER_TASK_TEXT_MAX) {
        SAY("task '%s': the prompt is over %u bytes", t->name,
            GRADER_TASK_TEXT_MAX);
        return GRADER_EARG;
    }
    if (strstr(tmpl, "{question}") == NULL) {
        SAY("task '%s': the prompt has no {question}", t->name);
        return GRADER_EARG;
    }
    if ((p = grader__strndup(tmpl, n)) == NULL)
        return GRADER_ENOMEM;
    grader__free(t->prompt);
    t->prompt = p;
    return 0;
}

int grader_task_add_stop(struct grader_task *t, const char *stop, char *msg,
                         size_t msgsize)
{
    size_t n = strlen(stop);

    if (n == 0 || n > 256) {
        SAY("task '%s': a stop string must be 1 to 256 bytes", t->name);
        return GRADER_EARG;
    }
    if (t->nstops == GRADER_TASK_MAX_STOPS) {
        SAY("task '%s': more than %d stop strings (a chat request takes %d)",
            t->name, GRADER_TASK_MAX_STOPS, GRADER_TASK_MAX_STOPS);
        return GRADER_EARG;
    }
    if ((t->stops[t->nstops] = grader__strndup(stop, n)) == NULL)
        return GRADER_ENOMEM;
    t->nstops++;
    return 0;
}

void grader_task_set_max_tokens(struct grader_task *t, long max_tokens)
{
    t->max_tokens = max_tokens > 0 ? max_tokens : 0;
}

void grader_task_set_completions(struct grader_task *t, int on)
{
    t->completions = on != 0;
}

/* A new rule slot called name, or NULL with msg. */
static struct rule *new_rule(struct grader_task *t, const char *name,
                             char *msg, size_t msgsize)
{
    size_t n = strlen(name), i;
    struct rule *r;

    if (n == 0 || n >= GRADER_TASK_NAME_MAX) {
        SAY("task '%s': a rule name must be 1 to %d bytes", t->name,
            GRADER_TASK_NAME_MAX - 1);
        return NULL;
    }
    for (i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.')) {
            SAY("task '%s': rule name '%s' may hold only letters, digits, "
                "'-', '_' and '.'",
                t->name, name);
            return NULL;
        }
    }
    if (grader_task_rule_index(t, name) >= 0) {
        SAY("task '%s': two rules are called '%s'", t->name, name);
        return NULL;
    }
    if (t->nrules == GRADER_TASK_MAX_RULES) {
        SAY("task '%s': more than %d rules", t->name, GRADER_TASK_MAX_RULES);
        return NULL;
    }
    r = &t->rules[t->nrules];
    memset(r, 0, sizeof(*r));
    memcpy(r->name, name, n + 1);
    return r;
}

/* The shared patterns, compiled once per task. */
static int shared_patterns(struct grader_task *t)
{
    char m[128];

    /* lengths from the literals: a count by hand once took in the NUL */
    static const char strip[] = "\\A\\s+|\\s+\\Z", digits[] = "\\b(\\d+)\\b";

    if (t->strip == NULL &&
        pyre_compile(strip, sizeof(strip) - 1, 0, &t->strip, m, sizeof(m)))
        return GRADER_ENOMEM;
    if (t->digits == NULL &&
        pyre_compile(digits, sizeof(digits) - 1, 0, &t->digits, m, sizeof(m)))
        return GRADER_ENOMEM;
    return 0;
}

static int ruler_kind(enum grader_rule_kind kind)
{
    return kind == GRADER_RULE_RULER_ALL || kind == GRADER_RULE_RULER_PART;
}

/* Whether a rule of kind reads the task's references: a choice rule
 * letters, a RULER rule lists of expected strings (and a task of those
 * takes nothing else), boxed numbers or letters, the others numbers. 0,
 * or GRADER_EARG with msg. */
static int rule_fits(const struct grader_task *t, const char *name,
                     enum grader_rule_kind kind, char *msg, size_t msgsize)
{
    static const char *const refs[] = {
        "numbers", "letters", "lists of expected strings",
        "tool calls' possible answers", "code items' tests"};
    const char *reads = "a number";
    int calls = kind == GRADER_RULE_TOOLCALL;
    int exec = kind == GRADER_RULE_EXEC || kind == GRADER_RULE_EXEC_BODY;

    if (exec || t->ref == GRADER_REF_CODE) {
        /* one execution a reply: the runner runs the first exec rule's
         * code, and a second would grade a run that never happened */
        if (exec && t->ref == GRADER_REF_CODE && t->nrules == 0)
            return 0;
        reads = !exec                       ? "one answer"
                : t->ref == GRADER_REF_CODE ? "the one execution a reply "
                                              "has, which another rule grades"
                                            : "code items' tests";
    } else if (calls || t->ref == GRADER_REF_CALLS) {
        if (calls && t->ref == GRADER_REF_CALLS)
            return 0;
        reads = calls ? "tool calls' possible answers" : "one answer";
    } else if (ruler_kind(kind) || t->ref == GRADER_REF_ANSWERS) {
        if (ruler_kind(kind) && t->ref == GRADER_REF_ANSWERS)
            return 0;
        reads = ruler_kind(kind) ? "lists of expected strings"
                                 : "one answer, not a list";
    } else if ((kind == GRADER_RULE_CHOICE) == (t->ref == GRADER_REF_LETTER) ||
               kind == GRADER_RULE_BOXED)
        return 0;
    else if (kind == GRADER_RULE_CHOICE)
        reads = "a letter";
    SAY("task '%s': rule '%s' reads %s, and the task's references are %s",
        t->name, name, reads, refs[t->ref]);
    return GRADER_EARG;
}

int grader_task_add_rule(struct grader_task *t, const char *name,
                         enum grader_rule_kind kind, char *msg, size_t msgsize)
{
    struct rule *r;
    int rc;

    if (kind == GRADER_RULE_REGEX) {
        SAY("task '%s': rule '%s' needs a pattern", t->name, name);
        return GRADER_EARG;
    }
    if ((rc = rule_fits(t, name, kind, msg, msgsize)) != 0)
        return rc;
    if ((r = new_rule(t, name, msg, msgsize)) == NULL)
        return GRADER_EARG;
    if ((kind == GRADER_RULE_LAST_DIGITS || ruler_kind(kind)) &&
        (rc = shared_patterns(t)) != 0)
        return rc;
    r->kind = kind;
    t->nrules++;
    return 0;
}

int grader_task_add_regex(struct grader_task *t, const char *name,
                          const char *pattern, long group_select,
                          const char *fallback, const char *const *ignore,
                          size_t nignore, int ignore_case, char *msg,
                          size_t msgsize)
{
    char why[256];
    struct rule *r;
    size_t i;
    int rc;

    if (t->ref == GRADER_REF_ANSWERS || t->ref == GRADER_REF_CALLS ||
        t->ref == GRADER_REF_CODE) {
        SAY("task '%s': rule '%s' reads one answer, and the task's "
            "references are %s",
            t->name, name,
            t->ref == GRADER_REF_CALLS  ? "tool calls' possible answers"
            : t->ref == GRADER_REF_CODE ? "code items' tests"
                                        : "lists of expected strings");
        return GRADER_EARG;
    }
    if (nignore > GRADER_RULE_MAX_IGNORE) {
        SAY("task '%s': rule '%s' has more than %d patterns to ignore",
            t->name, name, GRADER_RULE_MAX_IGNORE);
        return GRADER_EARG;
    }
    if (strlen(fallback) >= GRADER_GRADE_MAX) {
        SAY("task '%s': rule '%s': the fallback is over %d bytes", t->name,
            name, GRADER_GRADE_MAX - 1);
        return GRADER_EARG;
    }
    if ((r = new_rule(t, name, msg, msgsize)) == NULL)
        return GRADER_EARG;
    r->kind = GRADER_RULE_REGEX;
    r->group_select = group_select;
    r->ignore_case = ignore_case != 0;
    rc = pyre_compile(pattern, strlen(pattern), 0, &r->re, why, sizeof(why));
    if (rc == 0 &&
        (r->pattern = grader__strndup(pattern, strlen(pattern))) == NULL)
        rc = GRADER_ENOMEM;
    for (i = 0; rc == 0 && i < nignore; i++) {
        rc = pyre_compile(ignore[i], strlen(ignore[i]), 0, &r->ignore[i], why,
                          sizeof(why));
        if (rc == 0 && (r->ignore_src[i] = grader__strndup(
                            ignore[i], strlen(ignore[i]))) == NULL) {
            pyre_free(r->ignore[i]);
            rc = GRADER_ENOMEM;
        }
        if (rc == 0)
            r->nignore++;
    }
    if (rc == 0 &&
        (r->fallback = grader__strndup(fallback, strlen(fallback))) == NULL)
        rc = GRADER_ENOMEM;
    if (rc == 0)
        rc = shared_patterns(t);
    if (rc != 0) {
        if (rc == GRADER_EARG)
            SAY("task '%s': rule '%s': %s", t->name, name, why);
        pyre_free(r->re);
        grader__free(r->pattern);
        for (i = 0; i < r->nignore; i++) {
            pyre_free(r->ignore[i]);
            grader__free(r->ignore_src[i]);
        }
        grader__free(r->fallback);
        memset(r, 0, sizeof(*r));
        return rc;
    }
    t->nrules++;
    return 0;
}

/* ---- reading ---------------------------------------------------------- */

const char *grader_task_name(const struct grader_task *t)
{
    return t->name;
}
enum grader_ref_kind grader_task_ref(const struct grader_task *t)
{
    return t->ref;
}
const char *grader_task_prompt(const struct grader_task *t)
{
    return t->prompt;
}
size_t grader_task_nstops(const struct grader_task *t)
{
    return t->nstops;
}
const char *grader_task_stop(const struct grader_task *t, size_t i)
{
    return i < t->nstops ? t->stops[i] : NULL;
}
int grader_task_completions(const struct grader_task *t)
{
    return t->completions;
}

long grader_task_max_tokens(const struct grader_task *t)
{
    return t->max_tokens;
}
size_t grader_task_nrules(const struct grader_task *t)
{
    return t->nrules;
}
const char *grader_task_rule_name(const struct grader_task *t, size_t i)
{
    return i < t->nrules ? t->rules[i].name : NULL;
}
enum grader_rule_kind grader_task_rule_kind(const struct grader_task *t,
                                            size_t i)
{
    return t->rules[i].kind;
}

long grader_task_rule_index(const struct grader_task *t, const char *name)
{
    size_t i;

    for (i = 0; i < t->nrules; i++)
        if (strcmp(t->rules[i].name, name) == 0)
            return (long)i;
    return -1;
}

/* A list of expected strings, one a line: each 1 to GRADER_ANSWER_BYTES
 * bytes with no control character, at most GRADER_ANSWERS_MAX of them and
 * GRADER_ANSWERS_BYTES in all. Canonical: "answers:N:" and the text's
 * hash, so two files that list other strings are told apart. */
static int answers_parse(const char *s, size_t len, struct grader_num *out)
{
    size_t i, start = 0, n = 0;

    if (len == 0 || len > GRADER_ANSWERS_BYTES)
        return -1;
    for (i = 0; i <= len; i++) {
        if (i < len && s[i] != '\n') {
            if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
                return -1;
            continue;
        }
        if (i == start || i - start > GRADER_ANSWER_BYTES ||
            ++n > GRADER_ANSWERS_MAX)
            return -1;
        start = i + 1;
    }
    snprintf(out->s, sizeof(out->s), "answers:%zu:%016llx", n,
             (unsigned long long)grader__hash64(s, len, 0x52554c4552ULL));
    out->v = (double)n;
    return 0;
}

/* A tool item's possible answers: a JSON list's text, one line (the
 * checker reads it whole when it grades); canonical "calls:" and its
 * hash, so that two rows of one item are seen to agree. */
static int calls_parse(const char *s, size_t len, struct grader_num *out)
{
    size_t i;

    if (len < 2 || len >= GRADER_CALLS_REF_BYTES || s[0] != '[' ||
        s[len - 1] != ']')
        return -1;
    for (i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return -1;
    snprintf(out->s, sizeof(out->s), "calls:%016llx",
             (unsigned long long)grader__hash64(s, len, 0x43414c4c53ULL));
    out->v = 0;
    return 0;
}

/* A code item's reference: its tests' sha256, 64 hex digits (lower
 * case, as base/hash.h writes one); canonical "tests:" and its first 48
 * (a canonical form holds 63 bytes). */
static int code_ref_parse(const char *s, size_t len, struct grader_num *out)
{
    if (len != 64)
        return -1;
    for (size_t i = 0; i < len; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return -1;
    snprintf(out->s, sizeof(out->s), "tests:%.48s", s);
    out->v = 0;
    return 0;
}

int grader_task_ref_parse(const struct grader_task *t, const char *s,
                          size_t len, struct grader_num *out)
{
    size_t b = 0;

    if (t->ref == GRADER_REF_NUMBER)
        return grader_num_parse(s, len, out);
    if (t->ref == GRADER_REF_ANSWERS)
        return answers_parse(s, len, out);
    if (t->ref == GRADER_REF_CALLS)
        return calls_parse(s, len, out);
    if (t->ref == GRADER_REF_CODE)
        return code_ref_parse(s, len, out);
    while (b < len && (s[b] == ' ' || s[b] == '\t'))
        b++;
    while (len > b && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    if (len - b != 1 ||
        !((s[b] >= 'A' && s[b] <= 'Z') || (s[b] >= 'a' && s[b] <= 'z')))
        return -1;
    out->s[0] = (char)(s[b] >= 'a' ? s[b] - ('a' - 'A') : s[b]);
    out->s[1] = '\0';
    out->v = (double)(out->s[0] - 'A');
    return 0;
}

int grader_task_rule_regex(const struct grader_task *t, size_t i,
                           struct grader_regex_rule *out)
{
    const struct rule *r;

    if (i >= t->nrules || t->rules[i].kind != GRADER_RULE_REGEX)
        return -1;
    r = &t->rules[i];
    out->pattern = r->pattern;
    out->group_select = r->group_select;
    out->fallback = r->fallback;
    out->ignore = (const char *const *)r->ignore_src;
    out->nignore = r->nignore;
    out->ignore_case = r->ignore_case;
    return 0;
}
