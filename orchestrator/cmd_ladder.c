/*
 * cmd_ladder.c - graveyard ladder CONFIG: every rung of a ladder, each on
 * its own pinned llama-server, then the bury.
 *
 * Each rung runs as a child `graveyard run` (the same binary), so a rung is
 * exactly what `graveyard run` does, resumable on its own; the ladder only
 * schedules: an idle GPU takes the next rung (CUDA_VISIBLE_DEVICES through
 * --gpu), a rung locked by another process (another shard, another
 * machine on a shared folder) is left to it, and when every rung is done
 * the ladder buries them. The children die with the ladder (a
 * parent-death signal set between fork and exec: spawn.h), stopping their
 * servers, and the servers die with them; the next ladder resumes. A
 * child's exit is seen as an exit (proc.h), never as the end of its
 * progress pipe, which something it started could hold open.
 */
#define _GNU_SOURCE /* pipe2() */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "../grader/grader.h"
#include "cli.h"
#include "commands.h"
#include "build.h"
#include "config.h"
#include "figures.h"
#include "hash.h"
#include "../rundir/beside.h"
#include "../rundir/meta.h"
#include "../rundir/run.h"
#include "../rundir/rundir.h"
#include "proc.h"
#include "progress.h"
#include "sched.h"
#include "spawn.h"
#include "super.h"

#define GRACE_MS   20000 /* a run stops its server in 10 s */
#define VERSION_MS 30000

/* J_BAD: the child refused its input (exit 2): fixing it, not resuming,
 * is what helps */
enum job_state {
    J_PENDING,
    J_RUNNING,
    J_DONE,
    J_FAILED,
    J_BAD,
    J_BUSY,
    J_OTHER
};

struct ladder;

struct job {
    struct ladder *l;
    const struct config_rung *rung;
    enum job_state state;
    struct proc *proc;
    uv_pipe_t progress; /* the child's GRAVEYARD_PROGRESS_FD */
    int progress_open;
    struct progress_reader reader;
    struct progress p;  /* as the run last said */
    int gpu;            /* index into gpus while running, -1 none */
    int pin;            /* --replicate: the only GPU it may run on, or -1 */
    int again;          /* the reference's second run, into RUNDIR/repeat/ */
    int canary;         /* the folder's canary: its rungs wait for it to
                           pass (cmd_canary.c) */
    long rows_here;     /* 1 once this run wrote a row: its model is
                           loaded */
    char name[80];      /* for people: the rung, "BF16 again" */
    char run_dir[4200];
};

struct ladder {
    struct config c;
    struct super sup;     /* the loop, its signals, tick and lines */
    struct sched sched;   /* which job starts when, on which GPU */
    struct job *jobs;     /* rungs, or rungs x GPUs with --replicate */
    struct sched_job *sj; /* the same jobs, as the scheduler sees them */
    size_t njobs;
    size_t ngpus;
    int per_gpu; /* rungs_per_gpu: at most this many at once on one GPU */
    const char *self;
    const char *cfg_path; /* the config, as given */
    char cfg_sha256[65];  /* its sha256 when the ladder started */
    char **env;           /* ours, and the ladder's pid and progress fd */
    int quiet;
    char chunk[4096]; /* every child's progress pipe reads into it: the
                         reader copies what it takes (progress.h) */
};

static const char ladder_help[] =
    "usage: graveyard ladder CONFIG [--llama PATH] [--gpus 0,1,...]\n"
    "                        [--only RUNG]... [--run-dir DIR]\n"
    "                        [--shard I/N] [--replicate]\n"
    "                        [--repeat-reference] [--per-gpu K] [--quiet]\n"
    "\n"
    "Run every rung of the ladder in CONFIG (docs/config.md), each with\n"
    "'graveyard run' on its own llama-server, skipping finished rungs and\n"
    "continuing half-finished ones, then bury the ladder against its\n"
    "reference (RUNDIR/graveyard.json) and the side rungs beside it\n"
    "(RUNDIR/graveyard-side.json). With several GPUs, each idle GPU takes\n"
    "the next rung. Exit 0 only when every rung finished.\n"
    "\n"
    "  --llama PATH   the server binary (or llama.cpp folder) for this\n"
    "                 machine, over the config's server.binary\n"
    "  --gpus LIST    GPUs to use, over the config's gpus\n"
    "  --only RUNG    run only these rungs (repeat)\n"
    "  --run-dir DIR  over the config's run_dir\n"
    "  --shard I/N    run share I of N (0-based): rung k when k % N == I;\n"
    "                 SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT give it\n"
    "                 under a Slurm job array\n"
    "  --replicate    run the whole ladder once per GPU, each in its own\n"
    "                 folder RUNDIR/gpu<ID>/ (the cross-GPU study on one\n"
    "                 machine), and bury each\n"
    "  --repeat-reference\n"
    "                 run the reference a second time, into RUNDIR/repeat/\n"
    "                 (config: \"repeat_reference\": true): the report's\n"
    "                 noise floor, the answers it changes on its own\n"
    "  --per-gpu K    up to K rungs at once on one GPU, each on its own\n"
    "                 one-slot server, so every answer is as when alone\n"
    "                 (config: \"rungs_per_gpu\"); beside others, a rung\n"
    "                 starts only when the GPU has the memory it took when\n"
    "                 it last ran, and one that does not fit waits\n"
    "  --quiet        no progress lines\n"
    "\n"
    "The config is checked whole before anything starts. A model file\n"
    "that is missing but has a recipe (\"convert\" or \"quantize\",\n"
    "docs/build.md) is made first, as 'graveyard build' would; every other\n"
    "model file this process will run must exist. Exit status: 0 every rung\n"
    "finished (and was buried), 1 a rung failed or the night was cut short\n"
    "(run the same command to resume), 2 bad input (fix it first).\n";

