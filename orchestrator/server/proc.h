/*
 * proc.h - children on the libuv loop: llama-server, the ladder's
 * `graveyard run`s, probes such as nvidia-smi.
 *
 * A child is started by spawn.h (argv, never a shell; only the descriptors
 * it is given; a parent-death signal so it never outlives us) and watched
 * here: its exit is seen through SIGCHLD and waitpid on its own pid, never
 * by waiting for EOF on a pipe, because a pipe can be held open by
 * something the child started. What it printed before it exited is read
 * at once from the pipe, and the pipe is closed.
 *
 * Its output (stdout and stderr together) goes to a rung's capped log
 * (caplog.h), or into memory for a probe (capped), or nowhere. It can
 * have a time limit, after which its process group is killed. When a
 * child with a group of its own exits, what is left of the group (what a
 * wrapper script started) is killed before the child is reaped
 * (spawn_reap).
 */
#ifndef PROC_H
#define PROC_H

#include <stddef.h>
#include <uv.h>

struct caplog;
struct spawn_rlimit;
struct proc;

/* The process ended and what it wrote is read: status is its exit code,
 * signal the signal that killed it (0 if none). */
typedef void (*proc_exit_cb)(void *ctx, long long status, int signal);

struct proc_opts {
    char *const *argv;   /* argv[0]: a path, or a name found in PATH */
    char *const *env;    /* its whole environment; NULL: ours */
    struct caplog *log;  /* stdout and stderr into this log (borrowed) */
    size_t capture;      /* else, > 0: keep at most this many bytes of
                            stdout (proc_output); stderr to /dev/null */
    int stderr_fd;       /* else: its stderr (2: ours), or SPAWN_NULL */
    int fd3;             /* its fd 3, or SPAWN_CLOSED */
    int new_session;     /* a session (and process group) of its own */
    int pdeathsig;       /* sent to it if we die (0: none) */
    uint64_t timeout_ms; /* killed after this long (0: never) */
    int stdin_fd;        /* > 0: its stdin (a descriptor of ours, read
                            from where it stands); else /dev/null */
    int capture_stderr;  /* a capture keeps stderr too, in one stream */
    int capture_kill;    /* a capture past its cap kills it (its group):
                            proc_overflowed(); else the rest is dropped */
    const struct spawn_rlimit *rlimits; /* spawn.h's, set before exec */
    size_t nrlimits;
    unsigned uid, gid; /* spawn.h's: > 0 and we are root, it runs so */
};

/*
 * Start a child. Returns NULL with a message in msg when it cannot start
 * (no such binary, ...); exit_cb never runs then.
 */
struct proc *proc_start(uv_loop_t *loop, const struct proc_opts *o,
                        proc_exit_cb exit_cb, void *ctx, char *msg,
                        size_t msgsize);

/* SIGTERM (to its group, when it has one), then SIGKILL after grace_ms
 * if it is still there. exit_cb runs when it is gone. */
void proc_stop(struct proc *p, unsigned grace_ms);

/* SIGKILL now. */
void proc_kill(struct proc *p);

/* Whether it has exited (exit_cb has run or is about to). */
int proc_exited(const struct proc *p);

/* Whether its time limit killed it. */
int proc_timed_out(const struct proc *p);

/* Whether it was killed for writing past its capture (capture_kill). */
int proc_overflowed(const struct proc *p);

/* Its pid (also its process group with new_session). */
int proc_pid(const struct proc *p);

/* The last complete line it printed ("" if none), for error messages. */
const char *proc_last_line(const struct proc *p);

/* What a capture kept (NUL-terminated), and its length. */
const char *proc_output(const struct proc *p, size_t *len);

/* Free after exit_cb has run, or to give up on a child that is still
 * running (it is killed). Handles close asynchronously. */
void proc_free(struct proc *p);

#endif
