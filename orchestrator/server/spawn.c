/*
 * spawn.c - fork, exec, and a timed capture.
 *
 * Between fork and exec the child is a copy of a process that may run
 * other threads (libuv's pool hashing a model, curl's resolver): it calls
 * only async-signal-safe functions there, and everything it needs (the
 * program's path, the descriptor limit) is worked out before the fork.
 * The keeper, a fork that never execs, keeps to the same rule for life.
 */
#define _GNU_SOURCE /* syscall(), pipe2() */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "../base/cli.h"

extern char **environ;

char **spawn_env_with(const char *const *set, size_t n)
{
    size_t have = 0, k = 0, i, j;
    char **env;

    while (environ[have])
        have++;
    env = xrealloc(NULL, (have + n + 1) * sizeof(*env));
    for (i = 0; i < have; i++) {
        const char *eq = strchr(environ[i], '=');
        size_t len = eq ? (size_t)(eq - environ[i]) + 1 : strlen(environ[i]);
        for (j = 0; j < n && strncmp(environ[i], set[j], len) != 0; j++)
            ;
        if (j == n) /* not one we set */
            env[k++] = xstrdup(environ[i]);
    }
    for (j = 0; j < n; j++)
        env[k++] = xstrdup(set[j]);
    env[k] = NULL;
    return env;
}

void spawn_env_free(char **env)
{
    size_t i;

    for (i = 0; env != NULL && env[i] != NULL; i++)
        free(env[i]);
    free(env);
}

static int executable(const char *path)
{
    struct stat st;

    if (stat(path, &st) != 0)
        return errno;
    if (!S_ISREG(st.st_mode))
        return EACCES;
    return access(path, X_OK) == 0 ? 0 : errno;
}

int spawn_resolve(const char *name, struct buf *out)
{
    const char *path = getenv("PATH"), *p, *end;
    int err = ENOENT, e;

    if (buf_path(out, "%s", "") != 0 || name[0] == '\0')
        return ENOENT;
    if (strchr(name, '/') != NULL) {
        if (buf_path(out, "%s", name) != 0)
            return ENAMETOOLONG;
        return executable(out->p);
    }
    if (path == NULL || path[0] == '\0')
        path = "/usr/local/bin:/usr/bin:/bin";
    for (p = path;; p = end + 1) {
        size_t dir;
        end = strchr(p, ':');
        if (end == NULL)
            end = p + strlen(p);
        dir = (size_t)(end - p);
        /* an empty entry is the current folder, as in execvp; an entry
         * whose path passes the cap is passed over, never cut */
        if (buf_path(out, "%.*s%s%s", (int)dir, p, dir ? "/" : "", name) ==
            0) {
            e = executable(out->p);
            if (e == 0)
                return 0;
            if (e == EACCES)
                err = EACCES; /* found, but not runnable: say so */
        }
        if (*end == '\0')
            break;
    }
    out->len = 0; /* "" but on 0, as the first buf_path made it */
    out->p[0] = '\0';
    return err;
}

/* Close every descriptor from first up, but keep. */
static void close_from(int first, int keep, long max)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)first, (unsigned)keep - 1, 0) ==
            0 &&
        syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0) == 0)
        return;
#endif
    for (long fd = first; fd < max; fd++)
        if (fd != keep)
            close((int)fd);
}

/* ---- the keeper -------------------------------------------------------
 *
 * The parent-death signal reaches the direct child only: a site's wrapper
 * script that does not exec (one that sets LD_LIBRARY_PATH) dies with us,
 * and the real llama-server it started runs on, holding its GPU and port.
 * Nothing of ours runs when we are SIGKILLed, so another process does it:
 * the keeper, forked once (at the first child with a session of its own),
 * in a session of its own (a kill of our process group spares it), holding
 * the read end of a pipe whose only write end is ours. Each such child
 * writes its pid (its group's id) there before it execs; we write the id
 * negated once the group's leader has exited and what was left of the group
 * is killed (spawn_reap). When the pipe reports EOF, we are gone, however
 * we ended: the keeper SIGKILLs every group still named, and exits. */

