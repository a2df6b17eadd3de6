/*
 * tarball.h - a bundle's tar.gz, in memory (docs/publish.md): written as
 * plain ustar (fixed mode, uid, gid, mtime 0, the caller's order) gzipped
 * by zlib with a header of mtime 0, so one folder always makes the same
 * bytes; read back with caps, refusing anything but regular files and
 * folders under one top folder. No file calls: the caller reads and
 * writes the files.
 */
#ifndef TARBALL_H
#define TARBALL_H

#include <stddef.h>

#include "../../util/util.h"

/* The caps a bundle is read under: a bundle is a run's rows and reports,
 * megabytes, so anything near these is not one. */
#define TARBALL_ENTRY_MAX   (256u << 20) /* bytes of one entry */
#define TARBALL_TOTAL_MAX   (1u << 30)   /* bytes unpacked, all entries */
#define TARBALL_ENTRIES_MAX 4096

/* Append one regular file (name < 100 bytes, a relative path of
 * [A-Za-z0-9._/-] without ".."). 0, or -1 (name refused, or out). */
int tarball_add(struct buf *tar, const char *name, const char *p, size_t n);
/* Add a folder entry ("dir/": the slash is the entry's, the name
 * before it obeys tarball_name_ok). */
int tarball_add_dir(struct buf *tar, const char *name);
/* The two zero blocks that end an archive, then all of it gzipped into
 * gz. 0, or -1. */
int tarball_gzip(struct buf *tar, struct buf *gz);

struct tarball_entry {
    char name[101];
    int dir;       /* 1 a folder */
    const char *p; /* into the unpacked tar */
    size_t n;
};

struct tarball {
    char *tar; /* the unpacked archive (owned) */
    size_t len;
    struct tarball_entry *e;
    size_t n;
};

/* gz[0..n) unpacked and its entries listed into t. 0, or -1 with one line
 * in msg: not gzip, past a cap, a name absolute or with "..", outside
 * one top folder, a link, a device or any other kind of entry, a bad
 * header checksum. Release t either way. */
int tarball_read(const char *gz, size_t n, struct tarball *t, char *msg,
                 size_t msgsize);
void tarball_release(struct tarball *t);

/* A gzip stream gz[0..n) unpacked into out (initialised here), at most
 * max bytes: 0, or -1 (not gzip, damaged, past max; out released). */
int tarball_gunzip(const char *gz, size_t n, size_t max, struct buf *out);

/* 1 when name is a path a bundle may hold (relative, no "..", no "//",
 * no trailing "/", [A-Za-z0-9._/-] only, under 100 bytes). */
int tarball_name_ok(const char *name);

#endif
