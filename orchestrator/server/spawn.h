/*
 * spawn.h - start a child the way graveyard starts every child.
 *
 * A child is started from an argv array (never a shell) and gets only the
 * descriptors it is handed as its 0, 1, 2 and 3: every other descriptor of
 * ours is closed before exec, whatever its close-on-exec flag, so a server
 * can never hold a ladder's progress pipe or a rung's lock. Its signal
 * mask is emptied and every disposition reset to the default, but for
 * SIGHUP when we started with it ignored (nohup: cli.h), which stays
 * ignored. It may get
 * a session of its own (then its process group is its pid, and one signal
 * to -pid reaches whatever it starts) and a parent-death signal: Linux's
 * PR_SET_PDEATHSIG, set between fork and exec and followed by a check that
 * the parent is still the process that forked it, so that a child never
 * outlives us, however we die (SIGKILL and the OOM killer included).
 *
 * That signal reaches the child alone, not what it starts: a wrapper
 * script that does not exec would die and leave the real server running.
 * So a child with a session of its own is also named, before it execs, to
 * a keeper: a process forked once, in a session of its own, that waits on
 * a pipe only we can write to and, when we are gone however we ended,
 * SIGKILLs every group still named to it. When a group's leader exits,
 * spawn_reap kills what is left of the group and takes its name back.
 *
 * The signal is tied to the thread that forks: call these from the main
 * (loop) thread, which lives as long as the process.
 *
 * Also here: a blocking, time-limited capture of a short command's output
 * (`--version`, nvidia-smi before a loop runs). No libuv: proc.h watches
 * children on the loop.
 */
#ifndef SPAWN_H
#define SPAWN_H

#include <stddef.h>
#include <sys/types.h>

enum {
    SPAWN_NULL = -1,   /* the child's descriptor reads/writes /dev/null */
    SPAWN_CLOSED = -2, /* the child's descriptor is left closed */
};

/* A resource limit set in the child before it execs (setrlimit): never
 * above the hard limit it inherits (a limit past it is lowered to it). */
struct spawn_rlimit {
    int resource;                  /* RLIMIT_CPU, RLIMIT_AS, ... */
    unsigned long long soft, hard; /* RLIM_INFINITY: none */
};

struct spawn_spec {
    char *const *argv; /* argv[0]: a path, or a name looked up in PATH */
    char *const *env;  /* the child's whole environment; NULL: ours */
    int fd[4];         /* what becomes the child's 0..3: a descriptor of
                          ours, SPAWN_NULL or SPAWN_CLOSED */
    int new_session;   /* setsid(): its process group is its pid */
    int pdeathsig;     /* sent to it when we die; 0 none */
    const struct spawn_rlimit *rlimits; /* set before exec: nrlimits */
    size_t nrlimits;
    unsigned uid, gid; /* uid > 0 (and we are root): it becomes uid:gid,
                          with no supplementary groups, before its
                          parent-death signal is set (a change of
                          credentials clears that signal) */
};

/*
 * A child's whole environment: ours, with each of set[0..n) ("NAME=value")
 * in place of any variable of that name. Every string is a copy; free the
 * array with spawn_env_free().
 */
char **spawn_env_with(const char *const *set, size_t n);
void spawn_env_free(char **env);

/*
 * Find the program argv[0] names: a name without '/' is looked up in
 * PATH. Writes the path into out, a capped path (util.h's buf_path; the
 * caller releases it). Returns 0, or an errno value (ENOENT, EACCES,
 * ENAMETOOLONG for a name past BUF_PATH_MAX: never a cut path); out->p
 * is "" but on 0.
 */
struct buf;
int spawn_resolve(const char *name, struct buf *out);

/*
 * Start s. Returns 0 with *pid set once the child has exec'd; or -1 with
 * a message naming the program in msg (it could not be found or exec'd:
 * the error comes back from the child through a close-on-exec pipe, so
 * it is known here, not later as an exit status 127). The child is ours to
 * wait for.
 */
int spawn_start(const struct spawn_spec *s, pid_t *pid, char *msg,
                size_t msgsize);

/*
 * Reap pid (waitpid's options: 0 or WNOHANG) the way every child of ours
 * with a group is reaped: once it has exited, and before its zombie is
 * reaped (so that its pid, the group's id, is nobody else's meanwhile),
 * what is left of its group is SIGKILLed and the keeper forgets it.
 * Returns pid, 0 while it runs (WNOHANG), -1 on an error (errno).
 */
pid_t spawn_reap(pid_t pid, int group, int *status, int options);

/* What is left of group pgid, whose leader has exited but is not yet
 * reaped, is SIGKILLed, and the keeper forgets the group. */
void spawn_group_end(pid_t pgid);

enum {
    SPAWN_ENOEXEC = -1,   /* could not be started */
    SPAWN_ETIMEDOUT = -2, /* killed when its time was up */
    SPAWN_ESIGNAL = -3,   /* killed by a signal */
};

/*
 * Run argv with stdin from /dev/null, keep what it writes to stdout (and
 * stderr when with_stderr) in buf (at most size - 1 bytes, NUL-terminated;
 * the rest is read and dropped), and wait for it at most timeout_ms: then
 * its process group is killed. It has its own session and dies with us.
 * Returns its exit status (0..255), or SPAWN_ENOEXEC, SPAWN_ETIMEDOUT,
 * SPAWN_ESIGNAL.
 */
int spawn_capture(const char *const *argv, int with_stderr, long timeout_ms,
                  char *buf, size_t size);

/*
 * The build of a llama-server: run `binary --version` (at most
 * timeout_ms) and put its "version: ..." line in out ("" when there is
 * none). Returns what spawn_capture returns.
 */
int spawn_version(const char *binary, long timeout_ms, char *out, size_t size);

/* What a spawn_capture status means, for messages: "exit status 3",
 * "timed out", ... (static text or buf). */
const char *spawn_status_text(int status, char *buf, size_t size);

#endif
