/*
 * tarball.c - a bundle's tar.gz in memory (tarball.h). The writer is
 * ustar's header and nothing more (POSIX pax "ustar" format: 512-byte
 * blocks, octal fields, the checksum counted with its own field as
 * spaces); the reader trusts none of it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "tarball.h"

#define BLOCK 512

int tarball_name_ok(const char *name)
{
    size_t i, len = strlen(name);

    /* a trailing '/' only marks a folder entry (add_entry strips it
     * first): a file "top/rows/" would be a name no folder can hold */
    if (len == 0 || len >= 100 || name[0] == '/' || name[len - 1] == '/' ||
        strstr(name, "//") || strcmp(name, "..") == 0 ||
        strncmp(name, "../", 3) == 0 || strstr(name, "/../") != NULL ||
        (len >= 3 && strcmp(name + len - 3, "/..") == 0))
        return 0;
    for (i = 0; i < len; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
              c == '/'))
            return 0;
    }
    return 1;
}

static unsigned checksum(const unsigned char *h)
{
    unsigned sum = 0;
    size_t i;

    for (i = 0; i < BLOCK; i++)
        sum += (i >= 148 && i < 156) ? ' ' : h[i];
    return sum;
}

static int add_entry(struct buf *tar, const char *name, char type,
                     const char *p, size_t n)
{
    unsigned char h[BLOCK];
    static const char zeros[BLOCK];
    char bare[100];
    size_t len = strlen(name);

    /* a folder's one trailing slash is the format's, not the name's */
    if (len >= sizeof(bare) || n > TARBALL_ENTRY_MAX)
        return -1;
    memcpy(bare, name, len + 1);
    if (type == '5' && len > 1 && bare[len - 1] == '/')
        bare[len - 1] = '\0';
    if (!tarball_name_ok(bare))
        return -1;
    memset(h, 0, sizeof(h));
    memcpy(h, name, len);
    snprintf((char *)h + 100, 8, "%07o", type == '5' ? 0755 : 0644);
    snprintf((char *)h + 108, 8, "%07o", 0);
    snprintf((char *)h + 116, 8, "%07o", 0);
    snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)n);
    snprintf((char *)h + 136, 12, "%011o", 0);
    h[156] = (unsigned char)type;
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    snprintf((char *)h + 148, 8, "%06o", checksum(h));
    h[155] = ' ';
    if (buf_add(tar, (const char *)h, BLOCK) != 0 ||
        (n > 0 && buf_add(tar, p, n) != 0) ||
        (n % BLOCK != 0 && buf_add(tar, zeros, BLOCK - n % BLOCK) != 0))
        return -1;
    return 0;
}

int tarball_add(struct buf *tar, const char *name, const char *p, size_t n)
{
    return add_entry(tar, name, '0', p, n);
}

int tarball_add_dir(struct buf *tar, const char *name)
{
    return add_entry(tar, name, '5', NULL, 0);
}

int tarball_gzip(struct buf *tar, struct buf *gz)
{
    static const char zeros[2 * BLOCK];
    z_stream z;
    char out[65536];
    int rc;

    if (buf_add(tar, zeros, sizeof(zeros)) != 0)
        return -1;
    memset(&z, 0, sizeof(z));
    /* 15 + 16: a gzip wrapper; zlib writes its header with mtime 0 and
     * no name, so the bytes depend on the input alone */
    if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK)
        return -1;
    z.next_in = (unsigned char *)tar->p;
    z.avail_in = (uInt)tar->len;
    do {
        z.next_out = (unsigned char *)out;
        z.avail_out = sizeof(out);
        rc = deflate(&z, Z_FINISH);
        if ((rc != Z_OK && rc != Z_STREAM_END) ||
            buf_add(gz, out, sizeof(out) - z.avail_out) != 0) {
            deflateEnd(&z);
            return -1;
        }
    } while (rc != Z_STREAM_END);
    deflateEnd(&z);
    return 0;
}

static int header(const unsigned char *h, struct tarball_entry *e,
                  size_t *size, char *msg, size_t msgsize);
static int all_zero(const unsigned char *h);

/* Each header complete in b from *next on checked as it arrives, so that
 * an entry past its cap (a bomb's "2 GiB of zeros") is refused at its
 * header, before its bytes are unpacked; *next the offset of the next
 * header (SIZE_MAX past the end marker). 0, or -1 with msg. */
