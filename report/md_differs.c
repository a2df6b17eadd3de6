/*
 * md_differs.c - a ladder of settings in REPORT.md (md_differs.h).
 */
#include <string.h>

#include "../rundir/differs.h"
#include "doc.h"
#include "fmt.h"
#include "md_differs.h"

int md_settings_ladder(const struct rundir_run *run, const char *ref)
{
    return rundir_run_settings_ladder(run, ref);
}

void md_differs_cell(struct doc *d, const struct rundir_run *run,
                     const char *rung, const char *ref)
{
    char text[RUNDIR_DIFFERS_MAX];

    if (strcmp(rung, ref) == 0) {
        doc_cellf(d, "reference");
        return;
    }
    rundir_run_differs(run, rung, ref, text, sizeof text);
    if (text[0] == '\0') {
        doc_cellf(d, "%s", FMT_DASH);
        return;
    }
    doc_cell(d);
    doc_celltext(d, text, sizeof text);
}

int md_same_file(const struct grader_figures *x,
                 const struct grader_figures *ref)
{
    return x != ref && x->meta.sha256[0] != '\0' &&
           strcmp(x->meta.sha256, ref->meta.sha256) == 0;
}

void md_speculative(struct doc *d, const struct grader_ladder *rep)
{
    size_t i;

    if (rep->nspec == 0)
        return;
    doc_heading(d, 2);
    doc_raw(d, "Speculative decoding");
    doc_table(d, "llrrl");
    doc_row(d);
    doc_cellf(d, "Rung");
    doc_cellf(d, "Without the draft");
    doc_cellf(d, "Answers compared");
    doc_cellf(d, "Answers that differ");
    doc_cellf(d, "First that differs");
    for (i = 0; i < rep->nspec; i++) {
        const struct grader_repeat_line *l = &rep->spec[i];
        doc_row(d);
        doc_cell(d);
        doc_rung(d, l->b->name, 0);
        doc_cell(d);
        doc_celltext(d, l->a->name, FMT_SIZE);
        doc_cellf(d, "%zu", l->n);
        doc_cellf(d, "%zu", l->mismatched_text);
        if (l->first_text == NULL) {
            doc_cellf(d, "%s", FMT_DASH);
        } else {
            doc_cell(d);
            doc_question(d, l->first_text, FMT_SIZE);
        }
    }
    doc_para(d);
    doc_raw(d, "A speculative rung has a draft model in its server arguments; "
               "beside it, the same file, build and settings without the "
               "draft. Under greedy sampling the draft only proposes tokens "
               "the model checks, so every answer should be the same: an "
               "answer that differs (its content or its reasoning) is the "
               "server's doing, not the file's.");
}

void md_same_file_note(struct doc *d, const struct grader_ladder *rep)
{
    size_t i, n = 0;

    for (i = 1; i < rep->chain.nrungs; i++)
        n += (size_t)md_same_file(&rep->rungs[i], &rep->rungs[0]);
    if (n == 0)
        return;
    doc_raw(d,
            " The file-size panel leaves out the %zu rung%s on %s's own "
            "file (a ladder of settings): %s no bytes, and the "
            "\"%% of bytes\" column says \"same file\".",
            n, n == 1 ? "" : "s", rep->chain.lines[0].rung->name,
            n == 1 ? "it saves" : "they save");
}

/* report.json's object for one speculative line, or NULL. */
static json_t *spec_object(const struct grader_repeat_line *l)
{
    return json_pack("{s:s,s:s,s:I,s:I,s:I,s:s?}", "rung", l->b->name,
                     "without_draft", l->a->name, "n", (json_int_t)l->n,
                     "differ", (json_int_t)l->mismatched_text,
                     "extracted_differ", (json_int_t)l->mismatched_extracted,
                     "first_differing", l->first_text);
}

int render_differs_json(json_t *o, const struct rundir_run *run,
                        const struct grader_ladder *rep)
{
    const char *ref = rep->chain.lines[0].rung->name;
    char text[RUNDIR_DIFFERS_MAX];
    json_t *lists[2] = {json_object_get(o, "rungs"),
                        json_object_get(o, "side_rungs")},
           *x, *spec;
    size_t k, i;

    if (!md_settings_ladder(run, ref))
        return 0; /* a plain ladder's report.json as it was */
    for (k = 0; k < 2; k++)
        json_array_foreach(lists[k], i, x)
        {
            const char *name = json_string_value(json_object_get(x, "rung"));
            if (name == NULL)
                return -1;
            rundir_run_differs(run, name, ref, text, sizeof text);
            if (json_object_set_new(x, "what_differs",
                                    strcmp(name, ref) == 0
                                        ? json_string("reference")
                                        : json_string(text)) != 0 ||
                json_object_set_new(
                    x, "same_file",
                    json_boolean(strcmp(name, ref) != 0 &&
                                 rundir_run_same_file(run, name, ref))) != 0)
                return -1;
        }
    if ((spec = json_array()) == NULL ||
        json_object_set_new(o, "speculative", spec) != 0)
        return -1;
    for (i = 0; i < rep->nspec; i++)
        if (json_array_append_new(spec, spec_object(&rep->spec[i])) != 0)
            return -1;
    return 0;
}
