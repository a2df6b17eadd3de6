/*
 * test_forge_build.c - graveyard build's steps replayed as events against
 * their state machine (buildjobs.h), as test_orch_rung.c replays a
 * rung's: no loop, no tool, no file. Each event's actions are written as
 * one line ("HASH 0", "RANGE 0", "TOOL 0", "CHECK 0", "RECORD 0", "RM 0",
 * "BLOCK 2<1", "AGAIN 3<1", "HALT 0") and the steps' states in the
 * scheduler's one table as one letter each (P pending, R running, D done,
 * F failed, B blocked, O other: waiting to be settled), compared with
 * what docs/build.md says a person would see.
 *
 * Tests: orchestrator/forge/buildjobs.c
 */
#include "helpers.h"

#include "../../orchestrator/forge/buildjobs.h"

static struct buildjobs J;

static const char SHA_A[] =
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
static const char SHA_B[] =
    "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

/* One event; its actions as a line. */
static const char *ev(enum bj_ev type, size_t job, int ok, const char *hex)
{
    static const char *const name[] = {
        [BJ_HASH_SOURCE] = "HASH", [BJ_RANGE] = "RANGE",
        [BJ_TOOL] = "TOOL",        [BJ_CHECK] = "CHECK",
        [BJ_RECORD] = "RECORD",    [BJ_REMOVE_TMP] = "RM",
        [BJ_BLOCKED] = "BLOCK",    [BJ_AGAIN] = "AGAIN",
        [BJ_HALT] = "HALT"};
    static char line[512];
    struct bj_action a[BJ_MAX_ACTIONS];
    struct bj_event e = {.type = type, .job = job, .ok = ok, .hex = hex};
    size_t n = buildjobs_step(&J, &e, a), i, at = 0;

    line[0] = '\0';
    for (i = 0; i < n && at < sizeof line; i++) {
        if (a[i].type == BJ_BLOCKED || a[i].type == BJ_AGAIN)
            at += (size_t)snprintf(line + at, sizeof line - at, "%s%s %zu<%zu",
                                   i ? ", " : "", name[a[i].type], a[i].job,
                                   a[i].src);
        else
            at += (size_t)snprintf(line + at, sizeof line - at, "%s%s %zu",
                                   i ? ", " : "", name[a[i].type], a[i].job);
    }
    return line;
}

/* The steps' states, one letter each. */
static const char *states(void)
{
    static char s[CONFIG_MAX_RUNGS + 1];
    size_t i;

    for (i = 0; i < J.n; i++)
        s[i] = "PRDFBO"[J.sj[i].state];
    s[i] = '\0';
    return s;
}

/* A ladder of n steps, width at once: each a conversion (gate -1, the
 * checkpoint's key n) until gated by quantized(). */
static void ladder(size_t n)
{
    buildjobs_init(&J, n);
    for (size_t i = 0; i < n; i++)
        J.sj[i].key = (int)n;
}

/* Step i is quantized from rung f (of f's file: key f). */
static void quantized(size_t i, size_t f)
{
    J.sj[i].gate = (int)f;
    J.sj[i].key = (int)f;
}

static void open_width(int width)
{
    assert_int_equal(buildjobs_open(&J, width), 0);
}

/* Step i from its source hash to its record, made with sha256 hex; the
 * actions of the record's event returned. */
static const char *make(size_t i, const char *hex)
{
    char want[32];

    snprintf(want, sizeof want, "%s %zu", J.job[i].range ? "RANGE" : "TOOL",
             i);
    assert_string_equal(ev(BJ_EV_HASHED, i, 1, NULL), want);
    if (J.job[i].range) {
        snprintf(want, sizeof want, "TOOL %zu", i);
        assert_string_equal(ev(BJ_EV_RANGED, i, 1, NULL), want);
    }
    snprintf(want, sizeof want, "CHECK %zu", i);
    assert_string_equal(ev(BJ_EV_TOOL, i, 1, NULL), want);
    snprintf(want, sizeof want, "RECORD %zu", i);
    assert_string_equal(ev(BJ_EV_CHECKED, i, 1, NULL), want);
    return ev(BJ_EV_RECORDED, i, 1, hex);
}

/* An F16 conversion: source hash, f16-range, the tool, its output, its
 * record, each phase in turn; early only while hashing its source. */
