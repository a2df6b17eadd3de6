/*
 * figures_verify.c - graveyard verify BUNDLE (figures.h, docs/publish.md):
 * a bundle (tar.gz or unpacked folder) loaded under caps, every
 * SHA256SUMS line checked, its own statements against each other
 * (figures_agree.c), its inputs staged and rendered as publish rendered
 * them (figures_bundle.c), every output compared byte for byte, and the
 * rows that changed named (figures_rowdiff.c).
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../rundir/rundir.h"
#include "../base/cli.h"
#include "../base/hash.h"
#include "../base/tarball.h"
#include "figures.h"
#include "figures_bundle.h"
#include "figures_int.h"

/* $TMPDIR when it is an absolute path of a sane length, else /tmp. */
static const char *tmp_dir(void)
{
    const char *tmp = getenv("TMPDIR");

    return tmp && tmp[0] == '/' && strlen(tmp) < 3000 ? tmp : "/tmp";
}

static struct bfile *find(struct bundle *b, const char *name, int output);

/* The bundle's files into b: from a tar.gz (its top folder cut) or from
 * a folder (the files its SHA256SUMS lists, and it). 0, or EXIT_USAGE
 * after a line. */
static int load_bundle(struct bundle *b, const char *path, const char *cmd)
{
    struct stat st;
    struct tarball t;
    char msg[4600], *p;
    size_t n, i;
    int rc;

    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (figures__bundle_gather_one(b, path, "SHA256SUMS", 1, msg,
                                       sizeof(msg)) != 0)
            goto bad;
        p = b->f[0].p;
        for (char *line = p; line < p + b->f[0].n;) {
            char *nl = memchr(line, '\n', (size_t)(p + b->f[0].n - line));
            char rel[100];
            if (nl == NULL || nl - line < 67 || nl - line - 66 >= 100)
                break;
            snprintf(rel, sizeof(rel), "%.*s", (int)(nl - line - 66),
                     line + 66);
            /* a line twice is check_sums' to name; the file is read once */
            if (find(b, rel, 0) == NULL &&
                figures__bundle_gather_one(b, path, rel, 1, msg,
                                           sizeof(msg)) != 0)
                goto bad;
            line = nl + 1;
        }
        return 0;
    }
    if ((rc = figures__bundle_read(path, 0, &p, &n, msg, sizeof(msg))) != 0) {
        if (rc == 1)
            snprintf(msg, sizeof(msg), "not there");
        goto bad;
    }
    i = (size_t)tarball_read(p, n, &t, msg, sizeof(msg));
    free(p);
    if (i != 0) {
        tarball_release(&t);
        goto bad;
    }
    for (i = 0; i < t.n; i++) {
        const char *rel = strchr(t.e[i].name, '/');
        char *copy;
        if (t.e[i].dir || rel == NULL)
            continue;
        if (find(b, rel + 1, 0) != NULL) { /* the first copy is checked */
            printf("%s: twice in the archive\n", rel + 1);
            b->twice++;
            continue;
        }
        if ((copy = malloc(t.e[i].n + 1)) == NULL) {
            /* ours, not the bundle's: never a bundle missing the rest */
            tarball_release(&t);
            cli_error(cmd, "%.200s: out of memory", path);
            return EXIT_USAGE;
        }
        memcpy(copy, t.e[i].p, t.e[i].n);
        if (figures__bundle_take(b, rel + 1, copy, t.e[i].n, 0) != 0) {
            snprintf(msg, sizeof(msg), "'%s': twice, or too many files",
                     t.e[i].name);
            tarball_release(&t);
            goto bad;
        }
    }
    tarball_release(&t);
    return 0;
bad:
    cli_error(cmd, "%.200s: %s", path, msg);
    return EXIT_USAGE;
}

static struct bfile *find(struct bundle *b, const char *name, int output)
{
    size_t i;

    for (i = 0; i < b->n; i++)
        if (b->f[i].output == output && strcmp(b->f[i].name, name) == 0)
            return &b->f[i];
    return NULL;
}

