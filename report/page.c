/*
 * page.c - the page's data block and its HTML shell (page.h).
 *
 * Rows are large and mostly alike: a rung that keeps an answer often
 * keeps its words, and every rung shares the question texts and the few
 * finish reasons. So every string is written once, in a table "T", and
 * the per-cell arrays hold indexes into it (-1 for none). The table is
 * keyed on the bytes themselves (a hash to find, a memcmp to be sure):
 * two different replies never share an entry.
 */
#include "page.h"

#include "doc.h"
#include "fmt.h"
#include "../toolcall/toolcall.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---- text out ---------------------------------------------------------- */

void page_json_string(FILE *f, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, run = 0, n;

    fputc('"', f);
    while (i < len) {
        unsigned c = p[i];
        /* most bytes go out as they are: a run at a time, not a call each
         * (13 MB of replies at 1,319 questions) */
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '<' &&
            c != '>' && c != '&') {
            i++;
            continue;
        }
        if (c >= 0x80 && (n = pyre_utf8_seq(p + i, len - i)) > 0 &&
            !(n == 3 && c == 0xe2 && p[i + 1] == 0x80 &&
              (p[i + 2] == 0xa8 || p[i + 2] == 0xa9))) {
            i += n;
            continue;
        }
        fwrite(p + run, 1, i - run, f);
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc((int)c, f);
        } else if (c == '\n') {
            fputs("\\n", f);
        } else if (c == '\t') {
            fputs("\\t", f);
        } else if (c < 0x80) {
            fprintf(f, "\\u%04x", c);
        } else if (pyre_utf8_seq(p + i, len - i) == 0) {
            fputs("\\ufffd", f);
        } else { /* U+2028 and U+2029 end a line in older JavaScript */
            fprintf(f, "\\u202%c", p[i + 2] == 0xa8 ? '8' : '9');
            i += 2;
        }
        run = ++i;
    }
    fwrite(p + run, 1, i - run, f);
    fputc('"', f);
}

/* ---- the string table -------------------------------------------------- */

struct entry {
    const char *s; /* borrowed: lives in the rungs, the qset or the caller */
    size_t len;
    uint64_t h;
    long idx; /* -1: an empty slot */
};

struct strtab {
    struct entry *slot;
    size_t cap, n;
    const struct entry **list; /* by index */
    size_t list_cap;
    int nomem;
};

