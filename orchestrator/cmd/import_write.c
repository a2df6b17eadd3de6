/*
 * import_write.c - an import's rows and manifest written (import.h): each
 * row by the one writer of rows (rowwrite.h) into the rung's file, written
 * whole (outfile.h), and the task and the question set recorded in the
 * manifest under files.lock; then the summary line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../report/emit.h"
#include "../../rundir/files.h"
#include "../../rundir/manifest.h"
#include "../../rundir/outfile.h"
#include "../../rundir/rundir.h"
#include "../base/cli.h"
#include "../base/hash.h"
#include "../base/lockwait.h"
#include "import.h"
#include "../rows/rowwrite.h"
#include "../input/taskfile.h"

#define IMPORT_LOCK_MS 2000 /* files.lock: the others hold it for ms */

/* One row as graveyard writes it (docs/rows.md), every rule graded, by
 * the one writer of rows (rowwrite.h), which keeps it within the row
 * reader's cap. */
static char *row_line(const struct import *im, const struct import_row *r,
                      size_t *right)
{
    struct row w;
    int first_right;
    char *text;

    row_init(&w);
    w.id = r->id;
    w.rung = im->rung;
    w.reference = r->reference;
    w.content = r->content;
    w.content_len = r->content ? strlen(r->content) : 0;
    w.reasoning = r->reasoning;
    w.reasoning_len = r->reasoning ? strlen(r->reasoning) : 0;
    w.finish = r->finish;
    w.truncated = r->truncated;
    w.tokens = r->tokens;
    w.tps = r->tps;
    w.error = r->error;
    w.error_kind = r->error ? "imported" : NULL;
    w.grades = 1;
    w.imported = im->format;
    w.digits = 15; /* as the tool logged it */
    text = row_text(&w, im->task, &first_right);
    *right += (size_t)first_right;
    return text;
}

/* The question set's identity: its ids and references, in order. */
static void questions_hash(const struct import *im, char *hex)
{
    struct buf b = {0};

    for (size_t i = 0; i < im->n; i++) {
        buf_puts(&b, im->rows[i].id);
        buf_puts(&b, "\t");
        buf_puts(&b, im->rows[i].reference);
        buf_puts(&b, "\n");
    }
    hash_bytes(b.p ? b.p : "", b.len, hex);
    buf_release(&b);
}

/* The manifest's record of the import: the task and the question set
 * shared with every rung of the folder, the file for this rung. */
static int record(const struct import *im, char *msg, size_t msgsize)
{
    char qhex[65], fhex[65], err[512], *cut;
    json_t *shared, *rung;
    int fd, rc, e;

    questions_hash(im, qhex);
    if (hash_path(im->path, fhex, err, sizeof(err)) != 0) {
        snprintf(msg, msgsize, "%s", err);
        return -1;
    }
    shared = manifest_shared_json(&(struct manifest_shared){
        .graveyard = GRAVEYARD_VERSION,
        .questions = "(imported: ids and references)",
        .questions_sha256 = qhex,
        .prompt =
            grader_task_prompt(im->task) ? grader_task_prompt(im->task) : "",
        .task = taskfile_to_json(im->task),
    });
    rung = manifest_import_json(im->format, im->path, fhex);
    if (shared == NULL || rung == NULL)
        util_oom("a manifest");
    /* held by the others for milliseconds; import has no loop */
    rc = lockwait_block(im->rundir, IMPORT_LOCK_MS, &fd, msg, msgsize);
    if (rc == LOCKWAIT_HELD) {
        rc = manifest_check(im->rundir, im->rung, shared, rung, 0, msg,
                            msgsize);
        close(fd);
    }
    e = errno; /* the caller's exit status reads it */
    json_decref(shared);
    json_decref(rung);
    /* manifest_check's refusal offers the runner's --force, which import
     * does not take: the way out of an import is another folder */
    if (rc != 0 && (cut = strstr(msg, "; use another folder, or --force)")))
        snprintf(cut, msgsize - (size_t)(cut - msg),
                 "; import into another folder)");
    errno = e;
    return rc == 0 ? 0 : -1;
}

