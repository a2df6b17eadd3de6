/*
 * proc.h - the server supervisor's process half: start llama-server from an
 * argv array (never a shell) in its own process group, capture stdout and
 * stderr (upstream logs to stderr, the ik fork to stdout) into a capped
 * log file, report its exit, stop it (SIGTERM to the group, a grace period,
 * SIGKILL).
 *
 * The log keeps its first half-cap bytes as they come (the load lines: the
 * build, layers offloaded, buffer sizes) and, past that, only the last
 * half-cap bytes, written when the process ends after a line saying how
 * much was dropped: a chatty server costs a bounded number of bytes.
 */
#ifndef PROC_H
#define PROC_H

#include <stddef.h>
#include <uv.h>

struct proc;

/* The process ended and its output is drained: status is its exit code,
 * signal the signal that killed it (0 if none). */
typedef void (*proc_exit_cb)(void *ctx, long long status, int signal);

/*
 * Start argv[0] with argv, env (NULL: ours), output to log_path (created
 * or appended) capped at log_cap bytes. Returns NULL with a message in msg
 * when it cannot start (no such binary, ...); exit_cb never runs then.
 */
struct proc *proc_spawn(uv_loop_t *loop, char *const *argv, char *const *env,
                        const char *log_path, size_t log_cap,
                        proc_exit_cb exit_cb, void *ctx, char *msg,
                        size_t msgsize);

/* SIGTERM to the process group, then SIGKILL after grace_ms if it is
 * still there. exit_cb runs when it is gone. */
void proc_stop(struct proc *p, unsigned grace_ms);

/* Its pid (also its process group). */
int proc_pid(const struct proc *p);

/* The last complete line it printed ("" if none), for error messages. */
const char *proc_last_line(const struct proc *p);

/* Bytes of output dropped by the cap so far. */
unsigned long long proc_dropped(const struct proc *p);

/* Free after exit_cb has run; closes its handles (asynchronously). */
void proc_free(struct proc *p);

#endif
