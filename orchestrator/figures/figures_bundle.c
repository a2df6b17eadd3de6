/*
 * figures_bundle.c - what graveyard publish's bundle (figures_bundle_write.c)
 * and verify BUNDLE (figures_verify.c) share through figures_bundle.h: a
 * bundle's files read under caps, gathered from a folder, staged and
 * rendered (figures.h, docs/publish.md). Both sides stage the inputs as
 * "bundle" in a folder of their own (figures_stage.c: publish's in its
 * output folder, verify's under $TMPDIR, a killed run's removed by the
 * next) and render from there, so the same rows give the same bytes and
 * verify compares byte for byte. The process never changes its working
 * folder: the report reads the stage by its path and names it "bundle"
 * (rundir_run_show_as). Every file is read through files_open_read,
 * capped. Nothing here counts: the figures are figures_report's and the
 * grader's.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../report/card.h"
#include "../../report/doc.h"
#include "../../rundir/files.h"
#include "../../rundir/rundir.h"
#include "../../rundir/run.h"
#include "../base/cli.h"
#include "../base/tarball.h"
#include "figures.h"
#include "figures_bundle.h"
#include "figures_int.h"

void figures__bundle_release(struct bundle *b)
{
    size_t i;

    for (i = 0; i < b->n; i++)
        free(b->f[i].p);
    b->n = 0;
}

/* path's bytes into *p, at most TARBALL_ENTRY_MAX, through the one
 * checked opener (files_open_read): a FIFO or a device is refused, never
 * waited on, and with nofollow (a file of a run or bundle folder) so is
 * a symbolic link. 0, 1 absent, -1 with msg naming the file. */
int figures__bundle_read(const char *path, int nofollow, char **p, size_t *n,
                         char *msg, size_t msgsize)
{
    struct buf b = {0};
    char chunk[65536];
    ssize_t got;
    int fd = files_open_read(path, nofollow, msg, msgsize), e;

    if (fd < 0)
        return errno == ENOENT ? 1 : -1;
    buf_init(&b, TARBALL_ENTRY_MAX);
    while ((got = read(fd, chunk, sizeof(chunk))) != 0) {
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            e = errno;
            snprintf(msg, msgsize, "cannot read '%.900s': %s", path,
                     strerror(e));
            break;
        }
        if (buf_add(&b, chunk, (size_t)got) != 0) {
            snprintf(msg, msgsize, "'%.900s': past %u MiB, too big to bundle",
                     path, TARBALL_ENTRY_MAX >> 20);
            got = -1;
            break;
        }
    }
    close(fd);
    if (got != 0) {
        buf_release(&b);
        return -1;
    }
    *p = b.p ? b.p : calloc(1, 1);
    *n = b.len;
    return *p ? 0 : -1;
}

/* Take p[0..n) as name (owned now). */
int figures__bundle_take(struct bundle *b, const char *name, char *p, size_t n,
                         int output)
{
    if (b->n == BUNDLE_FILES || !tarball_name_ok(name)) {
        free(p);
        return -1;
    }
    snprintf(b->f[b->n].name, sizeof(b->f[b->n].name), "%s", name);
    b->f[b->n].p = p;
    b->f[b->n].n = n;
    b->f[b->n++].output = output;
    return 0;
}

/* ---- gathering a folder's files ---------------------------------------- */

/* The folders between a root and its file (rows/, repeat/rows/) real
 * folders, not links: O_NOFOLLOW guards the last name only. path[0..
 * rootlen) is the root, which may be a link (the user's choice). 0, 1 a
 * folder absent, -1 with msg. */
static int folders_plain(char *path, size_t rootlen, char *msg, size_t msgsize)
{
    struct stat st;
    char *slash;
    int rc = 0;

    for (slash = path + rootlen + 1;
         rc == 0 && (slash = strchr(slash, '/')) != NULL; slash++) {
        *slash = '\0';
        if (lstat(path, &st) != 0) {
            rc = errno == ENOENT ? 1 : -1;
            if (rc < 0)
                snprintf(msg, msgsize, "cannot open '%.900s': %s", path,
                         strerror(errno));
        } else if (!S_ISDIR(st.st_mode)) {
            snprintf(msg, msgsize, "'%.900s': %s", path,
                     S_ISLNK(st.st_mode)
                         ? "a symbolic link where a folder goes (remove it)"
                         : "not a folder");
            rc = -1;
        }
        *slash = '/';
    }
    return rc;
}

/* RUNDIR/rel into the bundle as rel (absent: skipped unless needed). */
int figures__bundle_gather_one(struct bundle *b, const char *rundir,
                               const char *rel, int needed, char *msg,
                               size_t msgsize)
{
    struct buf path = {0};
    char *p = NULL;
    size_t n = 0;
    int rc;

    if (!tarball_name_ok(rel)) {
        snprintf(msg, msgsize, "'%.200s': a name a bundle cannot hold", rel);
        return -1;
    }
    if (buf_path(&path, "%s/%s", rundir, rel) != 0) {
        snprintf(msg, msgsize, "path too long: '%.200s'", rundir);
        return -1;
    }
    rc = folders_plain(path.p, strlen(rundir), msg, msgsize);
    if (rc == 0)
        rc = figures__bundle_read(path.p, 1, &p, &n, msg, msgsize);
    if (rc == 1 && needed)
        snprintf(msg, msgsize, "%.900s: not there", path.p);
    buf_release(&path);
    if (rc == 1)
        return needed ? -1 : 0;
    if (rc != 0)
        return -1;
    if (figures__bundle_take(b, rel, p, n, 0) != 0) {
        snprintf(msg, msgsize, "'%s': a name a bundle cannot hold", rel);
        return -1;
    }
    return 0;
}

