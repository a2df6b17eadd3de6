/*
 * execs.c - a code task's executions (runner_int.h, docs/code.md): each
 * answer's code run with its item's tests in the sandbox
 * (orchestrator/sandbox/), and its row written once it has run.
 *
 * The order of things, so that a stop at any moment loses nothing and
 * asks nothing twice: the answer is appended to rows/RUNG.candidates
 * (synced, on the thread pool, as a row is: runner.c's row_work) and its
 * question is done as far as the rung is concerned; its code goes to the
 * sandbox pool (several at once, off the loop: each a child watched on
 * the loop); its row, the candidate with the execution's record and
 * graded by it, is appended to the rows file in the candidates' order,
 * one at a time on the thread pool. A stop kills every sandbox and drops
 * what has not been written: on resume, a candidate without its row is
 * run again (not asked again). The rung's end (A_FINISH) waits for the
 * last row.
 *
 * Error rows of a code task go through the same queue, so that one writer
 * appends to the rows file at a time.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../grader/grader.h"
#include "../../rundir/candidates.h"
#include "../../rundir/files.h"
#include "../../rundir/rundir.h"
#include "../base/cli.h"
#include "../input/codeitem.h"
#include "runner_int.h"

/* What an execution's record keeps of what it printed (a row's tail). */
#define EXEC_OUTPUT_KEPT 2048

struct exec_entry {
    struct runner *r;
    size_t q;        /* the question's index */
    char *candidate; /* its candidate line; NULL: text is an error row */
    char *text;      /* the row to append, once made */
    int ran;         /* its record is in (or it needs none) */
    int right;
    struct row_exec rec;
    char exception[64], limit[16], hash[17];
    char output[EXEC_OUTPUT_KEPT];
};

/* ---- the queue, in the candidates' order -------------------------------- */

static struct exec_entry *push(struct runner *r, size_t q)
{
    struct executing *x = &r->execs;
    struct exec_entry *e = xrealloc(NULL, sizeof(*e));

    if (x->n == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 16;
        x->v = xrealloc(x->v, x->cap * sizeof(*x->v));
    }
    memset(e, 0, sizeof(*e));
    e->r = r;
    e->q = q;
    e->rec.ms = -1;
    e->rec.e.outcome = -1;
    e->rec.e.passed = e->rec.e.total = -1;
    x->v[x->n++] = e;
    return e;
}

static void entry_free(struct exec_entry *e)
{
    if (e == NULL)
        return;
    free(e->candidate);
    free(e->text);
    free(e);
}

/* The first entry leaves the queue. */
static void pop(struct executing *x)
{
    entry_free(x->v[0]);
    memmove(x->v, x->v + 1, --x->n * sizeof(*x->v));
}

/* ---- running one ---------------------------------------------------------
 */

static void write_next(struct runner *r);

/* The sandbox's result as the row's record. */
static void recorded(struct exec_entry *e, const struct sandbox_result *s)
{
    struct row_exec *x = &e->rec;

    x->e.outcome = (int)s->outcome;
    x->e.passed = s->total > 0 ? s->passed : -1;
    x->e.total = s->total > 0 ? s->total : -1;
    snprintf(e->exception, sizeof(e->exception), "%s", s->exception);
    x->e.exception = e->exception[0] ? e->exception : NULL;
    x->e.exception_len = strlen(e->exception);
    snprintf(e->limit, sizeof(e->limit), "%s", s->limit);
    x->limit = e->limit[0] ? e->limit : NULL;
    x->ms = (long long)s->ms;
    snprintf(e->output, sizeof(e->output), "%s", s->output);
    x->output = e->output[0] ? e->output : NULL;
    x->output_len = strlen(e->output);
    e->ran = 1;
}

/* The sandbox pool's: one execution ended (never after a cancel). */
static void ran_cb(void *ctx, const struct sandbox_result *s)
{
    struct exec_entry *e = ctx;

    recorded(e, s);
    write_next(e->r);
}