#define KEEP_MAX 256 /* groups alive at once: far more than a run has */

static int keep_fd = -1; /* the write end, non-blocking; -1: no keeper */
static pid_t keep_pid, keep_owner; /* the keeper, and whose it is */

/* Our command line, as ps and pgrep -f show it, made "graveyard keeper":
 * a copy of graveyard's own would be taken for graveyard (a kill of the
 * run by its command line would take the keeper along). The kernel reads
 * it from the argument area, whose bounds are /proc/self/stat's fields 48
 * and 49; it is ours to overwrite. Hand-parsed: async-signal-safe. */
static void keep_title(void)
{
    static const char title[] = "graveyard keeper";
    char buf[4096];
    unsigned long v[2] = {0, 0};
    ssize_t n, i;
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC), field = 2;

    if (fd < 0)
        return;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    for (i = n - 1; i >= 0 && buf[i] != ')'; i--) /* after "(comm)" */
        ;
    for (i++; i > 0 && i < n && field <= 49; i++) {
        if (buf[i] == ' ') {
            field++;
        } else if (field >= 48 && buf[i] >= '0' && buf[i] <= '9') {
            v[field - 48] = v[field - 48] * 10 + (unsigned long)(buf[i] - '0');
        }
    }
    if (v[0] == 0 || v[1] <= v[0])
        return;
    memset((char *)v[0], 0, v[1] - v[0]);
    memcpy((char *)v[0], title,
           v[1] - v[0] > sizeof(title) ? sizeof(title) : v[1] - v[0] - 1);
}

/* The keeper, forked from a process that may run other threads: only
 * async-signal-safe calls, and it never returns. */
