/*
 * figures_int.h - what figures.c, figures_report.c and figures_compare.c
 * share: an output rendered in memory, the set of them written all or
 * none, standard output flushed, a run folder opened. Not for other
 * modules: figures.h is the interface.
 */
#ifndef FIGURES_INT_H
#define FIGURES_INT_H

#include <stdio.h>

#include "../../rundir/run.h"
#include "../../util/util.h"

/* An output being rendered: a memory stream. */
struct figures__out {
    char *p;
    size_t len;
    FILE *f;
    const char *name; /* file name under the output folder */
};

int figures__out_open(struct figures__out *o, const char *name);
/* Close the stream; -1 when rendering (rendered != 0) or the stream ran
 * out of memory. */
int figures__out_close(struct figures__out *o, int rendered);
void figures__out_free(struct figures__out *o);

struct doc;
/* The doc d as Markdown into o, closed: 0, or -1 (d NULL: out of memory,
 * as the renderers say it). */
int figures__md_close(struct figures__out *o, const struct doc *d);

struct rungset;
/* REPORT.md, report.json, cover.svg, pareto.svg, a run of long items'
 * lengths.svg (and depth.svg, with needles) and (html) REPORT.html of a
 * report into outs[0..*n), each closed (outs holds FIGURES_REPORT_OUTS):
 * 0, or -1 out of memory. */
#define FIGURES_REPORT_OUTS 7
int figures__report_outputs(const struct rundir_run *run,
                            const struct grader_ladder *rep,
                            const struct rungset *s, struct figures__out *outs,
                            int html, size_t *n);

/* publish's files, rendered by figures_bundle.c for both publish and
 * verify (one way: figures_publish.c calls it, never the reverse) */
#define PUBLISH_FIXED 3
#define PUBLISH_OUTS  (PUBLISH_FIXED + GRADER_MAX_RUNGS * 2)
struct publish_outs {
    struct figures__out o[PUBLISH_OUTS];
    char names[GRADER_MAX_RUNGS * 2][96];
    size_t n;
};
struct card_names;
struct figures_report;
/* CARD.md, model-index.yaml, eval_results.yaml, lm-eval-RUNG.json each
 * into po: 0, or -1 out of memory. */
int figures__publish_render(const struct figures_report *r,
                            const struct card_names *names,
                            struct publish_outs *po);
void figures__publish_free(struct publish_outs *po);

/* Write outs[0..n) into dir, all or none; then "wrote DIR/NAME" each. */
int figures__write_all(const char *cmd, const char *dir,
                       struct figures__out *outs, size_t n);

/* p[0..len) to standard output, flushed: EXIT_OK, or EXIT_FAILED after
 * a line on stderr. */
int figures__write_stdout(const char *cmd, const char *p, size_t len);

/* "out of memory" for cmd: EXIT_FAILED. */
int figures__oom(const char *cmd);

/* Open a run folder, reporting a bad one or one with no rungs (r closed
 * then). 0 or EXIT_USAGE. */
int figures__open_run(const char *cmd, struct rundir_run *r, const char *dir,
                      const char *rungs, const char *side, const char *label);

struct grader_meta;
/* rows/<RUNG>.power of dir integrated into m->power (grader/cost.h);
 * absent (no nvidia-smi): left unknown. A file that cannot be read or is
 * not the runner's is said on stderr and left unknown too: energy is a
 * side figure, never worth the report. */
void figures__power(const char *cmd, const char *dir, const char *rung,
                    struct grader_meta *m);

struct rungset;
struct grader_probs_ladder;
/*
 * Where run's chain split from its reference (figures_probs.c): when the
 * reference and some rung have probs files, p filled question by question
 * from the rows in s (the chain first) and *have set; repeat (a repeat
 * run's folder, or NULL) gives the reference's repeat check. 0 (none: *have
 * 0, p untouched), or the exit status after one line (p released).
 */
int figures__probs(const char *cmd, const struct rundir_run *run,
                   const struct rungset *s, const char *repeat,
                   struct grader_probs_ladder *p, int *have);

struct grader_ladder;
/*
 * The report's "Recipes" (figures_recipes.c): run->recipes set to one
 * entry per rung (chain, then sides) when at least one rung's file
 * (ladder.tsv's path) can be read, else left NULL. 0, or -1 out of memory.
 */
int figures__recipes(struct rundir_run *run, const struct grader_ladder *rep);

/* A duel's provenance panel (figures_duel.c, docs/duel.md): each side's
 * file, bytes, sha256 (the manifest's), general.name, file_type and
 * imatrix keys read from the file when it is here, whether the sizes
 * differ by more than 2 %, a name shared with another sha256, and the
 * tensors whose type differs. New. */
json_t *figures__duel_prov(const struct rundir_run *run, const char *a,
                           const char *b);

/* The report's duels (ladder.json's pairs) into r->duels and rep.duels,
 * their provenance into run.duel_prov; nothing without pairs. 0, or the
 * exit status after one line. */
struct figures_report;
int figures__report_duels(struct figures_report *r);

/*
 * The folder a bundle is rendered from (figures_stage.c): PARENT/PREFIX
 * PID.XXXXXX, its inputs under bundle/. Making one first removes what
 * dead processes of this user left under PARENT with PREFIX (a run
 * killed before it could clean up).
 */
struct figures__stage {
    struct buf dir; /* capped (BUF_PATH_MAX); empty when none */
};
/* 0, or -1 with msg. */
int figures__stage_make(struct figures__stage *s, const char *parent,
                        const char *prefix, char *msg, size_t msgsize);
/* p[0..n) written as STAGE/bundle/name (a checked bundle name), the
 * folders on the way made. 0, or -1 with msg. */
int figures__stage_put(struct figures__stage *s, const char *name,
                       const char *p, size_t n, char *msg, size_t msgsize);
/* The stage and all it holds removed (no link followed). */
void figures__stage_remove(struct figures__stage *s);
/* What dead processes of this user left in dir under names PREFIXPID.*
 * (folders or plain files), removed. */
void figures__stale_remove(const char *dir, const char *prefix);

/* A file of a bundle as verify holds it: its name under the top folder
 * and its bytes (borrowed). */
struct figures__bfile {
    const char *name;
    const char *p;
    size_t n;
};
/*
 * What a bundle states twice, checked to agree (figures_agree.c): each
 * ladder.tsv row against the manifest's rung (file name, bytes, sha256
 * where both state one; a rung twice), each rows file and .done record
 * against the manifest's rungs (and a .done's rung and bytes), the
 * question file against the manifest's sha256. One line on stdout per
 * contradiction, naming the key and the line; returns how many. *paths
 * set when ladder.tsv names a file by a path, not a name (rendering would
 * read this machine's file).
 */
size_t figures__bundle_agree(const struct figures__bfile *f, size_t n,
                             int *paths);

/*
 * The rows that changed, named (figures_rowdiff.c): have, the bundle's
 * REPORT.html, and want, the page its rows render now, compared row by
 * row through their data blocks (docs/page.md); each row that differs is
 * one line on stdout, "rows/RUNG.jsonl:LINE: question 'ID': ... is not
 * what REPORT.html shows", its line found in f[0..n), the bundle's
 * inputs. Returns how many rows differ (0 when the pages cannot be read
 * or show other grids).
 */
size_t figures__rows_named(const char *have, size_t have_n, const char *want,
                           size_t want_n, const struct figures__bfile *f,
                           size_t n);

#endif
