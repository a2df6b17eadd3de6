/*
 * done.h - rows/<RUNG>.done, the rung's summary: its one writer and its
 * one reader. The runner (run/record.c) fills a struct rundir_done when a
 * rung completes and writes what rundir_done_json makes; ladder, report
 * and run read it back here (rundir_done_load, rundir_done_meta), so a
 * key renamed here is renamed for every side. docs/run-folder.md lists
 * the keys.
 */
#ifndef RUNDIR_DONE_H
#define RUNDIR_DONE_H

#include <jansson.h>
#include <stddef.h>

#include "../grader/grader.h"

/* The most bytes a rung summary may hold (its writer makes under 2 KiB). */
#define RUNDIR_DONE_MAX (64u << 10)
/* The most model buffers (load_tensors lines) a summary names. */
#define RUNDIR_DONE_BUFFERS_MAX 16

/* What a summary says, in the order it says it. */
struct rundir_done {
    const char *rung;
    long long n, right, errors, truncated; /* the grader's summary */
    double median_tps, mean_tokens;        /* < 0: null */
    unsigned long long bytes;              /* the model file's */
    int served; /* a served model: no file of ours (bytes null), and not
                   pinned ("pinned": false) */
    const char *server;          /* the --version line */
    long long step_limit;        /* replies graded by the rule's fallback; 0
                                    leaves the key out */
    long gpu_before, gpu_loaded; /* MiB from nvidia-smi, -1: null */
    const char *gpu_name;        /* "" or NULL: null */
    char layers[32];             /* "36/36" from the load log, "": none */
    struct {
        char name[64];
        double mib;
    } buffers[RUNDIR_DONE_BUFFERS_MAX]; /* from the load log */
    size_t nbuffers;
    /* what the process cost (docs/performance.md) */
    double cpu_s;
    long long peak_rss_kb;
    unsigned long long rows_bytes_written, log_dropped;
    int server_starts;
};

/* A model buffer from the load log: a name seen again takes the later
 * size; past RUNDIR_DONE_BUFFERS_MAX names, or a name over 63 bytes, is
 * left out. */
void rundir_done_buffer(struct rundir_done *d, const char *name, double mib);

/* The summary as one JSON object, keys in the order written; NULL out
 * of memory. */
json_t *rundir_done_json(const struct rundir_done *d);

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
 * The figures meta.h wants from the summary at path, leniently (a
 * summary made by hand or by an older version may lack counts): bytes,
 * GPU memory, the GPU's name and whether it was pinned, into m (fields
 * the summary lacks are left alone). 0 (also when there is none), or -1
 * with a message naming the file for a field of the wrong type.
 */
int rundir_done_meta(const char *path, struct grader_meta *m, char *msg,
                     size_t msgsize);

#endif
