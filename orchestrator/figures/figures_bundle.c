/*
 * figures_bundle.c - graveyard publish's bundle, and what verify BUNDLE
 * (figures_verify.c) shares with it through figures_bundle.h: reading,
 * staging and rendering (figures.h, docs/publish.md). A bundle is one tar.gz
 * whose top folder "bundle/" holds what the figures are computed from (the
 * rows, their .done records, the manifest with only what may be published,
 * ladder.json, ladder.tsv with file names only, the question file, the
 * repeat's rows), what they were rendered as (REPORT.md, report.json, the
 * pictures, REPORT.html, CARD.md, the Hub YAML, the lm-eval files) and
 * SHA256SUMS over all of it. Both sides stage the inputs as "bundle" in
 * a folder of their own (figures_stage.c: publish's in its output folder,
 * verify's under $TMPDIR, a killed run's removed by the next) and render
 * from there, so the same rows give the same bytes and verify compares
 * byte for byte. Every file is read through files_open_read, capped.
 * Nothing here counts: the figures are figures_report's and the
 * grader's.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../report/card.h"
#include "../../report/doc.h"
#include "../../rundir/files.h"
#include "../../rundir/outfile.h"
#include "../../rundir/rundir.h"
#include "../base/cli.h"
#include "../base/hash.h"
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

static const char *base_name(const char *s)
{
    const char *slash = strrchr(s, '/');
    return slash ? slash + 1 : s;
}

/* ---- what may be published -------------------------------------------- */

/* The manifest with only what the figures need: every path cut to its
 * file name; no server arguments, argv or environment (their values may
 * hold secrets), no endpoint URL or key hash, no forced log. */
static char *public_manifest(const json_t *m)
{
    static const char *const keep[] = {"graveyard", "prompt", "task",
                                       "request",   "server", NULL};
    static const char *const rkeep[] = {
        "bytes",          "sha256",       "ctx", "ngl",
        "server_version", "vocab_sha256", NULL};
    json_t *o = json_object(), *rungs = json_object(), *v;
    const char *k, *q = json_string_value(json_object_get(
                       json_object_get(m, "questions"), "path"));
    char *s = NULL;
    size_t i;

    if (o == NULL || rungs == NULL)
        goto out;
    for (i = 0; keep[i] != NULL; i++)
        if ((v = json_object_get(m, keep[i])) != NULL)
            json_object_set(o, keep[i], v);
    json_object_set_new(
        o, "questions",
        json_pack("{s:s, s:O}", "path", q ? base_name(q) : "", "sha256",
                  json_object_get(json_object_get(m, "questions"), "sha256")));
    json_object_foreach(json_object_get(m, "rungs"), k, v)
    {
        json_t *r = json_object();
        const char *model = json_string_value(json_object_get(v, "model"));
        for (i = 0; r != NULL && rkeep[i] != NULL; i++)
            if (json_object_get(v, rkeep[i]) != NULL)
                json_object_set(r, rkeep[i], json_object_get(v, rkeep[i]));
        if (r != NULL && model != NULL)
            json_object_set_new(r, "model", json_string(base_name(model)));
        json_object_set_new(rungs, k, r);
    }
    json_object_set(o, "rungs", rungs);
    s = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
out:
    json_decref(o);
    json_decref(rungs);
    return s;
}

/* ladder.tsv with each file by its name: the second column cut. */
static char *public_tsv(const char *p, size_t n, size_t *out_n)
{
    struct buf b = {0};
    const char *line = p, *end = p + n;

    buf_init(&b, TARBALL_ENTRY_MAX);
    while (line < end) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *le = nl ? nl : end,
                   *t1 = memchr(line, '\t', (size_t)(le - line));
        const char *t2 =
            t1 ? memchr(t1 + 1, '\t', (size_t)(le - t1 - 1)) : NULL;

        if (t1 == NULL || t2 == NULL) {
            if (buf_add(&b, line, (size_t)(le - line)) != 0)
                goto bad;
        } else {
            const char *f = t1 + 1, *slash = f;
            for (const char *c = f; c < t2; c++)
                if (*c == '/')
                    slash = c + 1;
            if (buf_add(&b, line, (size_t)(f - line)) != 0 ||
                buf_add(&b, slash, (size_t)(le - slash)) != 0)
                goto bad;
        }
        if (nl != NULL && buf_add(&b, "\n", 1) != 0)
            goto bad;
        line = le + 1;
    }
    *out_n = b.len;
    return b.p ? b.p : calloc(1, 1);