static uint64_t hash(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    size_t i;

    for (i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    return h ^ len;
}

static int grow(struct strtab *t)
{
    size_t cap = t->cap ? t->cap * 2 : 1024, i;
    struct entry *s = calloc(cap, sizeof(*s));

    if (s == NULL)
        return -1;
    for (i = 0; i < cap; i++)
        s[i].idx = -1;
    for (i = 0; i < t->cap; i++) {
        size_t j;
        if (t->slot[i].idx < 0)
            continue;
        for (j = t->slot[i].h & (cap - 1); s[j].idx >= 0;
             j = (j + 1) & (cap - 1))
            ;
        s[j] = t->slot[i];
        t->list[s[j].idx] = &s[j];
    }
    free(t->slot);
    t->slot = s;
    t->cap = cap;
    return 0;
}

/* The index of s[0..len) in the table, added when new; -1 for NULL (and
 * when out of memory, with t->nomem set). */
static long strtab_add(struct strtab *t, const char *s, size_t len)
{
    uint64_t h;
    size_t j;

    if (s == NULL || t->nomem)
        return -1;
    if ((t->n + 1) * 2 > t->cap && grow(t) != 0) {
        t->nomem = 1;
        return -1;
    }
    h = hash(s, len);
    for (j = h & (t->cap - 1); t->slot[j].idx >= 0; j = (j + 1) & (t->cap - 1))
        if (t->slot[j].h == h && t->slot[j].len == len &&
            memcmp(t->slot[j].s, s, len) == 0)
            return t->slot[j].idx;
    if (t->n == t->list_cap) {
        size_t cap = t->list_cap ? t->list_cap * 2 : 1024;
        const struct entry **l = realloc(t->list, cap * sizeof(*l));
        if (l == NULL) {
            t->nomem = 1;
            return -1;
        }
        t->list = l;
        t->list_cap = cap;
    }
    t->slot[j] = (struct entry){s, len, h, (long)t->n};
    t->list[t->n] = &t->slot[j];
    return (long)t->n++;
}

static void strtab_free(struct strtab *t)
{
    free(t->slot);
    free(t->list);
    memset(t, 0, sizeof(*t));
}

static long add_str(struct strtab *t, const char *s)
{
    return s ? strtab_add(t, s, strlen(s)) : -1;
}

/* ---- the data block ---------------------------------------------------- */

/* One array of a rung: per question of the qset, a value. */
enum field {
    F_FACTS,
    F_SAID,
    F_TOKENS,
    F_CONTENT,
    F_REASONING,
    F_FINISH,
    F_ERROR,
    F_CALLS,   /* a tool row's calls, and its verdict's bucket: written */
    F_BUCKET,  /* only for a rung that answered tool items (tool_rung) */
    F_CODE,    /* a code row's code that ran, its outcome's name and */
    F_OUTCOME, /* what it printed: written only for a rung that ran */
    F_OUTPUT,  /* code items (code_rung) */
    F_FIELDS
};
static const char *const field_key[] = {"c", "s",  "k", "x",  "y",  "fr",
                                        "e", "tc", "b", "cd", "oc", "o"};
static const int keep_field[] = {-1,
                                 -1,
                                 -1,
                                 GRADER_KEEP_CONTENT,
                                 GRADER_KEEP_REASONING,
                                 GRADER_KEEP_FINISH,
                                 GRADER_KEEP_ERROR,
                                 GRADER_KEEP_CALLS,
                                 -1,
                                 -1,
                                 -1,
                                 GRADER_KEEP_OUTPUT};

/* The code that ran, from the kept reply: the span grader_code_extract
 * takes (the one definition the runner ran and the grader hashed). The
 * page is not told the task's rule, but the grader kept the hash of the
 * code that ran ("failed 0/3 code:HEX16"): the rule whose span has that
 * hash is the one (a fenced block's contents, GRADER_RULE_EXEC, or the
 * whole reply, GRADER_RULE_EXEC_BODY). -1: none. */
static long code_ran(struct strtab *t, const struct grader_rung *r,
                     const struct grader_answer *a)
{
    static const enum grader_rule_kind kinds[] = {GRADER_RULE_EXEC,
                                                  GRADER_RULE_EXEC_BODY};
    size_t len, off, n;
    const char *s = grader_rung_kept(r, a, GRADER_KEEP_CONTENT, &len);
    const char *said = grader_rung_said(r, a);
    const char *ran = said ? strstr(said, " code:") : NULL;
    char hex[17];

    if (s == NULL || ran == NULL || grader_answer_outcome(a) < 0)
        return -1;
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        if (!grader_code_extract(kinds[k], s, len, &off, &n))
            continue;
        grader_code_hash(s + off, n, hex);
        if (strncmp(ran + 6, hex, 16) == 0)
            return strtab_add(t, s + off, n);
    }
    return -1;
}

static long value(struct strtab *t, const struct page *p,
                  const struct page_run *run, size_t i, uint32_t q,
                  enum field fl)
{
    const struct grader_rung *r = run->rungs[i];
    const struct grader_answer *a = grader_rung_find(r, q);
    const char *s, *cut;
    size_t len;

