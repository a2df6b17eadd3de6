/*
 * test_night_sched.c - the scheduler's rules (sched.h, docs/run.md's
 * "Several rungs on one GPU", docs/build.md's --jobs), replayed as events:
 * no loop, no child, no nvidia-smi. Each step's actions are written as one
 * line ("START 2@0": job 2 on slot 0, "START 1" without a slot, "PROBE 0",
 * "WAIT 3") and compared with the line a person wrote down from the rules.
 *
 * Tests: orchestrator/night/sched.c
 */
#include "helpers.h"

#include "../../orchestrator/night/sched.h"

#define NJ 8

static struct sched S;
static struct sched_job J[NJ];

/* n jobs, pending, no gate, no pin, need unknown. */
static void jobs(size_t n)
{
    memset(J, 0, sizeof(J));
    for (size_t i = 0; i < n; i++) {
        J[i].state = SJ_PENDING;
        J[i].gate = -1;
        J[i].pin = -1;
        J[i].need = -1;
        J[i].beside_max = -1;
        J[i].key = -1;
    }
}

static const char *step_ev(const struct sched_event *ev)
{
    static char line[256];
    struct sched_action a[NJ + SCHED_MAX_SLOTS + 1];
    size_t n = sched_step(&S, ev, a, NJ + SCHED_MAX_SLOTS + 1), at = 0;

    line[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        char one[32];
        if (a[i].type == SA_START && a[i].slot >= 0)
            snprintf(one, sizeof(one), "START %zu@%d", a[i].job, a[i].slot);
        else if (a[i].type == SA_START)
            snprintf(one, sizeof(one), "START %zu", a[i].job);
        else if (a[i].type == SA_PROBE)
            snprintf(one, sizeof(one), "PROBE %d", a[i].slot);
        else
            snprintf(one, sizeof(one), "WAIT %zu", a[i].job);
        at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%s",
                               i ? ", " : "", one);
    }
    return line;
}

static const char *begin(void)
{
    struct sched_event ev = {.type = SE_BEGIN};
    return step_ev(&ev);
}

static const char *loaded(size_t job)
{
    struct sched_event ev = {.type = SE_LOADED, .job = job};
    return step_ev(&ev);
}

static const char *exited(size_t job, enum sched_outcome how)
{
    struct sched_event ev = {.type = SE_EXITED, .job = job, .outcome = how};
    return step_ev(&ev);
}

static const char *probed(size_t slot, long free_mib)
{
    struct sched_event ev = {
        .type = SE_PROBED, .slot = slot, .free_mib = free_mib};
    return step_ev(&ev);
}

static const char *stop(void)
{
    struct sched_event ev = {.type = SE_STOP};
    return step_ev(&ev);
}

/* No GPUs: one rung at a time, in order; the build's --jobs: that many. */
static void test_no_slots(void **state)
{
    (void)state;
    jobs(3);
    assert_int_equal(sched_init(&S, J, 3, 0, 1, 1), 0);
    assert_string_equal(begin(), "START 0");
    assert_string_equal(loaded(0), "");
    assert_string_equal(exited(0, SO_FAILED), "START 1");
    assert_string_equal(exited(1, SO_DONE), "START 2");
    assert_string_equal(exited(2, SO_DONE), "");
    assert_int_equal(J[0].state, SJ_FAILED);
    assert_int_equal(sched_running(&S), 0);
    jobs(5);
    sched_init(&S, J, 5, 0, 1, 2);
    assert_string_equal(begin(), "START 0, START 1");
    assert_string_equal(exited(1, SO_DONE), "START 2");
    assert_string_equal(exited(0, SO_DONE), "START 3");
}

/* An idle GPU takes the next rung; another shard's rungs are not ours. */
static void test_gpus(void **state)
{
    (void)state;
    jobs(5);
    J[1].state = SJ_OTHER;
    sched_init(&S, J, 5, 2, 1, 1);
    assert_string_equal(begin(), "START 0@0, START 2@1");
    assert_string_equal(exited(2, SO_DONE), "START 3@1");
    assert_string_equal(exited(0, SO_FAILED), "START 4@0");
    assert_string_equal(exited(3, SO_DONE), "");
    assert_int_equal(J[1].state, SJ_OTHER);
}