bad:
    buf_release(&b);
    return NULL;
}

/* s with each URL (a served model's address) as "<endpoint>". */
static json_t *no_urls(const char *s)
{
    struct buf b = {0};
    const char *u;
    json_t *j;

    while ((u = strstr(s, "://")) != NULL) {
        const char *start = u, *end = u + 3;
        while (start > s && ((start[-1] >= 'a' && start[-1] <= 'z') ||
                             (start[-1] >= 'A' && start[-1] <= 'Z')))
            start--;
        while (*end != '\0' && *end != ' ' && *end != ')' && *end != '"' &&
               *end != ',')
            end++;
        if (buf_add(&b, s, (size_t)(start - s)) != 0 ||
            buf_add(&b, "<endpoint>", 10) != 0)
            break;
        s = end;
    }
    if (buf_add(&b, s, strlen(s)) != 0) {
        buf_release(&b);
        return NULL;
    }
    j = json_string(b.p);
    buf_release(&b);
    return j;
}

/* A .done record as published: every URL in its strings cut (a served
 * rung's "server" names its address). NULL when it is not JSON. */
static char *public_done(const char *p, size_t n, size_t *out_n)
{
    json_t *o = json_loadb(p, n, 0, NULL), *v;
    const char *k;
    char *s;

    if (o == NULL)
        return NULL;
    json_object_foreach(o, k, v)
    {
        if (json_is_string(v) && strstr(json_string_value(v), "://"))
            json_object_set_new(o, k, no_urls(json_string_value(v)));
    }
    s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (s != NULL)
        *out_n = strlen(s);
    return s;
}

/* ---- gathering a run folder's inputs ------------------------------------ */

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
    if (strstr(rel, ".done") != NULL) {
        char *pub = public_done(p, n, &n);
        free(p);
        if ((p = pub) == NULL) {
            snprintf(msg, msgsize, "%s: not a JSON record", rel);
            return -1;
        }
    }
    if (figures__bundle_take(b, rel, p, n, 0) != 0) {
        snprintf(msg, msgsize, "'%s': a name a bundle cannot hold", rel);
        return -1;
    }
    return 0;
}

/* The manifest and ladder.tsv as published, the question file by its
 * name. */
static int gather_public(struct bundle *b, const struct rundir_run *run,
                         char *msg, size_t msgsize)
{
    char *p = NULL, *t;
    size_t n = 0, tn = 0;
    const char *q = rundir_run_questions(run);
    struct buf path = {0};
    int rc;

    if ((p = public_manifest(run->manifest)) == NULL ||
        figures__bundle_take(b, rundir_file_name(RD_MANIFEST), p, strlen(p),
                             0) != 0)
        return snprintf(msg, msgsize, "the manifest: out of memory"), -1;
    if (rundir_path_buf(&path, run->dir, RD_LADDER_TSV, NULL) != 0)
        return snprintf(msg, msgsize, "path too long"), -1;
    rc = figures__bundle_read(path.p, 1, &p, &n, msg, msgsize);
    buf_release(&path);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        t = public_tsv(p, n, &tn);
        free(p);
        if (t == NULL ||
            figures__bundle_take(b, rundir_file_name(RD_LADDER_TSV), t, tn,
                                 0) != 0)
            return snprintf(msg, msgsize, "ladder.tsv: out of memory"), -1;
    }
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

