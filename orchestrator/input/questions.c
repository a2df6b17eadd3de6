/*
 * questions.c - read question files in either shape; build the prompt.
 */
#include "questions.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../grader/grader.h"
#include "../../rundir/files.h"
#include "../base/cli.h"
#include "bfclitem.h"
#include "codeitem.h"
#include "longitem.h"
#include "toolitem.h"

char *questions_prompt_for(const char *prompt, const struct question *q)
{
    char *g, *out, *made = NULL, why[300];
    const char *text = q->text;
    struct buf b = {0};

    if (q->lng != NULL) { /* a long item made here: its prompt, again */
        if ((made = longitem_prompt(q->lng, why, sizeof(why))) == NULL)
            util_oom("a long item's prompt"); /* it was made at load */
        text = made;
    }

    if (strstr(prompt, "{question}") == NULL) {
        /* checked by callers; the question goes last */
        buf_puts(&b, prompt);
        buf_puts(&b, "\n\n");
        buf_puts(&b, text);
        free(made);
        return b.p;
    }
    g = grader_prompt_fill(prompt, text, (const char *const *)q->choices,
                           q->nchoices);
    free(made);
    if (g == NULL)
        util_oom("a prompt");
    out = xstrdup(g); /* the grader's allocator is not free()'s */
    grader_alloc_free(g);
    return out;
}

static void question_release(struct question *q)
{
    free(q->id);
    free(q->text);
    free(q->answer);
    free(q->lng);
    free(q->tools);
    free(q->tool_choice);
    if (q->code != NULL)
        codeitem_release(q->code);
    free(q->code);
    for (size_t k = 0; k < q->nchoices; k++)
        free(q->choices[k]);
    free(q->choices);
}

void questions_release(struct questions *qs)
{
    size_t i;

    for (i = 0; i < qs->n; i++)
        question_release(&qs->q[i]);
    free(qs->q);
    memset(qs, 0, sizeof(*qs));
}

/* The reference of a GSM8K answer: the text after the last "####". */
static int gsm8k_reference(const char *answer, char *out, size_t size)
{
    const char *mark = strstr(answer, "####"), *next;
    size_t n;

    if (mark == NULL)
        return -1;
    while ((next = strstr(mark + 4, "####")) != NULL)
        mark = next;
    mark += 4;
    while (*mark == ' ')
        mark++;
    n = strlen(mark);
    while (n > 0 &&
           (mark[n - 1] == ' ' || mark[n - 1] == '\n' || mark[n - 1] == '\r'))
        n--;
    if (n == 0 || n >= size)
        return -1;
    memcpy(out, mark, n);
    out[n] = '\0';
    return 0;
}

/* Why a line's "id" (NULL: none given) is refused, or NULL: a string of
 * 1 to GRADER_ID_MAX bytes, the one rule of every shape read here. */
static const char id_rule[] =
    "\"id\" must be a non-empty string of at most 256 bytes";

static const char *id_bad(const json_t *id)
{
    if (id == NULL || (json_is_string(id) && json_string_length(id) > 0 &&
                       json_string_length(id) <= GRADER_ID_MAX))
        return NULL;
    return id_rule;
}

/* One tool item (line is 0-based) into q (toolitem.h checks its tools,
 * tool_choice and possible answers); -1 with msg naming the key. */
static int tool_line(const char *path, long line, json_t *o,
                     struct question *q, char *msg, size_t msgsize)
{
    json_t *id = json_object_get(o, "id"),
           *qv = json_object_get(o, "question");
    char why[300], idbuf[32];
    const char *bad = NULL;
    struct toolitem it;

    if (!json_is_string(qv) || json_string_length(qv) == 0)
        bad = "no \"question\" text";
    else if (id_bad(id) != NULL)
        bad = id_bad(id);
    else if (json_object_get(o, "answer") || json_object_get(o, "answers"))
        bad = "a tool item has no \"answer\": its \"possible\" calls are "
              "its reference";
    else if (toolitem_read(o, &it, why, sizeof(why)) != 0)
        bad = why;
    if (bad != NULL) {
        snprintf(msg, msgsize, "%s:%ld: %s", path, line + 1, bad);
        return -1;
    }
    snprintf(idbuf, sizeof(idbuf), "test-%ld", line);
    q->id = xstrdup(id ? json_string_value(id) : idbuf);
    q->text = xstrdup(json_string_value(qv));
    q->answer = it.possible;
    q->tools = it.tools;
    q->tool_choice = it.tool_choice;
    return 0;
}

