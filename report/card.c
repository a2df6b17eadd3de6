/*
 * card.c - graveyard publish's files (card.h): the model-card block, the
 * Hugging Face YAML and lm-eval's results shape, from the figures the
 * grader computed for REPORT.md. docs/publish.md says which public
 * format each follows and where that format is written down.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../rundir/manifest.h"
#include "card.h"
#include "doc.h"
#include "emit.h"
#include "fmt.h"
#include "render.h"

const char *card_point_name(const struct rundir_run *run, size_t p)
{
    return p < run->nchain ? run->chain[p] : run->side[p - run->nchain];
}

const char *card_file_name(const struct rundir_run *run, const char *rung)
{
    const char *m = manifest_rung_model(run->manifest, rung), *slash;

    if (m == NULL)
        return NULL;
    slash = strrchr(m, '/');
    return slash ? slash + 1 : m;
}

void card_yaml_str(FILE *f, const char *s)
{
    const unsigned char *c = (const unsigned char *)s;

    fputc('"', f);
    for (; *c != '\0'; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(f, "\\%c", *c);
        else if (*c < 0x20 || *c == 0x7f)
            fprintf(f, "\\x%02x", *c);
        else
            fputc(*c, f);
    }
    fputc('"', f);
}

static size_t npoints(const struct grader_ladder *rep)
{
    return rep->chain.nrungs + rep->nsides;
}

static const char *task_name(const struct rundir_run *run)
{
    const char *t = manifest_task_name(run->manifest);
    return t ? t : "answer-line";
}

/* The question file's name, never its folder. */
static const char *questions_name(const struct rundir_run *run)
{
    const char *q = rundir_run_questions(run), *slash;

    if (q == NULL)
        return "not recorded";
    slash = strrchr(q, '/');
    return slash ? slash + 1 : q;
}

/* ---- CARD.md ------------------------------------------------------------ */

static void card_row(struct doc *d, const struct rundir_run *run,
                     const struct grader_ladder *rep, size_t p)
{
    const struct grader_figures *f = grader_ladder_point(rep, p);
    const char *name = card_point_name(run, p), *file;
    char n1[FMT_SIZE], verdict[RENDER_VERDICT_SIZE];

    file = card_file_name(run, name);
    doc_row(d);
    doc_cell(d);
    doc_celltext(d, name, 128);
    doc_cell(d);
    doc_code(d, file ? file : "not recorded", 256);
    doc_cell(d);
    doc_code(d, f->meta.sha256[0] ? f->meta.sha256 : "not recorded", 80);
    doc_cellf(d, "%s", fmt_count(n1, f->meta.bytes > 0 ? f->meta.bytes : -1));
    doc_cellf(d, "%s", fmt_pct_ci(n1, f->acc, f->acc_lo, f->acc_hi));
    if (p == 0) {
        doc_cellf(d, "reference");
        doc_cellf(d, "—");
        doc_cellf(d, "—");
        doc_cellf(d, "—");
    } else {
        doc_cellf(d, "%zu", f->line->dead);
        doc_cellf(d, "%zu", f->line->ghosts);
        doc_cellf(d, "%s", fmt_p(n1, f->line->p_mcnemar));
        doc_cellf(d, "%s", render_verdict_words(verdict, &f->verdict));
    }
}

static void card_settings(struct doc *d, const struct rundir_run *run,
                          const struct grader_ladder *rep)
{
    const char *server = rundir_run_server(run),
               *sha = rundir_run_questions_sha256(run), *gpu = "not recorded";
    char n1[FMT_SIZE], n2[FMT_SIZE], n3[FMT_SIZE];
    size_t i;

    for (i = 0; i < rep->chain.nrungs; i++)
        if (rep->rungs[i].meta.gpu_name[0] != '\0') {
            gpu = rep->rungs[i].meta.gpu_name;
            break;
        }
    doc_list(d);
    doc_item(d);
    doc_raw(d, "Noise floor: ");
    if (rep->floor < 0)
        doc_raw(d, "not measured (no repeat of the reference)");
    else
        doc_raw(d,
                "%s questions (%s %%) graded differently when the "
                "reference ran again; verdicts at a margin of %s points",
                fmt_count(n1, rep->floor), fmt_fixed(n2, rep->floor_points, 1),
                fmt_margin(n3, rep->margin_used));
    if (rep->floor < 0)
        doc_raw(d, "; verdicts at a margin of %s points",
                fmt_margin(n3, rep->margin_used));
    doc_item(d);
    doc_raw(d, "llama.cpp build: ");
    doc_code(d, server ? server : "not recorded", 256);
    doc_raw(d, "; GPU: ");
    doc_text(d, gpu, 256);
    doc_item(d);
    doc_raw(d, "Task: ");
    doc_code(d, task_name(run), 128);
    doc_raw(d, ", rule ");
    doc_code(d, rep->rule[0] ? rep->rule : "answer-line", 128);
    doc_raw(d, "; questions: ");
    doc_code(d, questions_name(run), 256);
    doc_raw(d, ", %s questions, sha256 ",
            fmt_count(n1, (long long)rep->chain.questions));
    doc_code(d, sha ? sha : "not recorded", 80);
}