/* Every SHA256SUMS line against its file, every file in a line. */
static size_t check_sums(struct bundle *b)
{
    struct bfile *s = find(b, "SHA256SUMS", 0), *f;
    char hex[65], rel[100];
    size_t bad = 0, line = 0, i;
    const char *p;

    if (s == NULL) {
        printf("SHA256SUMS: missing\n");
        return 1;
    }
    for (p = s->p; p < s->p + s->n;) {
        const char *nl = memchr(p, '\n', (size_t)(s->p + s->n - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(s->p + s->n - p);
        line++;
        if (len < 67 || len - 66 >= sizeof(rel) || p[64] != ' ' ||
            p[65] != ' ') {
            printf("SHA256SUMS:%zu: not a sha256sum line\n", line);
            bad++;
        } else {
            snprintf(rel, sizeof(rel), "%.*s", (int)(len - 66), p + 66);
            if ((f = find(b, rel, 0)) == NULL)
                f = find(b, rel, 2); /* listed already */
            if (f == NULL) {
                printf("SHA256SUMS:%zu: %s: not in the bundle\n", line, rel);
                bad++;
            } else if (f->line != 0) {
                printf("SHA256SUMS:%zu: %s: listed twice (line %zu too)\n",
                       line, rel, f->line);
                bad++;
            } else {
                f->line = line;
                f->output = 2; /* listed */
                hash_bytes(f->p, f->n, hex);
                if (memcmp(hex, p, 64) != 0) {
                    printf("%s: sha256 %.16s... is not SHA256SUMS line %zu's "
                           "%.16s...\n",
                           rel, hex, line, p);
                    bad++;
                }
            }
        }
        p += len + 1;
    }
    for (i = 0; i < b->n; i++) {
        if (b->f[i].output == 0 && strcmp(b->f[i].name, "SHA256SUMS") != 0) {
            printf("%s: not in SHA256SUMS\n", b->f[i].name);
            bad++;
        }
        if (b->f[i].output == 2)
            b->f[i].output = 0;
    }
    return bad;
}

/* The first line where a and b differ, 1-based; 0 when equal. */
static size_t first_diff(const char *a, size_t an, const char *b, size_t bn,
                         size_t *off)
{
    size_t i, line = 1, n = an < bn ? an : bn;

    for (i = 0; i < n && a[i] == b[i]; i++)
        if (a[i] == '\n')
            line++;
    if (i == n && an == bn)
        return 0;
    /* back to the line's start */
    while (i > 0 && a[i - 1] != '\n')
        i--;
    *off = i;
    return line;
}

/* The path of the first value where a and b differ, into out ("" when
 * they are equal): "rungs[6].accuracy". */
static void json_where(json_t *a, json_t *b, char *out, size_t size, int depth,
                       json_t **va, json_t **vb)
{
    size_t i, len = strlen(out);
    const char *k;
    json_t *v;

    *va = a;
    *vb = b;
    if (json_equal(a, b) || depth > 16)
        return;
    if (json_is_object(a) && json_is_object(b)) {
        json_object_foreach(a, k, v)
        {
            if (json_equal(v, json_object_get(b, k)))
                continue;
            snprintf(out + len, size - len, "%s%s", len ? "." : "", k);
            json_where(v, json_object_get(b, k), out, size, depth + 1, va, vb);
            return;
        }
    }
    if (json_is_array(a) && json_is_array(b)) {
        for (i = 0; i < json_array_size(a); i++)
            if (!json_equal(json_array_get(a, i), json_array_get(b, i))) {
                snprintf(out + len, size - len, "[%zu]", i);
                json_where(json_array_get(a, i), json_array_get(b, i), out,
                           size, depth + 1, va, vb);
                return;
            }
    }
}

/* A JSON file that differs: the first figure that does, both values. */
static int json_report(const struct bfile *have, const struct bfile *want)
{
    json_t *a = json_loadb(have->p, have->n, 0, NULL),
           *b = json_loadb(want->p, want->n, 0, NULL);
    char where[512] = "", *x, *y;
    json_t *va = NULL, *vb = NULL;
    int done = 0;

    if (a != NULL && b != NULL) {
        json_where(a, b, where, sizeof(where), 0, &va, &vb);
        x = va ? json_dumps(va, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
        y = vb ? json_dumps(vb, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
        if (where[0] != '\0') {
            printf("%s: %s is %.80s; the rows give %.80s\n", have->name, where,
                   x ? x : "missing", y ? y : "missing");
            done = 1;
        }
        free(x);
        free(y);
    }
    json_decref(a);
    json_decref(b);
    return done;
}

/* Each rendered output against the bundle's copy. */
static size_t check_outputs(struct bundle *b)
{
    size_t i, bad = 0, off = 0, line;

    for (i = 0; i < b->n; i++) {
        struct bfile *want = &b->f[i], *have;
        if (want->output != 1)
            continue;
        have = find(b, want->name, 0);
        if (have == NULL) {
            printf("%s: missing (the rows render it)\n", want->name);
            bad++;
            continue;
        }
        line = first_diff(have->p, have->n, want->p, want->n, &off);
        if (line != 0 && strstr(want->name, ".json") != NULL &&
            json_report(have, want)) {
            bad++;
        } else if (line != 0) {
            const char *e = memchr(have->p + off, '\n', have->n - off);
            int len = (int)((e ? e : have->p + have->n) - (have->p + off));
            printf("%s:%zu: not what the rows give: '%.*s'\n", want->name,
                   line, len > 160 ? 160 : len, have->p + off);
            bad++;
        }
    }
    return bad;
}

/* The bundle's own statements against each other (figures_agree.c),
 * and after the outputs were rendered, the rows its page no longer
 * shows as they are (figures_rowdiff.c). */
static size_t agree(const struct bundle *b, int rendered, int *paths, int *oom)
{
    struct figures__bfile *f = calloc(b->n + 1, sizeof(*f));
    const struct bfile *have = NULL, *want = NULL;
    size_t i, k = 0, bad = 0;

    if (f == NULL) { /* ours: said by the caller, never a difference */
        *oom = 1;
        return 0;
    }
    for (i = 0; i < b->n; i++) {
        if (b->f[i].output == 0)
            f[k++] =
                (struct figures__bfile){b->f[i].name, b->f[i].p, b->f[i].n};
        if (strcmp(b->f[i].name, "REPORT.html") == 0)
            *(b->f[i].output ? &want : &have) = &b->f[i];
    }
    if (!rendered)
        bad = figures__bundle_agree(f, k, paths);
    else if (have != NULL && want != NULL &&
             (have->n != want->n || memcmp(have->p, want->p, have->n) != 0))
        bad = figures__rows_named(have->p, have->n, want->p, want->n, f, k);
    free(f);
    return bad;
}

/* A folder that is not a bundle but something a user may take for one:
 * graveyard publish's own folder (its bundle.tar.gz in it), or a run
 * folder (its ladder.tsv or rows/). Said, with what to run instead:
 * EXIT_USAGE; 0 when path is neither (the bundle's reader says why). */
static int not_a_bundle(const char *path, const char *cmd)
{
    struct buf p = {0};
    struct stat st;
    int what = 0;

    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return 0;
    if (buf_path(&p, "%s/SHA256SUMS", path) == 0 && lstat(p.p, &st) == 0) {
        buf_release(&p);
        return 0; /* a bundle's folder */
    }
    buf_release(&p);
    if (buf_path(&p, "%s/" BUNDLE_NAME, path) == 0 && lstat(p.p, &st) == 0)
        what = 1;
    buf_release(&p);
    if (what == 0 && ((rundir_path_buf(&p, path, RD_LADDER_TSV, NULL) == 0 &&
                       lstat(p.p, &st) == 0) ||
                      (rundir_path_buf(&p, path, RD_ROWS_DIR, NULL) == 0 &&
                       lstat(p.p, &st) == 0)))
        what = 2;
    buf_release(&p);
    if (what == 1)
        cli_error(cmd,
                  "%s is graveyard publish's folder, not a bundle: verify "
                  "the bundle in it: graveyard verify %s/" BUNDLE_NAME,
                  path, path);
    else if (what == 2)
        cli_error(cmd,
                  "%s is a run folder, not a bundle (no SHA256SUMS): compare "
                  "its files with another machine's: graveyard verify %s "
                  "--against OTHER/ladder.tsv; or verify a bundle (graveyard "
                  "publish's %s, or its folder unpacked)",
                  path, path, BUNDLE_NAME);
    return what ? EXIT_USAGE : 0;
}

int figures__verify_into(struct bundle *b, const char *path, const char *cmd)
{
    struct bfile *pj;
    json_t *j = NULL;
    char msg[4600];
    size_t bad;
    int rc, paths = 0, oom = 0;

    if ((rc = not_a_bundle(path, cmd)) != 0)
        goto out;
    if ((rc = load_bundle(b, path, cmd)) != 0)
        goto out;
    bad = b->twice + check_sums(b) + agree(b, 0, &paths, &oom);
    if (oom) {
        cli_error(cmd, "%.200s: out of memory", path);
        rc = EXIT_USAGE;
        goto out;
    }
    pj = find(b, "publish.json", 0);
    if (pj == NULL || (j = json_loadb(pj->p, pj->n, 0, NULL)) == NULL) {
        printf("publish.json: missing or not JSON\n");
        rc = EXIT_FAILED;
        goto out;
    }
    if (paths) { /* not rendered: that would read this machine's files */
        printf("%s: not rendered: its ladder.tsv names paths\n", path);
        rc = EXIT_FAILED;
        goto out;
    }
    if (figures__bundle_stage(b, tmp_dir(), "graveyard-bundle.", msg,
                              sizeof(msg)) != 0) {
        cli_error(cmd, "%s", msg); /* ours: a write */
        rc = EXIT_USAGE;
        goto out;
    }
    if ((rc = figures__bundle_render(b, j, cmd)) == BUNDLE_OURS) {
        rc = EXIT_USAGE; /* said; nothing about the bundle */
        goto out;
    }
    if (rc != 0) {
        /* rows the grader refuses are a changed bundle too */
        printf("%s: its rows cannot be graded (above)\n", path);
        rc = EXIT_FAILED;
        goto out;
    }
    bad += check_outputs(b);
    bad += agree(b, 1, &paths, &oom);
    if (oom) {
        cli_error(cmd, "%.200s: out of memory", path);
        rc = EXIT_USAGE;
        goto out;
    }
    printf("%s: %s\n", path,
           bad ? "differs from what its rows and hashes give"
               : "every figure recomputed from its rows, every hash checked");
    rc = bad ? EXIT_FAILED : EXIT_OK;
out:
    json_decref(j);
    figures__stage_remove(&b->stage);
    return rc;
}

int figures_verify_bundle(const char *path)
{
    struct bundle *b = calloc(1, sizeof(*b));
    int rc;

    if (b == NULL) {
        cli_error("verify", "out of memory");
        return EXIT_USAGE;
    }
    rc = figures__verify_into(b, path, "verify");
    figures__bundle_release(b);
    free(b);
    return rc;
}
