/*
 * test_run_rung.c - every fault rule of docs/run.md, replayed as events
 * against the rung's state machine (rung.h): no loop, no server, no
 * clock. Each step's actions are written as one line ("START", "ASK 0",
 * "ROW 0", "ERR 0 died", "STOP", "FIN 0", "WAIT 0", "PROBE", "SAY") and
 * compared with the line a person wrote down from the rules.
 *
 * Tests: orchestrator/run/rung.c
 */
#include "helpers.h"

#include "../../orchestrator/run/rung.h"

static struct rung R;
static uint8_t had[16];
static char said[RUNG_TEXT];     /* the last SAY, ERR or FIN text */
static const char *last_kind;    /* the last ERR's kind */
static int last_attempts;        /* the last ROW's or ERR's attempts */
static int next_empty;           /* the next event's "empty" (then 0) */
static int last_fresh;           /* the last ASK's "fresh" */
static char last_say[RUNG_TEXT]; /* the last SAY's text */

/* One event; the actions as a line. */
static const char *step(enum rung_ev type, size_t q)
{
    static char line[256];
    struct rung_action a[RUNG_MAX_ACTIONS];
    struct rung_event ev;
    size_t n, i, at = 0;

    memset(&ev, 0, sizeof(ev));
    ev.type = type;
    ev.question = q;
    ev.text = "last log line";
    ev.code = 143;
    ev.empty = next_empty;
    next_empty = 0;
    n = rung_step(&R, &ev, a);
    line[0] = '\0';
    for (i = 0; i < n; i++) {
        const char *name[] = {"START", "PROBE", "ASK", "STOP", "WAIT",
                              "ROW",   "ERR",   "SAY", "FIN"};
        char one[64];
        switch (a[i].type) {
        case A_ASK:
            last_fresh = a[i].fresh;
            /* fall through */
        case A_ANSWER_ROW:
            if (a[i].type == A_ANSWER_ROW)
                last_attempts = a[i].attempts;
            /* fall through */
        case A_WAIT_EXIT:
            snprintf(one, sizeof(one), "%s %zu", name[a[i].type],
                     a[i].question);
            break;
        case A_ERROR_ROW:
            snprintf(one, sizeof(one), "ERR %zu %s", a[i].question, a[i].kind);
            last_kind = a[i].kind;
            last_attempts = a[i].attempts;
            snprintf(said, sizeof(said), "%s", a[i].text);
            break;
        case A_FINISH:
            snprintf(one, sizeof(one), "FIN %d", a[i].code);
            snprintf(said, sizeof(said), "%s", a[i].text);
            break;
        default:
            if (a[i].type == A_SAY)
                snprintf(last_say, sizeof(last_say), "%s", a[i].text);
            snprintf(one, sizeof(one), "%s", name[a[i].type]);
        }
        at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%s",
                               i ? ", " : "", one);
    }
    return line;
}

/* An event with fields beyond a question. */
static const char *step_ev(const struct rung_event *ev)
{
    static char line[64];
    struct rung_action a[RUNG_MAX_ACTIONS];
    size_t n = rung_step(&R, ev, a), i;

    line[0] = '\0';
    for (i = 0; i < n; i++)
        strcat(line, a[i].type == A_START_SERVER ? "START "
                     : a[i].type == A_SAY        ? "SAY "
                     : a[i].type == A_FINISH     ? "FIN "
                                                 : "? ");
    if (n > 0 && a[n - 1].type == A_FINISH)
        snprintf(said, sizeof(said), "%s", a[n - 1].text);
    return line;
}

static const char *const ids[16] = {"q0",  "q1",  "q2",  "q3", "q4",  "q5",
                                    "q6",  "q7",  "q8",  "q9", "q10", "q11",
                                    "q12", "q13", "q14", "q15"};

static void init(size_t nq)
{
    rung_init(&R, nq, had, ids, 1, 120, 632);
}

/* Up and asking the first question the file lacks. */
static void up(size_t first)
{
    char want[32];

    assert_string_equal(step(EV_BEGIN, 0), "START");
    assert_string_equal(step(EV_HEALTHY, 0), "PROBE");
    snprintf(want, sizeof(want), "ASK %zu", first);
    assert_string_equal(step(EV_PROBED, 0), want);
}

