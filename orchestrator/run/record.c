/*
 * record.c - what a rung writes about itself in its run folder, and the
 * checks before it writes anything (record.h).
 */
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../grader/grader.h"
#include "../../report/emit.h"
#include "../../rundir/files.h"
#include "../../rundir/ladderfile.h"
#include "../../rundir/manifest.h"
#include "../../rundir/done.h"
#include "../../rundir/meta.h"
#include "../../rundir/outfile.h"
#include "../../rundir/rundir.h"
#include "../../util/util.h"
#include "../base/cli.h"
#include "../input/config.h"
#include "../night/gpu.h"
#include "../input/questions.h"
#include "../input/redact.h"
#include "request.h"
#include "../rows/rowsfile.h"
#include "../base/endpoint.h"
#include "../server/spawn.h"
#include "../input/taskfile.h"

#define VERSION_MS 30000 /* --version may take this long */

/* A served model (docs/run.md, "A served model"): no file, no binary; its
 * URL checked before any connection, and its key's variable set. */
static int endpoint_inputs(const struct run_opts *o, char *version,
                           size_t vsize, char *msg, size_t msgsize)
{
    const char *key;

    if (endpoint_url_check(o->endpoint, o->allow_plain_http, msg, msgsize))
        return EXIT_USAGE;
    if (o->api_key_env != NULL &&
        ((key = getenv(o->api_key_env)) == NULL || key[0] == '\0')) {
        snprintf(msg, msgsize,
                 "the endpoint's key variable '%.100s' (api_key_env) is not "
                 "set",
                 o->api_key_env);
        return EXIT_USAGE;
    }
    if (strlen(o->rundir) + strlen(o->rung) > 3900 ||
        strlen(o->questions) > 4000) {
        snprintf(msg, msgsize, "path too long: '%.200s...'", o->rundir);
        return EXIT_USAGE;
    }
    snprintf(version, vsize, "served at %s", o->endpoint);
    return 0;
}

int record_inputs(const struct run_opts *o, char *version, size_t vsize,
                  char *binary_sha, char *msg, size_t msgsize)
{
    struct buf path = {0};
    char status[64], why[4400];
    int fd, rc, e;

    binary_sha[0] = '\0';
    if (o->endpoint != NULL)
        return endpoint_inputs(o, version, vsize, msg, msgsize);

    if (!config_path_ok(o->model) || !config_path_ok(o->rundir)) {
        snprintf(msg, msgsize,
                 "the model and run folder paths may not hold "
                 "control characters");
        return EXIT_USAGE;
    }
    /* ladder.tsv and the manifest keep these whole: never a cut path */
    if (strlen(o->rundir) + strlen(o->rung) > 3900 ||
        strlen(o->model) > 4000 || strlen(o->questions) > 4000) {
        snprintf(msg, msgsize, "path too long: '%.200s...'",
                 strlen(o->model) > 4000 ? o->model : o->rundir);
        return EXIT_USAGE;
    }
    /* a FIFO or a device in the model's place: refused, never waited on */
    if ((fd = files_open_read(o->model, 0, why, sizeof(why))) < 0) {
        snprintf(msg, msgsize, "model: %s", why);
        return EXIT_USAGE;
    }
    close(fd);
    e = spawn_resolve(o->llama, &path);
    if (e == ENAMETOOLONG) {
        buf_release(&path);
        snprintf(msg, msgsize, "--llama: path too long: '%.200s...'",
                 o->llama);
        return EXIT_USAGE;
    }
    if (e != 0) {
        buf_release(&path);
        snprintf(msg, msgsize, "cannot run '%s': %s (give --llama)", o->llama,
                 strerror(e));
        return EXIT_USAGE;
    }
    /* its bytes, beside its --version line (every tarball build says
     * "version: 0 (unknown)"); a few MB, before the loop runs, as the
     * --version call below */
    rc = hash_path(path.p, binary_sha, why, sizeof(why));
    buf_release(&path); /* spawn finds it again */
    if (rc != 0) {
        snprintf(msg, msgsize, "server binary: %s", why);
        return EXIT_USAGE;
    }
    rc = spawn_version(o->llama, VERSION_MS, version, vsize);
    if (rc == SPAWN_ENOEXEC || rc == 127) {
        snprintf(msg, msgsize,
                 "cannot run '%s --version': is it a llama-server binary?",
                 o->llama);
        return EXIT_USAGE;
    }
    if (rc != 0) {
        snprintf(msg, msgsize, "'%s --version' %s: is it a llama-server?",
                 o->llama, spawn_status_text(rc, status, sizeof(status)));
        return EXIT_FAILED;
    }
    if (version[0] == '\0') {
        snprintf(msg, msgsize, "'%s --version' printed no 'version:' line",
                 o->llama);
        return EXIT_FAILED;
    }
    /* a rung's own build is pinned as server.version pins the server's */
    if (o->want_version != NULL && strcmp(version, o->want_version) != 0) {
        snprintf(msg, msgsize,
                 "rung '%s': its version is '%s' but '%s' says '%s'", o->rung,
                 o->want_version, o->llama, version);
        return EXIT_USAGE;
    }
    return 0;
}

