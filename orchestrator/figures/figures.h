/*
 * figures.h - the figures of run folders, as a library the commands call
 * (as git's builtins call library functions, never each other).
 *
 * Each of bury, autopsy, repeat, report, compare and think is three
 * calls: figures_X(opts, result) loads the inputs (rows files, the run
 * folders' metadata through rundir/) and has the grader compute; then a
 * writer puts the result out (JSON lines on stdout; files, rendered whole
 * by report/ before any is written); then figures_X_release. The
 * commands (cmd_grade.c, cmd_report.c) parse flags and make these calls;
 * graveyard ladder makes the same calls at the end of a ladder. Nothing
 * here computes a statistic: that is the grader's job.
 *
 * Every function returns 0, or the exit status after one line on stderr
 * ("graveyard bury: ...", as the command it serves); release the result
 * either way. A result is zeroed by its function before anything else.
 */
#ifndef FIGURES_H
#define FIGURES_H

#include <stddef.h>

#include "../../grader/grader.h"
#include "../../report/render.h"
#include "../../rundir/run.h"
#include "../../util/util.h"

/* Rungs one command may read: 16 runs of a 64-rung ladder. */
#define RUNGSET_MAX 1024

/* Folders one command may read rows from, each with its own task. */
#define RUNGSET_DIRS 64

/* The rungs of one command and the question set they share. Each folder's
 * rows are graded by its manifest's task (taskfile.h; none: answer-line)
 * and by the rule named rule, or by the task's first rule. */
struct rungset {
    struct grader_qset *qs;
    const struct grader_rung *r[RUNGSET_MAX];
    size_t n;
    const char *rule; /* --rule NAME, or NULL (borrowed) */
    struct {
        char *dir;
        struct grader_task *task;
    } dirs[RUNGSET_DIRS]; /* owned: the tasks met so far */
    size_t ndirs;
    const char *rule_used; /* the rule the last load graded by (borrowed
                              from a task of dirs) */
};

/* Read RUNDIR/rows/NAME.jsonl for each name into s (read flags as for
 * rowsfile_read), graded by the folder's task and s->rule. 0, or the
 * exit status after one line on stderr. */
int rungset_load(const char *cmd, struct rungset *s, const char *rundir,
                 const char **names, size_t n, unsigned flags);
void rungset_release(struct rungset *s);

/* The task rundir's rows are graded by (s keeps it), or NULL after one
 * line on stderr. */
const struct grader_task *rungset_task(const char *cmd, struct rungset *s,
                                       const char *rundir);

/* Rung names: valid, none twice, at most GRADER_MAX_RUNGS. 0, or the
 * exit status after one line on stderr. */
int check_names(const char *cmd, const char **names, size_t n);

/* "graveyard CMD: FILE:LINE: message" from a grader error. */
void grade_report(const char *cmd, const struct grader_error *err);

/* ---- bury and autopsy: rungs of one folder against its reference ---- */

struct figures_bury_opts {
    const char *rundir;
    const char *const *rungs; /* the reference first, in ladder order */
    size_t nrungs;
    const char *json_path; /* bury's tombstones; NULL: none written */
    const char *rule;      /* NULL: the task's first */
    int partial;           /* a rung short of questions is no error */
};

struct figures_bury {
    struct rungset s;
    struct grader_bury b;
    int have_b;
    struct grader_meta metas[GRADER_MAX_RUNGS]; /* bury's, per rung */
};

/* Bury o's rungs and read each one's metadata (a warning on stderr when a
 * rung's file is bigger than the one named before it). */
int figures_bury(const struct figures_bury_opts *o, struct figures_bury *r);
/* The tombstones file, written whole, then a JSON line per rung and the
 * summary line on stdout. */
int figures_bury_write(const struct figures_bury_opts *o,
                       const struct figures_bury *r);
void figures_bury_release(struct figures_bury *r);

struct figures_autopsy {
    struct rungset s;
    struct grader_autopsy_line lines[GRADER_MAX_RUNGS];
    size_t n;
};

/* How each of o's rungs fails (o->json_path unused). */
int figures_autopsy(const struct figures_bury_opts *o,
                    struct figures_autopsy *r);
/* A JSON line per rung on stdout. */
int figures_autopsy_print(const struct figures_autopsy *r);
void figures_autopsy_release(struct figures_autopsy *r);

/* ---- repeat: two runs of each rung ---------------------------------- */

struct figures_repeat_opts {
    const char *dir_a, *dir_b;
    const char *const *rungs;
    size_t nrungs;
    const char *rule;
    int common; /* only the questions both runs have */
};