static int headers_so_far(const struct buf *b, size_t *next, char *msg,
                          size_t msgsize)
{
    struct tarball_entry e;
    size_t size;

    while (*next != (size_t)-1 && b->len >= BLOCK && *next <= b->len - BLOCK) {
        const unsigned char *h = (const unsigned char *)b->p + *next;
        if (all_zero(h)) {
            *next = (size_t)-1;
            break;
        }
        if (header(h, &e, &size, msg, msgsize) != 0)
            return -1;
        *next += BLOCK + (size + BLOCK - 1) / BLOCK * BLOCK;
        if (*next > b->max) {
            snprintf(msg, msgsize,
                     "'%.100s': the entries pass %u MiB: not "
                     "a bundle",
                     e.name, TARBALL_TOTAL_MAX >> 20);
            return -1;
        }
    }
    return 0;
}

/* gz unpacked into t->tar, at most TARBALL_TOTAL_MAX + two blocks, each
 * header checked as it arrives. */
static int gunzip(const char *gz, size_t n, struct tarball *t, char *msg,
                  size_t msgsize)
{
    struct buf b = {0};
    z_stream z;
    char out[65536];
    size_t next = 0;
    int rc;

    buf_init(&b, TARBALL_TOTAL_MAX + (TARBALL_ENTRIES_MAX + 2) * BLOCK);
    memset(&z, 0, sizeof(z));
    if (inflateInit2(&z, 15 + 16) != Z_OK) {
        snprintf(msg, msgsize, "out of memory");
        return -1;
    }
    z.next_in = (unsigned char *)gz;
    z.avail_in = (uInt)n;
    do {
        z.next_out = (unsigned char *)out;
        z.avail_out = sizeof(out);
        rc = inflate(&z, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END) {
            snprintf(msg, msgsize, "not a gzip file, or a damaged one (%s)",
                     z.msg ? z.msg : "no data");
            break;
        }
        if (buf_add(&b, out, sizeof(out) - z.avail_out) != 0) {
            snprintf(msg, msgsize, "unpacks past %u MiB: not a bundle",
                     TARBALL_TOTAL_MAX >> 20);
            rc = Z_DATA_ERROR;
            break;
        }
        if (headers_so_far(&b, &next, msg, msgsize) != 0) {
            rc = Z_DATA_ERROR;
            break;
        }
    } while (rc != Z_STREAM_END);
    inflateEnd(&z);
    if (rc != Z_STREAM_END) {
        buf_release(&b);
        return -1;
    }
    t->tar = b.p;
    t->len = b.len;
    return 0;
}

int tarball_gunzip(const char *gz, size_t n, size_t max, struct buf *out)
{
    z_stream z;
    char chunk[65536];
    int rc;

    buf_init(out, max);
    memset(&z, 0, sizeof(z));
    if (inflateInit2(&z, 15 + 16) != Z_OK)
        return -1;
    z.next_in = (unsigned char *)gz;
    z.avail_in = (uInt)n;
    do {
        z.next_out = (unsigned char *)chunk;
        z.avail_out = sizeof(chunk);
        rc = inflate(&z, Z_NO_FLUSH);
        if ((rc != Z_OK && rc != Z_STREAM_END) ||
            buf_add(out, chunk, sizeof(chunk) - z.avail_out) != 0) {
            rc = Z_DATA_ERROR;
            break;
        }
    } while (rc != Z_STREAM_END);
    inflateEnd(&z);
    if (rc != Z_STREAM_END) {
        buf_release(out);
        return -1;
    }
    return 0;
}

static int all_zero(const unsigned char *h)
{
    size_t i;

    for (i = 0; i < BLOCK; i++)
        if (h[i] != 0)
            return 0;
    return 1;
}

/* One header at off: its entry into e, its size into *size. A name is
 * quoted in msg as util_printable shows it (a header's bytes may be
 * anything: a refusal is one line, with no control character). */
