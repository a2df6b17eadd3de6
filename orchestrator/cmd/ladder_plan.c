/*
 * ladder_plan.c - the ladder's night on the loop (ladder_int.h): the jobs
 * planned (each rung, once per GPU with --replicate, the reference again,
 * a canary per folder), the scheduler's actions carried out (sched.h), each
 * rung a child `graveyard run` with its progress pipe, its exit seen as an
 * exit (proc.h), and the supervisor's callbacks (super.h): what a stop
 * signal stops, the live lines, the GPUs' free memory.
 */
#define _GNU_SOURCE /* pipe2() */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "../../grader/grader.h"
#include "../../rundir/beside.h"
#include "../../rundir/meta.h"
#include "../../rundir/run.h"
#include "../../rundir/rundir.h"
#include "../base/cli.h"
#include "ladder_int.h"
#include "../server/proc.h"
#include "../server/spawn.h"

#define GRACE_MS 20000 /* a run stops its server in 10 s */

void ladder_note(const struct ladder *l, const char *fmt, ...)
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

/* One job's progress as a line: rung, GPU, then progress_show's. */
static void describe(const struct ladder *l, const struct job *j, char *out,
                     size_t size)
{
    char gpu[64] = "", shown[160];

    if (j->gpu >= 0)
        snprintf(gpu, sizeof(gpu), " GPU %s%s", l->c.gpus[j->gpu],
                 l->sched.slots[j->gpu].busy > 1 ? " (shared)" : "");
    progress_show(&j->p, shown, sizeof(shown));
    snprintf(out, size, "%-10s%s  %s", j->name, gpu, shown);
}

