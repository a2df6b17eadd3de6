/*
 * md_duel.c - the duels in words and JSON (md_duel.h; docs/duel.md).
 * Every figure is the grader's (duel.h), every provenance field the
 * figures library's (figures_duel.c): this only formats.
 */
#include "md_duel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "fmt.h"

/* Lines of a provenance panel, each at most PROV_LINE bytes. */
#define PROV_LINES 8
#define PROV_LINE  640

static json_t *n_or_null(long long n)
{
    return n < 0 ? json_null() : json_integer((json_int_t)n);
}

/* The counts and the verdict of one duel, as the whole and each subject
 * carry them. */
static json_t *counts(const struct grader_duel *d)
{
    return json_pack(
        "{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:o,s:[oo],s:[oo],s:s,s:o,s:o,"
        "s:o,s:o}",
        "n", (json_int_t)d->n, "only_one", (json_int_t)d->only_one,
        "both_right", (json_int_t)d->both, "a_only", (json_int_t)d->a_only,
        "b_only", (json_int_t)d->b_only, "neither", (json_int_t)d->neither,
        "neither_apart", (json_int_t)d->neither_apart, "p_mcnemar",
        json_real(d->p), "change", emit_real4(d->change), "ci95",
        emit_real4(d->lo95), emit_real4(d->hi95), "ci90", emit_real4(d->lo90),
        emit_real4(d->hi90), "verdict", grader_duel_word(d->v.kind), "margin",
        emit_real4(d->v.margin), "margin_asked", emit_real4(d->v.asked),
        "n_equiv", n_or_null(d->v.n_equiv), "n_power",
        n_or_null(d->v.n_power));
}

/* A disagreeing question's id: "SUBJECT:id" when the duel has several
 * folders, so that two tasks' "q1" are told apart. */
static void qid(char *out, size_t size, const struct grader_duel_set *s,
                const struct grader_duel *f, size_t k)
{
    const char *id = grader_qset_id(f->qs, f->disagree[k]);

    if (s->nfolders > 1)
        snprintf(out, size, "%s:%s", f->subject, id);
    else
        snprintf(out, size, "%s", id);
}

json_t *render_duel_json(const struct grader_duel_set *s, const json_t *prov)
{
    json_t *o = json_pack("{s:s,s:s}", "a", s->a, "b", s->b);
    json_t *w = counts(&s->whole), *dis = json_array(), *subs = json_array();
    char id[512];
    size_t i, k;
    int bad = o == NULL || w == NULL || dis == NULL || subs == NULL;

    /* the shape docs/duel.md gives: the names, then the whole's counts */
    bad = bad || json_object_update(o, w) != 0;
    for (i = 0; !bad && i < s->nsubjects; i++) {
        const struct grader_duel *f = &s->subjects[i];
        json_t *x = json_pack("{s:s}", "subject", f->subject), *c = counts(f);
        bad = x == NULL || c == NULL || json_object_update(x, c) != 0;
        json_decref(c);
        bad = json_array_append_new(subs, x) != 0 || bad;
        if (f->length >= 0) /* a length's questions are its folder's */
            continue;
        for (k = 0; !bad && k < f->ndisagree; k++) {
            qid(id, sizeof(id), s, f, k);
            bad = json_array_append_new(dis, json_string(id)) != 0;
        }
    }
    json_decref(w);
    if (!bad)
        bad = json_object_set_new(o, "floor",
                                  s->floor_points < 0
                                      ? json_null()
                                      : emit_real4(s->floor_points)) ||
              json_object_set(o, "disagree", dis) ||
              json_object_set(o, "subjects", subs) ||
              json_object_set_new(o, "provenance",
                                  prov ? json_deep_copy(prov) : json_null());
    json_decref(dis);
    json_decref(subs);
    if (bad) { /* out of memory: no duel rather than half of one */
        json_decref(o);
        return NULL;
    }
    return o;
}