static void test_answers(void **state)
{
    (void)state;
    memset(had, 0, sizeof(had));
    had[1] = 1; /* answered before a resume */
    init(3);
    up(0);
    assert_string_equal(step(EV_ANSWER, 0), "ROW 0, ASK 2");
    assert_int_equal(last_attempts, 1);
    assert_string_equal(step(EV_ANSWER, 7), ""); /* not asked: ignored */
    assert_string_equal(step(EV_ANSWER, 2), "ROW 2, STOP");
    assert_string_equal(step(EV_EXITED, 0), "FIN 0");
    /* every row there already: no server at all */
    memset(had, 1, 3);
    init(3);
    assert_string_equal(step(EV_BEGIN, 0), "FIN 0");
}

/* A server that dies on a question: asked again on a new server, the
 * exit coming before or after the broken stream; after 3 deaths an error
 * row, and the next question on a new server. */
static void test_deaths(void **state)
{
    (void)state;
    memset(had, 0, sizeof(had));
    init(2);
    up(0);
    /* the stream breaks first, then the exit */
    assert_string_equal(step(EV_BROKE, 0), "WAIT 0");
    assert_string_equal(step(EV_EXITED, 0), "SAY, START");
    assert_string_equal(step(EV_HEALTHY, 0), "ASK 0");
    /* the exit first, then the broken stream */
    assert_string_equal(step(EV_EXITED, 0), "");
    assert_string_equal(step(EV_BROKE, 0), "SAY, START");
    assert_string_equal(step(EV_HEALTHY, 0), "ASK 0");
    assert_string_equal(step(EV_BROKE, 0), "WAIT 0");
    assert_string_equal(step(EV_EXITED, 0), "ERR 0 died, SAY, START");
    assert_int_equal(last_attempts, 3);
    assert_non_null(strstr(said, "died 3 times"));
    assert_non_null(strstr(said, "last log line"));
    assert_string_equal(step(EV_HEALTHY, 0), "ASK 1");
    assert_string_equal(step(EV_ANSWER, 1), "ROW 1, STOP");
    assert_string_equal(step(EV_EXITED, 0), "FIN 0");
}

/* Faults on 3 questions in a row stop the rung. */
static void test_streak(void **state)
{
    int q, k;

    (void)state;
    memset(had, 0, sizeof(had));
    init(5);
    up(0);
    for (q = 0; q < 2; q++) {
        for (k = 0; k < 3; k++) {
            assert_string_equal(step(EV_EXITED, 0), "");
            step(EV_BROKE, (size_t)q);
            step(EV_HEALTHY, 0);
        }
    }
    /* question 2's first death is the third question in a row */
    assert_string_equal(step(EV_EXITED, 0), "");
    assert_string_equal(step(EV_BROKE, 2), "FIN 1");
    assert_non_null(strstr(said, "server died on 3 questions in a row"));
    /* an answer between resets the streak */
    init(5);
    up(0);
    step(EV_EXITED, 0);
    assert_string_equal(step(EV_BROKE, 0), "SAY, START");
    assert_string_equal(step(EV_HEALTHY, 0), "ASK 0");
    assert_string_equal(step(EV_ANSWER, 0), "ROW 0, ASK 1");
    /* the row says 2 attempts though the same step asked question 1 */
    assert_int_equal(last_attempts, 2);
    assert_int_equal(R.streak, 1); /* question 0 saw a death */
    assert_string_equal(step(EV_ANSWER, 1), "ROW 1, ASK 2");
    assert_int_equal(R.streak, 0);
}

/* No token for the idle limit: the server is stopped and started again;
 * after 3 times a "hung" row. */
static void test_hung(void **state)
{
    int k;

    (void)state;
    memset(had, 0, sizeof(had));
    init(2);
    up(0);
    for (k = 0; k < 2; k++) {
        assert_string_equal(step(EV_IDLE, 0), "STOP");
        assert_string_equal(step(EV_EXITED, 0), "SAY, START");
        assert_string_equal(step(EV_HEALTHY, 0), "ASK 0");
    }
    assert_string_equal(step(EV_IDLE, 0), "STOP");
    assert_string_equal(step(EV_EXITED, 0), "ERR 0 hung, SAY, START");
    assert_non_null(strstr(said, "no token from the server for 120 s"));
}

/* A live server's faults: one error row each, at once, and the same
 * server goes on. */
