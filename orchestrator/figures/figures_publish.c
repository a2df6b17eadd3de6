/*
 * figures_publish.c - graveyard publish's files (figures.h): the report's
 * figures (figures_report), rendered by report/card.c as the card, the
 * Hugging Face YAML and an lm-eval results file per rung, all in memory
 * first, then written all or none. Nothing here counts or divides.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../report/card.h"
#include "../../report/doc.h"
#include "../base/cli.h"
#include "figures.h"
#include "figures_int.h"

/* CARD.md, model-index.yaml, eval_results.yaml, then one lm-eval file per
 * rung: the fixed files and the most rungs a report holds. */
#define PUBLISH_FIXED 3
#define PUBLISH_OUTS (PUBLISH_FIXED + GRADER_MAX_RUNGS * 2)

struct publish_outs {
    struct figures__out o[PUBLISH_OUTS];
    char names[GRADER_MAX_RUNGS * 2][96];
    size_t n;
};

/* The dataset id and model name: the options', else the question file's
 * name and the ladder's name (else its folder's name). */
static void publish_names(const struct figures_publish_opts *o,
                          const struct figures_report *r, struct card_names *n)
{
    const char *q = rundir_run_questions(&r->run), *slash;

    n->model = o->model ? o->model : r->run.name ? r->run.name : r->run.label;
    if (o->dataset != NULL) {
        n->dataset = o->dataset;
        return;
    }
    slash = q ? strrchr(q, '/') : NULL;
    n->dataset = q == NULL ? "not-recorded" : slash ? slash + 1 : q;
}

static int publish_render(const struct figures_report *r,
                          const struct card_names *names,
                          struct publish_outs *po)
{
    size_t p, np = r->rep.chain.nrungs + r->rep.nsides;
    struct doc *d = render_card_doc(&r->run, &r->rep, names);
    int bad;

    bad = figures__out_open(&po->o[0], "CARD.md") != 0 ||
          figures__md_close(&po->o[0], d) != 0 ||
          figures__out_open(&po->o[1], "model-index.yaml") != 0 ||
          figures__out_close(&po->o[1],
                             render_card_model_index(po->o[1].f, &r->run,
                                                     &r->rep, names)) != 0 ||
          figures__out_open(&po->o[2], "eval_results.yaml") != 0 ||
          figures__out_close(&po->o[2],
                             render_card_eval_results(po->o[2].f, &r->run,
                                                      &r->rep, names)) != 0;
    doc_free(d);
    po->n = PUBLISH_FIXED;
    for (p = 0; !bad && p < np && p < GRADER_MAX_RUNGS * 2; p++) {
        struct figures__out *out = &po->o[PUBLISH_FIXED + p];

        /* rung names are checked names (letters, digits, ._-), short */
        snprintf(po->names[p], sizeof(po->names[p]), "lm-eval-%s.json",
                 card_point_name(&r->run, p));
        bad = figures__out_open(out, po->names[p]) != 0 ||
              figures__out_close(out, render_card_lmeval(out->f, &r->run,
                                                         &r->rep, names, p));
        po->n++;
    }
    return bad ? -1 : 0;
}

int figures_publish_write(const struct figures_publish_opts *o,
                          const struct figures_report *r)
{
    struct publish_outs *po = calloc(1, sizeof(*po));
    struct card_names names;
    size_t i;
    int rc;

    if (po == NULL)
        return figures__oom("publish");
    publish_names(o, r, &names);
    if (publish_render(r, &names, po) != 0)
        rc = figures__oom("publish");
    else
        rc = figures__write_all("publish", o->out_dir, po->o, po->n);
    for (i = 0; i < PUBLISH_OUTS; i++)
        figures__out_free(&po->o[i]);
    free(po);
    return rc;
}
