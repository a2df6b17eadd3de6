/*
 * f16range.c - graveyard f16-range's scan (f16range.h): find the files,
 * read each table, stream each tensor's bytes through the counts, write
 * the lines.
 */
#include "f16range.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tensors.h"
#include "vocab.h"

/* Bytes read at a time: a multiple of every element size, and small
 * enough to stay in the cache between the read and the count. */
#define CHUNK      (1u << 20)
#define INDEX_MAX  (64u << 20)
#define SHARDS_MAX 100000u

/* v = m x 10^scale, m of the fewest digits that read back as v. At each
 * length printf's rounding is tried, and the digits one above and below:
 * printf rounds to nearest, but near a power of two the interval that
 * reads back is lopsided, and Python takes whichever is in it (2^-24 is
 * 5.960464477539063e-08, not printf's ...062). */
static void shortest(double v, unsigned long long *m, int *scale)
{
    char e[40], t[48];
    int p, k;

    for (p = 1; p <= 17; p++) {
        unsigned long long d = 0;
        const char *s;
        snprintf(e, sizeof e, "%.*e", p - 1, v);
        for (s = e; *s != 'e'; s++)
            if (*s >= '0' && *s <= '9')
                d = d * 10 + (unsigned long long)(*s - '0');
        *scale = atoi(s + 1) - (p - 1);
        for (k = 0; k < 3; k++) {
            unsigned long long c = k == 0 ? d : k == 1 ? d + 1 : d - 1;
            snprintf(t, sizeof t, "%llue%d", c, *scale);
            if (c > 0 && strtod(t, NULL) == v) {
                *m = c;
                return;
            }
        }
    }
    *m = 0; /* not reached: 17 digits always read back */
}

int f16range_repr(double v, char *buf, size_t size)
{
    char digits[24], out[64];
    unsigned long long m;
    int decpt, nd, exp10, i, scale;
    size_t o = 0;

    if (v == 0)
        return snprintf(buf, size, "%s", signbit(v) ? "-0.0" : "0.0");
    shortest(fabs(v), &m, &scale);
    while (m % 10 == 0) {
        m /= 10;
        scale++;
    }
    nd = snprintf(digits, sizeof digits, "%llu", m);
    decpt = nd + scale; /* v = 0.DIGITS x 10^decpt */
    exp10 = decpt - 1;
    if (v < 0)
        out[o++] = '-';
    if (decpt <= -4 || decpt > 16) { /* where Python's repr switches */
        out[o++] = digits[0];
        if (nd > 1)
            o += (size_t)sprintf(out + o, ".%s", digits + 1);
        o += (size_t)sprintf(out + o, "e%c%02d", exp10 < 0 ? '-' : '+',
                             abs(exp10));
    } else if (decpt <= 0) {
        out[o++] = '0';
        out[o++] = '.';
        for (i = decpt; i < 0; i++)
            out[o++] = '0';
        o += (size_t)sprintf(out + o, "%s", digits);
    } else if (decpt < nd) {
        o +=
            (size_t)sprintf(out + o, "%.*s.%s", decpt, digits, digits + decpt);
    } else {
        o += (size_t)sprintf(out + o, "%s", digits);
        for (i = nd; i < decpt; i++)
            out[o++] = '0';
        out[o++] = '.';
        out[o++] = '0';
    }
    out[o] = '\0';
    return snprintf(buf, size, "%s", out);
}

/* ---- the scan ------------------------------------------------------ */

struct scan {
    FILE *out;
    f16range_progress_fn progress;
    void *ctx;
    struct f16range_total tot;
    uint64_t done;
    json_t *skipped; /* [{"tensor", "dtype"}] */
    unsigned char *buf;
    char *msg;
    size_t msgsize;
};

static int fail(struct scan *s, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct scan *s, int rc, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(s->msg, s->msgsize, fmt, ap);
    va_end(ap);
    tensors_oneline(s->msg); /* names come from the files */
    return rc;
}

const char *f16r_err_name(int code)
{
    switch (code) {
#define F16R__NAME(name, msg)                                                 \
    case F16R_E##name:                                                        \
        return #name;
        F16R_ERRNO_MAP(F16R__NAME)
#undef F16R__NAME
    case F16R_OK:
        return "OK";
    }
    return "UNKNOWN";
}