int render_duels_json(json_t *o, const struct rundir_run *run,
                      const struct grader_ladder *rep)
{
    json_t *a, *x;
    size_t i;

    if (rep->nduels == 0)
        return 0;
    if ((a = json_array()) == NULL)
        return -1;
    for (i = 0; i < rep->nduels; i++) {
        x = render_duel_json(&rep->duels[i],
                             json_array_get(run->duel_prov, i));
        if (x == NULL || json_array_append_new(a, x) != 0) {
            json_decref(a);
            return -1;
        }
    }
    return json_object_set_new(o, "duels", a) == 0 ? 0 : -1;
}

/* The change and its 95 % interval as fmt_pp_ci writes them (it takes
 * fractions; the duel keeps points). */
static char *change_ci(char *out, const struct grader_duel *d)
{
    return fmt_pp_ci(out, d->change / 100.0, d->lo95 / 100.0, d->hi95 / 100.0);
}

char *render_duel_verdict(char *out, size_t size, const char *a, const char *b,
                          const struct grader_duel *d, int with_n)
{
    char m[FMT_SIZE], n[FMT_SIZE];
    long long need = d->v.n_equiv >= 0 ? d->v.n_equiv : d->v.n_power;

    fmt_margin(m, d->v.margin);
    switch (d->v.kind) {
    case GRADER_VERDICT_EQUIVALENT:
        snprintf(out, size, "%s \xe2\x89\xa1 %s within \xc2\xb1%s points", a,
                 b, m);
        break;
    case GRADER_VERDICT_BETTER:
        snprintf(out, size, "%s better", a);
        break;
    case GRADER_VERDICT_WORSE:
        snprintf(out, size, "%s better", b);
        break;
    default:
        if (need >= 0 && with_n)
            snprintf(out, size, "cannot tell; %s questions would tell",
                     fmt_count(n, need));
        else
            snprintf(out, size, "cannot tell");
    }
    return out;
}

/* A field of a side's provenance, or NULL. */
static const char *field(const json_t *side, const char *key)
{
    return json_string_value(json_object_get(side, key));
}

/* One side's line: its rung, file, bytes, short sha256, name, type and
 * imatrix. */
static void side_line(char *out, size_t size, const char *label,
                      const json_t *side)
{
    const char *sha = field(side, "sha256"), *v;
    json_t *bytes = json_object_get(side, "bytes");
    char b[FMT_SIZE], im[PROV_LINE / 2];
    size_t len;

    fmt_count(b, json_is_integer(bytes) ? (long long)json_integer_value(bytes)
                                        : -1);
    im[0] = '\0';
    if ((v = field(side, "quantize.imatrix.file")) != NULL ||
        (v = field(side, "quantize.imatrix.dataset")) != NULL)
        snprintf(im, sizeof(im),
                 "; imatrix %.60s, dataset %.60s, %s "
                 "entries, %s chunks",
                 field(side, "quantize.imatrix.file")
                     ? field(side, "quantize.imatrix.file")
                     : FMT_DASH,
                 field(side, "quantize.imatrix.dataset")
                     ? field(side, "quantize.imatrix.dataset")
                     : FMT_DASH,
                 field(side, "quantize.imatrix.entries_count")
                     ? field(side, "quantize.imatrix.entries_count")
                     : FMT_DASH,
                 field(side, "quantize.imatrix.chunks_count")
                     ? field(side, "quantize.imatrix.chunks_count")
                     : FMT_DASH);
    else if (json_is_true(json_object_get(side, "here")))
        snprintf(im, sizeof(im), "; no imatrix recorded");
    len = (size_t)snprintf(
        out, size, "%s = %.64s: %.200s, %s bytes, sha256 %.8s", label,
        field(side, "rung") ? field(side, "rung") : "?",
        field(side, "file") ? field(side, "file") : FMT_DASH, b,
        sha && *sha ? sha : FMT_DASH);
    if (len >= size)
        return;
    if (field(side, "error") != NULL)
        snprintf(out + len, size - len,
                 " (not read as a GGUF: %.200s; sha256 from the manifest)",
                 field(side, "error"));
    else if (!json_is_true(json_object_get(side, "here")))
        snprintf(out + len, size - len,
                 " (file not here: sha256 from the manifest)");
    else
        snprintf(
            out + len, size - len, "; general.name %.80s, file_type %.8s%s",
            field(side, "general.name") ? field(side, "general.name")
                                        : FMT_DASH,
            field(side, "general.file_type") ? field(side, "general.file_type")
                                             : FMT_DASH,
            im);
}