/* The program the harness runs for question q with code[0..n): the
 * item's prompt before it (HumanEval's imports and signature; a body
 * rule's reply goes on from it), then its setup and tests. */
static int submit(struct runner *r, struct exec_entry *e, const char *code,
                  size_t n)
{
    const struct codeitem *it = r->qs.q[e->q].code;
    struct sandbox_program prog;
    struct buf text = {0};
    char msg[300];
    int rc;

    /* within the default cap: a prompt of 64 KiB and a row's code */
    if (it->prompt != NULL) {
        buf_append(&text, it->prompt, strlen(it->prompt));
        if (r->execs.kind == GRADER_RULE_EXEC)
            buf_append(&text, "\n", 1);
    }
    buf_append(&text, code, n);
    memset(&prog, 0, sizeof(prog));
    prog.code = text.p;
    prog.code_len = text.len;
    prog.setup = it->setup;
    prog.tests = (const char *const *)it->tests;
    prog.ntests = it->ntests;
    if (sandbox_program_size(&prog) > SANDBOX_PROGRAM_MAX) {
        /* a reply can be 8 MiB: its program is not run, and is recorded
         * as killed by the limit on its size (failing the rung would
         * fail it again on every resume) */
        buf_release(&text);
        e->rec.e.outcome = GRADER_EXEC_KILLED;
        snprintf(e->limit, sizeof(e->limit), "program");
        e->rec.limit = e->limit;
        e->ran = 1;
        return 0;
    }
    rc = sandbox_submit(r->execs.pool, &prog, ran_cb, e, msg, sizeof(msg));
    buf_release(&text);
    if (rc != 0)
        runner_fail(r, EXIT_FAILED,
                    "question '%.200s': cannot run its code: %s", r->ids[e->q],
                    msg);
    return rc;
}

/* Entry e's candidate to the sandbox (or, holding no code, recorded as
 * such at once). 0, or -1 (said: the rung fails). */
static int start(struct runner *r, struct exec_entry *e)
{
    json_error_t jerr;
    json_t *o = json_loads(e->candidate, 0, &jerr);
    json_t *c = json_object_get(o, "content");
    const char *text = json_string_value(c);
    size_t off, n;
    int rc = 0;

    if (o == NULL) {
        runner_fail(r, EXIT_USAGE,
                    "question '%.200s': its candidate is not "
                    "JSON: %s",
                    r->ids[e->q], jerr.text);
        return -1;
    }
    if (text == NULL ||
        !grader_code_extract(r->execs.kind, text, json_string_length(c), &off,
                             &n)) {
        e->rec.e.outcome = GRADER_EXEC_NO_CODE;
        e->ran = 1;
    } else {
        grader_code_hash(text + off, n, e->hash);
        e->rec.e.code_hash = e->hash;
        e->rec.e.code_hash_len = 16;
        rc = submit(r, e, text + off, n);
    }
    json_decref(o);
    if (e->ran)
        write_next(r);
    return rc;
}

/* ---- the rows, in order, on the thread pool ------------------------------
 */

static void write_work(uv_work_t *req)
{
    struct runner *r = req->data;
    struct executing *x = &r->execs;
    struct exec_entry *e = x->v[0];

    x->write_rc = 0;
    if (e->candidate != NULL) {
        free(e->text);
        e->text = row_exec_text(e->candidate, strlen(e->candidate), &e->rec,
                                r->o->task, &e->right, x->write_msg,
                                sizeof(x->write_msg));
        if (e->text == NULL) {
            x->write_rc = -2;
            return;
        }
    }
    x->write_rc = store_append(&r->store, e->text, strlen(e->text),
                               x->write_msg, sizeof(x->write_msg));
}

static void end_held(struct runner *r);