static void test_phases_f16(void **state)
{
    (void)state;
    ladder(1);
    J.job[0].range = 1;
    buildjobs_set(&J, 0, BJ_MAKE);
    open_width(1);
    assert_string_equal(states(), "P");
    assert_string_equal(ev(BJ_EV_BEGIN, 0, 1, NULL), "HASH 0");
    assert_string_equal(states(), "R");
    assert_int_equal(J.job[0].ph, PH_SOURCE);
    assert_int_equal(J.sj[0].early, 1);
    /* an event of another phase is not this step's: ignored */
    assert_string_equal(ev(BJ_EV_TOOL, 0, 1, NULL), "");
    assert_string_equal(ev(BJ_EV_HASHED, 0, 1, NULL), "RANGE 0");
    assert_int_equal(J.job[0].ph, PH_RANGE);
    assert_int_equal(J.sj[0].early, 0);
    assert_string_equal(ev(BJ_EV_RANGED, 0, 1, NULL), "TOOL 0");
    assert_int_equal(J.job[0].ph, PH_TOOL);
    assert_string_equal(ev(BJ_EV_TOOL, 0, 1, NULL), "CHECK 0");
    assert_int_equal(J.job[0].ph, PH_HASH);
    assert_string_equal(ev(BJ_EV_CHECKED, 0, 1, NULL), "RECORD 0");
    assert_int_equal(J.job[0].ph, PH_RECORD);
    assert_string_equal(states(), "R");
    assert_string_equal(ev(BJ_EV_RECORDED, 0, 1, SHA_A), "");
    assert_string_equal(states(), "D");
    /* late: the step is done */
    assert_string_equal(ev(BJ_EV_RECORDED, 0, 1, SHA_A), "");
}

/* A BF16 conversion, then what is quantized from it: each waits for its
 * source to be made (gate), and for the one hashing that source (key):
 * one hash of a file, then the others read the sha cache. A conversion
 * not to F16 runs no f16-range. */
static void test_quantize_after_source(void **state)
{
    (void)state;
    ladder(4);
    quantized(1, 0);
    quantized(2, 0);
    for (size_t i = 0; i < 4; i++)
        buildjobs_set(&J, i, BJ_MAKE);
    open_width(2);
    /* 3 is a conversion too: the checkpoint's key, after 0's hash */
    assert_string_equal(ev(BJ_EV_BEGIN, 0, 1, NULL), "HASH 0");
    assert_string_equal(states(), "RPPP");
    assert_string_equal(ev(BJ_EV_HASHED, 0, 1, NULL), "TOOL 0, HASH 3");
    assert_string_equal(states(), "RPPR");
    assert_string_equal(ev(BJ_EV_TOOL, 0, 1, NULL), "CHECK 0");
    assert_string_equal(ev(BJ_EV_CHECKED, 0, 1, NULL), "RECORD 0");
    /* 0 done: 1 and 2 may go, one at a time while its source hashes, and
     * two at once (3 still runs: only one) */
    assert_string_equal(ev(BJ_EV_RECORDED, 0, 1, SHA_A), "HASH 1");
    assert_string_equal(states(), "DRPR");
    assert_string_equal(ev(BJ_EV_HASHED, 1, 1, NULL), "TOOL 1");
    assert_string_equal(make(3, SHA_B), "HASH 2");
    assert_string_equal(states(), "DRRD");
    assert_string_equal(make(2, SHA_B), "");
    assert_string_equal(ev(BJ_EV_TOOL, 1, 1, NULL), "CHECK 1");
    assert_string_equal(ev(BJ_EV_CHECKED, 1, 1, NULL), "RECORD 1");
    assert_string_equal(ev(BJ_EV_RECORDED, 1, 1, SHA_B), "");
    assert_string_equal(states(), "DDDD");
}

/* A source hash read from the sha cache as the step started: the next
 * of that source goes in the pass the caller asks once every step started
 * with it has begun (as before the step machine: the disk is weighed for
 * the steps in the order they started). */
