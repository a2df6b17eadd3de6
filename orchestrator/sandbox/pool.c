/*
 * pool.c - executions on the loop, at most jobs at once, in submission
 * order; and the probe that says whether they can run here at all.
 *
 * Each execution is one child started by proc.h (argv from sandbox.c,
 * never a shell): its stdin a memfd holding the program (harness.c's
 * frame) with a nonce, its fd 3 a memfd for the harness's result line, stdout
 * and stderr one capped capture that kills it past the cap; rlimits and the
 * unprivileged user set between fork and exec (spawn.h); a session of its
 * own, named to spawn's keeper and given a parent-death SIGKILL, so that
 * bwrap, and with it the PID namespace and everything in it, goes when
 * graveyard goes however it ends. Its wall-clock limit is proc's timer,
 * which SIGKILLs the group.
 */
#define _GNU_SOURCE /* memfd_create() */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../server/proc.h"
#include "../server/spawn.h"
#include "../../util/util.h"

#define RESULT_MAX 4096 /* the result line's bytes read back */
#define ARGV_MAX   96

struct job {
    struct sandbox_pool *pool;
    struct job *next; /* the queue, or the running list */
    char *input;      /* the program, framed for the harness */
    size_t input_len;
    char nonce[33];
    int ntests;
    sandbox_done_cb cb;
    void *ctx;
    struct proc *proc;
    int in_fd, res_fd;
    long user; /* its user's offset (sandbox_conf's uid), or -1 */
    uint64_t start_ns;
};

struct sandbox_pool {
    uv_loop_t *loop;
    struct sandbox_conf conf;
    struct job *head, *tail; /* queued, in submission order */
    struct job *running;
    size_t nqueued, nrunning;
    unsigned next_user; /* the next offset to try (sandbox_conf's uid) */
    uv_timer_t kick;    /* starts what can start, off the submitter's stack */
    int kicking, freeing;
};

struct sandbox_pool *sandbox_pool_new(uv_loop_t *loop,
                                      const struct sandbox_conf *c)
{
    struct sandbox_pool *p = xrealloc(NULL, sizeof(*p));

    memset(p, 0, sizeof(*p));
    p->loop = loop;
    p->conf = *c;
    if (p->conf.jobs < 1)
        p->conf.jobs = 1;
    if (p->conf.jobs > SANDBOX_JOBS_MAX)
        p->conf.jobs = SANDBOX_JOBS_MAX;
    if (p->conf.cpu_s == 0)
        p->conf.cpu_s = (p->conf.timeout_ms + 999) / 1000;
    if (p->conf.cpu_s == 0)
        p->conf.cpu_s = 1;
    uv_timer_init(loop, &p->kick);
    p->kick.data = p;
    /* another process's pool starts elsewhere in the range: the users
     * it just used may still have zombies */
    p->next_user = (unsigned)getpid() * 131u;
    return p;
}

/* 32 hex digits nobody outside this process has seen. */
static void make_nonce(char *out)
{
    unsigned char r[16];
    size_t i;

    if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
        /* no entropy call: time and address, still unknown to the
         * candidate, which never sees its input */
        uint64_t t = uv_hrtime() ^ (uint64_t)(uintptr_t)out;
        for (i = 0; i < sizeof(r); i++)
            r[i] = (unsigned char)(t >> (8 * (i % 8))) ^ (unsigned char)i;
    }
    for (i = 0; i < sizeof(r); i++)
        snprintf(out + 2 * i, 3, "%02x", r[i]);
}

size_t sandbox_program_size(const struct sandbox_program *prog)
{
    size_t total = prog->code_len, i;

    if (prog->ntests > SANDBOX_PROGRAM_MAX)
        return (size_t)SANDBOX_PROGRAM_MAX + 1;
    if (prog->setup != NULL)
        total += strlen(prog->setup);
    for (i = 0; i < prog->ntests && total <= SANDBOX_PROGRAM_MAX; i++)
        total += strlen(prog->tests[i]);
    return total;
}

/* The program as the harness reads it (harness.c): "GYH1\n", the nonce,
 * the count of tests, then code, setup and each test as "LENGTH\n" and
 * its bytes; NULL with msg past the cap. */
static void frame_num(struct buf *b, const char *fmt, const char *nonce,
                      size_t n)
{
    char head[96];
    int k = snprintf(head, sizeof(head), fmt, nonce, n);

    buf_append(b, head, (size_t)k);
}

static void frame_field(struct buf *b, const char *s, size_t n)
{
    char head[32];
    int k = snprintf(head, sizeof(head), "%zu\n", n);

    buf_append(b, head, (size_t)k);
    buf_append(b, s, n);
}