const char *f16r_strerror(int code)
{
    switch (code) {
#define F16R__MSG(name, msg)                                                  \
    case F16R_E##name:                                                        \
        return msg;
        F16R_ERRNO_MAP(F16R__MSG)
#undef F16R__MSG
    case F16R_OK:
        return "success";
    }
    return "unknown error";
}

/* Read exactly n bytes at off: 0, or an error code with the message. */
static int read_at(struct scan *s, int fd, const char *file, void *p, size_t n,
                   uint64_t off)
{
    size_t got = 0;

    while (got < n) {
        ssize_t r = pread(fd, (char *)p + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return fail(s, F16R_EIO, "%s: read at byte %" PRIu64 ": %s", file,
                        off + got, strerror(errno));
        if (r == 0)
            return fail(s, F16R_EBADINPUT,
                        "%s: ends at byte %" PRIu64
                        " while its table says there is more: truncated?",
                        file, off + got);
        got += (size_t)r;
    }
    return 0;
}

static void put_name(struct scan *s, const char *name)
{
    json_t *j = json_string(name);
    char *d =
        j != NULL ? json_dumps(j, JSON_ENCODE_ANY | JSON_ENSURE_ASCII) : NULL;

    fputs(d != NULL ? d : "\"?\"", s->out);
    free(d);
    json_decref(j);
}

static void put_counts(struct scan *s, const struct f16_counts *c)
{
    char a[64];
    float f;

    memcpy(&f, &c->absmax, sizeof f);
    f16range_repr((double)f, a, sizeof a);
    fprintf(s->out,
            "\"n\": %" PRIu64 ", \"overflow\": %" PRIu64
            ", \"underflow\": %" PRIu64 ", \"subnormal\": %" PRIu64
            ", \"absmax\": %s, \"nonfinite\": %" PRIu64,
            c->n, c->overflow, c->underflow, c->subnormal, a, c->nonfinite);
}

static int count_tensor(struct scan *s, int fd, const char *file,
                        const struct wtensor *t)
{
    struct f16_counts c = {0};
    uint64_t at = 0;
    unsigned es = t->kind == WK_F32 ? 4 : 2;

    while (at < t->size) {
        size_t n = t->size - at < CHUNK ? (size_t)(t->size - at) : CHUNK;
        int rc = read_at(s, fd, file, s->buf, n, t->off + at);
        if (rc != 0)
            return rc;
        if (t->kind == WK_F32)
            f16_count_f32(s->buf, n / es, &c);
        else if (t->kind == WK_BF16)
            f16_count_bf16(s->buf, n / es, &c);
        else
            f16_count_f16(s->buf, n / es, &c);
        at += n;
        s->done += n;
        if (s->progress != NULL)
            s->progress(s->ctx, s->done, s->tot.bytes);
    }
    fputs("{\"tensor\": ", s->out);
    put_name(s, t->name);
    fputs(", ", s->out);
    put_counts(s, &c);
    fprintf(s->out, ", \"dtype\": \"%s\"}\n", t->dtype);
    if (ferror(s->out))
        return fail(s, F16R_EIO, "writing the lines: %s", strerror(errno));
    f16_counts_add(&s->tot.c, &c);
    s->tot.tensors++;
    return 0;
}

static int skip_tensor(struct scan *s, const struct wtensor *t)
{
    json_t *o = json_pack("{s:s, s:s}", "tensor", t->name, "dtype", t->dtype);

    if (o == NULL || json_array_append_new(s->skipped, o) != 0)
        return fail(s, F16R_EBADINPUT, "tensor '%.200s': name not UTF-8",
                    t->name);
    s->tot.skipped++;
    return 0;
}

/* ---- the files ----------------------------------------------------- */

struct wfile {
    char *path;
    struct wtable tab;
};

struct files {
    struct wfile *f;
    size_t n;
};

static void files_free(struct files *fs)
{
    size_t i;

    for (i = 0; i < fs->n; i++) {
        free(fs->f[i].path);
        tensors_free(&fs->f[i].tab);
    }
    free(fs->f);
}

static int open_regular(struct scan *s, const char *path, int *fd,
                        uint64_t *size)
{
    struct stat st;

    /* O_NONBLOCK: a FIFO's open would wait for a writer forever, before
     * the fstat below could refuse it (cleared again after) */
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (*fd < 0)
        return fail(s, errno == ENOENT ? F16R_EBADINPUT : F16R_EIO, "%s: %s",
                    path, strerror(errno));
    if (fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(*fd);
        return fail(s, F16R_EBADINPUT, "%s: not a regular file", path);
    }
    if (fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK) != 0) {
        close(*fd);
        return fail(s, F16R_EIO, "%s: %s", path, strerror(errno));
    }
    *size = (uint64_t)st.st_size;
    return 0;
}

