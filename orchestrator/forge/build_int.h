/*
 * build_int.h - what build.c (the plan, the checks, the entry point),
 * buildstep.c (a step's life and the loop) and buildtool.c (the helpers
 * below: messages, sizes and the disk, leftovers of a killed build, the
 * tool's argv, log and build line) share: a build's state, and what the
 * two give build.c and each other. Not for other modules: build.h is the
 * interface.
 */
#ifndef BUILD_INT_H
#define BUILD_INT_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/stat.h>
#include <uv.h>

#include "build.h"
#include "../server/caplog.h"
#include "../base/hash.h"
#include "../base/lockwait.h"
#include "buildjobs.h"
#include "../night/super.h"

#define LOG_CAP     (1u << 20) /* a tool's log: head and tail, 1 MiB */
#define GRACE_MS    10000      /* SIGTERM, then SIGKILL */
#define VERSION_MS  30000
#define TAIL_LINES  8 /* quoted from the log when a tool fails */
#define SLACK_BYTES (64ull << 20)
#define STALL_S     1800 /* a tool silent this long is stopped */

struct bld;

struct step {
    struct bld *b;
    size_t i;       /* its rung; its state is b->jobs.sj[i], its phase and what
                       the plan found b->jobs.job[i] (buildjobs.h) */
    struct buf tmp; /* the tool's output, beside the target: a
                       capped path (util.h), released by
                       build_free_step */
    struct buf logpath; /* its log, set when it starts */
    char recipe[1024];
    char source_sha[65], tool[512];
    struct caplog log;
    struct proc *proc;
    char *argv[CONFIG_MAX_ARGS + 16];
    size_t argc;
    unsigned long long est;
    uint64_t t0, tool_t0;
    struct hash_job hash;
    uv_work_t work; /* on the thread pool: f16-range, then the result */
    char work_msg[9000];
    int work_rc;
    unsigned long long seen; /* output so far: the log's and the file's */
    uint64_t seen_at;        /* when it last grew */
    int stalled;             /* stopped for saying nothing (stall_s) */
    struct lockwait lock;    /* files.lock, waited for to record it */
    char file_sha[65];       /* its file's sha256 as the plan found it */
};

struct bld {
    struct super sup;      /* the loop, its stop signals, tick and lines */
    struct buildjobs jobs; /* the steps' states, one table, and which
                              starts when (--jobs, sources) */
    struct config *c;
    const struct build_opts *o;
    struct step s[CONFIG_MAX_RUNGS];
    json_t *recs;
    long threads; /* per tool */
    char qversion[512], csha[65];
    char **convert_env; /* ours, with TMPDIR=build.tmpdir; or NULL */
};

/* Messages: a line on stderr, after the live progress lines are taken
 * down; note() is quiet under --quiet, error() never is. */
void build_note(struct bld *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void build_error(struct bld *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* 65056 -> "65.1 kB" (one of four static buffers). */
const char *build_human(unsigned long long n);

int build_is_file(const char *path, struct stat *st);

/* The folder a file goes into ("." for a bare name), into out (a capped
 * path, util.h's buf_path): 0, or -1 past the cap (out->p is then ""). */
int build_folder_of(const char *path, struct buf *out)
    __attribute__((warn_unused_result));

/* Room a step's temporary name keeps for what start_tool appends to it
 * (".<pid>", then ".group"): past BUF_PATH_MAX less this, refused. */
#define TMP_SUFFIX_ROOM 32

/* Bytes rung i's step will write, and what a folder has free. */
unsigned long long build_estimate(struct bld *b, size_t i);
unsigned long long build_free_bytes(const char *dir);

/* Temporary files an earlier, killed build left beside a step's target. */
void build_remove_stale(struct step *s);

/* Rung i's record in build.json when it is of rung i's file (graveyard
 * made the file there), else NULL. */
json_t *build_record(const struct bld *b, size_t i);

/* The sha256 of the file rung i, there (BJ_HAVE), was quantized from, as
 * its record says; NULL for a rung graveyard did not make that way. */
const char *build_made_from(const struct bld *b, size_t i);

/* How deep a folder left at a temporary name is removed. */
#define REMOVE_DEPTH_MAX 64

/* Remove name (relative to dirfd, or AT_FDCWD and a path): a file, a
 * link itself, or a folder with all it holds, never following a link.
 * Only for graveyard's own temporary names. 0 (also when it is absent)
 * or -1 with errno. */
int build_remove_at(int dirfd, const char *name, int depth);

/* Run the pending steps on b->sup.loop until none runs. 0, or EXIT_FAILED
 * when libuv cannot start. */
int build_run_loop(struct bld *b);

/* buildtool.c: the tool's argv (freed by build_free_argv), whether the
 * disk holds what the step will write beside the running steps (said when
 * not), the tool's last lines quoted from its log, what built the file
 * (its build line in the log, else --version's, else the path), and the
 * step's rung name for messages. */
void build_make_argv(struct step *s);
void build_free_argv(struct step *s);
/* The step's argv and paths, released (it is zero again after). */
void build_free_step(struct step *s);
int build_disk_ok(struct step *s);
void build_quote_log(struct step *s);
void build_tool_identity(struct step *s);
const char *build_rname(const struct step *s);

#endif
