/*
 * questions.c - read question files in either shape; build the prompt.
 */
#include "questions.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../grader/grader.h"
#include "cli.h"

const char questions_prompt[] =
    "Solve the following math problem step by step. At the end, write the "
    "final answer on its own line as \"Answer: <number>\", with the number "
    "only.\n\n{question}";

char *questions_prompt_for(const char *prompt, const struct question *q)
{
    const char *mark = strstr(prompt, "{question}");
    struct buf b = {0};

    if (mark == NULL) { /* checked by callers; the question goes last */
        buf_puts(&b, prompt);
        buf_puts(&b, "\n\n");
        buf_puts(&b, q->text);
        return b.p;
    }
    buf_append(&b, prompt, (size_t)(mark - prompt));
    buf_puts(&b, q->text);
    buf_puts(&b, mark + 10);
    return b.p;
}

void questions_release(struct questions *qs)
{
    size_t i;

    for (i = 0; i < qs->n; i++) {
        free(qs->q[i].id);
        free(qs->q[i].text);
        free(qs->q[i].answer);
    }
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
    id = json_object_get(o, "id");
    question = json_object_get(o, "question");
    answer = json_object_get(o, "answer");
    if (!json_is_string(question) || json_string_length(question) == 0)
        BAD("no \"question\" text");
    if (id != NULL) {
        if (!json_is_string(id) || json_string_length(id) == 0 ||
            json_string_length(id) > 256)
            BAD("\"id\" must be a non-empty string of at most 256 bytes");
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

/* Whether id was seen before: the ids go into a hash set (the grader's
 * qset), so a file of 100,000 questions loads in linear time. */
static int duplicate(struct grader_qset *seen, const struct question *q)
{
    struct grader_error err;
    struct grader_num num;
    size_t before = grader_qset_count(seen);
    uint32_t k;
    int rc;

    grader_num_parse(q->answer, strlen(q->answer), &num);
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
    FILE *f = fopen(path, "r");
    struct grader_qset *seen = grader_qset_new();
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
        snprintf(msg, msgsize, "cannot open question file '%s': %s", path,
                 strerror(errno));
        return -1;
    }
    while ((limit <= 0 || (long)out->n < limit) &&
           (got = getline(&line, &cap, f)) >= 0) {
        struct question q;
        n++;
        if ((size_t)got > QUESTIONS_LINE_MAX) {
            snprintf(msg, msgsize, "%s:%ld: line longer than %u bytes", path,
                     n + 1, QUESTIONS_LINE_MAX);
            rc = -1;
            break;
        }
        if (strspn(line, " \t\r\n") == (size_t)got)
            continue;
        if ((rc = parse_line(path, n, line, (size_t)got, &q, msg, msgsize)) !=
            0)
            break;
        if (duplicate(seen, &q)) {
            snprintf(msg, msgsize, "%s:%ld: duplicate id '%s'", path, n + 1,
                     q.id);
            free(q.id);
            free(q.text);
            free(q.answer);
            rc = -1;
            break;
        }
        if (out->n == out->cap) {
            out->cap = out->cap ? out->cap * 2 : 256;
            out->q = xrealloc(out->q, out->cap * sizeof(*out->q));
        }
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
    if (rc != 0)
        questions_release(out);
    return rc;
}
