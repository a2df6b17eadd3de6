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

/* What a publish killed while writing into out left (NAME.tmp.PID.N of
 * a dead process: outfile.c's temporary names) removed. */
static void leftovers(const char *out, const struct publish_outs *po)
{
    char prefix[200];
    size_t i;

    figures__stale_remove(out, "bundle.tar.gz.tmp.");
    for (i = 0; i < po->n; i++) {
        snprintf(prefix, sizeof(prefix), "%.150s.tmp.", po->o[i].name);
        figures__stale_remove(out, prefix);
    }
}

int figures_publish_write(const struct figures_publish_opts *o,
                          const struct figures_report *r)
{
    struct publish_outs *po = calloc(1, sizeof(*po));
    struct card_names names;
    int rc;

    if (po == NULL)
        return figures__oom("publish");
    publish_names(o, r, &names);
    if (figures__publish_render(r, &names, po) != 0) {
        figures__publish_free(po);
        return figures__oom("publish");
    }
    leftovers(o->out_dir, po);
    if (o->bundle != NULL) /* its inputs read before anything is written */
        rc = figures_publish_bundle(o, o->bundle, r, &names, po);
    else
        rc = figures__write_all("publish", o->out_dir, po->o, po->n);
    figures__publish_free(po);
    return rc;
}