static void keeper(int rfd, long maxfd) __attribute__((noreturn));
static void keeper(int rfd, long maxfd)
{
    static const int ours[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
    struct sigaction sa;
    pid_t group[KEEP_MAX];
    size_t n = 0, i;
    sigset_t none;
    int32_t rec;
    ssize_t got;
    int sig;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_DFL;
    for (sig = 1; sig < 65; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, &sa, NULL);
    /* a stop meant for graveyard (^C, a hangup, kill -TERM of its name)
     * is graveyard's to handle: the keeper waits for it to end */
    sa.sa_handler = SIG_IGN;
    for (i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
        sigaction(ours[i], &sa, NULL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    setsid();
#ifdef __linux__
    prctl(PR_SET_NAME, "graveyard-keep");
    keep_title();
#endif
    if ((rfd = fcntl(rfd, F_DUPFD, 64)) < 0)
        _exit(1);
    close_from(0, rfd, maxfd); /* our write end too, or no EOF ever */
    for (;;) {
        got = read(rfd, &rec, sizeof(rec));
        if (got < 0 && errno == EINTR)
            continue;
        if (got != (ssize_t)sizeof(rec)) /* EOF: graveyard is gone */
            break;
        if (rec > 0 && n < KEEP_MAX) {
            group[n++] = (pid_t)rec;
        } else if (rec < 0) {
            for (i = 0; i < n && group[i] != (pid_t)-rec; i++)
                ;
            if (i < n)
                group[i] = group[--n];
        }
    }
    for (i = 0; i < n; i++)
        kill(-group[i], SIGKILL);
    _exit(0);
}

static long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Wait for a SIGCHLD, held in set (blocked by the caller), for up to ms
 * (100 at most, so that the caller looks at its deadline and for a stop
 * signal between waits): an event with a time limit, never a nap. 1 when
 * one came (taken: the caller raises it again for whoever else waits on
 * one), else 0.
 */
static int chld_within(const sigset_t *set, long long ms)
{
    struct timespec ts;

    if (ms > 100)
        ms = 100;
    if (ms < 0)
        ms = 0;
    ts.tv_sec = 0;
    ts.tv_nsec = (long)ms * 1000000L;
    return sigtimedwait(set, NULL, &ts) == SIGCHLD;
}

/* At exit: the pipe closes, and the keeper (with nothing left to kill, or
 * the groups we gave up on) is reaped here, not left to init. */
static void keep_end(void)
{
    sigset_t chld, old;
    long long deadline;

    if (keep_fd < 0 || keep_owner != getpid())
        return;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &old);
    close(keep_fd);
    keep_fd = -1;
    /* its exit waited for, a second at most: no nap, the event itself */
    deadline = now_ms() + 1000;
    while (waitpid(keep_pid, NULL, WNOHANG) == 0 && now_ms() < deadline)
        (void)chld_within(&chld, deadline - now_ms()); /* we are ending */
    sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Fork the keeper; without one (no pipe, no fork) a child still has its
 * parent-death signal. */
static void keep_start(long maxfd)
{
    static int registered;
    sigset_t all, old;
    int fd[2];
    pid_t p;

    if (pipe2(fd, O_CLOEXEC) != 0)
        return;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old);
    p = fork();
    if (p == 0)
        keeper(fd[0], maxfd);
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(fd[0]);
    if (p < 0) {
        close(fd[1]);
        return;
    }
    /* never block the loop: a full pipe means a stopped keeper */
    if (fcntl(fd[1], F_SETFL, O_NONBLOCK) != 0) {
        close(fd[1]);
        kill(p, SIGKILL);
        waitpid(p, NULL, 0);
        return;
    }
    keep_fd = fd[1];
    keep_pid = p;
    keep_owner = getpid();
    if (!registered && atexit(keep_end) == 0)
        registered = 1;
}

/* Tell the keeper rec; a keeper that is gone (killed) is replaced at the
 * next child, and the groups it held go without it. */
static void keep_tell(int32_t rec)
{
    ssize_t n;

    if (keep_fd < 0 || keep_owner != getpid())
        return;
    do
        n = write(keep_fd, &rec, sizeof(rec));
    while (n < 0 && errno == EINTR);
    if (n < 0 && errno == EPIPE) {
        close(keep_fd);
        keep_fd = -1;
        waitpid(keep_pid, NULL, WNOHANG);
    }
}

void spawn_group_end(pid_t pgid)
{
    if (pgid <= 1)
        return;
    kill(-pgid, SIGKILL);
    keep_tell(-(int32_t)pgid);
}

pid_t spawn_reap(pid_t pid, int group, int *status, int options)
{
    siginfo_t si;
    pid_t w;

    memset(&si, 0, sizeof(si));
    /* seen, not yet reaped: the zombie keeps its pid, so the group's id
     * is nobody else's while what is left of it is killed */
    while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT | options) != 0)
        if (errno != EINTR)
            return -1;
    if (si.si_pid != pid)
        return 0; /* still running (WNOHANG) */
    if (group)
        spawn_group_end(pid);
    while ((w = waitpid(pid, status, 0)) < 0 && errno == EINTR)
        ;
    return w;
}

/* The child's limits (spawn_spec's rlimits): 0, or -1 with errno. Set
 * last, after its descriptors are in place (RLIMIT_NOFILE would refuse
 * the moves above it). Only system calls, async-signal-safe. */
static int child_rlimits(const struct spawn_spec *s)
{
    size_t i;

    for (i = 0; i < s->nrlimits; i++) {
        struct rlimit have, want;
        if (getrlimit(s->rlimits[i].resource, &have) != 0)
            return -1;
        want.rlim_max = s->rlimits[i].hard;
        if (have.rlim_max != RLIM_INFINITY &&
            (want.rlim_max == RLIM_INFINITY || want.rlim_max > have.rlim_max))
            want.rlim_max = have.rlim_max;
        want.rlim_cur = s->rlimits[i].soft;
        if (want.rlim_max != RLIM_INFINITY &&
            (want.rlim_cur == RLIM_INFINITY || want.rlim_cur > want.rlim_max))
            want.rlim_cur = want.rlim_max;
        if (setrlimit(s->rlimits[i].resource, &want) != 0)
            return -1;
    }
    return 0;
}