/* A file that is not a GGUF at all (the fake server's JSON scripts): no
 * llama-server loads one, so no log-probability can come of it, and its
 * vocabulary is let pass unread, with a note. 1 when path is one. */
static int not_gguf(int rc, const struct vocab *v, const char *rung,
                    const char *path, char *warn, size_t warnsize)
{
    if (rc != EXIT_USAGE || v->gguf != 0)
        return 0;
    snprintf(warn, warnsize,
             "rung %s: '%.900s' is not a GGUF: its vocabulary is not "
             "checked",
             rung, path);
    return 1;
}

int record_vocab(const struct run_opts *o, char *hex, char *warn,
                 size_t warnsize, char *msg, size_t msgsize)
{
    struct vocab v;
    char rhex[65], other[128], model[4096], why[1400], theirs[65];
    int rc;

    hex[0] = warn[0] = '\0';
    if (o->logprobs <= 0 || o->endpoint != NULL)
        return 0; /* an endpoint's vocabulary is not ours to read */
    if ((rc = hash_vocab(o->model, hex, &v, why, sizeof(why))) != 0) {
        if (not_gguf(rc, &v, o->rung, o->model, warn, warnsize))
            return 0;
        snprintf(msg, msgsize,
                 "rung %s: %s (logprobs are compared token by token, so "
                 "every rung's vocabulary must be read)",
                 o->rung, why);
        return rc;
    }
    if (o->ref_model != NULL && strcmp(o->ref_rung, o->rung) != 0) {
        rc = hash_vocab(o->ref_model, rhex, &v, why, sizeof(why));
        if (rc != 0 &&
            !not_gguf(rc, &v, o->ref_rung, o->ref_model, warn, warnsize)) {
            snprintf(msg, msgsize, "reference %s: %s", o->ref_rung, why);
            return rc;
        }
        if (rc == 0 && strcmp(rhex, hex) != 0) {
            hash_vocab_differ(msg, msgsize, o->ref_rung, o->ref_model, rhex,
                              o->rung, o->model, hex);
            return EXIT_USAGE;
        }
    }
    /* a rung run before into this folder, from this config or not */
    rc = rundir_vocab_other(o->rundir, o->rung, hex, other, sizeof(other),
                            model, sizeof(model), why, sizeof(why));
    if (rc < 0) {
        snprintf(msg, msgsize, "%s", why);
        return files_exit_code(errno);
    }
    if (rc == 1) {
        if (rundir_vocab_hash(o->rundir, other, theirs, why, sizeof(why)) != 0)
            snprintf(theirs, sizeof(theirs), "?");
        hash_vocab_differ(msg, msgsize, other, model, theirs, o->rung,
                          o->model, hex);
        return EXIT_USAGE;
    }
    return 0;
}

/* Refuses a run-folder path past the cap: a cut path names another file. */
static int too_long(const struct run_opts *o, char *msg, size_t msgsize)
{
    snprintf(msg, msgsize, "path too long: '%.200s...'", o->rundir);
    return EXIT_USAGE;
}

int record_lock(const struct run_opts *o, int *fd, char *msg, size_t msgsize)
{
    struct buf path = {0};
    char pid[32] = "";
    ssize_t n;
    int rc = 0;

    if (files_mkdir(o->rundir, 1, msg, msgsize) != 0)
        return files_exit_code(errno);
    if (rundir_path_buf(&path, o->rundir, RD_LOCKS_DIR, NULL) != 0) {
        rc = too_long(o, msg, msgsize);
        goto out;
    }
    if (files_mkdir(path.p, 0, msg, msgsize) != 0) {
        rc = files_exit_code(errno);
        goto out;
    }
    if (rundir_path_buf(&path, o->rundir, RD_LOCK, o->rung) != 0) {
        rc = too_long(o, msg, msgsize);
        goto out;
    }
    *fd = files_open(path.p, O_RDWR | O_CREAT, 0644, msg, msgsize);
    if (*fd < 0) {
        rc = files_exit_code(errno);
        goto out;
    }
    if (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
        n = pread(*fd, pid, sizeof(pid) - 1, 0);
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        snprintf(msg, msgsize,
                 "rung %s is being run by another graveyard (pid %s)", o->rung,
                 pid[0] ? pid : "?");
        close(*fd);
        *fd = -1;
        rc = EXIT_BUSY;
        goto out;
    }
    snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
    if (ftruncate(*fd, 0) != 0 ||
        pwrite(*fd, pid, strlen(pid), 0) != (ssize_t)strlen(pid)) {
        int e = errno;
        snprintf(msg, msgsize, "cannot write '%.900s': %s", path.p,
                 files_strerror(e));
        rc = files_exit_code(e);
    }
out:
    buf_release(&path);
    return rc;
}

