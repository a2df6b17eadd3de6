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

/* The most bytes a rung summary may hold (record.c writes under 2 KiB). */
#define RUNDIR_DONE_MAX (64u << 10)

/*
 * rows/<RUNG>.done read as any run-folder file (files.h: no link, a plain
 * file, no blocking open), at most RUNDIR_DONE_MAX bytes, a JSON object;
 * with rung given, also one line whose "rung" is rung and whose "n",
 * "right", "errors" and "truncated" are non-negative integers (what the
 * runner wrote; rung NULL takes older or hand-made summaries). 0 with the line
 * in *text (malloc'd, NUL-ended) and the object in *out, either may be NULL;
 * 1 when absent; -1 with a message naming the file in msg and errno
 * EINVAL for a bad file, another errno when it could not be read.
 */
int rundir_done_load(const char *path, const char *rung, char **text,
                     json_t **out, char *msg, size_t msgsize);

/*
 * Fill m for rung in rundir. Missing files are not errors; a .done that is
 * not a JSON object, or a field of the wrong type, is -1 with a message
 * naming the file in msg; a malformed ladder.tsv likewise, with its line.
 */
int rundir_meta_read(const char *rundir, const char *rung,
                     struct grader_meta *m, char *msg, size_t msgsize);

#endif
