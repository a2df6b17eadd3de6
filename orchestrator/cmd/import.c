/*
 * import.c - lm-eval's samples and llama-eval's state read into an
 * import's rows, every record checked (import.h); import_write.c writes
 * them.
 */
#include "import.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../rundir/files.h"
#include "../base/cli.h"
#include "../input/questions.h"
#include "../input/taskfile.h"

void import_init(struct import *im, const char *format, const char *path,
                 const char *rundir, const char *rung,
                 const struct grader_task *task)
{
    memset(im, 0, sizeof(*im));
    im->format = format;
    im->path = path;
    im->rundir = rundir;
    im->rung = rung;
    im->task = task;
}

struct grader_task *import_task_as_logged(const struct grader_task *t)
{
    json_t *def = taskfile_to_json(t);
    struct grader_task *out;
    char msg[512];

    if (def == NULL || json_object_set_new(def, "stop", json_array()) != 0)
        util_oom("a task");
    /* a task graveyard wrote itself reads back: only memory can fail */
    out = taskfile_from_json(def, grader_task_name(t), msg, sizeof(msg));
    json_decref(def);
    if (out == NULL)
        util_oom("a task");
    return out;
}

void import_release(struct import *im)
{
    for (size_t i = 0; i < im->n; i++) {
        struct import_row *r = &im->rows[i];
        free(r->id);
        free(r->reference);
        free(r->content);
        free(r->reasoning);
        free(r->finish);
        free(r->error);
    }
    free(im->rows);
    json_decref(im->refs);
    memset(im, 0, sizeof(*im));
}

#define BAD(...)                                                              \
    do {                                                                      \
        cli_error("import", __VA_ARGS__);                                     \
        return EXIT_USAGE;                                                    \
    } while (0)

int import_references(struct import *im, const char *qfile)
{
    struct questions qs;
    char msg[4400];

    /* ids and references only: no long item's prompt made */
    if (questions_load_texts(qfile, 0, grader_task_ref(im->task), &qs, msg,
                             sizeof(msg)) != 0)
        BAD("%s", msg);
    im->refs = json_object();
    for (size_t i = 0; im->refs != NULL && i < qs.n; i++)
        json_object_set_new(im->refs, qs.q[i].id, json_string(qs.q[i].answer));
    questions_release(&qs);
    if (im->refs == NULL)
        util_oom("references");
    return 0;
}

/* s as a message quotes it: at most max bytes of it, at a character's
 * start, with line ends and other control characters written as \n, \t,
 * \xHH, so that a refusal stays one line whatever a log holds. */
const char *import_shown(const char *s, size_t max, char *out, size_t outsize)
{
    size_t i, o = 0, lim;

    if (s == NULL)
        return "(none)";
    lim = strnlen(s, max + 1);
    if (lim > max) /* cut at a character's start */
        for (lim = max; lim > 0 && ((unsigned char)s[lim] & 0xC0) == 0x80;)
            lim--;
    for (i = 0; i < lim && o + 8 < outsize; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n' || c == '\t' || c == '\r')
            o += (size_t)snprintf(out + o, outsize - o, "\\%c",
                                  c == '\n'   ? 'n'
                                  : c == '\t' ? 't'
                                              : 'r');
        else if (c < 0x20 || c == 0x7f)
            o += (size_t)snprintf(out + o, outsize - o, "\\x%02x", c);
        else
            out[o++] = (char)c;
    }
    out[o] = '\0';
    if (s[i] != '\0' && o + 4 < outsize)
        memcpy(out + o, "...", 4);
    return out;
}

/* A copy of s cut to at most max bytes, at a character's start (s is
 * UTF-8: jansson read it). */
