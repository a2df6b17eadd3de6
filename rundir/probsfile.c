/*
 * probsfile.c - append-and-fsync probs records, and the resume that makes
 * the file agree with the rows (probsfile.h).
 */
#include "probsfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../grader/grader.h" /* probs.h: the record's head and caps */
#include "../util/util.h"
#include "files.h"
#include "probsread.h"
#include "rundir.h"
#include "store.h"

/* The smallest body probs.h allows: id_len, a one-byte id, topn, flags,
 * ntok and the check. */
#define BODY_MIN (1u + 1u + 1u + 1u + 4u + 8u)

/* What the index of a file's records may take: an entry is 9 bytes and
 * its id, and a record is at least 24 bytes, so a file of 1 GiB fits. */
#define INDEX_MAX (1024u << 20)

/* A record found by the scan: where it starts, and its id (in the
 * index's bytes). */
struct entry {
    off_t off;
    size_t id;  /* offset of the id in struct scan's ids */
    size_t len; /* its length */
};

struct scan {
    struct entry *e;
    size_t n, cap;
    struct buf ids;
    off_t torn; /* where a torn tail starts, or -1 */
};

static int refuse(struct probsfile *p, int e, char *msg, size_t msgsize,
                  const char *fmt, long long at)
{
    char why[256];

    snprintf(why, sizeof(why), fmt, at);
    snprintf(msg, msgsize, "'%s': %s", p->path.p, why);
    p->err = e;
    return -1;
}

/* Whether the record at off (size bytes) is whole, by the caller's
 * codec: 1, 0, or -1 when the read fails. One record is in memory at a
 * time (at most GRADER_PROBS_RECORD_MAX bytes: one answer's tokens). */
static int whole_at(int fd, off_t off, size_t size, probsfile_whole whole)
{
    unsigned char *rec = xrealloc(NULL, size);
    size_t got = 0;
    ssize_t n;
    int rc;

    while (got < size) {
        n = pread(fd, rec + got, size - got, off + (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            free(rec);
            return -1;
        }
        got += (size_t)n;
    }
    rc = whole(rec, size) ? 1 : 0;
    free(rec);
    return rc;
}

/* The record at pos into the index: 0, 1 when it is torn (cut from pos),
 * -1 when refused or unreadable (said). */
static int one(struct probsfile *p, struct scan *s, off_t pos, off_t size,
               off_t *next, char *msg, size_t msgsize)
{
    unsigned char head[GRADER_PROBS_HEAD + 1 + 255 + 1]; /* to topn */
    size_t want, body, idlen;

    want =
        size - pos < (off_t)sizeof(head) ? (size_t)(size - pos) : sizeof(head);
    if (pread(p->fd, head, want, pos) != (ssize_t)want) {
        p->err = errno ? errno : EIO;
        snprintf(msg, msgsize, "cannot read '%s': %s", p->path.p,
                 files_strerror(p->err));
        return -1;
    }
    /* the one rule of what is torn, as the readers say it (probsread.h) */
    switch (probsread_place(head, want, (uint64_t)(size - pos), &body)) {
    case PROBS_TORN:
        return 1; /* the last write did not finish */
    case PROBS_NOT_ONE:
        return refuse(p, EINVAL, msg, msgsize,
                      "no probs record at byte %lld (not a file graveyard "
                      "wrote, or damaged)",
                      (long long)pos);
    case PROBS_PAST_CAPS:
        return refuse(p, EINVAL, msg, msgsize,
                      "the probs record at byte %lld has a length past the "
                      "caps (damaged)",
                      (long long)pos);
    default:
        break;
    }
    body -= GRADER_PROBS_HEAD;
    idlen = head[GRADER_PROBS_HEAD];
    if (idlen == 0 || idlen + BODY_MIN - 1 > body)
        return refuse(p, EINVAL, msg, msgsize,
                      "the probs record at byte %lld has a bad id length "
                      "(damaged)",
                      (long long)pos);
    /* one N a file: records of two could not be compared */
    if (s->n > 0 && head[GRADER_PROBS_HEAD + 1 + idlen] != p->topn)
        return refuse(p, EINVAL, msg, msgsize,
                      "the probs record at byte %lld has another N than the "
                      "records before it",
                      (long long)pos);
    p->topn = head[GRADER_PROBS_HEAD + 1 + idlen];
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->e = xrealloc(s->e, s->cap * sizeof(*s->e));
    }
    s->e[s->n].off = pos;
    s->e[s->n].id = s->ids.len;
    s->e[s->n].len = idlen;
    if (buf_add(&s->ids, (const char *)head + GRADER_PROBS_HEAD + 1, idlen) !=
        0)
        return refuse(p, EFBIG, msg, msgsize,
                      "more records than graveyard indexes (%lld bytes of "
                      "ids)",
                      (long long)INDEX_MAX);
    s->n++;
    *next = pos + (off_t)GRADER_PROBS_HEAD + (off_t)body;
    return 0;
}

