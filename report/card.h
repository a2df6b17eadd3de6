/*
 * card.h - what graveyard publish writes from one run folder's figures
 * (docs/publish.md): CARD.md, a model-card block a publisher pastes under
 * their files; the Hugging Face forms of the same results (the model
 * card's model-index front matter and a .eval_results/ YAML file); and an
 * lm-eval-style results JSON per rung. Like every renderer, these only
 * format what the grader computed (ladder.h). Each writes to f and
 * returns 0, or -1 when out of memory; the caller checks f for errors.
 */
#ifndef REPORT_CARD_H
#define REPORT_CARD_H

#include <stdio.h>

#include "../grader/grader.h"
#include "../rundir/run.h"

struct doc;

/* The published names of a run: the dataset id the Hub files name
 * (--dataset, or the question file's name), and the model's name. */
struct card_names {
    const char *dataset; /* not NULL */
    const char *model;   /* not NULL */
};

/* CARD.md as a doc (doc_md writes it); NULL when out of memory. */
struct doc *render_card_doc(const struct rundir_run *run,
                            const struct grader_ladder *rep,
                            const struct card_names *names);

/* The model-index front matter, between its two "---" lines: one result
 * per rung (chain, then side rungs), its accuracy a fraction. */
int render_card_model_index(FILE *f, const struct rundir_run *run,
                            const struct grader_ladder *rep,
                            const struct card_names *names);

/* .eval_results/graveyard.yaml: one entry per rung, value in percent. */
int render_card_eval_results(FILE *f, const struct rundir_run *run,
                             const struct grader_ladder *rep,
                             const struct card_names *names);

/* lm-eval's results file for point p (chain first, then side rungs). */
int render_card_lmeval(FILE *f, const struct rundir_run *run,
                       const struct grader_ladder *rep,
                       const struct card_names *names, size_t p);

/* s as a YAML double-quoted scalar: '"', '\\' and control bytes escaped,
 * everything else as it is (every string the files hold is quoted, so
 * no value is read back as a number, a bool or a null). */
void card_yaml_str(FILE *f, const char *s);

/* The name of point p of run (chain first, then side rungs). */
const char *card_point_name(const struct rundir_run *run, size_t p);

/* The rung's file name as published: the basename of the manifest's
 * model path (never the machine's folders), or NULL. */
const char *card_file_name(const struct rundir_run *run, const char *rung);

#endif