/* The child's user (spawn_spec's uid), before its parent-death signal:
 * a change of credentials clears that. 0, or -1 with errno. */
static int child_user(const struct spawn_spec *s)
{
    if (s->uid > 0 && geteuid() == 0) {
        if (setgroups(0, NULL) != 0 || setgid((gid_t)s->gid) != 0 ||
            setuid((uid_t)s->uid) != 0)
            return -1;
    }
    return 0;
}

/* The child, between fork and exec: never returns. Only async-signal-safe
 * calls: the parent may have other threads (libuv's pool hashing a
 * model), and a lock one of them held at fork would never be released
 * here. It starts with every signal blocked (spawn_start). */
static void child(const struct spawn_spec *s, const char *path, pid_t parent,
                  int errfd, int keepfd, long maxfd)
{
    struct sigaction sa;
    sigset_t none;
    int i, tmp[4], err;

    /* the default for every signal, then an empty mask: before the
     * parent-death signal, so that it cannot land in a handler of ours */
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_DFL;
    for (i = 1; i < 65; i++)
        if (i != SIGKILL && i != SIGSTOP)
            sigaction(i, &sa, NULL);
    /* ... but a hangup we were told to ignore (nohup) is ignored by
     * what we start too: a rung and its server outlive the terminal as
     * the ladder does */
    if (cli_hup_ignored()) {
        sa.sa_handler = SIG_IGN;
        sigaction(SIGHUP, &sa, NULL);
    }
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (s->new_session && setsid() < 0)
        goto fail;
    if (s->new_session && keepfd >= 0) {
        /* named to the keeper before anything runs that could start a
         * process of its own; a keeper that is gone must not end us with
         * SIGPIPE (set to ignore, the signal is dropped) */
        int32_t me = (int32_t)getpid();
        sa.sa_handler = SIG_IGN;
        sigaction(SIGPIPE, &sa, NULL);
        if (write(keepfd, &me, sizeof(me)) != (ssize_t)sizeof(me))
            me = 0; /* not named: its parent-death signal still holds */
        sa.sa_handler = SIG_DFL;
        sigaction(SIGPIPE, &sa, NULL);
    }
    if (child_user(s) != 0)
        goto fail;
#ifdef __linux__
    if (s->pdeathsig != 0) {
        if (prctl(PR_SET_PDEATHSIG, s->pdeathsig) != 0)
            goto fail;
        /* the parent may have died before the line above: then no signal
         * will ever come, and the child must not start at all */
        if (getppid() != parent)
            _exit(128 + s->pdeathsig);
    }
#else
    (void)parent;
#endif
    /* move everything out of the way first: a source may be 0..3 */
    if ((errfd = fcntl(errfd, F_DUPFD_CLOEXEC, 64)) < 0)
        goto fail;
    for (i = 0; i < 4; i++) {
        int src = s->fd[i];
        tmp[i] = -1;
        if (src == SPAWN_NULL)
            src = open("/dev/null", O_RDWR);
        if (src >= 0 && (tmp[i] = fcntl(src, F_DUPFD_CLOEXEC, 64)) < 0)
            goto fail;
    }
    for (i = 0; i < 4; i++) {
        if (tmp[i] >= 0) {
            if (dup2(tmp[i], i) < 0) /* the copy is not close-on-exec */
                goto fail;
        } else {
            close(i);
        }
    }
    close_from(4, errfd, maxfd);
    if (child_rlimits(s) != 0)
        goto fail;
    execve(path, s->argv, s->env ? s->env : environ);
fail:
    err = errno;
    while (write(errfd, &err, sizeof(err)) < 0 && errno == EINTR)
        ;
    _exit(127);
}

