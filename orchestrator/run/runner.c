/*
 * runner.c - one rung's run on its own libuv loop: the rung's decisions
 * are rung.c's, and this file turns what happens on the loop into its
 * events and carries out its actions.
 *
 * The order: check what was given without creating anything (questions,
 * model, the binary and its --version); take the rung's lock; read the
 * rows (store); hash the model off the loop (or find it in the cache) and
 * record it under files.lock (waited for on the loop, lockwait.h); a
 * finished rung prints its summary and stops there. Else stop a server
 * an earlier run left (on a timer), ask nvidia-smi what is in use, then
 * EV_BEGIN: the rung starts a server, and from there on every step is an
 * event in and actions out, until A_FINISH (after the server is stopped)
 * ends the loop and rows/<RUNG>.done is written. Nothing here sleeps or waits
 * on the loop thread, and no child is waited for without a time limit; the
 * server dies with this process however it dies (spawn.h).
 *
 * This file is the glue; what comes before the server is prepare.c's,
 * the server and nvidia-smi serve.c's, the requests ask.c's, and each row
 * is written by rowwrite.c (runner_int.h names the parts).
 */
#include "runner.h"

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

#include "../../grader/grader.h"
#include "../../rundir/files.h"
#include "../../rundir/rundir.h"
#include "../base/cli.h"
#include "../night/progress.h"
#include "record.h"
#include "../rows/rowsfile.h"
#include "runner_int.h"
#include "../input/taskfile.h"

static void feed(struct runner *r, const struct rung_event *ev);

/* ---- the end ----------------------------------------------------------- */

/* The end: every handle closed, the loop left to end. */
static void close_all(struct runner *r)
{
    if (r->http) {
        http_free(r->http, NULL, NULL);
        r->http = NULL;
    }
    ask_close(r);
    execs_close(r);
    energy_close(r);
    serve_close(r);
    prepare_close(r);
    lockwait_close(&r->files_lock, NULL);
    if (!uv_is_closing((uv_handle_t *)&r->timer))
        uv_close((uv_handle_t *)&r->timer, NULL);
}

/* The rung ended (A_FINISH): no server is up; the loop ends (the
 * supervisor closes the signals once it sees no child runs). */
static void finished(struct runner *r, int code, const char *why)
{
    r->ended = 1;
    r->exit_code = code;
    if (why != NULL && why[0] != '\0')
        snprintf(r->err, sizeof(r->err), "%s", why);
    uv_timer_stop(&r->timer);
    uv_timer_stop(&r->asks.watch);
    serve_drop(r);
    close_all(r);
}

/* ---- rows -------------------------------------------------------------- */

/* "logprobs" on: an answer's record, before its row (the rows stay the
 * truth: a kill between the two leaves a record the next open cuts).
 * An answer with tokens but none of their log-probabilities is a server
 * build that ignores the request: the rung stops there, before a night
 * is spent on rows without a probs file. 0, or -1 with msg and *code. */
static int append_probs(struct runner *r, size_t q, int *code, char *msg,
                        size_t msgsize)
{
    const struct reply *y = ask_reply(r, q);
    unsigned char *rec;
    size_t len;
    int rc;

    if (y == NULL) /* cannot happen: an answer has its slot */
        return 0;
    if (y->probs.seen == 0 && (y->content.len > 0 || y->reasoning.len > 0)) {
        snprintf(msg, msgsize,
                 "the server '%s' (%s) answered %s without "
                 "log-probabilities though \"logprobs\": %d was asked: this "
                 "llama-server build returns none (use one that does, or "
                 "leave logprobs off)",
                 r->o->llama, r->version[0] ? r->version : "?",
                 r->probs_asked ? "a question" : "its first question",
                 r->o->logprobs);
        *code = EXIT_USAGE;
        return -1;
    }
    r->probs_asked = 1;
    /* calls without their tokens: a record of the content alone would
     * show a dead call's replies agreeing (no split) */
    if (y->ncalls > 0 && y->probs.calls_seen == 0) {
        snprintf(msg, msgsize,
                 "the server '%s' (%s) streamed the calls of tool item "
                 "'%.200s' without log-probabilities though \"logprobs\": "
                 "%d was asked: a record would hold none of their tokens, "
                 "and the report would call a dead call's replies "
                 "agreeing; no split can be shown for tool items with this "
                 "server (leave \"logprobs\" off for them; "
                 "docs/toolcalls.md, \"Logprobs\")",
                 r->o->llama, r->version[0] ? r->version : "?", r->ids[q],
                 r->o->logprobs);
        *code = EXIT_USAGE;
        return -1;
    }
    /* tokens that do not rebuild the reply would be compared out of
     * place with every answer after: the rung stops at the first */
    if (y->probs.bad[0] != '\0') {
        snprintf(msg, msgsize,
                 "the server '%s' (%s) sent log-probabilities that do not "
                 "match its reply to question '%.200s': %s (the rung is "
                 "refused: its records would put tokens out of place)",
                 r->o->llama, r->version[0] ? r->version : "?", r->ids[q],
                 y->probs.bad);
        *code = EXIT_USAGE;
        return -1;
    }
    if (reply_probs_record(y, r->ids[q], &rec, &len) != 0) {
        snprintf(msg, msgsize,
                 "question '%.300s': its id does not fit a "
                 "probs record (1 to 255 bytes)",
                 r->ids[q]);
        *code = EXIT_USAGE;
        return -1;
    }
    rc = probsfile_append(&r->probs, rec, len, msg, msgsize);
    free(rec);
    if (rc != 0)
        *code = files_exit_code(r->probs.err);
    return rc;
}