static void test_cached_hash(void **state)
{
    struct bj_action a[BJ_MAX_ACTIONS];
    struct bj_event e = {.type = BJ_EV_HASHED, .job = 1, .ok = 1, .cached = 1};

    (void)state;
    ladder(3);
    quantized(1, 0);
    quantized(2, 0);
    buildjobs_set(&J, 0, BJ_HAVE);
    buildjobs_set(&J, 1, BJ_MAKE);
    buildjobs_set(&J, 2, BJ_MAKE);
    open_width(2);
    assert_string_equal(ev(BJ_EV_BEGIN, 0, 1, NULL), "HASH 1");
    assert_int_equal(buildjobs_step(&J, &e, a), 1);
    assert_int_equal(a[0].type, BJ_TOOL);
    assert_string_equal(states(), "DRP");
    assert_string_equal(ev(BJ_EV_PASS, 0, 1, NULL), "HASH 2");
    assert_string_equal(states(), "DRR");
}

/* A step that fails at any phase: what its tool left is removed, what
 * is quantized from it is blocked down the chain, and the next step
 * goes. A record that fails removes nothing: the file is in place. */
static void test_failures(void **state)
{
    static const enum bj_ev at[] = {BJ_EV_HASHED, BJ_EV_RANGED, BJ_EV_TOOL,
                                    BJ_EV_CHECKED, BJ_EV_RECORDED};
    static const char *const went[] = {"RANGE 0", "TOOL 0", "CHECK 0",
                                       "RECORD 0"};
    (void)state;
    for (size_t k = 0; k < 5; k++) {
        /* 0 the F16 conversion, 1 from it, 2 from 1, 3 a conversion */
        ladder(4);
        J.job[0].range = 1;
        quantized(1, 0);
        quantized(2, 1);
        for (size_t i = 0; i < 4; i++)
            buildjobs_set(&J, i, BJ_MAKE);
        open_width(1);
        assert_string_equal(ev(BJ_EV_BEGIN, 0, 1, NULL), "HASH 0");
        for (size_t p = 0; p < k; p++)
            assert_string_equal(ev(at[p], 0, 1, NULL), went[p]);
        assert_string_equal(ev(at[k], 0, 0, NULL),
                            at[k] == BJ_EV_RECORDED
                                ? "BLOCK 1<0, BLOCK 2<1, HASH 3"
                                : "RM 0, BLOCK 1<0, BLOCK 2<1, HASH 3");
        assert_string_equal(states(), "FBBR");
        /* the blocked never start */
        assert_string_equal(make(3, SHA_B), "");
        assert_string_equal(states(), "FBBD");
    }
}

/* A stop signal: each running step is halted; one that then reports its
 * phase done fails instead of going on, unless its file is in place
 * (it is recorded); nothing starts any more. */
static void test_stop(void **state)
{
    (void)state;
    ladder(4);
    quantized(3, 2);
    for (size_t i = 0; i < 4; i++)
        buildjobs_set(&J, i, BJ_MAKE);
    open_width(3);
    assert_string_equal(ev(BJ_EV_BEGIN, 0, 1, NULL), "HASH 0");
    assert_string_equal(ev(BJ_EV_HASHED, 0, 1, NULL), "TOOL 0, HASH 1");
    assert_string_equal(ev(BJ_EV_TOOL, 0, 1, NULL), "CHECK 0");
    assert_string_equal(ev(BJ_EV_HASHED, 1, 1, NULL), "TOOL 1, HASH 2");
    assert_string_equal(states(), "RRRP");
    assert_string_equal(ev(BJ_EV_STOP, 0, 1, NULL), "HALT 0, HALT 1, HALT 2");
    /* 2's hash was not cancelled in time: it fails all the same, and 3,
     * quantized from it, is blocked */
    assert_string_equal(ev(BJ_EV_HASHED, 2, 1, NULL), "RM 2, BLOCK 3<2");
    /* 1's tool exited 0 as it was stopped: it fails */
    assert_string_equal(ev(BJ_EV_TOOL, 1, 1, NULL), "RM 1");
    /* 0's file is in place: recorded */
    assert_string_equal(ev(BJ_EV_CHECKED, 0, 1, NULL), "RECORD 0");
    assert_string_equal(ev(BJ_EV_RECORDED, 0, 1, SHA_A), "");
    assert_string_equal(states(), "DFFB");
}

/* After a stop, a pending step does not start when one ends. */
static void test_stop_starts_nothing(void **state)
{
    (void)state;
    ladder(2);
    buildjobs_set(&J, 0, BJ_MAKE);
    buildjobs_set(&J, 1, BJ_MAKE);
    open_width(1);
    assert_string_equal(ev(BJ_EV_BEGIN, 0, 1, NULL), "HASH 0");
    assert_string_equal(ev(BJ_EV_HASHED, 0, 1, NULL), "TOOL 0");
    assert_string_equal(ev(BJ_EV_STOP, 0, 1, NULL), "HALT 0");
    assert_string_equal(ev(BJ_EV_TOOL, 0, 0, NULL), "RM 0");
    assert_string_equal(states(), "FP");
}