static void note(const struct ladder *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(const struct ladder *l, const char *fmt, ...)
{
    va_list ap;

    if (l->quiet)
        return;
    va_start(ap, fmt);
    super_vsay((struct super *)&l->sup, fmt, ap);
    va_end(ap);
}

static void feed(struct ladder *l, const struct sched_event *ev);
static void carry_out(struct ladder *l, const struct sched_action *a,
                      size_t n);

/* One job's progress as a line: rung, GPU, done/total, right, speed, ETA. */
static void describe(const struct ladder *l, const struct job *j, char *out,
                     size_t size)
{
    const struct progress *p = &j->p;
    long eta = p->sec_per_q > 0
                   ? (long)((double)(p->total - p->done) * p->sec_per_q)
                   : -1;
    char gpu[64] = "";

    if (j->gpu >= 0)
        snprintf(gpu, sizeof(gpu), " GPU %s%s", l->c.gpus[j->gpu],
                 l->sched.slots[j->gpu].busy > 1 ? " (shared)" : "");
    if (p->total == 0) {
        snprintf(out, size, "%-10s%s  starting", j->name, gpu);
        return;
    }
    snprintf(out, size,
             "%-10s%s  %ld/%ld answered  %ld right  %.1f tok/s  ETA "
             "%ldm%02lds",
             j->name, gpu, p->done, p->total, p->right, p->tps,
             eta > 0 ? eta / 60 : 0, eta > 0 ? eta % 60 : 0);
}

/* The live lines: one per running job. */
static void draw_cb(void *ctx)
{
    struct ladder *l = ctx;
    char line[256];

    for (size_t i = 0; i < l->njobs; i++) {
        if (l->jobs[i].state != J_RUNNING)
            continue;
        describe(l, &l->jobs[i], line, sizeof(line));
        super_line(&l->sup, "%s", line);
    }
}

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    struct job *j = h->data;

    (void)suggested;
    *buf = uv_buf_init(j->l->chunk, sizeof(j->l->chunk));
}

/* Progress lines from a child (progress.h). */
static void progress_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    struct job *j = s->data;

    if (n < 0) {
        if (j->progress_open) {
            j->progress_open = 0;
            uv_close((uv_handle_t *)s, NULL);
        }
        return;
    }
    progress_take(&j->reader, buf->base, (size_t)n, &j->p);
    if (j->p.done > 0 && j->rows_here == 0) {
        /* its model is loaded now (it answered): a rung waiting to share
         * its GPU can be weighed against the memory nvidia-smi sees */
        struct sched_event ev = {.type = SE_LOADED,
                                 .job = (size_t)(j - j->l->jobs)};
        j->rows_here = 1;
        feed(j->l, &ev);
    }
}

/* The scheduler's answer to ev, into *acts (free it); how many. */
static size_t step(struct ladder *l, const struct sched_event *ev,
                   struct sched_action **acts)
{
    size_t max = l->njobs + l->ngpus + 1;

    *acts = xrealloc(NULL, max * sizeof(**acts));
    return sched_step(&l->sched, ev, *acts, max);
}

static void exit_cb(void *ctx, long long status, int sig)
{
    struct job *j = ctx;
    struct ladder *l = j->l;
    struct sched_event ev = {.type = SE_EXITED,
                             .job = (size_t)(j - l->jobs),
                             .outcome = SO_FAILED};
    struct sched_action *acts;
    size_t n;

    if (status == EXIT_OK && sig == 0)
        ev.outcome = SO_DONE;
    else if (status == EXIT_NOMEM && sig == 0)
        ev.outcome = SO_NOMEM; /* beside others it waits (sched.h) */
    n = step(l, &ev, &acts);
    if (status == EXIT_OK && sig == 0)
        j->state = J_DONE;
    else if (l->sj[ev.job].state == SJ_PENDING)
        j->state = J_PENDING; /* it did not fit beside the others */
    else if (status == EXIT_BUSY && sig == 0)
        j->state = J_BUSY;
    else if (status == EXIT_USAGE && sig == 0)
        j->state = J_BAD;
    else
        j->state = J_FAILED;
    /* the run is gone: whatever still holds its pipe is not our business */
    if (j->progress_open) {
        j->progress_open = 0;
        uv_read_stop((uv_stream_t *)&j->progress);
        uv_close((uv_handle_t *)&j->progress, NULL);
    }
    proc_free(j->proc);
    j->proc = NULL;
    if (j->state == J_PENDING)
        note(l,
             "%s did not fit on GPU %s beside %d other rung(s); it waits "
             "for room",
             j->name, l->c.gpus[j->gpu], l->sj[ev.job].beside);
    else if (j->canary)
        note(l, "%s %s", j->name,
             j->state == J_DONE ? "passed: the night starts"
             : j->state == J_BAD
                 ? "refused its input (its error is above)"
                 : "did not pass (its verdict is above): no rung starts");
    else if (j->state == J_DONE && j->p.total > 0)
        note(l, "%s%s%s finished: %ld/%ld right", j->name,
             j->pin >= 0 ? " on GPU " : "",
             j->pin >= 0 ? l->c.gpus[j->pin] : "", j->p.right, j->p.total);
    else if (j->state == J_FAILED && sig != 0)
        note(l, "%s was stopped by signal %d", j->name, sig);
    else
        note(l, "%s %s", j->name,
             j->state == J_DONE   ? "finished"
             : j->state == J_BUSY ? "is being run by another process"
             : j->state == J_BAD  ? "refused its input (its error is above)"
                                  : "failed (its error is above)");
    carry_out(l, acts, n);
    free(acts);
}

