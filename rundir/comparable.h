/*
 * comparable.h - may the rows of two run folders stand in one folder?
 * (graveyard merge, docs/merge.md). Two manifests (as a bundle publishes
 * them, or as a run folder records them) compared key by key with the
 * comparison a resume makes (manifest.h's manifest_same_value: equal, or
 * a file's name spelled otherwise beside the same sha256), but both ways:
 * a key one records and the other does not is a difference too (a resume
 * adds a new key; a merge cannot know what the other folder would have
 * recorded). Pure: no file is read.
 */
#ifndef RUNDIR_COMPARABLE_H
#define RUNDIR_COMPARABLE_H

#include <jansson.h>

/* The first difference found: where ("request.max_tokens",
 * "rungs.Q4_0.server_version"), and each side's value as compact JSON
 * (cut to its room), or "absent". */
struct comparable_diff {
    char key[256];
    char a[208], b[208];
};

/* The folder-wide settings of manifests a and b: every key but rungs
 * (and a run folder's own forced log and server binary), in sorted
 * order, at any depth. 0 the same, 1 differs (d filled). */
int comparable_shared(json_t *a, json_t *b, struct comparable_diff *d);

/* Rung ra of manifest a against rung rb of b: every key of their entries
 * (the file's sha256, bytes, ctx, ngl, its own server build, vocabulary),
 * the key named rungs.RA.KEY. A rung one manifest lacks is a difference
 * (key rungs.RA). 0 the same, 1 differs (d filled). */
int comparable_rung(json_t *a, const char *ra, json_t *b, const char *rb,
                    struct comparable_diff *d);

#endif