/* What is there, made from a source this build makes again, waits (O)
 * and is settled when that is made: made again when the source came out
 * different (and what waited on it is settled when it is made), else
 * kept, and what waited on it settled in turn; what is quantized from a
 * kept one then goes. */
static void plan_recheck(void)
{
    /* 0 BF16 made again; 1 Q8_0 there, from 0 as SHA_A; 2 Q2_K there,
     * from 1 as SHA_A; 3 Q4_0 to make from 1 */
    ladder(4);
    quantized(1, 0);
    quantized(2, 1);
    quantized(3, 1);
    buildjobs_set(&J, 0, BJ_MAKE);
    buildjobs_set(&J, 1, BJ_HAVE);
    buildjobs_set(&J, 2, BJ_HAVE);
    buildjobs_set(&J, 3, BJ_MAKE);
    buildjobs_recheck(&J, 1, SHA_A);
    buildjobs_recheck(&J, 2, SHA_A);
    open_width(1);
    assert_string_equal(states(), "POOP");
    assert_string_equal(ev(BJ_EV_BEGIN, 0, 1, NULL), "HASH 0");
}

static void test_recheck_again(void **state)
{
    (void)state;
    plan_recheck();
    assert_string_equal(make(0, SHA_B), "AGAIN 1<0, HASH 1");
    assert_string_equal(states(), "DROP");
    assert_int_equal(J.job[1].got, BJ_MAKE);
    /* 1 came out as 2 was made from it: 2 kept, 3 goes */
    assert_string_equal(make(1, SHA_A), "HASH 3");
    assert_string_equal(states(), "DDDR");
    assert_int_equal(J.job[2].got, BJ_HAVE);
    assert_int_equal(J.job[2].recheck, 0);
}

static void test_recheck_again_down(void **state)
{
    (void)state;
    plan_recheck();
    assert_string_equal(make(0, SHA_B), "AGAIN 1<0, HASH 1");
    /* 1 came out different too: 2 made again, before 3 (config order) */
    assert_string_equal(make(1, SHA_B), "AGAIN 2<1, HASH 2");
    assert_string_equal(states(), "DDRP");
}

static void test_recheck_kept(void **state)
{
    (void)state;
    plan_recheck();
    /* 0 came out as 1 was made from it: 1 kept, so 2; 3 goes */
    assert_string_equal(make(0, SHA_A), "HASH 3");
    assert_string_equal(states(), "DDDR");
    assert_int_equal(J.job[1].got, BJ_HAVE);
}

static void test_recheck_source_failed(void **state)
{
    (void)state;
    plan_recheck();
    /* 0 not made: what is there from it is kept, and 3 goes from 1 */
    assert_string_equal(ev(BJ_EV_HASHED, 0, 0, NULL), "RM 0, HASH 3");
    assert_string_equal(states(), "FDDR");
}

/* The plan's marks: not asked for is done, there is done (other while it
 * waits to be settled), to make is pending. */
static void test_plan_states(void **state)
{
    (void)state;
    ladder(3);
    assert_string_equal(states(), "DDD");
    buildjobs_set(&J, 0, BJ_MAKE);
    buildjobs_set(&J, 1, BJ_HAVE);
    assert_string_equal(states(), "PDD");
    buildjobs_recheck(&J, 1, SHA_A);
    assert_string_equal(states(), "POD");
    assert_string_equal(J.job[1].made_from, SHA_A);
    buildjobs_set(&J, 1, BJ_MAKE);
    assert_string_equal(states(), "PPD");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_states),
        cmocka_unit_test(test_phases_f16),
        cmocka_unit_test(test_quantize_after_source),
        cmocka_unit_test(test_cached_hash),
        cmocka_unit_test(test_failures),
        cmocka_unit_test(test_stop),
        cmocka_unit_test(test_stop_starts_nothing),
        cmocka_unit_test(test_recheck_again),
        cmocka_unit_test(test_recheck_again_down),
        cmocka_unit_test(test_recheck_kept),
        cmocka_unit_test(test_recheck_source_failed),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