/* A rung started on a GPU other rungs are running on: said, and kept in
 * RUNDIR/beside.jsonl for the report (rundir/beside.h). */
static void beside_note(struct ladder *l, const struct job *j)
{
    const char *names[CONFIG_MAX_RUNGS];
    struct buf list = {0};
    char msg[512];
    size_t i, n = 0;

    buf_append(&list, "", 0);
    for (i = 0; i < l->njobs; i++) {
        const struct job *o = &l->jobs[i];
        if (o == j || o->state != J_RUNNING || o->gpu != j->gpu ||
            n == CONFIG_MAX_RUNGS)
            continue;
        names[n++] = o->name;
        buf_puts(&list, n > 1 ? ", " : "");
        buf_puts(&list, o->name);
    }
    note(l, "%s started on GPU %s beside %s", j->name, l->c.gpus[j->gpu],
         list.p);
    if (!j->canary && !j->again &&
        rundir_beside_append(j->run_dir, j->rung->name, l->c.gpus[j->gpu],
                             names, n, msg, sizeof(msg)) != 0)
        note(l, "%s", msg);
    buf_release(&list);
}

/* Start `graveyard run` for job j on GPU g (-1: none): the config itself,
 * with the rung's name and what the ladder's command line stands in for
 * (the binary, the folder, the GPU), and the config's sha256 so that an
 * edit made meanwhile is refused. The run reads and checks the config with
 * the same code as the ladder; no setting travels as a flag. */
static int start(struct ladder *l, struct job *j, int g)
{
    const struct config *c = &l->c;
    const char *argv[24];
    char msg[512];
    struct proc_opts po;
    size_t n = 0;
    int fd[2];

    argv[n++] = l->self;
    argv[n++] = j->canary ? "canary" : "run";
    argv[n++] = "--config";
    argv[n++] = l->cfg_path;
    argv[n++] = "--config-sha256";
    argv[n++] = l->cfg_sha256;
    if (!j->canary) {
        argv[n++] = "--rung";
        argv[n++] = j->rung->name;
    }
    argv[n++] = "--run-dir";
    argv[n++] = j->run_dir;
    argv[n++] = "--llama";
    argv[n++] = c->binary;
    argv[n++] = "--quiet";
    if (g >= 0) {
        argv[n++] = "--gpu";
        argv[n++] = c->gpus[g];
    }
    argv[n] = NULL;
    memset(&j->p, 0, sizeof(j->p));
    memset(&j->reader, 0, sizeof(j->reader));
    j->rows_here = 0;
    if (pipe2(fd, O_CLOEXEC) != 0) {
        fprintf(stderr, "graveyard ladder: cannot make a pipe: %s\n",
                strerror(errno));
        j->state = J_FAILED;
        return -1;
    }
    memset(&po, 0, sizeof(po));
    po.argv = (char *const *)argv;
    po.env = l->env;
    po.stderr_fd = 2;
    po.fd3 = fd[1];
    po.pdeathsig = SIGTERM; /* it stops its server, which dies with it */
    j->proc = proc_start(&l->sup.loop, &po, exit_cb, j, msg, sizeof(msg));
    close(fd[1]);
    if (j->proc == NULL) {
        fprintf(stderr, "graveyard ladder: %s\n", msg);
        close(fd[0]);
        j->state = J_FAILED;
        return -1;
    }
    uv_pipe_init(&l->sup.loop, &j->progress, 0);
    j->progress.data = j;
    if (uv_pipe_open(&j->progress, fd[0]) == 0) {
        j->progress_open = 1;
        uv_read_start((uv_stream_t *)&j->progress, alloc_cb, progress_cb);
    } else {
        uv_close((uv_handle_t *)&j->progress, NULL);
        close(fd[0]);
    }
    j->state = J_RUNNING;
    j->gpu = g;
    if (l->sj[j - l->jobs].beside > 0)
        beside_note(l, j);
    else if (g >= 0)
        note(l, "%s started on GPU %s", j->name, c->gpus[g]);
    else
        note(l, "%s started", j->name);
    return 0;
}

/* What the scheduler decided, done: a rung started on its GPU (one that
 * cannot start has failed, and that is an event too), a GPU's free memory
 * asked of nvidia-smi (on the loop; none there: unknown). */
static void carry_out(struct ladder *l, const struct sched_action *a,
                      size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct sched_event ev = {.job = a[i].job};
        if (a[i].type == SA_START &&
            start(l, &l->jobs[a[i].job], a[i].slot) != 0) {
            ev.type = SE_EXITED;
            ev.outcome = SO_FAILED;
            feed(l, &ev);
        } else if (a[i].type == SA_PROBE &&
                   super_probe_free(&l->sup, (size_t)a[i].slot,
                                    l->c.gpus[a[i].slot]) != 0) {
            ev.type = SE_PROBED;
            ev.slot = (size_t)a[i].slot;
            ev.free_mib = -1;
            feed(l, &ev);
        }
    }
}

static void feed(struct ladder *l, const struct sched_event *ev)
{
    struct sched_action *acts;
    size_t n = step(l, ev, &acts);

    carry_out(l, acts, n);
    free(acts);
}