static int header(const unsigned char *h, struct tarball_entry *e,
                  size_t *size, char *msg, size_t msgsize)
{
    char field[13], *end, shown[4 * 100 + 1];
    unsigned long long sz;
    unsigned long sum;
    size_t len;

    memcpy(e->name, h, 100);
    e->name[100] = '\0';
    len = strlen(e->name);
    util_printable(e->name, len, shown, sizeof(shown));
    memcpy(field, h + 148, 8);
    field[8] = '\0';
    sum = strtoul(field, &end, 8);
    if (end == field || sum != checksum(h)) {
        snprintf(msg, msgsize, "'%s': a bad header checksum", shown);
        return -1;
    }
    if (h[345] != '\0') {
        snprintf(msg, msgsize, "'%s': a long name (prefix): refused", shown);
        return -1;
    }
    if (h[156] != '0' && h[156] != '\0' && h[156] != '5') {
        snprintf(msg, msgsize,
                 "'%s': not a regular file or a folder (type '%c'): "
                 "links, devices and extended headers are refused",
                 shown, h[156] >= 0x20 && h[156] < 0x7f ? h[156] : '?');
        return -1;
    }
    e->dir = h[156] == '5';
    memcpy(field, h + 124, 12);
    field[12] = '\0';
    sz = strtoull(field, &end, 8);
    if (end == field || (*end != '\0' && *end != ' ')) {
        snprintf(msg, msgsize, "'%s': a size that is not octal digits", shown);
        return -1;
    }
    if (e->dir && sz != 0) {
        snprintf(msg, msgsize, "'%s': a folder with bytes", shown);
        return -1;
    }
    if (sz > TARBALL_ENTRY_MAX) {
        snprintf(msg, msgsize, "'%s': an entry past the cap of %u MiB", shown,
                 TARBALL_ENTRY_MAX >> 20);
        return -1;
    }
    if (e->dir && len > 1 && e->name[len - 1] == '/')
        e->name[len - 1] = '\0';
    if (!tarball_name_ok(e->name)) {
        snprintf(msg, msgsize,
                 "'%s': a name absolute, with '..', odd characters or a "
                 "trailing '/'",
                 shown);
        return -1;
    }
    *size = (size_t)sz;
    return 0;
}

/* Every entry under one top folder, the first entry's. */
static int one_top(const struct tarball *t, char *msg, size_t msgsize)
{
    const char *slash = strchr(t->e[0].name, '/');
    size_t k = slash ? (size_t)(slash - t->e[0].name) : strlen(t->e[0].name);
    size_t i;

    for (i = 0; i < t->n; i++)
        if (strncmp(t->e[i].name, t->e[0].name, k) != 0 ||
            (t->e[i].name[k] != '/' && t->e[i].name[k] != '\0')) {
            snprintf(msg, msgsize, "'%s': outside the top folder '%.*s'",
                     t->e[i].name, (int)k, t->e[0].name);
            return -1;
        }
    return 0;
}

int tarball_read(const char *gz, size_t n, struct tarball *t, char *msg,
                 size_t msgsize)
{
    size_t off = 0, size;

    memset(t, 0, sizeof(*t));
    if (gunzip(gz, n, t, msg, msgsize) != 0)
        return -1;
    t->e = calloc(TARBALL_ENTRIES_MAX, sizeof(*t->e));
    if (t->e == NULL) {
        snprintf(msg, msgsize, "out of memory");
        return -1;
    }
    while (off + BLOCK <= t->len &&
           !all_zero((const unsigned char *)t->tar + off)) {
        struct tarball_entry *e = &t->e[t->n];

        if (t->n == TARBALL_ENTRIES_MAX) {
            snprintf(msg, msgsize, "more than %d entries: not a bundle",
                     TARBALL_ENTRIES_MAX);
            return -1;
        }
        if (header((const unsigned char *)t->tar + off, e, &size, msg,
                   msgsize) != 0)
            return -1;
        off += BLOCK;
        if (size > t->len - off) {
            snprintf(msg, msgsize, "'%s': cut short", e->name);
            return -1;
        }
        e->p = t->tar + off;
        e->n = size;
        off += (size + BLOCK - 1) / BLOCK * BLOCK;
        t->n++;
    }
    if (t->n == 0) {
        snprintf(msg, msgsize, "an empty archive");
        return -1;
    }
    return one_top(t, msg, msgsize);
}

void tarball_release(struct tarball *t)
{
    free(t->tar);
    free(t->e);
    memset(t, 0, sizeof(*t));
}