struct doc *render_card_doc(const struct rundir_run *run,
                            const struct grader_ladder *rep,
                            const struct card_names *names)
{
    struct doc *d = doc_new();
    size_t p;

    if (d == NULL)
        return NULL;
    doc_heading(d, 2);
    doc_raw(d, "Quantization evidence: ");
    doc_text(d, names->model, 256);
    doc_table(d, "lllrrrrrl");
    doc_row(d);
    doc_cellf(d, "Rung");
    doc_cellf(d, "File");
    doc_cellf(d, "sha256");
    doc_cellf(d, "Bytes");
    doc_cellf(d, "Accuracy %% (95 %% CI)");
    doc_cellf(d, "Dead");
    doc_cellf(d, "Ghosts");
    doc_cellf(d, "McNemar p");
    doc_cellf(d, "Verdict");
    for (p = 0; p < npoints(rep); p++)
        card_row(d, run, rep, p);
    card_settings(d, run, rep);
    doc_para_last(d);
    doc_raw(d, "Method: every question asked greedily of each file on its "
               "own pinned llama-server and graded from its reply by ");
    doc_tick(d, "graveyard");
    doc_raw(d, "; dead: right at the reference and wrong here, ghosts the "
               "reverse; accuracy with its Wilson 95 %% interval; the "
               "bundle's rows recompute every figure (");
    doc_tick(d, "graveyard verify BUNDLE");
    doc_raw(d, ").");
    return d;
}

/* ---- Hugging Face --------------------------------------------------------
 */

int render_card_model_index(FILE *f, const struct rundir_run *run,
                            const struct grader_ladder *rep,
                            const struct card_names *names)
{
    size_t p;

    fputs("---\nmodel-index:\n- name: ", f);
    card_yaml_str(f, names->model);
    fputs("\n  results:\n", f);
    for (p = 0; p < npoints(rep); p++) {
        const struct grader_figures *g = grader_ladder_point(rep, p);
        const char *name = card_point_name(run, p);

        fputs("  - task:\n      type: \"text-generation\"\n"
              "    dataset:\n      name: ",
              f);
        card_yaml_str(f, questions_name(run));
        fputs("\n      type: ", f);
        card_yaml_str(f, names->dataset);
        fputs("\n    metrics:\n    - type: \"accuracy\"\n      value: ", f);
        fprintf(f, "%.4f\n      name: ", g->acc);
        card_yaml_str(f, name);
        fputs("\n      verified: false\n    source:\n      name: ", f);
        card_yaml_str(f, "graveyard");
        fputc('\n', f);
    }
    fputs("---\n", f);
    return 0;
}

int render_card_eval_results(FILE *f, const struct rundir_run *run,
                             const struct grader_ladder *rep,
                             const struct card_names *names)
{
    char notes[600];
    size_t p;

    for (p = 0; p < npoints(rep); p++) {
        const struct grader_figures *g = grader_ladder_point(rep, p);
        const char *name = card_point_name(run, p),
                   *file = card_file_name(run, name);

        fputs("- dataset:\n    id: ", f);
        card_yaml_str(f, names->dataset);
        fputs("\n    task_id: ", f);
        card_yaml_str(f, task_name(run));
        fprintf(f, "\n  value: %.2f\n  notes: ", 100.0 * g->acc);
        snprintf(notes, sizeof(notes), "rung %s, file %s, sha256 %s; greedy",
                 name, file ? file : "not recorded",
                 g->meta.sha256[0] ? g->meta.sha256 : "not recorded");
        card_yaml_str(f, notes);
        fputs("\n  evaluation_framework: \"graveyard\"\n", f);
    }
    return 0;
}

/* ---- lm-eval -------------------------------------------------------------
 */

static json_t *lmeval_task(const struct rundir_run *run,
                           const struct grader_figures *g)
{
    return json_pack("{s:s, s:f, s:s, s:f, s:f}", "alias", task_name(run),
                     "acc,none", g->acc, "acc_stderr,none", "N/A",
                     "acc_ci95_lo,none", g->acc_lo, "acc_ci95_hi,none",
                     g->acc_hi);
}

static json_t *lmeval_config(const struct rundir_run *run,
                             const struct card_names *names)
{
    return json_pack("{s:s, s:s, s:s, s:i, s:[{s:s, s:s, s:b}], s:s}", "task",
                     task_name(run), "dataset_path", names->dataset,
                     "test_split", questions_name(run), "num_fewshot", 0,
                     "metric_list", "metric", "acc", "aggregation", "mean",
                     "higher_is_better", 1, "output_type", "generate_until");
}

int render_card_lmeval(FILE *f, const struct rundir_run *run,
                       const struct grader_ladder *rep,
                       const struct card_names *names, size_t p)
{
    const struct grader_figures *g = grader_ladder_point(rep, p);
    const char *name = card_point_name(run, p),
               *file = card_file_name(run, name);
    const char *task = task_name(run), *server = rundir_run_server(run);
    json_t *o;
    char *s;

    o = json_pack("{s:{s:o}, s:{s:o}, s:{s:i}, s:{s:i}, s:{s:{s:I, s:I}}, "
                  "s:{s:s, s:s, s:s}, s:s, s:s, s:s}",
                  "results", task, lmeval_task(run, g), "configs", task,
                  lmeval_config(run, names), "versions", task, 1, "n-shot",
                  task, 0, "n-samples", task, "original",
                  (json_int_t)g->line->sum.n, "effective",
                  (json_int_t)g->line->sum.n, "config", "model", "graveyard",
                  "model_args", file ? file : name, "rung", name, "model_name",
                  names->model, "model_sha", g->meta.sha256, "llama_cpp_build",
                  server ? server : "not recorded");
    if (o == NULL)
        return -1;
    s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (s == NULL)
        return -1;
    fputs(s, f);
    fputc('\n', f);
    free(s);
    return 0;
}