static void probed_cb(void *ctx, size_t slot, long free_mib)
{
    struct sched_event ev = {
        .type = SE_PROBED, .slot = slot, .free_mib = free_mib};

    feed(ctx, &ev);
}

/* The first stop signal: nothing starts any more; each run stops its
 * server (10 s at most); one that does not is killed, and its server dies
 * with it. */
static void stop_cb(void *ctx, int signum)
{
    struct ladder *l = ctx;
    struct sched_event ev = {.type = SE_STOP};

    note(l, "stopping on signal %d; run the same command to resume", signum);
    feed(l, &ev);
    for (size_t i = 0; i < l->njobs; i++)
        if (l->jobs[i].state == J_RUNNING)
            proc_stop(l->jobs[i].proc, GRACE_MS);
}

static int busy_cb(void *ctx)
{
    const struct ladder *l = ctx;

    for (size_t i = 0; i < l->njobs; i++)
        if (l->jobs[i].state == J_RUNNING)
            return 1;
    return 0;
}

/* --shard I/N, or Slurm's array variables. */
static int shard_of(const char *arg, long *i, long *n)
{
    const char *id = getenv("SLURM_ARRAY_TASK_ID");
    const char *count = getenv("SLURM_ARRAY_TASK_COUNT");
    char *end;

    *i = 0;
    *n = 1;
    if (arg != NULL) {
        *i = strtol(arg, &end, 10);
        if (*end != '/' || end == arg)
            return -1;
        *n = strtol(end + 1, &end, 10);
        return (*end != '\0' || *n < 1 || *i < 0 || *i >= *n) ? -1 : 0;
    }
    if (id != NULL && count != NULL) {
        *i = strtol(id, &end, 10);
        if (*end != '\0' || end == id)
            return -1;
        *n = strtol(count, &end, 10);
        if (*end != '\0' || end == count || *n < 1 || *i < 0 || *i >= *n)
            return -1;
    }
    return 0;
}

/* RUNDIR/ladder.json: the ladder's shape, so that graveyard report and
 * compare know the chain's order, its reference and its side rungs. */
static int write_shape(const struct config *c, const char *run_dir)
{
    char *chain[CONFIG_MAX_RUNGS], *side[CONFIG_MAX_RUNGS], msg[4600];
    size_t i, nc = 0, ns = 0;

    for (i = 0; i < c->nrungs; i++) {
        if (c->rungs[i].side)
            side[ns++] = c->rungs[i].name;
        else
            chain[nc++] = c->rungs[i].name;
    }
    if (rundir_shape_write(run_dir, c->name, c->reference, chain, nc, side, ns,
                           c->think, msg, sizeof(msg)) != 0) {
        cli_error("ladder", "%s", msg);
        return EXIT_FAILED;
    }
    return EXIT_OK;
}

/* Bury o's rungs and print the figures, as graveyard bury does. */
static int bury(const struct figures_bury_opts *o)
{
    struct figures_bury r;
    int rc;

    if ((rc = figures_bury(o, &r)) == 0)
        rc = figures_bury_write(o, &r);
    figures_bury_release(&r);
    return rc;
}

/* Bury the chain, then the side rungs, in-process (figures.h); then the
 * report. */
static int bury_all(struct ladder *l, const char *run_dir)
{
    const struct config *c = &l->c;
    const char *names[CONFIG_MAX_RUNGS + 1];
    struct figures_bury_opts o = {0};
    struct figures_report_opts ro = {0};
    struct figures_report r;
    char json[4200];
    size_t i, n = 0;
    int rc;

    if ((rc = write_shape(c, run_dir)) != 0)
        return rc;
    names[n++] = c->reference;
    for (i = 0; i < c->nrungs; i++)
        if (!c->rungs[i].side && strcmp(c->rungs[i].name, c->reference))
            names[n++] = c->rungs[i].name;
    o.rundir = run_dir;
    o.rungs = names;
    o.nrungs = n;
    printf("# %s: the ladder against %s, in %s\n", c->name, c->reference,
           run_dir);
    fflush(stdout);
    if ((rc = bury(&o)) != 0)
        return rc;
    for (i = 0, n = 1; i < c->nrungs; i++)
        if (c->rungs[i].side)
            names[n++] = c->rungs[i].name;
    if (n > 1) {
        if (rundir_path(json, sizeof(json), run_dir, RD_GRAVEYARD_SIDE,
                        NULL) != 0)
            return EXIT_USAGE;
        o.nrungs = n;
        o.json_path = json;
        printf("# %s: side rungs against %s\n", c->name, c->reference);
        fflush(stdout);
        if ((rc = bury(&o)) != 0)
            return rc;
    }
    printf("# %s: the report\n", c->name);
    fflush(stdout);
    ro.rundir = run_dir;
    ro.html = 1;
    if ((rc = figures_report(&ro, &r)) == 0)
        rc = figures_report_write(&ro, &r);
    figures_report_release(&r);
    return rc;
}

/* --replicate: the GPUs' folders compared, into RUNDIR. */
static int compare_gpus(struct ladder *l)
{
    char dirs[CONFIG_MAX_GPUS][4200];
    const char *d[CONFIG_MAX_GPUS];
    struct figures_compare_opts o = {0};
    struct figures_compare *r;
    size_t i;
    int rc;

    for (i = 0; i < l->ngpus && i < GRADER_MAX_RUNS; i++) {
        rundir_gpu_dir(dirs[i], sizeof(dirs[i]), l->c.run_dir, l->c.gpus[i]);
        d[o.ndirs++] = dirs[i];
    }
    if (o.ndirs < 2)
        return EXIT_OK;
    o.dirs = d;
    o.out_dir = l->c.run_dir;
    o.html = 1;
    printf("# %s: the GPUs compared\n", l->c.name);
    fflush(stdout);
    r = xrealloc(NULL, sizeof(*r));
    if ((rc = figures_compare(&o, r)) == 0)
        rc = figures_compare_write(&o, r);
    figures_compare_release(r);
    free(r);
    return rc;
}