/* The live lines: one per running job. */
static void draw_cb(void *ctx)
{
    struct ladder *l = ctx;
    char line[256];

    for (size_t i = 0; i < l->njobs; i++) {
        if (ladder_state(l, &l->jobs[i]) != SJ_RUNNING)
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

/* A run that ended because the ladder was told to stop (Ctrl-C, SIGTERM
 * to the ladder or its group): it exits 128 + the signal after keeping
 * its rows, or dies of the signal itself. Not a failure. */
static int stopped_as_asked(const struct ladder *l, long long status, int sig)
{
    if (!l->sup.stopping)
        return 0;
    return (sig != 0 && (sig == SIGINT || sig == SIGTERM || sig == SIGHUP)) ||
           (sig == 0 && (status == 128 + SIGINT || status == 128 + SIGTERM ||
                         status == 128 + SIGHUP));
}

static void exit_cb(void *ctx, long long status, int sig)
{
    struct job *j = ctx;
    struct ladder *l = j->l;
    struct sched_event ev = {
        .type = SE_EXITED, .job = (size_t)(j - l->jobs), .outcome = SO_FAILED};
    struct sched_action *acts;
    enum sched_state st;
    size_t n;

    if (status == EXIT_OK && sig == 0)
        ev.outcome = SO_DONE;
    else if (status == EXIT_NOMEM && sig == 0)
        ev.outcome = SO_NOMEM; /* beside others it waits (sched.h) */
    n = step(l, &ev, &acts);
    st = l->sj[ev.job].state; /* pending again: it did not fit beside */
    j->end = st == SJ_FAILED && status == EXIT_BUSY && sig == 0    ? JE_BUSY
             : st == SJ_FAILED && status == EXIT_USAGE && sig == 0 ? JE_BAD
             : st == SJ_FAILED && stopped_as_asked(l, status, sig) ? JE_STOPPED
                                                                   : JE_FAILED;
    /* the run is gone: whatever still holds its pipe is not our business */
    if (j->progress_open) {
        j->progress_open = 0;
        uv_read_stop((uv_stream_t *)&j->progress);
        uv_close((uv_handle_t *)&j->progress, NULL);
    }
    proc_free(j->proc);
    j->proc = NULL;
    if (st == SJ_PENDING)
        ladder_note(
            l,
            "%s did not fit on GPU %s beside %d other rung(s); it waits "
            "for room",
            j->name, l->c.gpus[j->gpu], l->sj[ev.job].beside);
    else if (j->canary)
        ladder_note(
            l, "%s %s", j->name,
            st == SJ_DONE ? "passed: the night starts"
            : j->end == JE_BAD
                ? "refused its input (its error is above)"
                : "did not pass (its verdict is above): no rung starts");
    else if (st == SJ_DONE && j->p.total > 0)
        ladder_note(l, "%s%s%s finished: %ld/%ld right", j->name,
                    j->pin >= 0 ? " on GPU " : "",
                    j->pin >= 0 ? l->c.gpus[j->pin] : "", j->p.right,
                    j->p.total);
    else if (j->end == JE_STOPPED)
        ladder_note(l,
                    "%s stopped as asked: %ld of %ld answered, kept; the "
                    "same command resumes it",
                    j->name, j->p.done, j->p.total);
    else if (st == SJ_FAILED && sig != 0)
        ladder_note(l, "%s was stopped by signal %d", j->name, sig);
    else
        ladder_note(l, "%s %s", j->name,
                    st == SJ_DONE       ? "finished"
                    : j->end == JE_BUSY ? "is being run by another process"
                    : j->end == JE_BAD
                        ? "refused its input (its error is above)"
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
        if (o == j || ladder_state(l, o) != SJ_RUNNING || o->gpu != j->gpu ||
            n == CONFIG_MAX_RUNGS)
            continue;
        names[n++] = o->name;
        buf_puts(&list, n > 1 ? ", " : "");
        buf_puts(&list, o->name);
    }
    ladder_note(l, "%s started on GPU %s beside %s", j->name,
                l->c.gpus[j->gpu], list.p);
    if (!j->canary && !j->again &&
        rundir_beside_append(j->run_dir, j->rung->name, l->c.gpus[j->gpu],
                             names, n, msg, sizeof(msg)) != 0)
        ladder_note(l, "%s", msg);
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
    if (c->nlengths > 0 && !j->canary) {
        /* a config's long items are the ladder's folder's, not the
         * repeat's or a GPU's (whose --run-dir would move them) */
        argv[n++] = "--question-file";
        argv[n++] = c->questions;
    }
    argv[n++] = "--llama";
    argv[n++] = c->binary;
    argv[n++] = "--quiet";
    if (l->exec_jobs[0] != '\0' && !j->canary) {
        argv[n++] = "--exec-jobs";
        argv[n++] = l->exec_jobs;
    }
    if (l->unsafe_exec && !j->canary)
        argv[n++] = "--unsafe-exec";
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
    j->gpu = g;
    if (l->sj[j - l->jobs].beside > 0)
        beside_note(l, j);
    else if (g >= 0)
        ladder_note(l, "%s started on GPU %s", j->name, c->gpus[g]);
    else
        ladder_note(l, "%s started", j->name);
    return 0;
}

/* What the scheduler decided, done: a rung started on its GPU (one that
 * cannot start has failed, and that is an event too), a GPU's free memory
 * asked of nvidia-smi (on the loop; none there: unknown). */
static void carry_out(struct ladder *l, const struct sched_action *a, size_t n)
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

    ladder_note(l, "stopping on signal %d; run the same command to resume",
                signum);
    feed(l, &ev);
    for (size_t i = 0; i < l->njobs; i++)
        if (ladder_state(l, &l->jobs[i]) == SJ_RUNNING)
            proc_stop(l->jobs[i].proc, GRACE_MS);
}

static int busy_cb(void *ctx)
{
    const struct ladder *l = ctx;

    for (size_t i = 0; i < l->njobs; i++)
        if (ladder_state(l, &l->jobs[i]) == SJ_RUNNING)
            return 1;
    return 0;
}

/* Our environment for the children, with the ladder's pid and the
 * progress fd. */
char **ladder_child_env(void)
{
    char pid[48];
    const char *set[2] = {pid, "GRAVEYARD_PROGRESS_FD=3"};

    snprintf(pid, sizeof(pid), "GRAVEYARD_LADDER_PID=%ld", (long)getpid());
    return spawn_env_with(set, 2);
}

int ladder_job_dir(struct buf *b, const struct ladder *l, int g, int again)
{
    struct buf gpu = {0};
    const char *dir = l->c.run_dir;
    int rc;

    if (g >= 0) {
        if (rundir_gpu_dir_buf(&gpu, l->c.run_dir, l->c.gpus[g]) != 0) {
            buf_release(&gpu);
            b->len = 0;
            return -1;
        }
        dir = gpu.p;
    }
    rc = again ? rundir_path_buf(b, dir, RD_REPEAT_DIR, NULL)
               : buf_path(b, "%s", dir);
    buf_release(&gpu);
    return rc;
}

/* The GPU memory rung took when it last ran: its .done in the run folder
 * or in a GPU's folder of it (--replicate), loaded less before; -1 when
 * none says. */
static long long need_of(const struct ladder *l, const char *rung)
{
    struct grader_meta m;
    struct buf dir = {0};
    char msg[512];
    long long need = -1;

    for (size_t g = 0; g <= l->c.ngpus && need < 0; g++)
        if (ladder_job_dir(&dir, l, (int)g - 1, 0) == 0 &&
            rundir_meta_read(dir.p, rung, &m, msg, sizeof(msg)) == 0 &&
            m.gpu_mib_loaded >= 0 && m.gpu_mib_before >= 0 &&
            m.gpu_mib_loaded > m.gpu_mib_before)
            need = m.gpu_mib_loaded - m.gpu_mib_before;
    buf_release(&dir);
    return need;
}

/* One job: rung, pinned to GPU g (--replicate) or not (-1), again for
 * the reference's second run. Shards split the jobs in the order made. */
static int plan_job(struct ladder *l, const struct config_rung *rung, int g,
                    int again, const char **only, size_t nonly, long si,
                    long sn)
{
    struct job *j = &l->jobs[l->njobs];
    struct buf dir = {0};
    size_t k;

    if (ladder_job_dir(&dir, l, g, again) != 0) {
        buf_release(&dir);
        return -1;
    }
    j->run_dir = dir.p; /* the job's now */

    j->l = l;
    j->rung = rung;
    j->gpu = -1;
    j->pin = g;
    j->again = again;
    snprintf(j->name, sizeof(j->name), "%s%s", rung->name,
             again ? " again" : "");
    l->sj[l->njobs].state = (long)l->njobs % sn == si ? SJ_PENDING : SJ_OTHER;
    for (k = 0; k < nonly && strcmp(only[k], rung->name); k++)
        ;
    if (nonly > 0 && k == nonly)
        l->sj[l->njobs].state = SJ_OTHER;
    l->njobs++;
    return 0;
}

/* The canary of the folder of GPU g (-1: the one folder), when a job of
 * this process will run a rung there that is not done: a night that has
 * nothing left to run needs no canary. */
static int plan_canary(struct ladder *l, int g)
{
    struct job *j = &l->jobs[l->njobs];
    struct buf path = {0};
    size_t i;

    for (i = 0; i < l->njobs; i++) {
        const struct job *r = &l->jobs[i];
        if (r->pin == g && ladder_state(l, r) == SJ_PENDING &&
            (rundir_path_buf(&path, r->run_dir, RD_DONE, r->rung->name) != 0 ||
             access(path.p, F_OK) != 0))
            break;
    }
    buf_release(&path);
    if (i == l->njobs)
        return 0;
    if (ladder_job_dir(&path, l, g, 0) != 0) {
        buf_release(&path);
        return -1;
    }
    j->run_dir = path.p; /* the job's now */
    for (i = 0; i < l->c.nrungs; i++)
        if (strcmp(l->c.rungs[i].name, l->c.reference) == 0)
            j->rung = &l->c.rungs[i];
    j->l = l;
    j->gpu = -1;
    j->pin = g;
    j->canary = 1;
    l->sj[l->njobs].state = SJ_PENDING;
    snprintf(j->name, sizeof(j->name), "canary (%s)", j->rung->name);
    l->njobs++;
    return 0;
}

/* The jobs as the scheduler sees them, beside their states (plan_job):
 * a rung waits for its folder's canary, which goes first; its need is
 * what it took when it last ran. */
static void plan_sched(struct ladder *l)
{
    for (size_t i = 0; i < l->njobs; i++) {
        const struct job *j = &l->jobs[i];
        struct sched_job *s = &l->sj[i];
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

int ladder_plan(struct ladder *l, const char *cfg, const char **only,
                size_t nonly, long si, long sn, int replicate)
{
    size_t i, k, n;
    int bad = 0;

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
    for (i = 0; i < n && bad == 0; i++)
        bad = plan_job(l, &l->c.rungs[i % l->c.nrungs],
                       replicate ? (int)(i / l->c.nrungs) : -1, 0, only, nonly,
                       si, sn);
    for (k = 0; k < l->c.nrungs && l->c.repeat_reference && bad == 0; k++)
        if (strcmp(l->c.rungs[k].name, l->c.reference) == 0)
            for (i = 0; i < (replicate ? l->ngpus : 1) && bad == 0; i++)
                bad = plan_job(l, &l->c.rungs[k], replicate ? (int)i : -1, 1,
                               only, nonly, si, sn);
    for (i = 0; l->c.canary_rows && i < (replicate ? l->ngpus : 1) && !bad;
         i++)
        bad = plan_canary(l, replicate ? (int)i : -1);
    if (bad) {
        cli_error("ladder", "path too long: '%.200s...'", l->c.run_dir);
        return EXIT_USAGE;
    }
    plan_sched(l);
    return 0;
}

/* Run the rungs on the loop until none is running. 0, or EXIT_FAILED
 * when libuv cannot start. */
int ladder_run(struct ladder *l)
{
    static const struct super_ops ops = {stop_cb, NULL, draw_cb, busy_cb,
                                         probed_cb};
    struct sched_event ev = {.type = SE_BEGIN};

    if (sched_init(&l->sched, l->sj, l->njobs, l->ngpus, l->per_gpu, 1) != 0 ||
        super_open(&l->sup, &ops, l) != 0)
        return EXIT_FAILED;
    feed(l, &ev);
    super_run(&l->sup);
    return 0;
}
