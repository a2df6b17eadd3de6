/*
 * published.c - a run folder's files as they may be published
 * (published.h). Moved here from orchestrator/figures/figures_bundle.c
 * (issue 34): the run folder's formats have one owner, and publish writes
 * the same bytes it wrote before.
 */
#include "published.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "exported.h"
#include "ladderfile.h"
#include "manifest_keys.h"
#include "rundir.h"

static const char *base_name(const char *s)
{
    const char *slash = strrchr(s, '/');
    return slash ? slash + 1 : s;
}

char *published_manifest(const json_t *m)
{
    static const char *const keep[] = {"graveyard", "prompt", "task",
                                       "request",   "server", NULL};
    static const char *const rkeep[] = {
        "bytes",          "sha256",       "ctx", "ngl",
        "server_version", "vocab_sha256", NULL};
    json_t *o = json_object(), *rungs = json_object(), *v, *args;
    const char *k, *q = json_string_value(json_object_get(
                       json_object_get(m, "questions"), "path"));
    char *s = NULL;
    size_t i;

    if (o == NULL || rungs == NULL)
        goto out;
    for (i = 0; keep[i] != NULL; i++)
        if ((v = json_object_get(m, keep[i])) != NULL &&
            json_object_set(o, keep[i], v) != 0)
            goto out;
    /* no sha256 recorded: no "questions" (json_pack refuses a NULL) */
    json_object_set_new(
        o, "questions",
        json_pack("{s:s, s:O}", "path", q ? base_name(q) : "", "sha256",
                  json_object_get(json_object_get(m, "questions"), "sha256")));
    json_object_foreach(json_object_get(m, "rungs"), k, v)
    {
        json_t *r = json_object();
        const char *model = json_string_value(json_object_get(v, "model"));
        if (r == NULL)
            goto out;
        for (i = 0; rkeep[i] != NULL; i++)
            if (json_object_get(v, rkeep[i]) != NULL &&
                json_object_set(r, rkeep[i], json_object_get(v, rkeep[i])) !=
                    0)
                break;
        /* the flags the rung ran with (a KV cache's type, flash
         * attention), paths as file names and secrets redacted: what
         * merge compares, so rows of -ctk q4_0 never join rows of f16 */
        args = exported_args(json_object_get(v, MK_SERVER_ARGS));
        if (rkeep[i] != NULL ||
            (args != NULL && json_array_size(args) > 0 &&
             json_object_set(r, MK_SERVER_ARGS, args) != 0) ||
            (model != NULL &&
             json_object_set_new(r, "model", json_string(base_name(model))) !=
                 0) ||
            json_object_set_new(rungs, k, r) != 0) {
            json_decref(args);
            goto out;
        }
        json_decref(args);
    }
    if (json_object_set(o, "rungs", rungs) == 0)
        s = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
out:
    json_decref(o);
    json_decref(rungs);
    return s;
}

char *published_ladder_tsv(const char *p, size_t n, const char *name,
                           size_t *out_n, char *msg, size_t msgsize)
{
    struct lrow *rows = NULL;
    struct buf b = {0};
    char line[4300];
    size_t nrows = 0, i;
    FILE *f;
    int rc;

    if (n == 0) { /* fmemopen takes no empty buffer */
        *out_n = 0;
        return calloc(1, 1);
    }
    if ((f = fmemopen((void *)p, n, "r")) == NULL) {
        snprintf(msg, msgsize, "%s: out of memory", name);
        return NULL;
    }
    rc = ladderfile_parse(f, name, &rows, &nrows, msg, msgsize);
    fclose(f);
    if (rc != 0)
        return NULL;
    buf_init(&b, PUBLISHED_MAX);
    rc = buf_add(&b, "rung\tfile\tbytes\tsha256\n", 23);
    for (i = 0; rc == 0 && i < nrows; i++) {
        int len =
            snprintf(line, sizeof(line), "%s\t%s\t%llu\t%s\n", rows[i].rung,
                     base_name(rows[i].file), rows[i].bytes, rows[i].sha256);
        rc = len < 0 || (size_t)len >= sizeof(line) ||
             buf_add(&b, line, (size_t)len) != 0;
    }
    free(rows);
    if (rc != 0) {
        buf_release(&b);
        snprintf(msg, msgsize, "%s: past %u MiB, or out of memory", name,
                 PUBLISHED_MAX >> 20);
        return NULL;
    }
    *out_n = b.len;
    return b.p;
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
    j = json_string(b.p ? b.p : "");
    buf_release(&b);
    return j;
}

char *published_done(const char *p, size_t n, size_t *out_n)
{
    json_t *o = json_loadb(p, n, 0, NULL), *v;
    const char *k;
    char *s = NULL;

    if (!json_is_object(o)) {
        json_decref(o);
        return NULL;
    }
    json_object_foreach(o, k, v)
    {
        if (json_is_string(v) && strstr(json_string_value(v), "://") &&
            json_object_set_new(o, k, no_urls(json_string_value(v))) != 0)
            goto out;
    }
    s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (s != NULL)
        *out_n = strlen(s);
out:
    json_decref(o);
    return s;
}

size_t published_rung_files(const char *rung,
                            struct published_file files[PUBLISHED_RUNG_FILES])
{
    static const enum rundir_file what[] = {RD_ROWS, RD_DONE, RD_PROBS,
                                            RD_POWER, RD_ROWS};
    char repeat[128], path[256];
    size_t i, len;

    /* the paths under ".", "./" then cut: the names rundir.c spells */
    if (rundir_path(repeat, sizeof(repeat), ".", RD_REPEAT_DIR, NULL) != 0)
        return 0;
    for (i = 0; i < PUBLISHED_RUNG_FILES; i++) {
        if (rundir_path(path, sizeof(path), i == 4 ? repeat : ".", what[i],
                        rung) != 0 ||
            (len = strlen(path + 2)) >= sizeof(files[i].name))
            return 0;
        memcpy(files[i].name, path + 2, len + 1);
        files[i].needed = i == 0;
        files[i].done = what[i] == RD_DONE;
    }
    return PUBLISHED_RUNG_FILES;
}