static int all_done(const struct config *c, const char *run_dir)
{
    char path[4400];
    struct stat st;
    size_t i;

    for (i = 0; i < c->nrungs; i++) {
        if (rundir_path(path, sizeof(path), run_dir, RD_DONE,
                        c->rungs[i].name) != 0 ||
            stat(path, &st) != 0)
            return 0;
    }
    if (c->repeat_reference) { /* and the reference's second run */
        char again[4300];
        if (rundir_path(again, sizeof(again), run_dir, RD_REPEAT_DIR, NULL) !=
                0 ||
            rundir_path(path, sizeof(path), again, RD_DONE, c->reference) !=
                0 ||
            stat(path, &st) != 0)
            return 0;
    }
    return 1;
}

/* The command as given, quoted for a shell, for "run it again". */
static void command_line(int argc, char **argv, struct buf *b)
{
    buf_puts(b, "graveyard ladder");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        buf_puts(b, " ");
        if (a[0] != '\0' && strspn(a, "abcdefghijklmnopqrstuvwxyz"
                                      "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                      "0123456789_-./=,:@%+") == strlen(a)) {
            buf_puts(b, a);
            continue;
        }
        buf_puts(b, "'");
        for (; *a; a++) {
            if (*a == '\'')
                buf_puts(b, "'\\''");
            else
                buf_append(b, a, 1);
        }
        buf_puts(b, "'");
    }
}

/*
 * Before anything starts: every model file this process will run is a
 * file it can read, and the chain goes biggest first (a warning, since a
 * ladder can hold a file larger than the one above it on purpose).
 * Returns 0, or EXIT_USAGE having said why.
 */
static int check_files(struct ladder *l, const char *cfg)
{
    const struct config *c = &l->c;
    unsigned long long prev = 0;
    const char *prev_name = NULL;
    size_t i, k;
    struct stat st;

    for (i = 0; i < l->njobs; i++) {
        const struct config_rung *r = l->jobs[i].rung;
        if (l->jobs[i].state != J_PENDING)
            continue;
        if (stat(r->model, &st) != 0 || !S_ISREG(st.st_mode) ||
            access(r->model, R_OK) != 0) {
            cli_error("ladder", "%s: rung %s: cannot read model '%s': %s", cfg,
                      r->name, r->model,
                      errno && !S_ISDIR(st.st_mode) ? strerror(errno)
                                                    : "not a file");
            return EXIT_USAGE;
        }
    }
    for (k = 0; k < c->nrungs; k++) {
        const struct config_rung *r = &c->rungs[k];
        if (r->side || stat(r->model, &st) != 0)
            continue;
        /* 1 % over: BF16 and F16, or a QAT file and its plain rung, are
         * the same size give or take a header */
        if (prev_name != NULL &&
            (unsigned long long)st.st_size > prev + prev / 100)
            note(l,
                 "warning: rung %s (%llu bytes) is bigger than %s above it "
                 "(%llu bytes); rungs go biggest first: is the order in %s "
                 "right?",
                 r->name, (unsigned long long)st.st_size, prev_name, prev,
                 cfg);
        prev = (unsigned long long)st.st_size;
        prev_name = r->name;
    }
    return 0;
}

/* Files this process will run that are missing and buildable are built
 * first: one command for the night (build, run, bury, report). Another
 * shard's build of the same run folder is waited for, not fought. */
static int build_first(struct ladder *l)
{
    const char *names[CONFIG_MAX_RUNGS];
    struct build_opts o;
    size_t i, n = 0;

    for (i = 0; i < l->njobs; i++)
        if (l->jobs[i].state == J_PENDING && !l->jobs[i].again &&
            l->jobs[i].rung->recipe != RECIPE_NONE && n < CONFIG_MAX_RUNGS)
            names[n++] = l->jobs[i].rung->name;
    if (n == 0 || !build_needed(&l->c, names, n))
        return 0;
    note(l, "some model files are missing, or were made from a file that "
            "has changed since, and have a recipe: making them first "
            "(graveyard build; docs/build.md)");
    memset(&o, 0, sizeof o);
    o.only = names;
    o.nonly = n;
    o.jobs = 1;
    o.quiet = l->quiet;
    o.who = "ladder";
    o.wait_lock = 1;
    return build_ladder(&l->c, &o);
}

/* Our environment for the children, with the ladder's pid and the
 * progress fd. */
static char **child_env(void)
{
    char pid[48];
    const char *set[2] = {pid, "GRAVEYARD_PROGRESS_FD=3"};

    snprintf(pid, sizeof(pid), "GRAVEYARD_LADDER_PID=%ld", (long)getpid());
    return spawn_env_with(set, 2);
}

static char self_path[4096];

/* The jobs: each rung once (or once per GPU with --replicate), those of
 * another shard or left out by --only marked J_OTHER. 0 or the exit
 * status. */
/* The GPU memory rung took when it last ran: its .done in the run folder
 * or in a GPU's folder of it (--replicate), loaded less before; -1 when
 * none says. */
