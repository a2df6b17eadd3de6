/*
 * hash.c - sha256 with EVP, in 1 MiB reads.
 */
#include "hash.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../rundir/files.h"
#include "../../weights/f16range.h"
#include "cli.h"

int hash_file(struct hash_job *job, const char *path)
{
    static const char digits[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0, i;
    EVP_MD_CTX *ctx;
    char *buf;
    ssize_t n;
    int fd, ok;

    job->err[0] = '\0';
    job->hex[0] = '\0';
    job->bytes = 0;
    /* a FIFO here would hold a pool thread, and with it the loop's end */
    fd = files_open_read(path, 0, job->err, sizeof(job->err));
    if (fd < 0)
        return -1;
    ctx = EVP_MD_CTX_new();
    buf = xrealloc(NULL, 1 << 20);
    ok = ctx != NULL && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1;
    while (ok && (n = read(fd, buf, 1 << 20)) != 0) {
        if (atomic_load(&job->cancel)) {
            snprintf(job->err, sizeof(job->err),
                     "hashing '%.200s' was cancelled", path);
            ok = 0;
            break;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            snprintf(job->err, sizeof(job->err), "cannot read '%.200s': %s",
                     path, strerror(errno));
            ok = 0;
            break;
        }
        job->bytes += (unsigned long long)n;
        ok = EVP_DigestUpdate(ctx, buf, (size_t)n) == 1;
    }
    if (ok)
        ok = EVP_DigestFinal_ex(ctx, md, &mdlen) == 1;
    if (!ok && job->err[0] == '\0')
        snprintf(job->err, sizeof(job->err), "sha256 of '%.200s' failed",
                 path);
    for (i = 0; ok && i < mdlen; i++) {
        job->hex[2 * i] = digits[md[i] >> 4];
        job->hex[2 * i + 1] = digits[md[i] & 15];
    }
    job->hex[ok ? 2 * mdlen : 0] = '\0';
    EVP_MD_CTX_free(ctx);
    free(buf);
    close(fd);
    return ok ? 0 : -1;
}

int hash_path(const char *path, char *hex, char *err, size_t errsize)
{
    struct hash_job job;
    int rc;

    memset(&job, 0, sizeof(job)); /* its cancel flag starts clear */
    rc = hash_file(&job, path);
    memcpy(hex, job.hex, sizeof(job.hex));
    snprintf(err, errsize, "%s", job.err);
    return rc;
}

static void work_cb(uv_work_t *w)
{
    struct hash_job *job = w->data;

    (void)hash_file(job, job->path.p);
}

static void after_cb(uv_work_t *w, int status)
{
    struct hash_job *job = w->data;

    if (status != 0 && job->err[0] == '\0')
        snprintf(job->err, sizeof(job->err), "hashing '%.200s' was cancelled",
                 job->path.p);
    job->done(job);
}

int hash_file_async(uv_loop_t *loop, struct hash_job *job, const char *path,
                    void (*done)(struct hash_job *job), void *ctx)
{
    int rc;

    if (buf_path(&job->path, "%s", path) != 0) {
        snprintf(job->err, sizeof(job->err), "path too long: '%.200s...'",
                 path);
        return UV_ENAMETOOLONG;
    }
    job->err[0] = '\0';
    atomic_store(&job->cancel, 0);
    job->done = done;
    job->ctx = ctx;
    job->work.data = job;
    rc = uv_queue_work(loop, &job->work, work_cb, after_cb);
    return rc;
}

void hash_release(struct hash_job *job)
{
    buf_release(&job->path);
}

void hash_cancel(struct hash_job *job)
{
    atomic_store(&job->cancel, 1);
}

void hash_bytes(const void *p, size_t n, char *hex)
{
    static const char digits[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0, i;

    if (EVP_Digest(p, n, md, &len, EVP_sha256(), NULL) != 1)
        len = 0;
    for (i = 0; i < len; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[2 * len] = '\0';
}

/* The vocabulary's bytes into the digest; a failed update is kept, not
 * lost (the hash is then refused whole). */
struct vocab_digest {
    EVP_MD_CTX *ctx;
    int ok;
};

static void vocab_sink(void *c, const void *p, size_t n)
{
    struct vocab_digest *d = c;

    if (d->ok && EVP_DigestUpdate(d->ctx, p, n) != 1)
        d->ok = 0;
}

int hash_vocab(const char *path, char *hex, struct vocab *v, char *msg,
               size_t msgsize)
{
    static const char digits[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0, i;
    struct vocab_digest d;
    int rc;

    hex[0] = '\0';
    memset(v, 0, sizeof(*v));
    v->gguf = -1;
    d.ctx = EVP_MD_CTX_new();
    d.ok = d.ctx != NULL && EVP_DigestInit_ex(d.ctx, EVP_sha256(), NULL) == 1;
    if (!d.ok) {
        EVP_MD_CTX_free(d.ctx);
        snprintf(msg, msgsize, "%s: sha256 could not start", path);
        return EXIT_FAILED;
    }
    rc = vocab_read_file(path, v, vocab_sink, &d, msg, msgsize);
    if (rc == F16R_OK && (!d.ok || EVP_DigestFinal_ex(d.ctx, md, &len) != 1)) {
        snprintf(msg, msgsize, "%s: sha256 of its vocabulary failed", path);
        rc = F16R_EIO;
    }
    EVP_MD_CTX_free(d.ctx);
    if (rc != F16R_OK)
        return rc == F16R_EBADINPUT ? EXIT_USAGE : EXIT_FAILED;
    for (i = 0; i < len; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[2 * len] = '\0';
    return 0;
}

void hash_vocab_differ(char *msg, size_t msgsize, const char *rung_a,
                       const char *file_a, const char *hex_a,
                       const char *rung_b, const char *file_b,
                       const char *hex_b)
{
    snprintf(msg, msgsize,
             "rungs %s and %s have different vocabularies ('%.900s', "
             "vocabulary %.12s; '%.900s', vocabulary %.12s): their "
             "log-probabilities are of different tokens, so no KLD between "
             "them; use files of one tokenizer, or leave logprobs off",
             rung_a, rung_b, file_a, hex_a, file_b, hex_b);
}
