/*
 * meta.h - what a run folder knows about a rung besides its rows: file
 * bytes and GPU memory, for the bury lines.
 *
 * Sources, first found wins per field: rows/<RUNG>.done (the summary the
 * runner writes when a rung completes: "bytes", "gpu_mib_loaded",
 * "gpu_mib_before", "gpu_name"), then ladder.tsv (rung, file, bytes, sha256)
 * for bytes; the sha256 comes from ladder.tsv only. A number nobody knows
 * stays -1 and is printed as null; a string nobody knows stays "".
 */
#ifndef GRADER_META_H
#define GRADER_META_H

#include "error.h"

struct grader_meta {
    long long bytes;
    long long gpu_mib_loaded;
    long long gpu_mib_before;
    char sha256[65];    /* lowercase hex, or "" */
    char gpu_name[128]; /* nvidia-smi's name for the rung's GPU, or "" */
};

/*
 * Fill m for rung in rundir. Missing files are not errors; a .done that is
 * not a JSON object, or a field of the wrong type, is GRADER_EPARSE naming
 * the file; a ladder.tsv line with a bad bytes column likewise, with its
 * line.
 */
int grader_meta_read(const char *rundir, const char *rung,
                     struct grader_meta *m, struct grader_error *err);

#endif