static long long need_of(const struct ladder *l, const char *rung)
{
    struct grader_meta m;
    char dir[4200], msg[512];

    for (size_t g = 0; g <= l->c.ngpus; g++) {
        if (g == 0)
            snprintf(dir, sizeof(dir), "%s", l->c.run_dir);
        else if (rundir_gpu_dir(dir, sizeof(dir), l->c.run_dir,
                                l->c.gpus[g - 1]) != 0)
            continue;
        if (rundir_meta_read(dir, rung, &m, msg, sizeof(msg)) == 0 &&
            m.gpu_mib_loaded >= 0 && m.gpu_mib_before >= 0 &&
            m.gpu_mib_loaded > m.gpu_mib_before)
            return m.gpu_mib_loaded - m.gpu_mib_before;
    }
    return -1;
}

/* One job: rung, pinned to GPU g (--replicate) or not (-1), again for
 * the reference's second run. Shards split the jobs in the order made. */
static void plan_job(struct ladder *l, const struct config_rung *rung, int g,
                     int again, const char **only, size_t nonly, long si,
                     long sn)
{
    struct job *j = &l->jobs[l->njobs];
    char dir[4200];
    size_t k;

    j->l = l;
    j->rung = rung;
    j->gpu = -1;
    j->pin = g;
    j->again = again;
    snprintf(j->name, sizeof(j->name), "%s%s", rung->name,
             again ? " again" : "");
    if (g >= 0)
        rundir_gpu_dir(dir, sizeof(dir), l->c.run_dir, l->c.gpus[g]);
    else
        snprintf(dir, sizeof(dir), "%s", l->c.run_dir);
    if (again)
        rundir_path(j->run_dir, sizeof(j->run_dir), dir, RD_REPEAT_DIR, NULL);
    else
        snprintf(j->run_dir, sizeof(j->run_dir), "%s", dir);
    j->state = (long)l->njobs % sn == si ? J_PENDING : J_OTHER;
    for (k = 0; k < nonly && strcmp(only[k], rung->name); k++)
        ;
    if (nonly > 0 && k == nonly)
        j->state = J_OTHER;
    l->njobs++;
}

/* The canary of the folder of GPU g (-1: the one folder), when a job of
 * this process will run a rung there that is not done: a night that has
 * nothing left to run needs no canary. */
static void plan_canary(struct ladder *l, int g)
{
    struct job *j = &l->jobs[l->njobs];
    char path[4400];
    size_t i;

    for (i = 0; i < l->njobs; i++) {
        const struct job *r = &l->jobs[i];
        if (r->pin == g && r->state == J_PENDING &&
            (rundir_path(path, sizeof(path), r->run_dir, RD_DONE,
                         r->rung->name) != 0 ||
             access(path, F_OK) != 0))
            break;
    }
    if (i == l->njobs)
        return;
    for (i = 0; i < l->c.nrungs; i++)
        if (strcmp(l->c.rungs[i].name, l->c.reference) == 0)
            j->rung = &l->c.rungs[i];
    j->l = l;
    j->gpu = -1;
    j->pin = g;
    j->canary = 1;
    j->state = J_PENDING;
    snprintf(j->name, sizeof(j->name), "canary (%s)", j->rung->name);
    if (g >= 0)
        rundir_gpu_dir(j->run_dir, sizeof(j->run_dir), l->c.run_dir,
                       l->c.gpus[g]);
    else
        snprintf(j->run_dir, sizeof(j->run_dir), "%s", l->c.run_dir);
    l->njobs++;
}

/* The jobs as the scheduler sees them: a rung waits for its folder's
 * canary, which goes first; its need is what it took when it last ran. */
static void plan_sched(struct ladder *l)
{
    for (size_t i = 0; i < l->njobs; i++) {
        const struct job *j = &l->jobs[i];
        struct sched_job *s = &l->sj[i];
        s->state = j->state == J_PENDING ? SJ_PENDING : SJ_OTHER;
        s->first = j->canary;
        s->pin = j->pin;
        s->need = need_of(l, j->rung->name);
        s->beside_max = -1;
        s->key = -1;
        s->gate = -1;
        for (size_t k = 0; k < l->njobs && !j->canary && s->gate < 0; k++)
            if (l->jobs[k].canary && l->jobs[k].pin == j->pin)
                s->gate = (int)k;
    }
}

static int plan_jobs(struct ladder *l, const char *cfg, const char **only,
                     size_t nonly, long si, long sn, int replicate)
{
    size_t i, k, n;

    for (i = 0; i < nonly; i++) {
        for (k = 0; k < l->c.nrungs && strcmp(l->c.rungs[k].name, only[i]);
             k++)
            ;
        if (k == l->c.nrungs) {
            cli_error("ladder", "--only %s: no such rung in '%s'", only[i],
                      cfg);
            return EXIT_USAGE;
        }
    }
    l->ngpus = l->c.ngpus;
    if (replicate && l->ngpus == 0) {
        cli_error("ladder", "--replicate needs GPUs (gpus in the config, or "
                            "--gpus)");
        return EXIT_USAGE;
    }
    n = l->c.nrungs * (replicate ? l->ngpus : 1);
    /* --repeat-reference: the reference once more in each folder; a
     * canary in each */
    l->jobs = xrealloc(NULL, (3 * n + 1) * sizeof(*l->jobs));
    memset(l->jobs, 0, (3 * n + 1) * sizeof(*l->jobs));
    l->sj = xrealloc(NULL, (3 * n + 1) * sizeof(*l->sj));
    memset(l->sj, 0, (3 * n + 1) * sizeof(*l->sj));
    for (i = 0; i < n; i++)
        plan_job(l, &l->c.rungs[i % l->c.nrungs],
                 replicate ? (int)(i / l->c.nrungs) : -1, 0, only, nonly, si,
                 sn);
    for (k = 0; k < l->c.nrungs && l->c.repeat_reference; k++)
        if (strcmp(l->c.rungs[k].name, l->c.reference) == 0)
            for (i = 0; i < (replicate ? l->ngpus : 1); i++)
                plan_job(l, &l->c.rungs[k], replicate ? (int)i : -1, 1, only,
                         nonly, si, sn);
    for (i = 0; l->c.canary_rows && i < (replicate ? l->ngpus : 1); i++)
        plan_canary(l, replicate ? (int)i : -1);
    plan_sched(l);
    return 0;
}