    if (fl == F_FACTS)
        return run->facts[i * p->nq + q];
    if (a == NULL)
        return -1;
    switch (fl) {
    case F_SAID: /* a code answer's without its hash ("failed 0/3") */
        s = grader_rung_said(r, a);
        if (s != NULL && grader_answer_outcome(a) >= 0 &&
            (cut = strstr(s, " code:")) != NULL)
            return strtab_add(t, s, (size_t)(cut - s));
        return add_str(t, s);
    case F_TOKENS:
        return a->tokens;
    case F_BUCKET: /* its stable name (toolcall.h), or none */
        return grader_answer_bucket(a) < 0
                   ? -1
                   : add_str(
                         t, toolcall_bucket_name((
                                enum toolcall_bucket)grader_answer_bucket(a)));
    case F_CODE:
        return code_ran(t, r, a);
    case F_OUTCOME: /* its stable name (task.h), or none */
        return grader_answer_outcome(a) < 0
                   ? -1
                   : add_str(t, grader_exec_name(grader_answer_outcome(a)));
    default:
        s = grader_rung_kept(r, a, keep_field[fl], &len);
        return s ? strtab_add(t, s, len) : -1;
    }
}

/* Whether rung r answered a tool item (its calls are then shown), or
 * ran a code item (its code is), as field fl needs: 1 to write it. */
static int field_shown(const struct grader_rung *r, size_t fl)
{
    int code = fl >= F_CODE;

    if (fl < F_CALLS)
        return 1;
    for (size_t k = 0; k < r->n; k++)
        if ((code ? grader_answer_outcome(&r->answers[k])
                  : grader_answer_bucket(&r->answers[k])) >= 0)
            return 1;
    return 0;
}

static void rung_arrays(FILE *f, struct strtab *t, const struct page *p,
                        const struct page_run *run, size_t i)
{
    size_t fl;
    uint32_t q;

    fputc('{', f);
    for (fl = F_FACTS; fl < F_FIELDS; fl++) {
        if (!field_shown(run->rungs[i], fl))
            continue;
        fprintf(f, "%s\"%s\":[", fl ? "," : "", field_key[fl]);
        for (q = 0; q < p->nq; q++)
            fprintf(f, "%s%ld", q ? "," : "",
                    value(t, p, run, i, q, (enum field)fl));
        fputc(']', f);
    }
    fputc('}', f);
}

/* The grid's rows as strings, one character a cell in question order:
 * 'a' + cell * 3 + mark (compare.h's enums). */
static int grid(FILE *f, const struct page *p)
{
    char *row = malloc(p->nq + 1);
    size_t i, j;

    if (row == NULL)
        return -1;
    fputs(",\"g\":[", f);
    for (i = 0; i < p->nrows; i++) {
        memset(row, 'a', p->nq);
        row[p->nq] = '\0';
        for (j = 0; j < p->ncols; j++) {
            uint32_t q = p->order[j];
            unsigned c = p->cells[i * p->ncols + j];
            unsigned m = p->marks ? p->marks[i * p->ncols + j] : 0;
            if (q < p->nq)
                row[q] = (char)('a' + c * 3 + m);
        }
        fprintf(f, "%s\"%s\"", i ? "," : "", row);
    }
    fputc(']', f);
    free(row);
    return 0;
}

static void question_arrays(FILE *f, struct strtab *t, const struct page *p)
{
    size_t q;

    fputs(",\"ids\":[", f);
    for (q = 0; q < p->nq; q++) {
        const char *id = grader_qset_id(p->qs, (uint32_t)q);
        fputs(q ? "," : "", f);
        page_json_string(f, id, strlen(id));
    }
    fputs("],\"refs\":[", f);
    for (q = 0; q < p->nq; q++) {
        const char *ref = grader_qset_reference(p->qs, (uint32_t)q);
        fputs(q ? "," : "", f);
        page_json_string(f, ref, strlen(ref));
    }
    fputs("],\"qt\":[", f);
    for (q = 0; q < p->nq; q++)
        fprintf(f, "%s%ld", q ? "," : "",
                p->qtext ? add_str(t, p->qtext[q]) : -1L);
    fputs("],\"order\":[", f);
    for (q = 0; q < p->ncols; q++)
        fprintf(f, "%s%u", q ? "," : "", p->order[q]);
    fputc(']', f);
}

/* ---- the split figures (docs/page.md, "Where it split") -------------- */

