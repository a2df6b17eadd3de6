/*
 * ladder_int.h - what the parts of `graveyard ladder` share: its jobs and
 * its state. cmd_ladder.c has the flags and the order of the night (check,
 * build first, run, the end); ladder_plan.c the jobs (rungs x GPUs, the
 * reference again, the canaries), the scheduler's glue and the children on
 * the loop; ladder_end.c what is said after the loop and the bury, the
 * report and the GPUs compared (figures.h).
 */
#ifndef LADDER_INT_H
#define LADDER_INT_H

#include <stddef.h>
#include <uv.h>

#include "../input/config.h"
#include "../night/progress.h"
#include "../night/sched.h"
#include "../night/super.h"

/* How a job that failed (SJ_FAILED) ended, beyond its state: JE_BAD, the
 * child refused its input (exit 2): fixing it, not resuming, is what
 * helps; JE_BUSY, another process runs the rung; JE_STOPPED, the user's
 * stop signal stopped it (no failure: the same command resumes it). */
enum job_end { JE_FAILED, JE_BAD, JE_BUSY, JE_STOPPED };

struct ladder;

struct job {
    struct ladder *l;
    const struct config_rung *rung;
    enum job_end end; /* its state is l->sj's (ladder_state) */
    struct proc *proc;
    uv_pipe_t progress; /* the child's GRAVEYARD_PROGRESS_FD */
    int progress_open;
    struct progress_reader reader;
    struct progress p; /* as the run last said */
    int gpu;           /* index into gpus while running, -1 none */
    int pin;           /* --replicate: the only GPU it may run on, or -1 */
    int again;         /* the reference's second run, into RUNDIR/repeat/ */
    int canary;        /* the folder's canary: its rungs wait for it to
                          pass (cmd_canary.c) */
    long rows_here;    /* 1 once this run wrote a row: its model is
                          loaded */
    char name[80];     /* for people: the rung, "BF16 again" */
    char *run_dir;     /* owned: freed by ladder_free */
};

struct ladder {
    struct config c;
    struct super sup;     /* the loop, its signals, tick and lines */
    struct sched sched;   /* which job starts when, on which GPU */
    struct job *jobs;     /* rungs, or rungs x GPUs with --replicate */
    struct sched_job *sj; /* the same jobs, as the scheduler sees them:
                             the one place their states live */
    size_t njobs;
    size_t ngpus;
    int per_gpu; /* rungs_per_gpu: at most this many at once on one GPU */
    const char *self;
    const char *cfg_path; /* the config, as given */
    char cfg_sha256[65];  /* its sha256 when the ladder started */
    char **env;           /* ours, and the ladder's pid and progress fd */
    int quiet;
    char exec_jobs[24]; /* --exec-jobs N ("": none), --unsafe-exec: a
                           code task's, given to each rung's run */
    int unsafe_exec;
    char chunk[4096]; /* every child's progress pipe reads into it: the
                         reader copies what it takes (progress.h) */
};

/* Job j's state: pending, running, done, failed, blocked (its canary
 * failed) or other (another shard's, not --only's), as the scheduler
 * keeps it (sched.h). */
static inline enum sched_state ladder_state(const struct ladder *l,
                                            const struct job *j)
{
    return l->sj[j - l->jobs].state;
}

/* A note on stderr unless --quiet, after the live lines are taken down
 * (ladder_plan.c). */
void ladder_note(const struct ladder *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The folder of a job on GPU g (-1: the one folder), its repeat/ when
 * again, into b (emptied first; the caller releases it). 0, or -1 when
 * that path passes the path cap. */
int ladder_job_dir(struct buf *b, const struct ladder *l, int g, int again);

/* ladder_plan.c: the jobs for shard si of sn (0 or the exit status, said);
 * the children's environment; the night on the loop until no rung runs
 * (0, or EXIT_FAILED when libuv cannot start). */
int ladder_plan(struct ladder *l, const char *cfg, const char **only,
                size_t nonly, long si, long sn, int replicate);
char **ladder_child_env(void);
int ladder_run(struct ladder *l);

/* ladder_end.c: after the loop, what to say and the exit status; the bury
 * when every rung is done. again: the command to run it again. */
int ladder_end(struct ladder *l, const char *cfg, int replicate,
               const char *again);

#endif