/* A tool item read by another task's reader: its reference is possible
 * calls, which only a tool-call task grades. */
static const char tool_elsewhere[] =
    "a tool item (it has \"tools\"): run it with a task that grades tool "
    "calls (--task tool-call; docs/toolcalls.md)";
static const char bfcl_elsewhere[] =
    "a line of BFCL's (it has \"function\"): run it with a task that "
    "grades tool calls (--task tool-call; docs/toolcalls.md)";
/* A code item (HumanEval's or MBPP's) read by another task's reader. */
static const char code_elsewhere[] =
    "a code item (it has \"entry_point\" or \"test_list\"): run it with "
    "a task that runs code (--task code; docs/code.md)";

/* Why another task's reader refuses line o, a tool item's or BFCL's, or
 * NULL. */
static const char *calls_elsewhere(const json_t *o)
{
    if (codeitem_is(o))
        return code_elsewhere;
    if (json_object_get(o, "tools") != NULL)
        return tool_elsewhere;
    if (json_object_get(o, "function") != NULL)
        return bfcl_elsewhere;
    return NULL;
}

/* A line of BFCL's own files (bfclitem.h), its possible answers read
 * from the sibling file at the first such line (*bfcl, the file's). */
static int bfcl_line(const char *path, long line, const json_t *o,
                     struct bfclitem_answers **bfcl, struct question *q,
                     char *msg, size_t msgsize)
{
    struct bfclitem it;

    if (json_object_get(o, "function") == NULL) {
        snprintf(msg, msgsize,
                 "%s:%ld: a BFCL line without \"function\" (a multi-turn "
                 "or agentic category): graveyard reads BFCL's single-turn "
                 "ones (docs/toolcalls.md)",
                 path, line + 1);
        return -1;
    }
    if (*bfcl == NULL && bfclitem_answers_load(path, bfcl, msg, msgsize) != 0)
        return -1;
    if (bfclitem_read(path, line, o, *bfcl, &it, msg, msgsize) != 0)
        return -1;
    q->id = it.id;
    q->text = it.text;
    q->answer = it.tool.possible;
    q->tools = it.tool.tools;
    q->tool_choice = it.tool.tool_choice;
    return 0;
}

/* One line of a tool-call task's file (line is 0-based): a tool item or
 * a line of BFCL's own files (a "question" list), nothing else (its
 * rows' references are possible calls). */
static int calls_line(const char *path, long line, const char *text,
                      size_t len, struct bfclitem_answers **bfcl,
                      struct question *q, char *msg, size_t msgsize)
{
    json_error_t jerr;
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    int rc = -1;

    if (!json_is_object(o))
        snprintf(msg, msgsize, "%s:%ld: not a JSON object%s%s", path, line + 1,
                 o ? "" : ": ", o ? "" : jerr.text);
    else if (codeitem_is(o))
        snprintf(msg, msgsize, "%s:%ld: %s", path, line + 1, code_elsewhere);
    else if (json_object_get(o, "tools") == NULL &&
             (json_object_get(o, "function") != NULL ||
              json_is_array(json_object_get(o, "question"))))
        rc = bfcl_line(path, line, o, bfcl, q, msg, msgsize);
    else if (json_object_get(o, "tools") == NULL)
        snprintf(msg, msgsize,
                 "%s:%ld: not a tool item (no \"tools\"): a tool-call task "
                 "asks tool items only, or BFCL's own lines "
                 "(docs/toolcalls.md)",
                 path, line + 1);
    else
        rc = tool_line(path, line, o, q, msg, msgsize);
    json_decref(o);
    return rc;
}

