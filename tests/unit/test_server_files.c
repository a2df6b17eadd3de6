/*
 * test_server_files.c - how graveyard starts children and owns its files:
 * a child gets only the descriptors it is handed and dies with us
 * (spawn.h); a capture has a time limit; a child's exit is seen while
 * something it started holds its pipe (proc.h); a log's cap is the
 * rung's, over restarts and resumes (caplog.h); no link is followed where
 * graveyard writes (files.h, outfile.h); a pid file names one process,
 * never another that got its pid (pidfile.h).
 *
 * Tests: orchestrator/server/spawn.c
 * Tests: orchestrator/server/proc.c
 * Tests: orchestrator/server/caplog.c
 * Tests: rundir/files.c
 * Tests: rundir/outfile.c
 * Tests: rundir/pidfile.c
 * Tests: util/printable.c
 */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "../../grader/grader.h"
#include "../../orchestrator/server/caplog.h"
#include "files.h"
#include "outfile.h"
#include "pidfile.h"
#include "../../orchestrator/server/proc.h"
#include "../../orchestrator/server/spawn.h"
#include "../../util/util.h"

static long file_size(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

/* A child sees 0, 1, 2 and what it was handed as 3; nothing else, even
 * a descriptor of ours that is not close-on-exec. */
static void test_only_given_fds(void **state)
{
    const char *argv[] = {"/bin/sh", "-c", "ls /proc/self/fd | sort -n | "
                                           "tr '\\n' ' '",
                          NULL};
    char out[256];
    int leak[2], rc;

    (void)state;
    assert_int_equal(pipe(leak), 0); /* inherited by a plain fork/exec */
    rc = spawn_capture(argv, 0, 5000, out, sizeof(out));
    assert_int_equal(rc, 0);
    /* ls's own directory descriptor is 3 */
    assert_string_equal(out, "0 1 2 3 ");
    close(leak[0]);
    close(leak[1]);
}

/* A capture that hangs is killed when its time is up, with what it
 * started (its process group). */
static void test_capture_timeout(void **state)
{
    /* a duration no other test sleeps, so that a test running beside
     * this one (another checkout's) cannot be taken for it */
    const char *argv[] = {"/bin/sh", "-c",
                          "sleep 30.25 & echo started; wait", NULL};
    char out[64];
    time_t t0 = time(NULL);

    (void)state;
    assert_int_equal(spawn_capture(argv, 0, 300, out, sizeof(out)),
                     SPAWN_ETIMEDOUT);
    assert_string_equal(out, "started\n");
    assert_true(time(NULL) - t0 < 5);
    /* sleep 30.25 was in the group: gone */
    sleep_ms(100);
    assert_int_not_equal(system("pgrep -f '^sleep 30.25$' >/dev/null"), 0);
}

static void test_capture_status(void **state)
{
    const char *fail[] = {"/bin/sh", "-c", "exit 3", NULL};
    const char *none[] = {"/nonexistent/graveyard-test-binary", NULL};
    char out[16], text[64];

    (void)state;
    assert_int_equal(spawn_capture(fail, 0, 5000, out, sizeof(out)), 3);
    assert_int_equal(spawn_capture(none, 0, 5000, out, sizeof(out)),
                     SPAWN_ENOEXEC);
    assert_string_equal(spawn_status_text(3, text, sizeof(text)),
                        "exit status 3");
}

/* PATH lookup, and a clear error for what is not there. */
static void test_resolve(void **state)
{
    struct buf path = {0};
    char *long_name = malloc(BUF_PATH_MAX + 2);

    (void)state;
    assert_non_null(long_name);
    assert_int_equal(spawn_resolve("sh", &path), 0);
    assert_non_null(strstr(path.p, "/sh"));
    assert_int_equal(spawn_resolve("graveyard-no-such-tool", &path), ENOENT);
    assert_string_equal(path.p, "");
    assert_int_equal(spawn_resolve("/etc/passwd", &path), EACCES);
    /* a path past the cap is refused, never cut to another file's */
    memset(long_name, 'a', BUF_PATH_MAX + 1);
    long_name[0] = '/';
    long_name[BUF_PATH_MAX + 1] = '\0';
    assert_int_equal(spawn_resolve(long_name, &path), ENAMETOOLONG);
    assert_string_equal(path.p, "");
    buf_release(&path);
    free(long_name);
}

/* The child dies with us: a parent that is SIGKILLed takes its child
 * along (the parent-death signal set between fork and exec). */
static void test_dies_with_parent(void **state)
{
    int pfd[2];
    pid_t mid, grandchild = 0;
    ssize_t n;

    (void)state;
    assert_int_equal(pipe(pfd), 0);
    mid = fork();
    if (mid == 0) {
        const char *argv[] = {"/bin/sleep", "30", NULL};
        struct spawn_spec s;
        char msg[128];
        pid_t p;
        memset(&s, 0, sizeof(s));
        s.argv = (char *const *)argv;
        s.fd[0] = s.fd[1] = s.fd[2] = SPAWN_NULL;
        s.fd[3] = SPAWN_CLOSED;
        s.new_session = 1;
        s.pdeathsig = SIGKILL;
        if (spawn_start(&s, &p, msg, sizeof(msg)) != 0)
            _exit(1);
        if (write(pfd[1], &p, sizeof(p)) != (ssize_t)sizeof(p))
            _exit(1);
        pause();
        _exit(0);
    }
    close(pfd[1]);
    n = read(pfd[0], &grandchild, sizeof(grandchild));
    close(pfd[0]);
    assert_int_equal(n, sizeof(grandchild));
    assert_int_equal(kill(grandchild, 0), 0);
    kill(mid, SIGKILL);
    waitpid(mid, NULL, 0);
    for (int i = 0; i < 50 && pidfile_start_time(grandchild) >= 0; i++)
        sleep_ms(20);
    assert_true(pidfile_start_time(grandchild) < 0);
}

/* A process the child started dies with us too: a wrapper script that
 * does not exec dies of its parent-death signal, and the real server it
 * started is killed by the keeper (spawn.h), in our stead. */
static void test_grandchild_dies_with_parent(void **state)
{
    int pfd[2], out[2];
    pid_t mid;
    char text[32] = "";
    long grandchild;
    ssize_t n = 0, k;

    (void)state;
    assert_int_equal(pipe(pfd), 0);
    assert_int_equal(pipe(out), 0);
    mid = fork();
    if (mid == 0) {
        const char *argv[] = {"/bin/sh", "-c", "sleep 30 & echo $!; wait",
                              NULL};
        struct spawn_spec s;
        char msg[128];
        pid_t p;
        memset(&s, 0, sizeof(s));
        s.argv = (char *const *)argv;
        s.fd[0] = s.fd[2] = SPAWN_NULL;
        s.fd[1] = out[1];
        s.fd[3] = SPAWN_CLOSED;
        s.new_session = 1;
        s.pdeathsig = SIGKILL;
        if (spawn_start(&s, &p, msg, sizeof(msg)) != 0)
            _exit(1);
        if (write(pfd[1], &p, sizeof(p)) != (ssize_t)sizeof(p))
            _exit(1);
        pause();
        _exit(0);
    }
    close(pfd[1]);
    close(out[1]);
    while (n < (ssize_t)sizeof(text) - 1 && strchr(text, '\n') == NULL &&
           (k = read(out[0], text + n, sizeof(text) - 1 - (size_t)n)) > 0)
        text[n += k] = '\0';
    close(out[0]);
    grandchild = atol(text);
    assert_true(grandchild > 1);
    assert_true(pidfile_start_time((pid_t)grandchild) >= 0);
    kill(mid, SIGKILL);
    waitpid(mid, NULL, 0);
    for (int i = 0; i < 100 && pidfile_start_time((pid_t)grandchild) >= 0; i++)
        sleep_ms(20);
    assert_true(pidfile_start_time((pid_t)grandchild) < 0);
    close(pfd[0]);
}

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

/* A child's exit is seen although a process it left behind still holds
 * its output pipe: never wait for an EOF. What it printed first is kept. */
static void test_exit_not_eof(void **state)
{
    const char *argv[] = {"/bin/sh", "-c",
                          "echo hello; sleep 30 & exit 7", NULL};
    struct proc_opts o;
    struct seen s = {0, 0, 0};
    struct proc *p;
    uv_loop_t loop;
    char msg[128];
    time_t t0 = time(NULL);

    (void)state;
    uv_loop_init(&loop);
    memset(&o, 0, sizeof(o));
    o.argv = (char *const *)argv;
    o.capture = 64;
    o.stderr_fd = SPAWN_NULL;
    o.fd3 = SPAWN_CLOSED;
    o.new_session = 1;
    o.pdeathsig = SIGKILL;
    p = proc_start(&loop, &o, exit_cb, &s, msg, sizeof(msg));
    assert_non_null(p);
    while (!s.exited && time(NULL) - t0 < 10)
        uv_run(&loop, UV_RUN_ONCE);
    assert_int_equal(s.exited, 1);
    assert_int_equal(s.status, 7);
    assert_string_equal(proc_output(p, NULL), "hello\n");
    assert_true(time(NULL) - t0 < 10);
    kill(-proc_pid(p), SIGKILL); /* the sleep left in its group */
    proc_free(p);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
}

/* A leader that exits takes what it left in its group along: what is
 * left of a wrapper's group is killed before the wrapper is reaped. */
static void test_group_dies_with_leader(void **state)
{
    const char *argv[] = {"/bin/sh", "-c", "sleep 30 & echo $!; exit 0",
                          NULL};
    struct proc_opts o;
    struct seen s = {0, 0, 0};
    struct proc *p;
    uv_loop_t loop;
    char msg[128];
    long left;

    (void)state;
    uv_loop_init(&loop);
    memset(&o, 0, sizeof(o));
    o.argv = (char *const *)argv;
    o.capture = 64;
    o.stderr_fd = SPAWN_NULL;
    o.fd3 = SPAWN_CLOSED;
    o.new_session = 1;
    o.pdeathsig = SIGKILL;
    p = proc_start(&loop, &o, exit_cb, &s, msg, sizeof(msg));
    assert_non_null(p);
    while (!s.exited)
        uv_run(&loop, UV_RUN_ONCE);
    left = atol(proc_output(p, NULL));
    assert_true(left > 1);
    for (int i = 0; i < 50 && pidfile_start_time((pid_t)left) >= 0; i++)
        sleep_ms(20);
    assert_true(pidfile_start_time((pid_t)left) < 0);
    proc_free(p);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
}

/* A line of a log quoted on a terminal: controls, DEL, C1 controls and
 * bytes that are not UTF-8 as \xNN; UTF-8 and tabs kept; cut before an
 * escape or a character that would not fit. */
static void test_printable(void **state)
{
    const char in[] = "a\x1b[2J\tb\x7f \xc3\xa9 \xc2\x9b \xff\xc3 \xe2\x82\xac";
    char out[128];
    size_t n;

    (void)state;
    n = util_printable(in, sizeof(in) - 1, out, sizeof(out));
    assert_int_equal(n, strlen(out));
    assert_string_equal(out, "a\\x1b[2J\tb\\x7f \xc3\xa9 \\xc2\\x9b "
                             "\\xff\\xc3 \xe2\x82\xac");
    /* 4 bytes of room: "a" and no half escape */
    util_printable(in, sizeof(in) - 1, out, 4);
    assert_string_equal(out, "a");
    /* the euro sign (3 bytes) does not fit in 2 */
    util_printable("\xe2\x82\xac", 3, out, 3);
    assert_string_equal(out, "");
    assert_int_equal(util_printable("x", 1, out, 0), 0);
}

/* util/ may not call pyre's pyre_utf8_seq, so util_printable reads
 * UTF-8 itself: it must read it as pyre does. Every string of one or two
 * bytes, every three bytes led by 0xe0..0xef, and four led by 0xf0..0xf4
 * with their last two bytes at the edges of a continuation byte: kept
 * whole exactly when pyre_utf8_seq takes it as one character. */
static void test_printable_utf8(void **state)
{
    static const unsigned char edge[] = {0x00, 0x7f, 0x80, 0x8f, 0x90,
                                         0x9f, 0xa0, 0xbf, 0xc0, 0xff};
    unsigned char in[4];
    char out[32];
    unsigned a, b, c, d;
    size_t len, whole;

    (void)state;
    for (a = 0x80; a < 0x100; a++)
        for (b = 0; b < 0x100; b++) {
            in[0] = (unsigned char)a, in[1] = (unsigned char)b;
            for (len = 1; len <= 2; len++) {
                whole = pyre_utf8_seq(in, len) == len &&
                        !(a == 0xc2 && b < 0xa0);
                if (whole !=
                    (util_printable((char *)in, len, out, sizeof out) == len &&
                     memcmp(out, in, len) == 0))
                    fail_msg("%02x %02x (%zu bytes)", a, b, len);
            }
        }
    for (a = 0xe0; a < 0x100; a++)
        for (b = 0; b < 0x100; b++)
            for (c = 0; c < (a < 0xf0 ? 0x100u : sizeof edge); c++)
                for (d = 0; d < (a < 0xf0 ? 1u : sizeof edge); d++) {
                    len = a < 0xf0 ? 3 : 4;
                    in[0] = (unsigned char)a, in[1] = (unsigned char)b;
                    in[2] = a < 0xf0 ? (unsigned char)c : edge[c];
                    in[3] = edge[d];
                    whole = pyre_utf8_seq(in, len) == len;
                    if (whole != (util_printable((char *)in, len, out,
                                                 sizeof out) == len &&
                                  memcmp(out, in, len) == 0))
                        fail_msg("%02x %02x %02x (%zu bytes)", a, b, in[2],
                                 len);
                }
}

/* A time limit kills it, and says so. */
static void test_proc_limit(void **state)
{
    const char *argv[] = {"/bin/sleep", "30", NULL};
    struct proc_opts o;
    struct seen s = {0, 0, 0};
    struct proc *p;
    uv_loop_t loop;
    char msg[128];

    (void)state;
    uv_loop_init(&loop);
    memset(&o, 0, sizeof(o));
    o.argv = (char *const *)argv;
    o.stderr_fd = SPAWN_NULL;
    o.fd3 = SPAWN_CLOSED;
    o.new_session = 1;
    o.timeout_ms = 200;
    p = proc_start(&loop, &o, exit_cb, &s, msg, sizeof(msg));
    assert_non_null(p);
    while (!s.exited)
        uv_run(&loop, UV_RUN_ONCE);
    assert_int_equal(s.sig, SIGKILL);
    assert_true(proc_timed_out(p));
    proc_free(p);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    /* and one that cannot start says why, at once */
    uv_loop_init(&loop);
    argv[0] = "/nonexistent/llama-server";
    assert_null(proc_start(&loop, &o, exit_cb, &s, msg, sizeof(msg)));
    assert_non_null(strstr(msg, "No such file"));
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
}

/* The cap is the rung's: three servers' worth of output, and a resume,
 * stay within it; the head stays, the newest tail replaces the old. */
static void test_caplog_per_rung(void **state)
{
    struct caplog l;
    char path[128], msg[256], line[64], text[8192];
    int k, i;

    (void)state;
    snprintf(path, sizeof(path), "%s/R.server.log", test_dir);
    for (k = 0; k < 2; k++) { /* a run, then its resume */
        assert_int_equal(caplog_open(&l, path, 2048, msg, sizeof(msg)), 0);
        for (i = 0; i < 3 * 100; i++) { /* three servers, 100 lines each */
            snprintf(line, sizeof(line), "run %d line %04d of the log\n", k,
                     i);
            caplog_write(&l, line, strlen(line));
        }
        caplog_close(&l);
        assert_true(file_size(path) <= 2048 + 100);
    }
    slurp(path, text, sizeof(text));
    assert_non_null(strstr(text, "run 0 line 0000")); /* the head */
    assert_non_null(strstr(text, "run 1 line 0299")); /* the last tail */
    assert_null(strstr(text, "run 0 line 0299"));     /* the older tail */
    assert_non_null(strstr(text, "dropped here (log cap)"));
}

/* Links where graveyard's files go are refused, their targets unchanged;
 * a run folder that is a link is the user's and is fine. */
static void test_no_links(void **state)
{
    char victim[128], link[128], dir[128], msg[512], text[64];
    int fd;

    (void)state;
    snprintf(victim, sizeof(victim), "%s/victim", test_dir);
    snprintf(link, sizeof(link), "%s/target.json", test_dir);
    fd = open(victim, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(write(fd, "keep", 4) == 4);
    close(fd);
    assert_int_equal(symlink(victim, link), 0);
    assert_int_equal(outfile_write(link, "new", 3, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "symbolic link"));
    assert_int_equal(files_open(link, O_RDWR | O_APPEND, 0, msg, sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "symbolic link"));
    slurp(victim, text, sizeof(text));
    assert_string_equal(text, "keep");
    /* a folder link inside is refused, the top one allowed */
    snprintf(dir, sizeof(dir), "%s/linkdir", test_dir);
    assert_int_equal(symlink(test_dir, dir), 0);
    assert_int_equal(files_mkdir(dir, 0, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "symbolic link"));
    assert_int_equal(files_mkdir(dir, 1, msg, sizeof(msg)), 0);
}

/* outfile's temporary names: a link planted at the next one is skipped,
 * never written through. */
static void test_planted_tmp(void **state)
{
    char victim[128], target[128], tmp[256], msg[512], text[64];
    unsigned serial;
    int fd;

    (void)state;
    snprintf(victim, sizeof(victim), "%s/victim2", test_dir);
    snprintf(target, sizeof(target), "%s/manifest.json", test_dir);
    fd = open(victim, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(write(fd, "keep", 4) == 4);
    close(fd);
    /* the serial counts up from 0 in this process; plant the next 20 */
    for (serial = 0; serial < 40; serial++) {
        snprintf(tmp, sizeof(tmp), "%s.tmp.%ld.%u", target, (long)getpid(),
                 serial);
        assert_int_equal(symlink(victim, tmp), 0);
    }
    assert_int_equal(outfile_write(target, "{}", 2, msg, sizeof(msg)), 0);
    slurp(victim, text, sizeof(text));
    assert_string_equal(text, "keep");
    slurp(target, text, sizeof(text));
    assert_string_equal(text, "{}");
}

/* A FIFO, a device or a folder where a file goes is refused at once as
 * "not a regular file" (exit 2), by every opener: the FIFO's open never
 * waits for a writer, which is what the test would hang on without it. */
static void test_not_plain(void **state)
{
    char fifo[128], plain[128], msg[512];
    json_error_t jerr;
    FILE *f;
    int fd;

    (void)state;
    snprintf(fifo, sizeof(fifo), "%s/fifo", test_dir);
    snprintf(plain, sizeof(plain), "%s/plain.json", test_dir);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    fd = open(plain, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(write(fd, "{\"a\": 1}", 8) == 8);
    close(fd);
    assert_int_equal(files_open_read(fifo, 0, msg, sizeof(msg)), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(files_exit_code(errno), 2);
    assert_non_null(strstr(msg, "fifo': not a regular file"));
    assert_int_equal(files_open_read("/dev/zero", 0, msg, sizeof(msg)), -1);
    assert_int_equal(files_open_read(test_dir, 0, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "not a regular file"));
    assert_null(files_fopen_read(fifo, 1, msg, sizeof(msg)));
    assert_null(files_json_load(fifo, 0, 0, &jerr));
    assert_string_equal(jerr.text, "not a regular file");
    assert_int_equal(jerr.line, -1);
    /* graveyard's own files: to write (no reader: ENXIO) and to read */
    assert_int_equal(files_open(fifo, O_WRONLY | O_APPEND, 0, msg,
                                sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "not a regular file"));
    assert_int_equal(files_open(fifo, O_RDWR, 0, msg, sizeof(msg)), -1);
    /* a plain file opens, blocking again, and parses */
    fd = files_open_read(plain, 1, msg, sizeof(msg));
    assert_true(fd >= 0);
    assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
    close(fd);
    f = files_fopen_read(plain, 1, msg, sizeof(msg));
    assert_non_null(f);
    fclose(f);
    json_t *j = files_json_load(plain, 1, 0, &jerr);
    assert_non_null(j);
    json_decref(j);
    assert_null(files_json_load("/nonexistent/x.json", 0, 0, &jerr));
    assert_int_equal(errno, ENOENT);
    assert_string_equal(jerr.source, "/nonexistent/x.json");
}

static void test_disk_words(void **state)
{
    (void)state;
    assert_string_equal(files_strerror(ENOSPC), "disk full");
    assert_int_equal(files_exit_code(ENOSPC), 1);
    assert_int_equal(files_exit_code(EDQUOT), 1);
    assert_int_equal(files_exit_code(ENOENT), 2);
    assert_int_equal(files_exit_code(ELOOP), 2);
}

/* A pid file names the very process it was written for, and not one
 * that got its pid since (another start time) or one of another boot;
 * once that process is gone it names none and is removed. */
static void test_pidfile_identity(void **state)
{
    char path[128], msg[256], boot[64];
    pid_t p;
    FILE *f;

    (void)state;
    snprintf(path, sizeof(path), "%s/R.server.pid", test_dir);
    p = fork();
    if (p == 0) {
        setsid();
        execl("/bin/sleep", "sleep", "30", (char *)NULL);
        _exit(127);
    }
    sleep_ms(50);
    f = fopen("/proc/sys/kernel/random/boot_id", "r");
    assert_non_null(f);
    assert_non_null(fgets(boot, sizeof(boot), f));
    fclose(f);
    boot[strcspn(boot, "\n")] = '\0';
    /* the same pid and boot, another start time: left alone */
    f = fopen(path, "w");
    fprintf(f, "%ld 1 %s\n", (long)p, boot);
    fclose(f);
    assert_int_equal(pidfile_find(path, msg, sizeof(msg)), 0);
    assert_int_equal(access(path, F_OK), -1);
    /* the same pid and start time, another boot: left alone */
    f = fopen(path, "w");
    fprintf(f, "%ld %lld 00000000-0000-0000-0000-000000000000\n", (long)p,
            pidfile_start_time(p));
    fclose(f);
    assert_int_equal(pidfile_find(path, msg, sizeof(msg)), 0);
    /* what pidfile_write records: named, and the file stays */
    assert_int_equal(pidfile_write(path, p, msg, sizeof(msg)), 0);
    assert_int_equal(pidfile_find(path, msg, sizeof(msg)), (long)p);
    assert_int_equal(pidfile_find(path, msg, sizeof(msg)), (long)p);
    assert_int_equal(access(path, F_OK), 0);
    /* gone (reaped, as its own parent would): none, and removed */
    assert_int_equal(kill(-p, SIGTERM), 0);
    waitpid(p, NULL, 0);
    assert_int_equal(pidfile_find(path, msg, sizeof(msg)), 0);
    assert_int_equal(access(path, F_OK), -1);
    /* no file: nothing to do */
    assert_int_equal(pidfile_find(path, msg, sizeof(msg)), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_only_given_fds),
        cmocka_unit_test(test_capture_timeout),
        cmocka_unit_test(test_capture_status),
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_dies_with_parent),
        cmocka_unit_test(test_grandchild_dies_with_parent),
        cmocka_unit_test(test_group_dies_with_leader),
        cmocka_unit_test(test_printable),
        cmocka_unit_test(test_printable_utf8),
        cmocka_unit_test(test_exit_not_eof),
        cmocka_unit_test(test_proc_limit),
        cmocka_unit_test(test_caplog_per_rung),
        cmocka_unit_test(test_no_links),
        cmocka_unit_test(test_planted_tmp),
        cmocka_unit_test(test_not_plain),
        cmocka_unit_test(test_disk_words),
        cmocka_unit_test(test_pidfile_identity),
    };

    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