/* The panel's lines into lines[]; how many. */
static size_t prov_lines(char lines[PROV_LINES][PROV_LINE], const json_t *p)
{
    json_t *a = json_object_get(p, "a"), *b = json_object_get(p, "b"), *t;
    size_t n = 0, i, len;

    if (p == NULL)
        return 0;
    side_line(lines[n++], PROV_LINE, "A", a);
    side_line(lines[n++], PROV_LINE, "B", b);
    if (json_is_true(json_object_get(p, "size_differs")))
        snprintf(lines[n++], PROV_LINE,
                 "the two files' sizes differ by more than 2 %%");
    if (json_is_true(json_object_get(p, "same_name_other_sha256")))
        snprintf(lines[n++], PROV_LINE,
                 "one name, two files: sha256 %.12s (A) and %.12s (B)",
                 field(a, "sha256"), field(b, "sha256"));
    t = json_object_get(p, "tensors_differ");
    if (json_is_integer(t)) {
        len = (size_t)snprintf(lines[n], PROV_LINE,
                               "tensors of another type in A and B: %lld",
                               (long long)json_integer_value(t));
        json_array_foreach(json_object_get(p, "differ_first"), i, t)
        {
            if (len >= PROV_LINE)
                break;
            len += (size_t)snprintf(lines[n] + len, PROV_LINE - len, "%s%.80s",
                                    i ? ", " : " (", json_string_value(t));
        }
        if (i > 0 && len + 2 < PROV_LINE)
            snprintf(lines[n] + len, PROV_LINE - len, ")");
        n++;
    } else
        snprintf(lines[n++], PROV_LINE,
                 "tensors of another type: not known (a file not read)");
    return n;
}

/* The subjects' line: "math 3/1 p 0.625 cannot tell". */
static void subject_cells(char *out, size_t size,
                          const struct grader_duel_set *s,
                          const struct grader_duel *d)
{
    char v[FMT_SIZE * 3], c[FMT_SIZE], p[FMT_SIZE];

    render_duel_verdict(v, sizeof(v), "A", "B", d, 1);
    change_ci(c, d);
    fmt_p(p, d->p);
    snprintf(out, size, "n %zu: %zu/%zu/%zu/%zu, change %s, p %s: %s", d->n,
             d->both, d->a_only, d->b_only, d->neither, c, p, v);
    (void)s;
}

int render_duel_text(FILE *f, const struct grader_duel_set *s,
                     const json_t *prov)
{
    const struct grader_duel *w = &s->whole;
    char v[FMT_SIZE * 3], c[FMT_SIZE], p[FMT_SIZE], m[FMT_SIZE], x[FMT_SIZE];
    char lines[PROV_LINES][PROV_LINE], line[PROV_LINE], id[512];
    size_t i, k, shown = 0, n;

    fprintf(f, "duel: A = %s against B = %s, %zu questions both answered",
            s->a, s->b, w->n);
    if (w->only_one)
        fprintf(f, " (%zu answered by one only, left out)", w->only_one);
    fprintf(f, "\n\n%-12s %10s %10s\n", "", "B right", "B wrong");
    fprintf(f, "%-12s %10zu %10zu\n", "A right", w->both, w->a_only);
    fprintf(f, "%-12s %10zu %10zu\n", "A wrong", w->b_only, w->neither);
    fprintf(f, "(both wrong: %zu with different answers, %zu the same)\n\n",
            w->neither_apart, w->neither - w->neither_apart);
    change_ci(c, w);
    fmt_p(p, w->p);
    fprintf(f, "change A - B: %s points (95 %%), p %s (exact McNemar)\n", c,
            p);
    fmt_signed(x, w->lo90, 1);
    fmt_signed(m, w->hi90, 1);
    fprintf(f, "90 %% interval: %s to %s points\n", x, m);
    render_duel_verdict(v, sizeof(v), s->a, s->b, w, 1);
    fprintf(f, "verdict: %s\n", v);
    fmt_margin(m, w->v.asked);
    if (s->floor_points < 0)
        fprintf(f,
                "floor: none (no repeat of the reference); margin "
                "\xc2\xb1%s\n",
                m);
    else {
        fmt_fixed(x, s->floor_points, 2);
        fprintf(f, "floor: %s points (the reference against its repeat)%s\n",
                x, w->v.margin_raised ? ", which raised the margin" : "");
    }
    for (i = 0; i < s->nsubjects; i++) {
        subject_cells(line, sizeof(line), s, &s->subjects[i]);
        fprintf(f, "%s%-16.64s %s\n", i == 0 ? "\nby subject:\n  " : "  ",
                s->subjects[i].subject, line);
    }
    fprintf(f, "\nthey disagree on %zu questions", w->a_only + w->b_only);
    for (i = 0; i < s->nsubjects && shown < MD_DUEL_FIRST; i++)
        for (k = 0; s->subjects[i].length < 0 &&
                    k < s->subjects[i].ndisagree && shown < MD_DUEL_FIRST;
             k++) {
            qid(id, sizeof(id), s, &s->subjects[i], k);
            fprintf(f, "%s%s", shown++ ? ", " : ": ", id);
        }
    fprintf(f, "%s\n", shown < w->a_only + w->b_only ? ", ..." : "");
    n = prov_lines(lines, prov);
    for (i = 0; i < n; i++)
        fprintf(f, "%s%s\n", i == 0 ? "\nprovenance:\n  " : "  ", lines[i]);
    return ferror(f) ? -1 : 0;
}