/* ---- a row, graded and written on the thread pool -------------------- */

static void pump(struct runner *r, int step);

/* On the thread pool: the row graded by every rule of the task, appended
 * and fsync'd; a stop signal ends it before the next rule, unwritten. */
static void row_work(uv_work_t *req)
{
    struct rowjob *j = req->data;

    if (j->w.code) {
        /* a code task: the answer's candidate line, synced (execs.c
         * writes its row once its code has run); an error row's line
         * waits there for its turn */
        j->text = row_text(&j->w, j->task, &j->right);
        j->rc = j->w.error != NULL
                    ? 0
                    : execs_candidate(j->r, j->text, j->msg, sizeof(j->msg));
        return;
    }
    j->rc = row_append_until(j->store, &j->w, j->task, &j->right, &j->stop,
                             j->msg, sizeof(j->msg));
}

/* A code task's line made: to execs.c, which writes its row in turn. */
static void row_to_execs(struct runner *r, struct rowjob *j,
                         const struct rung_action *a)
{
    execs_add(r, a->question, j->text, a->type == A_ERROR_ROW);
    j->text = NULL;
    ask_written(r, a->question);
    if (a->type == A_ANSWER_ROW && j->tps > 0)
        r->last_tps = j->tps;
    pump(r, 0);
}

/* Back on the loop: the row is counted and told, and the rest of its
 * step goes on; a row that could not be written, or was stopped, is the
 * next event instead (as a failed action is). */
static void row_done(uv_work_t *req, int status)
{
    struct rowjob *j = req->data;
    struct runner *r = j->r;
    const struct rung_action *a = &r->pump.acts[r->pump.next - 1];
    struct queued *f = &r->pump.cur;

    j->busy = 0;
    if (status == 0 && j->rc == 0 && j->w.code) {
        row_to_execs(r, j, a);
        return;
    }
    free(j->text);
    j->text = NULL;
    if (status == 0 && j->rc == 0) {
        ask_written(r, a->question);
        if (a->type == A_ANSWER_ROW && j->tps > 0)
            r->last_tps = j->tps;
        runner_counted(r, j->right);
        pump(r, 0);
        return;
    }
    memset(&f->ev, 0, sizeof(f->ev));
    f->ev.type = j->rc == 1 ? EV_STOP : EV_FAIL;
    f->ev.code = j->rc == 1    ? j->stop_code
                 : status != 0 ? EXIT_FAILED
                 : j->w.code   ? files_exit_code(r->execs.cands.err)
                               : files_exit_code(r->store.err);
    snprintf(f->text, sizeof(f->text), "%s",
             j->rc == 1    ? ""
             : status != 0 ? "a row was cancelled"
                           : j->msg);
    f->ev.text = f->text;
    pump(r, 1);
}

/* The row an action asks for (an answer, or an error row), by the one
 * writer of rows (rowwrite.h), to the thread pool, after its probs record
 * when logprobs are on (written here, on the loop: the record goes first).
 * 0 (row_done goes on), or -1 with the failure in msg and *code. */