/* A figure to 6 significant digits, null for NAN and the infinities. */
static void num(FILE *f, double v)
{
    if (v == v && v - v == 0.0)
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

/* A server's text as fmt_shown makes it fit to show, then as JSON. */
static void shown(FILE *f, const char *s, size_t cap, int lines)
{
    char out[FMT_SHOWN_SIZE(GRADER_PROBS_BEFORE)];

    fmt_shown(out, sizeof(out), s, strnlen(s, cap), lines);
    page_json_string(f, out, strlen(out));
}

/* [id, logprob, text] */
static void alt(FILE *f, const struct grader_probs_alt *a)
{
    fprintf(f, "[%lu,", (unsigned long)a->id);
    num(f, a->lp);
    fputc(',', f);
    shown(f, a->text, sizeof(a->text), 0);
    fputc(']', f);
}

static void alts(FILE *f, const struct grader_probs_alt *a, unsigned n)
{
    unsigned i, k = 0;

    fputc('[', f);
    for (i = 0; i < n && i < GRADER_PROBS_TOPN_MAX; i++) {
        if (a[i].id == GRADER_PROBS_NONE)
            continue;
        fputs(k++ ? "," : "", f);
        alt(f, &a[i]);
    }
    fputc(']', f);
}

static void split_cell(FILE *f, const struct grader_probs_cell *c, unsigned n)
{
    const struct grader_split *s = &c->s;
    const double v[] = {s->ref_margin, s->rung_margin, s->rung_lp_of_ref,
                        s->kld_split,  s->kld_mean,    s->kld_max,
                        s->fragility};
    static const char *const key[] = {"rm", "qm", "lp", "ks",
                                      "km", "kx", "fr"};
    size_t i;

    fprintf(f,
            "{\"r\":%zu,\"q\":%zu,\"sp\":%ld,\"rn\":%zu,\"qn\":%zu,"
            "\"pf\":%zu",
            c->rung, c->question, s->split, s->ref_ntok, s->rung_ntok,
            s->prefix);
    for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        fprintf(f, ",\"%s\":", key[i]);
        num(f, v[i]);
    }
    fputs(",\"b\":", f);
    shown(f, c->before, sizeof(c->before), 1);
    fputs(",\"rt\":", f);
    alt(f, &c->ref_tok);
    fputs(",\"qt\":", f);
    alt(f, &c->rung_tok);
    fputs(",\"ra\":", f);
    alts(f, c->ref_top, n);
    fputs(",\"qa\":", f);
    alts(f, c->rung_top, n);
    fputc('}', f);
}

/* "pk": the grid's KLD per row and question (its shading level, a digit
 * a question, and the figure), and the dead cells that split. Only the
 * chain's rows have them (side rungs come after). */
static void split_block(FILE *f, const struct page *p)
{
    const struct grader_probs_ladder *pk = p->probs;
    size_t i, q, n = pk->nrungs < p->nrows ? pk->nrungs : p->nrows;

    fprintf(f, ",\"pk\":{\"n\":%u,\"kl\":[", pk->topn);
    for (i = 0; i < n; i++) {
        fputs(i ? ",\"" : "\"", f);
        for (q = 0; q < p->nq; q++)
            fputc('0' + (q < pk->nq && pk->kld
                             ? fmt_kld_level(pk->kld[i * pk->nq + q])
                             : 0),
                  f);
        fputc('"', f);
    }
    fputs("],\"kld\":[", f);
    for (i = 0; i < n; i++) {
        fputs(i ? ",[" : "[", f);
        for (q = 0; q < p->nq; q++) {
            fputs(q ? "," : "", f);
            num(f, q < pk->nq && pk->kld ? pk->kld[i * pk->nq + q] : NAN);
        }
        fputc(']', f);
    }
    fputs("],\"cells\":[", f);
    for (i = 0, q = 0; i < pk->ncells; i++) {
        if (pk->cells[i].rung >= n || pk->cells[i].question >= p->nq)
            continue;
        fputs(q++ ? ",\n" : "\n", f);
        split_cell(f, &pk->cells[i], pk->topn);
    }
    fputs("]}", f);
}

