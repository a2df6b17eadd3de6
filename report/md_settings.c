/*
 * md_settings.c - REPORT.md's head: the title, what the rows were made
 * with (the settings table), the canary's verdict and the F16 cast's
 * cost, as pieces of the report's doc (md.c).
 */
#include <jansson.h>
#include <string.h>

#include "../grader/grader.h"
#include "../rundir/manifest.h"
#include "../rundir/rundir.h"
#include "doc.h"
#include "emit.h"
#include "fmt.h"
#include "md_settings.h"

void md_head_matter(struct doc *d, const struct rundir_run *run)
{
    doc_heading(d, 1);
    doc_raw(d, "graveyard: ");
    doc_text(d, run->name ? run->name : run->dir, 4096);
    doc_para(d);
    doc_raw(d, "Every count below is computed by ");
    doc_tick(d, "graveyard report");
    doc_raw(d, " from the rows in ");
    doc_tick(d, "rows/");
    doc_raw(d, "; nothing is typed in.");
}

/* The settings block: what the rows were made with, stated once. */
/* Rungs that ran beside others on one GPU (rungs_per_gpu, beside.jsonl):
 * each on its own one-slot server, so its answers are as when alone. */
static void shared_row(struct doc *d, const struct rundir_run *run)
{
    const json_t *line, *name;
    size_t i, k;

    if (run->beside == NULL || json_array_size(run->beside) == 0)
        return;
    doc_row(d);
    doc_cellf(d, "Shared GPUs");
    doc_cell(d);
    json_array_foreach(run->beside, i, line)
    {
        doc_raw(d, "%s", i ? "; " : "");
        doc_text(d, json_string_value(json_object_get(line, "rung")),
                 FMT_SIZE * 2);
        doc_raw(d, " beside");
        json_array_foreach(json_object_get(line, "beside"), k, name)
        {
            doc_raw(d, "%s ", k ? "," : "");
            doc_text(d, json_string_value(name), FMT_SIZE * 2);
        }
        doc_raw(d, " (GPU ");
        doc_text(d, json_string_value(json_object_get(line, "gpu")),
                 FMT_SIZE * 2);
        doc_raw(d, ")");
    }
}

/* The task the rows were asked and graded by (docs/tasks.md). */
static void task_row(struct doc *d, const struct rundir_run *run,
                     const struct grader_ladder *rep)
{
    const char *name = manifest_task_name(run->manifest);

    doc_row(d);
    doc_cellf(d, "Task");
    doc_cell(d);
    doc_code(d, name ? name : "answer-line", 256);
    doc_raw(d, "%s, graded by rule ",
            name ? "" : " (not recorded: the default)");
    doc_code(d, rep->rule[0] ? rep->rule : "answer-line", 256);
    doc_raw(d, "%s", rep->nrules > 1 ? " (every rule: \"By rule\")" : "");
}

/* The GPUs the rungs ran on, each once. */
static void gpu_row(struct doc *d, const struct grader_ladder *rep)
{
    const char *gpus[GRADER_MAX_RUNGS];
    size_t i, j, ngpus = 0;

    for (i = 0; i < rep->chain.nrungs; i++) {
        const char *g = rep->rungs[i].meta.gpu_name;
        if (g[0] == '\0')
            continue;
        for (j = 0; j < ngpus && strcmp(gpus[j], g) != 0; j++)
            ;
        if (j == ngpus)
            gpus[ngpus++] = g;
    }
    doc_row(d);
    doc_cellf(d, "GPU");
    doc_cell(d);
    for (j = 0; j < ngpus; j++) {
        doc_raw(d, "%s", j ? ", " : "");
        doc_text(d, gpus[j], 512);
    }
    if (ngpus == 0)
        doc_raw(d, "not recorded (no nvidia-smi)");
}

/* The request's settings but the cap and thinking, as JSON values. */
static void sampling_row(struct doc *d, const struct rundir_run *run)
{
    json_t *req = manifest_request_raw(run->manifest);
    const char *key;
    json_t *v;
    size_t i = 0;
    unsigned long failures;

    doc_row(d);
    doc_cellf(d, "Sampling");
    doc_cell(d);
    if (!json_is_object(req)) {
        doc_raw(d, "not recorded");
        return;
    }
    json_object_foreach(req, key, v)
    {
        char *t;
        if (!manifest_request_is_sampling(key))
            continue;
        failures = grader_alloc_failures();
        t = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        /* jansson can lose bytes to a failed allocation and still return
         * a string (emit_dumps): out of memory too */
        if (t == NULL || grader_alloc_failures() != failures) {
            emit_free(t);
            doc_fail(d);
            return;
        }
        doc_raw(d, "%s%s ", i++ ? ", " : "", key);
        doc_celltext(d, t, 512);
        emit_free(t); /* jansson's allocator: emit_alloc_init's */
    }
}

