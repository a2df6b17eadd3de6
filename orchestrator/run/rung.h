/*
 * rung.h - the life of one rung as one state machine: events in, actions
 * out. No libuv, no curl, no jansson, no clock, no file: runner.c turns
 * what happens on the loop (a server's exit, /health, a request's end, a
 * timer, a signal) into events, calls rung_step, and carries out the
 * actions it returns (start a server, ask a question, write a row, stop
 * the server, finish). Every fault rule of docs/run.md ("Faults") is
 * decided here, and tests/unit/test_run_rung.c replays event sequences
 * against it without a loop or a server.
 *
 * Questions are named by their index in the question file in events and
 * actions alike: an event about a question that is not in flight is
 * ignored, so a late or cancelled request cannot move the rung. Up to
 * `width` questions are in flight at once (1 unless batching, docs/run.md
 * "Batching"), each in a flight of its own with its own attempts; a
 * server that dies or hangs takes every flight with it, and each of them
 * counts the attempt, while the streak counts the fault once; they are
 * then asked again one at a time until each has its row, so a question
 * that kills the server dies alone.
 */
#ifndef RUNG_H
#define RUNG_H

#include <stddef.h>
#include <stdint.h>

#define RUNG_MAX_DEATHS 3   /* faults on one question before an error row */
#define RUNG_MAX_STREAK 3   /* questions in a row with a fault: give up */
#define RUNG_PORT_TRIES 5   /* starts on a port found taken */
#define RUNG_TEXT       900 /* an action's text */
/* asks again, on a new connection, of a question whose stream broke
 * before its first byte with the server up */
#define RUNG_FRESH_TRIES 2
#define RUNG_NOMEM                                                            \
    4 /* the exit status of a server that could not                           \
         load for memory (cli.h EXIT_NOMEM) */

enum rung_state {
    RS_IDLE,     /* before the first start */
    RS_STARTING, /* a server is starting; /health not yet ok */
    RS_PROBING,  /* healthy; GPU memory being read before the first ask */
    RS_ASKING,   /* a question is asked */
    RS_STOPPING, /* the server is being stopped, to finish */
    RS_DONE
};

enum rung_ev {
    EV_BEGIN,          /* prepared (hash, manifest): start */
    EV_HEALTHY,        /* /health said ok */
    EV_NOT_READY,      /* /health was not ok in time */
    EV_PROBED,         /* the loaded GPU memory was read */
    EV_EXITED,         /* the server's process is gone */
    EV_ANSWER,         /* question: a whole answer */
    EV_REFUSED,        /* question: what the server sent cannot be taken
                          (kind, text): the server is alive */
    EV_BROKE,          /* question: the connection broke */
    EV_EXIT_WAIT_OVER, /* after a break, the wait for an exit ended */
    EV_IDLE,           /* question: no token for the idle limit (the
                          runner has cancelled its request) */
    EV_DEADLINE,       /* question: no whole answer by the deadline (its
                          request cancelled too) */
    EV_STOP,           /* a signal: code */
    EV_FAIL,           /* something of ours failed (a row could not be
                          written, libcurl): code, text */
};

struct rung_event {
    enum rung_ev type;
    size_t question;  /* EV_ANSWER ... EV_DEADLINE */
    const char *kind; /* EV_REFUSED: its error_kind */
    const char *text; /* EV_REFUSED, EV_FAIL; EV_EXITED: the last log
                         line */
    int port_taken;   /* EV_EXITED: it said it could not bind */
    int port;         /* EV_EXITED: the port it was given */
    int oom;          /* EV_EXITED: its log says the model did not fit */
    long long status; /* EV_EXITED */
    int sig;          /* EV_EXITED */
    int empty;        /* EV_BROKE: not one byte of the reply came */
    int code;         /* EV_STOP, EV_FAIL: the exit status */
    long seconds;     /* EV_NOT_READY: how long it was given */
    int no_server;    /* EV_FAIL: the server it was starting never ran */
};

enum rung_act {
    A_START_SERVER, /* start a server (a new port) and poll /health */
    A_PROBE_LOADED, /* read the GPU memory now loaded, then EV_PROBED */
    A_ASK,          /* question: ask it (a new attempt) */
    A_STOP_SERVER,  /* SIGTERM, grace, SIGKILL; EV_EXITED follows */
    A_WAIT_EXIT,    /* start the wait for an exit (EV_EXIT_WAIT_OVER) */
    A_ANSWER_ROW,   /* question: write its answer's row */
    A_ERROR_ROW,    /* question: write an error row (kind, text) */
    A_SAY,          /* text: a progress line (not with --quiet) */
    A_FINISH,       /* code, text (may be ""): the loop ends */
};

struct rung_action {
    enum rung_act type;
    size_t question;
    const char *kind;
    int code;
    int attempts; /* A_ANSWER_ROW, A_ERROR_ROW: the attempts it took */
    int fresh;    /* A_ASK: on a new connection, not a kept-alive one */
    char text[RUNG_TEXT];
};

/* Questions in flight at most (a server's slots under batching). */
#define RUNG_MAX_WIDTH 16

/* A step returns at most this many actions: an error row and a line per
 * flight, and a few more. */
#define RUNG_MAX_ACTIONS (2 * RUNG_MAX_WIDTH + 8)

enum flight_state {
    FL_FREE,   /* no question */
    FL_HELD,   /* a question taken, to be asked when a server is ready */
    FL_ASKING, /* its request is in flight */
    FL_BROKE,  /* its stream broke; is the server going? */
};

/* One question on its way to a row. */
struct rung_flight {
    enum flight_state state;
    size_t q;
    int attempts;  /* asks of q so far */
    int died_here; /* q saw a fault (counted in the streak once) */
    int lost;      /* its stream broke before the first byte */
    int fresh;     /* asks again after such a break so far */
    int ask_fresh; /* its next ask is on a new connection */
};

struct rung {
    enum rung_state state;
    size_t nq;
    const uint8_t *had;     /* had[i]: the rows file answered question i when
                               the run began (borrowed) */
    const char *const *ids; /* ids[i]: question i's id, for messages
                               (borrowed) */
    size_t width;           /* flights used: 1 to RUNG_MAX_WIDTH */
    struct rung_flight fl[RUNG_MAX_WIDTH];
    size_t cursor; /* the next question no flight has taken */
    int solo;      /* after a fault with several in flight, the
                      questions it took are asked one at a time,
                      so that the one that kills the server is
                      found and the others are not blamed */
    int streak;    /* questions in a row with a fault */
    int server_up; /* a server process is running */
    int started;   /* servers started */
    int port_tries;
    int restart;         /* the server is stopped to be started again */
    int waiting_exit;    /* a break: is the server going? */
    const char *fault;   /* "died" or "hung": why it is restarted */
    int code;            /* the exit status, once finishing */
    char why[RUNG_TEXT]; /* and its message */
    char last[512];      /* the server's last log line */
    long idle_s;         /* for messages */
    long deadline_s;
};

/* A rung of nq questions named ids[i], had[i] those answered already,
 * width of them in flight at most (1 to RUNG_MAX_WIDTH), with the idle
 * limit and the deadline in seconds for messages. */
void rung_init(struct rung *r, size_t nq, const uint8_t *had,
               const char *const *ids, size_t width, long idle_s,
               long deadline_s);

/* Take one event; the actions to carry out go to out (RUNG_MAX_ACTIONS
 * of room), in order. Returns how many. When carrying one out fails (a
 * row cannot be written), the runner skips the rest and sends EV_FAIL. */
size_t rung_step(struct rung *r, const struct rung_event *ev,
                 struct rung_action *out);

#endif
