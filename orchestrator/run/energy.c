/*
 * energy.c - the GPU's power read once a second while the rung answers
 * (runner_int.h): nvidia-smi asked as a child of the loop, never waited
 * for (a reading that is still out when the next second comes skips that
 * second, and one past GPU_POWER_MS is killed), each reading a line of
 * rows/<RUNG>.power (rundir/power.h), appended in batches and synced when
 * the rung stops answering. The grader integrates the file to joules.
 * Without nvidia-smi nothing is asked again and no file is made.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../night/gpu.h"
#include "runner_int.h"

/* A batch of readings, or the segment's end (synced), written. */
static void flush(struct runner *r, int sync)
{
    struct sampling *s = &r->power;
    char msg[4400];

    if (s->file.capped && !s->said_cap) {
        s->said_cap = 1;
        runner_say(r, "power samples past %u MiB; the rest not kept",
                   RUNDIR_POWER_CAP >> 20);
    }
    if (power_file_flush(&s->file, sync, msg, sizeof(msg)) != 0 &&
        !s->said_write) {
        s->said_write = 1; /* the energy is lost, the answers are not */
        runner_say(r, "%s; power not recorded", msg);
    }
}

/* The segment's e line, and the file synced. */
static void segment_done(struct runner *r)
{
    struct sampling *s = &r->power;

    s->ending = 0;
    power_file_end(&s->file, s->end_ms);
    flush(r, 1);
}

static void reading(void *ctx, long long status, int sig)
{
    struct runner *r = ctx;
    struct sampling *s = &r->power;
    double watts;

    /* a reading asked in the segment counts though it comes after the
     * segment's end (a short rung may end before the first one is back):
     * the e line waited for it */
    if (status == 0 && sig == 0 && (s->on || s->ending) &&
        s->asked_seg == s->seg &&
        gpu_power_parse(proc_output(s->smi, NULL), &watts) == 0) {
        power_file_reading(&s->file, s->asked_at - s->seg_start, watts);
        if (power_file_due(&s->file))
            flush(r, 0);
    } else if (proc_timed_out(s->smi) && !s->said_slow) {
        s->said_slow = 1;
        runner_say(r,
                   "nvidia-smi did not say the power draw in %.1f s; those "
                   "seconds are not sampled",
                   GPU_POWER_MS / 1000.0);
    }
    proc_free(s->smi);
    s->smi = NULL;
    if (s->ending)
        segment_done(r);
}

static void tick(uv_timer_t *t)
{
    struct runner *r = t->data;
    struct sampling *s = &r->power;
    const char *argv[6];
    struct proc_opts po;
    char msg[256];

    if (s->smi != NULL)
        return; /* the last one is still out: this second goes unread */
    gpu_power_argv(r->o->gpu, argv);
    gpu_probe_opts(&po, argv, 4096, GPU_POWER_MS);
    s->asked_at = uv_now(&r->sup.loop);
    s->asked_seg = s->seg;
    s->smi = proc_start(&r->sup.loop, &po, reading, r, msg, sizeof(msg));
    if (s->smi == NULL) {
        s->off = 1; /* no nvidia-smi: not asked again, no file */
        uv_timer_stop(&s->tick);
    }
}

void energy_init(struct runner *r)
{
    struct sampling *s = &r->power;

    uv_timer_init(&r->sup.loop, &s->tick);
    s->tick.data = r;
    s->open = 1;
    /* the path was checked with the rest of the folder's */
    if (power_file_init(&s->file, r->o->rundir, r->o->rung) != 0)
        s->off = 1;
}

void energy_begin(struct runner *r)
{
    struct sampling *s = &r->power;
    struct timespec ts;

    if (!s->open || s->on || s->off)
        return;
    if (s->ending)
        segment_done(r); /* the last one's reading is not waited for */
    s->seg++;
    s->on = 1;
    s->seg_start = uv_now(&r->sup.loop);
    clock_gettime(CLOCK_REALTIME, &ts);
    power_file_begin(&s->file,
                     (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
    uv_timer_start(&s->tick, tick, 0, GPU_POWER_EVERY_MS);
}

void energy_end(struct runner *r)
{
    struct sampling *s = &r->power;

    if (!s->on)
        return;
    s->on = 0;
    uv_timer_stop(&s->tick);
    s->end_ms = uv_now(&r->sup.loop) - s->seg_start;
    if (s->smi != NULL && s->asked_seg == s->seg)
        s->ending = 1; /* its reading is still out: the e line waits */
    else
        segment_done(r);
}

void energy_close(struct runner *r)
{
    struct sampling *s = &r->power;

    if (!s->open)
        return;
    energy_end(r);
    if (s->smi != NULL) {
        proc_free(s->smi); /* killed if it still runs */
        s->smi = NULL;
    }
    if (s->ending)
        segment_done(r);
    if (!uv_is_closing((uv_handle_t *)&s->tick))
        uv_close((uv_handle_t *)&s->tick, NULL);
}

void energy_release(struct runner *r)
{
    power_file_release(&r->power.file);
}