void md_duels(struct doc *d, const struct rundir_run *run,
              const struct grader_ladder *rep)
{
    char lines[PROV_LINES][PROV_LINE], a[FMT_SIZE], v[FMT_SIZE * 3];
    size_t i, k, n;

    if (rep->nduels == 0)
        return;
    doc_heading(d, 2);
    doc_raw(d, "Duels");
    doc_para(d);
    doc_raw(d, "Each pair the config named, A against B on the questions "
               "both answered (docs/duel.md): both right, A right only, B "
               "right only, neither; the change A \xe2\x88\x92 B in points "
               "with its paired 95 %% interval, the exact McNemar p, the "
               "verdict at the margin, and the questions that would tell.");
    doc_table(d, "llrrrrlrlr");
    doc_row(d);
    doc_cellf(d, "A");
    doc_cellf(d, "B");
    doc_cellf(d, "Both right");
    doc_cellf(d, "A only");
    doc_cellf(d, "B only");
    doc_cellf(d, "Neither");
    doc_cellf(d, "Change (95 %%)");
    doc_cellf(d, "p");
    doc_cellf(d, "Verdict");
    doc_cellf(d, "n that would tell");
    for (i = 0; i < rep->nduels; i++) {
        const struct grader_duel_set *s = &rep->duels[i];
        const struct grader_duel *w = &s->whole;
        long long need = w->v.n_equiv >= 0 ? w->v.n_equiv : w->v.n_power;
        doc_row(d);
        doc_cell(d);
        doc_rung(d, s->a, 0);
        doc_cell(d);
        doc_rung(d, s->b, 0);
        doc_cellf(d, "%s", fmt_count(a, (long long)w->both));
        doc_cellf(d, "%s", fmt_count(a, (long long)w->a_only));
        doc_cellf(d, "%s", fmt_count(a, (long long)w->b_only));
        doc_cellf(d, "%s", fmt_count(a, (long long)w->neither));
        doc_cellf(d, "%s", change_ci(a, w));
        doc_cellf(d, "%s", fmt_p(a, w->p));
        doc_cellf(d, "%s", render_duel_verdict(v, sizeof(v), "A", "B", w, 0));
        doc_cellf(d, "%s",
                  w->v.kind == GRADER_VERDICT_CANNOT_TELL ? fmt_count(a, need)
                                                          : FMT_DASH);
    }
    for (i = 0; i < rep->nduels; i++) {
        n = prov_lines(lines, json_array_get(run->duel_prov, i));
        if (n == 0)
            continue;
        doc_para(d);
        doc_raw(d, "Where %s and %s came from:", rep->duels[i].a,
                rep->duels[i].b);
        doc_list(d);
        for (k = 0; k < n; k++) {
            doc_item(d);
            doc_text(d, lines[k], PROV_LINE);
        }
    }
}