/* Before any model loads: the pinned build answers --version with the
 * version the config names (a hang is killed); our own binary and the
 * config's sha256 for the children. 0 or the exit status. */
static int check_build(struct ladder *l, const char *cfg, char *version,
                       size_t size)
{
    char status[64], err[256];
    ssize_t len;
    int rc = spawn_version(l->c.binary, VERSION_MS, version, size);

    if (version[0] == '\0') {
        cli_error("ladder",
                  "'%s --version' gave no 'version:' line (%s): is it "
                  "a llama-server?",
                  l->c.binary, spawn_status_text(rc, status, sizeof(status)));
        return rc == SPAWN_ETIMEDOUT ? EXIT_FAILED : EXIT_USAGE;
    }
    if (l->c.version && strcmp(version, l->c.version) != 0) {
        cli_error("ladder", "%s: server.version is '%s' but '%s' says '%s'",
                  cfg, l->c.version, l->c.binary, version);
        return EXIT_USAGE;
    }
    len = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
    if (len <= 0) {
        cli_error("ladder", "cannot find its own binary: %s", strerror(errno));
        return EXIT_FAILED;
    }
    self_path[len] = '\0';
    l->self = self_path;
    l->cfg_path = cfg;
    if (hash_path(cfg, l->cfg_sha256, err, sizeof(err)) != 0) {
        cli_error("ladder", "%s", err);
        return EXIT_USAGE;
    }
    return 0;
}

/* Run the rungs on the loop until none is running. 0, or EXIT_FAILED
 * when libuv cannot start. */
static int run_rungs(struct ladder *l)
{
    static const struct super_ops ops = {stop_cb, NULL, draw_cb, busy_cb,
                                         probed_cb};
    struct sched_event ev = {.type = SE_BEGIN};

    if (sched_init(&l->sched, l->sj, l->njobs, l->ngpus, l->per_gpu, 1) !=
            0 ||
        super_open(&l->sup, &ops, l) != 0)
        return EXIT_FAILED;
    feed(l, &ev);
    super_run(&l->sup);
    return 0;
}

/* The "finished: ...; failed: ..." line; counts the jobs by how they
 * ended. */
static void tally(struct ladder *l, int *failed, int *bad, int *busy)
{
    struct buf done = {0}, badl = {0};
    size_t i;

    buf_append(&done, "", 0);
    buf_append(&badl, "", 0);
    for (i = 0; i < l->njobs; i++) {
        const struct job *j = &l->jobs[i];
        *failed += j->state == J_FAILED;
        *bad += j->state == J_BAD;
        *busy += j->state == J_BUSY;
        if (j->state == J_DONE || j->state == J_FAILED || j->state == J_BAD) {
            struct buf *b = j->state == J_DONE ? &done : &badl;
            buf_puts(b, b->len ? ", " : "");
            buf_puts(b, j->name);
        }
    }
    note(l, "finished: %s; failed: %s", done.len ? done.p : "none",
         badl.len ? badl.p : "none");
    buf_release(&done);
    buf_release(&badl);
}

/* --replicate: bury each GPU's folder that is whole, then compare them
 * when all are. */
static int bury_replicas(struct ladder *l, const char *again)
{
    char dir[4200];
    int whole = 1, rc = EXIT_OK;

    for (size_t i = 0; i < l->ngpus && rc == EXIT_OK; i++) {
        rundir_gpu_dir(dir, sizeof(dir), l->c.run_dir, l->c.gpus[i]);
        if (all_done(&l->c, dir))
            rc = bury_all(l, dir);
        else
            whole = 0;
    }
    if (rc == EXIT_OK && !whole)
        fprintf(stderr,
                "graveyard ladder: this share is done; run the same command "
                "again to bury every GPU's ladder: %s\n",
                again);
    else if (rc == EXIT_OK)
        rc = compare_gpus(l);
    return rc;
}

/* After the loop: what to say and the exit status; the bury when every
 * rung is done. */