/* One line (line is 0-based) into a question; -1 with msg. */
static int parse_line(const char *path, long line, const char *text,
                      size_t len, struct question *q, char *msg,
                      size_t msgsize)
{
    json_error_t jerr;
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    json_t *id, *question, *answer;
    struct grader_num num;
    char ref[128], idbuf[32];
    int rc = -1;

#define BAD(...)                                                              \
    do {                                                                      \
        int k = snprintf(msg, msgsize, "%s:%ld: ", path, line + 1);           \
        snprintf(msg + k, msgsize - (size_t)k, __VA_ARGS__);                  \
        goto done;                                                            \
    } while (0)

    if (!json_is_object(o))
        BAD("not a JSON object%s%s", o ? "" : ": ", o ? "" : jerr.text);
    if (calls_elsewhere(o) != NULL)
        BAD("%s", calls_elsewhere(o));
    id = json_object_get(o, "id");
    question = json_object_get(o, "question");
    answer = json_object_get(o, "answer");
    if (!json_is_string(question) || json_string_length(question) == 0)
        BAD("no \"question\" text");
    if (id != NULL) {
        if (id_bad(id) != NULL)
            BAD("%s", id_bad(id));
        if (json_is_integer(answer))
            snprintf(ref, sizeof(ref), "%" JSON_INTEGER_FORMAT,
                     json_integer_value(answer));
        else if (json_is_string(answer) &&
                 json_string_length(answer) < sizeof(ref))
            snprintf(ref, sizeof(ref), "%s", json_string_value(answer));
        else
            BAD("\"answer\" must be a number or a short string");
    } else {
        if (!json_is_string(answer) ||
            gsm8k_reference(json_string_value(answer), ref, sizeof(ref)))
            BAD("no \"id\", and \"answer\" does not end in \"#### N\" "
                "(GSM8K's shape)");
        snprintf(idbuf, sizeof(idbuf), "test-%ld", line);
    }
    if (json_object_get(o, "choices") != NULL)
        BAD("a multiple-choice question (it has \"choices\"): run it with "
            "a task that reads letters (--task choice, docs/tasks.md)");
    if (grader_num_parse(ref, strlen(ref), &num) != 0)
        BAD("answer '%s' is not a number", ref);
    q->id = xstrdup(id ? json_string_value(id) : idbuf);
    q->text = xstrdup(json_string_value(question));
    q->answer = xstrdup(ref);
    rc = 0;
done:
    json_decref(o);
    return rc;
#undef BAD
}

/* The option texts of a multiple-choice line into q, and their labels
 * (ARC's "label"s, or NULL for a plain list) into *labels. NULL: the
 * problem, for the message. */
static const char *choice_options(json_t *o, struct question *q,
                                  json_t **labels, int *owned)
{
    json_t *qv = json_object_get(o, "question");
    json_t *c = json_object_get(o, "choices"), *texts;
    size_t i, n;

    *labels = NULL;
    *owned = 0;
    if (json_is_object(qv)) /* ARC's original: {"stem", "choices"} */
        c = json_object_get(qv, "choices");
    texts = c;
    if (json_is_object(c)) {
        texts = json_object_get(c, "text");
        *labels = json_object_get(c, "label");
        if (!json_is_array(*labels) ||
            json_array_size(*labels) != json_array_size(texts))
            return "\"choices\" has no \"label\" list as long as its "
                   "\"text\"";
    }
    if (!json_is_array(texts))
        return "no \"choices\" (a list of options, or {\"text\": [...], "
               "\"label\": [...]})";
    n = json_array_size(texts);
    if (n < 2 || n > 26)
        return "a question needs 2 to 26 options";
    q->choices = xrealloc(NULL, n * sizeof(*q->choices));
    for (i = 0; i < n; i++) {
        json_t *t = json_array_get(texts, i);
        if (json_is_object(t)) { /* ARC's original: {"text", "label"} */
            if (*labels == NULL && i > 0)
                return "options of two shapes";
            if (*labels == NULL) {
                if ((*labels = json_array()) == NULL)
                    util_oom("options");
                *owned = 1;
            }
            json_array_append(*labels, json_object_get(t, "label"));
            t = json_object_get(t, "text");
        }
        if (!json_is_string(t))
            return "an option is not a string";
        q->choices[q->nchoices++] = xstrdup(json_string_value(t));
    }
    if (*owned && json_array_size(*labels) != n)
        return "options of two shapes";
    return NULL;
}

