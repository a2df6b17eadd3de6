/*
 * meta.h - what a run folder knows about a rung besides its rows: file
 * bytes, sha256 and GPU memory, for the bury lines and the reports.
 *
 * Sources, first found wins per field: rows/<RUNG>.done (the summary the
 * runner writes when a rung completes: "bytes", "gpu_mib_loaded",
 * "gpu_mib_before", "gpu_name"), then ladder.tsv (rung, file, bytes,
 * sha256; read by ladderfile.h, the one reader of it) for bytes; the
 * sha256 comes from ladder.tsv only. A number nobody knows stays -1 and is
 * printed as null; a string nobody knows stays "". The struct is the
 * grader's (it computes % of bytes and speed from it).
 */
#ifndef RUNDIR_META_H
#define RUNDIR_META_H

#include <jansson.h>
#include <stddef.h>

#include "../grader/grader.h"

/*
 * Fill m for rung in rundir. Missing files are not errors; a .done that is
 * not a JSON object, or a field of the wrong type, is -1 with a message
 * naming the file in msg; a malformed ladder.tsv likewise, with its line.
 */
int rundir_meta_read(const char *rundir, const char *rung,
                     struct grader_meta *m, char *msg, size_t msgsize);

#endif
