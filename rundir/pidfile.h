/*
 * pidfile.h - RUNDIR/<RUNG>.server.pid: which process is this rung's
 * llama-server, told so that nobody else's process is ever mistaken for it.
 *
 * A server dies with the graveyard that started it (spawn.h's parent-death
 * signal and keeper), so a server left running is rare: a graveyard built
 * without them, a kernel without them, a keeper killed with graveyard. For
 * those, the pid file records the server's pid, its start time in clock ticks
 * since boot (/proc/PID/stat, field 22) and the boot's id
 * (/proc/sys/kernel/random/boot_id). A later run stops the process only when
 * all three still match: the same process, however the binary was named (a
 * relative path, a folder, a link), and never a pid the kernel has since given
 * to another process, before or after a reboot.
 *
 * The server's process group outlives its leader when the leader is a
 * wrapper script that does not exec: the script dies, the real server
 * it started runs on in the group. So a record whose process is gone
 * still names its group while a process of this boot, started no earlier
 * than the recorded start time, has that group id: the kernel gives a
 * number still used as a group id to no new process. (Left undetected:
 * the whole group ended, the number went to a new process that made a
 * group of its own and exited while its children ran on, all since.)
 */
#ifndef PIDFILE_H
#define PIDFILE_H

#include <stddef.h>
#include <sys/types.h>

/* Record pid in path (written whole; a link there is refused). Returns 0,
 * or -1 with a message. */
int pidfile_write(const char *path, pid_t pid, char *msg, size_t msgsize);

/*
 * Read path: when it names a process of this boot that is still the one
 * recorded, its pid (the server had a session of its own, so its process
 * group is that pid too); when that process is gone but its group is not
 * (pidfile_group_alive), the pid too: the group to stop. Otherwise 0, and the
 * file is removed; -1 with a message when the file cannot be read or removed.
 * Nothing is signalled and nothing waits: the caller stops the group and asks
 * again on a timer until the answer is 0 (runner.c), so a pid the kernel gives
 * to another process meanwhile is never signalled.
 */
long pidfile_find(const char *path, char *msg, size_t msgsize);

/* A process's start time in clock ticks since boot, or -1 when it is
 * gone (a zombie counts as gone). */
long long pidfile_start_time(pid_t pid);

/* Whether a live process of process group pgid started at start (clock
 * ticks since boot) or later. */
int pidfile_group_alive(long pgid, long long start);

#endif