static void test_refusals(void **state)
{
    struct rung_event ev;
    char line[64];

    (void)state;
    memset(had, 0, sizeof(had));
    init(4);
    up(0);
    assert_string_equal(step(EV_DEADLINE, 0), "ERR 0 deadline, ASK 1");
    assert_non_null(strstr(said, "deadline of 632 s"));
    memset(&ev, 0, sizeof(ev));
    ev.type = EV_REFUSED;
    ev.question = 1;
    ev.kind = "bad_utf8";
    ev.text = "stream event is not valid UTF-8";
    {
        struct rung_action a[RUNG_MAX_ACTIONS];
        size_t n = rung_step(&R, &ev, a);
        snprintf(line, sizeof(line), "%zu %d %s %d %zu", n, a[0].type,
                 a[0].kind, a[1].type, a[1].question);
        assert_string_equal(a[0].text, "stream event is not valid UTF-8");
    }
    snprintf(said, sizeof(said), "2 %d bad_utf8 %d 2", A_ERROR_ROW, A_ASK);
    assert_string_equal(line, said);
    /* a connection cut while the server stays up */
    assert_string_equal(step(EV_BROKE, 2), "WAIT 2");
    assert_string_equal(step(EV_EXIT_WAIT_OVER, 2), "ERR 2 cut, ASK 3");
    assert_int_equal(R.started, 1);
}

/* Starting: a port found taken moves on 4 times, then the rung fails; a
 * server not ready in time is stopped and the rung fails. */
static void test_starting(void **state)
{
    struct rung_event ev;
    int k;

    (void)state;
    memset(had, 0, sizeof(had));
    init(1);
    assert_string_equal(step(EV_BEGIN, 0), "START");
    memset(&ev, 0, sizeof(ev));
    ev.type = EV_EXITED;
    ev.port_taken = 1;
    ev.status = 1;
    ev.text = "couldn't bind HTTP server socket";
    for (k = 0; k < RUNG_PORT_TRIES - 1; k++)
        assert_string_equal(step_ev(&ev), "SAY START ");
    assert_string_equal(step_ev(&ev), "FIN ");
    assert_non_null(strstr(said, "before it was ready"));
    init(1);
    assert_string_equal(step(EV_BEGIN, 0), "START");
    assert_string_equal(step(EV_NOT_READY, 0), "STOP");
    assert_string_equal(step(EV_EXITED, 0), "FIN 1");
    assert_non_null(strstr(said, "not ready after"));
}

/* A signal, or a failure of ours, at any point: the server is stopped
 * first, and the first code is kept. */
static void test_stops(void **state)
{
    (void)state;
    memset(had, 0, sizeof(had));
    init(2);
    assert_string_equal(step(EV_STOP, 0), "FIN 143"); /* nothing up */
    init(2);
    up(0);
    assert_string_equal(step(EV_STOP, 0), "STOP");
    assert_string_equal(step(EV_ANSWER, 0), ""); /* too late */
    /* the stop asked again: the step that asked it may have been cut
     * short (a stop asked twice is one) */
    assert_string_equal(step(EV_FAIL, 0), "STOP");
    assert_string_equal(step(EV_EXITED, 0), "FIN 143");
    init(2);
    assert_string_equal(step(EV_BEGIN, 0), "START");
    assert_string_equal(step(EV_STOP, 0), "STOP"); /* while starting */
    assert_string_equal(step(EV_EXITED, 0), "FIN 143");
}

/* The last row cannot be written (its record, or the row itself): the
 * runner skips the rest of that step, the server's stop with it, and the
 * EV_FAIL that follows must ask for the stop again, or nothing ever stops
 * the server and the loop waits for ever; so must a signal after it. A
 * FINISH cut short the same way is asked again. */
static void test_last_row_fails(void **state)
{
    (void)state;
    memset(had, 0, sizeof(had));
    init(1);
    up(0);
    assert_string_equal(step(EV_ANSWER, 0), "ROW 0, STOP");
    /* the row failed: STOP was never carried out */
    assert_string_equal(step(EV_FAIL, 0), "STOP");
    assert_string_equal(step(EV_STOP, 0), "STOP"); /* and a signal */
    assert_string_equal(step(EV_EXITED, 0), "FIN 143");
    assert_string_equal(said, "last log line");
    /* a signal alone, the stop skipped before it */
    init(1);
    up(0);
    assert_string_equal(step(EV_ANSWER, 0), "ROW 0, STOP");
    assert_string_equal(step(EV_STOP, 0), "STOP");
    assert_string_equal(step(EV_EXITED, 0), "FIN 143");
    /* no server up: FINISH cut short is asked again */
    init(1);
    assert_string_equal(step(EV_BEGIN, 0), "START");
    assert_string_equal(step(EV_HEALTHY, 0), "PROBE");
    R.server_up = 0; /* gone between the answer and its row */
    R.state = RS_ASKING;
    R.fl[0].state = FL_ASKING;
    R.fl[0].q = 0;
    assert_string_equal(step(EV_ANSWER, 0), "ROW 0, FIN 0");
    assert_string_equal(step(EV_FAIL, 0), "FIN 143");
}

