/*
 * pages.c - the pages of report, compare and think (pages.h).
 */
#include "pages.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../report/fmt.h"
#include "../../report/page.h"
#include "../base/hash.h"
#include "../input/questions.h"
#include "../input/taskfile.h"
#include "../../util/util.h"

/* ---- question texts ---------------------------------------------------- */

/* The texts of the questions the rows answer, by question index, from the
 * file the manifest names (as written, else inside the run folder). A
 * question whose id or reference the file does not share gets none: its
 * text would be another question's. */
struct qtexts {
    struct questions file;
    const char **text; /* nq entries, NULL when unknown */
    char note[4800];
};

/* A relative name under run->base (a staged bundle's stage: as if the
 * working folder were there), else as it is: into *b, or name itself.
 * Past the path cap it is not there: "" (never a cut name). */
static const char *from_base(const struct rundir_run *run, const char *name,
                             struct buf *b)
{
    if (run->base == NULL || name[0] == '/')
        return name;
    return buf_path(b, "%s/%s", run->base, name) == 0 ? b->p : "";
}

/* Each "BASE/" in note cut: a message names a file as the run names it,
 * not where a stage put it. */
static void note_shown(char *note, const char *base)
{
    size_t k = base ? strlen(base) : 0;
    char *at;

    while (k > 0 && (at = strstr(note, base)) != NULL && at[k] == '/')
        memmove(at, at + k + 1, strlen(at + k + 1) + 1);
}

static void qtexts_load(struct qtexts *t, const struct rundir_run *run,
                        const struct grader_qset *qs, size_t nq)
{
    const char *path = run ? rundir_run_questions(run) : NULL;
    const char *want = run ? rundir_run_questions_sha256(run) : NULL;
    const char *read;
    struct buf alt = {0}, at = {0}, altat = {0};
    char msg[600], hex[65], why[300];
    struct grader_task *task;
    size_t i, found = 0, differ = 0;

    memset(t, 0, sizeof(*t));
    t->text = calloc(nq + 1, sizeof(*t->text));
    if (path == NULL) {
        snprintf(t->note, sizeof(t->note),
                 "the folder's manifest.json names no question file");
        return;
    }
    read = from_base(run, path, &at);
    if (access(read, R_OK) != 0 && path[0] != '/') {
        /* past the path cap it is not there: the note says the file
         * could not be read, under the name given */
        const char *r2 = buf_path(&alt, "%s/%s", run->dir, path) == 0
                             ? from_base(run, alt.p, &altat)
                             : "";
        if (r2[0] != '\0' && access(r2, R_OK) == 0) {
            path = alt.p;
            read = r2;
        }
    }
    /* the file is read as the folder's task reads it (a multiple-choice
     * file's references are letters); the page needs no long item's
     * prompt, only its summary (the run made each prompt already) */
    task = taskfile_from_manifest(run->manifest, path, msg, sizeof(msg));
    if (t->text == NULL || task == NULL ||
        questions_load_texts(read, 0, grader_task_ref(task), &t->file, msg,
                             sizeof(msg)) != 0) {
        snprintf(t->note, sizeof(t->note), "%s", t->text ? msg : "no memory");
        note_shown(t->note, run->base);
        grader_task_free(task);
        buf_release(&alt);
        buf_release(&at);
        buf_release(&altat);
        return;
    }
    for (i = 0; i < t->file.n; i++) {
        struct question *q = &t->file.q[i];
        struct grader_num num;
        uint32_t k;
        if (grader_qset_find(qs, q->id, strlen(q->id), &k) != 0 || k >= nq)
            continue;
        if (grader_task_ref_parse(task, q->answer, strlen(q->answer), &num) !=
                0 ||
            strcmp(num.s, grader_qset_canonical(qs, k)) != 0) {
            differ++;
            continue;
        }
        if (q->nchoices > 0) { /* the options are part of the question */
            char *g = grader_prompt_fill("{question}\n\n{choices}", q->text,
                                         (const char *const *)q->choices,
                                         q->nchoices);
            if (g != NULL) {
                free(q->text);
                q->text = xstrdup(g);
                grader_alloc_free(g);
            }
        }
        t->text[k] = q->text;
        found++;
    }
    grader_task_free(task);
    snprintf(t->note, sizeof(t->note), "question texts from %s (%zu of %zu)",
             path, found, nq);
    if (differ > 0)
        snprintf(t->note + strlen(t->note), sizeof(t->note) - strlen(t->note),
                 "; %zu left out: the file gives them another answer than "
                 "the rows",
                 differ);
    if (want != NULL && hash_path(read, hex, why, sizeof(why)) == 0 &&
        strcmp(hex, want) != 0)
        snprintf(t->note + strlen(t->note), sizeof(t->note) - strlen(t->note),
                 "; WARNING: its sha256 is not the one the rows were made "
                 "with (manifest.json)");
    buf_release(&alt);
    buf_release(&at);
    buf_release(&altat);
}

static void qtexts_release(struct qtexts *t)
{
    questions_release(&t->file);
    free(t->text);
}

