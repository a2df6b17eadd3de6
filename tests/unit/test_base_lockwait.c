/*
 * test_base_lockwait.c - the one wait for files.lock
 * (orchestrator/base/lockwait.h): the decision after each try, alone;
 * the loop's waiter against a lock this test holds (flock is per open
 * file, so a second open in one process is another holder): it gives up
 * at its limit naming the file, takes the lock once it is let go, never
 * calls back from within its start nor after a cancel, and keeps the
 * loop free between tries (a timer of the test's fires meanwhile); and
 * the blocking waiter for commands without a loop, to the same rules.
 *
 * Tests: orchestrator/base/lockwait.c
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../orchestrator/base/lockwait.h"

static char dir[64];

/* a run folder with locks/ in it */
static void make_dir(void)
{
    char p[128];

    snprintf(dir, sizeof(dir), "/tmp/gy-lockwait-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(p, sizeof(p), "%s/locks", dir);
    assert_int_equal(mkdir(p, 0755), 0);
}

static void remove_dir(void)
{
    char p[128];

    snprintf(p, sizeof(p), "%s/locks/files.lock", dir);
    unlink(p);
    snprintf(p, sizeof(p), "%s/locks", dir);
    rmdir(p);
    rmdir(dir);
}

/* files.lock held by this test: the fd, close it to let go */
static int hold(void)
{
    char p[128];
    int fd;

    snprintf(p, sizeof(p), "%s/locks/files.lock", dir);
    fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
    return fd;
}

static void test_next(void **state)
{
    (void)state;
    assert_int_equal(lockwait_next(0, 0, 1000), LOCKWAIT_HELD);
    /* free after the limit: taken all the same */
    assert_int_equal(lockwait_next(0, 5000, 1000), LOCKWAIT_HELD);
    assert_int_equal(lockwait_next(1, 0, 1000), LOCKWAIT_AGAIN);
    assert_int_equal(lockwait_next(1, 999, 1000), LOCKWAIT_AGAIN);
    assert_int_equal(lockwait_next(1, 1000, 1000), LOCKWAIT_GAVE_UP);
    assert_int_equal(lockwait_next(1, 0, 0), LOCKWAIT_GAVE_UP);
    assert_int_equal(lockwait_next(-1, 0, 1000), LOCKWAIT_EOPEN);
    assert_int_equal(lockwait_next(-2, 0, 1000), LOCKWAIT_ELOCK);
}

struct seen {
    int calls, rc, fd;
    uint64_t at; /* the loop's time at the call */
    char msg[1100];
    int ticks;   /* the test's own timer, meanwhile */
    int release; /* the fd the test lets go at its timer's first tick */
};

static void done_cb(struct lockwait *lw, int rc, int fd)
{
    struct seen *s = lw->ctx;

    s->calls++;
    s->rc = rc;
    s->fd = fd;
    s->at = uv_now(lw->timer.loop);
    snprintf(s->msg, sizeof(s->msg), "%s", lw->msg);
    lockwait_close(lw, NULL);
}

static void tick_cb(uv_timer_t *t)
{
    struct seen *s = t->data;

    s->ticks++;
    if (s->release >= 0 && s->ticks == 3) {
        close(s->release); /* let go: the waiter takes it next */
        s->release = -1;
    }
    if (s->calls > 0)
        uv_close((uv_handle_t *)t, NULL);
}

/* Wait on a loop with limit_ms; the test's timer ticks every 10 ms
 * (and lets go of release at its third). Returns what done saw. */
static struct seen wait_on_loop(uint64_t limit_ms, int release)
{
    uv_loop_t loop;
    uv_timer_t tick;
    struct lockwait lw;
    struct seen s;
    uint64_t t0;

    memset(&s, 0, sizeof(s));
    s.fd = -1;
    s.release = release;
    assert_int_equal(uv_loop_init(&loop), 0);
    lockwait_init(&lw, &loop);
    uv_timer_init(&loop, &tick);
    tick.data = &s;
    uv_timer_start(&tick, tick_cb, 10, 10);
    t0 = uv_now(&loop);
    assert_int_equal(lockwait_start(&lw, dir, limit_ms, done_cb, &s), 0);
    assert_int_equal(s.calls, 0); /* never from within the start */
    /* a second wait on the same waiter is refused, and calls nothing */
    assert_int_equal(lockwait_start(&lw, dir, limit_ms, done_cb, &s), -1);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    s.at -= t0;
    return s;
}

static void test_loop_gives_up(void **state)
{
    int fd;
    struct seen s;

    (void)state;
    make_dir();
    fd = hold();
    s = wait_on_loop(150, -1);
    close(fd);
    assert_int_equal(s.calls, 1);
    assert_int_equal(s.rc, LOCKWAIT_GAVE_UP);
    assert_int_equal(s.fd, -1);
    assert_true(s.at >= 150);
    assert_true(s.at < 150 + 2000);
    /* the loop was free between tries: the test's timer ticked */
    assert_true(s.ticks >= 5);
    assert_non_null(strstr(s.msg, "/locks/files.lock' was held by another "
                                  "process for 150 ms"));
    assert_non_null(strstr(s.msg, dir));
    remove_dir();
}

static void test_loop_takes_it(void **state)
{
    struct seen s;
    char p[128];
    int other;

    (void)state;
    make_dir();
    s = wait_on_loop(60000, hold());
    assert_int_equal(s.calls, 1);
    assert_int_equal(s.rc, LOCKWAIT_HELD);
    assert_true(s.fd >= 0);
    assert_true(s.at >= 30); /* let go at the third tick */
    assert_true(s.at < 5000);
    /* it is the waiter's now: another open cannot take it */
    snprintf(p, sizeof(p), "%s/locks/files.lock", dir);
    other = open(p, O_RDWR);
    assert_true(other >= 0);
    assert_int_equal(flock(other, LOCK_EX | LOCK_NB), -1);
    assert_int_equal(errno, EWOULDBLOCK);
    close(other);
    close(s.fd);
    remove_dir();
}

static void test_loop_cancel(void **state)
{
    uv_loop_t loop;
    struct lockwait lw;
    struct seen s;
    int fd;

    (void)state;
    make_dir();
    memset(&s, 0, sizeof(s));
    assert_int_equal(uv_loop_init(&loop), 0);
    lockwait_init(&lw, &loop);
    /* free: taken at the first try, but cancelled before the loop runs */
    assert_int_equal(lockwait_start(&lw, dir, 1000, done_cb, &s), 0);
    lockwait_cancel(&lw);
    uv_run(&loop, UV_RUN_NOWAIT);
    assert_int_equal(s.calls, 0);
    /* held: closed while waiting; the loop ends, done never called */
    fd = hold();
    assert_int_equal(lockwait_start(&lw, dir, 60000, done_cb, &s), 0);
    uv_run(&loop, UV_RUN_NOWAIT);
    lockwait_close(&lw, NULL);
    lockwait_close(&lw, NULL); /* twice is harmless */
    assert_int_equal(lockwait_start(&lw, dir, 1000, done_cb, &s), -1);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(s.calls, 0);
    close(fd);
    remove_dir();
}

static void test_loop_no_folder(void **state)
{
    uv_loop_t loop;
    struct lockwait lw;
    struct seen s;

    (void)state;
    memset(&s, 0, sizeof(s));
    assert_int_equal(uv_loop_init(&loop), 0);
    lockwait_init(&lw, &loop);
    assert_int_equal(
        lockwait_start(&lw, "/nonexistent-gy/run", 1000, done_cb, &s), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(s.calls, 1);
    assert_int_equal(s.rc, LOCKWAIT_EOPEN);
    assert_int_equal(s.fd, -1);
    assert_non_null(strstr(s.msg, "/nonexistent-gy/run/locks/files.lock"));
}

static void test_block(void **state)
{
    char msg[1100];
    int fd, got;

    (void)state;
    make_dir();
    fd = hold();
    assert_int_equal(lockwait_block(dir, 100, &got, msg, sizeof(msg)),
                     LOCKWAIT_GAVE_UP);
    assert_int_equal(got, -1);
    assert_non_null(
        strstr(msg, "files.lock' was held by another process for 100 ms"));
    close(fd);
    assert_int_equal(lockwait_block(dir, 100, &got, msg, sizeof(msg)),
                     LOCKWAIT_HELD);
    assert_true(got >= 0);
    close(got);
    remove_dir();
    assert_int_equal(
        lockwait_block("/nonexistent-gy/run", 100, &got, msg, sizeof(msg)),
        LOCKWAIT_EOPEN);
    assert_int_equal(errno, ENOENT);
    assert_non_null(strstr(msg, "/nonexistent-gy/run/locks/files.lock"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_next),
        cmocka_unit_test(test_loop_gives_up),
        cmocka_unit_test(test_loop_takes_it),
        cmocka_unit_test(test_loop_cancel),
        cmocka_unit_test(test_loop_no_folder),
        cmocka_unit_test(test_block),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