int import_write(struct import *im)
{
    struct buf path = {0}, dir = {0}, locks = {0}, out = {0};
    char msg[4400];
    json_t *seen = json_object();
    size_t right = 0;
    int rc = EXIT_USAGE;

    if (seen == NULL)
        util_oom("ids");
    for (size_t i = 0; i < im->n; i++) {
        if (json_object_get(seen, im->rows[i].id) != NULL) {
            char q[600];
            cli_error("import",
                      "%s: question '%s' answered twice (a run that "
                      "repeated its questions: import one pass of it)",
                      im->path,
                      import_shown(im->rows[i].id, 256, q, sizeof(q)));
            json_decref(seen);
            return EXIT_USAGE;
        }
        json_object_set_new(seen, im->rows[i].id, json_true());
    }
    json_decref(seen);
    if (rundir_path_buf(&path, im->rundir, RD_ROWS, im->rung) != 0 ||
        rundir_path_buf(&dir, im->rundir, RD_ROWS_DIR, NULL) != 0 ||
        rundir_path_buf(&locks, im->rundir, RD_LOCKS_DIR, NULL) != 0) {
        cli_error("import", "path too long: '%s'", im->rundir);
        goto out;
    }
    if (access(path.p, F_OK) == 0 || errno != ENOENT) {
        cli_error("import",
                  "%s exists: an import never adds to or replaces rows "
                  "(another RUNG name, or remove it first)",
                  path.p);
        goto out;
    }
    if (files_mkdir(im->rundir, 1, msg, sizeof(msg)) != 0 ||
        files_mkdir(dir.p, 0, msg, sizeof(msg)) != 0 ||
        files_mkdir(locks.p, 0, msg, sizeof(msg)) != 0 ||
        record(im, msg, sizeof(msg)) != 0) {
        cli_error("import", "%s", msg);
        /* a full disk, or files.lock held past its wait: try again */
        rc = errno == ENOSPC || errno == EIO || errno == EWOULDBLOCK
                 ? EXIT_FAILED
                 : EXIT_USAGE;
        goto out;
    }
    for (size_t i = 0; i < im->n; i++) {
        char *text = row_line(im, &im->rows[i], &right);
        buf_puts(&out, text);
        buf_puts(&out, "\n");
        free(text);
    }
    if (outfile_write(path.p, out.p, out.len, msg, sizeof(msg)) != 0) {
        cli_error("import", "%s", msg);
        rc = files_exit_code(errno);
    } else {
        rc = 0;
    }
    im->right = right;
out:
    buf_release(&out);
    buf_release(&path);
    buf_release(&dir);
    buf_release(&locks);
    return rc;
}

void import_summary(const struct import *im)
{
    printf("{\"rung\": \"%s\", \"rows\": %zu, \"right\": %zu, \"skipped\": "
           "%zu, \"compared\": %zu, \"extraction_differs\": %zu, "
           "\"verdict_differs\": %zu}\n",
           im->rung, im->n, im->right, im->skipped, im->compared,
           im->extract_differs, im->verdict_differs);
    if (im->by_position) {
        char names[256] = "";
        for (size_t i = 0; i < grader_task_nrules(im->task); i++)
            snprintf(names + strlen(names), sizeof(names) - strlen(names),
                     "%s%s", i ? ", " : "",
                     grader_task_rule_name(im->task, i));
        fprintf(stderr,
                "graveyard import: %s: no \"filter\" in its records (lm-eval "
                "before v0.4.7): %zu compared by position, a question's "
                "record k with rule k of task '%s' (%s)\n",
                im->path, im->by_position, grader_task_name(im->task), names);
    }
    if (im->extract_differs || im->verdict_differs)
        fprintf(stderr,
                "graveyard import: %s's own grading and graveyard's rules "
                "differ on %zu of %zu records; the first: %s\n",
                im->format, im->extract_differs + im->verdict_differs,
                im->compared, im->first_differ);
}