/* rungs_per_gpu 2: the GPU with the fewest rungs takes one more, beside
 * others only once each is loaded; an unknown need asks nothing. */
static void test_beside(void **state)
{
    (void)state;
    jobs(5);
    sched_init(&S, J, 5, 2, 2, 1);
    assert_string_equal(begin(), "START 0@0, START 1@1");
    assert_string_equal(loaded(0), "START 2@0");
    assert_int_equal(J[2].beside, 1);
    assert_string_equal(loaded(0), ""); /* loaded once */
    assert_string_equal(loaded(2), "");  /* GPU 0 is full; 1 not loaded */
    assert_string_equal(loaded(1), "START 3@1");
    assert_string_equal(exited(0, SO_DONE), "START 4@0");
    assert_int_equal(J[4].beside, 1);
}

/* A known need asks the GPU's free memory and waits for the answer (the
 * loop goes on meanwhile); the answer serves one pass; a need over the
 * free memory and its margin (a tenth, at least 512 MiB) waits; no
 * answer is an unknown one: the need fits. */
static void test_free_memory(void **state)
{
    (void)state;
    jobs(3);
    J[1].need = 9000;
    J[2].need = 1000;
    sched_init(&S, J, 3, 1, 3, 1);
    assert_string_equal(begin(), "START 0@0");
    assert_string_equal(loaded(0), "PROBE 0");
    assert_string_equal(loaded(0), "");              /* asking already */
    assert_string_equal(probed(0, 9899), "START 2@0"); /* 9000 + 900 */
    assert_string_equal(loaded(2), "PROBE 0");
    assert_string_equal(probed(0, 9900), "START 1@0");
    assert_int_equal(J[1].beside, 2);
    /* no answer (a hung or missing nvidia-smi): K alone decides */
    jobs(2);
    J[1].need = 50000;
    sched_init(&S, J, 2, 1, 2, 1);
    begin();
    assert_string_equal(loaded(0), "PROBE 0");
    assert_string_equal(probed(0, -1), "START 1@0");
    /* a late answer after the GPU emptied: the rung went alone */
    jobs(2);
    J[1].need = 4000;
    sched_init(&S, J, 2, 1, 2, 1);
    begin();
    assert_string_equal(loaded(0), "PROBE 0");
    assert_string_equal(exited(0, SO_DONE), "START 1@0");
    assert_int_equal(J[1].beside, 0);
    assert_string_equal(probed(0, 100), "");
}

/* A rung that did not fit beside others (exit 4) waits and starts again
 * only beside fewer; alone, not fitting is a failure. */
static void test_nomem(void **state)
{
    (void)state;
    jobs(3);
    sched_init(&S, J, 3, 1, 3, 1);
    begin();
    assert_string_equal(loaded(0), "START 1@0");
    assert_string_equal(loaded(1), "START 2@0");
    assert_string_equal(exited(2, SO_NOMEM), "WAIT 2");
    assert_int_equal(J[2].state, SJ_PENDING);
    assert_int_equal(J[2].beside_max, 1);
    assert_string_equal(loaded(1), ""); /* beside 2: not any more */
    assert_string_equal(exited(1, SO_DONE), "START 2@0");
    assert_string_equal(exited(2, SO_NOMEM), "WAIT 2");
    assert_int_equal(J[2].beside_max, 0);
    assert_string_equal(exited(0, SO_DONE), "START 2@0");
    assert_string_equal(exited(2, SO_NOMEM), "");
    assert_int_equal(J[2].state, SJ_FAILED);
}

/* The canary goes first, its rungs wait for it to pass; one that fails
 * leaves them unstarted. --replicate: each GPU's own canary and rungs. */
