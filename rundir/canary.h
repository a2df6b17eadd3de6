/*
 * canary.h - canary/canary.json, graveyard canary's verdict: its one
 * writer and its one reader (docs/canary.md). cmd_canary.c fills the
 * struct and writes what rundir_canary_json makes; rundir_run_open
 * (run.h) reads it back through rundir_canary_read, and the report prints
 * the struct, so a key renamed here is renamed for both.
 */
#ifndef RUNDIR_CANARY_H
#define RUNDIR_CANARY_H

#include <jansson.h>
#include <stddef.h>

/* The most changed ids a verdict names (the canary names the first 64). */
#define RUNDIR_CANARY_IDS_MAX 64

struct rundir_canary {
    char *rung, *model, *rows; /* model NULL when unknown (older files) */
    char rows_sha256[65];      /* "" when unknown */
    long long questions, max_changed, compared, missing, changed,
        changed_right, right_trusted, right_now, same_text;
    char *ids[RUNDIR_CANARY_IDS_MAX]; /* the changed questions' ids */
    size_t nids;
    int passed;
};

/* The verdict as one JSON object, keys in the order written; NULL out of
 * memory. model and rows_sha256 may be absent (NULL, ""). */
json_t *rundir_canary_json(const struct rundir_canary *c);

/*
 * o (canary.json's object) into c, every string copied: rung, rows,
 * passed, the counts (non-negative integers) and changed_ids (at most
 * RUNDIR_CANARY_IDS_MAX strings) must be there; model, rows_sha256,
 * changed_right, right_trusted and right_now may be missing (older
 * verdicts; -1 for a missing count). 0, or -1 with a message naming path
 * (ENOMEM: "out of memory"). c is zeroed first; rundir_canary_free it
 * either way.
 */
int rundir_canary_read(const json_t *o, const char *path,
                       struct rundir_canary *c, char *msg, size_t msgsize);

void rundir_canary_free(struct rundir_canary *c);

#endif