static int the_end(struct ladder *l, const char *cfg, int replicate,
                   const char *again)
{
    int failed = 0, bad = 0, busy = 0;

    if (l->sup.sig) {
        fprintf(stderr, "graveyard ladder: to resume: %s\n", again);
        return 128 + l->sup.sig;
    }
    tally(l, &failed, &bad, &busy);
    for (size_t i = 0; i < l->njobs; i++)
        if (l->jobs[i].canary && l->jobs[i].state != J_DONE) {
            char path[4400];
            rundir_path(path, sizeof(path), l->jobs[i].run_dir, RD_CANARY_JSON,
                        NULL);
            fprintf(stderr,
                    "graveyard ladder: the canary stopped the night before "
                    "any rung (%s); fix the build or the GPU, or give "
                    "canary.max_changed more room, then run: %s\n",
                    path, again);
            return l->jobs[i].state == J_BAD ? EXIT_USAGE : EXIT_FAILED;
        }
    if (bad) {
        fprintf(stderr,
                "graveyard ladder: %d rung(s) refused their input (the "
                "errors are above); fix that, then run: %s\n",
                bad, again);
        return EXIT_USAGE;
    }
    if (failed) {
        fprintf(stderr,
                "graveyard ladder: %d rung(s) failed; run the same "
                "command to resume: %s\n",
                failed, again);
        return EXIT_FAILED;
    }
    if (replicate)
        return bury_replicas(l, again);
    if (all_done(&l->c, l->c.run_dir))
        return bury_all(l, l->c.run_dir);
    fprintf(stderr,
            "graveyard ladder: this share is done%s; bury when every rung "
            "is: graveyard ladder %s (it runs nothing then), or graveyard "
            "bury %s ...\n",
            busy ? " (some rungs are being run elsewhere)" : "", cfg,
            l->c.run_dir);
    return busy ? EXIT_FAILED : EXIT_OK;
}

static void ladder_free(struct ladder *l)
{
    if (l->env != NULL) {
        spawn_env_free(l->env);
    }
    config_release(&l->c);
    free(l->jobs);
    free(l->sj);
    free(l);
}

int cmd_ladder(int argc, char **argv)
{
    const char *pos[1], *llama = NULL, *gpus = NULL, *run_dir = NULL,
                        *shard = NULL, *only[CONFIG_MAX_RUNGS],
                        *per_gpu = NULL;
    size_t npos, nonly = 0;
    int quiet = 0, help = 0, rc, replicate = 0, repeat_ref = 0;
    const struct cli_flag flags[] = {
        {"--llama", &llama, NULL, NULL, NULL, 0},
        {"--gpus", &gpus, NULL, NULL, NULL, 0},
        {"--only", NULL, NULL, only, &nonly, CONFIG_MAX_RUNGS},
        {"--run-dir", &run_dir, NULL, NULL, NULL, 0},
        {"--shard", &shard, NULL, NULL, NULL, 0},
        {"--quiet", NULL, &quiet, NULL, NULL, 0},
        {"--replicate", NULL, &replicate, NULL, NULL, 0},
        {"--repeat-reference", NULL, &repeat_ref, NULL, NULL, 0},
        {"--per-gpu", &per_gpu, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, 0}};
    struct config_over over = {NULL, NULL, NULL};
    struct ladder *l;
    struct buf again = {0};
    char msg[4400], version[512], buf[4200];
    long si, sn;

    rc = cli_parse("ladder", argc, argv, flags, pos, 1, &npos, &help);
    if (rc != 0)
        return rc;
    if (help) {
        fputs(ladder_help, stdout);
        return EXIT_OK;
    }
    if (npos != 1) {
        cli_error("ladder", "needs CONFIG (see --help)");
        return EXIT_USAGE;
    }
    if (shard_of(shard, &si, &sn) != 0) {
        cli_error("ladder", "--shard wants I/N with 0 <= I < N, not '%s'",
                  shard ? shard : getenv("SLURM_ARRAY_TASK_ID"));
        return EXIT_USAGE;
    }
    l = xrealloc(NULL, sizeof(*l));
    memset(l, 0, sizeof(*l));
    /* --llama over server.binary (its ${VAR}s need not be set then);
     * either may be a llama.cpp folder */
    if (llama != NULL)
        over.binary = cli_llama_path(llama, buf, sizeof(buf));
    over.run_dir = run_dir;
    over.gpus = gpus;
    if (config_load(pos[0], &over, &l->c, msg, sizeof(msg)) != 0) {
        cli_error("ladder", "%s", msg);
        free(l);
        return EXIT_USAGE;
    }
    if (llama == NULL) {
        char *copy = xstrdup(cli_llama_path(l->c.binary, buf, sizeof(buf)));
        free(l->c.binary);
        l->c.binary = copy;
    }
    /* batching: the reference twice, so the report's floor shows what
     * batching changes on its own */
    l->c.repeat_reference |= repeat_ref || l->c.batching;
    l->quiet = quiet;
    super_init(&l->sup, "ladder", quiet, SUPER_SECOND_KILLS);
    l->per_gpu = (int)l->c.rungs_per_gpu;
    if (per_gpu != NULL) {
        char *end;
        long k = strtol(per_gpu, &end, 10);
        if (*end != '\0' || end == per_gpu || k < 1 ||
            k > CONFIG_MAX_PER_GPU) {
            cli_error("ladder", "--per-gpu wants 1 to %d, not '%s'",
                      CONFIG_MAX_PER_GPU, per_gpu);
            config_release(&l->c);
            free(l);
            return EXIT_USAGE;
        }
        l->per_gpu = (int)k;
    }
    if ((rc = plan_jobs(l, pos[0], only, nonly, si, sn, replicate)) != 0 ||
        (rc = build_first(l)) != 0 || (rc = check_files(l, pos[0])) != 0 ||
        (rc = check_build(l, pos[0], version, sizeof(version))) != 0)
        goto out;
    l->env = child_env();
    /* writes to a terminal or pipe that went away must not kill us */
    signal(SIGPIPE, SIG_IGN);
    note(l, "%s: %zu rungs, %s, %zu GPU(s)%s", l->c.name, l->c.nrungs, version,
         l->ngpus, sn > 1 ? ", one shard" : "");
    if ((rc = run_rungs(l)) != 0)
        goto out;
    command_line(argc, argv, &again);
    rc = the_end(l, pos[0], replicate, again.p);
out:
    buf_release(&again);
    ladder_free(l);
    return rc;
}