static char *program_frame(const struct sandbox_program *prog,
                           const char *nonce, size_t *len, char *msg,
                           size_t msgsize)
{
    size_t total = sandbox_program_size(prog);
    struct buf b;

    if (total > SANDBOX_PROGRAM_MAX) {
        snprintf(msg, msgsize,
                 "program of %zu bytes or more (code, setup and %zu tests) "
                 "is over the sandbox's cap of %d bytes",
                 total, prog->ntests, SANDBOX_PROGRAM_MAX);
        return NULL;
    }
    /* the bytes above, the heads' digits and the nonce */
    buf_init(&b, total + 64 + 24 * (prog->ntests + 2));
    frame_num(&b, "GYH1\n%s\n%zu\n", nonce, prog->ntests);
    frame_field(&b, prog->code, prog->code_len);
    frame_field(&b, prog->setup ? prog->setup : "",
                prog->setup ? strlen(prog->setup) : 0);
    for (size_t i = 0; i < prog->ntests; i++)
        frame_field(&b, prog->tests[i], strlen(prog->tests[i]));
    *len = b.len;
    return b.p;
}

static void kick_cb(uv_timer_t *t);

static void kick(struct sandbox_pool *p)
{
    if (!p->kicking && !p->freeing) { /* a callback may free the pool */
        p->kicking = 1;
        uv_timer_start(&p->kick, kick_cb, 0, 0);
    }
}

int sandbox_submit(struct sandbox_pool *p, const struct sandbox_program *prog,
                   sandbox_done_cb cb, void *ctx, char *msg, size_t msgsize)
{
    struct job *j = xrealloc(NULL, sizeof(*j));

    memset(j, 0, sizeof(*j));
    make_nonce(j->nonce);
    j->input = program_frame(prog, j->nonce, &j->input_len, msg, msgsize);
    if (j->input == NULL) {
        free(j);
        return -1;
    }
    j->pool = p;
    j->ntests = (int)prog->ntests;
    j->cb = cb;
    j->ctx = ctx;
    j->in_fd = j->res_fd = -1;
    j->user = -1;
    if (p->tail != NULL)
        p->tail->next = j;
    else
        p->head = j;
    p->tail = j;
    p->nqueued++;
    kick(p);
    return 0;
}

size_t sandbox_pending(const struct sandbox_pool *p)
{
    return p->nqueued + p->nrunning;
}

static void job_free(struct job *j)
{
    if (j->proc != NULL)
        proc_free(j->proc);
    if (j->in_fd >= 0)
        close(j->in_fd);
    if (j->res_fd >= 0)
        close(j->res_fd);
    free(j->input);
    free(j);
}

static void unlink_running(struct sandbox_pool *p, struct job *j)
{
    struct job **pp;

    for (pp = &p->running; *pp != NULL; pp = &(*pp)->next)
        if (*pp == j) {
            *pp = j->next;
            p->nrunning--;
            return;
        }
}

/* Hand r to the job's callback and forget the job. */
static void finish(struct job *j, struct sandbox_result *r)
{
    struct sandbox_pool *p = j->pool;
    sandbox_done_cb cb = j->cb;
    void *ctx = j->ctx;

    unlink_running(p, j);
    job_free(j);
    kick(p);
    cb(ctx, r);
}

static void exit_cb(void *ctx, long long status, int sig)
{
    struct job *j = ctx;
    struct sandbox_result r;
    struct sandbox_end e;
    char line[RESULT_MAX];
    ssize_t n;
    size_t outlen;
    const char *out;

    memset(&r, 0, sizeof(r));
    memset(&e, 0, sizeof(e));
    e.timed_out = proc_timed_out(j->proc);
    e.overflowed = proc_overflowed(j->proc);
    e.status = status;
    e.sig = sig;
    e.cpu_s = j->pool->conf.cpu_s;
    e.ms = (unsigned)((uv_hrtime() - j->start_ns) / 1000000);
    e.unsafe = j->pool->conf.unsafe;
    e.nonce = j->nonce;
    e.ntests = j->ntests;
    do
        n = pread(j->res_fd, line, sizeof(line), 0);
    while (n < 0 && errno == EINTR);
    /* a line that fills the room was cut: not the harness's */
    if (n > 0 && (size_t)n < sizeof(line)) {
        e.line = line;
        e.n = (size_t)n;
    }
    sandbox__decide(&e, &r);
    out = proc_output(j->proc, &outlen);
    sandbox__output(out, outlen, &r);
    finish(j, &r);
}

