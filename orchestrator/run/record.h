/*
 * record.h - what a rung writes about itself in its run folder, and the
 * checks before it writes anything: runner.c calls these in order, and
 * none of them touches the loop.
 *
 *   record_inputs     the model, the binary and its --version, the paths:
 *                     nothing is created before these pass
 *   record_lock       RUNDIR/locks/RUNG.lock: one graveyard on a rung
 *   record_made_with  the manifest and ladder.tsv (and the sha256 cache),
 *                     under RUNDIR/locks/files.lock, which the caller
 *                     holds (base/lockwait.h waits for it on the loop)
 *   record_print_done a finished rung's summary, printed again
 *   record_done       rows/RUNG.done, computed by the grader from the rows
 *
 * Each returns 0 or the exit status (cli.h), with one line in msg.
 */
#ifndef RECORD_H
#define RECORD_H

#include <stddef.h>

#include "../base/hash.h"
#include "../server/runopts.h"

struct manifest_sandbox;

/* The model is a file we can read, the binary is there and answers
 * --version within 30 s (its "version:" line into version, its sha256
 * into binary_sha, 65 bytes; "" for a served model), the paths hold no
 * control character and fit ladder.tsv whole. */
int record_inputs(const struct run_opts *o, char *version, size_t vsize,
                  char *binary_sha, char *msg, size_t msgsize);

/* With logprobs on: the sha256 of the rung's vocabulary into hex (65
 * bytes; "" with logprobs off), compared, before any file is made, with
 * the reference's (the --config form's) and with every other rung's that
 * the run folder's manifest records: another vocabulary is EXIT_USAGE,
 * one line naming both rungs and both files (hash_vocab_differ); so is a
 * GGUF without a vocabulary. A file that is not a GGUF at all (the fake
 * server's scripts; no llama-server loads one) passes unread, hex "", with
 * a note in warn for the caller to say. On this thread: a GGUF's
 * key-values are a few MB at most. */
int record_vocab(const struct run_opts *o, char *hex, char *warn,
                 size_t warnsize, char *msg, size_t msgsize);

/* An exclusive flock on RUNDIR/locks/RUNG.lock, held in *fd until we exit
 * (the kernel drops it when a process dies, so a stale lock is never in
 * the way; the fd is close-on-exec). EXIT_BUSY when another process holds
 * it, naming that process's pid. */
int record_lock(const struct run_opts *o, int *fd, char *msg, size_t msgsize);

/* Record what this rung is made with, or check it for a finished rung:
 * the sha256 cache (unless the hash came from it: cached), the manifest
 * (a setting that differs is EXIT_USAGE unless --force: the server's
 * --version line and its binary's sha256 among them; the vocabulary's
 * sha256 when vocab is not "", record_vocab's; a code task's sandbox,
 * when sandbox is not NULL) and ladder.tsv,
 * each written only when something in it is new. Called under files.lock,
 * which the caller holds (several graveyards may share a folder); a cache
 * that cannot be written is only a warning in warn. */
int record_made_with(const struct run_opts *o, const char *version,
                     const char *binary_sha, const struct hash_job *job,
                     const char *vocab, const struct manifest_sandbox *sandbox,
                     int cached, char *warn, size_t warnsize, char *msg,
                     size_t msgsize);

/* A finished rung: its .done line again on stdout, once it is read as
 * any run-folder file is (no link, a plain file, capped) and found to be
 * this rung's summary. 0, or an exit status with a message naming the
 * file (EXIT_USAGE for a bad one: remove it and run again). */
int record_print_done(const struct run_opts *o, char *msg, size_t msgsize);

/* What .done says beyond the rows' summary. */
struct record_done {
    const char *rows_path;
    unsigned long long bytes;    /* the model file's */
    const char *server;          /* the --version line */
    long gpu_before, gpu_loaded; /* MiB from nvidia-smi, -1 unknown */
    const char *gpu_name;        /* "" unknown */
    const char *log_path;        /* the server log, for its load lines */
    unsigned long long rows_bytes_written, log_dropped;
    int server_starts;
};

/* Write rows/RUNG.done from the rows (the grader's summary) with d, and
 * print it. 0, or -1 after a line on stderr. */
int record_done(const struct run_opts *o, const struct record_done *d);

/* A served model's own word about itself (serve.c: its /props and
 * /v1/models, cleaned by endpoint_said) into the manifest as
 * rungs.RUNG.endpoint_said, under files.lock, which the caller holds:
 * said is stolen. 0, or -1 with msg (the run goes on: a note, not a
 * setting). */
int record_endpoint_said(const struct run_opts *o, json_t *said, char *msg,
                         size_t msgsize);

#endif