/* The manifest's shared part: what every rung of the folder must share;
 * the whole task, so the folder grades the same after its task file
 * moved, and a resume under another task is refused. */
static json_t *settings(const struct run_opts *o, const char *version,
                        const char *binary_sha, const char *qhash,
                        const struct manifest_sandbox *sandbox)
{
    struct manifest_request req;
    struct manifest_shared s = {
        .graveyard = GRAVEYARD_VERSION,
        .questions = o->questions,
        .questions_sha256 = qhash,
        .prompt = o->prompt ? o->prompt : grader_task_prompt(o->task),
        .task = taskfile_to_json(o->task),
        .request = &req,
        .sandbox = sandbox,
    };
    json_t *j;

    /* the request's record as request.h packs it for the body too */
    request_record(o, &req);
    /* a served model's build is the server's word: not a setting the
     * folder's local rungs must share (its rung records the endpoint); a
     * rung on its own build pins its version with the rung (below) */
    if (o->endpoint == NULL && !o->own_binary) {
        s.server_version = version;
        s.binary_sha256 = binary_sha;
        s.binary_path = o->llama;
    }
    j = manifest_shared_json(&s);
    if (j == NULL)
        util_oom("a manifest");
    return j;
}

/* The manifest's entry of this rung: its file (or served model), what
 * its server is started with, its build when its own, its vocabulary. */
static json_t *rung_record(const struct run_opts *o, const char *version,
                           const char *binary_sha, const struct hash_job *job,
                           const char *vocab)
{
    const char *key = o->api_key_env ? getenv(o->api_key_env) : NULL;
    char hex[65];
    struct manifest_rung r = {
        .model = o->model,
        .sha256 = "",
        .vocab = vocab,
    };
    json_t *j;

    /* a served model has no ctx, -ngl or arguments of ours to record */
    if (o->endpoint == NULL) {
        r.bytes = job->bytes;
        r.sha256 = job->hex;
        r.local = 1;
        r.ctx = o->ctx;
        r.ngl = o->ngl;
        r.server_args =
            redact_args((char *const *)o->server_args, o->n_server_args);
    }
    if (o->argv_template)
        r.server_argv = redact_argv_json(o->argv_template);
    if (o->env_template)
        r.server_env = redact_env(o->env_template);
    if (o->own_binary) {
        r.server_version = version;
        r.binary_sha256 = binary_sha;
        r.binary_path = o->llama;
    }
    /* its URL, and its key's variable with the key's sha256 (never the
     * key: a changed key is seen on resume) */
    if (o->endpoint != NULL) {
        r.endpoint_url = o->endpoint;
        r.allow_plain_http = o->allow_plain_http;
        if (key != NULL) {
            hash_bytes(key, strlen(key), hex);
            r.api_key_env = o->api_key_env;
            r.api_key_sha256 = hex;
        }
    }
    j = manifest_rung_json(&r);
    if (j == NULL)
        util_oom("a manifest");
    return j;
}

int record_made_with(const struct run_opts *o, const char *version,
                     const char *binary_sha, const struct hash_job *job,
                     const char *vocab, const struct manifest_sandbox *sandbox,
                     int cached, char *warn, size_t warnsize, char *msg,
                     size_t msgsize)
{
    struct lrow lrow;
    char qhex[65];
    struct buf cache = {0}, path = {0};
    json_t *shared, *rung;
    int rc, changed;

    /* files.lock is the caller's (lockwait.h) */
    warn[0] = '\0';
    if (rundir_path_buf(&cache, o->rundir, RD_HASH_CACHE, NULL) != 0 ||
        rundir_path_buf(&path, o->rundir, RD_LADDER_TSV, NULL) != 0) {
        rc = too_long(o, msg, msgsize);
        goto out;
    }
    /* only a cache: when it cannot be written the run goes on, and the
     * caller says what warn holds */
    if (cached || o->endpoint != NULL ||
        sha_cache_put(cache.p, o->model, job->hex, warn, warnsize) == 0)
        warn[0] = '\0';
    rc = EXIT_USAGE;
    if (hash_path(o->questions, qhex, msg, msgsize) != 0)
        goto out;
    shared = settings(o, version, binary_sha, qhex, sandbox);
    rung = rung_record(o, version, binary_sha, job, vocab);
    changed = manifest_check(o->rundir, o->rung, shared, rung, o->force, msg,
                             msgsize);
    json_decref(shared);
    json_decref(rung);
    if (changed != 0) {
        /* a setting differs: bad input, whatever the rung's state; but a
         * full disk under the manifest is a failure that resumes */
        rc = files_exit_code(errno);
        goto out;
    }
    if (ladderfile_row(&lrow, o->rung, o->model, msg, msgsize) != 0) {
        rc = EXIT_USAGE;
        goto out;
    }
    lrow.bytes = job->bytes;
    memcpy(lrow.sha256, job->hex, sizeof(lrow.sha256));
    rc = ladderfile_upsert(path.p, &lrow, msg, msgsize) != 0
             ? files_exit_code(errno)
             : 0;
out:
    buf_release(&cache);
    buf_release(&path);
    return rc;
}

