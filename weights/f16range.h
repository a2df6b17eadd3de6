/*
 * f16range.h - graveyard f16-range: what casting a checkpoint to F16
 * costs, per tensor (docs/f16-range.md).
 *
 * PATH is a safetensors file, a checkpoint folder (its model.safetensors,
 * or every shard its model.safetensors.index.json names) or a GGUF file.
 * Each file is read once, tensor by tensor, in chunks of a fixed buffer:
 * memory stays flat whatever the file's size. One JSON line per
 * floating-point tensor goes to out, in file order, then the TOTAL line,
 * in the study's format (../shared/seeds/1-t4-ladder.txt, "Step 2"):
 *
 *   {"tensor": "w", "n": 8, "overflow": 0, "underflow": 1, "subnormal": 2,
 *    "absmax": 0.4316, "nonfinite": 0, "dtype": "BF16"}
 *   {"tensor": "TOTAL", "tensors": 1, "n": 8, ..., "skipped": [...]}
 *
 * Uses weights/f16.h for the counts and weights/tensors.h for the tables.
 */
#ifndef F16RANGE_H
#define F16RANGE_H

#include <stdint.h>
#include <stdio.h>

#include "f16.h"

/*
 * X(name, message): weights' failures. Every function below returns
 * F16R_OK (0) or a negative F16R_E* code from this one table, as the
 * grader does (grader/error.h, libuv's UV_ERRNO_MAP), with "FILE: what"
 * in the caller's msg; the message here is the fallback when there is
 * none. The codes start at -200, apart from the grader's. Exit statuses
 * are the command's (cmd_f16range.c): IO 1, a failure that resumes (out
 * of memory too); BADINPUT 2, bad input.
 */
#define F16R_ERRNO_MAP(X)                                                     \
    X(IO, "a read or a write failed")                                         \
    X(BADINPUT, "not a checkpoint or a GGUF that f16-range reads")

enum f16r_errno {
    F16R_OK = 0,
    F16R__FIRST = -200,
#define F16R__ENUM(name, msg) F16R_E##name,
    F16R_ERRNO_MAP(F16R__ENUM)
#undef F16R__ENUM
};

/* The code's name ("BADINPUT") and its fallback message ("OK" and
 * "success" for 0; "UNKNOWN" and "unknown error" for a code not in the
 * table). */
const char *f16r_err_name(int code);
const char *f16r_strerror(int code);

struct f16range_total {
    struct f16_counts c;
    uint64_t tensors, skipped, bytes;
};

/* Called after each chunk: bytes read so far, of total (the tensors'
 * bytes over every file). */
typedef void (*f16range_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/*
 * Scan path, writing the lines to out. Returns F16R_OK; F16R_EBADINPUT
 * (negative, as every code) with "FILE: what is wrong" in msg (truncated, a
 * bad header or table, a shard missing); F16R_EIO when a read or a write fails
 * (msg says which). total (may be NULL) gets the TOTAL line's numbers.
 * progress may be NULL.
 */
int f16range_run(const char *path, FILE *out, f16range_progress_fn progress,
                 void *ctx, struct f16range_total *total, char *msg,
                 size_t msgsize);

/* The tensor table of one safetensors or GGUF file (tensors.h), read
 * from its head. F16R_OK, or an error code with "FILE: what" in msg. */
struct wtable;
int tensors_read_file(const char *path, struct wtable *tab, char *msg,
                      size_t msgsize);

/* The same, read as a GGUF whatever its name or first bytes. */
int tensors_read_gguf(const char *path, struct wtable *tab, char *msg,
                      size_t msgsize);

/* Every tensor's elements and bytes summed over PATH, read as
 * f16range_run reads it (a file, a folder, an index's shards, a GGUF),
 * from the tables alone: what graveyard build's disk estimate starts
 * from. F16R_OK or an error code with msg. */
int tensors_count_path(const char *path, uint64_t *elements, uint64_t *bytes,
                       char *msg, size_t msgsize);

/* v as Python's repr() writes a float: the shortest digits that read back
 * as v, "900.0", "0.431640625", "5.960464477539063e-08". Returns the
 * length. */
int f16range_repr(double v, char *buf, size_t size);

#endif