/* ---- the duels (docs/page.md, "Duels") --------------------------------- */

/* The grid's row named name, or -1. */
static long row_named(const struct page *p, const char *name)
{
    for (size_t i = 0; name != NULL && i < p->nrows; i++)
        if (strcmp(p->names[i], name) == 0)
            return (long)i;
    return -1;
}

static void json_or_null(FILE *f, const char *s)
{
    if (s != NULL)
        page_json_string(f, s, strlen(s));
    else
        fputs("null", f);
}

/* "duels": [{"a", "b": rows, "v": the verdict, "n": the counts, in
 * words or null}]; a pair naming a rung the grid has not (the config
 * refused it already), or one rung twice, is left out. */
static void duel_block(FILE *f, const struct page *p)
{
    size_t i, k = 0;

    fputs(",\"duels\":[", f);
    for (i = 0; i < p->nduels; i++) {
        const struct page_duel *d = &p->duels[i];
        long a = row_named(p, d->a), b = row_named(p, d->b);
        if (a < 0 || b < 0 || a == b)
            continue;
        fprintf(f, "%s{\"a\":%ld,\"b\":%ld,\"v\":", k++ ? "," : "", a, b);
        json_or_null(f, d->verdict);
        fputs(",\"n\":", f);
        json_or_null(f, d->counts);
        fputc('}', f);
    }
    fputc(']', f);
}

static int data_block(FILE *f, struct strtab *t, const struct page *p)
{
    size_t i, k;

    fputs("{\"v\":1,\"kind\":", f);
    page_json_string(f, p->kind, strlen(p->kind));
    fputs(",\"title\":", f);
    page_json_string(f, p->title, strlen(p->title));
    fputs(",\"qnote\":", f);
    json_or_null(f, p->qnote);
    question_arrays(f, t, p);
    fputs(",\"rows\":[", f);
    for (i = 0; i < p->nrows; i++) {
        fprintf(f, "%s{\"name\":", i ? "," : "");
        page_json_string(f, p->names[i], strlen(p->names[i]));
        fprintf(f, ",\"side\":%d,\"verdict\":", p->side ? p->side[i] : 0);
        json_or_null(f, p->verdicts ? p->verdicts[i] : NULL);
        fputc('}', f);
    }
    fputc(']', f);
    if (grid(f, p) != 0)
        return -1;
    if (p->probs != NULL)
        split_block(f, p);
    if (p->duels != NULL && p->nduels > 0)
        duel_block(f, p);
    fputs(",\"runs\":[", f);
    for (k = 0; k < p->nruns; k++) {
        fprintf(f, "%s{\"label\":", k ? "," : "");
        page_json_string(f, p->runs[k].label, strlen(p->runs[k].label));
        fputs(",\"r\":[", f);
        for (i = 0; i < p->nrows; i++) {
            fputs(i ? "," : "", f);
            rung_arrays(f, t, p, &p->runs[k], i);
        }
        fputs("]}", f);
    }
    /* the table last: the arrays above filled it */
    fputs("],\"T\":[", f);
    for (i = 0; i < t->n; i++) {
        fputs(i ? ",\n" : "\n", f);
        page_json_string(f, t->list[i]->s, t->list[i]->len);
    }
    fputs("]}", f);
    return t->nomem ? -1 : 0;
}

/* ---- gzip and base64 ---------------------------------------------------- */

