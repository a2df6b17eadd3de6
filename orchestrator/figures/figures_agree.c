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
static size_t rung_vs_row(const char *man, const char *tsv, const json_t *m,
                          const struct lrow *r, int *paths)
{
    const char *model = json_string_value(json_object_get(m, "model"));
    const char *sha = json_string_value(json_object_get(m, "sha256"));
    const json_t *bytes = json_object_get(m, "bytes");
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
    if (model != NULL && strcmp(model, r->file) != 0) {
        printf("%s: rungs.%s.model is '%.200s'; %s:%ld says '%.200s'\n", man,
               r->rung, model, tsv, r->line, r->file);
        bad++;
    }
    if (json_is_integer(bytes) &&
        (unsigned long long)json_integer_value(bytes) != r->bytes) {
        printf("%s: rungs.%s.bytes is %lld; %s:%ld says %llu\n", man, r->rung,
               (long long)json_integer_value(bytes), tsv, r->line, r->bytes);
        bad++;
    }
    if (sha != NULL && r->sha256[0] != '\0' && strcmp(sha, r->sha256) != 0) {
        printf("%s: rungs.%s.sha256 is %.16s; %s:%ld says %.16s\n", man,
               r->rung, sha, tsv, r->line, r->sha256);
        bad++;
    }
    return bad;
}

/* Each rows file's and .done record's rung in the manifest; each .done
 * beside its rows, naming its own rung, and stating the manifest's bytes
 * where both do. */
static size_t rows_vs_manifest(const struct figures__bfile *f, size_t n,
                               const char *man, const json_t *rungs)
{
    size_t i, bad = 0, len;
    char rung[100], rows[120];

    for (i = 0; i < n; i++) {
        const char *name = f[i].name, *dot = strrchr(name, '.');
        int done = dot && strcmp(dot, ".done") == 0;
        json_t *d, *m;

        if (strncmp(name, "rows/", 5) != 0 || dot == NULL ||
            (!done && strcmp(dot, ".jsonl") != 0))
            continue;
        len = (size_t)(dot - name - 5);
        snprintf(rung, sizeof(rung), "%.*s", (int)len, name + 5);
        m = json_object_get(rungs, rung);
        if (m == NULL) {
            printf("%s: rung '%s' is not in %s's rungs\n", name, rung, man);
            bad++;
            continue;
        }
        if (!done)
            continue;
        snprintf(rows, sizeof(rows), "rows/%s.jsonl", rung);
        if (bfind(f, n, rows) == NULL) {
            printf("%s: no %s beside it\n", name, rows);
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
                   json_is_integer(json_object_get(m, "bytes")) &&
                   !json_equal(json_object_get(d, "bytes"),
                               json_object_get(m, "bytes"))) {
            printf("%s: bytes is %lld; %s's rungs.%s.bytes is %lld\n", name,
                   (long long)json_integer_value(json_object_get(d, "bytes")),
                   man, rung,
                   (long long)json_integer_value(json_object_get(m, "bytes")));
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
    const json_t *q = json_object_get(mj, "questions");
    const char *path = json_string_value(json_object_get(q, "path"));
    const char *sha = json_string_value(json_object_get(q, "sha256"));
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
    json_t *mj = mf ? json_loadb(mf->p, mf->n, 0, NULL) : NULL, *rungs;
    struct lrow *rows = NULL;
    size_t nrows = 0, i, bad;

    if (!json_is_object(mj)) {
        printf("%s: %s\n", man, mf ? "not a JSON object" : "missing");
        json_decref(mj);
        return 1;
    }
    rungs = json_object_get(mj, "rungs");
    bad = tsv_rows(bfind(f, n, tsv), &rows, &nrows);
    for (i = 0; i < nrows; i++) {
        const json_t *m = json_object_get(rungs, rows[i].rung);
        const struct lrow *first = ladderfile_find(rows, nrows, rows[i].rung);
        if (first != &rows[i]) {
            printf("%s:%ld: rung '%s' twice (line %ld too)\n", tsv,
                   rows[i].line, rows[i].rung, first->line);
            bad++;
        } else if (m == NULL) {
            printf("%s:%ld: rung '%s' is not in %s's rungs\n", tsv,
                   rows[i].line, rows[i].rung, man);
            bad++;
        } else {
            bad += rung_vs_row(man, tsv, m, &rows[i], paths);
        }
    }
    bad += rows_vs_manifest(f, n, man, rungs);
    bad += questions_vs_manifest(f, n, man, mj);
    free(rows);
    json_decref(mj);
    return bad;
}