static int row_start(struct runner *r, const struct rung_action *a, int *code,
                     char *msg, size_t msgsize)
{
    struct rowjob *j = &r->rowjob;
    const char *kind = a->type == A_ERROR_ROW ? a->kind : NULL;
    const char *error = a->type == A_ERROR_ROW ? a->text : NULL;

    if (a->type == A_ANSWER_ROW && r->o->logprobs > 0 &&
        append_probs(r, a->question, code, msg, msgsize) != 0)
        return -1;
    j->tps = ask_row(r, a->question, a->attempts, kind, error, &j->w);
    j->w.code = execs_on(r);
    j->text = NULL;
    j->task = r->o->task;
    atomic_store(&j->stop, 0);
    j->stop_code = 0;
    j->work.data = j;
    j->r = r;
    j->store = &r->store;
    if (uv_queue_work(&r->sup.loop, &j->work, row_work, row_done) != 0) {
        snprintf(msg, msgsize, "cannot queue a row on the thread pool");
        return -1;
    }
    j->busy = 1;
    return 0;
}

/* ---- the rung's events and actions -------------------------------------- */

static void probed(struct runner *r)
{
    struct rung_event ev;

    memset(&ev, 0, sizeof(ev));
    ev.type = EV_PROBED;
    feed(r, &ev);
}

/* Carry out one action. Returns 0, 1 when a row went to the thread pool
 * (the rest of the step waits for row_done), or -1 (the rest of the step
 * is skipped) with an EV_FAIL in *fail. */
static int carry_out(struct runner *r, const struct rung_action *a,
                     struct queued *fail)
{
    int code = 1, no_server = 0;

    switch (a->type) {
    case A_START_SERVER:
        ask_cancel_all(r);
        energy_end(r); /* loading is not answering */
        if (serve_start(r) == 0)
            return 0;
        snprintf(fail->text, sizeof(fail->text), "%.880s", r->err);
        no_server = 1; /* none to stop */
        break;
    case A_PROBE_LOADED:
        serve_probe(r, 1, probed);
        return 0;
    case A_ASK:
        energy_begin(r);
        if (a->fresh) /* after a stream lost before its first byte */
            http_fresh_next(r->http);
        if (ask_start(r, a->question) == 0)
            return 0;
        snprintf(fail->text, sizeof(fail->text),
                 "cannot start a request to %s: %s", r->srv.url,
                 http_error(r->http));
        break;
    case A_STOP_SERVER:
        energy_end(r);
        serve_stop(r);
        return 0;
    case A_WAIT_EXIT:
        serve_wait_exit(r);
        return 0;
    case A_ANSWER_ROW:
    case A_ERROR_ROW:
        if (a->type == A_ERROR_ROW &&
            (strcmp(a->kind, "died") == 0 || strcmp(a->kind, "hung") == 0))
            ask_forget(r, a->question);
        if (row_start(r, a, &code, fail->text, sizeof(fail->text)) == 0)
            return 1;
        break;
    case A_SAY:
        runner_say(r, "%s", a->text);
        return 0;
    case A_FINISH:
        /* a code task's last rows may still be running */
        if (!execs_hold(r, a->code, a->text))
            finished(r, a->code, a->text);
        return 0;
    }
    memset(&fail->ev, 0, sizeof(fail->ev));
    fail->ev.type = EV_FAIL;
    fail->ev.code = code;
    fail->ev.no_server = no_server;
    return -1;
}

/* e with its strings copied into w, which then holds it. */
static void hold_event(struct queued *w, const struct rung_event *e)
{
    w->ev = *e;
    snprintf(w->kind, sizeof(w->kind), "%s", e->kind ? e->kind : "");
    snprintf(w->text, sizeof(w->text), "%s", e->text ? e->text : "");
    w->ev.kind = e->kind ? w->kind : NULL;
    w->ev.text = e->text ? w->text : NULL;
}

/* The step's actions from the next one on: 0 when all are carried out,
 * 1 when a row went to the thread pool, -1 when one failed (*fail is
 * the next event). */
static int carry_on(struct runner *r, struct queued *fail)
{
    int rc;

    while (r->pump.next < r->pump.n && !r->ended)
        if ((rc = carry_out(r, &r->pump.acts[r->pump.next++], fail)) != 0)
            return rc;
    return 0;
}