/* The right option's 0-based position from "answer" (an index, or a
 * letter) or "answerKey" (one of the labels, or a letter); -1. */
static long choice_answer(json_t *o, json_t *labels, size_t n)
{
    json_t *a = json_object_get(o, "answerKey");
    const char *s;

    if (a == NULL)
        a = json_object_get(o, "answer");
    if (json_is_integer(a))
        return json_integer_value(a) >= 0 && (size_t)json_integer_value(a) < n
                   ? (long)json_integer_value(a)
                   : -1;
    if ((s = json_string_value(a)) == NULL)
        return -1;
    for (size_t i = 0; labels != NULL && i < json_array_size(labels); i++)
        if (json_is_string(json_array_get(labels, i)) &&
            strcmp(json_string_value(json_array_get(labels, i)), s) == 0)
            return (long)i;
    if (s[0] >= 'A' && s[0] <= 'Z' && s[1] == '\0' && (size_t)(s[0] - 'A') < n)
        return s[0] - 'A';
    return -1;
}

/* One multiple-choice line into q; -1 with msg. */
static int choice_line(const char *path, long line, const char *text,
                       size_t len, struct question *q, char *msg,
                       size_t msgsize)
{
    json_error_t jerr;
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    json_t *id, *qv, *labels = NULL;
    const char *why = NULL, *stem;
    char idbuf[32], letter[2];
    long right;
    int rc = -1, own_labels = 0;

    if (!json_is_object(o)) {
        snprintf(msg, msgsize, "%s:%ld: not a JSON object%s%s", path, line + 1,
                 o ? "" : ": ", o ? "" : jerr.text);
        json_decref(o);
        return -1;
    }
    id = json_object_get(o, "id");
    qv = json_object_get(o, "question");
    stem = json_is_object(qv) ? json_string_value(json_object_get(qv, "stem"))
                              : json_string_value(qv);
    if (calls_elsewhere(o) != NULL)
        why = calls_elsewhere(o);
    else if (stem == NULL || stem[0] == '\0')
        why = "no \"question\" text (or ARC's {\"stem\"})";
    else if (id_bad(id) != NULL)
        why = id_bad(id);
    else
        why = choice_options(o, q, &labels, &own_labels);
    if (why == NULL && (right = choice_answer(o, labels, q->nchoices)) < 0)
        why = "\"answer\" (an index from 0, or a letter) or \"answerKey\" "
              "(one of the labels) does not name one of the options";
    if (why == NULL) {
        snprintf(idbuf, sizeof(idbuf), "test-%ld", line);
        letter[0] = (char)('A' + right);
        letter[1] = '\0';
        q->id = xstrdup(id ? json_string_value(id) : idbuf);
        q->text = xstrdup(stem);
        q->answer = xstrdup(letter);
        rc = 0;
    } else {
        snprintf(msg, msgsize, "%s:%ld: %s", path, line + 1, why);
        question_release(q);
        memset(q, 0, sizeof(*q));
    }
    if (own_labels)
        json_decref(labels);
    json_decref(o);
    return rc;
}

/* Why the "answers" list a of a long item is refused, or NULL with
 * the strings one a line in out (GRADER_ANSWERS_BYTES + 1 bytes). */