static int gather(struct bundle *b, const struct rundir_run *run, char *msg,
                  size_t msgsize)
{
    static const char *const ext[] = {".jsonl", ".done", ".probs", ".power"};
    char rel[100];
    size_t i, k;

    if (gather_public(b, run, msg, msgsize) != 0 ||
        figures__bundle_gather_one(b, run->dir,
                                   rundir_file_name(RD_LADDER_JSON), 0, msg,
                                   msgsize) != 0)
        return -1;
    for (i = 0; i < run->nchain + run->nside; i++) {
        const char *rung =
            i < run->nchain ? run->chain[i] : run->side[i - run->nchain];
        for (k = 0; k < 4; k++) {
            snprintf(rel, sizeof(rel), "rows/%s%s", rung, ext[k]);
            if (figures__bundle_gather_one(b, run->dir, rel, k == 0, msg,
                                           msgsize) != 0)
                return -1;
        }
        snprintf(rel, sizeof(rel), "repeat/rows/%s.jsonl", rung);
        if (figures__bundle_gather_one(b, run->dir, rel, 0, msg, msgsize) != 0)
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

/* The outputs rendered in memory into b (output 1), from STAGE/bundle as
 * "bundle", names and choices from publish.json's j. 0, or the exit
 * status after a line on stderr. */
int figures__bundle_render(struct bundle *b, const json_t *j, const char *cmd)
{
    struct figures_report_opts ro = {0};
    struct figures_report r;
    struct figures__out outs[5] = {{0}, {0}, {0}, {0}, {0}};
    struct publish_outs *po = calloc(1, sizeof(*po));
    struct card_names names;
    int here = open(".", O_RDONLY | O_DIRECTORY), rc = EXIT_FAILED;
    size_t i;

    names.dataset = json_string_value(json_object_get(j, "dataset"));
    names.model = json_string_value(json_object_get(j, "model"));
    if (po == NULL || here < 0 || names.dataset == NULL ||
        names.model == NULL) {
        cli_error(cmd, "%s",
                  po == NULL || here < 0
                      ? "cannot keep the working folder"
                      : "publish.json: no dataset or model");
        free(po);
        if (here >= 0)
            close(here);
        return EXIT_FAILED;
    }
    ro.rundir = "bundle";
    ro.rungs = json_string_value(json_object_get(j, "rungs"));
    ro.side = json_string_value(json_object_get(j, "side"));
    ro.rule = json_string_value(json_object_get(j, "rule"));
    ro.html = 1;
    /* the report names its folder as given: "bundle" on both sides, so
     * the same rows render the same bytes wherever they are staged */
    if (chdir(b->stage.dir) != 0) {
        cli_error(cmd, "%s: %s", b->stage.dir, strerror(errno));
        goto out;
    }
    rc = figures_report(&ro, &r);
    if (rc == 0 &&
        (figures__report_outputs(&r.run, &r.rep, &r.s, outs, 1) != 0 ||
         figures__publish_render(&r, &names, po) != 0))
        rc = figures__oom(cmd);
    figures_report_release(&r);
    if (fchdir(here) != 0 && rc == 0) {
        cli_error(cmd, "cannot return to the working folder");
        rc = EXIT_FAILED;
    }
    for (i = 0; rc == 0 && i < 5 + po->n; i++) {
        struct figures__out *x = i < 5 ? &outs[i] : &po->o[i - 5];
        if (figures__bundle_take(b, x->name, x->p, x->len, 1) != 0)
            rc = figures__oom(cmd);
        x->p = NULL;
    }
out:
    for (i = 0; i < 5; i++)
        figures__out_free(&outs[i]);
    figures__publish_free(po);
    close(here);
    return rc;
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

/* ---- publish's bundle ------------------------------------------------------
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
        return figures__oom("publish");
    pj = publish_json(ro, names);
    if (pj == NULL ||
        figures__bundle_take(b, "publish.json", pj, strlen(pj), 0) != 0 ||
        (j = json_loads(pj, 0, NULL)) == NULL) {
        rc = figures__oom("publish");
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
    rc = EXIT_FAILED;
    if (figures__bundle_stage(b, o->out_dir, ".bundle-stage.", msg,
                              sizeof(msg)) != 0) {
        cli_error("publish", "%s", msg);
        goto out;
    }
    if ((rc = figures__bundle_render(b, j, "publish")) != 0)
        goto out;
    rc = EXIT_FAILED;
    if (sums(b) != 0 || pack(b, &gz) != 0) {
        cli_error("publish", "the bundle passes %u MiB, or out of memory",
                  TARBALL_TOTAL_MAX >> 20);
        goto out;
    }
    if (buf_path(&path, "%s/bundle.tar.gz", o->out_dir) != 0 ||
        outfile_write(path.p, gz.p, gz.len, msg, sizeof(msg)) != 0) {
        cli_error("publish", "%s", msg[0] ? msg : "path too long");
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