/* Step the rung with r->pump.cur (or, step 0, go on with the step a row
 * held), then with each event that waited, until none waits or a row
 * goes to the thread pool (row_done calls this again). */
static void pump(struct runner *r, int step)
{
    struct queued fail;
    int rc;

    while (!r->ended) {
        if (step) {
            r->pump.n = rung_step(&r->rung, &r->pump.cur.ev, r->pump.acts);
            r->pump.next = 0;
        }
        step = 1;
        rc = carry_on(r, &fail);
        if (rc > 0)
            return; /* still stepping: row_done goes on */
        if (rc < 0) {
            r->pump.cur = fail;
            r->pump.cur.ev.text = r->pump.cur.text;
            continue;
        }
        if (r->nqueued == 0)
            break;
        r->pump.cur = r->queue[0];
        memmove(r->queue, r->queue + 1, --r->nqueued * sizeof(r->queue[0]));
        r->pump.cur.ev.kind = r->pump.cur.ev.kind ? r->pump.cur.kind : NULL;
        r->pump.cur.ev.text = r->pump.cur.ev.text ? r->pump.cur.text : NULL;
    }
    r->stepping = 0;
}

/* Hand an event to the rung and carry out its actions; an event raised
 * meanwhile (a callback that runs at once, or one that comes while a row
 * is on the thread pool) waits its turn, and an action that fails skips
 * the rest of its step and is the next event. */
static void feed(struct runner *r, const struct rung_event *ev)
{
    size_t i;

    if (r->ended)
        return;
    if (r->stepping) {
        /* one stop waiting is enough: the rung keeps the first one's
         * status, and a row on the pool is stopped already */
        for (i = 0; ev->type == EV_STOP && i < r->nqueued; i++)
            if (r->queue[i].ev.type == EV_STOP)
                return;
        if (r->nqueued == sizeof(r->queue) / sizeof(r->queue[0])) {
            /* a bug: each flight, the server and a stop raise one */
            fprintf(stderr,
                    "graveyard run %s: internal error: more than %zu "
                    "events while one step is carried out\n",
                    r->o->rung, sizeof(r->queue) / sizeof(r->queue[0]));
            abort();
        }
        hold_event(&r->queue[r->nqueued++], ev);
        return;
    }
    r->stepping = 1;
    hold_event(&r->pump.cur, ev);
    pump(r, 1);
}

/* A stop signal, each one (SUPER_SECOND_AGAIN): the rung keeps the
 * first one's exit status and goes on stopping its server. */
static void stop_cb(void *ctx, int signum)
{
    struct runner *r = ctx;
    struct rung_event ev;

    if (r->ended)
        return;
    runner_say(r, "stopping on signal %d; run the same command to resume",
               signum);
    /* every sandbox killed at once; a rung that only waited for them
     * ends here */
    execs_stop(r);
    if (execs_signal(r, 128 + signum))
        return;
    if (r->rowjob.busy && r->rowjob.stop_code == 0) {
        /* a row grading on the pool stops before its next rule, and the
         * question is asked again on resume */
        r->rowjob.stop_code = 128 + signum;
        atomic_store(&r->rowjob.stop, 1);
    }
    memset(&ev, 0, sizeof(ev));
    ev.type = EV_STOP;
    ev.code = 128 + signum;
    feed(r, &ev);
}

/* ---- the rung's summary ------------------------------------------------ */

/* rows/<RUNG>.done, with what this process knows beyond the rows. */
static int write_done(struct runner *r)
{
    struct record_done d;

    d.rows_path = r->store.path.p;
    d.bytes = r->prep.model_hash.bytes;
    d.server = r->version;
    d.gpu_before = r->srv.gpu_before;
    d.gpu_loaded = r->srv.gpu_loaded;
    d.gpu_name = r->srv.gpu_name;
    d.log_path = r->log_path.p;
    d.rows_bytes_written = r->store.written;
    d.log_dropped = r->srv.log.dropped;
    d.server_starts = r->rung.started;
    return record_done(r->o, &d);
}

/* GRAVEYARD_PROGRESS_FD: a ladder's pipe, if it really is one. It is
 * close-on-exec and non-blocking; -1 when absent or not a pipe. */