/* gguf_parse's convention (0, -1 bad with m, 1 read more) over the first
 * len bytes of a file of size bytes. */
typedef int (*head_fn)(const unsigned char *b, size_t len, uint64_t size,
                       void *arg, char *m, size_t msize);

/* A GGUF's head read in growing pieces until parse has what it needs,
 * up to GGUF_META_MAX: F16R_OK (the bytes handed to *keep when keep is
 * not NULL, else freed), or an error code with the message; what names
 * the part of the head that parse reads, for a head past the cap. */
static int gguf_head(struct scan *s, int fd, const char *path, uint64_t size,
                     head_fn parse, void *arg, unsigned char **keep,
                     const char *what)
{
    size_t len = size < CHUNK ? (size_t)size : CHUNK;
    char m[512];

    for (;;) {
        unsigned char *b = malloc(len ? len : 1);
        int rc;
        if (b == NULL)
            return fail(s, F16R_EIO, "%s: out of memory", path);
        rc = read_at(s, fd, path, b, len, 0);
        if (rc != F16R_OK) { /* an F16R_E* code, msg set */
            free(b);
            return rc;
        }
        m[0] = '\0';
        rc = parse(b, len, size, arg, m, sizeof m);
        if (rc == 0 && keep != NULL) {
            *keep = b;
            return F16R_OK;
        }
        free(b);
        if (rc < 0)
            return fail(s, F16R_EBADINPUT, "%s: %s", path, m);
        if (rc == 0)
            return F16R_OK;
        if (len >= GGUF_META_MAX)
            return fail(s, F16R_EBADINPUT, "%s: %s ends past %u MiB", path,
                        what, GGUF_META_MAX >> 20);
        len = size / 2 < len ? (size_t)size : len * 2;
        if (len > GGUF_META_MAX)
            len = GGUF_META_MAX;
    }
}

static int table_parse(const unsigned char *b, size_t len, uint64_t size,
                       void *arg, char *m, size_t msize)
{
    return gguf_parse(b, len, size, arg, m, msize);
}

static int vocab_parse(const unsigned char *b, size_t len, uint64_t size,
                       void *arg, char *m, size_t msize)
{
    return gguf_vocab_parse(b, len, size, arg, m, msize);
}

static int gguf_table(struct scan *s, int fd, const char *path, uint64_t size,
                      struct wtable *tab)
{
    return gguf_head(s, fd, path, size, table_parse, tab, NULL,
                     "the tensor table");
}

static int st_table(struct scan *s, int fd, const char *path, uint64_t size,
                    struct wtable *tab)
{
    unsigned char *b;
    size_t len = size < 8 ? (size_t)size : 8;
    uint64_t hlen;
    char m[512];
    int rc;

    b = malloc(8);
    if (b == NULL)
        return fail(s, F16R_EIO, "%s: out of memory", path);
    rc = read_at(s, fd, path, b, len, 0);
    if (rc == 0 && len == 8) {
        hlen = safetensors_header_len(b);
        if (hlen <= size - 8 && hlen <= ST_HEADER_MAX) {
            unsigned char *nb = realloc(b, 8 + (size_t)hlen);
            if (nb == NULL) {
                free(b);
                return fail(s, F16R_EIO, "%s: out of memory", path);
            }
            b = nb;
            len = 8 + (size_t)hlen;
            rc = read_at(s, fd, path, b + 8, (size_t)hlen, 8);
        }
    }
    if (rc == 0 && safetensors_parse(b, len, size, tab, m, sizeof m) != 0)
        rc = fail(s, F16R_EBADINPUT, "%s: %s", path, m);
    free(b);
    return rc;
}

