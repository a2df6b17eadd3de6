/*
 * ladder_end.c - the ladder after its loop (ladder_int.h): the tally of
 * its rungs, what to say and the exit status, and when every rung is done
 * the bury of the chain and of the side rungs, the report, and with
 * --replicate the GPUs' folders compared, all in-process (figures.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../grader/grader.h"
#include "../../rundir/rundir.h"
#include "../base/cli.h"
#include "../figures/figures.h"
#include "ladder_int.h"

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
                           c->think, c->margin_points, msg,
                           sizeof(msg)) != 0) {
        cli_error("ladder", "%s", msg);
        return EXIT_FAILED;
    }
    /* the duels the report sets against each other (docs/duel.md) */
    {
        const char *names[2 * CONFIG_MAX_DUELS];
        for (i = 0; i < c->nduels; i++) {
            names[2 * i] = c->rungs[c->duels[i][0]].name;
            names[2 * i + 1] = c->rungs[c->duels[i][1]].name;
        }
        if (rundir_shape_duels(run_dir, names, c->nduels, msg, sizeof(msg)) !=
            0) {
            cli_error("ladder", "%s", msg);
            return EXIT_FAILED;
        }
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
    struct buf json = {0};
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
    if (rundir_path_buf(&json, run_dir, RD_GRAVEYARD, NULL) != 0) {
        cli_error("ladder", "path too long: '%.200s...'", run_dir);
        buf_release(&json);
        return EXIT_USAGE;
    }
    o.json_path = json.p; /* the ladder's own tombstones */
    printf("# %s: the ladder against %s, in %s\n", c->name, c->reference,
           run_dir);
    fflush(stdout);
    rc = bury(&o);
    buf_release(&json);
    if (rc != 0)
        return rc;
    for (i = 0, n = 1; i < c->nrungs; i++)
        if (c->rungs[i].side)
            names[n++] = c->rungs[i].name;
    if (n > 1) {
        if (rundir_path_buf(&json, run_dir, RD_GRAVEYARD_SIDE, NULL) != 0) {
            cli_error("ladder", "path too long: '%.200s...'", run_dir);
            buf_release(&json);
            return EXIT_USAGE;
        }
        o.nrungs = n;
        o.json_path = json.p;
        printf("# %s: side rungs against %s\n", c->name, c->reference);
        fflush(stdout);
        rc = bury(&o);
        buf_release(&json);
        if (rc != 0)
            return rc;
    }
    printf("# %s: the report\n", c->name);
    fflush(stdout);
    ro.rundir = run_dir;
    ro.html = 1;
    ro.margin = c->margin_points;
    if ((rc = figures_report(&ro, &r)) == 0)
        rc = figures_report_write(&ro, &r);
    figures_report_release(&r);
    return rc;
}

/* --replicate: the GPUs' folders compared, into RUNDIR. */
static int compare_gpus(struct ladder *l)
{
    struct buf dirs[CONFIG_MAX_GPUS] = {{0}};
    const char *d[CONFIG_MAX_GPUS];
    struct figures_compare_opts o = {0};
    struct figures_compare *r;
    size_t i;
    int rc;

    /* the plan made each folder's path: they fit */
    for (i = 0; i < l->ngpus && i < GRADER_MAX_RUNS; i++)
        if (ladder_job_dir(&dirs[i], l, (int)i, 0) == 0)
            d[o.ndirs++] = dirs[i].p;
    rc = EXIT_OK;
    if (o.ndirs < 2)
        goto out;
    o.dirs = d;
    o.out_dir = l->c.run_dir;
    o.html = 1;
    o.margin = l->c.margin_points;
    printf("# %s: the GPUs compared\n", l->c.name);
    fflush(stdout);
    r = xrealloc(NULL, sizeof(*r));
    if ((rc = figures_compare(&o, r)) == 0)
        rc = figures_compare_write(&o, r);
    figures_compare_release(r);
    free(r);
out:
    for (i = 0; i < l->ngpus && i < GRADER_MAX_RUNS; i++)
        buf_release(&dirs[i]);
    return rc;
}

static int all_done(const struct config *c, const char *run_dir)
{
    struct buf path = {0}, again = {0};
    struct stat st;
    size_t i;
    int done = 1;

    /* a path past the cap is not done (the ladder refused such a run
     * folder before it started) */
    for (i = 0; done && i < c->nrungs; i++)
        done =
            rundir_path_buf(&path, run_dir, RD_DONE, c->rungs[i].name) == 0 &&
            stat(path.p, &st) == 0;
    if (done && c->repeat_reference) /* and the reference's second run */
        done = rundir_path_buf(&again, run_dir, RD_REPEAT_DIR, NULL) == 0 &&
               rundir_path_buf(&path, again.p, RD_DONE, c->reference) == 0 &&
               stat(path.p, &st) == 0;
    buf_release(&path);
    buf_release(&again);
    return done;
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
        enum sched_state st = ladder_state(l, j);
        int fail = st == SJ_FAILED;
        *failed += fail && j->end == JE_FAILED;
        *bad += fail && j->end == JE_BAD;
        *busy += fail && j->end == JE_BUSY;
        if (st == SJ_DONE || (fail && j->end != JE_BUSY)) {
            struct buf *b = st == SJ_DONE ? &done : &badl;
            buf_puts(b, b->len ? ", " : "");
            buf_puts(b, j->name);
        }
    }
    ladder_note(l, "finished: %s; failed: %s", done.len ? done.p : "none",
                badl.len ? badl.p : "none");
    buf_release(&done);
    buf_release(&badl);
}

/* --replicate: bury each GPU's folder that is whole, then compare them
 * when all are. */
static int bury_replicas(struct ladder *l, const char *again)
{
    struct buf dir = {0};
    int whole = 1, rc = EXIT_OK;

    /* the plan made each folder's path: they fit */
    for (size_t i = 0; i < l->ngpus && rc == EXIT_OK; i++) {
        if (ladder_job_dir(&dir, l, (int)i, 0) == 0 && all_done(&l->c, dir.p))
            rc = bury_all(l, dir.p);
        else
            whole = 0;
    }
    buf_release(&dir);
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
int ladder_end(struct ladder *l, const char *cfg, int replicate,
               const char *again)
{
    int failed = 0, bad = 0, busy = 0;

    if (l->sup.sig) {
        fprintf(stderr, "graveyard ladder: to resume: %s\n", again);
        return 128 + l->sup.sig;
    }
    tally(l, &failed, &bad, &busy);
    for (size_t i = 0; i < l->njobs; i++)
        if (l->jobs[i].canary && ladder_state(l, &l->jobs[i]) != SJ_DONE) {
            struct buf path = {0};
            (void)rundir_path_buf(&path, l->jobs[i].run_dir, RD_CANARY_JSON,
                                  NULL); /* "" past the cap: said whole */
            fprintf(stderr,
                    "graveyard ladder: the canary stopped the night before "
                    "any rung (%s); fix the build or the GPU, or give "
                    "canary.max_changed more room, then run: %s\n",
                    path.p[0] ? path.p : l->jobs[i].run_dir, again);
            buf_release(&path);
            return ladder_state(l, &l->jobs[i]) == SJ_FAILED &&
                           l->jobs[i].end == JE_BAD
                       ? EXIT_USAGE
                       : EXIT_FAILED;
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
