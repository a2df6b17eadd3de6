/*
 * probsread.c - a probs file's index of record heads, and one record read
 * at a time (probsread.h). The record's layout is grader/probs.h's; only
 * its first bytes (magic, length, id) are read here.
 */
#include "probsread.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../grader/grader.h" /* probs.h: the record's head */
#include "../util/util.h"
#include "files.h"
#include "rundir.h"

/* A head and the most an id needs after it. */
#define HEAD_READ (GRADER_PROBS_HEAD + 1 + 255)

/* The smallest body: id_len, a 1-byte id, topn, flags, ntok, check. */
#define BODY_MIN (1u + 1 + 1 + 1 + 4 + 8)

int probsread_place(const unsigned char *head, size_t avail, uint64_t left,
                    size_t *size)
{
    uint32_t body;

    if (left < GRADER_PROBS_HEAD || avail < GRADER_PROBS_HEAD)
        return PROBS_TORN;
    if (memcmp(head, GRADER_PROBS_MAGIC, 4) != 0)
        return PROBS_NOT_ONE;
    body = (uint32_t)head[4] | (uint32_t)head[5] << 8 |
           (uint32_t)head[6] << 16 | (uint32_t)head[7] << 24;
    if (body < BODY_MIN || body > GRADER_PROBS_RECORD_MAX - GRADER_PROBS_HEAD)
        return PROBS_PAST_CAPS;
    if ((uint64_t)GRADER_PROBS_HEAD + body > left)
        return PROBS_TORN;
    *size = GRADER_PROBS_HEAD + (size_t)body;
    return PROBS_WHOLE;
}

/* pread all of n bytes, or fewer at the end of the file: the count, or -1
 * (errno set). */