/* The server dies while its loaded memory is read: a death on the next
 * question. */
static void test_dies_probing(void **state)
{
    (void)state;
    memset(had, 0, sizeof(had));
    had[0] = 1;
    init(2);
    assert_string_equal(step(EV_BEGIN, 0), "START");
    assert_string_equal(step(EV_HEALTHY, 0), "PROBE");
    assert_string_equal(step(EV_EXITED, 0), "SAY, START");
    assert_int_equal(R.fl[0].q, 1);
    assert_int_equal(R.fl[0].attempts, 1);
    assert_string_equal(step(EV_HEALTHY, 0), "ASK 1");
}

/* Batching: width questions in flight at once. Each answer moves its
 * flight on; a death takes every flight (each counts the attempt, the
 * streak counts the fault once), and the questions it took are then
 * asked one at a time until each has its row; an answer that arrives
 * while a break is being judged is written, and nothing new is asked
 * until the verdict. */
static void test_width(void **state)
{
    (void)state;
    memset(had, 0, sizeof(had));
    had[2] = 1;
    rung_init(&R, 6, had, ids, 3, 120, 632);
    assert_string_equal(step(EV_BEGIN, 0), "START");
    assert_string_equal(step(EV_HEALTHY, 0), "PROBE");
    assert_string_equal(step(EV_PROBED, 0), "ASK 0, ASK 1, ASK 3");
    assert_string_equal(step(EV_ANSWER, 2), ""); /* not in flight */
    assert_string_equal(step(EV_ANSWER, 1), "ROW 1, ASK 4");
    /* a death with three in flight */
    assert_string_equal(step(EV_BROKE, 0), "WAIT 0");
    assert_string_equal(step(EV_BROKE, 3), "");
    assert_string_equal(step(EV_ANSWER, 4), "ROW 4"); /* it made it */
    assert_string_equal(step(EV_EXITED, 0), "SAY, SAY, START");
    assert_int_equal(R.streak, 1);
    /* the two it took, one at a time; then the rest at full width */
    assert_string_equal(step(EV_HEALTHY, 0), "ASK 0");
    assert_int_equal(R.fl[0].attempts, 2);
    assert_string_equal(step(EV_ANSWER, 0), "ROW 0, ASK 3");
    assert_int_equal(last_attempts, 2);
    assert_string_equal(step(EV_ANSWER, 3), "ROW 3, ASK 5");
    /* a cut while the server stays up: only the broken one's row */
    assert_string_equal(step(EV_BROKE, 5), "WAIT 5");
    assert_string_equal(step(EV_EXIT_WAIT_OVER, 5), "ERR 5 cut, STOP");
    assert_string_equal(step(EV_EXITED, 0), "FIN 0");
    /* a hang: the server is stopped once, and the hung question, asked
     * alone, hangs alone */
    memset(had, 0, sizeof(had));
    rung_init(&R, 3, had, ids, 2, 120, 632);
    step(EV_BEGIN, 0);
    step(EV_HEALTHY, 0);
    assert_string_equal(step(EV_PROBED, 0), "ASK 0, ASK 1");
    assert_string_equal(step(EV_IDLE, 1), "STOP");
    assert_string_equal(step(EV_BROKE, 0), ""); /* its exit decides */
    assert_string_equal(step(EV_EXITED, 0), "SAY, SAY, START");
    assert_string_equal(step(EV_HEALTHY, 0), "ASK 0");
    assert_string_equal(step(EV_ANSWER, 0), "ROW 0, ASK 1");
    assert_string_equal(step(EV_IDLE, 1), "STOP");
    assert_string_equal(step(EV_EXITED, 0), "SAY, START");
    assert_string_equal(step(EV_HEALTHY, 0), "ASK 1");
    assert_string_equal(step(EV_IDLE, 1), "STOP");
    assert_string_equal(step(EV_EXITED, 0), "ERR 1 hung, SAY, START");
    assert_string_equal(step(EV_HEALTHY, 0), "ASK 2");
    assert_string_equal(step(EV_ANSWER, 2), "ROW 2, STOP");
    /* the streak: a fault with several in flight is one fault */
    memset(had, 0, sizeof(had));
    rung_init(&R, 6, had, ids, 2, 120, 632);
    step(EV_BEGIN, 0);
    step(EV_HEALTHY, 0);
    assert_string_equal(step(EV_PROBED, 0), "ASK 0, ASK 1");
    assert_string_equal(step(EV_EXITED, 0), "");
    assert_string_equal(step(EV_BROKE, 1), "SAY, SAY, START");
    assert_string_equal(step(EV_BROKE, 0), ""); /* that death is counted */
    assert_int_equal(R.streak, 1);
    assert_string_equal(step(EV_HEALTHY, 0), "ASK 0");
    assert_string_equal(step(EV_ANSWER, 0), "ROW 0, ASK 1");
    assert_string_equal(step(EV_ANSWER, 1), "ROW 1, ASK 2, ASK 3");
    assert_int_equal(R.streak, 1); /* both saw the death */
    step(EV_EXITED, 0);
    assert_string_equal(step(EV_BROKE, 2), "SAY, SAY, START");
    assert_int_equal(R.streak, 2);
    assert_string_equal(step(EV_HEALTHY, 0), "ASK 2");
    assert_string_equal(step(EV_ANSWER, 2), "ROW 2, ASK 3");
    step(EV_EXITED, 0);
    assert_string_equal(step(EV_BROKE, 3), "SAY, START");
    assert_int_equal(R.streak, 2); /* question 3 had seen one */
    assert_string_equal(step(EV_HEALTHY, 0), "ASK 3");
    assert_string_equal(step(EV_ANSWER, 3), "ROW 3, ASK 4, ASK 5");
    step(EV_EXITED, 0);
    assert_string_equal(step(EV_BROKE, 4), "FIN 1");
    assert_non_null(strstr(said, "server died on 3 questions in a row"));
}