struct pages_qtexts *pages_qtexts_new(const struct rundir_run *run,
                                      const struct grader_qset *qs, size_t nq)
{
    struct qtexts *t = malloc(sizeof(*t));

    if (t == NULL)
        return NULL;
    qtexts_load(t, run, qs, nq);
    if (t->text == NULL) {
        qtexts_release(t);
        free(t);
        return NULL;
    }
    return (struct pages_qtexts *)t;
}

const char *pages_qtext(const struct pages_qtexts *t, uint32_t q)
{
    return ((const struct qtexts *)t)->text[q];
}

const char *pages_qtexts_note(const struct pages_qtexts *t)
{
    return ((const struct qtexts *)t)->note;
}

void pages_qtexts_free(struct pages_qtexts *t)
{
    if (t == NULL)
        return;
    qtexts_release((struct qtexts *)t);
    free(t);
}

/* ---- the grid's rows --------------------------------------------------- */

/* The settings in one line: GPU, build, questions, thinking, cap. */
static void subtitle(char *out, size_t size, const struct rundir_run *run,
                     const char *gpu, size_t nq)
{
    const char *server = rundir_run_server(run);
    long cap = rundir_run_max_tokens(run);
    int think = rundir_run_thinking(run);
    char n[FMT_SIZE], c[FMT_SIZE];
    size_t len;

    snprintf(out, size, "%s questions", fmt_count(n, (long long)nq));
    len = strlen(out);
    if (gpu != NULL && gpu[0] != '\0')
        len += (size_t)snprintf(out + len, size - len, " \xc2\xb7 %s", gpu);
    if (server != NULL && len < size)
        len += (size_t)snprintf(out + len, size - len, " \xc2\xb7 %s", server);
    if (think >= 0 && len < size)
        len += (size_t)snprintf(out + len, size - len, " \xc2\xb7 thinking %s",
                                think ? "on" : "off");
    if (cap > 0 && len < size)
        snprintf(out + len, size - len, " \xc2\xb7 token cap %s",
                 fmt_count(c, cap));
}

static void doc_into(struct page *p, const struct page_doc *doc)
{
    p->doc = doc->doc;
    p->svgs = doc->svgs;
    p->nsvgs = doc->nsvgs;
    p->duels = doc->duels;
    p->nduels = doc->nduels;
}

/* Row i's verdict in words at the margin the verdicts used ("cannot tell
 * at ±2 points"), or "" at the reference. */
static void verdict_row(char *out, size_t size,
                        const struct grader_ladder *rep, size_t i)
{
    const struct grader_figures *x = grader_ladder_point(rep, i);
    char w[RENDER_VERDICT_SIZE], m[FMT_SIZE];

    out[0] = '\0';
    if (i == 0 || x->verdict.kind == GRADER_VERDICT_NONE)
        return;
    snprintf(out, size, "%.*s at \xc2\xb1%s points", RENDER_VERDICT_SIZE,
             render_verdict_words(w, &x->verdict),
             fmt_margin(m, x->verdict.margin));
}

int pages_report(FILE *f, const struct rundir_run *run,
                 const struct grader_ladder *rep, const struct grader_qset *qs,
                 const struct grader_rung *const *chain,
                 const struct grader_rung *const *side,
                 const struct page_doc *doc)
{
    size_t nc = rep->chain.nrungs, ns = rep->nsides, nrows = nc + ns;
    size_t nq = grader_qset_count(qs), ncols = rep->nq, i;
    const struct grader_rung *sb[GRADER_MAX_RUNGS + 1],
        *rows[2 * GRADER_MAX_RUNGS];
    const char *names[2 * GRADER_MAX_RUNGS], *verdicts[2 * GRADER_MAX_RUNGS];
    char words[2 * GRADER_MAX_RUNGS][RENDER_VERDICT_SIZE + 32];
    int is_side[2 * GRADER_MAX_RUNGS];
    uint16_t *facts = calloc(nrows * nq + 1, sizeof(*facts));
    uint16_t *sfacts = calloc((ns + 1) * nq + 1, sizeof(*sfacts));
    uint8_t *cells = calloc(nrows * ncols + 1, 1);
    uint8_t *marks = calloc(nrows * ncols + 1, 1);
    uint8_t *sc = calloc((ns + 1) * ncols + 1, 1),
            *sm = calloc((ns + 1) * ncols + 1, 1);
    char sub[1200], title[600];
    struct qtexts qt;
    struct page_run pr;
    struct page p;
    int rc = -1;

    if (facts == NULL || sfacts == NULL || cells == NULL || marks == NULL ||
        sc == NULL || sm == NULL)
        goto done;
    /* the chain as the ladder has it; the side rungs as their own bury,
     * against the same reference */
    grader_bury_cells(&rep->chain, chain, nq, facts);
    memcpy(cells, rep->cells, nc * ncols);
    grader_grid_marks(rep->cells, nc, ncols, marks);
    if (ns > 0) {
        sb[0] = chain[0];
        for (i = 0; i < ns; i++)
            sb[i + 1] = side[i];
        grader_bury_cells(&rep->side, sb, nq, sfacts);
        memcpy(facts + nc * nq, sfacts + nq, ns * nq * sizeof(*facts));
        grader_grid(sb, 1, ns + 1, rep->order, ncols, sc);
        grader_grid_marks(sc, ns + 1, ncols, sm);
        memcpy(cells + nc * ncols, sc + ncols, ns * ncols);
        memcpy(marks + nc * ncols, sm + ncols, ns * ncols);
    }
    for (i = 0; i < nrows; i++) {
        rows[i] = i < nc ? chain[i] : side[i - nc];
        names[i] = rows[i]->name;
        is_side[i] = i >= nc;
        verdict_row(words[i], sizeof(words[i]), rep, i);
        verdicts[i] = words[i][0] ? words[i] : NULL;
    }
    qtexts_load(&qt, run, qs, nq);
    snprintf(title, sizeof(title), "graveyard: %s",
             run->name ? run->name : run->dir);
    subtitle(sub, sizeof(sub), run, rep->rungs[0].meta.gpu_name, rep->nq);
    pr = (struct page_run){run->label, rows, facts};
    p = (struct page){"report", title, sub,        qs,       nq,         names,
                      is_side,  nrows, &pr,        1,        rep->order, ncols,
                      cells,    marks, qt.text,    qt.note,  NULL,       NULL,
                      0,        0,     rep->probs, verdicts, NULL,       0};
    doc_into(&p, doc);
    rc = render_page(f, &p);
    qtexts_release(&qt);
done:
    free(facts);
    free(sfacts);
    free(cells);
    free(marks);
    free(sc);
    free(sm);
    return rc;
}