static const char *answers_list(const json_t *a, char *out, char *why,
                                size_t whysize)
{
    size_t i, j, n = 0, len;

    if (!json_is_array(a) || json_array_size(a) == 0 ||
        json_array_size(a) > GRADER_ANSWERS_MAX) {
        snprintf(why, whysize, "\"answers\" must be a list of 1 to %d strings",
                 GRADER_ANSWERS_MAX);
        return why;
    }
    for (i = 0; i < json_array_size(a); i++) {
        const char *s = json_string_value(json_array_get(a, i));
        const char *bad = NULL;
        len = s ? json_string_length(json_array_get(a, i)) : 0;
        for (j = 0; s != NULL && j < len; j++)
            if ((unsigned char)s[j] < 0x20 || s[j] == 0x7f)
                bad = "holds a control character (a newline, a tab)";
        if (s == NULL)
            bad = "is not a string";
        else if (len == 0)
            bad = "is empty";
        else if (len > GRADER_ANSWER_BYTES)
            bad = "is over the cap for one";
        else if (n + len + (i > 0) > GRADER_ANSWERS_BYTES)
            bad = "takes them over the cap for all";
        if (bad != NULL) {
            int cap = len > 0 && s != NULL && bad[0] != 'h';
            snprintf(why, whysize, "\"answers\" item %zu %s", i + 1, bad);
            if (cap) /* the caps named */
                snprintf(why + strlen(why), whysize - strlen(why),
                         " (%d bytes each, %d in all)", GRADER_ANSWER_BYTES,
                         GRADER_ANSWERS_BYTES);
            return why;
        }
        if (i > 0)
            out[n++] = '\n';
        memcpy(out + n, s, len);
        n += len;
    }
    out[n] = '\0';
    return NULL;
}

/* A long item's "length" (its prompt's length in tokens, 1 to 2^24) and
 * "depth" (0 to 100 %), each optional, into q; why when out of range. */
static const char *length_depth(json_t *o, struct question *q, char *why,
                                size_t whysize)
{
    json_t *l = json_object_get(o, "length"), *d = json_object_get(o, "depth");

    if (l != NULL && (!json_is_integer(l) || json_integer_value(l) < 1 ||
                      json_integer_value(l) > GRADER_LENGTH_MAX)) {
        snprintf(why, whysize,
                 "\"length\" must be a whole number of tokens from 1 to %ld",
                 (long)GRADER_LENGTH_MAX);
        return why;
    }
    if (d != NULL && (!json_is_integer(d) || json_integer_value(d) < 0 ||
                      json_integer_value(d) > 100)) {
        snprintf(why, whysize, "\"depth\" must be a whole %% from 0 to 100");
        return why;
    }
    q->length = l ? (long)json_integer_value(l) : -1;
    q->depth = d ? (int)json_integer_value(d) : -1;
    return NULL;
}

/* A long item made here (longitem.h): its recipe read and checked, its
 * prompt made once to be sure it can be when render is set (the runner's
 * load: it makes it again for each ask), its summary the text the page
 * shows. */
static int long_line(const char *path, long line, json_t *o, int render,
                     struct question *q, char *msg, size_t msgsize)
{
    json_t *id = json_object_get(o, "id");
    char ref[GRADER_ANSWERS_BYTES + 1], why[300], *p = NULL;
    struct longitem it;

    if (json_object_get(o, "prompt") || json_object_get(o, "question")) {
        snprintf(msg, msgsize,
                 "%s:%ld: a \"long\" item's prompt is made from its recipe: "
                 "give no \"prompt\" or \"question\" beside it",
                 path, line + 1);
        return -1;
    }
    if (id == NULL || id_bad(id) != NULL) { /* a recipe names its item */
        snprintf(msg, msgsize, "%s:%ld: %s", path, line + 1, id_rule);
        return -1;
    }
    if (longitem_read(o, &it, ref, sizeof(ref), why, sizeof(why)) != 0 ||
        (render && (p = longitem_prompt(&it, why, sizeof(why))) == NULL)) {
        snprintf(msg, msgsize, "%s:%ld: %s", path, line + 1, why);
        return -1;
    }
    free(p);
    q->id = xstrdup(json_string_value(id));
    q->answer = xstrdup(ref);
    q->lng = xrealloc(NULL, sizeof(*q->lng));
    *q->lng = it;
    q->text = longitem_summary(&it);
    q->length = it.length;
    q->depth = it.depth;
    return 0;
}

/* One long item (line is 0-based) into q; -1 with msg. render: a recipe's
 * prompt is made once (long_line). */
