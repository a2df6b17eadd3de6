/*
 * power.h - a rung's GPU power samples, RUNDIR/rows/<RUNG>.power: the
 * runner's writer and the reports' reader. The lines' format is the
 * grader's, which integrates them (grader/cost.h).
 *
 * Budgeted like the logs: a reading a second is one line of about 12
 * to 16 bytes, about 54 KB an hour; lines wait in memory and go out in
 * one append per POWER_BATCH readings, and the file is synced when the
 * rung stops answering. Past RUNDIR_POWER_CAP (2 MiB, some 38 hours of
 * answering) readings are not kept; the b and e lines that bound a
 * segment may pass it by RUNDIR_POWER_MARKS. The file is made at the
 * first reading only: without nvidia-smi, no file.
 */
#ifndef RUNDIR_POWER_H
#define RUNDIR_POWER_H

#include <stddef.h>

#include "../util/util.h"

#define RUNDIR_POWER_CAP   (2u << 20)
#define RUNDIR_POWER_MARKS (32u << 10)
#define POWER_BATCH        60

struct power_file {
    struct buf path;
    struct buf pending; /* lines not yet written */
    size_t size;        /* bytes in the file, written or pending */
    size_t readings;    /* readings pending */
    int exists;         /* the file is there (made, or found) */
    int capped;         /* a reading was left out past the cap */
};

/* The file of rung in rundir (nothing opened yet). 0, or -1 when the
 * path is too long. */
int power_file_init(struct power_file *pf, const char *rundir,
                    const char *rung);

/* A segment begins at unix_ms; a reading ms after it; the segment ends
 * ms after it. Each adds one line to what is pending; a reading past the
 * cap is dropped (pf->capped set). */
void power_file_begin(struct power_file *pf, long long unix_ms);
void power_file_reading(struct power_file *pf, unsigned long long ms,
                        double watts);
void power_file_end(struct power_file *pf, unsigned long long ms);

/* Whether a batch is due (POWER_BATCH readings pending). */
int power_file_due(const struct power_file *pf);

/* What is pending appended in one write (fsync'd when sync), the file
 * made (O_NOFOLLOW) only when there is a reading to write or it exists.
 * 0, or -1 with the message (naming the file) in msg and errno set; the
 * lines are dropped either way. */
int power_file_flush(struct power_file *pf, int sync, char *msg,
                     size_t msgsize);

void power_file_release(struct power_file *pf);

/*
 * The file of rung in rundir, whole (read as any run-folder file: no
 * link, plain, at most GRADER_POWER_MAX bytes): 0 with the bytes in *out
 * (malloc'd) and their length; 1 when absent; -1 with a message naming
 * the file (errno EFBIG past the cap).
 */
int rundir_power_read(const char *rundir, const char *rung, char **out,
                      size_t *len, char *msg, size_t msgsize);

#endif
