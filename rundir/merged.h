/*
 * merged.h - a run folder made of several bundles' (graveyard merge,
 * docs/merge.md): its manifest, ladder.json and ladder.tsv written from
 * the bundles', and a rung's rows and .done renamed when a re-upload
 * (another file by one name) takes the name NAME-SHA8. Pure, as
 * published.h: the caller (orchestrator/figures/figures_merge.c) holds
 * the bundles' bytes and writes the folder; the formats stay rundir/'s.
 */
#ifndef RUNDIR_MERGED_H
#define RUNDIR_MERGED_H

#include <jansson.h>
#include <stddef.h>

#include "../util/util.h"

/* One rung of the merged folder and where it comes from. */
struct merged_rung {
    const char *name; /* in the merged folder */
    const char *orig; /* in its bundle */
    json_t *manifest; /* its bundle's manifest.json, parsed */
    const char *tsv;  /* its bundle's ladder.tsv, or NULL */
    size_t tsv_n;
    int side; /* 0 the chain, 1 a side rung, 2 neither (rows only) */
};

/* The names ladder.json lists as the chain (side 0) or the side rungs
 * (side 1), borrowed from ladder: at most max into out; their count. */
size_t merged_ladder_rungs(const json_t *ladder, int side, const char **out,
                           size_t max);

/* Where two ladder.json files make verdicts another way (thinking, the
 * margin): the key, its values compact into a and b ("absent"); 0 the
 * same, 1 differs. */
int merged_ladder_differs(const json_t *x, const json_t *y, const char **key,
                          char *a, char *b, size_t size);

/* manifest.json of the merged folder: first's settings (bundle 0's
 * manifest), each rung's entry under its merged name, in
 * published_manifest's form (sorted keys, file names only). New (free
 * with free()), or NULL out of memory. */
char *merged_manifest(const json_t *first, const struct merged_rung *r,
                      size_t n);

/* ladder.json: bundle 0's (lads[0], of nlads), its rungs and side_rungs
 * the merged folder's, its duels every bundle's whose two rungs the
 * merged folder holds (each once). New, or NULL out of memory. */
char *merged_ladder_json(const json_t *const *lads, size_t nlads,
                         const struct merged_rung *r, size_t n);

/* ladder.tsv: each rung's line from its bundle's (read by ladderfile.h's
 * one reader), named as merged. New, its length in *out_n; NULL out of
 * memory. */
char *merged_ladder_tsv(const struct merged_rung *r, size_t n, size_t *out_n);

/* A .done record p[0..n) with its rung set to rung: new, compact; NULL
 * when it is not a JSON object, or out of memory. */
char *merged_done(const char *p, size_t n, const char *rung, size_t *out_n);

/* The GPU a .done record names (gpu_name), or "not recorded", into out. */
void merged_done_gpu(const char *p, size_t n, char *out, size_t size);

/* A rows file p[0..n) with each row's rung (its first "rung":"OLD") made
 * new, into out (initialised here, capped at PUBLISHED_MAX). 0, or -1
 * past the cap. */
int merged_rows(const char *p, size_t n, const char *old, const char *new,
                struct buf *out);

#endif