static char *text_cut(const char *s, size_t max)
{
    size_t n = strlen(s);

    if (n > max) {
        n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    char *p = strndup(s, n);
    if (p == NULL)
        util_oom("a text");
    return p;
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

/* Whether s, trimmed, is only what numbers are written with and too
 * long for grader_num (number.h's GRADER_NUM_MAX): a long decimal. */
static int long_number(const char *s)
{
    size_t n;

    if (s == NULL)
        return 0;
    s += strspn(s, " \t\r\n");
    n = strspn(s, "-+$0123456789.,");
    return n >= GRADER_NUM_MAX - 1 && s[n + strspn(s + n, " \t\r\n")] == '\0';
}

/* A new row for id, its reference (from --question-file when given) and
 * its reply; NULL after a message (a reference the task cannot read). */
static struct import_row *add_row(struct import *im, const char *id,
                                  const char *ref, const char *where)
{
    struct grader_num canon;
    struct import_row *r;
    char q[600];
    const char *given =
        im->refs ? json_string_value(json_object_get(im->refs, id)) : NULL;

    if (im->refs != NULL && given == NULL) {
        cli_error("import", "%s: question '%s' is not in the question file",
                  where, import_shown(id, 256, q, sizeof(q)));
        return NULL;
    }
    if (given != NULL)
        ref = given;
    if (ref != NULL && strlen(ref) > IMPORT_MAX_TEXT) {
        cli_error("import", "%s: a reference over %d bytes", where,
                  IMPORT_MAX_TEXT);
        return NULL;
    }
    if (ref == NULL ||
        grader_task_ref_parse(im->task, ref, strlen(ref), &canon) != 0) {
        cli_error("import", "%s: reference '%s' %s (task '%s')", where,
                  import_shown(ref, 64, q, sizeof(q)),
                  grader_task_ref(im->task) == GRADER_REF_LETTER
                      ? "is not a letter"
                  : long_number(ref) ? "is a number longer than graveyard "
                                       "compares (63 characters at most)"
                                     : "is not a number",
                  grader_task_name(im->task));
        return NULL;
    }
    if ((long)im->n >= IMPORT_MAX_ROWS) {
        cli_error("import", "%s: more than %ld answers", im->path,
                  IMPORT_MAX_ROWS);
        return NULL;
    }
    if (im->n == im->cap) {
        im->cap = im->cap ? im->cap * 2 : 256;
        im->rows = xrealloc(im->rows, im->cap * sizeof(*im->rows));
    }
    r = &im->rows[im->n++];
    memset(r, 0, sizeof(*r));
    r->id = xstrdup(id);
    r->reference = xstrdup(ref);
    r->tokens = -1;
    r->tps = -1;
    return r;
}

/* The text after the last "####", trimmed (GSM8K's answer), or NULL. */
static char *after_hashes(const char *s)
{
    const char *m = s ? strstr(s, "####") : NULL, *next;
    size_t n;

    if (m == NULL)
        return NULL;
    while ((next = strstr(m + 4, "####")) != NULL)
        m = next;
    m += 4;
    while (*m == ' ' || *m == '\t' || *m == '\n' || *m == '\r')
        m++;
    n = strlen(m);
    while (n > 0 && strchr(" \t\r\n", m[n - 1]))
        n--;
    return strndup(m, n);
}

/* Compare the tool's extraction and verdict for rule name with ours. */
static void cross_check(struct import *im, const char *where, const char *rule,
                        const char *content, const char *ref,
                        const char *theirs, int their_right)
{
    long k = grader_task_rule_index(im->task, rule);
    struct grader_regex_rule rx;
    struct grader_grade g;
    struct grader_num canon;
    const char *ours;
    int rc;

    if (k < 0 || theirs == NULL)
        return;
    grader_task_ref_parse(im->task, ref, strlen(ref), &canon);
    rc = grader_task_grade(im->task, (size_t)k, content,
                           content ? strlen(content) : 0, ref, strlen(ref),
                           &canon, &g);
    if (rc == GRADER_ENOMEM)
        util_oom("grading");
    ours = g.said ? g.extracted
           : grader_task_rule_regex(im->task, (size_t)k, &rx) == 0
               ? rx.fallback
               : "";
    im->compared++;
    /* ours is cut at GRADER_GRADE_MAX - 1 bytes: compare what we keep */
    if (rc != 0 || strncmp(ours, theirs, GRADER_GRADE_MAX - 1) != 0 ||
        (strlen(theirs) < GRADER_GRADE_MAX - 1 &&
         strlen(ours) != strlen(theirs))) {
        char a[400], b[400];
        if (im->extract_differs++ == 0)
            snprintf(im->first_differ, sizeof(im->first_differ),
                     "%s: %s extracted '%s', graveyard's '%s' '%s'", where,
                     im->format, import_shown(theirs, 80, a, sizeof(a)), rule,
                     import_shown(ours, 80, b, sizeof(b)));
    }
    if (their_right >= 0 && rc == 0 && their_right != g.right) {
        if (im->verdict_differs++ == 0 && im->extract_differs == 0)
            snprintf(im->first_differ, sizeof(im->first_differ),
                     "%s: %s graded it %s, graveyard's '%s' %s", where,
                     im->format, their_right ? "right" : "wrong", rule,
                     g.right ? "right" : "wrong");
    }
}

/* ---- lm-eval ------------------------------------------------------------ */

/* The reply of a generate_until record: resps[0][0]. */
static const char *lm_eval_reply(const json_t *rec)
{
    json_t *r = json_array_get(json_object_get(rec, "resps"), 0);

    return json_string_value(json_array_get(r, 0));
}

/* What one samples file has shown so far: each doc_id's row and the
 * rules its records named, and the first record's stop strings. */
struct lm_doc {
    size_t row;          /* index in im->rows + 1; 0: none yet */
    unsigned char rules; /* the task's rules a record named, a bit each */
    unsigned char nrec;  /* its records so far (at most 255 counted) */
};
struct lm_state {
    struct lm_doc *doc;
    size_t ndoc;
    json_t *until; /* the first record's "until", or NULL */
    long until_line;
};

/* The generation settings a record was asked with: "arguments" is
 * {"gen_args_0": {"arg_0": prompt, "arg_1": {...}}} from v0.4.3 on, and
 * [[prompt, {...}]] before. */
static json_t *lm_eval_gen_kwargs(const json_t *rec)
{
    json_t *a = json_object_get(rec, "arguments");

    if (json_is_object(a))
        return json_object_get(json_object_get(a, "gen_args_0"), "arg_1");
    return json_array_get(json_array_get(a, 0), 1);
}

/* Every record of one file must have been asked with the same stop
 * strings: a file holding two tasks' records (gsm8k's "Question:" and
 * gsm8k_cot's "Q:") would be graded by one task's rules. */
static int same_task(struct import *im, struct lm_state *st, const json_t *rec,
                     const char *where, long line)
{
    json_t *until = json_object_get(lm_eval_gen_kwargs(rec), "until");
    char *a, *b;

    if (st->until_line == 0) {
        st->until = until ? json_deep_copy(until) : NULL;
        st->until_line = line;
        if (until != NULL && st->until == NULL)
            util_oom("a record");
        return import_same_version(im, until, where);
    }
    if (json_equal(until, st->until) || (until == NULL && st->until == NULL))
        return 0;
    a = until ? json_dumps(until, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    b = st->until ? json_dumps(st->until, JSON_COMPACT | JSON_ENCODE_ANY)
                  : NULL;
    cli_error("import",
              "%s: stops at %.80s where line %ld stops at %.80s: records of "
              "two tasks in one file (import each task's file alone)",
              where, a ? a : "(none)", st->until_line, b ? b : "(none)");
    free(a);
    free(b);
    return EXIT_USAGE;
}

/* Whether a record's target is no reference: lm-eval writes str() of
 * doc_to_target, which for a task scored by its own code (IFEval) is a
 * constant such as 0, held by no field of the question. A whole number
 * is a reference only when a field of "doc" holds it. */
static int placeholder_target(const json_t *doc, const json_t *target)
{
    const char *t = json_string_value(target), *key;
    json_t *v;
    char num[32];

    if (t == NULL)
        return 1;
    if (t[strspn(t, "-0123456789")] != '\0' || strlen(t) > 20)
        return 0; /* not a bare whole number: the task's reference */
    json_object_foreach((json_t *)doc, key, v)
    {
        if (json_is_string(v) && strcmp(json_string_value(v), t) == 0)
            return 0;
        snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
        if (json_is_integer(v) && strcmp(num, t) == 0)
            return 0;
    }
    return 1;
}

/* The row of a question's first record: its id, its reference (GSM8K's
 * text after "####" in doc.answer or target, else target) and reply. */
static struct import_row *lm_eval_row(struct import *im, const json_t *rec,
                                      json_int_t doc_id, const char *reply,
                                      const char *where)
{
    json_t *doc = json_object_get(rec, "doc"),
           *target = json_object_get(rec, "target");
    char idbuf[64], *hashed;
    struct import_row *row;

    if (json_is_string(json_object_get(doc, "id")))
        snprintf(idbuf, sizeof(idbuf), "%.60s",
                 json_string_value(json_object_get(doc, "id")));
    else /* GSM8K's doc_id is its 0-based line in test.jsonl */
        snprintf(idbuf, sizeof(idbuf), "test-%lld", (long long)doc_id);
    hashed = after_hashes(json_string_value(json_object_get(doc, "answer")));
    if (hashed == NULL)
        hashed = after_hashes(json_string_value(target));
    if (hashed == NULL && im->refs == NULL &&
        placeholder_target(doc, target)) {
        cli_error("import",
                  "%s: no reference: \"doc\" has no \"answer\" with "
                  "\"####\", and \"target\" is %s (a task scored by its own "
                  "code, such as IFEval: no task of graveyard's grades it)",
                  where,
                  json_is_string(target)
                      ? "a number no field of the question holds"
                      : "not a text");
        return NULL;
    }
    row =
        add_row(im, idbuf, hashed ? hashed : json_string_value(target), where);
    free(hashed);
    if (row != NULL)
        row->content = xstrdup(reply);
    return row;
}

/* The rule a record of doc ld stands for: the one its "filter" names, or
 * before v0.4.7, when no record names its filter, the one at its place:
 * a question's records come in the order of the task's filter_list
 * (evaluator.py loops over filters, then documents), record k is rule
 * k's. NULL when none; EXIT_USAGE in *rc for a second record of a rule. */
static const char *lm_eval_filter(struct import *im, struct lm_doc *ld,
                                  const json_t *rec, json_int_t doc_id,
                                  const char *where, int *rc)
{
    const char *filter = json_string_value(json_object_get(rec, "filter"));
    long k;

    *rc = 0;
    if (filter == NULL && json_object_get(rec, "filter") == NULL) {
        k = ld->nrec;
        if ((size_t)k < grader_task_nrules(im->task) &&
            grader_task_rule_kind(im->task, (size_t)k) == GRADER_RULE_REGEX) {
            filter = grader_task_rule_name(im->task, (size_t)k);
            im->by_position++;
        }
    }
    if (ld->nrec < 255)
        ld->nrec++;
    k = filter ? grader_task_rule_index(im->task, filter) : -1;
    if (k >= 0 && k < 8) {
        if (ld->rules & (1u << k)) {
            cli_error("import",
                      "%s: doc_id %lld has a second '%s' record: records of "
                      "two tasks, or of two runs, in one file",
                      where, (long long)doc_id,
                      grader_task_rule_name(im->task, (size_t)k));
            *rc = EXIT_USAGE;
        }
        ld->rules |= (unsigned char)(1u << k);
    }
    return filter;
}

/* One record (line for messages) into im. */
static int lm_eval_record(struct import *im, const json_t *rec, long line,
                          struct lm_state *st)
{
    json_t *d = json_object_get(rec, "doc_id"), *fr, *em;
    const char *reply = lm_eval_reply(rec), *filter;
    struct import_row *row;
    struct lm_doc *ld;
    json_int_t doc_id;
    char where[4200];
    int rc;

    snprintf(where, sizeof(where), "%s:%ld", im->path, line);
    if (!json_is_object(rec))
        BAD("%s: not a JSON object", where);
    if (!json_is_integer(d) || json_integer_value(d) < 0 ||
        json_integer_value(d) >= IMPORT_MAX_ROWS)
        BAD("%s: no \"doc_id\" (a whole number)", where);
    doc_id = json_integer_value(d);
    if (reply == NULL) {
        if (json_is_array(json_array_get(
                json_array_get(json_object_get(rec, "resps"), 0), 0)))
            BAD("%s: \"resps\" holds log-probabilities (a loglikelihood "
                "task): there is no reply to grade",
                where);
        BAD("%s: no reply in \"resps\" (a list holding a list holding the "
            "text)",
            where);
    }
    if (same_task(im, st, rec, where, line) != 0)
        return EXIT_USAGE;
    if ((size_t)doc_id >= st->ndoc) {
        size_t n = st->ndoc ? st->ndoc : 1024;
        while (n <= (size_t)doc_id)
            n *= 2;
        st->doc = xrealloc(st->doc, n * sizeof(*st->doc));
        memset(st->doc + st->ndoc, 0, (n - st->ndoc) * sizeof(*st->doc));
        st->ndoc = n;
    }
    ld = &st->doc[doc_id];
    if (ld->row == 0) {
        if (lm_eval_row(im, rec, doc_id, reply, where) == NULL)
            return EXIT_USAGE;
        ld->row = im->n;
    }
    row = &im->rows[ld->row - 1];
    if (strcmp(row->content, reply) != 0)
        BAD("%s: doc_id %lld has another reply than its first record", where,
            (long long)doc_id);
    /* a filter's record holds lm-eval's own extraction and verdict */
    if ((filter = lm_eval_filter(im, ld, rec, doc_id, where, &rc)) == NULL)
        return rc;
    if (rc != 0)
        return rc;
    fr = json_array_get(json_object_get(rec, "filtered_resps"), 0);
    em = json_object_get(rec, "exact_match");
    if (json_is_string(fr))
        cross_check(im, where, filter, reply, row->reference,
                    json_string_value(fr),
                    json_is_number(em) ? json_number_value(em) > 0.5 : -1);
    return 0;
}

/* Whether path is a plain file within IMPORT_MAX_BYTES; else one line. */
static int size_ok(const char *path)
{
    struct stat st;

    if (stat(path, &st) != 0) {
        cli_error("import", "cannot open '%s': %s", path, strerror(errno));
        return 0;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > IMPORT_MAX_BYTES) {
        cli_error("import", "%s: %s", path,
                  S_ISREG(st.st_mode) ? "over 1 GiB: too big to import"
                                      : "not a plain file");
        return 0;
    }
    return 1;
}

/* A samples file of lm-eval before v0.4.3: one JSON array of records. */
static int lm_eval_array(struct import *im)
{
    struct lm_state st = {0};
    json_error_t jerr;
    json_t *all = files_json_load(im->path, 0, JSON_REJECT_DUPLICATES, &jerr);
    int rc = 0;

    if (!json_is_array(all)) {
        json_decref(all);
        BAD("%s:%d: %s", im->path, jerr.line, all ? "not a list" : jerr.text);
    }
    for (size_t i = 0; rc == 0 && i < json_array_size(all); i++)
        rc = lm_eval_record(im, json_array_get(all, i), (long)i + 1, &st);
    json_decref(all);
    free(st.doc);
    json_decref(st.until);
    if (rc == 0 && im->n == 0)
        BAD("%s: no records", im->path);
    return rc;
}

int import_lm_eval(struct import *im)
{
    char msg[4400];
    FILE *f = files_fopen_read(im->path, 0, msg, sizeof msg);
    struct lm_state st = {0};
    size_t cap = 0;
    char *line = NULL;
    json_error_t jerr;
    ssize_t got;
    long n = 0;
    int rc = 0, c;

    if (f != NULL && !size_ok(im->path)) {
        fclose(f);
        return EXIT_USAGE;
    }
    if (f == NULL)
        BAD("%s", msg);
    while ((c = fgetc(f)) == ' ' || c == '\n' || c == '\t' || c == '\r')
        ;
    if (c == '[') { /* before v0.4.3: one JSON array of records */
        fclose(f);
        return lm_eval_array(im);
    }
    if (c != EOF)
        ungetc(c, f);
    while (rc == 0 && (got = getline(&line, &cap, f)) >= 0) {
        json_t *rec;
        n++;
        if (got > IMPORT_MAX_LINE) {
            cli_error("import", "%s:%ld: a record over %ld bytes", im->path, n,
                      IMPORT_MAX_LINE);
            rc = EXIT_USAGE;
            break;
        }
        if (strspn(line, " \t\r\n") == (size_t)got)
            continue;
        rec = json_loadb(line, (size_t)got, JSON_REJECT_DUPLICATES, &jerr);
        if (rec == NULL) {
            cli_error("import", "%s:%ld: not JSON: %s", im->path, n,
                      jerr.text);
            rc = EXIT_USAGE;
            break;
        }
        rc = lm_eval_record(im, rec, n, &st);
        json_decref(rec);
    }
    free(line);
    free(st.doc);
    json_decref(st.until);
    fclose(f);
    if (rc == 0 && im->n == 0)
        BAD("%s: no records", im->path);
    return rc;
}

/* ---- llama-eval ----------------------------------------------------------
 */

/* One case of the state file into im. */
static int llama_eval_case(struct import *im, const char *key, json_t *c)
{
    const char *status = json_string_value(json_object_get(c, "status"));
    const char *response = json_string_value(json_object_get(c, "response"));
    json_t *pi = json_object_get(c, "problem_idx"), *v;
    const char *gtype;
    char where[4400], idbuf[300], q[1700];
    struct import_row *row;

    snprintf(where, sizeof(where), "%s: case '%s'", im->path,
             import_shown(key, 200, q, sizeof(q)));
    if (!json_is_object(c))
        BAD("%s: not an object", where);
    if (status == NULL)
        BAD("%s: no \"status\"", where);
    if (strcmp(status, "ok") != 0 && strncmp(status, "error", 5) != 0) {
        im->skipped++; /* pending: never answered */
        return 0;
    }
    if (json_is_integer(pi)) /* GSM8K's row in its test split */
        snprintf(idbuf, sizeof(idbuf), "test-%lld",
                 (long long)json_integer_value(pi));
    else
        snprintf(idbuf, sizeof(idbuf), "%.256s", key);
    if ((row = add_row(im, idbuf,
                       json_string_value(json_object_get(c, "expected")),
                       where)) == NULL)
        return EXIT_USAGE;
    row->content = dup_or_null(response);
    row->reasoning = dup_or_null(
        json_string_value(json_object_get(c, "reasoning_content")));
    if (strcmp(status, "ok") == 0) {
        if (response == NULL)
            BAD("%s: status \"ok\" without a \"response\"", where);
        row->finish = xstrdup("stop");
    } else if (strcmp(status, "error: finish_reason=length") == 0) {
        row->finish = xstrdup("length");
        row->truncated = 1;
    } else {
        row->error = text_cut(status, IMPORT_MAX_TEXT);
    }
    if (json_is_integer(v = json_object_get(c, "tokens")))
        row->tokens = json_integer_value(v);
    /* a speed past reason is unknown, as the run's writer stores it */
    if (json_is_number(v = json_object_get(c, "tps_gen")) &&
        json_number_value(v) >= 0 && json_number_value(v) <= GRADER_TPS_MAX)
        row->tps = json_number_value(v);
    gtype = json_string_value(
        json_object_get(json_object_get(c, "grader_log"), "grader_type"));
    if (strcmp(status, "ok") == 0 && gtype && strcmp(gtype, "regex") == 0)
        cross_check(im, where, "llama-eval", response, row->reference,
                    json_is_string(json_object_get(c, "answer"))
                        ? json_string_value(json_object_get(c, "answer"))
                        : "",
                    json_is_boolean(json_object_get(c, "correct"))
                        ? json_is_true(json_object_get(c, "correct"))
                        : -1);
    return 0;
}

int import_llama_eval(struct import *im)
{
    json_error_t jerr;
    json_t *all, *cases, *order, *c;
    const char *key;
    int rc = 0;

    if (!size_ok(im->path))
        return EXIT_USAGE;
    all = files_json_load(im->path, 0, JSON_REJECT_DUPLICATES, &jerr);
    if (all == NULL)
        BAD("%s:%d: %s", im->path, jerr.line, jerr.text);
    cases = json_object_get(json_object_get(all, "task_states"), "cases");
    order = json_object_get(all, "tasks");
    if (!json_is_object(cases)) {
        json_decref(all);
        BAD("%s: no \"task_states\".\"cases\" (llama-eval's state file; "
            "the older \"case_id\" format is not read)",
            im->path);
    }
    if (json_is_array(order)) { /* the run's own order */
        for (size_t i = 0; rc == 0 && i < json_array_size(order); i++) {
            key = json_string_value(json_array_get(order, i));
            c = key ? json_object_get(cases, key) : NULL;
            if (c == NULL) {
                cli_error("import", "%s: \"tasks\"[%zu] is no case", im->path,
                          i);
                rc = EXIT_USAGE;
            } else {
                rc = llama_eval_case(im, key, c);
            }
        }
    } else {
        json_object_foreach(cases, key, c)
        {
            if ((rc = llama_eval_case(im, key, c)) != 0)
                break;
        }
    }
    json_decref(all);
    if (rc == 0 && im->n == 0)
        BAD("%s: no answered case", im->path);
    return rc;
}

#undef BAD