/* A memfd holding data (read from its start), or -1. */
static int memfd_with(const char *name, const char *data, size_t n)
{
    int fd = memfd_create(name, MFD_CLOEXEC);
    size_t off = 0;

    if (fd < 0)
        return -1;
    while (off < n) {
        ssize_t w = write(fd, data + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            close(fd);
            return -1;
        }
        off += (size_t)w;
    }
    if (lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* A user of its own for j: the next offset in turn that no running
 * execution has. A fresh one each time, not one a slot: bwrap leaves a
 * zombie of its user behind (reparented to PID 1, which may take seconds
 * to reap it), and RLIMIT_NPROC counts zombies, so one user running
 * executions back to back reached its 64 ("bwrap: Can't fork for pid 1:
 * Resource temporarily unavailable"). */
static long next_user(struct sandbox_pool *p, const struct job *j)
{
    for (;;) {
        long u = (long)(p->next_user++ % SANDBOX_USERS);
        const struct job *r;
        for (r = p->running; r != NULL; r = r->next)
            if (r != j && r->user == u)
                break;
        if (r == NULL)
            return u;
    }
}

static char *const unsafe_env[] = {"PATH=/usr/bin:/bin", "HOME=/tmp",
                                   "LANG=C.UTF-8", NULL};

/* Start j: 0, or -1 with why in msg. */
static int start_job(struct sandbox_pool *p, struct job *j, char *msg,
                     size_t msgsize)
{
    const struct sandbox_conf *c = &p->conf;
    const char *argv[ARGV_MAX];
    char nums[32];
    struct spawn_rlimit rl[6];
    struct proc_opts po;
    unsigned long long mb = 1024ull * 1024;

    if (sandbox__argv(c, argv, ARGV_MAX, nums, sizeof(nums)) < 0) {
        snprintf(msg, msgsize, "sandbox argv over %d words", ARGV_MAX);
        return -1;
    }
    j->in_fd = memfd_with("graveyard-program", j->input, j->input_len);
    j->res_fd = memfd_with("graveyard-result", "", 0);
    if (j->in_fd < 0 || j->res_fd < 0) {
        snprintf(msg, msgsize, "cannot make the sandbox's memfd: %s",
                 strerror(errno));
        return -1;
    }
    /* soft CPU limit: SIGXCPU; the hard one a second later: SIGKILL */
    rl[0] = (struct spawn_rlimit){RLIMIT_CPU, c->cpu_s, c->cpu_s + 1ull};
    rl[1] =
        (struct spawn_rlimit){RLIMIT_AS, c->memory_mb * mb, c->memory_mb * mb};
    rl[2] = (struct spawn_rlimit){RLIMIT_NPROC, c->nproc, c->nproc};
    rl[3] = (struct spawn_rlimit){RLIMIT_FSIZE, c->fsize_mb * mb,
                                  c->fsize_mb * mb};
    rl[4] = (struct spawn_rlimit){RLIMIT_CORE, 0, 0};
    rl[5] = (struct spawn_rlimit){RLIMIT_NOFILE, 256, 256};
    memset(&po, 0, sizeof(po));
    po.argv = (char *const *)argv;
    po.env = unsafe_env;
    po.capture = c->output_cap;
    po.capture_stderr = 1;
    po.capture_kill = 1;
    po.stdin_fd = j->in_fd;
    po.fd3 = j->res_fd;
    po.new_session = 1;
    po.pdeathsig = SIGKILL;
    po.timeout_ms = c->timeout_ms;
    po.rlimits = rl;
    po.nrlimits = sizeof(rl) / sizeof(rl[0]);
    if (geteuid() == 0 && c->uid > 0) {
        j->user = next_user(p, j);
        po.uid = c->uid + (unsigned)j->user;
        po.gid = c->gid + (unsigned)j->user;
    }
    j->start_ns = uv_hrtime();
    j->proc = proc_start(p->loop, &po, exit_cb, j, msg, msgsize);
    return j->proc != NULL ? 0 : -1;
}

/* A job that could not start ends as an error "start", why in its
 * output. */
static void fail_start(struct job *j, const char *why)
{
    struct sandbox_result r;

    memset(&r, 0, sizeof(r));
    r.outcome = SANDBOX_ERROR;
    r.total = j->ntests;
    r.failed_test = j->ntests > 0 ? 0 : -1;
    snprintf(r.exception, sizeof(r.exception), "start");
    sandbox__output(why, strlen(why), &r);
    finish(j, &r);
}

static void kick_cb(uv_timer_t *t)
{
    struct sandbox_pool *p = t->data;
    char msg[512];

    p->kicking = 0;
    while (p->head != NULL && p->nrunning < p->conf.jobs) {
        struct job *j = p->head;
        p->head = j->next;
        if (p->head == NULL)
            p->tail = NULL;
        p->nqueued--;
        j->next = p->running;
        p->running = j;
        p->nrunning++;
        if (start_job(p, j, msg, sizeof(msg)) != 0) {
            fail_start(j, msg); /* its cb may submit or cancel: */
            kick(p);            /* go on from the loop */
            return;
        }
    }
}

void sandbox_cancel_all(struct sandbox_pool *p)
{
    struct job *j;

    while ((j = p->running) != NULL) {
        p->running = j->next;
        job_free(j); /* proc_free SIGKILLs its group */
    }
    while ((j = p->head) != NULL) {
        p->head = j->next;
        job_free(j);
    }
    p->tail = NULL;
    p->nqueued = p->nrunning = 0;
    uv_timer_stop(&p->kick);
    p->kicking = 0;
}

static void pool_closed_cb(uv_handle_t *h)
{
    free(h->data);
}

void sandbox_pool_free(struct sandbox_pool *p)
{
    if (p == NULL)
        return;
    p->freeing = 1;
    sandbox_cancel_all(p);
    uv_close((uv_handle_t *)&p->kick, pool_closed_cb);
}
