/*
 * figures_agree.c - graveyard verify BUNDLE: what a bundle states twice
 * must agree (figures_int.h, docs/publish.md). The manifest and
 * ladder.tsv each name every rung's file, its bytes and its sha256, and
 * the rows, the .done records and the question file are there to be
 * matched against them; a figure recomputed from the rows cannot see a
 * sha256 the report never prints, so these are checked here, each
 * contradiction on its own line naming the key and the line.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../rundir/ladderfile.h"
#include "../../rundir/manifest.h"
#include "../../rundir/published.h"
#include "../../rundir/rundir.h"
#include "../base/hash.h"
#include "figures_int.h"

static const struct figures__bfile *bfind(const struct figures__bfile *f,
                                          size_t n, const char *name)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0)
            return &f[i];
    return NULL;
}

/* The bundle's ladder.tsv, parsed by rundir's one reader. 0 (none: *n 0),
 * or 1 after a line. */
static size_t tsv_rows(const struct figures__bfile *t, struct lrow **rows,
                       size_t *n)
{
    char msg[600];
    FILE *f;
    int rc;

    *rows = NULL;
    *n = 0;
    if (t == NULL || t->n == 0)
        return 0;
    if ((f = fmemopen((void *)t->p, t->n, "r")) == NULL) {
        printf("%s: cannot read (out of memory)\n", t->name);
        return 1;
    }
    rc = ladderfile_parse(f, t->name, rows, n, msg, sizeof(msg));
    fclose(f);
    if (rc != 0) {
        printf("%s\n", msg);
        return 1;
    }
    return 0;
}

/* One rung of the manifest against its ladder.tsv row: the file, its
 * bytes and its sha256 where both state one. */
static size_t rung_vs_row(const char *man, const char *tsv,
                          const struct manifest_file *m, const struct lrow *r,
                          int *paths)
{
    size_t bad = 0;

    if (strchr(r->file, '/') != NULL) {
        /* publish writes names; a path would have verify read this
         * machine's files (the recipes read each rung's file) */
        printf("%s:%ld: file '%.200s' is a path; a bundle names files by "
               "their names\n",
               tsv, r->line, r->file);
        *paths = 1;
        bad++;
    }
    if (m->model != NULL && strcmp(m->model, r->file) != 0) {
        printf("%s: rungs.%s.model is '%.200s'; %s:%ld says '%.200s'\n", man,
               r->rung, m->model, tsv, r->line, r->file);
        bad++;
    }
    if (m->bytes >= 0 && (unsigned long long)m->bytes != r->bytes) {
        printf("%s: rungs.%s.bytes is %lld; %s:%ld says %llu\n", man, r->rung,
               m->bytes, tsv, r->line, r->bytes);
        bad++;
    }
    if (m->sha256 != NULL && r->sha256[0] != '\0' &&
        strcmp(m->sha256, r->sha256) != 0) {
        printf("%s: rungs.%s.sha256 is %.16s; %s:%ld says %.16s\n", man,
               r->rung, m->sha256, tsv, r->line, r->sha256);
        bad++;
    }
    return bad;
}

/* Which of a rung's files name is, by the names rundir/ gives them: 1 its
 * rows, 2 its .done record, 0 another (the rung's name in rung). */
static int rung_file_kind(const char *name, char *rung, size_t size)
{
    struct published_file pf[PUBLISHED_RUNG_FILES];
    const char *dot = strrchr(name, '.'), *slash = strchr(name, '/');
    size_t k, j;

    if (slash == NULL || dot == NULL || dot < slash ||
        (size_t)(dot - slash - 1) >= size)
        return 0;
    snprintf(rung, size, "%.*s", (int)(dot - slash - 1), slash + 1);
    k = published_rung_files(rung, pf);
    for (j = 0; j < k; j++)
        if (strcmp(pf[j].name, name) == 0)
            return pf[j].done ? 2 : pf[j].needed ? 1 : 0;
    return 0;
}

/* Each rows file's and .done record's rung in the manifest; each .done
 * beside its rows, naming its own rung, and stating the manifest's bytes
 * where both do. */