static int answers_line(const char *path, long line, const char *text,
                        size_t len, int render, struct question *q, char *msg,
                        size_t msgsize)
{
    json_error_t jerr;
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    json_t *id, *prompt, *a;
    char ref[GRADER_ANSWERS_BYTES + 1], idbuf[32], why[160];
    const char *bad = NULL;

    if (json_is_object(o) && calls_elsewhere(o) != NULL) {
        snprintf(msg, msgsize, "%s:%ld: %s", path, line + 1,
                 calls_elsewhere(o));
        json_decref(o);
        return -1;
    }
    if (json_is_object(o) && json_object_get(o, "long") != NULL) {
        int rc = long_line(path, line, o, render, q, msg, msgsize);
        json_decref(o);
        return rc;
    }
    id = json_object_get(o, "id");
    prompt = json_object_get(o, "prompt");
    if (prompt == NULL)
        prompt = json_object_get(o, "question");
    if ((a = json_object_get(o, "answers")) == NULL)
        a = json_object_get(o, "outputs"); /* RULER's own key */
    if (!json_is_object(o))
        bad = o ? "not a JSON object" : jerr.text;
    else if (json_object_get(o, "prompt") && json_object_get(o, "question"))
        bad = "both \"prompt\" and \"question\": give one";
    else if (!json_is_string(prompt) || json_string_length(prompt) == 0)
        bad = "no \"prompt\" (or \"question\") text";
    else if (id_bad(id) != NULL)
        bad = id_bad(id);
    else if ((bad = answers_list(a, ref, why, sizeof(why))) == NULL)
        bad = length_depth(o, q, why, sizeof(why));
    if (bad == NULL) {
        snprintf(idbuf, sizeof(idbuf), "test-%ld", line);
        q->id = xstrdup(id ? json_string_value(id) : idbuf);
        q->text = xstrdup(json_string_value(prompt));
        q->answer = xstrdup(ref);
    } else
        snprintf(msg, msgsize, "%s:%ld: %s", path, line + 1, bad);
    json_decref(o);
    return bad == NULL ? 0 : -1;
}

/* One code item (line is 0-based) into q: HumanEval's or MBPP's line,
 * nothing else (codeitem.h); -1 with msg naming the key. */
static int code_line(const char *path, long line, const char *text, size_t len,
                     struct question *q, char *msg, size_t msgsize)
{
    json_error_t jerr;
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    struct codeitem it;
    struct codeitem_question cq;
    char why[300];
    int rc = -1;

    if (json_is_array(o))
        snprintf(msg, msgsize,
                 "%s:%ld: a JSON list (MBPP's sanitized-mbpp.json is one): a "
                 "code task reads one object a line (jq -c '.[]' makes them)",
                 path, line + 1);
    else if (!json_is_object(o))
        snprintf(msg, msgsize, "%s:%ld: not a JSON object%s%s", path, line + 1,
                 o ? "" : ": ", o ? "" : jerr.text);
    else if (!codeitem_is(o))
        snprintf(msg, msgsize,
                 "%s:%ld: not a code item (no \"entry_point\" or "
                 "\"test_list\"): a code task reads HumanEval's and MBPP's "
                 "lines only (docs/code.md)",
                 path, line + 1);
    else if (codeitem_read(o, &it, &cq, why, sizeof(why)) != 0)
        snprintf(msg, msgsize, "%s:%ld: %s", path, line + 1, why);
    else {
        q->id = cq.id;
        q->text = cq.text;
        q->answer = xstrdup(cq.ref);
        q->code = xrealloc(NULL, sizeof(*q->code));
        *q->code = it;
        q->code->line = xrealloc(NULL, len + 1);
        memcpy(q->code->line, text, len);
        q->code->line[len] = '\0';
        rc = 0;
    }
    json_decref(o);
    return rc;
}

/* Whether id was seen before: the ids go into a hash set (the grader's
 * qset), so a file of 100,000 questions loads in linear time. */
static int duplicate(struct grader_qset *seen, const struct question *q)
{
    struct grader_error err;
    struct grader_num num;
    size_t before = grader_qset_count(seen);
    uint32_t k;
    int rc;

    /* ids alone are checked here: the canonical form is not compared */
    memset(&num, 0, sizeof(num));
    rc = grader_qset_intern(seen, q->id, strlen(q->id), q->answer,
                            strlen(q->answer), &num, "", 0, &k, &err);
    if (rc == GRADER_ENOMEM)
        util_oom("question ids"); /* the orchestrator's policy */
    /* a known id with another reference is a duplicate all the same */
    return rc != 0 || grader_qset_count(seen) == before;
}