static int compare_page(FILE *f, const struct render_compare *rc,
                        const struct grader_rung *const *rungs,
                        const struct page_doc *doc, const char *kind,
                        const char *title)
{
    const struct grader_compare *c = rc->c;
    size_t nq = grader_qset_count(rc->qs), k, nr = c->nrungs;
    struct page_run runs[GRADER_MAX_RUNS];
    uint16_t *facts = calloc(c->nruns * nr * nq + 1, sizeof(*facts));
    uint8_t *marks = calloc(nr * c->nq + 1, 1);
    char sub[1200];
    struct qtexts qt;
    struct page p;
    int r = -1;

    if (facts == NULL || marks == NULL)
        goto done;
    for (k = 0; k < c->nruns; k++) {
        grader_bury_cells(&c->bury[k], rungs + k * nr, nq,
                          facts + k * nr * nq);
        runs[k] = (struct page_run){rc->runs[k].label, rungs + k * nr,
                                    facts + k * nr * nq};
    }
    grader_grid_marks(c->cells, nr, c->nq, marks);
    qtexts_load(&qt, &rc->runs[0], rc->qs, nq);
    snprintf(sub, sizeof(sub), "%zu runs of one ladder. %s", c->nruns,
             rc->files_note);
    p = (struct page){kind,     title,    sub,
                      rc->qs,   nq,       (const char *const *)rc->names,
                      NULL,     nr,       runs,
                      c->nruns, c->order, c->nq,
                      c->cells, marks,    qt.text,
                      qt.note,  NULL,     NULL,
                      0,        0,        NULL,
                      NULL,     NULL,     0};
    doc_into(&p, doc);
    r = render_page(f, &p);
    qtexts_release(&qt);
done:
    free(facts);
    free(marks);
    return r;
}

int pages_compare(FILE *f, const struct render_compare *rc,
                  const struct grader_rung *const *rungs,
                  const struct page_doc *doc)
{
    return compare_page(f, rc, rungs, doc, "compare",
                        "graveyard compare: the runs overlaid");
}

int pages_think(FILE *f, const struct render_think *t,
                const struct grader_qset *qs,
                const struct grader_rung *const *off,
                const struct grader_rung *const *on,
                const struct page_doc *doc)
{
    const struct grader_rung *both[2 * GRADER_MAX_RUNGS];
    const char *names[GRADER_MAX_RUNGS];
    struct render_compare rc;
    struct rundir_run runs[2];
    struct grader_compare c;
    struct grader_error err;
    size_t i, n = t->n;
    int r;

    for (i = 0; i < n; i++) {
        both[i] = off[i];
        both[n + i] = on[i];
        names[i] = off[i]->name;
    }
    /* the overlay of the two passes is a comparison of two runs */
    if (grader_compare(qs, both, 2, n, GRADER_PARTIAL, &c, &err) != 0)
        return -1;
    runs[0] = *t->off;
    runs[1] = *t->on;
    snprintf(runs[0].label, sizeof(runs[0].label), "thinking off");
    snprintf(runs[1].label, sizeof(runs[1].label), "thinking on");
    memset(&rc, 0, sizeof(rc));
    rc.runs = runs;
    rc.names = names;
    rc.c = &c;
    rc.qs = qs;
    rc.files_note = t->note;
    rc.files_same = t->files_same;
    r = compare_page(f, &rc, both, doc, "think",
                     "graveyard think: thinking off against on");
    grader_compare_release(&c);
    return r;
}