int record_print_done(const struct run_opts *o, char *msg, size_t msgsize)
{
    struct buf path = {0};
    char *line = NULL;
    int rc;

    if (rundir_path_buf(&path, o->rundir, RD_DONE, o->rung) != 0) {
        buf_release(&path);
        return too_long(o, msg, msgsize);
    }
    /* checked as any run-folder file, and as the summary it claims to be:
     * what is printed with exit 0 is what bury will read */
    rc = rundir_done_load(path.p, o->rung, &line, NULL, msg, msgsize);
    if (rc == 1)
        snprintf(msg, msgsize, "'%.900s' went away", path.p);
    buf_release(&path);
    if (rc == 1)
        return EXIT_FAILED;
    if (rc != 0)
        return errno == EINVAL ? EXIT_USAGE : files_exit_code(errno);
    if (!o->no_summary)
        fputs(line, stdout);
    free(line);
    return 0;
}

int record_done(const struct run_opts *o, const struct record_done *d)
{
    struct grader_qset *qs = grader_qset_new();
    struct grader_rung *g = NULL;
    struct grader_summary sum;
    struct grader_error err;
    struct buf path = {0};
    char msg[1024] = "", *text;
    struct rundir_done rec = {0};
    struct rusage ru;
    json_t *done;
    int rc = -1;

    if (qs == NULL ||
        rowsfile_read_rule(qs, o->rung, d->rows_path, 0, o->task, 0, &g,
                           &err) != 0 ||
        grader_summarize(g, &sum) != 0) {
        if (qs != NULL && g == NULL)
            grader_error_format(&err, msg, sizeof(msg));
        fprintf(stderr, "graveyard run %s: %s\n", o->rung, msg);
        goto out;
    }
    rec.rung = o->rung;
    rec.n = (long long)sum.n;
    rec.right = (long long)sum.right;
    rec.errors = (long long)sum.errors;
    rec.truncated = (long long)sum.truncated;
    rec.median_tps = sum.median_tps;
    rec.mean_tokens = sum.mean_tokens;
    rec.bytes = d->bytes;
    rec.served = o->endpoint != NULL; /* no file of ours, not pinned */
    rec.server = d->server;
    rec.step_limit = (long long)sum.step_limit;
    rec.gpu_before = d->gpu_before;
    rec.gpu_loaded = d->gpu_loaded;
    rec.gpu_name = d->gpu_name;
    gpu_load_lines(d->log_path, &rec);
    /* what this process cost: the figures docs/performance.md reports */
    getrusage(RUSAGE_SELF, &ru);
    rec.cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
    rec.peak_rss_kb = (long long)ru.ru_maxrss;
    rec.rows_bytes_written = d->rows_bytes_written;
    rec.server_starts = d->server_starts;
    rec.log_dropped = d->log_dropped;
    if ((done = rundir_done_json(&rec)) == NULL)
        util_oom("the rung's summary");
    text = emit_dumps(done);
    json_decref(done);
    if (text == NULL)
        util_oom("the rung's summary");
    if (rundir_path_buf(&path, o->rundir, RD_DONE, o->rung) != 0) {
        too_long(o, msg, sizeof(msg));
        fprintf(stderr, "graveyard run %s: %s\n", o->rung, msg);
    } else {
        size_t n = strlen(text);
        char *line = xrealloc(NULL, n + 2);
        memcpy(line, text, n);
        line[n] = '\n';
        line[n + 1] = '\0';
        if (outfile_write(path.p, line, n + 1, msg, sizeof(msg)) != 0)
            fprintf(stderr, "graveyard run %s: %s\n", o->rung, msg);
        else {
            if (!o->no_summary)
                fputs(line, stdout);
            fflush(stdout);
            rc = 0;
        }
        free(line);
    }
    emit_free(text);
    buf_release(&path);
out:
    grader_rung_free(g);
    grader_qset_free(qs);
    return rc;
}

int record_endpoint_said(const struct run_opts *o, json_t *said, char *msg,
                         size_t msgsize)
{
    /* files.lock is the caller's (serve.c waits for it on the loop) */
    return manifest_note_said(o->rundir, o->rung, said, msg, msgsize);
}