struct figures_repeat {
    struct rungset s;
    struct grader_repeat_line lines[GRADER_MAX_RUNGS];
    size_t n;
};

int figures_repeat(const struct figures_repeat_opts *o,
                   struct figures_repeat *r);
/* A JSON line per rung on stdout. */
int figures_repeat_print(const struct figures_repeat *r);
void figures_repeat_release(struct figures_repeat *r);

/* ---- report: one run folder ----------------------------------------- */

struct figures_report_opts {
    const char *rundir;
    const char *out_dir; /* NULL: rundir */
    const char *rungs;   /* "REF,RUNG,...", or NULL: ladder.json's */
    const char *side;    /* "RUNG,...", or NULL: ladder.json's */
    const char *repeat;  /* a second run's folder, or NULL: RUNDIR/repeat
                            when it exists */
    const char *rule;
    int partial;
    int html;      /* REPORT.html too */
    double margin; /* the verdicts' margin, points (--margin, the config's
                      "margin_points"); 0: GRADER_MARGIN_DEFAULT */
};

struct figures_report {
    struct rundir_run run;
    int have_run;
    struct rungset s;
    const struct grader_rung *ra[GRADER_MAX_RUNGS * 2],
        *rb[GRADER_MAX_RUNGS * 2]; /* the repeats' pairs */
    size_t nrep;
    struct grader_meta *metas; /* chain, then side rungs */
    struct grader_ladder rep;
    int have_rep;
    struct buf repeat_dir; /* released by figures_report_release */
    const char *repeat;    /* the repeat run read (o's or repeat_dir), or
                              NULL */
    struct grader_probs_ladder probs; /* rep.probs points here when */
    int have_probs;                   /* the chain has probs files */
    int settings; /* a ladder of settings (rundir/differs.h) */
    struct grader_repeat_line spec[GRADER_MAX_RUNGS * 2]; /* rep.spec */
    struct grader_lengths *lengths; /* rep.lengths: a run of long items
                                       (docs/longctx.md), else NULL */
    struct grader_duel_set *duels;  /* rep.duels: ladder.json's duels
                                       (docs/duel.md), nduels of them */
    size_t nduels;
};

int figures_report(const struct figures_report_opts *o,
                   struct figures_report *r);
/* REPORT.md, report.json, cover.svg, pareto.svg and (html) REPORT.html,
 * rendered in memory, then written all or none, then "wrote PATH" for
 * each on stdout. */
int figures_report_write(const struct figures_report_opts *o,
                         const struct figures_report *r);
void figures_report_release(struct figures_report *r);

/* ---- duel: two rungs, A against B (docs/duel.md) ------------------ */

struct figures_duel_opts {
    const char *a, *b;
    const char *dirs[RUNGSET_DIRS]; /* RUNDIR, then each --also */
    size_t ndirs;
    double margin; /* --margin; 0: the first folder's ladder's, else
                      GRADER_MARGIN_DEFAULT */
};

struct figures_duel_folder {
    struct rundir_run run;
    int open;
    struct rungset s; /* A and B, then the reference and its repeat */
};

struct figures_duel {
    struct figures_duel_folder *folders;
    size_t nfolders;
    struct grader_duel_set set; /* a subject per folder, pooled */
    json_t *prov;               /* the provenance panel (the first
                                   folder's manifest and files) */
};

/* A against B in every folder of o: exit 2 after one line when A is B,
 * a folder has no such rung (naming its rungs) or no rows for one. */
int figures_duel(const struct figures_duel_opts *o, struct figures_duel *r);
/* The duel's text on stdout, or (json) its JSON on one line. */
int figures_duel_write(const struct figures_duel *r, int json);
void figures_duel_release(struct figures_duel *r);

/* ---- publish: one run folder's evidence, to paste and to attach ----- */

struct figures_publish_opts {
    const char *out_dir; /* where the files go (not NULL) */
    const char *dataset; /* the Hub dataset id, or NULL: the question
                            file's name */
    const char *model;   /* the model's name, or NULL: ladder.json's name,
                            else the folder's */
    const struct figures_report_opts *bundle; /* the report's choices:
                            OUT/bundle.tar.gz too; NULL: no bundle */
};

/* CARD.md, model-index.yaml, eval_results.yaml and lm-eval-RUNG.json per
 * rung (report/card.h) from figures_report's r, rendered in memory, then
 * written all or none, then "wrote PATH" each (docs/publish.md). */
int figures_publish_write(const struct figures_publish_opts *o,
                          const struct figures_report *r);