static void write_done(uv_work_t *req, int status)
{
    struct runner *r = req->data;
    struct executing *x = &r->execs;
    int code;

    x->writing = 0;
    if (status != 0 || x->write_rc != 0) {
        code = x->write_rc == -1 ? files_exit_code(r->store.err) : EXIT_FAILED;
        if (status != 0)
            snprintf(x->write_msg, sizeof(x->write_msg),
                     "a row was cancelled");
        execs_stop(r);
        if (x->holding) {
            x->hold_code = code;
            snprintf(x->hold_text, sizeof(x->hold_text), "%s", x->write_msg);
            end_held(r);
        } else
            runner_fail(r, code, "%s", x->write_msg);
        return;
    }
    runner_counted(r, x->v[0]->right);
    pop(x);
    write_next(r);
}

/* The first entry's row, when it has run and none is being written. */
static void write_next(struct runner *r)
{
    struct executing *x = &r->execs;

    if (x->writing || x->stopped) {
        if (x->stopped && !x->writing && x->holding)
            end_held(r);
        return;
    }
    if (x->n == 0 || !x->v[0]->ran) {
        if (x->n == 0 && x->holding)
            end_held(r);
        return;
    }
    x->work.data = r;
    if (uv_queue_work(&r->sup.loop, &x->work, write_work, write_done) != 0) {
        runner_fail(r, EXIT_FAILED, "cannot queue a row on the thread pool");
        return;
    }
    x->writing = 1;
}

/* The rung's end, which waited for the rows (or a stop). */
static void end_held(struct runner *r)
{
    struct executing *x = &r->execs;

    x->holding = 0;
    r->finish(r, x->hold_code, x->hold_text);
}

/* ---- what runner.c calls -------------------------------------------------
 */

int execs_on(const struct runner *r)
{
    return r->execs.on;
}

/* A candidate line of the file: held when its question has no row. */
static int resumed(void *ctx, const char *line, size_t len, long lineno)
{
    struct runner *r = ctx;
    json_t *o = json_loadb(line, len, 0, NULL);
    const char *id = json_string_value(json_object_get(o, "id"));
    struct exec_entry *e;
    size_t i;

    (void)lineno;
    for (i = 0; id != NULL && i < r->qs.n; i++)
        if (strcmp(r->ids[i], id) == 0)
            break;
    /* a question the file no longer asks, or answered: history */
    if (id == NULL || i == r->qs.n || r->had[i]) {
        json_decref(o);
        return 0;
    }
    json_decref(o);
    r->had[i] = 1;
    e = push(r, i);
    e->candidate = xrealloc(NULL, len + 1);
    memcpy(e->candidate, line, len);
    e->candidate[len] = '\0';
    return 0;
}

int execs_probe(struct runner *r, char *msg, size_t msgsize)
{
    const struct run_opts *o = r->o;
    struct executing *x = &r->execs;
    const struct grader_task *t = o->task;

    if (t == NULL || grader_task_ref(t) != GRADER_REF_CODE)
        return 0;
    x->on = 1;
    x->kind = grader_task_rule_kind(t, 0);
    sandbox_conf_default(&x->conf);
    /* bounded by the cores (the default): more at once than cores makes
     * a time limit a measure of the machine's load, not of the code */
    if (o->exec_jobs > 0 && (unsigned)o->exec_jobs <= x->conf.jobs)
        x->conf.jobs = (unsigned)o->exec_jobs;
    else if (o->exec_jobs > 0)
        runner_say(r,
                   "--exec-jobs %ld: %u at once, the cores (more would "
                   "time the machine's load, not the code)",
                   o->exec_jobs, x->conf.jobs);
    if (o->exec_timeout_s > 0) {
        x->conf.timeout_ms = (unsigned)o->exec_timeout_s * 1000u;
        x->conf.cpu_s = (unsigned)o->exec_timeout_s;
    }
    x->conf.unsafe = o->unsafe_exec;
    if (sandbox_probe(&x->conf, x->runs_in, sizeof(x->runs_in), msg,
                      msgsize) != 0)
        return EXIT_USAGE;
    runner_say(r, "code runs in %s, %u at once", x->runs_in, x->conf.jobs);
    x->record.runs_in = x->runs_in;
    x->record.harness_sha256 = sandbox_harness_sha256();
    x->record.timeout_ms = (long)x->conf.timeout_ms;
    x->record.memory_mb = (long)x->conf.memory_mb;
    return 0;
}