static void test_gates(void **state)
{
    (void)state;
    jobs(3);
    J[2].first = 1;
    J[0].gate = J[1].gate = 2;
    sched_init(&S, J, 3, 2, 1, 1);
    assert_string_equal(begin(), "START 2@0");
    assert_string_equal(exited(2, SO_DONE), "START 0@0, START 1@1");
    jobs(3);
    J[2].first = 1;
    J[0].gate = J[1].gate = 2;
    sched_init(&S, J, 3, 1, 1, 1);
    begin();
    assert_string_equal(exited(2, SO_FAILED), "");
    assert_int_equal(J[0].state, SJ_BLOCKED);
    assert_int_equal(J[1].state, SJ_BLOCKED);
    jobs(6); /* rungs 0, 1 on GPU 0; 2, 3 on GPU 1; canaries 4, 5 */
    J[0].pin = J[1].pin = J[4].pin = 0;
    J[2].pin = J[3].pin = J[5].pin = 1;
    J[4].first = J[5].first = 1;
    J[0].gate = J[1].gate = 4;
    J[2].gate = J[3].gate = 5;
    sched_init(&S, J, 6, 2, 1, 1);
    assert_string_equal(begin(), "START 4@0, START 5@1");
    assert_string_equal(exited(5, SO_DONE), "START 2@1");
    assert_string_equal(exited(4, SO_FAILED), "");
    assert_string_equal(exited(2, SO_DONE), "START 3@1");
    assert_int_equal(J[0].state, SJ_BLOCKED);
}

/* A stop: nothing starts any more; exits are still counted; a late
 * answer changes nothing. */
static void test_stop(void **state)
{
    (void)state;
    jobs(3);
    J[1].need = J[2].need = 100;
    sched_init(&S, J, 3, 1, 2, 1);
    begin();
    assert_string_equal(loaded(0), "PROBE 0");
    assert_string_equal(stop(), "");
    assert_string_equal(probed(0, 90000), "");
    assert_string_equal(exited(0, SO_FAILED), "");
    assert_int_equal(sched_running(&S), 0);
    assert_int_equal(J[1].state, SJ_PENDING);
    assert_int_equal(sched_init(&S, J, 3, SCHED_MAX_SLOTS + 1, 1, 1), -1);
}

/* The build keeps its steps' phases: one out of its first, then a pass. */
static const char *phased(size_t job)
{
    struct sched_event ev = {.type = SE_PASS};
    J[job].early = 0;
    return step_ev(&ev);
}

/* The build: --jobs 3 in the config's order; a quantization waits for
 * its source rung; two of one source file are not hashed at once; a
 * source that failed leaves what is made from it blocked. */
static void test_build(void **state)
{
    (void)state;
    jobs(6); /* 0 f16 (convert); 1, 2, 3 from 0; 4 brought; 5 from 4 */
    J[1].gate = J[2].gate = J[3].gate = 0;
    J[5].gate = 4;
    J[1].key = J[2].key = J[3].key = 0;
    J[4].state = SJ_DONE; /* there already */
    J[5].key = 4;
    sched_init(&S, J, 6, 0, 1, 3);
    assert_string_equal(begin(), "START 0, START 5");
    assert_string_equal(exited(0, SO_DONE), "START 1");
    assert_string_equal(phased(1), "START 2");
    assert_string_equal(phased(2), ""); /* three at once */
    assert_string_equal(exited(5, SO_DONE), "START 3");
    jobs(3);
    J[1].gate = 0;
    J[2].gate = 1;
    sched_init(&S, J, 3, 0, 1, 3);
    assert_string_equal(begin(), "START 0");
    assert_string_equal(exited(0, SO_FAILED), "");
    assert_int_equal(J[1].state, SJ_BLOCKED);
    assert_int_equal(J[2].state, SJ_BLOCKED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_slots),    cmocka_unit_test(test_gpus),
        cmocka_unit_test(test_beside),      cmocka_unit_test(test_free_memory),
        cmocka_unit_test(test_nomem),       cmocka_unit_test(test_gates),
        cmocka_unit_test(test_stop),        cmocka_unit_test(test_build),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