void md_settings(struct doc *d, const struct rundir_run *run,
                 const struct grader_ladder *rep)
{
    const char *q = rundir_run_questions(run),
               *sha = rundir_run_questions_sha256(run),
               *server = rundir_run_server(run);
    char n1[FMT_SIZE];
    long cap = rundir_run_max_tokens(run);
    int think = rundir_run_thinking(run);

    doc_table(d, "ll");
    doc_row(d);
    doc_cellf(d, "Setting");
    doc_cellf(d, "Value");
    doc_row(d);
    doc_cellf(d, "Run folder");
    doc_cell(d);
    doc_code(d, run->dir, 512);
    doc_row(d);
    doc_cellf(d, "Questions");
    doc_cell(d);
    doc_code(d, q ? q : "not recorded (no manifest.json)", 512);
    doc_raw(d, ", %s questions",
            fmt_count(n1, (long long)rep->chain.questions));
    if (sha != NULL) {
        doc_raw(d, ", sha256 ");
        doc_tick(d, "%.16s", sha);
    }
    doc_row(d);
    doc_cellf(d, "Server build");
    doc_cell(d);
    doc_code(d, server ? server : "not recorded", 512);
    gpu_row(d, rep);
    sampling_row(d, run);
    doc_row(d);
    doc_cellf(d, "Token cap");
    doc_cellf(d, "%s", cap >= 0 ? fmt_count(n1, cap) : "not recorded");
    doc_row(d);
    doc_cellf(d, "Thinking");
    doc_cellf(d, "%s", think < 0 ? "not recorded" : think ? "on" : "off");
    task_row(d, run, rep);
    shared_row(d, run);
}

/* The canary's verdict (rundir read it: canary.h), before the night. */
void md_canary(struct doc *d, const struct rundir_run *run)
{
    const struct rundir_canary *c = run->canary;
    long long changed, same;
    size_t i;

    if (c == NULL)
        return;
    changed = c->changed;
    same = c->same_text;
    doc_heading(d, 2);
    doc_raw(d, "Canary");
    doc_para(d);
    doc_raw(d, "Before the night, ");
    doc_text(d, c->rung, FMT_SIZE * 2);
    doc_raw(d, " answered the first %lld questions of ", c->questions);
    doc_code(d, c->rows, 4200);
    if (c->rows_sha256[0])
        doc_raw(d, " (sha256 %.12s…)", c->rows_sha256);
    doc_raw(d,
            ", a run it trusts, again: %lld answer%s changed (at most %lld "
            "may), %lld repl%s the very same",
            changed, changed == 1 ? "" : "s", c->max_changed, same,
            same == 1 ? "y" : "ies");
    if (c->missing > 0)
        doc_raw(d, ", %lld not answered", c->missing);
    doc_raw(d, ". ");
    doc_bold(d, "%s",
             c->passed ? "Passed."
                       : "Not passed: the ladder does not start after such a "
                         "canary.");
    for (i = 0; i < c->nids; i++) {
        doc_raw(d, "%s", i == 0 ? " Changed: " : ", ");
        doc_text(d, c->ids[i], FMT_SIZE * 2);
    }
    if (c->nids > 0)
        doc_raw(d, ".");
}

/* Beside the F16 rung: what its cast cost, from graveyard build's
 * f16-range (docs/f16-range.md). */
void md_f16_note(struct doc *d, const struct rundir_run *run,
                 const struct grader_ladder *rep)
{
    char n[FMT_SIZE], o[FMT_SIZE], u[FMT_SIZE], s[FMT_SIZE];
    const char *rung = run->f16.rung[0] ? run->f16.rung : "F16";
    size_t i;

    if (!run->f16.known)
        return;
    for (i = 0; i < rep->chain.nrungs; i++)
        if (strcmp(rep->rungs[i].line->rung->name, rung) == 0)
            break;
    if (i == rep->chain.nrungs)
        return; /* no F16 rung in this ladder */
    doc_para(d);
    doc_bold(d, "%s", rung);
    doc_raw(d,
            " was converted from the checkpoint. Cast to F16, its "
            "%s weights (%llu tensors) lose: %s overflow (finite, now "
            "infinite), %s underflow (non-zero, now zero), %s become "
            "subnormal; %llu were NaN or infinite already; the largest "
            "magnitude is %g. From ",
            fmt_count(n, (long long)run->f16.n), run->f16.tensors,
            fmt_count(o, (long long)run->f16.overflow),
            fmt_count(u, (long long)run->f16.underflow),
            fmt_count(s, (long long)run->f16.subnormal), run->f16.nonfinite,
            run->f16.absmax);
    doc_tick(d, "%s", rundir_file_name(RD_F16_RANGE));
    doc_raw(d, "'s TOTAL line (docs/f16-range.md).");
}