static void base64(FILE *f, const unsigned char *p, size_t n)
{
    static const char abc[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char q[4], line[4096];
    size_t i, k = 0;

    for (i = 0; i + 2 < n; i += 3) {
        line[k++] = abc[p[i] >> 2];
        line[k++] = abc[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
        line[k++] = abc[((p[i + 1] & 15) << 2) | (p[i + 2] >> 6)];
        line[k++] = abc[p[i + 2] & 63];
        if (k == sizeof(line)) {
            fwrite(line, 1, k, f);
            k = 0;
        }
    }
    if (k > 0)
        fwrite(line, 1, k, f);
    if (i < n) {
        q[0] = abc[p[i] >> 2];
        q[1] = abc[((p[i] & 3) << 4) | (i + 1 < n ? p[i + 1] >> 4 : 0)];
        q[2] = i + 1 < n ? abc[(p[i + 1] & 15) << 2] : '=';
        q[3] = '=';
        fwrite(q, 1, 4, f);
    }
}

/* in[0..n) gzipped into f as base64. 0, or -1 (no memory, zlib). Level 2:
 * on the 1,319-question page's 13.4 MB, 1.96 MB in 0.07 s, where zlib's
 * default (6) gives 1.61 MB in 0.24 s, and a four-run comparison's page
 * is four times that. */
static int gzip_base64(FILE *f, const char *in, size_t n)
{
    z_stream z;
    unsigned char *out;
    uLong cap;
    int rc;

    memset(&z, 0, sizeof(z));
    if (deflateInit2(&z, 2, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK)
        return -1;
    cap = deflateBound(&z, (uLong)n);
    if ((out = malloc(cap)) == NULL) {
        deflateEnd(&z);
        return -1;
    }
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    rc = deflate(&z, Z_FINISH);
    if (rc == Z_STREAM_END)
        base64(f, out, z.total_out);
    deflateEnd(&z);
    free(out);
    return rc == Z_STREAM_END ? 0 : -1;
}

/* ---- the page ---------------------------------------------------------- */

/* The data block's element, open: its JSON as it is, or gzipped. The
 * JSON goes through memory first when gzipped (zlib wants it whole, and
 * a page's data is the size of the texts it shows). */
static int data(FILE *f, struct strtab *t, const struct page *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m;
    int rc;

    if (p->plain) {
        fputs("<script type=\"application/json\" id=\"gy-data\">", f);
        return data_block(f, t, p);
    }
    if ((m = open_memstream(&buf, &len)) == NULL)
        return -1;
    rc = data_block(m, t, p);
    if (fclose(m) != 0)
        rc = -1;
    if (rc == 0) {
        fputs("<script type=\"application/gzip\" id=\"gy-z\">", f);
        rc = gzip_base64(f, buf, len);
    }
    free(buf);
    return rc;
}

/* ---- the first paint ----------------------------------------------------
 * The grid as a picture, in the page's markup: what a browser shows
 * before the script has unpacked the data (or without a script at all, as
 * a CI's headless screenshot may), one row per rung with its label and
 * verdict mark, and its cells as runs of one colour and cap in an SVG
 * that stretches to the row's width. The script takes it away when it
 * draws the live grid in its place. */

/* A verdict's glyph and class, as page.js's verdictMark says (page_test
 * holds the two to the same labels); NULL for none. */
static const char *verdict_mark(const char *words, const char **cls)
{
    static const char *const v[][3] = {{"equivalent", "\xe2\x89\x88", "v-eq"},
                                       {"worse", "\xe2\x96\xbc", "v-worse"},
                                       {"better", "\xe2\x96\xb2", "v-better"},
                                       {"cannot tell", "?", "v-tell"}};

    for (size_t i = 0; words != NULL && i < sizeof(v) / sizeof(v[0]); i++)
        if (strncmp(words, v[i][0], strlen(v[i][0])) == 0) {
            *cls = v[i][2];
            return v[i][1];
        }
    return NULL;
}

/* Row i's cells as runs: a rectangle per run of one cell kind, and a cap
 * per run of one mark. */
static void first_strip(FILE *f, const struct page *p, size_t i)
{
    const uint8_t *c = p->cells + i * p->ncols;
    const uint8_t *m = p->marks ? p->marks + i * p->ncols : NULL;
    size_t j, k, w = p->ncols * 22; /* the live grid's widest cells */

    fprintf(f,
            "<svg class=\"strip\" width=\"%zu\" viewBox=\"0 0 %zu 20\" "
            "preserveAspectRatio=\"none\" aria-hidden=\"true\">",
            w ? w : 1, p->ncols ? p->ncols : 1);
    for (j = 0; j < p->ncols; j = k) {
        for (k = j + 1; k < p->ncols && c[k] == c[j]; k++)
            ;
        fprintf(f,
                "<rect class=\"c%u\" x=\"%zu\" width=\"%zu\" height=\"20\"/>",
                (unsigned)c[j], j, k - j);
    }
    for (j = 0; m != NULL && j < p->ncols; j = k) {
        for (k = j + 1; k < p->ncols && m[k] == m[j]; k++)
            ;
        if (m[j] != 0)
            fprintf(f,
                    "<rect class=\"m%u\" x=\"%zu\" width=\"%zu\" "
                    "height=\"7\"/>",
                    (unsigned)m[j], j, k - j);
    }
    fputs("</svg>", f);
}

static void first_paint(FILE *f, const struct page *p)
{
    size_t i;

    fprintf(f,
            "<div id=\"first\"%s role=\"img\" aria-label=\"the graveyard as "
            "a picture: one row per rung, one cell per question\">\n",
            p->nrows > 14 ? " class=\"many\"" : "");
    for (i = 0; i < p->nrows; i++) {
        const char *words = p->verdicts ? p->verdicts[i] : NULL;
        const char *cls = NULL, *mark = verdict_mark(words, &cls);
        int side = p->side != NULL && p->side[i];
        if (side && (i == 0 || !p->side[i - 1]))
            fputs("<div class=\"sep\">beside the ladder</div>\n", f);
        fprintf(f, "<div class=\"row%s\"><span class=\"lab\" title=\"",
                side ? " side" : "");
        fmt_markup(f, p->names[i], strlen(p->names[i]));
        if (words != NULL) {
            fputs(": ", f);
            fmt_markup(f, words, strlen(words));
        }
        fputs("\">", f);
        if (mark != NULL)
            fprintf(f, "<b class=\"vm %s\">%s</b>", cls, mark);
        fmt_markup(f, p->names[i], strlen(p->names[i]));
        fputs("</span>", f);
        first_strip(f, p, i);
        fputs("</div>\n", f);
    }
    fputs("</div>\n", f);
}

int render_page(FILE *f, const struct page *p)
{
    struct strtab t = {0};
    int rc;

    fprintf(f,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
            "<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, "
            "initial-scale=1\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\""
            "default-src 'none'; script-src '%s'; style-src '%s'; "
            "img-src data:; base-uri 'none'; form-action 'none'\">\n"
            "<meta name=\"generator\" content=\"graveyard\">\n<title>",
            page_js_hash, page_css_hash);
    fmt_markup(f, p->title, strlen(p->title));
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n", page_css);
    fputs("<header><h1>", f);
    fmt_markup(f, p->title, strlen(p->title));
    fputs("</h1>", f);
    if (p->subtitle != NULL) {
        fputs("<p class=\"sub\">", f);
        fmt_markup(f, p->subtitle, strlen(p->subtitle));
        fputs("</p>", f);
    }
    fputs("</header>\n", f);
    if (p->doc != NULL) /* the answer first: "Which file?" */
        doc_html_top(f, p->doc);
    fputs("<main id=\"app\">", f);
    first_paint(f, p);
    fputs("<noscript><p class=\"note\">The grid above is a picture "
          "(marigold: right; grey: wrong; a dark top: dead, the reference "
          "right; a pale top: a ghost, the reference wrong): hovering, "
          "filtering and opening each answer need JavaScript; the report "
          "below does not.</p></noscript></main>\n"
          "<section id=\"report\">\n",
          f);
    if (p->doc != NULL)
        doc_html(f, p->doc, p->svgs, p->nsvgs);
    fputs("</section>\n", f);
    rc = data(f, &t, p);
    fprintf(f, "</script>\n<script>%s</script>\n</body>\n</html>\n", page_js);
    strtab_free(&t);
    return rc != 0 || ferror(f) ? -1 : 0;
}
