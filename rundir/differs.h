/*
 * differs.h - a ladder of settings as its run folder's manifest records
 * it (docs/config.md, "Ladders of settings"): what each rung changes
 * against the reference (its file, its server arguments and environment,
 * its build), for the report's "What differs" column, and which rung a
 * speculative rung (a draft model in its arguments) is the same as
 * without the draft. Read from rundir_run's manifest only, no file.
 */
#ifndef RUNDIR_DIFFERS_H
#define RUNDIR_DIFFERS_H

#include <stddef.h>

#include "run.h"

/* Room for one rung's "what differs" text; a longer one ends in "...". */
#define RUNDIR_DIFFERS_MAX 600

/* 1 when some rung besides ref shares a file with another rung, or
 * differs from ref by its arguments, environment or build; 0 for a plain
 * ladder (the report then stays as it was) or a folder without a
 * manifest. */
int rundir_run_settings_ladder(const struct rundir_run *r, const char *ref);

/* What rung changes against ref, in words: "file Q2_K.gguf",
 * "settings -ctk q8_0 -ctv q8_0", "env GGML_X=1", "build version: ...",
 * joined by "; ", into out; "" when the manifest shows nothing. */
void rundir_run_differs(const struct rundir_run *r, const char *rung,
                        const char *ref, char *out, size_t size);

/* 1 when rung and ref name one file by the same sha256. */
int rundir_run_same_file(const struct rundir_run *r, const char *rung,
                         const char *ref);

/*
 * A speculative rung: its arguments carry a draft model (-md,
 * --model-draft, --spec-draft-model). 1 with *base set to the rung of
 * names[0..n) that has the same file, build and environment and the same
 * arguments without the draft model's pair, so that greedy answers must
 * be the same; 0 when rung is not speculative or has no such base.
 */
int rundir_run_draft_base(const struct rundir_run *r, const char *rung,
                          char *const *names, size_t n, const char **base);

#endif
