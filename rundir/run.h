/*
 * run.h - what a run folder says about itself, for the reports: the
 * ladder's shape (reference, chain, side rungs), the settings the rows
 * were made with (manifest.json) and a label for tables; and the shape's
 * own file, ladder.json, which graveyard ladder writes.
 *
 * The shape comes from, first found: the caller's --rungs/--side lists,
 * RUNDIR/ladder.json (written by graveyard ladder), then the rung lists
 * graveyard bury left in RUNDIR/graveyard.json and graveyard-side.json.
 * Owned by the caller: rundir_run_close.
 */
#ifndef RUNDIR_RUN_H
#define RUNDIR_RUN_H

#include <jansson.h>
#include <stddef.h>

#include "canary.h"
#include "../grader/grader.h"

/* A duel ladder.json asks for: rung a against rung b (docs/duel.md). */
struct rundir_duel {
    char a[65], b[65];
};

/* The most duels one ladder may ask for. */
#define RUNDIR_DUELS_MAX 64

struct rundir_run {
    char *dir;
    char *base;      /* the folder a relative dir (and a relative name read
                        after opening: the page's question file) is taken
                        from, or NULL: the working folder. Set by
                        rundir_run_show_as */
    char label[128]; /* a column heading: --labels, the GPU, the folder */
    char *name;      /* ladder.json's "name", or NULL */
    double margin;   /* ladder.json's "margin_points" (the config's
                        equivalence margin), or 0 when it has none */
    struct rundir_duel duels[RUNDIR_DUELS_MAX]; /* ladder.json's "duels":
                                                   rundir_run_duels */
    size_t nduels;
    json_t *duel_prov; /* the report's duels' provenance, one object per
                          duel, set by graveyard report (figures_duel.c),
                          else NULL */
    char *chain[GRADER_MAX_RUNGS]; /* [0] is the reference */
    size_t nchain;
    char *side[GRADER_MAX_RUNGS];
    size_t nside;
    json_t *manifest; /* manifest.json, or NULL when there is none */
    json_t *beside;   /* beside.jsonl: which rungs shared a GPU (an array,
                         maybe empty; rundir/beside.h) */
    struct rundir_canary *canary; /* canary/canary.json, graveyard
                                     canary's verdict (canary.h), or NULL */
    json_t *recipes; /* the report's "Recipes": one entry per rung, set by
                        graveyard report when a rung's file can be read
                        (docs/report.md), else NULL */
    /* what the F16 cast costs, when graveyard build ran f16-range:
     * f16-range.jsonl's TOTAL line, and the rung build.json says was
     * converted to F16 ("" when none) */
    struct {
        int known;
        char rung[65];
        unsigned long long tensors, n, overflow, underflow, subnormal,
            nonfinite;
        double absmax;
    } f16;
};

/*
 * Open dir. rungs and side are comma-separated lists or NULL (then the
 * folder's own files decide); label NULL picks the folder's name. 0, or
 * -1 with one line in msg naming the folder or file.
 */
int rundir_run_open(struct rundir_run *r, const char *dir, const char *rungs,
                    const char *side, const char *label, char *msg,
                    size_t msgsize);
void rundir_run_close(struct rundir_run *r);
/*
 * From now on r names its folder as shown (what a report prints and
 * embeds: "bundle" for a staged bundle), a name relative to base (the
 * folder it was staged in), so that the same rows render the same bytes
 * wherever they were read from, and a file read later is still found
 * (pages.c reads a relative name under base, never the working folder).
 * r must have been opened as base/shown. 0, or -1 out of memory (r
 * unchanged).
 */
int rundir_run_show_as(struct rundir_run *r, const char *shown,
                       const char *base);

/* Settings from the manifest, or NULL / -1 when it does not say. */
const char *rundir_run_server(const struct rundir_run *r);
const char *rundir_run_questions(const struct rundir_run *r);
const char *rundir_run_questions_sha256(const struct rundir_run *r);
long rundir_run_max_tokens(const struct rundir_run *r); /* the token cap */
long rundir_run_logprobs(const struct rundir_run *r);   /* top-N asked */
int rundir_run_thinking(const struct rundir_run *r);    /* 0, 1, -1 unknown */

/* The sha256 of rung's vocabulary (64 hex digits), recorded when it ran
 * with logprobs on, or NULL: KLD between two rungs only where both have
 * one and they are equal (docs/run.md, "Logprobs and the vocabulary");
 * rundir_vocab_hash (manifest.h) reads it without opening the folder. */
const char *rundir_run_vocab(const struct rundir_run *r, const char *rung);

/* The duels the folder's config asked for (ladder.json's "duels", each
 * pair's names rungs of the ladder): the first, and *n how many (0: none,
 * and the report has no "Duels"). Borrowed from r. */
const struct rundir_duel *rundir_run_duels(const struct rundir_run *r,
                                           size_t *n);

/*
 * Add "duels" to dir's ladder.json (rundir_shape_write's, written whole
 * again): n pairs, names[2 i] against names[2 i + 1]. n 0 leaves the file
 * as it is (a ladder without duels is byte for byte what it was). 0, or
 * -1 with a message.
 */
int rundir_shape_duels(const char *dir, const char *const *names, size_t n,
                       char *msg, size_t msgsize);

/*
 * Write dir's ladder.json (written whole): the ladder's name, its
 * reference (ref), the chain below it (chain[0..nchain), ref left out)
 * and the side rungs, whether thinking was on, and the equivalence margin
 * of its report (margin_points; 0 leaves it out). 0, or -1 with a
 * message.
 */
int rundir_shape_write(const char *dir, const char *name, const char *ref,
                       char *const *chain, size_t nchain, char *const *side,
                       size_t nside, int thinking, double margin, char *msg,
                       size_t msgsize);

#endif