static int ends_with(const char *s, const char *tail);

/* The table of one file: GGUF when it starts "GGUF" or is named .gguf
 * (so that a bad magic is called one), else safetensors. */
static int read_table_as(struct scan *s, const char *path, struct wtable *tab,
                         int gguf);

static int read_table(struct scan *s, const char *path, struct wtable *tab)
{
    return read_table_as(s, path, tab, 0);
}

static int read_table_as(struct scan *s, const char *path, struct wtable *tab,
                         int gguf)
{
    unsigned char magic[4];
    uint64_t size;
    int fd, rc;

    tab->t = NULL;
    tab->n = 0;
    tab->nmeta = 0;
    rc = open_regular(s, path, &fd, &size);
    if (rc != 0)
        return rc;
    rc = size >= 4 ? read_at(s, fd, path, magic, 4, 0) : 0;
    if (rc == 0 && (gguf || (size >= 4 && memcmp(magic, "GGUF", 4) == 0) ||
                    ends_with(path, ".gguf")))
        rc = gguf_table(s, fd, path, size, tab);
    else if (rc == 0)
        rc = st_table(s, fd, path, size, tab);
    close(fd);
    return rc;
}

static int read_one(const char *path, struct wtable *tab, char *msg,
                    size_t msgsize, int gguf)
{
    struct scan s;

    memset(&s, 0, sizeof s);
    s.msg = msg;
    s.msgsize = msgsize;
    return read_table_as(&s, path, tab, gguf);
}

int tensors_read_file(const char *path, struct wtable *tab, char *msg,
                      size_t msgsize)
{
    return read_one(path, tab, msg, msgsize, 0);
}

int tensors_read_gguf(const char *path, struct wtable *tab, char *msg,
                      size_t msgsize)
{
    return read_one(path, tab, msg, msgsize, 1);
}

int vocab_read_file(const char *path, struct vocab *v, vocab_sink_fn sink,
                    void *ctx, char *msg, size_t msgsize)
{
    struct scan s;
    unsigned char *head = NULL, magic[4];
    uint64_t size;
    int fd, rc;

    memset(&s, 0, sizeof s);
    memset(v, 0, sizeof *v);
    v->gguf = -1;
    s.msg = msg;
    s.msgsize = msgsize;
    rc = open_regular(&s, path, &fd, &size);
    if (rc != 0)
        return rc;
    /* another kind of file is said apart: the caller may let it pass */
    rc = size >= 4 ? read_at(&s, fd, path, magic, 4, 0) : F16R_OK;
    if (rc == F16R_OK && (size < 4 || memcmp(magic, "GGUF", 4) != 0)) {
        close(fd);
        v->gguf = 0;
        return fail(&s, F16R_EBADINPUT, "%s: bad magic (not a GGUF file)",
                    path);
    }
    if (rc != F16R_OK) {
        close(fd);
        return rc;
    }
    /* only the key-values are read: the vocabulary is there, and a 100 GB
     * model's tensors are not */
    rc =
        gguf_head(&s, fd, path, size, vocab_parse, v, &head, "the key-values");
    close(fd);
    v->gguf = 1;
    if (rc == F16R_OK)
        vocab_feed(v, head, sink, ctx);
    free(head);
    return rc;
}

static int add_file(struct scan *s, struct files *fs, const char *path)
{
    struct wfile *nf = realloc(fs->f, (fs->n + 1) * sizeof *nf);
    int rc;

    if (nf == NULL)
        return fail(s, F16R_EIO, "%s: out of memory", path);
    fs->f = nf;
    fs->f[fs->n].path = strdup(path);
    if (fs->f[fs->n].path == NULL)
        return fail(s, F16R_EIO, "%s: out of memory", path);
    rc = read_table(s, path, &fs->f[fs->n].tab);
    fs->n++; /* freed by files_free either way */
    return rc;
}

static int ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);

    return a >= b && strcmp(s + a - b, tail) == 0;
}

/* ---- a sharded checkpoint ------------------------------------------ */