int execs_open(struct runner *r, char *msg, size_t msgsize)
{
    const struct run_opts *o = r->o;
    struct executing *x = &r->execs;

    if (!x->on)
        return 0;
    if (store_open_as(&x->cands, o->rundir, RD_CANDIDATES, o->rung, msg,
                      msgsize) != 0)
        return files_exit_code(x->cands.err);
    if (candidates_each(o->rundir, o->rung, resumed, r, msg, msgsize) != 0)
        return files_exit_code(errno);
    if (x->n > 0)
        runner_say(r,
                   "%zu answer(s) whose code had not run: run now, not "
                   "asked again",
                   x->n);
    return 0;
}

int execs_holds(const struct runner *r, const char *id, size_t len)
{
    const struct executing *x = &r->execs;

    for (size_t i = 0; i < x->n; i++) {
        const char *mine = r->ids[x->v[i]->q];
        if (strlen(mine) == len && memcmp(mine, id, len) == 0)
            return 1;
    }
    return 0;
}

int execs_start(struct runner *r)
{
    struct executing *x = &r->execs;
    size_t i, n;

    if (!x->on)
        return 0;
    if ((x->pool = sandbox_pool_new(&r->sup.loop, &x->conf)) == NULL) {
        snprintf(r->err, sizeof(r->err), "cannot start the sandbox pool");
        return -1;
    }
    /* the candidates a stop left: run before anything is asked */
    for (i = 0, n = x->n; i < n && !x->stopped; i++)
        if (!x->v[i]->ran && start(r, x->v[i]) != 0)
            return -1;
    return 0;
}

int execs_candidate(struct runner *r, const char *text, char *msg,
                    size_t msgsize)
{
    return store_append(&r->execs.cands, text, strlen(text), msg, msgsize);
}

void execs_add(struct runner *r, size_t q, char *text, int error_row)
{
    struct exec_entry *e = push(r, q);

    if (error_row) {
        e->text = text;
        e->ran = 1;
        write_next(r);
        return;
    }
    e->candidate = text;
    if (!r->execs.stopped)
        (void)start(r, e);
}

int execs_hold(struct runner *r, int code, const char *why)
{
    struct executing *x = &r->execs;

    if (!x->on)
        return 0;
    if (code != EXIT_OK)
        execs_stop(r);
    if (!x->writing && (x->n == 0 || x->stopped))
        return 0;
    x->holding = 1;
    x->hold_code = code;
    snprintf(x->hold_text, sizeof(x->hold_text), "%s", why ? why : "");
    return 1;
}

void execs_stop(struct runner *r)
{
    struct executing *x = &r->execs;

    if (!x->on || x->stopped)
        return;
    x->stopped = 1;
    if (x->pool != NULL)
        sandbox_cancel_all(x->pool);
}

int execs_signal(struct runner *r, int code)
{
    struct executing *x = &r->execs;

    if (!x->on || !x->holding)
        return 0;
    execs_stop(r);
    if (x->hold_code == EXIT_OK)
        x->hold_code = code;
    if (!x->writing)
        end_held(r);
    return 1;
}

void execs_close(struct runner *r)
{
    struct executing *x = &r->execs;

    if (x->pool != NULL) {
        sandbox_cancel_all(x->pool);
        sandbox_pool_free(x->pool);
        x->pool = NULL;
    }
}

void execs_release(struct runner *r)
{
    struct executing *x = &r->execs;

    for (size_t i = 0; i < x->n; i++)
        entry_free(x->v[i]);
    free(x->v);
    store_close(&x->cands);
    memset(x, 0, sizeof(*x));
}
