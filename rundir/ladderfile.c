/*
 * ladderfile.c - ladder.tsv and the sha256 cache, both small TSV files
 * rewritten whole (outfile_write) when they change.
 */
#include "ladderfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../util/util.h"
#include "files.h"
#include "outfile.h"

static const char header[] = "rung\tfile\tbytes\tsha256\n";

static int is_hex64(const char *s)
{
    size_t i;

    for (i = 0; i < 64; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return s[64] == '\0';
}

/* Split line into at most max tab-separated fields (in place). */
static size_t fields(char *line, char **f, size_t max)
{
    size_t n = 0;

    line[strcspn(line, "\r\n")] = '\0';
    while (n < max) {
        f[n++] = line;
        line = strchr(line, '\t');
        if (line == NULL)
            break;
        *line++ = '\0';
    }
    return n;
}

int ladderfile_read(const char *path, int missing_ok, struct lrow **rows,
                    size_t *n, char *msg, size_t msgsize)
{
    /* links followed: verify's --against names another machine's file */
    FILE *f = files_fopen_read(path, 0, msg, msgsize);
    int rc;

    *rows = NULL;
    *n = 0;
    if (f == NULL)
        return errno == ENOENT && missing_ok ? 0 : -1;
    rc = ladderfile_parse(f, path, rows, n, msg, msgsize);
    fclose(f);
    return rc;
}

int ladderfile_parse(FILE *f, const char *name, struct lrow **rows, size_t *n,
                     char *msg, size_t msgsize)
{
    char line[8192], *fld[5], *end;
    long lineno = 0;
    size_t cap = 0;

    *rows = NULL;
    *n = 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        struct lrow r;
        lineno++;
        if (lineno == 1 && strncmp(line, "rung\t", 5) == 0)
            continue;
        if (line[0] == '\n' || line[0] == '\0')
            continue;
        /* the sha256 is 64 hex digits, or empty: not known */
        if (fields(line, fld, 5) != 4 || strlen(fld[0]) >= sizeof(r.rung) ||
            (fld[3][0] != '\0' && !is_hex64(fld[3]))) {
            snprintf(msg, msgsize,
                     "%s:%ld: want 'rung<TAB>file<TAB>bytes<TAB>sha256'", name,
                     lineno);
            goto bad;
        }
        if (strlen(fld[1]) >= sizeof(r.file)) {
            snprintf(msg, msgsize,
                     "%s:%ld: path too long (over %d bytes): '%.200s...'",
                     name, lineno, BUF_PATH_MAX, fld[1]);
            goto bad;
        }
        errno = 0;
        r.bytes = strtoull(fld[2], &end, 10);
        if (errno != 0 || *end != '\0' || end == fld[2]) {
            snprintf(msg, msgsize, "%s:%ld: bytes '%s' is not a number", name,
                     lineno, fld[2]);
            goto bad;
        }
        snprintf(r.rung, sizeof(r.rung), "%s", fld[0]);
        snprintf(r.file, sizeof(r.file), "%s", fld[1]);
        snprintf(r.sha256, sizeof(r.sha256), "%s", fld[3]);
        r.line = lineno;
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            *rows = xrealloc(*rows, cap * sizeof(**rows));
        }
        (*rows)[(*n)++] = r;
    }
    if (ferror(f)) {
        snprintf(msg, msgsize, "%s: cannot read", name);
        goto bad;
    }
    return 0;
bad:
    free(*rows);
    *rows = NULL;
    *n = 0;
    return -1;
}

int ladderfile_row(struct lrow *row, const char *rung, const char *file,
                   char *msg, size_t msgsize)
{
    if (strlen(rung) >= sizeof(row->rung)) {
        snprintf(msg, msgsize,
                 "rung name too long (over %zu bytes): '%.100s...'",
                 sizeof(row->rung) - 1, rung);
        return -1;
    }
    if (strlen(file) >= sizeof(row->file)) {
        files_too_long(file, msg, msgsize);
        return -1;
    }
    memcpy(row->rung, rung, strlen(rung) + 1);
    memcpy(row->file, file, strlen(file) + 1);
    return 0;
}

