/*
 * rung.c - a rung's fault rules, as transitions.
 *
 * The rules (docs/run.md): a server that dies on a question, or hangs on
 * it, is stopped if need be, started again and asked again; after
 * RUNG_MAX_DEATHS times the question is an error row named by what
 * happened, and the next question goes to a new server. A server that is
 * alive and sends what cannot be taken (an HTTP error, an error event, a
 * stream that is not a chat stream, a reply too long for a row, no whole
 * answer by the deadline, a connection it cut while staying up) gives an
 * error row at once and keeps serving. RUNG_MAX_STREAK questions in a row
 * with a fault stop the rung; so does a server that cannot start. Every
 * end stops the server first.
 */
#include "rung.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The actions of one step. */
struct out {
    struct rung_action *a;
    size_t n;
};

/* A row for the question asked: it carries the attempts made, since the
 * same step may already have moved on to the next question. */
static struct rung_action *row(struct rung *r, struct out *o,
                               enum rung_act type);

static struct rung_action *act(struct out *o, enum rung_act type, size_t q)
{
    struct rung_action *a;

    /* a step gives at most three (an error row, a line and a start);
     * more would be a bug here, never an input's doing */
    if (o->n == RUNG_MAX_ACTIONS)
        abort();
    a = &o->a[o->n++];

    memset(a, 0, sizeof(*a));
    a->type = type;
    a->question = q;
    return a;
}

static struct rung_action *row(struct rung *r, struct out *o,
                               enum rung_act type)
{
    struct rung_action *a = act(o, type, r->next);

    a->attempts = r->attempts;
    return a;
}

