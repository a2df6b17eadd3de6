/*
 * sched.c - the scheduler's rules (sched.h), as one pass over the jobs
 * after each event.
 */
#include "sched.h"

#include <string.h>

/* The actions of one step. */
struct out {
    struct sched_action *a;
    size_t n, max;
};

static void act(struct out *o, enum sched_act type, size_t job, int slot)
{
    if (o->n == o->max)
        return;
    o->a[o->n].type = type;
    o->a[o->n].job = job;
    o->a[o->n].slot = slot;
    o->n++;
}

int sched_init(struct sched *s, struct sched_job *jobs, size_t njobs,
               size_t nslots, int per_slot, int width)
{
    if (nslots > SCHED_MAX_SLOTS)
        return -1;
    memset(s, 0, sizeof(*s));
    s->jobs = jobs;
    s->njobs = njobs;
    s->nslots = nslots;
    s->per_slot = per_slot < 1 ? 1 : per_slot;
    s->width = width < 1 ? 1 : width;
    for (size_t i = 0; i < nslots; i++)
        s->slots[i].free_mib = -1;
    for (size_t i = 0; i < njobs; i++) {
        jobs[i].slot = -1;
        jobs[i].loaded = 0;
        jobs[i].early = 0;
    }
    return 0;
}

size_t sched_running(const struct sched *s)
{
    size_t n = 0;

    for (size_t i = 0; i < s->njobs; i++)
        n += s->jobs[i].state == SJ_RUNNING;
    return n;
}

/* Whether j's need fits slot g's free memory: unknown need, yes; else the
 * answer of this pass, or a question asked (and j waits). A margin of a
 * tenth or 512 MiB, whichever is more. */
static int fits(struct sched *s, const struct sched_job *j, size_t g,
                struct out *o)
{
    struct sched_slot *sl = &s->slots[g];
    long long margin = j->need / 10 > 512 ? j->need / 10 : 512;

    if (j->need < 0)
        return 1;
    if (sl->fresh)
        return sl->free_mib < 0 || (long long)sl->free_mib >= j->need + margin;
    if (!sl->probing) {
        sl->probing = 1;
        act(o, SA_PROBE, 0, (int)g);
    }
    return 0;
}

/* Whether j may start on slot g now. */
static int room(struct sched *s, const struct sched_job *j, size_t g,
                struct out *o)
{
    int n = s->slots[g].busy;

    if (n >= s->per_slot || (j->beside_max >= 0 && n > j->beside_max))
        return 0;
    if (n == 0)
        return 1;
    /* beside others only once each has its model loaded: until then the
     * free memory says nothing of what they take, and two models loading
     * at once is the likeliest way not to fit */
    for (size_t i = 0; i < s->njobs; i++)
        if (s->jobs[i].state == SJ_RUNNING && s->jobs[i].slot == (int)g &&
            !s->jobs[i].loaded)
            return 0;
    return fits(s, j, g, o);
}

static void start(struct sched *s, size_t k, int g, struct out *o)
{
    struct sched_job *j = &s->jobs[k];

    j->state = SJ_RUNNING;
    j->slot = g;
    j->loaded = 0;
    j->early = 1;
    j->beside = g >= 0 ? s->slots[g].busy : 0;
    if (g >= 0)
        s->slots[g].busy++;
    act(o, SA_START, k, g);
}

/* The slot job j goes on now, -1 none (it waits); -2: no slots, go. */
static int place(struct sched *s, const struct sched_job *j, struct out *o)
{
    size_t g, best;

    if (s->nslots == 0)
        return sched_running(s) < (size_t)s->width ? -2 : -1;
    if (j->pin >= 0)
        return (size_t)j->pin < s->nslots && room(s, j, (size_t)j->pin, o)
                   ? j->pin
                   : -1;
    /* the slot with the fewest jobs that has room */
    for (g = 0, best = s->nslots; g < s->nslots; g++)
        if (room(s, j, g, o) &&
            (best == s->nslots || s->slots[g].busy < s->slots[best].busy))
            best = g;
    return best < s->nslots ? (int)best : -1;
}

/* Whether another job of j's key is early. */
static int key_busy(const struct sched *s, const struct sched_job *j)
{
    for (size_t i = 0; i < s->njobs && j->key >= 0; i++)
        if (&s->jobs[i] != j && s->jobs[i].state == SJ_RUNNING &&
            s->jobs[i].early && s->jobs[i].key == j->key)
            return 1;
    return 0;
}

/* Each pending job whose gate is done, first-marked ones first, to a
 * slot with room. */
static void pass(struct sched *s, struct out *o)
{
    size_t k, g;

    if (s->stopping)
        return;
    for (k = 0; k < 2 * s->njobs; k++) {
        struct sched_job *j = &s->jobs[k % s->njobs];
        int at;
        if (j->state != SJ_PENDING || (k < s->njobs) != (j->first != 0) ||
            (j->gate >= 0 && s->jobs[j->gate].state != SJ_DONE) ||
            key_busy(s, j))
            continue;
        at = place(s, j, o);
        if (at != -1)
            start(s, k % s->njobs, at == -2 ? -1 : at, o);
    }
    /* an answer serves one pass: the next is weighed against a new one */
    for (g = 0; g < s->nslots; g++)
        s->slots[g].fresh = 0;
}

/* Jobs gated on k, which did not end done, never start (nor theirs). */
static void block_gated(struct sched *s, size_t k)
{
    for (size_t i = 0; i < s->njobs; i++)
        if (s->jobs[i].gate == (int)k && s->jobs[i].state == SJ_PENDING) {
            s->jobs[i].state = SJ_BLOCKED;
            block_gated(s, i);
        }
}

static void exited(struct sched *s, size_t k, enum sched_outcome how,
                   struct out *o)
{
    struct sched_job *j = &s->jobs[k];
    int g = j->slot;

    if (j->state != SJ_RUNNING)
        return;
    if (g >= 0) {
        s->slots[g].busy--;
        /* the others on its slot when it failed to load, as many as
         * there */
        if (s->slots[g].busy > j->beside)
            j->beside = s->slots[g].busy;
    }
    j->slot = -1;
    j->loaded = 0;
    j->early = 0;
    if (how == SO_DONE)
        j->state = SJ_DONE;
    else if (how == SO_NOMEM && g >= 0 && j->beside > 0) {
        j->state = SJ_PENDING; /* it did not fit beside the others */
        j->beside_max = j->beside - 1;
        act(o, SA_WAITING, k, g);
    } else {
        j->state = SJ_FAILED;
        block_gated(s, k);
    }
}

size_t sched_step(struct sched *s, const struct sched_event *ev,
                  struct sched_action *out, size_t max)
{
    struct out o = {out, 0, max};

    switch (ev->type) {
    case SE_BEGIN:
    case SE_PASS:
        break;
    case SE_LOADED:
        if (ev->job >= s->njobs || s->jobs[ev->job].state != SJ_RUNNING ||
            s->jobs[ev->job].loaded)
            return 0;
        s->jobs[ev->job].loaded = 1;
        break;
    case SE_EXITED:
        if (ev->job >= s->njobs)
            return 0;
        exited(s, ev->job, ev->outcome, &o);
        break;
    case SE_PROBED:
        if (ev->slot >= s->nslots)
            return 0;
        s->slots[ev->slot].probing = 0;
        s->slots[ev->slot].fresh = 1;
        s->slots[ev->slot].free_mib = ev->free_mib;
        break;
    case SE_STOP:
        s->stopping = 1;
        return 0;
    }
    pass(s, &o);
    return o.n;
}
