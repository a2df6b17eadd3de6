/*
 * runner_int.c - what the parts of a rung's run share (runner_int.h): an
 * event raised for the rung, a line said, a failure of ours as an event.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runner_int.h"

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
