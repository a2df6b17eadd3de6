/*
 * figures_merge.c - graveyard merge BUNDLE... --out RUNDIR (figures.h,
 * docs/merge.md): bundles of several machines made one run folder when,
 * and only when, their rows are comparable. Each bundle is first checked
 * as graveyard verify checks it (figures__verify_into, its files kept);
 * the settings are compared as a resume compares them
 * (rundir/comparable.h over manifest_same_value); rungs are matched by
 * name and file; the folder is written under a stage beside --out and
 * renamed into place at the end, so a refusal writes nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../rundir/comparable.h"
#include "../../rundir/manifest.h"
#include "../../rundir/merged.h"
#include "../../rundir/rundir.h"
#include "../../rundir/published.h"
#include "../base/cli.h"
#include "figures.h"
#include "figures_bundle.h"
#include "figures_int.h"

#define MERGE_RUNGS 256

/* A rung of the merged folder: its name there, its name in the bundle
 * it is taken from. */
struct mrung {
    char name[65];
    char orig[65];
    size_t from;
    int side; /* 0 chain, 1 a side rung, 2 neither (rows only) */
};

struct merge {
    size_t n;
    const char **path;
    struct bundle **b;
    json_t **man, **lad, **pub;
    struct mrung r[MERGE_RUNGS];
    size_t nr;
};

static const struct bfile *bget(const struct bundle *b, const char *name)
{
    size_t i;

    for (i = 0; i < b->n; i++)
        if (b->f[i].output == 0 && strcmp(b->f[i].name, name) == 0)
            return &b->f[i];
    return NULL;
}

static json_t *bjson(const struct bundle *b, const char *name)
{
    const struct bfile *f = bget(b, name);

    return f ? json_loadb(f->p, f->n, 0, NULL) : NULL;
}

/* rows/NAME.jsonl's file in bundle b, or NULL */
static const struct bfile *rows_of(const struct bundle *b, const char *rung)
{
    struct published_file pf[PUBLISHED_RUNG_FILES];

    return published_rung_files(rung, pf) ? bget(b, pf[0].name) : NULL;
}

/* The GPU rows/RUNG.done names, or "not recorded". */
static void gpu_of(const struct bundle *b, const char *rung, char *out,
                   size_t size)
{
    struct published_file pf[PUBLISHED_RUNG_FILES];
    const struct bfile *f = NULL;
    size_t i, k = published_rung_files(rung, pf);

    for (i = 0; i < k; i++)
        if (pf[i].done)
            f = bget(b, pf[i].name);
    merged_done_gpu(f ? f->p : NULL, f ? f->n : 0, out, size);
}

static const char *sha_of(json_t *man, const char *rung)
{
    struct manifest_file f;

    if (manifest_rung_file(man, rung, &f) != 0 || f.sha256 == NULL)
        return "";
    return f.sha256;
}

static struct mrung *mfind(struct merge *m, const char *name)
{
    size_t i;

    for (i = 0; i < m->nr; i++)
        if (strcmp(m->r[i].name, name) == 0)
            return &m->r[i];
    return NULL;
}

/* The id of a row line, or "?" */
static void row_id(const char *p, size_t n, char *out, size_t size)
{
    json_t *o = json_loadb(p, n, 0, NULL);
    const char *id = json_string_value(json_object_get(o, "id"));

    snprintf(out, size, "%s", id ? id : "?");
    json_decref(o);
}

/* Two rows files of one rung: 0 the same bytes, else 1 after naming the
 * first question whose line differs. */
static int rows_differ(const struct merge *m, const struct mrung *e, size_t k,
                       const struct bfile *a, const struct bfile *b)
{
    const char *pa = a->p, *pb = b->p, *ea = a->p + a->n, *eb = b->p + b->n;
    char id[128];
    size_t line = 1;

    if (a->n == b->n && memcmp(a->p, b->p, a->n) == 0)
        return 0;
    for (;;) {
        int enda = pa >= ea, endb = pb >= eb;
        const char *na = enda ? NULL : memchr(pa, '\n', (size_t)(ea - pa));
        const char *nb = endb ? NULL : memchr(pb, '\n', (size_t)(eb - pb));
        size_t la = enda ? 0 : na ? (size_t)(na - pa) : (size_t)(ea - pa);
        size_t lb = endb ? 0 : nb ? (size_t)(nb - pb) : (size_t)(eb - pb);
        if (enda || endb || la != lb || memcmp(pa, pb, la) != 0) {
            /* both ended: the files differ in a last line end only */
            if (enda && endb)
                snprintf(id, sizeof(id), "?");
            else
                row_id(enda ? pb : pa, enda ? lb : la, id, sizeof(id));
            cli_error("merge",
                      "refused: rung %s has other rows in %s and %s: "
                      "question '%s' (rows/%s.jsonl:%zu) %s; the same rung "
                      "is kept once only when its rows are the same",
                      e->name, m->path[e->from], m->path[k], id, e->orig, line,
                      enda && endb ? "ends its line otherwise"
                      : enda       ? "is only in the second"
                      : endb       ? "is only in the first"
                                   : "differs");
            return 1;
        }
        pa += la + 1;
        pb += lb + 1;
        line++;
    }
}

