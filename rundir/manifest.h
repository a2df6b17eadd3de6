/*
 * manifest.h - RUNDIR/manifest.json: what the rows were made with.
 *
 * Shared by every rung of a run folder: the question file (path, sha256),
 * the prompt, the request settings, the server build (--version line), the
 * tool's version. Per rung: the model file (path, bytes, sha256) and the
 * server arguments. Resuming with any of these changed would mix rows made
 * two ways, so it stops with a message naming what differs; --force goes on
 * and records that it did.
 */
#ifndef MANIFEST_H
#define MANIFEST_H

#include <jansson.h>
#include <stddef.h>

/*
 * Merge this run's settings into RUNDIR/manifest.json: shared is the
 * folder-wide object, rung the per-rung one (both borrowed). A value that
 * differs from the recorded one is an error (-1, msg names the key, the
 * old and new values) unless force, when the difference is recorded under
 * "forced". The file is written atomically. Returns 0 or -1 with errno
 * set for files_exit_code: EINVAL for a difference or a malformed file
 * (bad input), the write's own errno when it failed (ENOSPC: "disk full",
 * a failure that resumes).
 */
int manifest_check(const char *rundir, const char *rung_name, json_t *shared,
                   json_t *rung, int force, char *msg, size_t msgsize);

#endif
