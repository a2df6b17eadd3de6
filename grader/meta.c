/*
 * meta.c - bytes and GPU figures for a rung, from .done and ladder.tsv.
 */
#include "meta.h"

#include "alloc.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An integer field of the .done object; absent or null leaves *v. */
static int done_field(json_t *o, const char *key, long long *v,
                      const char *path, struct grader_error *err)
{
    json_t *x = json_object_get(o, key);

    if (x == NULL || json_is_null(x))
        return 0;
    if (!json_is_integer(x) || json_integer_value(x) < 0)
        return grader__fail(err, GRADER_EPARSE, path, 0,
                            "\"%s\" must be a non-negative integer", key);
    *v = json_integer_value(x);
    return 0;
}

static int read_done(const char *path, struct grader_meta *m,
                     struct grader_error *err)
{
    json_error_t jerr;
    unsigned long failures;
    json_t *o;
    int rc;

    failures = grader__alloc_failures();
    o = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (grader__alloc_failures() != failures) { /* see rows.c */
        json_decref(o);
        return grader__fail(err, GRADER_ENOMEM, path, 0, "out of memory");
    }
    if (o == NULL) {
        FILE *f = fopen(path, "r");
        if (f == NULL && errno == ENOENT)
            return 0;
        if (f != NULL)
            fclose(f);
        return grader__fail(err, GRADER_EPARSE, path, jerr.line,
                            "malformed rung summary: %s", jerr.text);
    }
    if (!json_is_object(o)) {
        json_decref(o);
        return grader__fail(err, GRADER_EPARSE, path, 0,
                            "rung summary is not a JSON object");
    }
    rc = done_field(o, "bytes", &m->bytes, path, err);
    if (rc == 0) {
        json_t *g = json_object_get(o, "gpu_name");
        if (json_is_string(g))
            snprintf(m->gpu_name, sizeof(m->gpu_name), "%s",
                     json_string_value(g));
        else if (g != NULL && !json_is_null(g))
            rc = grader__fail(err, GRADER_EPARSE, path, 0,
                              "\"gpu_name\" must be a string");
    }
    if (rc == 0)
        rc = done_field(o, "gpu_mib_loaded", &m->gpu_mib_loaded, path, err);
    if (rc == 0)
        rc = done_field(o, "gpu_mib_before", &m->gpu_mib_before, path, err);
    json_decref(o);
    return rc;
}

/* A sha256 column: 64 hex digits, then the end of the line. */
static void tsv_sha256(const char *col, struct grader_meta *m)
{
    size_t i;

    if (col == NULL)
        return;
    for (i = 0; i < 64; i++)
        if (!((col[i] >= '0' && col[i] <= '9') ||
              (col[i] >= 'a' && col[i] <= 'f')))
            return;
    if (col[64] != '\n' && col[64] != '\0' && col[64] != '\r')
        return;
    memcpy(m->sha256, col, 64);
    m->sha256[64] = '\0';
}

/* bytes (unless known) and sha256 from the ladder.tsv line whose first
 * column is rung. */
static int read_tsv(const char *path, const char *rung, struct grader_meta *m,
                    struct grader_error *err)
{
    char line[4096];
    long n = 0;
    FILE *f = fopen(path, "r");
    int rc = 0;

    if (f == NULL)
        return 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        char *tab1, *tab2, *tab3, *end;
        long long bytes;
        n++;
        tab1 = strchr(line, '\t');
        if (tab1 == NULL || (size_t)(tab1 - line) != strlen(rung) ||
            memcmp(line, rung, strlen(rung)) != 0)
            continue;
        tab2 = strchr(tab1 + 1, '\t');
        tab3 = tab2 ? strchr(tab2 + 1, '\t') : NULL;
        errno = 0;
        bytes = tab2 ? strtoll(tab2 + 1, &end, 10) : -1;
        if (tab2 == NULL || errno != 0 || bytes < 0 || end == tab2 + 1 ||
            (end != tab3 && *end != '\n' && *end != '\0')) {
            rc = grader__fail(err, GRADER_EPARSE, path, n,
                              "bytes column of rung '%s' is not a number",
                              rung);
            break;
        }
        if (m->bytes < 0)
            m->bytes = bytes;
        tsv_sha256(tab3 ? tab3 + 1 : NULL, m);
        break;
    }
    fclose(f);
    return rc;
}

int grader_meta_read(const char *rundir, const char *rung,
                     struct grader_meta *m, struct grader_error *err)
{
    char path[4096];
    int rc;

    m->bytes = m->gpu_mib_loaded = m->gpu_mib_before = -1;
    m->sha256[0] = m->gpu_name[0] = '\0';
    if ((size_t)snprintf(path, sizeof(path), "%s/rows/%s.done", rundir,
                         rung) >= sizeof(path))
        return grader__fail(err, GRADER_EARG, rundir, 0, "path too long");
    if ((rc = read_done(path, m, err)) != 0)
        return rc;
    snprintf(path, sizeof(path), "%s/ladder.tsv", rundir);
    return read_tsv(path, rung, m, err);
}
