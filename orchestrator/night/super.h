/*
 * super.h - the one supervisor of a night's loop, for the ladder's rungs
 * and the build's steps alike: one libuv loop, its stop signals (SIGINT,
 * SIGTERM, SIGHUP unless under nohup), one tick a second, the live
 * progress lines on a terminal (plain lines once a minute elsewhere), the
 * messages that take them down first, and nvidia-smi asked for a GPU's
 * free memory as a child of the loop with a time limit, its answer
 * handed back as a callback: nothing here waits on the loop thread, so a
 * signal is seen at once.
 *
 * Its command (cmd_ladder.c, buildstep.c, and runner.c for one rung's
 * run) gives the callbacks: what a stop signal stops, what each tick
 * watches, the lines to draw, whether any child of its still runs, and
 * where a probe's answer goes; which job starts where is the scheduler's
 * (sched.h). A command with neither watch nor draw (the run: its rows
 * tell their own progress) has no tick. The loop runs until no child
 * of the command runs; then the signals and the tick are closed, any
 * probe still asking is killed, and the loop ends.
 */
#ifndef SUPER_H
#define SUPER_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#define SUPER_MAX_PROBES 64 /* CONFIG_MAX_GPUS */

struct super_ops {
    void (*stop)(void *ctx, int signum); /* the first stop signal (each
                                            one under SUPER_SECOND_AGAIN) */
    void (*watch)(void *ctx);            /* each tick until a stop (or
                                            NULL) */
    void (*draw)(void *ctx);             /* the live lines: super_line (or
                                            NULL: no tick, with watch) */
    int (*busy)(void *ctx);              /* a child of the command runs */
    void (*probed)(void *ctx, size_t slot, long free_mib); /* -1: no
                                                             answer */
};

struct super_probe {
    struct super *s;
    size_t slot;
    struct proc *proc; /* asking, or NULL */
};

struct super {
    uv_loop_t loop;
    int stopping, sig; /* a stop signal came: its number */
    /* private */
    const char *who;
    int quiet, tty, drawn, second, ticking, closed;
    uint64_t last_plain;
    const struct super_ops *ops;
    void *ctx;
    uv_signal_t sigs[3];
    uv_timer_t tick;
    struct super_probe probes[SUPER_MAX_PROBES];
};

/* What a second stop signal does. */
enum super_second {
    SUPER_SECOND_IGNORED, /* nothing (the build: the tools are stopped and
                             their partial files removed first) */
    SUPER_SECOND_KILLS,   /* it ends the process at once, by its default
                             action (the ladder: its runs stop themselves
                             by their parent-death signal) */
    SUPER_SECOND_AGAIN    /* it goes to ops->stop too (the run: the rung
                             keeps the first one's exit status and goes on
                             stopping its server, which must not be left) */
};

/*
 * Messages begin "graveyard WHO: " (who is kept, not copied); quiet: no
 * notes nor live lines (errors still). No libuv yet: notes can be said
 * before the loop opens.
 */
void super_init(struct super *s, const char *who, int quiet,
                enum super_second second);

/* The loop, its signals and tick. 0, or -1 having said why. */
int super_open(struct super *s, const struct super_ops *ops, void *ctx);

/* Run the loop until the command has no child running (ops->busy), then
 * close it. 0, or -1 when a handle was left open (said). */
int super_run(struct super *s);

/* A line on stderr, after the live lines are taken down: notes are quiet
 * under quiet, errors never are. */
void super_note(struct super *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void super_error(struct super *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void super_vsay(struct super *s, const char *fmt, va_list ap);

/* One live line, from ops->draw: "  " before it on a terminal (where the
 * block is redrawn each second), else "graveyard WHO: ". */
void super_line(struct super *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Ask nvidia-smi for GPU gpu's free memory (slot: the caller's index,
 * below SUPER_MAX_PROBES), at most GPU_FREE_MS; the answer comes to
 * ops->probed. 0 asked (or already asking), -1 it cannot be asked (no
 * nvidia-smi): unknown. */
int super_probe_free(struct super *s, size_t slot, const char *gpu);

#endif
