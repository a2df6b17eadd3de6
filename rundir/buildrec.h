/*
 * buildrec.h - RUNDIR/build.json: how graveyard build made each file
 * (docs/build.md). One object per rung it made:
 *
 *   {"graveyard_build": 1, "rungs": {"Q4_0": {
 *       "file": "/m/e2b-Q4_0.gguf", "recipe": "quantize Q4_0 from BF16",
 *       "tool": "version: 4242 (abc)", "argv": [...],
 *       "source": "/m/e2b-BF16.gguf", "source_sha256": "...",
 *       "seconds": 61.2, "bytes": 3360161216, "sha256": "..."}}}
 *
 * A rung whose file exists and whose record has the config's recipe is
 * done; one with another recipe is refused unless --force names it; a file
 * without a record was not made by graveyard and is used as is. Only
 * graveyard build writes the file, holding RUNDIR/locks/build.lock.
 */
#ifndef BUILDREC_H
#define BUILDREC_H

#include <jansson.h>
#include <stddef.h>

/* The records of rundir into *rungs (a new reference; {} when there is no
 * build.json yet). 0, or -1 with "FILE: problem" in msg. */
int buildrec_load(const char *rundir, json_t **rungs, char *msg,
                  size_t msgsize);

/* Set rung's record (rec is borrowed) and write build.json whole
 * (outfile.h). 0, or -1 with msg. */
int buildrec_put(const char *rundir, const char *rung, json_t *rec, char *msg,
                 size_t msgsize);

#endif
