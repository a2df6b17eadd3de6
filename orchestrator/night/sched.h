/*
 * sched.h - which job starts when, and where: one pure scheduler, events
 * in, actions out, for the ladder's rungs on GPUs and the build's steps.
 * No libuv, no clock, no file, no nvidia-smi: the supervisor (super.h)
 * and its command turn what happens on the loop (a child's exit, its
 * first row, nvidia-smi's answer, a stop signal) into events, call
 * sched_step, and carry out the actions it returns (start job J on slot
 * S, ask slot S's free memory). tests/unit/test_night_sched.c replays
 * event sequences against it.
 *
 * A job waits for its gate (another job that must end done first: the
 * folder's canary before its rungs, the source rung before what is made
 * from it); a job whose gate failed is blocked. Jobs marked first (the
 * canaries) are weighed before the others; otherwise in their order.
 *
 * Slots are GPUs. Without slots, up to `width` jobs run at once (the
 * ladder without GPUs: 1; the build: --jobs). With slots, an idle slot
 * takes the next job; with every slot busy, the slot with the fewest jobs
 * takes one more, up to per_slot (rungs_per_gpu), and beside others only
 * when every job there is loaded (has written a row) and the job's
 * recorded need (the GPU memory it took when it last ran) fits the
 * slot's free memory: an unknown need fits; a known one asks for the
 * free memory (SA_PROBE) and waits for its answer (SE_PROBED), which
 * serves the one pass it starts. A job that exits for memory (SO_NOMEM)
 * beside others waits and starts again only beside fewer.
 *
 * Jobs of one key (the build: one source file) never start while another
 * of that key is early (hashing it): it is hashed once, and the others
 * then read its hash from the sha cache.
 *
 * The caller's array is the one place its jobs' states live: the ladder
 * reads them there (ladder_int.h), and keeps beside them only how a
 * failed rung ended. A caller whose jobs end otherwise than by SE_EXITED
 * (the build, whose step machine is buildjobs.h) writes their states and
 * early there itself, where they change, and asks for a pass (SE_PASS);
 * gates and keys are set once, before sched_init.
 */
#ifndef SCHED_H
#define SCHED_H

#include <stddef.h>

#define SCHED_MAX_SLOTS 64 /* CONFIG_MAX_GPUS */

enum sched_state {
    SJ_PENDING,
    SJ_RUNNING,
    SJ_DONE,
    SJ_FAILED,  /* it ended otherwise */
    SJ_BLOCKED, /* its gate failed: it never starts */
    SJ_OTHER    /* not this process's to run (another shard, --only) */
};

struct sched_job {
    enum sched_state state;
    int first;      /* weighed before the others (a canary) */
    int gate;       /* the job that must be SJ_DONE first, or -1 */
    int pin;        /* the one slot it may run on, or -1 */
    long long need; /* memory it took when it last ran (MiB), -1 unknown */
    int slot;       /* while running: its slot, or -1 */
    int loaded;     /* running and loaded (a row written) */
    int beside;     /* jobs on its slot when it started (or more, when
                       it ended beside more) */
    int beside_max; /* after it did not fit: starts beside at most this
                       many (-1: any) */
    int key;        /* -1, or: not while another of this key is early */
    int early;      /* running, in its first phase */
};

struct sched_slot {
    int busy;      /* jobs running on it */
    int probing;   /* its free memory is being asked */
    int fresh;     /* answered since the last pass */
    long free_mib; /* the answer, -1 unknown */
};

struct sched {
    struct sched_job *jobs; /* the caller's array */
    size_t njobs;
    size_t nslots; /* 0: no slots, `width` at once */
    int width;
    int per_slot; /* jobs at once on one slot */
    int stopping;
    struct sched_slot slots[SCHED_MAX_SLOTS];
};

enum sched_ev {
    SE_BEGIN,  /* the loop runs: a first pass */
    SE_LOADED, /* job: its first row (its model is loaded) */
    SE_EXITED, /* job ended: outcome */
    SE_PROBED, /* slot: free memory free_mib (-1: no answer) */
    SE_STOP,   /* a stop signal: nothing starts any more */
    SE_PASS,   /* something the caller weighs changed: a pass */
};

enum sched_outcome {
    SO_DONE,
    SO_FAILED,
    SO_NOMEM, /* it did not fit in memory */
};

struct sched_event {
    enum sched_ev type;
    size_t job;
    size_t slot;
    enum sched_outcome outcome;
    long free_mib;
};

enum sched_act {
    SA_START,   /* start job on slot (-1: none) */
    SA_PROBE,   /* ask slot's free memory */
    SA_WAITING, /* job did not fit beside `beside` others: it waits */
};

struct sched_action {
    enum sched_act type;
    size_t job;
    int slot;
};

/* Jobs as given (pending or other; slot -1, beside_max -1); slots idle.
 * Returns 0, or -1 when nslots is over SCHED_MAX_SLOTS. */
int sched_init(struct sched *s, struct sched_job *jobs, size_t njobs,
               size_t nslots, int per_slot, int width);

/* One event: the actions it leads to, at most max into out (every job's
 * start fits when max >= njobs + nslots + 1). Returns how many. */
size_t sched_step(struct sched *s, const struct sched_event *ev,
                  struct sched_action *out, size_t max);

/* Jobs running now. */
size_t sched_running(const struct sched *s);

#endif
