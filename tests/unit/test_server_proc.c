/*
 * test_server_proc.c - what proc.h and spawn.h give the sandbox (issue
 * 38): a child's stdin from a descriptor of ours, stdout and stderr in
 * one capture, a capture that kills the child past its cap and says so,
 * rlimits set between fork and exec (never above the hard limit we
 * have), a time limit counted from the spawn, and, as root, a user of
 * its own.
 *
 * Tests: orchestrator/server/proc.c
 * Tests: orchestrator/server/spawn.c
 */
#include "helpers.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "../../orchestrator/server/proc.h"
#include "../../orchestrator/server/spawn.h"

struct seen {
    int exited;
    long long status;
    int sig;
};

static void exit_cb(void *ctx, long long status, int sig)
{
    struct seen *s = ctx;

    s->exited++;
    s->status = status;
    s->sig = sig;
}

/* What every child here is started with, beside o's extras: argv, no
 * stderr or fd 3, a session of its own, killed with us, a time limit. */
static void child_opts(struct proc_opts *o, const char *const *argv,
                       unsigned timeout_ms)
{
    o->argv = (char *const *)argv;
    o->stderr_fd = SPAWN_NULL;
    o->fd3 = SPAWN_CLOSED;
    o->new_session = 1;
    o->pdeathsig = SIGKILL;
    o->timeout_ms = timeout_ms;
}

/* Run sh -c script with o's extras; its capture into out. */
static struct seen run(const char *script, struct proc_opts *o, char *out,
                       size_t size, int *overflowed)
{
    const char *argv[] = {"/bin/sh", "-c", script, NULL};
    struct seen s = {0, 0, 0};
    struct proc *p;
    uv_loop_t loop;
    char msg[256];
    time_t t0 = time(NULL);

    uv_loop_init(&loop);
    child_opts(o, argv, 20000);
    p = proc_start(&loop, o, exit_cb, &s, msg, sizeof(msg));
    if (p == NULL)
        fail_msg("cannot start: %s", msg);
    while (!s.exited && time(NULL) - t0 < 25)
        uv_run(&loop, UV_RUN_ONCE);
    assert_int_equal(s.exited, 1);
    snprintf(out, size, "%s", proc_output(p, NULL));
    if (overflowed != NULL)
        *overflowed = proc_overflowed(p);
    proc_free(p);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    return s;
}

/* A time limit counts from the spawn, however long the loop's turn that
 * spawned it had run: here 600 ms of it before proc_start (a pool's kick
 * spawning others first, on a loaded machine). The child then lives its
 * whole 1 s, where it was killed 400 ms after its start. */
static void test_limit_from_spawn(void **state)
{
    const char *argv[] = {"/bin/sh", "-c", "exec sleep 10", NULL};
    struct timespec busy = {0, 600 * 1000 * 1000};
    struct seen s = {0, 0, 0};
    struct proc_opts o;
    struct proc *p;
    uv_loop_t loop;
    uint64_t t0, ms;
    char msg[256];

    (void)state;
    uv_loop_init(&loop);
    memset(&o, 0, sizeof(o));
    child_opts(&o, argv, 1000);
    nanosleep(&busy, NULL); /* the loop's cached time now 600 ms old */
    t0 = uv_hrtime();
    p = proc_start(&loop, &o, exit_cb, &s, msg, sizeof(msg));
    if (p == NULL)
        fail_msg("cannot start: %s", msg);
    while (!s.exited)
        uv_run(&loop, UV_RUN_ONCE);
    ms = (uv_hrtime() - t0) / 1000000;
    assert_true(proc_timed_out(p));
    if (ms < 1000)
        fail_msg("killed %llu ms after its spawn, under its 1000 ms limit",
                 (unsigned long long)ms);
    assert_true(ms < 9000); /* killed at its limit, not its 10 s end */
    proc_free(p);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
}

