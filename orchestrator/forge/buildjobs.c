/*
 * buildjobs.c - the build's step machine (buildjobs.h): each event's
 * transition, then a pass of the scheduler over the one table.
 */
#include "buildjobs.h"

#include <stdio.h>
#include <string.h>

/* The actions of one step. */
struct out {
    struct bj_action *a;
    size_t n;
};

static void act(struct out *o, enum bj_act type, size_t job, size_t src)
{
    if (o->n == BJ_MAX_ACTIONS)
        return;
    o->a[o->n].type = type;
    o->a[o->n].job = job;
    o->a[o->n].src = src;
    o->n++;
}

void buildjobs_init(struct buildjobs *j, size_t n)
{
    memset(j, 0, sizeof *j);
    j->n = n < CONFIG_MAX_RUNGS ? n : CONFIG_MAX_RUNGS;
    for (size_t i = 0; i < j->n; i++) {
        j->sj[i].state = SJ_DONE; /* not asked for */
        j->sj[i].gate = -1;
        j->sj[i].pin = -1;
        j->sj[i].need = -1;
        j->sj[i].slot = -1;
        j->sj[i].beside_max = -1;
        j->sj[i].key = -1;
    }
}

void buildjobs_set(struct buildjobs *j, size_t i, enum bj_got got)
{
    j->job[i].got = got;
    if (got == BJ_MAKE)
        j->sj[i].state = SJ_PENDING;
    else
        j->sj[i].state =
            got == BJ_HAVE && j->job[i].recheck ? SJ_OTHER : SJ_DONE;
}

void buildjobs_recheck(struct buildjobs *j, size_t i, const char *was)
{
    j->job[i].recheck = 1;
    snprintf(j->job[i].made_from, sizeof j->job[i].made_from, "%s", was);
    buildjobs_set(j, i, j->job[i].got);
}

int buildjobs_open(struct buildjobs *j, int width)
{
    return sched_init(&j->sched, j->sj, j->n, 0, 1, width);
}

/* Step i is made (hex: its new file's sha256), or will not be (NULL).
 * What is there made from it, and waited for it (recheck), is made again
 * when i came out different from what it was made from: a file
 * quantized from a BF16 that no longer exists is not the rung the config
 * says. The rest is kept, and what waited for that is settled in turn. */
static void settle(struct buildjobs *j, size_t i, const char *hex,
                   struct out *o)
{
    for (size_t k = 0; k < j->n; k++) {
        if (!j->job[k].recheck || j->sj[k].gate != (int)i)
            continue;
        j->job[k].recheck = 0;
        if (hex != NULL && strcmp(j->job[k].made_from, hex) != 0) {
            buildjobs_set(j, k, BJ_MAKE);
            act(o, BJ_AGAIN, k, i);
        } else {
            buildjobs_set(j, k, BJ_HAVE);
            settle(j, k, NULL, o);
        }
    }
}

/* What is quantized from i, pending, is not made (nor what is from
 * that); what waited to be settled against i is kept. */
static void block_dependents(struct buildjobs *j, size_t i, struct out *o)
{
    settle(j, i, NULL, o);
    for (size_t k = 0; k < j->n; k++)
        if (j->sj[k].gate == (int)i && j->sj[k].state == SJ_PENDING) {
            j->sj[k].state = SJ_BLOCKED;
            act(o, BJ_BLOCKED, k, i);
            block_dependents(j, k, o);
        }
}

static void fail(struct buildjobs *j, size_t i, struct out *o)
{
    j->sj[i].state = SJ_FAILED;
    j->sj[i].early = 0;
    act(o, BJ_REMOVE_TMP, i, i);
    block_dependents(j, i, o);
}

/* Step i enters phase ph: after a stop it fails instead (until its file
 * is in place: then it is recorded). */
static void enter(struct buildjobs *j, size_t i, enum bj_phase ph,
                  struct out *o)
{
    static const enum bj_act what[] = {[PH_SOURCE] = BJ_HASH_SOURCE,
                                       [PH_RANGE] = BJ_RANGE,
                                       [PH_TOOL] = BJ_TOOL,
                                       [PH_HASH] = BJ_CHECK,
                                       [PH_RECORD] = BJ_RECORD};

    if (ph == PH_RANGE && !j->job[i].range)
        ph = PH_TOOL;
    j->job[i].ph = ph;
    j->sj[i].early = ph == PH_SOURCE;
    if (j->stopping && ph != PH_RECORD)
        fail(j, i, o);
    else
        act(o, what[ph], i, i);
}

static void recorded(struct buildjobs *j, size_t i, const char *hex,
                     struct out *o)
{
    if (hex == NULL) {
        /* the file is whole and in place; only its record failed: what
         * is made from it waits for a build that can record it */
        j->sj[i].state = SJ_FAILED;
        block_dependents(j, i, o);
        return;
    }
    j->sj[i].state = SJ_DONE;
    settle(j, i, hex, o);
}

/* The scheduler's pass: each step it starts hashes its source. */
static void pass(struct buildjobs *j, struct out *o)
{
    struct sched_action a[CONFIG_MAX_RUNGS + 1];
    struct sched_event ev = {.type = SE_PASS};
    size_t n, k;

    if (j->stopping)
        return;
    n = sched_step(&j->sched, &ev, a, CONFIG_MAX_RUNGS + 1);
    for (k = 0; k < n; k++)
        if (a[k].type == SA_START)
            enter(j, a[k].job, PH_SOURCE, o);
}

/* The phase each event ends, and the next. */
static const struct {
    enum bj_phase from, to;
} next[] = {
    [BJ_EV_HASHED] = {PH_SOURCE, PH_RANGE},
    [BJ_EV_RANGED] = {PH_RANGE, PH_TOOL},
    [BJ_EV_TOOL] = {PH_TOOL, PH_HASH},
    [BJ_EV_CHECKED] = {PH_HASH, PH_RECORD},
};

size_t buildjobs_step(struct buildjobs *j, const struct bj_event *ev,
                      struct bj_action *out)
{
    struct out o = {out, 0};
    size_t i = ev->job, k;

    switch (ev->type) {
    case BJ_EV_BEGIN:
    case BJ_EV_PASS:
        break;
    case BJ_EV_STOP:
        j->stopping = 1;
        for (k = 0; k < j->n; k++)
            if (j->sj[k].state == SJ_RUNNING)
                act(&o, BJ_HALT, k, k);
        return o.n;
    case BJ_EV_RECORDED:
        if (i >= j->n || j->sj[i].state != SJ_RUNNING ||
            j->job[i].ph != PH_RECORD)
            return 0;
        recorded(j, i, ev->ok ? ev->hex : NULL, &o);
        break;
    default: /* a phase's end */
        if (i >= j->n || j->sj[i].state != SJ_RUNNING ||
            j->job[i].ph != next[ev->type].from)
            return 0;
        if (!ev->ok)
            fail(j, i, &o);
        else {
            enter(j, i, next[ev->type].to, &o);
            if (ev->type == BJ_EV_HASHED && ev->cached)
                return o.n;
        }
    }
    pass(j, &o);
    return o.n;
}