const struct lrow *ladderfile_find(const struct lrow *rows, size_t n,
                                   const char *rung)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].rung, rung) == 0)
            return &rows[i];
    return NULL;
}

int ladderfile_upsert(const char *path, const struct lrow *row, char *msg,
                      size_t msgsize)
{
    struct lrow *rows;
    struct buf b = {0};
    char line[4400];
    size_t n, i;
    int done = 0, rc;

    if (ladderfile_read(path, 1, &rows, &n, msg, msgsize) != 0)
        return -1;
    /* a resumed rung: nothing new, nothing written */
    for (i = 0; i < n; i++)
        if (strcmp(rows[i].rung, row->rung) == 0 &&
            strcmp(rows[i].file, row->file) == 0 &&
            rows[i].bytes == row->bytes &&
            strcmp(rows[i].sha256, row->sha256) == 0) {
            free(rows);
            return 0;
        }
    buf_puts(&b, header);
    for (i = 0; i <= n; i++) {
        const struct lrow *r = i < n ? &rows[i] : row;
        if (i < n && strcmp(rows[i].rung, row->rung) == 0) {
            r = row;
            done = 1;
        } else if (i == n && done) {
            break;
        }
        snprintf(line, sizeof(line), "%s\t%s\t%llu\t%s\n", r->rung, r->file,
                 r->bytes, r->sha256);
        buf_puts(&b, line);
    }
    rc = outfile_write(path, b.p, b.len, msg, msgsize);
    buf_release(&b);
    free(rows);
    return rc;
}

/* size and mtime as the cache writes them */
static int stamp(const char *file, char *out, size_t size)
{
    struct stat st;

    if (stat(file, &st) != 0)
        return -1;
    snprintf(out, size, "%lld\t%lld.%09ld", (long long)st.st_size,
             (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
    return 0;
}

int sha_cache_get(const char *cache, const char *file, char hex[65],
                  unsigned long long *bytes)
{
    char now[64], line[8400], *fld[5], msg[4400];
    FILE *f;
    int hit = 0;

    if (stamp(file, now, sizeof(now)) != 0 ||
        (f = files_fopen_read(cache, 1, msg, sizeof(msg))) == NULL)
        return 0;
    while (!hit && fgets(line, sizeof(line), f) != NULL) {
        char seen[64];
        if (fields(line, fld, 5) != 4 || strcmp(fld[0], file) != 0 ||
            !is_hex64(fld[3]))
            continue;
        snprintf(seen, sizeof(seen), "%s\t%s", fld[1], fld[2]);
        if (strcmp(seen, now) == 0) {
            memcpy(hex, fld[3], 65);
            *bytes = strtoull(fld[1], NULL, 10);
            hit = 1;
        }
    }
    fclose(f);
    return hit;
}

int sha_cache_put(const char *cache, const char *file, const char *hex,
                  char *msg, size_t msgsize)
{
    char now[64], line[8400], *fld[5];
    struct buf b = {0};
    FILE *f;
    int rc;

    if (stamp(file, now, sizeof(now)) != 0) {
        snprintf(msg, msgsize, "cannot stat '%s': %s", file, strerror(errno));
        return -1;
    }
    if ((f = files_fopen_read(cache, 1, msg, msgsize)) != NULL) {
        while (fgets(line, sizeof(line), f) != NULL) {
            char copy[8400];
            snprintf(copy, sizeof(copy), "%s", line);
            if (fields(copy, fld, 5) == 4 && strcmp(fld[0], file) == 0)
                continue; /* replaced below */
            buf_puts(&b, line);
        }
        fclose(f);
    }
    snprintf(line, sizeof(line), "%s\t%s\t%s\n", file, now, hex);
    buf_puts(&b, line);
    rc = outfile_write(cache, b.p, b.len, msg, msgsize);
    buf_release(&b);
    return rc;
}
