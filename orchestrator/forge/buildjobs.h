/*
 * buildjobs.h - the life of graveyard build's steps as one state machine:
 * events in, actions out. No libuv, no file, no tool, no clock:
 * buildstep.c turns what happens on the loop (a hash's end, f16-range's,
 * the tool's exit, the output checked, the record written, a stop
 * signal) into events, calls buildjobs_step, and carries out the actions
 * it returns (hash a step's source, run f16-range, start the tool, check
 * its output, record it, say that a step is blocked or made again).
 * tests/unit/test_forge_build.c replays event sequences against it.
 *
 * The scheduler's table (sched.h, sj[]) is the one place a step's state
 * lives: pending, running, done, failed, blocked, or other (there, and
 * waiting to be settled). Its gate (the rung it is quantized from) and
 * key (the file it reads: steps of one source hash it once) are set once
 * by the plan; early is written where a step leaves its source hash; the
 * states where a step ends, is blocked or is settled, before each pass.
 * What is not scheduling stays on the step (struct bj_job): what the
 * plan found (not asked for, there, to make), its phase, whether it is
 * an F16 conversion (f16-range first), and whether it waits to be
 * settled (recheck).
 *
 * A step goes: its source hashed (BJ_HASH_SOURCE, then BJ_EV_HASHED) ->
 * for an F16 conversion, f16-range (BJ_RANGE, BJ_EV_RANGED) -> the tool
 * (BJ_TOOL, BJ_EV_TOOL) -> its output checked and hashed (BJ_CHECK,
 * BJ_EV_CHECKED) -> recorded (BJ_RECORD, BJ_EV_RECORDED): done. An event
 * that says it did not go fails the step (BJ_REMOVE_TMP; a record that
 * failed leaves the file in place), and what is quantized from it,
 * pending, is blocked (BJ_BLOCKED), down the chain. After a stop, a step
 * fails at its next phase, but one whose file is in place is recorded.
 * A step made settles what is there made from it and waited (recheck):
 * made again when it came out different (BJ_AGAIN), else kept.
 */
#ifndef BUILDJOBS_H
#define BUILDJOBS_H

#include <stddef.h>

#include "../input/config.h"
#include "../night/sched.h"

/* What the plan found for a rung's file. */
enum bj_got {
    BJ_SKIP, /* not asked for */
    BJ_HAVE, /* there: used as is (pending again when made again) */
    BJ_MAKE, /* to make */
};

enum bj_phase { PH_SOURCE, PH_RANGE, PH_TOOL, PH_HASH, PH_RECORD };

struct bj_job {
    enum bj_got got;
    enum bj_phase ph;
    int range;   /* an F16 conversion: f16-range on the checkpoint first */
    int recheck; /* there, made from a rung this build makes first: made
                    again if that comes out different (settled) */
    char made_from[65]; /* with recheck: the sha256 of the file it was
                           made from, as its record says */
};

struct buildjobs {
    struct sched sched;
    struct sched_job sj[CONFIG_MAX_RUNGS]; /* the one table of states */
    struct bj_job job[CONFIG_MAX_RUNGS];
    size_t n;
    int stopping;
};

enum bj_ev {
    BJ_EV_BEGIN,    /* the loop runs: a first pass */
    BJ_EV_HASHED,   /* job: its source's sha256 is known, or not (ok 0) */
    BJ_EV_RANGED,   /* job: f16-range ended */
    BJ_EV_TOOL,     /* job: the tool exited 0 (ok), or did not start, was
                       stopped or failed (ok 0) */
    BJ_EV_CHECKED,  /* job: its output is a GGUF, renamed and hashed */
    BJ_EV_RECORDED, /* job: recorded (ok) with its file's sha256 hex */
    BJ_EV_STOP,     /* a stop signal: nothing starts any more */
    BJ_EV_PASS,     /* steps were started and their actions carried
                       out: a pass again */
};

struct bj_event {
    enum bj_ev type;
    size_t job;
    int ok;
    int cached;      /* BJ_EV_HASHED: read from the sha cache as the
                        step started: no pass (BJ_EV_PASS follows) */
    const char *hex; /* BJ_EV_RECORDED: the new file's sha256 */
};

enum bj_act {
    BJ_HASH_SOURCE, /* job started: hash its source (BJ_EV_HASHED) */
    BJ_RANGE,       /* job: f16-range on the checkpoint (BJ_EV_RANGED) */
    BJ_TOOL,        /* job: start the tool (BJ_EV_TOOL) */
    BJ_CHECK,       /* job: check, sync, rename, hash (BJ_EV_CHECKED) */
    BJ_RECORD,      /* job: record it (BJ_EV_RECORDED) */
    BJ_REMOVE_TMP,  /* job failed: remove what its tool left */
    BJ_BLOCKED,     /* job is not made: its source `src` was not */
    BJ_AGAIN,       /* job, there, was made from src before: made again */
    BJ_HALT,        /* job runs: stop its tool or its hash (a stop) */
};

struct bj_action {
    enum bj_act type;
    size_t job;
    size_t src;
};

/* Every step's action fits, and their blocks and settles. */
#define BJ_MAX_ACTIONS (3 * CONFIG_MAX_RUNGS + 1)

/* n steps, each not asked for (BJ_SKIP, done), no gate, no key. */
void buildjobs_init(struct buildjobs *j, size_t n);

/* Step i's plan (a plan's change, before the loop, or a settle):
 * pending when to make; done when not asked for or there, other while it
 * waits to be settled (recheck). */
void buildjobs_set(struct buildjobs *j, size_t i, enum bj_got got);

/* Step i waits to be settled: made from sha256 was (64 hex). */
void buildjobs_recheck(struct buildjobs *j, size_t i, const char *was);

/* The loop's scheduler: up to width steps at once. 0, or -1. */
int buildjobs_open(struct buildjobs *j, int width);

/* One event: the actions it leads to, in order, into out (BJ_MAX_ACTIONS
 * of room). Returns how many. An action that cannot be carried out is
 * the event of its phase with ok 0. After carrying out actions that
 * started steps (BJ_HASH_SOURCE), the caller sends BJ_EV_PASS: one whose
 * source hash came from the cache at once (cached) lets the next of its
 * source go then, after the others started with it have begun. */
size_t buildjobs_step(struct buildjobs *j, const struct bj_event *ev,
                      struct bj_action *out);

#endif
