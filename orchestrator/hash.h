/*
 * hash.h - sha256 of a file with OpenSSL's EVP interface, off the loop
 * thread (uv_queue_work): a 9 GB BF16 GGUF takes tens of seconds to hash.
 *
 * <openssl/evp.h> is included here and nowhere else.
 */
#ifndef HASH_H
#define HASH_H

#include <uv.h>

struct hash_job {
    uv_work_t work;
    char path[4096];
    char hex[65];             /* the digest, lower-case hex */
    unsigned long long bytes; /* the file's size */
    char err[256];            /* empty on success */
    void (*done)(struct hash_job *job);
    void *ctx;
};

/* Hash path now, on this thread. Returns 0, or -1 with job->err set. */
int hash_file(struct hash_job *job, const char *path);

/* Hash path on the thread pool; done(job) runs on the loop after. The job
 * is the caller's and must live until then. Returns uv_queue_work's code. */
int hash_file_async(uv_loop_t *loop, struct hash_job *job, const char *path,
                    void (*done)(struct hash_job *job), void *ctx);

#endif