static int by_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A shard's name must stay in the index's folder. */
static int shard_name_ok(const char *n)
{
    return n[0] != '\0' && n[0] != '/' && strstr(n, "..") == NULL &&
           strlen(n) < 1024;
}

/* Every tensor a shard holds must be one the index puts there, and the
 * index must name no tensor the shards do not hold. */
static int index_agrees(struct scan *s, const char *index, json_t *map,
                        const struct files *fs, char *const *names)
{
    size_t i, j, held = 0;

    for (i = 0; i < fs->n; i++)
        for (j = 0; j < fs->f[i].tab.n; j++) {
            const char *t = fs->f[i].tab.t[j].name;
            json_t *v = json_object_get(map, t);
            if (!json_is_string(v) || strcmp(json_string_value(v), names[i]))
                return fail(s, F16R_EBADINPUT,
                            "%s: shard '%s' holds tensor '%.200s', which the "
                            "index does not put there",
                            index, names[i], t);
            held++;
        }
    if (held != json_object_size(map))
        return fail(s, F16R_EBADINPUT,
                    "%s: the index names %zu tensors, its shards hold %zu",
                    index, json_object_size(map), held);
    return 0;
}

static int shard_list(struct scan *s, const char *index, json_t *map,
                      char ***names, size_t *n)
{
    const char *k;
    json_t *v;
    size_t i, m = 0;

    *names = calloc(json_object_size(map) + 1, sizeof **names);
    if (*names == NULL)
        return fail(s, F16R_EIO, "%s: out of memory", index);
    json_object_foreach(map, k, v)
    {
        if (!json_is_string(v) || !shard_name_ok(json_string_value(v)))
            return fail(s, F16R_EBADINPUT,
                        "%s: weight_map gives tensor '%.200s' a shard that "
                        "is not a file name in this folder",
                        index, k);
        (*names)[m++] = (char *)json_string_value(v);
    }
    qsort(*names, m, sizeof **names, by_str);
    for (i = 0, *n = 0; i < m; i++)
        if (*n == 0 || strcmp((*names)[*n - 1], (*names)[i]) != 0)
            (*names)[(*n)++] = (*names)[i];
    if (*n > SHARDS_MAX)
        return fail(s, F16R_EBADINPUT, "%s: %zu shards", index, *n);
    return 0;
}

static int read_index(struct scan *s, const char *index, struct files *fs)
{
    json_error_t err;
    json_t *root, *map;
    char **names = NULL, *dir, *slash, path[4096];
    size_t n = 0, i;
    uint64_t size;
    int rc, fd;

    if ((rc = open_regular(s, index, &fd, &size)) != 0)
        return rc;
    root = json_loadfd(fd, JSON_REJECT_DUPLICATES, &err);
    close(fd);
    if (root == NULL)
        return fail(s, F16R_EBADINPUT, "%s:%d: %s", index, err.line, err.text);
    map = json_object_get(root, "weight_map");
    if (!json_is_object(map)) {
        json_decref(root);
        return fail(s, F16R_EBADINPUT, "%s: no \"weight_map\" object", index);
    }
    dir = strdup(index);
    rc = dir == NULL ? fail(s, F16R_EIO, "out of memory")
                     : shard_list(s, index, map, &names, &n);
    slash = dir != NULL ? strrchr(dir, '/') : NULL;
    if (slash != NULL)
        *slash = '\0';
    for (i = 0; rc == 0 && i < n; i++) {
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", slash ? dir : ".", names[i]);
        if (stat(path, &st) != 0)
            rc = fail(s, F16R_EBADINPUT,
                      "%s: names shard '%s', which is missing (%s)", index,
                      names[i], strerror(errno));
        else
            rc = add_file(s, fs, path);
    }
    if (rc == 0)
        rc = index_agrees(s, index, map, fs, names);
    free(names);
    free(dir);
    json_decref(root);
    return rc;
}

/* PATH: a folder (its index, else its model.safetensors), an index, or one
 * file. */