struct card_names;
struct publish_outs;
/* OUT/bundle.tar.gz: the run's inputs as may be published, the outputs
 * rendered again from them as "bundle", and SHA256SUMS; deterministic
 * (figures_bundle_write.c). The inputs are read first: one that cannot
 * be (a FIFO, a link, past the cap) is EXIT_USAGE with nothing written;
 * then po's files are written (figures__write_all), then the bundle; a
 * failure of ours on the way (out of memory, the stage, the write) is
 * EXIT_USAGE too, said as such. 0, or the exit status after a line on
 * stderr. */
int figures_publish_bundle(const struct figures_publish_opts *o,
                           const struct figures_report_opts *ro,
                           const struct figures_report *r,
                           const struct card_names *names,
                           struct publish_outs *po);
/* A bundle (tar.gz or folder) checked: every SHA256SUMS line, every
 * rendered file against what its rows give now. A line on stdout per
 * difference; 0 all same, 1 any differs, 2 not a bundle or a failure of
 * verify's own (out of memory, the stage), never taken for a change. */
int figures_verify_bundle(const char *path);
/* bundles[0..n) (tar.gz, unpacked folders, or publish's folders) each
 * verified as figures_verify_bundle does, compared (docs/merge.md) and
 * written as one run folder at out (absent or empty; staged beside it and
 * renamed). EXIT_OK; verify's code for a bundle it refuses; EXIT_USAGE
 * for bundles that are not comparable or a bad --out (nothing written). */
int figures_merge(const char *const *bundles, size_t n, const char *out);

/* ---- export: one run folder's answers in a shared format ------------ */

struct figures_export_opts {
    const char *out_dir; /* where the files go (not NULL) */
    const char *model;   /* "developer/model" (a Hub id), or NULL:
                            unknown/the ladder's name */
    const char *dataset; /* the Hub dataset id, or NULL: the question file */
    int force;           /* write into a folder that holds other files */
};

/* Every Eval Ever's files (report/eee.h) from figures_report's r, read
 * with GRADER_READ_KEEP: per rung OUT/data/graveyard/DEV/MODEL/UUID.json
 * and UUID_samples.jsonl, rendered in memory, then written all or none,
 * then "wrote PATH" each (docs/export.md). OUT absent is made; a link, or
 * a folder holding other files without force, is refused (EXIT_USAGE,
 * nothing written). */
int figures_export_write(const struct figures_export_opts *o,
                         const struct figures_report *r);

/* ---- compare: one ladder on several GPUs or machines ---------------- */

struct figures_compare_opts {
    const char *const *dirs; /* 2 to GRADER_MAX_RUNS run folders */
    size_t ndirs;
    const char *rungs;   /* NULL: the first run's */
    const char *labels;  /* "A,B,...", or NULL: the GPUs', else folders' */
    const char *out_dir; /* NULL: the lines on stdout only */
    const char *rule;
    int html;      /* with out_dir, COMPARE.html too */
    double margin; /* the verdicts' margin, points; 0: the default */
};

struct figures_compare {
    struct rundir_run runs[GRADER_MAX_RUNS];
    size_t nruns;
    char *label[GRADER_MAX_RUNS];
    size_t nlabels;
    struct rungset s;
    struct grader_meta *metas; /* run by run, rung by rung */
    struct grader_compare c;
    int have_c;
    struct render_compare view; /* what report/ renders */
    char note[800];
};

int figures_compare(const struct figures_compare_opts *o,
                    struct figures_compare *r);
/* The lines on stdout, and with out_dir COMPARE.md, compare.json,
 * compare.svg and (html) COMPARE.html, each rendered whole first. */
int figures_compare_write(const struct figures_compare_opts *o,
                          const struct figures_compare *r);
void figures_compare_release(struct figures_compare *r);

/* ---- think: thinking off against on --------------------------------- */

struct figures_think_opts {
    const char *off_dir, *on_dir;
    const char *rungs; /* NULL: ON_DIR's chain */
    const char *out_dir;
    const char *rule;
    int html;
};

struct figures_think {
    struct rundir_run off, on;
    int have_off, have_on;
    struct rungset s;
    struct grader_think_line *lines;
    struct grader_meta *metas;
    struct render_think view;
    char note[800];
};

int figures_think(const struct figures_think_opts *o, struct figures_think *r);
/* The lines on stdout, and with out_dir THINK.md, think.json and (html)
 * THINK.html. */
int figures_think_write(const struct figures_think_opts *o,
                        const struct figures_think *r);
void figures_think_release(struct figures_think *r);

#endif