/* spawn_start's for the program found at path. */
static int start_at(const struct spawn_spec *s, const char *path, pid_t *pid,
                    char *msg, size_t msgsize)
{
    long maxfd = sysconf(_SC_OPEN_MAX);
    pid_t parent = getpid(), p;
    int e, err = 0, ep[2];
    sigset_t all, old;
    ssize_t n;

    if (maxfd < 0 || maxfd > 1 << 20)
        maxfd = 1 << 20;
    if (pipe2(ep, O_CLOEXEC) != 0) {
        snprintf(msg, msgsize, "cannot start '%s': %s", s->argv[0],
                 strerror(errno));
        return -1;
    }
    /* every signal blocked across fork (libuv's uv_spawn does the same):
     * a signal for the child between fork and the reset of its handlers
     * would run a copy of one of ours (libuv's writes to our loop's
     * pipe) and be lost; blocked, it waits until child() has set the
     * defaults, then takes its default course */
    if (s->new_session && keep_fd >= 0 && keep_owner != parent) {
        /* a copy of a process that had a keeper (a plain fork): that
         * keeper watches the other process; this one gets its own */
        close(keep_fd);
        keep_fd = -1;
    }
    if (s->new_session && keep_fd < 0)
        keep_start(maxfd);
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old);
    p = fork();
    if (p == 0) {
        close(ep[0]);
        child(s, path, parent, ep[1], keep_fd, maxfd);
    }
    e = errno;
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (p < 0) {
        close(ep[0]);
        close(ep[1]);
        snprintf(msg, msgsize, "cannot start '%s': %s", s->argv[0],
                 strerror(e));
        return -1;
    }
    close(ep[1]);
    /* EOF: exec succeeded (the pipe closed on exec); else its errno */
    do
        n = read(ep[0], &err, sizeof(err));
    while (n < 0 && errno == EINTR);
    close(ep[0]);
    if (n == (ssize_t)sizeof(err)) {
        spawn_reap(p, s->new_session, NULL, 0);
        snprintf(msg, msgsize, "cannot start '%s': %s", path, strerror(err));
        return -1;
    }
    *pid = p;
    return 0;
}

int spawn_start(const struct spawn_spec *s, pid_t *pid, char *msg,
                size_t msgsize)
{
    struct buf path = {0};
    int e, rc = -1;

    if ((e = spawn_resolve(s->argv[0], &path)) != 0)
        snprintf(msg, msgsize, "cannot start '%.200s%s': %s", s->argv[0],
                 strlen(s->argv[0]) > 200 ? "..." : "", strerror(e));
    else
        rc = start_at(s, path.p, pid, msg, msgsize);
    buf_release(&path);
    return rc;
}

/* A stop signal (INT, TERM, HUP) is waiting while we block them. */
static int stop_pending(void)
{
    sigset_t p;

    return sigpending(&p) == 0 &&
           (sigismember(&p, SIGINT) == 1 || sigismember(&p, SIGTERM) == 1 ||
            sigismember(&p, SIGHUP) == 1);
}

/* Wait for pid until deadline (ms), or a stop signal; then kill its group
 * and reap it. SIGCHLD is held (spawn_capture): its exit is the SIGCHLD
 * waited for; *got is set when one was taken. */
static int reap_by(pid_t pid, long long deadline, int *timed_out, int *got)
{
    sigset_t chld;
    int status;
    pid_t w;

    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    for (;;) {
        w = spawn_reap(pid, 1, &status, WNOHANG);
        if (w == pid)
            return status;
        if (w < 0)
            return -1;
        if (now_ms() >= deadline || stop_pending()) {
            *timed_out = 1;
            kill(-pid, SIGKILL);
            w = spawn_reap(pid, 1, &status, 0);
            return w == pid ? status : -1;
        }
        *got |= chld_within(&chld, deadline - now_ms());
    }
}

enum read_end { READ_EOF, READ_LATE, READ_STOPPED };

/* Read fd into buf (size - 1 bytes kept, the rest drained and dropped)
 * until EOF or an error, the deadline, or a held stop signal, polling
 * every 100 ms at most so that a stop is seen. *got is what was kept. */