/* Bundle k's rung orig (side: 0, 1, 2) into m: a new rung, the same rung
 * again (kept once), or another file of that name (named NAME-SHA8).
 * 0, or EXIT_USAGE after a line. */
static int add_rung(struct merge *m, size_t k, const char *orig, int side)
{
    const char *sha = sha_of(m->man[k], orig);
    struct comparable_diff d;
    struct mrung *e;
    char name[65];
    int renamed = 0;

    snprintf(name, sizeof(name), "%s", orig);
    while ((e = mfind(m, name)) != NULL) {
        const char *esha = sha_of(m->man[e->from], e->orig);
        if (strcmp(esha, sha) != 0 && !renamed) {
            /* another file by one name (a re-upload): another rung */
            if (strlen(orig) + 9 > 64 || strlen(sha) < 8) {
                cli_error("merge",
                          "refused: rung %s of %s is another file than %s's "
                          "(sha256 %.16s... and %.16s...), and cannot be "
                          "named apart",
                          orig, m->path[k], m->path[e->from], sha, esha);
                return EXIT_USAGE;
            }
            snprintf(name, sizeof(name), "%s-%.8s", orig, sha);
            renamed = 1;
            continue;
        }
        if (comparable_rung(m->man[e->from], e->orig, m->man[k], orig, &d)) {
            cli_error("merge",
                      "refused: %s differs: %s in %s, %s in %s (rows made "
                      "two ways must not mix)",
                      d.key, d.a, m->path[e->from], d.b, m->path[k]);
            return EXIT_USAGE;
        }
        return rows_differ(m, e, k, rows_of(m->b[e->from], e->orig),
                           rows_of(m->b[k], orig))
                   ? EXIT_USAGE
                   : 0;
    }
    if (m->nr == MERGE_RUNGS) {
        cli_error("merge", "more than %d rungs", MERGE_RUNGS);
        return EXIT_USAGE;
    }
    e = &m->r[m->nr++];
    snprintf(e->name, sizeof(e->name), "%s", name);
    snprintf(e->orig, sizeof(e->orig), "%s", orig);
    e->from = k;
    e->side = side;
    return 0;
}

/* Bundle k's settings against bundle 0's: the manifest's, ladder.json's
 * thinking and margin, the rule it was published with. 0, or EXIT_USAGE
 * after a line naming the key and both values. */
