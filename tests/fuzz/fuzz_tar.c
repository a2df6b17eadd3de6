/*
 * fuzz_tar.c - libFuzzer harness for the bundle's tar.gz reader
 * (orchestrator/base/tarball.h), what graveyard verify trusts none of.
 * The first byte says what the rest is: even, a gzip stream read as it
 * is (a sender's bundle); odd, a tar archive the harness gzips first, so
 * that the header checks are reached and not only zlib's. Any bytes give
 * a listing or a one-line refusal, never a crash, a leak or a read
 * outside the archive. A listing holds 1 to TARBALL_ENTRIES_MAX entries,
 * each with a name a bundle may hold, under one top folder, its bytes
 * inside the unpacked archive, a folder with none; written again by the
 * writer (tarball_add, tarball_add_dir, tarball_gzip) it reads back the
 * same. tarball_gunzip under a small cap never passes it.
 *
 * Tests: orchestrator/base/tarball.c
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../../orchestrator/base/tarball.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* p[0..n) gzipped into out (a gzip wrapper, as a bundle has). 0, or -1. */
static int gzip_raw(const uint8_t *p, size_t n, struct buf *out)
{
    z_stream z;
    char chunk[65536];
    int rc;

    memset(&z, 0, sizeof(z));
    if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK)
        return -1;
    z.next_in = (unsigned char *)p;
    z.avail_in = (uInt)n;
    do {
        z.next_out = (unsigned char *)chunk;
        z.avail_out = sizeof(chunk);
        rc = deflate(&z, Z_FINISH);
        if ((rc != Z_OK && rc != Z_STREAM_END) ||
            buf_add(out, chunk, sizeof(chunk) - z.avail_out) != 0) {
            deflateEnd(&z);
            return -1;
        }
    } while (rc != Z_STREAM_END);
    deflateEnd(&z);
    return 0;
}

/* A refusal is one line of words. */
static void refusal_check(const char *msg)
{
    assert(msg[0] != '\0');
    assert(strchr(msg, '\n') == NULL);
}

/* What a listing promises. */
static void listing_check(const struct tarball *t)
{
    const char *top = t->e[0].name, *slash = strchr(top, '/');
    size_t k = slash ? (size_t)(slash - top) : strlen(top), i;

    assert(t->n >= 1 && t->n <= TARBALL_ENTRIES_MAX);
    for (i = 0; i < t->n; i++) {
        const struct tarball_entry *e = &t->e[i];
        assert(strlen(e->name) < 100 && tarball_name_ok(e->name));
        assert(strncmp(e->name, top, k) == 0 &&
               (e->name[k] == '\0' || e->name[k] == '/'));
        assert(e->p >= t->tar && e->p <= t->tar + t->len);
        assert(e->n <= (size_t)(t->tar + t->len - e->p));
        assert(e->n <= TARBALL_ENTRY_MAX);
        assert(!e->dir || e->n == 0);
        if (e->n > 0) /* its ends read: ASan sees one outside */
            assert(e->p[0] == e->p[0] && e->p[e->n - 1] == e->p[e->n - 1]);
    }
}

/* The listing written again and read back: the same entries. A folder
 * of 99 characters has no room for its slash: not written again. */
static void again_check(const struct tarball *t)
{
    struct buf tar = {0}, gz = {0};
    struct tarball u;
    char name[102], msg[512];
    size_t i;

    buf_init(&tar, TARBALL_TOTAL_MAX);
    buf_init(&gz, TARBALL_TOTAL_MAX);
    for (i = 0; i < t->n; i++) {
        const struct tarball_entry *e = &t->e[i];
        if (e->dir) {
            snprintf(name, sizeof(name), "%s/", e->name);
            if (strlen(name) >= 100)
                goto out;
            assert(tarball_add_dir(&tar, name) == 0);
        } else {
            assert(tarball_add(&tar, e->name, e->p, e->n) == 0);
        }
    }
    assert(tarball_gzip(&tar, &gz) == 0);
    msg[0] = '\0';
    if (tarball_read(gz.p, gz.len, &u, msg, sizeof(msg)) != 0) {
        fprintf(stderr, "written again, refused: %s\n", msg);
        abort();
    }
    assert(u.n == t->n);
    for (i = 0; i < u.n; i++) {
        assert(strcmp(u.e[i].name, t->e[i].name) == 0);
        assert(u.e[i].dir == t->e[i].dir && u.e[i].n == t->e[i].n);
        assert(u.e[i].n == 0 || memcmp(u.e[i].p, t->e[i].p, u.e[i].n) == 0);
    }
    tarball_release(&u);
out:
    buf_release(&tar);
    buf_release(&gz);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct buf gz = {0}, small;
    struct tarball t;
    char msg[512];
    const char *p;
    size_t n;

    if (size < 1)
        return 0;
    if (data[0] & 1) {
        buf_init(&gz, TARBALL_TOTAL_MAX);
        if (gzip_raw(data + 1, size - 1, &gz) != 0) {
            buf_release(&gz);
            return 0;
        }
        p = gz.p ? gz.p : "";
        n = gz.len;
    } else {
        p = (const char *)data + 1;
        n = size - 1;
    }
    msg[0] = '\0';
    if (tarball_read(p, n, &t, msg, sizeof(msg)) != 0) {
        refusal_check(msg);
    } else {
        listing_check(&t);
        again_check(&t);
    }
    tarball_release(&t);
    /* the plain inflater's cap */
    if (tarball_gunzip(p, n, 4096, &small) == 0) {
        assert(small.len <= 4096);
        buf_release(&small);
    }
    buf_release(&gz);
    return 0;
}