static int progress_fd(void)
{
    const char *s = getenv("GRAVEYARD_PROGRESS_FD");
    struct stat st;
    long fd;

    if (cli_whole(s, 3, 1024, &fd) != 0 || fstat((int)fd, &st) != 0 ||
        !S_ISFIFO(st.st_mode))
        return -1;
    if (fcntl((int)fd, F_SETFD, FD_CLOEXEC) != 0 ||
        fcntl((int)fd, F_SETFL, O_NONBLOCK) != 0)
        return -1;
    return (int)fd;
}

/* What the rows answer, for the probs file's resume. */
struct answered {
    const struct grader_qset *rows;
    struct runner *r;
};

/* The probs file's resume: whether the rows answer id, or a code task's
 * candidate whose row is on its way (execs.c). */
static int has_row(void *ctx, const char *id, size_t len)
{
    const struct answered *a = ctx;
    uint32_t qi;

    return grader_qset_find(a->rows, id, len, &qi) == 0 ||
           execs_holds(a->r, id, len);
}

/* The probs file's resume: whether its last record is whole, by the
 * codec (a check that fails is a record whose bytes did not all land). */
static int whole_record(const unsigned char *rec, size_t len)
{
    struct grader_probs_answer a;
    struct grader_error err;
    int rc = grader_probs_decode(rec, len, &a, &err);

    if (rc == GRADER_ENOMEM) /* never a whole record taken for torn */
        util_oom("a probs record");
    if (rc == 0)
        grader_probs_answer_free(&a);
    return rc == 0;
}

/* "logprobs" on: open the probs file and make it agree with the rows
 * just read (probsfile.h). 0, or the exit status with msg. */
static int open_probs(struct runner *r, struct answered *answered, char *msg,
                      size_t msgsize)
{
    if (probsfile_open(&r->probs, r->o->rundir, r->o->rung, has_row, answered,
                       whole_record, msg, msgsize) != 0)
        return r->probs.err == EINVAL ? EXIT_USAGE
                                      : files_exit_code(r->probs.err);
    /* --force past a changed "logprobs" would mix two Ns in one file */
    if (r->probs.records > 0 && r->probs.topn != (unsigned)r->o->logprobs) {
        snprintf(msg, msgsize,
                 "'%.600s' holds records of %u log-probabilities a token, "
                 "and this run asks %d: one probs file keeps one N (move it "
                 "away to ask the rung again)",
                 r->probs.path.p, r->probs.topn, r->o->logprobs);
        return EXIT_USAGE;
    }
    if (r->probs.cut_torn > 0)
        runner_say(r, "cut back a torn last record (%zu bytes) in %s",
                   r->probs.cut_torn, r->probs.path.p);
    if (r->probs.cut_rowless > 0)
        runner_say(r, "cut back %zu record(s) without a row in %s",
                   r->probs.cut_rowless, r->probs.path.p);
    return 0;
}

int runner_check_ahead(const char *rundir, const char *rung, char *msg,
                       size_t msgsize)
{
    /* the rows, the lock and (with logprobs) the probs file are opened
     * at once by open_rung, the others only later; all are here so that a
     * ladder can check its last rung before its first starts */
    static const enum rundir_file later[] = {
        RD_ROWS,       RD_DONE,       RD_PROBS,     RD_LOCK,
        RD_LOG,        RD_PID,        RD_POWER,     RD_MANIFEST,
        RD_LADDER_TSV, RD_FILES_LOCK, RD_CANDIDATES};

    if (rundir_check_ahead(rundir, rung, later, sizeof(later) / sizeof(*later),
                           msg, msgsize) != 0)
        return files_exit_code(errno);
    return 0;
}

/* "logprobs" on: every question's id fits a probs record (1 to 255
 * bytes, a u8 length: probs.h), where the loader takes 256 (the rows'
 * cap). Checked before anything is made, so that a night is never spent
 * to fail at the answer whose record cannot be written. 0, or
 * EXIT_USAGE with "FILE:LINE: ..." in msg. */
static int ids_fit_records(const struct run_opts *o,
                           const struct questions *qs, char *msg,
                           size_t msgsize)
{
    for (size_t i = 0; o->logprobs > 0 && i < qs->n; i++) {
        size_t n = strlen(qs->q[i].id);
        if (n <= GRADER_PROBS_ID_MAX)
            continue;
        snprintf(msg, msgsize,
                 "%.600s:%ld: question id of %zu bytes: a probs record holds "
                 "ids of %u bytes at most (shorten it, or leave logprobs "
                 "off)",
                 o->questions, qs->q[i].line, n, GRADER_PROBS_ID_MAX);
        return EXIT_USAGE;
    }
    return 0;
}

