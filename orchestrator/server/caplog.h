/*
 * caplog.h - a rung's server log, capped for the whole rung.
 *
 * Every server a rung starts (the first, each restart, each resume) writes
 * into RUNDIR/logs/<RUNG>.server.log through one caplog, and the file never
 * grows much past the cap, however many servers come and go: the first
 * half of the cap keeps the log's head as it comes (the build, layers
 * offloaded, buffer sizes: what a person reads first), and past that only
 * the last half-cap bytes are kept, in memory, and written when the rung
 * ends after a line that says how much was dropped. A resumed rung counts
 * what the file already holds: the head is written once, and a later tail
 * replaces the earlier one. What a chatty or crash-looping server costs
 * the disk is therefore bounded per rung (../shared/seeds/
 * 4-log-writes-lesson.txt), not per server start.
 */
#ifndef CAPLOG_H
#define CAPLOG_H

#include <stddef.h>

struct caplog {
    int fd;
    size_t head_cap;         /* bytes of head, and of tail */
    unsigned long long size; /* the file's size now */
    char *tail;              /* ring of the last head_cap bytes */
    size_t tail_len, tail_pos;
    unsigned long long dropped; /* bytes not kept, over the rung */
    unsigned long long written; /* bytes this process wrote */
};

/*
 * Open (create or append) path, refusing a symbolic link, with cap bytes
 * in all. Returns 0, or -1 with a message naming the file.
 */
int caplog_open(struct caplog *l, const char *path, size_t cap, char *msg,
                size_t msgsize);

/* Take n bytes of output. A write that fails is dropped: a log must never
 * stop a run. */
void caplog_write(struct caplog *l, const char *p, size_t n);

/* Write the kept tail after a note of what was dropped; the file stays
 * near the cap (an older tail is cut off first). Called when the rung
 * ends; harmless twice. */
void caplog_flush(struct caplog *l);

/* Flush, sync and close. */
void caplog_close(struct caplog *l);

#endif