static size_t rows_vs_manifest(const struct figures__bfile *f, size_t n,
                               const char *man, const json_t *mj)
{
    struct published_file pf[PUBLISHED_RUNG_FILES];
    struct manifest_file m;
    size_t i, bad = 0;
    char rung[100];

    for (i = 0; i < n; i++) {
        const char *name = f[i].name;
        int kind = rung_file_kind(name, rung, sizeof(rung));
        json_t *d;

        if (kind == 0)
            continue;
        if (manifest_rung_file(mj, rung, &m) != 0) {
            printf("%s: rung '%s' is not in %s's rungs\n", name, rung, man);
            bad++;
            continue;
        }
        if (kind == 1)
            continue;
        /* the rows are the first of the rung's files */
        if (published_rung_files(rung, pf) == 0 ||
            bfind(f, n, pf[0].name) == NULL) {
            printf("%s: no %s beside it\n", name, pf[0].name);
            bad++;
        }
        d = json_loadb(f[i].p, f[i].n, 0, NULL);
        if (!json_is_object(d)) {
            printf("%s: not a JSON record\n", name);
            bad++;
        } else if (json_is_string(json_object_get(d, "rung")) &&
                   strcmp(json_string_value(json_object_get(d, "rung")),
                          rung) != 0) {
            printf("%s: rung is '%.100s', not '%s'\n", name,
                   json_string_value(json_object_get(d, "rung")), rung);
            bad++;
        } else if (json_is_integer(json_object_get(d, "bytes")) &&
                   m.bytes >= 0 &&
                   json_integer_value(json_object_get(d, "bytes")) !=
                       m.bytes) {
            printf("%s: bytes is %lld; %s's rungs.%s.bytes is %lld\n", name,
                   (long long)json_integer_value(json_object_get(d, "bytes")),
                   man, rung, m.bytes);
            bad++;
        }
        json_decref(d);
    }
    return bad;
}

/* The question file the manifest names, when the bundle holds it, hashes
 * to the manifest's sha256. */
static size_t questions_vs_manifest(const struct figures__bfile *f, size_t n,
                                    const char *man, const json_t *mj)
{
    const char *path = manifest_questions(mj);
    const char *sha = manifest_questions_sha256(mj);
    const struct figures__bfile *qf = path ? bfind(f, n, path) : NULL;
    char hex[65];

    if (qf == NULL || sha == NULL)
        return 0;
    hash_bytes(qf->p, qf->n, hex);
    if (strcmp(hex, sha) == 0)
        return 0;
    printf("%s: questions.sha256 is %.16s; %s's is %.16s\n", man, sha,
           qf->name, hex);
    return 1;
}

size_t figures__bundle_agree(const struct figures__bfile *f, size_t n,
                             int *paths)
{
    const char *man = rundir_file_name(RD_MANIFEST),
               *tsv = rundir_file_name(RD_LADDER_TSV);
    const struct figures__bfile *mf = bfind(f, n, man);
    json_t *mj = mf ? json_loadb(mf->p, mf->n, 0, NULL) : NULL;
    struct lrow *rows = NULL;
    size_t nrows = 0, i, bad;

    if (!json_is_object(mj)) {
        printf("%s: %s\n", man, mf ? "not a JSON object" : "missing");
        json_decref(mj);
        return 1;
    }
    bad = tsv_rows(bfind(f, n, tsv), &rows, &nrows);
    for (i = 0; i < nrows; i++) {
        struct manifest_file m;
        int known = manifest_rung_file(mj, rows[i].rung, &m) == 0;
        const struct lrow *first = ladderfile_find(rows, nrows, rows[i].rung);
        if (first != &rows[i]) {
            printf("%s:%ld: rung '%s' twice (line %ld too)\n", tsv,
                   rows[i].line, rows[i].rung, first->line);
            bad++;
        } else if (!known) {
            printf("%s:%ld: rung '%s' is not in %s's rungs\n", tsv,
                   rows[i].line, rows[i].rung, man);
            bad++;
        } else {
            bad += rung_vs_row(man, tsv, &m, &rows[i], paths);
        }
    }
    bad += rows_vs_manifest(f, n, man, mj);
    bad += questions_vs_manifest(f, n, man, mj);
    free(rows);
    json_decref(mj);
    return bad;
}