static int same_settings(const struct merge *m, size_t k)
{
    struct comparable_diff d;
    const char *key = NULL, *file = rundir_file_name(RD_LADDER_JSON);
    json_t *a, *b;
    char *x, *y;

    if (comparable_shared(m->man[0], m->man[k], &d) ||
        merged_ladder_differs(m->lad[0], m->lad[k], &key, d.a, d.b,
                              sizeof(d.a))) {
        if (key != NULL)
            snprintf(d.key, sizeof(d.key), "%s: %s", file, key);
        cli_error("merge",
                  "refused: %s differs: %s in %s, %s in %s (rows made two "
                  "ways must not mix)",
                  d.key, d.a, m->path[0], d.b, m->path[k]);
        return EXIT_USAGE;
    }
    a = json_object_get(m->pub[0], "rule");
    b = json_object_get(m->pub[k], "rule");
    if (json_equal(a ? a : json_null(), b ? b : json_null()))
        return 0;
    x = a ? json_dumps(a, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    y = b ? json_dumps(b, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    cli_error("merge",
              "refused: publish.json: rule differs: %s in %s, %s in %s (the "
              "figures of another rule)",
              x ? x : "absent", m->path[0], y ? y : "absent", m->path[k]);
    free(x);
    free(y);
    return EXIT_USAGE;
}

/* Bundle k's rungs in its order: ladder.json's chain, its side rungs,
 * then any other rows the bundle holds. Each must have rows. */
static int bundle_rungs(struct merge *m, size_t k)
{
    const struct bundle *b = m->b[k];
    const char *list[2][MERGE_RUNGS];
    size_t i, j, l, nl[2];
    int rc;

    for (l = 0; l < 2; l++) {
        nl[l] = merged_ladder_rungs(m->lad[k], (int)l, list[l], MERGE_RUNGS);
        for (i = 0; i < nl[l]; i++)
            if (rows_of(b, list[l][i]) != NULL &&
                (rc = add_rung(m, k, list[l][i], (int)l)) != 0)
                return rc;
    }
    for (i = 0; i < b->n; i++) {
        const char *nm = b->f[i].name, *dot;
        char rung[65];
        int listed = 0;
        if (b->f[i].output != 0 || strncmp(nm, "rows/", 5) != 0 ||
            (dot = strchr(nm + 5, '.')) == NULL ||
            strcmp(dot, ".jsonl") != 0 ||
            (size_t)(dot - nm - 5) >= sizeof(rung))
            continue;
        snprintf(rung, sizeof(rung), "%.*s", (int)(dot - nm - 5), nm + 5);
        for (l = 0; l < 2; l++)
            for (j = 0; j < nl[l]; j++)
                listed |= strcmp(list[l][j], rung) == 0;
        if (!listed && (rc = add_rung(m, k, rung, 2)) != 0)
            return rc;
    }
    return 0;
}

/* One folder holds one GPU's rows: every rung of a later bundle must name
 * the GPU the first bundle's first rung names. */
static int one_gpu(const struct merge *m)
{
    char g0[256], g[256];
    size_t i;

    if (m->nr == 0)
        return 0;
    gpu_of(m->b[m->r[0].from], m->r[0].orig, g0, sizeof(g0));
    for (i = 1; i < m->nr; i++) {
        if (m->r[i].from == m->r[0].from)
            continue; /* one folder already: one machine's */
        gpu_of(m->b[m->r[i].from], m->r[i].orig, g, sizeof(g));
        if (strcmp(g, g0) != 0) {
            cli_error("merge",
                      "refused: rung %s of %s ran on the GPU '%s', rung %s "
                      "of %s on '%s': one run folder holds one GPU's rows; "
                      "merge each GPU's bundles into a folder of its own, "
                      "then set them side by side with graveyard compare",
                      m->r[i].orig, m->path[m->r[i].from], g, m->r[0].orig,
                      m->path[m->r[0].from], g0);
            return EXIT_USAGE;
        }
    }
    return 0;
}

/* One rung's files staged under its merged name. 0, or -1 with msg. */
static int stage_rung(struct figures__stage *st, const struct merge *m,
                      const struct mrung *e, char *msg, size_t msgsize)
{
    struct published_file from[PUBLISHED_RUNG_FILES], to[PUBLISHED_RUNG_FILES];
    size_t i, k = published_rung_files(e->orig, from);
    int same = strcmp(e->name, e->orig) == 0, rc = 0;

    if (k == 0 || published_rung_files(e->name, to) != k) {
        snprintf(msg, msgsize, "rung %s: a name past its cap", e->name);
        return -1;
    }
    for (i = 0; i < k && rc == 0; i++) {
        const struct bfile *f = bget(m->b[e->from], from[i].name);
        struct buf b = {0};
        char *d = NULL;
        size_t dn;
        if (f == NULL)
            continue;
        if (same) {
            rc = figures__stage_put(st, to[i].name, f->p, f->n, msg, msgsize);
        } else if (from[i].done) {
            if ((d = merged_done(f->p, f->n, e->name, &dn)) == NULL) {
                snprintf(msg, msgsize, "%s: not a JSON object", f->name);
                rc = -1;
            } else {
                rc = figures__stage_put(st, to[i].name, d, dn, msg, msgsize);
            }
        } else if (strstr(from[i].name, ".jsonl") != NULL) {
            if (merged_rows(f->p, f->n, e->orig, e->name, &b) != 0) {
                snprintf(msg, msgsize, "%s: past the cap once renamed",
                         f->name);
                rc = -1;
            } else {
                rc = figures__stage_put(st, to[i].name, b.p ? b.p : "", b.len,
                                        msg, msgsize);
            }
        } else {
            rc = figures__stage_put(st, to[i].name, f->p, f->n, msg, msgsize);
        }
        free(d);
        buf_release(&b);
    }
    return rc;
}

/* manifest.json, ladder.json and ladder.tsv of the merged folder
 * (rundir/merged.h) and bundle 0's question file, staged. 0, or -1 with
 * msg. */
static int stage_shared(struct figures__stage *st, const struct merge *m,
                        char *msg, size_t msgsize)
{
    struct merged_rung *r = calloc(m->nr + 1, sizeof(*r));
    const char *qname = manifest_questions(m->man[0]);
    const struct bfile *q = qname ? bget(m->b[0], qname) : NULL;
    char *man = NULL, *lad = NULL, *tsv = NULL;
    size_t i, tn = 0;
    int rc = -1;

    for (i = 0; r != NULL && i < m->nr; i++) {
        const struct mrung *e = &m->r[i];
        const struct bfile *t =
            bget(m->b[e->from], rundir_file_name(RD_LADDER_TSV));
        r[i] = (struct merged_rung){e->name,         e->orig,
                                    m->man[e->from], t ? t->p : NULL,
                                    t ? t->n : 0,    e->side};
    }
    if (r == NULL || (man = merged_manifest(m->man[0], r, m->nr)) == NULL ||
        (lad = merged_ladder_json((const json_t *const *)m->lad, m->n, r,
                                  m->nr)) == NULL ||
        (tsv = merged_ladder_tsv(r, m->nr, &tn)) == NULL) {
        snprintf(msg, msgsize, "out of memory");
        goto out;
    }
    if (figures__stage_put(st, rundir_file_name(RD_MANIFEST), man, strlen(man),
                           msg, msgsize) == 0 &&
        figures__stage_put(st, rundir_file_name(RD_LADDER_JSON), lad,
                           strlen(lad), msg, msgsize) == 0 &&
        figures__stage_put(st, rundir_file_name(RD_LADDER_TSV), tsv, tn, msg,
                           msgsize) == 0 &&
        (q == NULL ||
         figures__stage_put(st, q->name, q->p, q->n, msg, msgsize) == 0))
        rc = 0;
out:
    free(r);
    free(man);
    free(lad);
    free(tsv);
    return rc;
}

/* --out: absent, or an empty folder (not a link). 0, or EXIT_USAGE after
 * a line. */
static int out_ok(const char *out)
{
    int err = 0, st = cli_out_state(out, &err);

    switch (st) {
    case CLI_OUT_ABSENT:
    case CLI_OUT_EMPTY:
        return 0;
    case CLI_OUT_LINK:
    case CLI_OUT_NOTDIR:
        cli_error("merge",
                  "--out '%s' is %s: it must not exist, or be an empty "
                  "folder",
                  out,
                  st == CLI_OUT_LINK ? "a symbolic link" : "not a folder");
        return EXIT_USAGE;
    case CLI_OUT_FULL:
        cli_error("merge",
                  "--out '%s' is not empty: it must not exist, or be an "
                  "empty folder (nothing is merged into a run folder)",
                  out);
        return EXIT_USAGE;
    default:
        cli_error("merge", "--out '%s': %s", out, strerror(err));
        return EXIT_USAGE;
    }
}

/* The folder staged beside out and renamed to it. 0, or EXIT_USAGE. */
static int write_folder(const struct merge *m, const char *out)
{
    struct figures__stage st = {0};
    struct buf parent = {0}, top = {0};
    char msg[4600] = "", *slash;
    size_t i;
    int rc = EXIT_USAGE;

    if (buf_path(&parent, "%s", out) != 0)
        goto said;
    while (parent.len > 1 && parent.p[parent.len - 1] == '/')
        parent.p[--parent.len] = '\0';
    slash = strrchr(parent.p, '/');
    if (slash == NULL)
        snprintf(parent.p, parent.cap, ".");
    else if (slash == parent.p)
        slash[1] = '\0';
    else
        *slash = '\0';
    if (figures__stage_make(&st, parent.p, ".merge.", msg, sizeof(msg)) != 0 ||
        stage_shared(&st, m, msg, sizeof(msg)) != 0)
        goto said;
    for (i = 0; i < m->nr; i++)
        if (stage_rung(&st, m, &m->r[i], msg, sizeof(msg)) != 0)
            goto said;
    if (buf_path(&top, "%s/" BUNDLE_TOP, st.dir.p) != 0)
        goto said;
    /* the stage's folders are 0700 (mkdtemp, stage_put): a run folder's
     * are the user's usual */
    {
        mode_t um = umask(0);
        umask(um);
        static const char *const dirs[] = {"", "/rows", "/repeat",
                                           "/repeat/rows"};
        for (i = 0; i < 4; i++) {
            struct buf d = {0};
            if (buf_path(&d, "%s%s", top.p, dirs[i]) == 0)
                (void)chmod(d.p, 0777 & ~um);
            buf_release(&d);
        }
    }
    if (out_ok(out) != 0) /* again: made meanwhile */
        goto out;
    if (rename(top.p, out) != 0) {
        snprintf(msg, sizeof(msg),
                 "cannot rename the merged folder to "
                 "'%.900s': %s",
                 out, strerror(errno));
        goto said;
    }
    rc = EXIT_OK;
    goto out;
said:
    cli_error("merge", "%s", msg[0] ? msg : "path too long");
out:
    figures__stage_remove(&st);
    buf_release(&parent);
    buf_release(&top);
    return rc;
}

/* A bundle as given: graveyard publish's folder means the bundle in it. */
static void bundle_path(const char *given, struct buf *out)
{
    struct stat st;
    struct buf p = {0};

    if (buf_path(&p, "%s/" BUNDLE_NAME, given) == 0 && lstat(p.p, &st) == 0 &&
        S_ISREG(st.st_mode)) {
        struct buf s = {0};
        int sums =
            buf_path(&s, "%s/SHA256SUMS", given) == 0 && lstat(s.p, &st) == 0;
        buf_release(&s);
        if (!sums) {
            *out = p;
            return;
        }
    }
    buf_release(&p);
    if (buf_path(out, "%s", given) != 0)
        buf_release(out);
}

/* Bundle k (given as given) verified as verify does, its manifest,
 * ladder.json and publish.json read, its settings against bundle 0's.
 * 0, or verify's code or EXIT_USAGE after a line. */
static int load(struct merge *m, size_t k, const char *given, struct buf *path)
{
    int rc;

    bundle_path(given, path);
    m->path[k] = path->p ? path->p : given;
    if ((m->b[k] = calloc(1, sizeof(*m->b[k]))) == NULL) {
        cli_error("merge", "out of memory");
        return EXIT_USAGE;
    }
    /* verify's own check, its lines printed as verify prints them */
    if ((rc = figures__verify_into(m->b[k], m->path[k], "merge")) != 0) {
        cli_error("merge",
                  "refused: %s does not verify (above); nothing is written",
                  m->path[k]);
        return rc;
    }
    m->man[k] = bjson(m->b[k], rundir_file_name(RD_MANIFEST));
    m->lad[k] = bjson(m->b[k], rundir_file_name(RD_LADDER_JSON));
    m->pub[k] = bjson(m->b[k], "publish.json");
    if (m->man[k] == NULL || m->lad[k] == NULL) {
        cli_error("merge", "refused: %s has no %s", m->path[k],
                  rundir_file_name(m->man[k] == NULL ? RD_MANIFEST
                                                     : RD_LADDER_JSON));
        return EXIT_USAGE;
    }
    return k > 0 ? same_settings(m, k) : 0;
}

int figures_merge(const char *const *bundles, size_t n, const char *out)
{
    struct merge *m = calloc(1, sizeof(*m));
    struct buf *paths = calloc(n, sizeof(*paths));
    size_t k;
    int rc = EXIT_USAGE;

    if (m == NULL || paths == NULL ||
        (m->b = calloc(n, sizeof(*m->b))) == NULL ||
        (m->path = calloc(n, sizeof(*m->path))) == NULL ||
        (m->man = calloc(n, sizeof(*m->man))) == NULL ||
        (m->lad = calloc(n, sizeof(*m->lad))) == NULL ||
        (m->pub = calloc(n, sizeof(*m->pub))) == NULL) {
        cli_error("merge", "out of memory");
        goto out;
    }
    m->n = n;
    if ((rc = out_ok(out)) != 0)
        goto out;
    for (k = 0; k < n; k++)
        if ((rc = load(m, k, bundles[k], &paths[k])) != 0)
            goto out;
    for (k = 0; k < n; k++)
        if ((rc = bundle_rungs(m, k)) != 0)
            goto out;
    if ((rc = one_gpu(m)) != 0 || (rc = write_folder(m, out)) != 0)
        goto out;
    printf("merged %zu bundle%s into %s: %zu rung%s (", n, n == 1 ? "" : "s",
           out, m->nr, m->nr == 1 ? "" : "s");
    for (k = 0; k < m->nr; k++)
        printf("%s%s", k ? ", " : "", m->r[k].name);
    printf(")\n");
out:
    for (k = 0; m != NULL && m->b && m->man && m->lad && m->pub && k < n;
         k++) {
        if (m->b[k] != NULL)
            figures__bundle_release(m->b[k]);
        free(m->b[k]);
        json_decref(m->man[k]);
        json_decref(m->lad[k]);
        json_decref(m->pub[k]);
    }
    for (k = 0; paths != NULL && k < n; k++)
        buf_release(&paths[k]);
    if (m != NULL) {
        free(m->b);
        free(m->path);
        free(m->man);
        free(m->lad);
        free(m->pub);
    }
    free(m);
    free(paths);
    return rc;
}