/*
 * Everything before the loop, in order: check what was given (nothing
 * is created yet), take the rung's lock, open the rows file and read
 * what it answers already. Returns 0, or the exit status with the
 * message in msg.
 */
static int open_rung(struct runner *r, char *msg, size_t msgsize)
{
    const struct run_opts *o = r->o;
    struct grader_qset *answered;
    struct buf path = {0};
    char warn[1024];
    int code;

    /* check first, then create: bad input leaves nothing behind */
    if (questions_load_as(o->questions, o->limit, grader_task_ref(o->task),
                          &r->qs, msg, msgsize))
        return EXIT_USAGE;
    if ((code = ids_fit_records(o, &r->qs, msg, msgsize)) != 0 ||
        (code = execs_probe(r, msg, msgsize)) != 0)
        return code;
    /* a link or a FIFO where a file goes later: now, not after a night */
    if ((code = runner_check_ahead(o->rundir, o->rung, msg, msgsize)) != 0)
        return code;
    if ((code = record_inputs(o, r->version, sizeof(r->version), r->binary_sha,
                              msg, msgsize)) != 0 ||
        (code = record_vocab(o, r->vocab, warn, sizeof(warn), msg, msgsize)) !=
            0 ||
        (code = record_lock(o, &r->lock_fd, msg, msgsize)) != 0)
        return code;
    if (warn[0] != '\0')
        runner_say(r, "%s", warn);
    if (store_open(&r->store, o->rundir, o->rung, msg, msgsize) != 0)
        return files_exit_code(r->store.err);
    if (r->store.cut > 0)
        runner_say(r, "cut back a torn last row (%zu bytes) in %s",
                   r->store.cut, r->store.path.p);
    /* what the file answers already (every row checked on the way) */
    if (rowsfile_answered(r->store.path.p, o->rung, o->task, &answered,
                          &r->rows, &r->right, msg, msgsize) != 0)
        return EXIT_USAGE;
    r->had = xrealloc(NULL, r->qs.n ? r->qs.n : 1);
    r->ids = xrealloc(NULL, (r->qs.n ? r->qs.n : 1) * sizeof(*r->ids));
    for (size_t i = 0; i < r->qs.n; i++) {
        const char *id = r->qs.q[i].id;
        uint32_t qi;
        r->had[i] = grader_qset_find(answered, id, strlen(id), &qi) == 0;
        r->ids[i] = id;
    }
    /* a code task's candidates a stop left: run, not asked again (their
     * probs records stay: their rows are on their way) */
    code = execs_open(r, msg, msgsize);
    if (code == 0 && o->logprobs > 0) {
        struct answered a = {answered, r};
        code = open_probs(r, &a, msg, msgsize);
    }
    grader_qset_free(answered);
    if (code != 0)
        return code;
    rung_init(&r->rung, r->qs.n, r->had, r->ids, r->asks.width, o->idle_s,
              o->request_timeout_s);
    /* record_inputs kept the folder's paths under the cap already */
    if (rundir_path_buf(&path, o->rundir, RD_DONE, o->rung) != 0 ||
        rundir_path_buf(&r->log_path, o->rundir, RD_LOG, o->rung) != 0 ||
        rundir_path_buf(&r->pid_path, o->rundir, RD_PID, o->rung) != 0) {
        buf_release(&path);
        snprintf(msg, msgsize, "path too long: '%.200s...'", o->rundir);
        return EXIT_USAGE;
    }
    r->complete = r->rows >= r->qs.n && access(path.p, F_OK) == 0;
    code = 0;
    if (rundir_path_buf(&path, o->rundir, RD_LOGS_DIR, NULL) != 0) {
        snprintf(msg, msgsize, "path too long: '%.200s...'", o->rundir);
        code = EXIT_USAGE;
    } else if (!r->complete && files_mkdir(path.p, 0, msg, msgsize) != 0)
        code = files_exit_code(errno);
    buf_release(&path);
    return code;
}

/* The loop runs while the rung has not ended. */
static int busy_cb(void *ctx)
{
    const struct runner *r = ctx;

    return !r->ended;
}

