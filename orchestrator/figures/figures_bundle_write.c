/*
 * figures_bundle_write.c - graveyard publish's bundle (figures.h,
 * docs/publish.md). A bundle is one tar.gz whose top folder "bundle/"
 * holds what the figures are computed from (the rows, their .done
 * records, the manifest with only what may be published, ladder.json,
 * ladder.tsv with file names only, the question file, the repeat's rows:
 * each as rundir/published.h gives it), what they were rendered as
 * (REPORT.md, report.json, the pictures, REPORT.html, CARD.md, the Hub
 * YAML, the lm-eval files: rendered from the staged inputs by
 * figures_bundle.c, as verify renders them) and SHA256SUMS over all of
 * it. Everything is read before anything is written; a failure of ours
 * (out of memory, a write) is said as such and exits 2.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../report/card.h"
#include "../../rundir/outfile.h"
#include "../../rundir/published.h"
#include "../../rundir/rundir.h"
#include "../base/cli.h"
#include "../base/hash.h"
#include "../base/tarball.h"
#include "figures.h"
#include "figures_bundle.h"
#include "figures_int.h"

/* ---- gathering a run folder's inputs ------------------------------------ */

static const char *base_name(const char *s)
{
    const char *slash = strrchr(s, '/');
    return slash ? slash + 1 : s;
}

/* A failure of ours while bundling (out of memory, a write): said as
 * such, exit 2, never a bundle made of what was left. */
static int ours(const char *what)
{
    cli_error("publish", "%s", what);
    return EXIT_USAGE;
}

/* A rung's .done record, as read, made its published form. */
static int done_as_published(struct bfile *f, char *msg, size_t msgsize)
{
    size_t n = 0;
    char *pub = published_done(f->p, f->n, &n);

    if (pub == NULL) {
        snprintf(msg, msgsize, "%s: not a JSON record, or out of memory",
                 f->name);
        return -1;
    }
    free(f->p);
    f->p = pub;
    f->n = n;
    return 0;
}

/* The manifest and ladder.tsv as published (rundir/published.h), the
 * question file by its name. */
static int gather_public(struct bundle *b, const struct rundir_run *run,
                         char *msg, size_t msgsize)
{
    char *p = NULL, *t;
    size_t n = 0, tn = 0;
    const char *q = rundir_run_questions(run);
    const char *tsv = rundir_file_name(RD_LADDER_TSV);
    struct buf path = {0};
    int rc;

    if ((p = published_manifest(run->manifest)) == NULL ||
        figures__bundle_take(b, rundir_file_name(RD_MANIFEST), p, strlen(p),
                             0) != 0)
        return snprintf(msg, msgsize, "the manifest: out of memory"), -1;
    if (rundir_path_buf(&path, run->dir, RD_LADDER_TSV, NULL) != 0)
        return snprintf(msg, msgsize, "path too long: '%.200s'", run->dir), -1;
    rc = figures__bundle_read(path.p, 1, &p, &n, msg, msgsize);
    if (rc == 0) {
        t = published_ladder_tsv(p, n, path.p, &tn, msg, msgsize);
        free(p);
        if (t == NULL || figures__bundle_take(b, tsv, t, tn, 0) != 0)
            rc = -1;
    }
    buf_release(&path);
    if (rc < 0)
        return -1;
    if (q == NULL)
        return 0;
    /* the question file as the page reads it: as named (a user's file,
     * which may be a link, as for the report), else inside RUNDIR (a
     * run-folder file: no link) */
    rc = figures__bundle_read(q, 0, &p, &n, msg, msgsize);
    if (rc == 1 && q[0] != '/' && buf_path(&path, "%s/%s", run->dir, q) == 0)
        rc = figures__bundle_read(path.p, 1, &p, &n, msg, msgsize);
    buf_release(&path);
    if (rc < 0)
        return -1;
    if (rc == 0 && figures__bundle_take(b, base_name(q), p, n, 0) != 0)
        return snprintf(msg, msgsize,
                        "'%.200s': a question file name a "
                        "bundle cannot hold",
                        base_name(q)),
               -1;
    return 0;
}

/* The run folder's files a bundle holds: the published manifest and
 * ladder.tsv, the question file, ladder.json, and each rung's files
 * (published_rung_files), a .done as published (published_done). */
static int gather(struct bundle *b, const struct rundir_run *run, char *msg,
                  size_t msgsize)
{
    struct published_file files[PUBLISHED_RUNG_FILES];
    size_t i, k, n;

    if (gather_public(b, run, msg, msgsize) != 0 ||
        figures__bundle_gather_one(b, run->dir,
                                   rundir_file_name(RD_LADDER_JSON), 0, msg,
                                   msgsize) != 0)
        return -1;
    for (i = 0; i < run->nchain + run->nside; i++) {
        const char *rung =
            i < run->nchain ? run->chain[i] : run->side[i - run->nchain];
        if ((n = published_rung_files(rung, files)) == 0) {
            snprintf(msg, msgsize, "'%.100s': a rung name too long", rung);
            return -1;
        }
        for (k = 0; k < n; k++) {
            size_t before = b->n;
            if (figures__bundle_gather_one(b, run->dir, files[k].name,
                                           files[k].needed, msg, msgsize) != 0)
                return -1;
            if (files[k].done && b->n > before &&
                done_as_published(&b->f[before], msg, msgsize) != 0)
                return -1;
        }
    }
    return 0;
}

