/*
 * runner_int.c - what the parts of a rung's run share (runner_int.h): an
 * event raised for the rung, a line said, a failure of ours as an event,
 * a row counted and told to a ladder.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runner_int.h"
#include "../night/progress.h"

void runner_event(struct runner *r, const struct rung_event *ev)
{
    r->feed(r, ev);
}

void runner_say(struct runner *r, const char *fmt, ...)
{
    va_list ap;

    if (r->o->quiet)
        return;
    /* through the supervisor, which takes a live line down first
     * ("graveyard run RUNG: ...", its who) */
    va_start(ap, fmt);
    super_vsay(&r->sup, fmt, ap);
    va_end(ap);
}

/* The rung decides how to end (stopping the server first). */
void runner_fail(struct runner *r, int code, const char *fmt, ...)
{
    struct rung_event ev;
    char text[RUNG_TEXT];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    memset(&ev, 0, sizeof(ev));
    ev.type = EV_FAIL;
    ev.code = code;
    ev.text = text;
    runner_event(r, &ev);
}

/*
 * Tell a ladder how far this rung is: one JSON line per row on the fd it
 * names in GRAVEYARD_PROGRESS_FD (done, total, right so far, the last
 * decode speed, seconds per question in this process). A full pipe drops
 * the line: progress is never worth blocking a run for.
 */
/* How far this rung is, from its rows so far. */
void runner_progress(struct runner *r, struct progress *p)
{
    p->done = (long)r->rows;
    p->total = (long)r->qs.n;
    p->right = (long)r->right;
    p->tps = r->last_tps;
    p->sec_per_q =
        r->rows_added == 0
            ? -1
            : (double)(uv_now(&r->sup.loop) - r->asks.first_ask_ms) / 1000.0 /
                  (double)r->rows_added;
}

static void tell_ladder(struct runner *r)
{
    char line[PROGRESS_LINE];
    struct progress p;
    size_t n;

    if (r->progress_fd < 0)
        return;
    runner_progress(r, &p);
    n = progress_format(&p, line, sizeof(line));
    if (write(r->progress_fd, line, n) < 0 && errno != EAGAIN)
        r->progress_fd = -1;
}

void runner_counted(struct runner *r, int right)
{
    r->rows++;
    r->rows_added++;
    r->right += (size_t)right;
    tell_ladder(r);
    /* off a terminal, a plain line each 25 answers (the live line says it
     * on one) */
    if (!r->o->quiet && !r->live && r->rows_added % 25 == 0)
        runner_say(r, "%zu/%zu answered", r->rows, r->qs.n);
}