/* Index every record; find a torn tail (s->torn, else -1). 0 or -1. */
static int scan_all(struct probsfile *p, struct scan *s, probsfile_whole whole,
                    char *msg, size_t msgsize)
{
    struct stat st;
    off_t pos = 0, next;
    int rc;

    s->torn = -1;
    if (fstat(p->fd, &st) != 0) {
        p->err = errno;
        snprintf(msg, msgsize, "cannot stat '%s': %s", p->path.p,
                 files_strerror(errno));
        return -1;
    }
    while (pos < st.st_size) {
        rc = one(p, s, pos, st.st_size, &next, msg, msgsize);
        if (rc < 0)
            return -1;
        if (rc == 1) {
            s->torn = pos;
            return 0;
        }
        pos = next;
    }
    /* every record whole in length: the last one's check says whether
     * its bytes all reached the disk */
    if (s->n > 0) {
        const struct entry *last = &s->e[s->n - 1];
        rc = whole_at(p->fd, last->off, (size_t)(st.st_size - last->off),
                      whole);
        if (rc < 0) {
            p->err = errno ? errno : EIO;
            snprintf(msg, msgsize, "cannot read '%s': %s", p->path.p,
                     files_strerror(p->err));
            return -1;
        }
        if (rc == 0) {
            s->torn = last->off;
            s->n--;
        }
    }
    return 0;
}

static const struct scan *sorting; /* qsort's context: one thread */

static int by_id(const void *a, const void *b)
{
    const struct entry *x = &sorting->e[*(const size_t *)a];
    const struct entry *y = &sorting->e[*(const size_t *)b];
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(sorting->ids.p + x->id, sorting->ids.p + y->id, n);

    return c != 0 ? c : (x->len > y->len) - (x->len < y->len);
}

/* A question with two records: refused, naming it. 0 or -1. */
static int no_twice(struct probsfile *p, const struct scan *s, char *msg,
                    size_t msgsize)
{
    size_t *order = xrealloc(NULL, (s->n ? s->n : 1) * sizeof(*order));
    int rc = 0;

    for (size_t i = 0; i < s->n; i++)
        order[i] = i;
    sorting = s;
    qsort(order, s->n, sizeof(*order), by_id);
    for (size_t i = 1; i < s->n && rc == 0; i++)
        if (by_id(&order[i - 1], &order[i]) == 0) {
            const struct entry *e = &s->e[order[i]];
            snprintf(msg, msgsize,
                     "'%s': question '%.*s' has two records (a probs file "
                     "graveyard does not leave; move it away to re-ask "
                     "the rung)",
                     p->path.p, (int)e->len, s->ids.p + e->id);
            p->err = EINVAL;
            rc = -1;
        }
    free(order);
    return rc;
}

/* The file to agree with the rows: the torn tail, then the trailing
 * records without a row, cut; any other record without a row, or a
 * question twice, refused. 0 or -1. */
static int agree(struct probsfile *p, struct scan *s, probsfile_has_row has,
                 void *ctx, char *msg, size_t msgsize)
{
    struct stat st;
    off_t cut = s->torn;

    while (s->n > 0 &&
           !has(ctx, s->ids.p + s->e[s->n - 1].id, s->e[s->n - 1].len)) {
        cut = s->e[--s->n].off;
        p->cut_rowless++;
    }
    for (size_t i = 0; i < s->n; i++)
        if (!has(ctx, s->ids.p + s->e[i].id, s->e[i].len)) {
            snprintf(msg, msgsize,
                     "'%s': the record of question '%.*s' (byte %lld) has "
                     "no row, yet rows follow it (a probs file graveyard "
                     "does not leave; move it away to re-ask the rung)",
                     p->path.p, (int)s->e[i].len, s->ids.p + s->e[i].id,
                     (long long)s->e[i].off);
            p->err = EINVAL;
            return -1;
        }
    if (no_twice(p, s, msg, msgsize) != 0)
        return -1;
    if (cut >= 0) {
        if (fstat(p->fd, &st) != 0 || ftruncate(p->fd, cut) != 0 ||
            fsync(p->fd) != 0) {
            p->err = errno;
            snprintf(msg, msgsize, "cannot recover '%s': %s", p->path.p,
                     files_strerror(errno));
            return -1;
        }
        p->cut_torn = s->torn >= 0 ? (size_t)(st.st_size - s->torn) : 0;
    }
    p->records = s->n;
    return 0;
}

int probsfile_open(struct probsfile *p, const char *rundir, const char *rung,
                   probsfile_has_row has_row, void *ctx, probsfile_whole whole,
                   char *msg, size_t msgsize)
{
    struct scan s;
    int rc;

    memset(p, 0, sizeof(*p));
    p->fd = store_open_file(rundir, RD_PROBS, rung, &p->path, &p->err, msg,
                            msgsize);
    if (p->fd < 0) {
        probsfile_close(p);
        return -1;
    }
    memset(&s, 0, sizeof(s));
    buf_init(&s.ids, INDEX_MAX);
    rc = scan_all(p, &s, whole, msg, msgsize);
    if (rc == 0)
        rc = agree(p, &s, has_row, ctx, msg, msgsize);
    free(s.e);
    buf_release(&s.ids);
    if (rc != 0)
        probsfile_close(p);
    return rc;
}

int probsfile_append(struct probsfile *p, const unsigned char *rec, size_t len,
                     char *msg, size_t msgsize)
{
    if (store_write_synced(p->fd, p->path.p, rec, len, &p->err, msg,
                           msgsize) != 0)
        return -1;
    p->records++;
    p->written += len;
    return 0;
}

void probsfile_close(struct probsfile *p)
{
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
    buf_release(&p->path);
}