/* ---- the bundle -------------------------------------------------------- */

/* publish.json: the names and the report's choices, so verify renders
 * what publish rendered. */
static char *publish_json(const struct figures_report_opts *ro,
                          const struct card_names *names)
{
    json_t *j = json_pack("{s:s, s:s, s:s?, s:s?, s:s?}", "dataset",
                          names->dataset, "model", names->model, "rungs",
                          ro->rungs, "side", ro->side, "rule", ro->rule);
    char *s = j ? json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;

    json_decref(j);
    return s;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct bfile *)a)->name,
                  ((const struct bfile *)b)->name);
}

/* SHA256SUMS over every file, in name order, as sha256sum -c reads it. */
static int sums(struct bundle *b)
{
    struct buf s = {0};
    char hex[65];
    size_t i;

    qsort(b->f, b->n, sizeof(b->f[0]), by_name);
    for (i = 0; i < b->n; i++) {
        hash_bytes(b->f[i].p, b->f[i].n, hex);
        if (buf_add(&s, hex, 64) != 0 || buf_add(&s, "  ", 2) != 0 ||
            buf_add(&s, b->f[i].name, strlen(b->f[i].name)) != 0 ||
            buf_add(&s, "\n", 1) != 0) {
            buf_release(&s);
            return -1;
        }
    }
    return figures__bundle_take(b, "SHA256SUMS", s.p, s.len, 0);
}

/* The tar.gz of b: "bundle/", each folder before its first file, then
 * the files in name order. */
static int pack(struct bundle *b, struct buf *gz)
{
    struct buf tar = {0};
    char dirs[8][120], name[120];
    size_t i, nd = 0, k;
    int rc = -1;

    buf_init(&tar, TARBALL_TOTAL_MAX);
    buf_init(gz, TARBALL_TOTAL_MAX);
    qsort(b->f, b->n, sizeof(b->f[0]), by_name);
    if (tarball_add_dir(&tar, "bundle/") != 0)
        goto out;
    for (i = 0; i < b->n; i++) {
        char *slash = b->f[i].name;
        while ((slash = strchr(slash, '/')) != NULL) {
            snprintf(name, sizeof(name), "bundle/%.*s/",
                     (int)(slash - b->f[i].name), b->f[i].name);
            for (k = 0; k < nd && strcmp(dirs[k], name) != 0; k++)
                ;
            if (k == nd && nd < 8) {
                snprintf(dirs[nd++], sizeof(dirs[0]), "%s", name);
                if (tarball_add_dir(&tar, name) != 0)
                    goto out;
            }
            slash++;
        }
        snprintf(name, sizeof(name), "bundle/%s", b->f[i].name);
        if (tarball_add(&tar, name, b->f[i].p, b->f[i].n) != 0)
            goto out;
    }
    rc = tarball_gzip(&tar, gz);
out:
    buf_release(&tar);
    return rc;
}

/* ---- publish's bundle ----------------------------------------------------
 */

int figures_publish_bundle(const struct figures_publish_opts *o,
                           const struct figures_report_opts *ro,
                           const struct figures_report *r,
                           const struct card_names *names,
                           struct publish_outs *po)
{
    struct bundle *b = calloc(1, sizeof(*b));
    struct buf gz = {0}, path = {0};
    char msg[4600] = "", *pj;
    json_t *j = NULL;
    int rc = EXIT_FAILED;

    if (b == NULL)
        return ours("out of memory");
    pj = publish_json(ro, names);
    if (pj == NULL ||
        figures__bundle_take(b, "publish.json", pj, strlen(pj), 0) != 0 ||
        (j = json_loads(pj, 0, NULL)) == NULL) {
        rc = ours("publish.json: out of memory");
        goto out;
    }
    if (gather(b, &r->run, msg, sizeof(msg)) != 0) {
        cli_error("publish", "%s", msg); /* the run folder's: bad input */
        rc = EXIT_USAGE;
        goto out;
    }
    /* the inputs read: now the card and the rest, then the bundle */
    if ((rc = figures__write_all("publish", o->out_dir, po->o, po->n)) != 0)
        goto out;
    if (figures__bundle_stage(b, o->out_dir, ".bundle-stage.", msg,
                              sizeof(msg)) != 0) {
        rc = ours(msg);
        goto out;
    }
    if (figures__bundle_render(b, j, "publish") != 0) {
        rc = EXIT_USAGE; /* said: the staged rows refused, or ours */
        goto out;
    }
    if (sums(b) != 0) {
        rc = ours("SHA256SUMS: out of memory");
        goto out;
    }
    if (pack(b, &gz) != 0) {
        snprintf(msg, sizeof(msg),
                 "the bundle passes %u MiB, or out of memory",
                 TARBALL_TOTAL_MAX >> 20);
        rc = ours(msg);
        goto out;
    }
    if (buf_path(&path, "%s/" BUNDLE_NAME, o->out_dir) != 0 ||
        outfile_write(path.p, gz.p, gz.len, msg, sizeof(msg)) != 0) {
        rc = ours(msg[0] ? msg : "path too long");
        goto out;
    }
    printf("wrote %s (%zu bytes, %zu files)\n", path.p, gz.len, b->n);
    rc = fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
out:
    json_decref(j);
    figures__stage_remove(&b->stage);
    figures__bundle_release(b);
    free(b);
    buf_release(&gz);
    buf_release(&path);
    return rc;
}