static ssize_t pread_full(int fd, void *p, size_t n, uint64_t off)
{
    size_t got = 0;

    while (got < n) {
        ssize_t k = pread(fd, (char *)p + got, n - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        if (k == 0)
            break;
        got += (size_t)k;
    }
    return (ssize_t)got;
}

static int cmp_rec(const void *x, const void *y)
{
    const struct probsread_rec *a = x, *b = y;
    size_t n = a->id_len < b->id_len ? a->id_len : b->id_len;
    int c = memcmp(a->id, b->id, n);

    return c ? c : (a->id_len > b->id_len) - (a->id_len < b->id_len);
}

/* The record head at off: its length and id into rec (id as an offset in
 * ids until the walk ends). 0, or -1 with the message. */
static int read_head(struct probsread *r, uint64_t off, uint64_t size,
                     struct probsread_rec *rec, struct buf *ids, char *msg,
                     size_t msgsize)
{
    unsigned char h[HEAD_READ];
    ssize_t got = pread_full(r->fd, h, sizeof(h), off);
    size_t len = 0;
    int place;

    if (got < 0) {
        snprintf(msg, msgsize, "cannot read '%s': %s", r->path,
                 files_strerror(errno));
        return -1;
    }
    /* the one rule of what graveyard run cuts back (probs.h) */
    place = probsread_place(h, (size_t)got, size - off, &len);
    if (place == PROBS_TORN) {
        snprintf(msg, msgsize,
                 "'%s': torn last record at byte %llu, the writer stopped "
                 "mid-record; 'graveyard run' cuts it back when it resumes",
                 r->path, (unsigned long long)off);
        return -1;
    }
    if (place == PROBS_PAST_CAPS) {
        snprintf(msg, msgsize,
                 "'%s': the probs record at byte %llu has a length past the "
                 "caps (damaged: graveyard run refuses the file too; move it "
                 "away to ask the rung again)",
                 r->path, (unsigned long long)off);
        return -1;
    }
    if (place != PROBS_WHOLE || h[8] == 0 || h[8] + 9u > (size_t)got) {
        snprintf(msg, msgsize,
                 "'%s': no probs record at byte %llu (not a probs file, or "
                 "damaged)",
                 r->path, (unsigned long long)off);
        return -1;
    }
    rec->off = off;
    rec->len = len;
    rec->id_len = h[8];
    rec->id = (const char *)(uintptr_t)ids->len; /* an offset for now */
    if (buf_add(ids, (const char *)h + 9, h[8]) != 0) {
        snprintf(msg, msgsize, "'%s': too many records", r->path);
        return -1;
    }
    return 0;
}

/* One pass over the heads; then the index sorted and checked for an id
 * met twice. */
static int walk(struct probsread *r, uint64_t size, char *msg, size_t msgsize)
{
    struct buf ids = {0};
    size_t cap = 0, i;
    uint64_t off = 0;

    buf_init(&ids, (size_t)1 << 30);
    while (off < size) {
        if (r->n == cap) {
            cap = cap ? cap * 2 : 256;
            r->rec = xrealloc(r->rec, cap * sizeof(*r->rec));
        }
        if (read_head(r, off, size, &r->rec[r->n], &ids, msg, msgsize)) {
            buf_release(&ids);
            return -1;
        }
        off += r->rec[r->n++].len;
    }
    r->ids = ids.p; /* owned from here */
    for (i = 0; i < r->n; i++)
        r->rec[i].id = r->ids + (uintptr_t)r->rec[i].id;
    if (r->n > 1)
        qsort(r->rec, r->n, sizeof(*r->rec), cmp_rec);
    for (i = 1; i < r->n; i++)
        if (cmp_rec(&r->rec[i - 1], &r->rec[i]) == 0) {
            snprintf(msg, msgsize,
                     "'%s': question '%.*s' has two records (bytes %llu and "
                     "%llu); a probs file holds one an answer",
                     r->path, (int)r->rec[i].id_len, r->rec[i].id,
                     (unsigned long long)r->rec[i - 1].off,
                     (unsigned long long)r->rec[i].off);
            return -1;
        }
    return 0;
}

int probsread_open_path(struct probsread *r, const char *path, char *msg,
                        size_t msgsize)
{
    struct stat st;

    memset(r, 0, sizeof(*r));
    r->fd = files_open_read(path, 1, msg, msgsize);
    if (r->fd < 0)
        return errno == ENOENT ? 1 : -1;
    r->path = xstrdup(path);
    if (fstat(r->fd, &st) != 0) {
        snprintf(msg, msgsize, "cannot read '%s': %s", path,
                 files_strerror(errno));
        probsread_close(r);
        return -1;
    }
    if (walk(r, (uint64_t)st.st_size, msg, msgsize) != 0) {
        probsread_close(r);
        return -1;
    }
    return 0;
}

int probsread_open(struct probsread *r, const char *rundir, const char *rung,
                   char *msg, size_t msgsize)
{
    struct buf path = {0};
    int rc;

    memset(r, 0, sizeof(*r));
    r->fd = -1;
    if (rundir_path_buf(&path, rundir, RD_PROBS, rung) != 0) {
        snprintf(msg, msgsize, "path too long: '%.200s...'", rundir);
        rc = -1;
    } else {
        rc = probsread_open_path(r, path.p, msg, msgsize);
    }
    buf_release(&path);
    return rc;
}

const struct probsread_rec *probsread_find(const struct probsread *r,
                                           const char *id, size_t id_len)
{
    struct probsread_rec key = {id, (uint8_t)id_len, 0, 0};

    if (id_len == 0 || id_len > 255 || r->n == 0)
        return NULL;
    return bsearch(&key, r->rec, r->n, sizeof(*r->rec), cmp_rec);
}

int probsread_load(const struct probsread *r, const struct probsread_rec *rec,
                   unsigned char **buf, size_t *cap, char *msg, size_t msgsize)
{
    ssize_t got;

    if (*cap < rec->len) {
        *buf = xrealloc(*buf, rec->len);
        *cap = rec->len;
    }
    got = pread_full(r->fd, *buf, rec->len, rec->off);
    if (got != (ssize_t)rec->len) {
        snprintf(msg, msgsize, "cannot read '%s' at byte %llu: %s", r->path,
                 (unsigned long long)rec->off,
                 got < 0 ? files_strerror(errno) : "the file got shorter");
        return -1;
    }
    return 0;
}

void probsread_close(struct probsread *r)
{
    if (r->fd >= 0 && r->path != NULL)
        close(r->fd);
    free(r->path);
    free(r->rec);
    free(r->ids);
    memset(r, 0, sizeof(*r));
    r->fd = -1;
}
