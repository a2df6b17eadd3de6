/*
 * beside.h - RUNDIR/beside.jsonl: which rungs shared a GPU (graveyard
 * ladder's rungs_per_gpu). One JSON line each time a rung started on a GPU
 * other rungs were running on: {"rung", "gpu", "beside": [names]}. The
 * ladder appends; the report reads it and says which ran together. Every
 * answer is computed as when alone (one request at a time on each rung's
 * own server); the record is there so that a reader can check it.
 */
#ifndef BESIDE_H
#define BESIDE_H

#include <jansson.h>
#include <stddef.h>

/* Append one line (written whole and synced). 0, or -1 with a message. */
int rundir_beside_append(const char *rundir, const char *rung, const char *gpu,
                         const char *const *beside, size_t n, char *msg,
                         size_t msgsize);

/* Every line of dir's beside.jsonl as a JSON array of objects (a new
 * reference; empty when there is no file; a line that is not such an
 * object is skipped: the file is a record for people, not an input). */
json_t *rundir_beside_read(const char *rundir);

#endif