/* ---- the staging folder (figures_stage.c) ------------------------------- */

/* Every input of b written under a new stage in parent (publish: its
 * output folder; verify: $TMPDIR, else /tmp), after what killed runs
 * left there was removed. 0, or -1 with msg. */
int figures__bundle_stage(struct bundle *b, const char *parent,
                          const char *prefix, char *msg, size_t msgsize)
{
    size_t i;

    if (figures__stage_make(&b->stage, parent, prefix, msg, msgsize) != 0)
        return -1;
    for (i = 0; i < b->n; i++)
        if (!b->f[i].output && strcmp(b->f[i].name, "SHA256SUMS") != 0 &&
            figures__stage_put(&b->stage, b->f[i].name, b->f[i].p, b->f[i].n,
                               msg, msgsize) != 0)
            return -1;
    return 0;
}

/* ---- publish's files (figures_int.h) ---------------------------------- */

int figures__publish_render(const struct figures_report *r,
                            const struct card_names *names,
                            struct publish_outs *po)
{
    size_t p, np = r->rep.chain.nrungs + r->rep.nsides;
    struct doc *d = render_card_doc(&r->run, &r->rep, names);
    int bad;

    bad = figures__out_open(&po->o[0], "CARD.md") != 0 ||
          figures__md_close(&po->o[0], d) != 0 ||
          figures__out_open(&po->o[1], "model-index.yaml") != 0 ||
          figures__out_close(&po->o[1],
                             render_card_model_index(po->o[1].f, &r->run,
                                                     &r->rep, names)) != 0 ||
          figures__out_open(&po->o[2], "eval_results.yaml") != 0 ||
          figures__out_close(&po->o[2],
                             render_card_eval_results(po->o[2].f, &r->run,
                                                      &r->rep, names)) != 0;
    doc_free(d);
    po->n = PUBLISH_FIXED;
    for (p = 0; !bad && p < np && p < GRADER_MAX_RUNGS * 2; p++) {
        struct figures__out *out = &po->o[PUBLISH_FIXED + p];

        /* rung names are checked names (letters, digits, ._-), short */
        snprintf(po->names[p], sizeof(po->names[p]), "lm-eval-%s.json",
                 card_point_name(&r->run, p));
        bad = figures__out_open(out, po->names[p]) != 0 ||
              figures__out_close(
                  out, render_card_lmeval(out->f, &r->run, &r->rep, names, p));
        po->n++;
    }
    return bad ? -1 : 0;
}

void figures__publish_free(struct publish_outs *po)
{
    size_t i;

    if (po == NULL)
        return;
    for (i = 0; i < PUBLISH_OUTS; i++)
        figures__out_free(&po->o[i]);
    free(po);
}

/* ---- rendering from the staged folder ----------------------------------- */

/* The report's outputs and publish's files, rendered from r into b
 * (output 1). 0, or -1 out of memory. */
static int render_into(struct bundle *b, struct figures_report *r,
                       const struct card_names *names)
{
    struct figures__out outs[FIGURES_REPORT_OUTS] = {{0}};
    struct publish_outs *po = calloc(1, sizeof(*po));
    size_t i, n = 0;
    int rc =
        po == NULL ||
        figures__report_outputs(&r->run, &r->rep, &r->s, outs, 1, &n) != 0 ||
        figures__publish_render(r, names, po) != 0;

    for (i = 0; rc == 0 && i < n + po->n; i++) {
        struct figures__out *x = i < n ? &outs[i] : &po->o[i - n];
        rc = figures__bundle_take(b, x->name, x->p, x->len, 1) != 0;
        x->p = NULL; /* taken, or freed by the take */
    }
    for (i = 0; i < FIGURES_REPORT_OUTS; i++)
        figures__out_free(&outs[i]);
    figures__publish_free(po);
    return rc ? -1 : 0;
}

int figures__bundle_render(struct bundle *b, const json_t *j, const char *cmd)
{
    struct figures_report_opts ro = {0};
    struct figures_report r;
    struct card_names names;
    struct buf root = {0};
    int rc;

    names.dataset = json_string_value(json_object_get(j, "dataset"));
    names.model = json_string_value(json_object_get(j, "model"));
    if (names.dataset == NULL || names.model == NULL) {
        cli_error(cmd, "publish.json: no dataset or model");
        return BUNDLE_REFUSED;
    }
    if (buf_path(&root, "%s/%s", b->stage.dir.p, BUNDLE_TOP) != 0) {
        cli_error(cmd, "path too long (over %d bytes): '%.200s...'",
                  BUF_PATH_MAX, b->stage.dir.p);
        return BUNDLE_OURS;
    }
    ro.rundir = root.p;
    ro.rungs = json_string_value(json_object_get(j, "rungs"));
    ro.side = json_string_value(json_object_get(j, "side"));
    ro.rule = json_string_value(json_object_get(j, "rule"));
    ro.html = 1;
    /* read where it was staged; named "bundle" in what is rendered, on
     * both sides, so the same rows render the same bytes wherever they
     * were staged */
    rc = figures_report(&ro, &r);
    if (rc == EXIT_USAGE)
        rc = BUNDLE_REFUSED; /* the rows, said */
    else if (rc != 0)
        rc = BUNDLE_OURS; /* out of memory, said */
    else if (rundir_run_show_as(&r.run, BUNDLE_TOP, b->stage.dir.p) != 0 ||
             render_into(b, &r, &names) != 0) {
        (void)figures__oom(cmd);
        rc = BUNDLE_OURS;
    }
    figures_report_release(&r);
    buf_release(&root);
    return rc;
}