static int find_files(struct scan *s, const char *path, struct files *fs)
{
    struct stat st;
    char p[4096];

    if (stat(path, &st) != 0)
        return fail(s, errno == ENOENT ? F16R_EBADINPUT : F16R_EIO, "%s: %s",
                    path, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return ends_with(path, ".index.json") ? read_index(s, path, fs)
                                              : add_file(s, fs, path);
    if ((size_t)snprintf(p, sizeof p, "%s/model.safetensors.index.json",
                         path) >= sizeof p)
        return fail(s, F16R_EBADINPUT, "%.200s...: path too long", path);
    if (stat(p, &st) == 0)
        return read_index(s, p, fs);
    snprintf(p, sizeof p, "%s/model.safetensors", path);
    if (stat(p, &st) == 0)
        return add_file(s, fs, p);
    return fail(s, F16R_EBADINPUT,
                "%s: a folder with neither model.safetensors nor "
                "model.safetensors.index.json",
                path);
}

int tensors_count_path(const char *path, uint64_t *elements, uint64_t *bytes,
                       char *msg, size_t msgsize)
{
    struct scan s;
    struct files fs = {NULL, 0};
    size_t i, j;
    int rc;

    memset(&s, 0, sizeof s);
    s.msg = msg;
    s.msgsize = msgsize;
    *elements = *bytes = 0;
    rc = find_files(&s, path, &fs);
    for (i = 0; rc == 0 && i < fs.n; i++)
        for (j = 0; j < fs.f[i].tab.n; j++) {
            *elements += fs.f[i].tab.t[j].n;
            *bytes += fs.f[i].tab.t[j].size;
        }
    files_free(&fs);
    return rc;
}

/* ---- the run ------------------------------------------------------- */

static int scan_file(struct scan *s, const struct wfile *f)
{
    uint64_t size;
    size_t i;
    int fd, rc;

    rc = open_regular(s, f->path, &fd, &size);
    if (rc != 0)
        return rc;
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    for (i = 0; i < f->tab.n && rc == 0; i++) {
        const struct wtensor *t = &f->tab.t[i];
        if (t->off + t->size > size) /* it shrank since the table */
            rc = fail(s, F16R_EBADINPUT,
                      "%s: now %" PRIu64
                      " bytes, shorter than its table says: truncated?",
                      f->path, size);
        else
            rc = t->kind == WK_SKIP ? skip_tensor(s, t)
                                    : count_tensor(s, fd, f->path, t);
    }
    close(fd);
    return rc;
}

static int put_total(struct scan *s)
{
    char *sk = json_dumps(s->skipped, JSON_ENSURE_ASCII);

    if (sk == NULL)
        return fail(s, F16R_EIO, "out of memory for the skipped list");
    fprintf(s->out, "{\"tensor\": \"TOTAL\", \"tensors\": %" PRIu64 ", ",
            s->tot.tensors);
    put_counts(s, &s->tot.c);
    fprintf(s->out, ", \"skipped\": %s}\n", sk);
    free(sk);
    if (fflush(s->out) != 0 || ferror(s->out))
        return fail(s, F16R_EIO, "writing the lines: %s", strerror(errno));
    return 0;
}

int f16range_run(const char *path, FILE *out, f16range_progress_fn progress,
                 void *ctx, struct f16range_total *total, char *msg,
                 size_t msgsize)
{
    struct scan s = {out,  progress, ctx, {{0}, 0, 0, 0}, 0,
                     NULL, NULL,     msg, msgsize};
    struct files fs = {NULL, 0};
    size_t i, j;
    int rc;

    if (f16_init() != 0)
        return fail(&s, F16R_EIO, "the binary16 reference is not monotone");
    s.skipped = json_array();
    s.buf = malloc(CHUNK);
    if (s.skipped == NULL || s.buf == NULL)
        rc = fail(&s, F16R_EIO, "out of memory");
    else
        rc = find_files(&s, path, &fs);
    for (i = 0; rc == 0 && i < fs.n; i++)
        for (j = 0; j < fs.f[i].tab.n; j++)
            if (fs.f[i].tab.t[j].kind != WK_SKIP)
                s.tot.bytes += fs.f[i].tab.t[j].size;
    for (i = 0; rc == 0 && i < fs.n; i++)
        rc = scan_file(&s, &fs.f[i]);
    if (rc == 0)
        rc = put_total(&s);
    if (rc == 0 && total != NULL)
        *total = s.tot;
    files_free(&fs);
    json_decref(s.skipped);
    free(s.buf);
    return rc;
}
