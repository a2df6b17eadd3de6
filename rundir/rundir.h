/*
 * rundir.h - a run folder's layout: the only code that knows where
 * graveyard keeps what (docs/rows.md, docs/run.md).
 *
 *   RUNDIR/rows/<RUNG>.jsonl       the rows (store.h)
 *   RUNDIR/rows/<RUNG>.done        the rung's summary (runner.c writes it)
 *   RUNDIR/rows/<RUNG>.power       the GPU's power while it answered (power.h)
 *   RUNDIR/rows/<RUNG>.probs       the answers' log-probabilities
 * (probsfile.h) RUNDIR/locks/<RUNG>.lock       one graveyard at a time on a
 * rung RUNDIR/locks/files.lock        held while the shared files change
 *   RUNDIR/logs/<RUNG>.server.log  the server's capped log
 *   RUNDIR/<RUNG>.server.pid       the running server (pidfile.h)
 *   RUNDIR/manifest.json           what the rows were made with
 *   RUNDIR/ladder.tsv              rung, file, bytes, sha256 (ladderfile.h)
 *   RUNDIR/ladder.json             the ladder's shape (run.h)
 *   RUNDIR/sha256.cache            hashes by path, size and mtime
 *   RUNDIR/graveyard.json          bury's tombstones and ghosts
 *   RUNDIR/graveyard-side.json     the side rungs'
 *   RUNDIR/repeat/                 a second run of some rungs
 *   RUNDIR/build.json              how graveyard build made each file
 *   RUNDIR/build/<RUNG>.log        the converter's or quantizer's log
 *   RUNDIR/locks/build.lock        one graveyard build at a time
 *   RUNDIR/f16-range.jsonl         what the F16 cast costs (f16-range)
 *   RUNDIR/gpu<ID>/                one GPU's copy under --replicate
 *   RUNDIR/canary/                 the canary's run of the reference
 *   RUNDIR/canary/questions.jsonl  the questions it asked
 *   RUNDIR/canary/canary.json      its verdict (cmd_canary.c)
 *   RUNDIR/audit/NAME/             a served model's audit (cmd_audit.c):
 *                                  a run folder of its own
 *
 * librundir.a links libc and jansson only, and `make check-rundir-deps`
 * proves that no other module spells these names.
 */
#ifndef RUNDIR_H
#define RUNDIR_H

#include <stddef.h>

enum rundir_file {
    RD_ROWS_DIR,
    RD_ROWS,  /* per rung */
    RD_DONE,  /* per rung */
    RD_PROBS, /* per rung */
    RD_LOCKS_DIR,
    RD_LOCK, /* per rung */
    RD_FILES_LOCK,
    RD_LOGS_DIR,
    RD_LOG, /* per rung */
    RD_PID, /* per rung */
    RD_MANIFEST,
    RD_LADDER_TSV,
    RD_LADDER_JSON,
    RD_HASH_CACHE,
    RD_GRAVEYARD,
    RD_GRAVEYARD_SIDE,
    RD_REPEAT_DIR,
    RD_BUILD_JSON,
    RD_BUILD_DIR,
    RD_BUILD_LOG, /* per rung */
    RD_BUILD_LOCK,
    RD_F16_RANGE,
    RD_CANARY_DIR,
    RD_CANARY_QUESTIONS,
    RD_CANARY_JSON,
    RD_BESIDE,
    RD_POWER,      /* per rung */
    RD_AUDIT_DIR,  /* RUNDIR/audit: graveyard audit's runs */
    RD_AUDIT,      /* per audit: RUNDIR/audit/NAME, a run folder of its own */
    RD_LONG_ITEMS, /* a config's "lengths": the long items made for them */
    RD_LONG_LOG,   /* the log of the server that counted their tokens */
    RD_CANDIDATES, /* per rung: a code task's answers before their
                      execution (candidates.h) */
};

/*
 * The path of what in rundir (rung for the per-rung files, else ignored)
 * into out. Returns 0, or -1 when it does not fit in size (out is then
 * "").
 */
int rundir_path(char *out, size_t size, const char *rundir,
                enum rundir_file what, const char *rung);

/* The most bytes a run-folder path may hold (the char[4200] that paths
 * were kept in, less its NUL): past it rundir_path_buf refuses. */
#define RUNDIR_PATH_MAX 4199

/*
 * rundir_path into a buffer (util.h) that grows as the path needs, up to
 * its max (RUNDIR_PATH_MAX when b's max is 0, as zero-initialised): b is
 * emptied first and then holds the path, NUL-terminated. Returns 0, or -1
 * when what is unknown, a rung is missing, or the path passes the cap;
 * b->p is then "" (a string either way). The caller releases b
 * (buf_release).
 */
struct buf;
int rundir_path_buf(struct buf *b, const char *rundir, enum rundir_file what,
                    const char *rung);

/* The name under the run folder of a file that is not a rung's
 * ("f16-range.jsonl"), for a text that names it to a reader; NULL for a
 * rung's file or an unknown one. */
const char *rundir_file_name(enum rundir_file what);

/* RUNDIR/gpu<ID>, one GPU's copy of a ladder under --replicate, into b
 * as rundir_path_buf: 0, or -1 past RUNDIR_PATH_MAX (b->p then ""). The
 * caller releases b. */
int rundir_gpu_dir_buf(struct buf *b, const char *rundir, const char *gpu);

/*
 * The files what[0..n) of rundir (a rung's for rung; the folder's own
 * ignore it) that a command will write or read later, checked now, so
 * that it refuses before a server starts rather than after a night of
 * answers: each must be absent or a regular file. A symbolic link is -1
 * with files_check_target's message (errno ELOOP), anything else (a
 * FIFO, a folder) -1 with "'PATH': not a regular file" (EINVAL), a path
 * past RUNDIR_PATH_MAX -1 with "path too long" (ENAMETOOLONG); each
 * message names the path, and files_exit_code(errno) gives the exit
 * status. Nothing is opened, made or followed.
 */
int rundir_check_ahead(const char *rundir, const char *rung,
                       const enum rundir_file *what, size_t n, char *msg,
                       size_t msgsize);

#endif