int questions_load(const char *path, long limit, struct questions *out,
                   char *msg, size_t msgsize)
{
    return questions_load_as(path, limit, GRADER_REF_NUMBER, out, msg,
                             msgsize);
}

/* questions_load_as and questions_load_texts: render, whether a long
 * item's prompt is made once at load. */
static int load(const char *path, long limit, enum grader_ref_kind kind,
                int render, struct questions *out, char *msg, size_t msgsize)
{
    char why[4400];
    FILE *f = files_fopen_read(path, 0, why, sizeof why);
    struct grader_qset *seen = grader_qset_new();
    struct bfclitem_answers *bfcl = NULL; /* BFCL's files: their answers */
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    long n = -1;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    if (seen == NULL)
        util_oom("question ids");
    if (f == NULL) {
        grader_qset_free(seen);
        snprintf(msg, msgsize, "question file: %s", why);
        return -1;
    }
    while ((limit <= 0 || (long)out->n < limit) &&
           (got = getline(&line, &cap, f)) >= 0) {
        struct question q;
        n++;
        if (n == 0 && got >= 2 && (unsigned char)line[0] == 0x1f &&
            (unsigned char)line[1] == 0x8b) {
            snprintf(msg, msgsize, "'%s' is gzip-compressed: gunzip it first",
                     path);
            rc = -1;
            break;
        }
        if ((size_t)got > QUESTIONS_LINE_MAX) {
            snprintf(msg, msgsize, "%s:%ld: line longer than %u bytes", path,
                     n + 1, QUESTIONS_LINE_MAX);
            rc = -1;
            break;
        }
        if (strspn(line, " \t\r\n") == (size_t)got)
            continue;
        memset(&q, 0, sizeof(q));
        q.length = -1; /* none, but for a long item */
        q.depth = -1;
        rc = kind == GRADER_REF_LETTER
                 ? choice_line(path, n, line, (size_t)got, &q, msg, msgsize)
             : kind == GRADER_REF_ANSWERS
                 ? answers_line(path, n, line, (size_t)got, render, &q, msg,
                                msgsize)
             : kind == GRADER_REF_CALLS
                 ? calls_line(path, n, line, (size_t)got, &bfcl, &q, msg,
                              msgsize)
             : kind == GRADER_REF_CODE
                 ? code_line(path, n, line, (size_t)got, &q, msg, msgsize)
                 : parse_line(path, n, line, (size_t)got, &q, msg, msgsize);
        if (rc != 0)
            break;
        if (duplicate(seen, &q)) {
            snprintf(msg, msgsize, "%s:%ld: duplicate id '%s'", path, n + 1,
                     q.id);
            question_release(&q);
            rc = -1;
            break;
        }
        if (out->n == out->cap) {
            out->cap = out->cap ? out->cap * 2 : 256;
            out->q = xrealloc(out->q, out->cap * sizeof(*out->q));
        }
        q.line = n + 1;
        out->q[out->n++] = q;
    }
    if (rc == 0 && ferror(f)) {
        snprintf(msg, msgsize, "cannot read '%s': %s", path, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && out->n == 0) {
        snprintf(msg, msgsize, "%s: no questions", path);
        rc = -1;
    }
    free(line);
    fclose(f);
    grader_qset_free(seen);
    bfclitem_answers_free(bfcl);
    if (rc != 0)
        questions_release(out);
    return rc;
}

int questions_load_as(const char *path, long limit, enum grader_ref_kind kind,
                      struct questions *out, char *msg, size_t msgsize)
{
    return load(path, limit, kind, 1, out, msg, msgsize);
}

int questions_load_texts(const char *path, long limit,
                         enum grader_ref_kind kind, struct questions *out,
                         char *msg, size_t msgsize)
{
    return load(path, limit, kind, 0, out, msg, msgsize);
}