static void test_stdin_and_stderr(void **state)
{
    struct proc_opts o;
    char out[256];
    char path[] = "/tmp/gy-proc-XXXXXX";
    int fd = mkstemp(path);

    (void)state;
    assert_true(fd >= 0);
    unlink(path);
    assert_int_equal(write(fd, "from stdin\n", 11), 11);
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    memset(&o, 0, sizeof(o));
    o.capture = 200;
    o.capture_stderr = 1;
    o.stdin_fd = fd;
    run("read x; echo \"out $x\"; echo err >&2", &o, out, sizeof(out), NULL);
    assert_string_equal(out, "out from stdin\nerr\n");
    /* without them: /dev/null in, stderr not kept (as before) */
    memset(&o, 0, sizeof(o));
    o.capture = 200;
    run("read x; echo \"out [$x]\"; echo err >&2", &o, out, sizeof(out), NULL);
    assert_string_equal(out, "out []\n");
    close(fd);
}

static void test_capture_kill(void **state)
{
    struct proc_opts o;
    struct seen s;
    char out[2048];
    int over = 0;

    (void)state;
    memset(&o, 0, sizeof(o));
    o.capture = 1000;
    o.capture_kill = 1;
    s = run("while :; do echo xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; done", &o,
            out, sizeof(out), &over);
    assert_int_equal(s.sig, SIGKILL);
    assert_true(over);
    assert_int_equal(strlen(out), 1000);
    /* at the cap exactly: not over */
    s = run("printf '%01000d' 0", &o, out, sizeof(out), &over);
    assert_int_equal(s.sig, 0);
    assert_false(over);
    /* without capture_kill the rest is dropped and it runs to its end */
    o.capture_kill = 0;
    s = run("i=0; while [ $i -lt 100 ]; do echo xxxxxxxxxxxxxxxxxxxxxxx; "
            "i=$((i+1)); done; exit 3",
            &o, out, sizeof(out), &over);
    assert_int_equal(s.status, 3);
    assert_false(over);
}

static void test_rlimits(void **state)
{
    struct spawn_rlimit rl[3] = {
        {RLIMIT_CPU, 7, 9},
        {RLIMIT_FSIZE, 1024 * 1024, 1024 * 1024},
        {RLIMIT_NOFILE, 64, RLIM_INFINITY}, /* past ours: lowered to it */
    };
    struct proc_opts o;
    struct rlimit nofile;
    char out[256], want[256];

    (void)state;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &nofile), 0);
    memset(&o, 0, sizeof(o));
    o.capture = 200;
    o.rlimits = rl;
    o.nrlimits = 3;
    run("echo $(ulimit -St) $(ulimit -Ht) $(ulimit -f) $(ulimit -Sn) "
        "$(ulimit -Hn)",
        &o, out, sizeof(out), NULL);
    if (nofile.rlim_max == RLIM_INFINITY)
        snprintf(want, sizeof(want), "7 9 2048 64 unlimited\n");
    else
        snprintf(want, sizeof(want), "7 9 2048 64 %llu\n",
                 (unsigned long long)nofile.rlim_max);
    assert_string_equal(out, want);
}

static void test_uid(void **state)
{
    struct proc_opts o;
    char out[256];

    (void)state;
    if (geteuid() != 0) {
        /* not root: uid is ignored, the child is us */
        memset(&o, 0, sizeof(o));
        o.capture = 200;
        o.uid = o.gid = 2000000007;
        run("id -u", &o, out, sizeof(out), NULL);
        snprintf(out + 100, 50, "%u\n", (unsigned)geteuid());
        assert_string_equal(out, out + 100);
        return;
    }
    memset(&o, 0, sizeof(o));
    o.capture = 200;
    o.uid = 2000000007;
    o.gid = 2000000008;
    run("echo $(id -u) $(id -g) $(id -G)", &o, out, sizeof(out), NULL);
    assert_string_equal(out, "2000000007 2000000008 2000000008\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limit_from_spawn),
        cmocka_unit_test(test_stdin_and_stderr),
        cmocka_unit_test(test_capture_kill),
        cmocka_unit_test(test_rlimits),
        cmocka_unit_test(test_uid),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