/* On a terminal, not under a ladder: the rung's line, drawn each second
 * (as the ladder's are), once answers come. */
static void draw_cb(void *ctx)
{
    struct runner *r = ctx;
    struct progress p;
    char shown[160];

    if (r->rows == 0 && r->rows_added == 0)
        return;
    runner_progress(r, &p);
    progress_show(&p, shown, sizeof(shown));
    super_line(&r->sup, "%s  %s", r->o->rung, shown);
}

/* The run's supervisor: its stop signals, no probe (serve.c asks
 * nvidia-smi itself); a tick and a live line only on a terminal with no
 * ladder (whose pipe gets each row's progress instead). */
static const struct super_ops run_ops = {stop_cb, NULL, NULL, busy_cb, NULL};
static const struct super_ops run_live_ops = {stop_cb, NULL, draw_cb, busy_cb,
                                              NULL};

/* The loop, its timers and signals, and the model's hash to start the
 * chain (prepare.c). 0, or -1 when libuv does not start (said). */
static int start_loop(struct runner *r)
{
    if (super_open(&r->sup, r->live ? &run_live_ops : &run_ops, r) != 0)
        return -1;
    uv_timer_init(&r->sup.loop, &r->timer);
    r->timer.data = r;
    uv_timer_init(&r->sup.loop, &r->asks.watch);
    r->asks.watch.data = r;
    lockwait_init(&r->files_lock, &r->sup.loop);
    energy_init(r);
    if (execs_start(r) != 0)
        return -1;
    prepare_start(r);
    return 0;
}

static void runner_free(struct runner *r)
{
    serve_release(r);
    energy_release(r);
    execs_release(r);
    if (r->lock_fd >= 0)
        close(r->lock_fd); /* releases the lock */
    store_close(&r->store);
    probsfile_close(&r->probs);
    free(r->had);
    free(r->ids);
    buf_release(&r->pid_path);
    buf_release(&r->log_path);
    hash_release(&r->prep.model_hash);
    questions_release(&r->qs);
    ask_release(r);
    http_global_cleanup();
    free(r);
}

int runner_run(const struct run_opts *given)
{
    struct runner *r = xrealloc(NULL, sizeof(*r));
    struct grader_task *task = NULL;
    struct run_opts local = *given;
    const struct run_opts *o = &local;
    char msg[1024];
    int code;

    if (local.task == NULL) {
        if ((task = taskfile_load(TASKFILE_DEFAULT, msg, sizeof(msg))) == NULL)
            util_oom("the default task");
        local.task = task;
    }
    memset(r, 0, sizeof(*r));
    r->o = o;
    r->feed = feed;
    r->finish = finished;
    r->lock_fd = -1;
    r->execs.cands.fd = -1;
    r->probs.fd = -1;
    r->srv.log.fd = -1;
    r->srv.gpu_before = r->srv.gpu_loaded = -1;
    r->progress_fd = progress_fd();
    r->live = !o->quiet && r->progress_fd < 0 && isatty(STDERR_FILENO);
    snprintf(r->who, sizeof(r->who), "run %s", o->rung);
    super_init(&r->sup, r->who, o->quiet, SUPER_SECOND_AGAIN);
    /* a write to a ladder that is gone must fail, not kill us */
    signal(SIGPIPE, SIG_IGN);
    ask_init(r);
    if ((code = open_rung(r, msg, sizeof(msg))) != 0) {
        fprintf(stderr, "graveyard run %s: %s\n", o->rung, msg);
        runner_free(r);
        grader_task_free(task);
        return code;
    }
    if (start_loop(r) != 0) {
        runner_free(r);
        grader_task_free(task);
        return EXIT_FAILED;
    }
    /* a handle left open is said there; the rows stand as written */
    (void)super_run(&r->sup);
    code = r->exit_code;
    if (r->err[0] != '\0')
        fprintf(stderr, "graveyard run %s: %s\n", o->rung, r->err);
    if (code == EXIT_OK && !r->complete && write_done(r) != 0)
        code = EXIT_FAILED;
    if (code != EXIT_OK && code != EXIT_USAGE)
        fprintf(stderr,
                "graveyard run %s: %zu of %zu questions answered; run the "
                "same command to resume\n",
                o->rung, r->rows, r->qs.n);
    runner_free(r);
    grader_task_free(task);
    return code;
}