static enum read_end read_until(int fd, char *buf, size_t size,
                                long long deadline, size_t *got)
{
    char sink[4096];

    for (;;) {
        struct pollfd pfd = {fd, POLLIN, 0};
        long long left = deadline - now_ms();
        ssize_t n;
        int rc;
        if (stop_pending())
            return READ_STOPPED;
        if (left <= 0)
            return READ_LATE;
        rc = poll(&pfd, 1, left > 100 ? 100 : (int)left);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc < 0)
            return READ_EOF;
        if (rc == 0)
            continue; /* the deadline is checked above */
        if (*got + 1 < size)
            n = read(fd, buf + *got, size - 1 - *got);
        else
            n = read(fd, sink, sizeof(sink)); /* over the cap: dropped */
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return READ_EOF; /* it closed its output, and is about to exit */
        if (*got + 1 < size)
            *got += (size_t)n;
    }
}

int spawn_capture(const char *const *argv, int with_stderr, long timeout_ms,
                  char *buf, size_t size)
{
    struct spawn_spec s;
    char msg[256];
    long long deadline = now_ms() + timeout_ms;
    size_t got = 0;
    int fd[2], status, timed_out = 0, stopped = 0, killed = 0, got_chld = 0;
    sigset_t stop, old;
    pid_t pid;

    buf[0] = '\0';
    /* a stop signal while we wait kills the child's whole group first,
     * then takes its course (with the default action, it ends us): held
     * back meanwhile, and looked for between short polls */
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    sigaddset(&stop, SIGCHLD); /* the child's exit, waited for in reap_by */
    sigprocmask(SIG_BLOCK, &stop, &old);
    if (pipe2(fd, O_CLOEXEC) != 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        return SPAWN_ENOEXEC;
    }
    memset(&s, 0, sizeof(s));
    s.argv = (char *const *)argv;
    s.fd[0] = SPAWN_NULL;
    s.fd[1] = fd[1];
    s.fd[2] = with_stderr ? fd[1] : SPAWN_NULL;
    s.fd[3] = SPAWN_CLOSED;
    s.new_session = 1;
    s.pdeathsig = SIGKILL;
    if (spawn_start(&s, &pid, msg, sizeof(msg)) != 0) {
        close(fd[0]);
        close(fd[1]);
        sigprocmask(SIG_SETMASK, &old, NULL);
        return SPAWN_ENOEXEC;
    }
    close(fd[1]);
    switch (read_until(fd[0], buf, size, deadline, &got)) {
    case READ_STOPPED:
        stopped = 1;
        break;
    case READ_LATE:
        timed_out = 1;
        break;
    default:
        break;
    }
    buf[got] = '\0';
    close(fd[0]);
    status =
        reap_by(pid, timed_out || stopped ? 0 : deadline, &killed, &got_chld);
    stopped |= stop_pending();
    if (got_chld)
        raise(SIGCHLD); /* another child's, taken with ours, is seen */
    sigprocmask(SIG_SETMASK, &old, NULL); /* a held signal arrives now */
    if (stopped)
        return SPAWN_ESIGNAL;
    if (timed_out || killed)
        return SPAWN_ETIMEDOUT;
    if (status < 0 || WIFSIGNALED(status))
        return SPAWN_ESIGNAL;
    return WEXITSTATUS(status);
}

int spawn_version(const char *binary, long timeout_ms, char *out, size_t size)
{
    const char *argv[] = {binary, "--version", NULL};
    char buf[4096], *line, *save = NULL;
    int rc = spawn_capture(argv, 1, timeout_ms, buf, sizeof(buf));

    out[0] = '\0';
    for (line = strtok_r(buf, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save))
        if (strncmp(line, "version:", 8) == 0) {
            line[strcspn(line, "\r")] = '\0';
            snprintf(out, size, "%s", line);
            break;
        }
    return rc;
}

const char *spawn_status_text(int status, char *buf, size_t size)
{
    switch (status) {
    case SPAWN_ENOEXEC:
        return "could not be started";
    case SPAWN_ETIMEDOUT:
        return "did not finish in time and was killed";
    case SPAWN_ESIGNAL:
        return "was killed by a signal";
    default:
        snprintf(buf, size, "exit status %d", status);
        return buf;
    }
}