/* A stream that broke before its first byte, the server up: asked again
 * on a new connection, an attempt each, RUNG_FRESH_TRIES times, then the
 * cut row; one cut mid-answer is the cut row at once. */
static void test_lost_first_byte(void **state)
{
    (void)state;
    memset(had, 0, sizeof(had));
    init(3);
    up(0);
    next_empty = 1;
    assert_string_equal(step(EV_BROKE, 0), "WAIT 0");
    assert_string_equal(step(EV_EXIT_WAIT_OVER, 0), "SAY, ASK 0");
    assert_int_equal(last_fresh, 1);
    assert_non_null(strstr(last_say,
                           "q0: the connection closed before the first "
                           "byte; asking again on a new one (1 of 2)"));
    assert_int_equal(R.streak, 0);
    assert_string_equal(step(EV_ANSWER, 0), "ROW 0, ASK 1");
    assert_int_equal(last_attempts, 2);
    assert_int_equal(last_fresh, 0);
    /* cut mid-answer: today's row, not asked again */
    assert_string_equal(step(EV_BROKE, 1), "WAIT 1");
    assert_string_equal(step(EV_EXIT_WAIT_OVER, 1), "ERR 1 cut, ASK 2");
    assert_int_equal(last_attempts, 1);
    /* never a byte: two asks again, then the cut row */
    for (int k = 0; k < RUNG_FRESH_TRIES; k++) {
        next_empty = 1;
        assert_string_equal(step(EV_BROKE, 2), "WAIT 2");
        assert_string_equal(step(EV_EXIT_WAIT_OVER, 2), "SAY, ASK 2");
        assert_int_equal(last_fresh, 1);
    }
    next_empty = 1;
    assert_string_equal(step(EV_BROKE, 2), "WAIT 2");
    assert_string_equal(step(EV_EXIT_WAIT_OVER, 2), "ERR 2 cut, STOP");
    assert_int_equal(last_attempts, 1 + RUNG_FRESH_TRIES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_answers),
        cmocka_unit_test(test_deaths),
        cmocka_unit_test(test_streak),
        cmocka_unit_test(test_hung),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_starting),
        cmocka_unit_test(test_stops),
        cmocka_unit_test(test_dies_probing),
        cmocka_unit_test(test_width),
        cmocka_unit_test(test_lost_first_byte),
        cmocka_unit_test(test_last_row_fails),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
