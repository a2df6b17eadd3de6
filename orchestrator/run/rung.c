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
 * error row at once and keeps serving; a connection cut before the first
 * byte of the reply is asked again on a new one first, RUNG_FRESH_TRIES
 * times (a kept-alive connection the server had just closed).
 * RUNG_MAX_STREAK questions in a row with a fault stop the rung; so does a
 * server that cannot start. Every end stops the server first.
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

static struct rung_action *act(struct out *o, enum rung_act type, size_t q)
{
    struct rung_action *a;

    /* a step gives at most two a flight and a few more; more would be a
     * bug here, never an input's doing */
    if (o->n == RUNG_MAX_ACTIONS)
        abort();
    a = &o->a[o->n++];

    memset(a, 0, sizeof(*a));
    a->type = type;
    a->question = q;
    return a;
}

/* A row for flight f's question: it carries the attempts made, since the
 * same step may already have moved the flight on to the next question. */
static struct rung_action *row(struct rung_flight *f, struct out *o,
                               enum rung_act type)
{
    struct rung_action *a = act(o, type, f->q);

    a->attempts = f->attempts;
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
               const char *const *ids, size_t width, long idle_s,
               long deadline_s)
{
    memset(r, 0, sizeof(*r));
    r->nq = nq;
    r->had = had;
    r->ids = ids;
    r->width = width < 1 ? 1 : width > RUNG_MAX_WIDTH ? RUNG_MAX_WIDTH : width;
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
 * with its exit. The first failure's code and message are kept.
 *
 * Once ending, a failure or a signal asks for the stop (or the finish)
 * again: it may come from the very step that asked for it, cut short
 * when an action before it failed (the last row, written before the
 * stop), and then nothing else would ever stop the server. A stop asked
 * twice is one (proc_stop), and a finish carried out ends the loop, so
 * no event reaches a rung whose finish was. */
static void finish(struct rung *r, struct out *o, int code, const char *fmt,
                   ...) __attribute__((format(printf, 4, 5)));
static void finish(struct rung *r, struct out *o, int code, const char *fmt,
                   ...)
{
    va_list ap;
    int again = r->state == RS_STOPPING || r->state == RS_DONE;

    if (again && (code == 0 || r->code != 0)) {
        /* the first failure's code and message stand */
    } else {
        r->code = code;
        r->why[0] = '\0';
        if (fmt != NULL) {
            va_start(ap, fmt);
            vsnprintf(r->why, sizeof(r->why), fmt, ap);
            va_end(ap);
        }
    }
    if (r->state == RS_DONE) {
        end_now(r, o);
        return;
    }
    if (r->state == RS_STOPPING) {
        act(o, A_STOP_SERVER, 0);
        return;
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

/* Flight f takes the next question the rows file does not hold; 0 when
 * every question is taken. */
static int take(struct rung *r, struct rung_flight *f)
{
    while (r->cursor < r->nq && r->had != NULL && r->had[r->cursor])
        r->cursor++;
    if (r->cursor == r->nq)
        return 0;
    f->q = r->cursor++;
    f->attempts = 0;
    f->died_here = 0;
    f->lost = f->fresh = f->ask_fresh = 0;
    f->state = FL_HELD;
    return 1;
}

/* How many flights are in state st. */
static size_t count(const struct rung *r, enum flight_state st)
{
    size_t i, n = 0;

    for (i = 0; i < r->width; i++)
        n += r->fl[i].state == st;
    return n;
}

/* The flight whose request for question q is in flight, or NULL. */
static struct rung_flight *flight_of(struct rung *r, size_t q)
{
    size_t i;

    for (i = 0; i < r->width; i++)
        if (r->fl[i].state == FL_ASKING && r->fl[i].q == q)
            return &r->fl[i];
    return NULL;
}

/* A server that is up and not being stopped may be asked. */
static int can_ask(const struct rung *r)
{
    return r->server_up && !r->restart && !r->waiting_exit &&
           (r->state == RS_ASKING || r->state == RS_STARTING ||
            r->state == RS_PROBING);
}

/* Whether some question still held or in flight saw a fault. */
static int suspects(const struct rung *r)
{
    size_t i;

    for (i = 0; i < r->width; i++)
        if (r->fl[i].state != FL_FREE && r->fl[i].died_here)
            return 1;
    return 0;
}

/* Fill the free flights, ask every held question (a new attempt), or
 * finish when no question is left anywhere. Solo: one at a time, the
 * suspects first, no new question taken until they have their rows. */
static void ask_all(struct rung *r, struct out *o)
{
    size_t i;

    if (r->solo && !suspects(r))
        r->solo = 0;
    for (i = 0; i < r->width && !r->solo; i++)
        if (r->fl[i].state == FL_FREE)
            take(r, &r->fl[i]);
    if (count(r, FL_FREE) == r->width) {
        finish(r, o, 0, NULL);
        return;
    }
    if (!can_ask(r))
        return;
    r->state = RS_ASKING;
    for (i = 0; i < r->width; i++) {
        struct rung_flight *f = &r->fl[i];
        if (f->state != FL_HELD ||
            (r->solo && (count(r, FL_ASKING) > 0 || !f->died_here)))
            continue;
        f->attempts++;
        f->state = FL_ASKING;
        act(o, A_ASK, f->q)->fresh = f->ask_fresh;
        f->ask_fresh = 0;
    }
}

/* Flight f's question got its row (an answer, or an error): the flight
 * moves on. */
static void done_with(struct rung *r, struct rung_flight *f, struct out *o)
{
    if (!f->died_here)
        r->streak = 0;
    f->state = FL_FREE;
    ask_all(r, o);
}

/* A fault that took the flights in flight: each question that had not
 * seen one is marked, and the streak counts the fault once. Returns 1
 * when the streak ends the rung. */
static int fault_on(struct rung *r, struct out *o, const char *what,
                    enum flight_state st)
{
    const struct rung_flight *last = NULL;
    size_t i;
    int fresh = 0;

    for (i = 0; i < r->width; i++) {
        struct rung_flight *f = &r->fl[i];
        if (f->state != st && !(st == FL_ASKING && f->state == FL_BROKE))
            continue;
        last = f;
        fresh |= !f->died_here;
        f->died_here = 1;
    }
    if (!fresh || ++r->streak < RUNG_MAX_STREAK)
        return 0;
    finish(r, o, 1,
           "the %s on %d questions in a row, the last '%.200s'%s%.500s", what,
           RUNG_MAX_STREAK, r->ids[last->q], r->last[0] ? ": " : "", r->last);
    return 1;
}

/* A flight that died or hung with its server: asked again on a new one,
 * or after RUNG_MAX_DEATHS an error row. */
static void gone_with(struct rung *r, struct rung_flight *f, int hung,
                      struct out *o)
{
    struct rung_action *a;

    if (f->attempts < RUNG_MAX_DEATHS) {
        say(o, "the server %s on %.200s (attempt %d): %.500s; restarting",
            hung ? "hung" : "died", r->ids[f->q], f->attempts, r->last);
        f->state = FL_HELD;
        return;
    }
    a = row(f, o, A_ERROR_ROW);
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
    say(o, "%.200s: %.680s", r->ids[f->q], a->text);
    f->state = FL_FREE;
}

/* The server is gone, having died or hung with questions in flight: a
 * new one for them (and the rest). */
static void server_gone(struct rung *r, struct out *o)
{
    int hung = strcmp(r->fault, "hung") == 0;
    size_t i;

    r->waiting_exit = r->restart = 0;
    if (fault_on(r, o, hung ? "server hung" : "server died", FL_ASKING))
        return;
    if (count(r, FL_ASKING) + count(r, FL_BROKE) > 1)
        r->solo = 1;
    for (i = 0; i < r->width; i++)
        if (r->fl[i].state == FL_ASKING || r->fl[i].state == FL_BROKE)
            gone_with(r, &r->fl[i], hung, o);
    start(r, o);
}

static void exited(struct rung *r, const struct rung_event *ev, struct out *o)
{
    size_t i;

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
        if (ev->oom) {
            finish(r, o, RUNG_NOMEM,
                   "the server could not load the model: out of GPU "
                   "memory (its last log line: %s)",
                   r->last);
            return;
        }
        finish(r, o, 1,
               "the server exited (status %lld, signal %d) before it was "
               "ready; its last log line: %s",
               ev->status, ev->sig, r->last);
        return;
    case RS_PROBING:
        /* it died while its memory was read: a death on the questions
         * it was about to be asked, which would find no server */
        r->fault = "died";
        for (i = 0; i < r->width; i++)
            if (r->fl[i].state == FL_FREE)
                take(r, &r->fl[i]);
        if (count(r, FL_HELD) == 0) {
            finish(r, o, 0, NULL);
            return;
        }
        for (i = 0; i < r->width; i++)
            if (r->fl[i].state == FL_HELD) {
                r->fl[i].attempts++;
                r->fl[i].state = FL_ASKING;
            }
        server_gone(r, o);
        return;
    case RS_ASKING:
        /* else each request in flight breaks, and EV_BROKE says so; with
         * none in flight, nothing else will */
        if (count(r, FL_ASKING) + count(r, FL_BROKE) == 0 && !r->restart)
            say(o,
                "the server exited between questions: %.500s; "
                "restarting",
                r->last);
        if (r->restart || r->waiting_exit ||
            count(r, FL_ASKING) + count(r, FL_BROKE) == 0)
            server_gone(r, o);
        return;
    case RS_IDLE:
    case RS_DONE:
        return;
    }
}

/* The request of flight f is over: an answer, a refusal (an error row,
 * the server kept), or a fault that may restart the server. */
static void request_over(struct rung *r, struct rung_flight *f,
                         const struct rung_event *ev, struct out *o)
{
    struct rung_action *a;

    switch (ev->type) {
    case EV_ANSWER:
        row(f, o, A_ANSWER_ROW);
        done_with(r, f, o);
        return;
    case EV_DEADLINE:
        a = row(f, o, A_ERROR_ROW);
        a->kind = "deadline";
        snprintf(a->text, sizeof(a->text),
                 "no whole answer within the request's deadline of %ld s",
                 r->deadline_s);
        done_with(r, f, o);
        return;
    case EV_REFUSED:
        a = row(f, o, A_ERROR_ROW);
        a->kind = ev->kind;
        snprintf(a->text, sizeof(a->text), "%s", ev->text ? ev->text : "");
        done_with(r, f, o);
        return;
    case EV_IDLE:
        /* stuck: stopped, then asked again on a new server (with every
         * other question in flight) */
        r->fault = "hung";
        if (!r->server_up) {
            server_gone(r, o);
        } else if (!r->restart) {
            r->restart = 1;
            act(o, A_STOP_SERVER, 0);
        }
        return;
    default:
        /* EV_BROKE: a server that died breaks the connection: retry once
         * it is gone; one still up a moment later cut it, and is kept */
        f->state = FL_BROKE;
        f->lost = ev->empty;
        if (r->restart) /* being stopped: its exit decides */
            return;
        r->fault = "died";
        if (!r->server_up) {
            server_gone(r, o);
        } else if (!r->waiting_exit) {
            r->waiting_exit = 1;
            act(o, A_WAIT_EXIT, f->q);
        }
        return;
    }
}

/* Broken streams, and the server is still up a moment later: it cut the
 * answers, and it is kept. A stream that broke before its first byte
 * lost no answer (a kept-alive connection the server had just closed):
 * its question is asked again on a new connection, RUNG_FRESH_TRIES
 * times at most, each an attempt, and no fault. */
static void stayed_up(struct rung *r, struct out *o)
{
    struct rung_action *a;
    size_t i;

    r->waiting_exit = 0;
    for (i = 0; i < r->width; i++) {
        struct rung_flight *f = &r->fl[i];
        if (f->state != FL_BROKE || !f->lost || f->fresh >= RUNG_FRESH_TRIES)
            continue;
        f->fresh++;
        f->ask_fresh = 1;
        f->state = FL_HELD;
        say(o,
            "%.200s: the connection closed before the first byte; asking "
            "again on a new one (%d of %d)",
            r->ids[f->q], f->fresh, RUNG_FRESH_TRIES);
    }
    if (count(r, FL_BROKE) > 0 && fault_on(r, o, "stream broke off", FL_BROKE))
        return;
    for (i = 0; i < r->width; i++) {
        struct rung_flight *f = &r->fl[i];
        if (f->state != FL_BROKE)
            continue;
        a = row(f, o, A_ERROR_ROW);
        a->kind = "cut";
        snprintf(a->text, sizeof(a->text),
                 "the stream broke off before the answer ended, and the "
                 "server stayed up");
        f->state = FL_FREE;
    }
    ask_all(r, o);
}

size_t rung_step(struct rung *r, const struct rung_event *ev,
                 struct rung_action *out)
{
    struct out o = {out, 0};

    switch (ev->type) {
    case EV_BEGIN:
        /* every question has its row already (the summary was not
         * written): no server is needed to finish */
        if (r->state == RS_IDLE && take(r, &r->fl[0]))
            start(r, &o);
        else if (r->state == RS_IDLE)
            finish(r, &o, 0, NULL);
        break;
    case EV_HEALTHY:
        if (r->state != RS_STARTING)
            break;
        if (r->started == 1) {
            r->state = RS_PROBING;
            act(&o, A_PROBE_LOADED, 0);
        } else {
            r->state = RS_ASKING;
            ask_all(r, &o);
        }
        break;
    case EV_PROBED:
        if (r->state == RS_PROBING) {
            r->state = RS_ASKING;
            ask_all(r, &o);
        }
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
        if (r->state == RS_ASKING && flight_of(r, ev->question) != NULL)
            request_over(r, flight_of(r, ev->question), ev, &o);
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