static void say(struct out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(struct out *o, const char *fmt, ...)
{
    struct rung_action *a = act(o, A_SAY, 0);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(a->text, sizeof(a->text), fmt, ap);
    va_end(ap);
}

void rung_init(struct rung *r, size_t nq, const uint8_t *had,
               const char *const *ids, long idle_s, long deadline_s)
{
    memset(r, 0, sizeof(*r));
    r->nq = nq;
    r->had = had;
    r->ids = ids;
    r->current = (size_t)-1;
    r->fault = "died";
    r->idle_s = idle_s;
    r->deadline_s = deadline_s;
}

/* The end, now that no server is up. */
static void end_now(struct rung *r, struct out *o)
{
    struct rung_action *a = act(o, A_FINISH, 0);

    r->state = RS_DONE;
    a->code = r->code;
    snprintf(a->text, sizeof(a->text), "%s", r->why);
}

/* End with code: the server, if up, is stopped first, and the end comes
 * with its exit. The first failure's code and message are kept. */
static void finish(struct rung *r, struct out *o, int code, const char *fmt,
                   ...) __attribute__((format(printf, 4, 5)));
static void finish(struct rung *r, struct out *o, int code, const char *fmt,
                   ...)
{
    va_list ap;

    if (r->state == RS_DONE)
        return;
    if (r->state == RS_STOPPING) {
        if (code != 0 && r->code == 0)
            r->code = code;
        return;
    }
    r->code = code;
    r->why[0] = '\0';
    if (fmt != NULL) {
        va_start(ap, fmt);
        vsnprintf(r->why, sizeof(r->why), fmt, ap);
        va_end(ap);
    }
    if (r->server_up) {
        r->state = RS_STOPPING;
        act(o, A_STOP_SERVER, 0);
        return;
    }
    end_now(r, o);
}

static void start(struct rung *r, struct out *o)
{
    r->state = RS_STARTING;
    r->server_up = 1;
    r->restart = r->waiting_exit = 0;
    r->started++;
    act(o, A_START_SERVER, 0);
}

/* Take up the next question the rows file does not hold (a new attempt
 * at it); 0 when every question has its row. */
static int take_next(struct rung *r)
{
    while (r->next < r->nq && r->had != NULL && r->had[r->next])
        r->next++;
    if (r->next == r->nq)
        return 0;
    /* a new question starts its count; after a restart the same one goes
     * on with its attempts */
    if (r->next != r->current) {
        r->current = r->next;
        r->attempts = 0;
        r->died_here = 0;
    }
    r->attempts++;
    r->state = RS_ASKING;
    return 1;
}

/* Ask the next question, or finish. */
static void next_question(struct rung *r, struct out *o)
{
    if (take_next(r))
        act(o, A_ASK, r->next);
    else
        finish(r, o, 0, NULL);
}

/* The question got its row (an answer, or an error): the next one. */
static void done_with(struct rung *r, struct out *o)
{
    if (!r->died_here)
        r->streak = 0;
    r->next++;
    next_question(r, o);
}

/* A fault on the current question: counted once per question in the
 * streak. Returns 1 when the streak ends the rung. */
static int fault_here(struct rung *r, struct out *o, const char *what)
{
    if (r->died_here)
        return 0;
    r->died_here = 1;
    if (++r->streak < RUNG_MAX_STREAK)
        return 0;
    finish(r, o, 1,
           "the %s on %d questions in a row, the last '%.200s'%s%.500s", what,
           RUNG_MAX_STREAK, r->ids[r->next], r->last[0] ? ": " : "", r->last);
    return 1;
}

/* The server is gone, having died or hung on the current question: a new
 * one and the same question, or after RUNG_MAX_DEATHS an error row. */
static void server_gone(struct rung *r, struct out *o)
{
    int hung = strcmp(r->fault, "hung") == 0;
    struct rung_action *a;

    r->waiting_exit = r->restart = 0;
    if (fault_here(r, o, hung ? "server hung" : "server died"))
        return;
    if (r->attempts >= RUNG_MAX_DEATHS) {
        a = row(r, o, A_ERROR_ROW);
        a->kind = r->fault;
        if (hung)
            snprintf(a->text, sizeof(a->text),
                     "no token from the server for %ld s, %d times (it was "
                     "restarted each time); its last log line: %.600s",
                     r->idle_s, RUNG_MAX_DEATHS, r->last);
        else
            snprintf(a->text, sizeof(a->text),
                     "the server died %d times on this question; its last "
                     "log line: %.600s",
                     RUNG_MAX_DEATHS, r->last);
        say(o, "%.200s: %.680s", r->ids[r->next], a->text);
        r->next++;
    } else {
        say(o, "the server %s on %.200s (attempt %d): %.500s; restarting",
            hung ? "hung" : "died", r->ids[r->next], r->attempts, r->last);
    }
    start(r, o);
}

static void exited(struct rung *r, const struct rung_event *ev, struct out *o)
{
    r->server_up = 0;
    if (ev->text != NULL)
        snprintf(r->last, sizeof(r->last), "%s", ev->text);
    switch (r->state) {
    case RS_STOPPING:
        end_now(r, o);
        return;
    case RS_STARTING:
        if (ev->port_taken && ++r->port_tries < RUNG_PORT_TRIES) {
            say(o, "port %d is taken; trying another", ev->port);
            start(r, o);
            return;
        }
        finish(r, o, 1,
               "the server exited (status %lld, signal %d) before it was "
               "ready; its last log line: %s",
               ev->status, ev->sig, r->last);
        return;
    case RS_PROBING:
        /* it died while its memory was read: a death on the next
         * question, which would find no server */
        r->fault = "died";
        if (take_next(r))
            server_gone(r, o);
        else
            finish(r, o, 0, NULL);
        return;
    case RS_ASKING:
        if (r->restart || r->waiting_exit)
            server_gone(r, o);
        /* else the request in flight breaks, and EV_BROKE says so */
        return;
    case RS_IDLE:
    case RS_DONE:
        return;
    }
}

/* The request for the question asked is over: an answer, a refusal (an
 * error row, the server kept), or a fault that may restart the server. */
static void request_over(struct rung *r, const struct rung_event *ev,
                         struct out *o)
{
    struct rung_action *a;

    switch (ev->type) {
    case EV_ANSWER:
        row(r, o, A_ANSWER_ROW);
        done_with(r, o);
        return;
    case EV_DEADLINE:
        a = row(r, o, A_ERROR_ROW);
        a->kind = "deadline";
        snprintf(a->text, sizeof(a->text),
                 "no whole answer within the request's deadline of %ld s",
                 r->deadline_s);
        done_with(r, o);
        return;
    case EV_REFUSED:
        a = row(r, o, A_ERROR_ROW);
        a->kind = ev->kind;
        snprintf(a->text, sizeof(a->text), "%s", ev->text ? ev->text : "");
        done_with(r, o);
        return;
    case EV_IDLE:
        /* stuck: stopped, then asked again on a new server */
        r->fault = "hung";
        if (!r->server_up) {
            server_gone(r, o);
            return;
        }
        r->restart = 1;
        act(o, A_STOP_SERVER, 0);
        return;
    default:
        /* EV_BROKE: a server that died breaks the connection: retry once
         * it is gone; one still up a moment later cut it, and is kept */
        r->fault = "died";
        if (!r->server_up) {
            server_gone(r, o);
            return;
        }
        r->waiting_exit = 1;
        act(o, A_WAIT_EXIT, r->next);
        return;
    }
}

/* A broken stream, and the server is still up a moment later: it cut
 * the answer, and it is kept. */
static void stayed_up(struct rung *r, struct out *o)
{
    struct rung_action *a;

    r->waiting_exit = 0;
    if (fault_here(r, o, "stream broke off"))
        return;
    a = row(r, o, A_ERROR_ROW);
    a->kind = "cut";
    snprintf(a->text, sizeof(a->text),
             "the stream broke off before the answer ended, and the server "
             "stayed up");
    done_with(r, o);
}

size_t rung_step(struct rung *r, const struct rung_event *ev,
                 struct rung_action *out)
{
    struct out o = {out, 0};

    switch (ev->type) {
    case EV_BEGIN:
        /* every question has its row already (the summary was not
         * written): no server is needed to finish */
        if (r->state == RS_IDLE && take_next(r)) {
            r->state = RS_IDLE;
            r->attempts = 0;
            r->current = (size_t)-1;
            start(r, &o);
        } else if (r->state == RS_IDLE) {
            finish(r, &o, 0, NULL);
        }
        break;
    case EV_HEALTHY:
        if (r->state != RS_STARTING)
            break;
        if (r->started == 1) {
            r->state = RS_PROBING;
            act(&o, A_PROBE_LOADED, 0);
        } else {
            next_question(r, &o);
        }
        break;
    case EV_PROBED:
        if (r->state == RS_PROBING)
            next_question(r, &o);
        break;
    case EV_NOT_READY:
        if (r->state == RS_STARTING)
            finish(r, &o, 1,
                   "the server was not ready after %ld s; its last log "
                   "line: %.600s",
                   ev->seconds, ev->text ? ev->text : "");
        break;
    case EV_EXITED:
        exited(r, ev, &o);
        break;
    case EV_ANSWER:
    case EV_REFUSED:
    case EV_DEADLINE:
    case EV_IDLE:
    case EV_BROKE:
        if (r->state == RS_ASKING && ev->question == r->next)
            request_over(r, ev, &o);
        break;
    case EV_EXIT_WAIT_OVER:
        if (r->state == RS_ASKING && r->waiting_exit && r->server_up)
            stayed_up(r, &o);
        break;
    case EV_STOP:
    case EV_FAIL:
        if (ev->no_server)
            r->server_up = 0;
        finish(r, &o, ev->code, "%s", ev->text ? ev->text : "");
        break;
    }
    return o.n;
}
