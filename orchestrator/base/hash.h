/*
 * hash.h - sha256 of a file with OpenSSL's EVP interface, off the loop
 * thread (uv_queue_work): a 9 GB BF16 GGUF takes tens of seconds to hash.
 *
 * <openssl/evp.h> is included here and nowhere else.
 */
#ifndef HASH_H
#define HASH_H

#include <stdatomic.h>
#include <stddef.h>
#include <uv.h>

#include "../../util/util.h"
#include "../../weights/vocab.h"

struct hash_job {
    uv_work_t work;
    struct buf path;          /* hash_file_async's, until hash_release */
    char hex[65];             /* the digest, lower-case hex */
    unsigned long long bytes; /* the file's size */
    char err[256];            /* empty on success */
    void (*done)(struct hash_job *job);
    void *ctx;
    atomic_int cancel; /* set from the loop: the worker stops at its next
                          read, and done() runs with err set */
};

/* Hash path now, on this thread. Returns 0, or -1 with job->err set. */
int hash_file(struct hash_job *job, const char *path);

/* The same for a caller that wants only the digest: hex (65 bytes) is
 * the sha256, or "" with the reason in err. Returns 0 or -1. */
int hash_path(const char *path, char *hex, char *err, size_t errsize);

/* Hash path on the thread pool; done(job) runs on the loop after. The job
 * is the caller's and must live until then. Returns uv_queue_work's code,
 * or UV_ENAMETOOLONG for a path past BUF_PATH_MAX (never a cut path: it
 * would name another file). */
int hash_file_async(uv_loop_t *loop, struct hash_job *job, const char *path,
                    void (*done)(struct hash_job *job), void *ctx);

/* The job's path, released by its owner once no hash of it is in flight
 * (a zeroed job holds none). */
void hash_release(struct hash_job *job);

/* Stop an async hash soon (a signal came while a big file is read). */
void hash_cancel(struct hash_job *job);

/* The sha256 of p[0..n) as lower-case hex into hex (65 bytes). */
void hash_bytes(const void *p, size_t n, char *hex);

/*
 * The sha256 of path's vocabulary (weights/vocab.h: the tokenizer's keys,
 * read from the GGUF's key-values, never its tensors) into hex (65 bytes),
 * what it holds into v. On this thread: it reads a few MB at most, so the
 * callers run it before their loop starts. 0, or the exit status with
 * "FILE: what" in msg: EXIT_USAGE for a file that is not a GGUF (v->gguf
 * 0: the callers let it pass, since no llama-server loads it), a bad one or
 * one without a vocabulary, EXIT_FAILED for a read that failed.
 */
int hash_vocab(const char *path, char *hex, struct vocab *v, char *msg,
               size_t msgsize);

/* The one line that refuses two rungs of different vocabularies, naming
 * both rungs, both files and the start of both hashes (run and ladder
 * say it alike). */
void hash_vocab_differ(char *msg, size_t msgsize, const char *rung_a,
                       const char *file_a, const char *hex_a,
                       const char *rung_b, const char *file_b,
                       const char *hex_b);

#endif
