/*
 * manifest.c - compare and record a run folder's settings.
 */
#include "manifest.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "manifest_keys.h"
#include "outfile.h"
#include "rundir.h"
#include "../util/util.h"

/* Both objects name a file by the same sha256. */
static int same_sha(json_t *have, json_t *want)
{
    json_t *a = json_object_get(have, MKS_SHA256);
    json_t *b = json_object_get(want, MKS_SHA256);

    return json_is_string(a) && json_is_string(b) &&
           json_string_length(a) > 0 && json_equal(a, b);
}

/* old and v, the values of key in have and want, say the same: equal, or
 * a file's path spelled another way (q/q.jsonl then ./q/q.jsonl, /x//m
 * then /x/m) beside the same sha256, at any depth. A file is its bytes,
 * not the string that found it; the recorded spelling stays. */
static int same_value(json_t *have, json_t *want, const char *key, json_t *old,
                      json_t *v, int depth)
{
    const char *k;
    json_t *x;

    if (json_equal(old, v))
        return 1;
    if ((strcmp(key, MKS_PATH) == 0 || strcmp(key, MK_MODEL) == 0) &&
        json_is_string(old) && json_is_string(v))
        return same_sha(have, want);
    if (depth > 2 || !json_is_object(old) || !json_is_object(v) ||
        json_object_size(old) != json_object_size(v))
        return 0;
    json_object_foreach(v, k, x)
    {
        json_t *o = json_object_get(old, k);
        if (o == NULL || !same_value(old, v, k, o, x, depth + 1))
            return 0;
    }
    return 1;
}

int manifest_same_value(json_t *have, json_t *want, const char *key,
                        json_t *old, json_t *v)
{
    return same_value(have, want, key, old, v, 0);
}

/* Compare want's keys with have's; report or record the first change.
 * *news counts keys that were new or changed. */
static int merge(json_t *have, json_t *want, const char *where, int force,
                 json_t *forced, int *news, char *msg, size_t msgsize)
{
    const char *key;
    json_t *v;

    json_object_foreach(want, key, v)
    {
        json_t *old = json_object_get(have, key);
        if (old != NULL && same_value(have, want, key, old, v, 0))
            continue; /* nothing new: the recorded value stays */
        (*news)++;
        if (old != NULL && !json_equal(old, v)) {
            char *a = json_dumps(old, JSON_ENCODE_ANY | JSON_COMPACT);
            char *b = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
            if (!force) {
                snprintf(msg, msgsize,
                         "%s.%s differs from the run folder's manifest: "
                         "%.200s there, %.200s now (rows made two ways must "
                         "not mix; use another folder, or --force)",
                         where, key, a ? a : "?", b ? b : "?");
                free(a);
                free(b);
                errno = EINVAL; /* bad input, not a failure to resume */
                return -1;
            }
            if (force == 2) { /* manifest_note_said: not forced */
                free(a);
                free(b);
                json_object_set(have, key, v);
                continue;
            }
            json_array_append_new(forced, json_pack("{s:s,s:s,s:s,s:s}",
                                                    MKS_WHERE, where, MKS_KEY,
                                                    key, MKS_WAS, a ? a : "?",
                                                    MKS_NOW, b ? b : "?"));
            free(a);
            free(b);
        }
        json_object_set(have, key, v);
    }
    return 0;
}

/* manifest_check on the manifest at path. */
static int check_at(const char *path, const char *rung_name, json_t *shared,
                    json_t *rung, int force, char *msg, size_t msgsize)
{
    char where[128];
    json_error_t jerr;
    json_t *m, *rungs, *mine, *forced;
    char *text;
    int rc, news = 0, fd;

    /* a link planted in its place is refused, not read */
    fd = files_open(path, O_RDONLY, 0, msg, msgsize);
    if (fd < 0 && errno != ENOENT)
        return -1;
    if (fd >= 0) {
        m = json_loadfd(fd, 0, &jerr);
        close(fd);
        if (m == NULL) {
            snprintf(msg, msgsize, "%s:%d: malformed manifest: %s", path,
                     jerr.line, jerr.text);
            errno = EINVAL;
            return -1;
        }
    } else {
        m = json_object();
    }
    rungs = json_object_get(m, MK_RUNGS);
    if (!json_is_object(rungs)) {
        rungs = json_object();
        json_object_set_new(m, MK_RUNGS, rungs);
    }
    mine = json_object_get(rungs, rung_name);
    if (!json_is_object(mine)) {
        mine = json_object();
        json_object_set_new(rungs, rung_name, mine);
    }
    forced = json_array();
    snprintf(where, sizeof(where), "rungs.%s", rung_name);
    rc = merge(m, shared, "manifest", force, forced, &news, msg, msgsize);
    if (rc == 0)
        rc = merge(mine, rung, where, force, forced, &news, msg, msgsize);
    if (rc == 0 && json_array_size(forced) > 0) {
        json_t *log = json_object_get(m, MK_FORCED);
        if (!json_is_array(log)) {
            log = json_array();
            json_object_set_new(m, MK_FORCED, log);
        }
        json_array_extend(log, forced);
    }
    json_decref(forced);
    /* a resumed or finished rung with the same settings writes nothing */
    if (rc == 0 && news > 0) {
        text = json_dumps(m, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
        if (text == NULL) {
            snprintf(msg, msgsize, "%s: out of memory", path);
            errno = ENOMEM;
            rc = -1;
        } else if (outfile_write(path, text, strlen(text), msg, msgsize) !=
                   0) {
            rc = -1; /* errno as the write left it: a full disk is 1 */
        }
        free(text);
    }
    json_decref(m);
    return rc;
}

int manifest_check(const char *rundir, const char *rung_name, json_t *shared,
                   json_t *rung, int force, char *msg, size_t msgsize)
{
    struct buf path = {0};
    int rc, e;

    if (rundir_path_buf(&path, rundir, RD_MANIFEST, NULL) != 0) {
        snprintf(msg, msgsize, "%.200s...: path too long", rundir);
        buf_release(&path);
        errno = ENAMETOOLONG;
        return -1;
    }
    rc = check_at(path.p, rung_name, shared, rung, force, msg, msgsize);
    e = errno; /* files_exit_code reads it: a full disk resumes */
    buf_release(&path);
    errno = e;
    return rc;
}

int manifest_note_said(const char *rundir, const char *rung_name, json_t *said,
                       char *msg, size_t msgsize)
{
    json_t *rung = json_pack("{s:o}", MK_ENDPOINT_SAID, said);
    json_t *none = json_object();
    int rc;

    if (rung == NULL || none == NULL) {
        json_decref(rung);
        json_decref(none);
        snprintf(msg, msgsize, "out of memory");
        errno = ENOMEM;
        return -1;
    }
    /* a note is not compared: forced, but kept out of the MK_FORCED log */
    rc = manifest_check(rundir, rung_name, none, rung, 2, msg, msgsize);
    json_decref(rung);
    json_decref(none);
    return rc;
}

const char *manifest_vocab(const json_t *manifest, const char *rung)
{
    const json_t *rungs = json_object_get(manifest, MK_RUNGS);
    const json_t *v =
        json_object_get(json_object_get(rungs, rung), MK_VOCAB_SHA256);
    const char *s = json_string_value(v);

    if (s == NULL || strlen(s) != 64 || strspn(s, "0123456789abcdef") != 64)
        return NULL;
    return s;
}

/* RUNDIR/manifest.json read whole: *m (NULL when there is none), 0, or
 * -1 with msg. */
static int manifest_load(const char *rundir, json_t **m, char *msg,
                         size_t msgsize)
{
    struct buf path = {0};
    json_error_t jerr;
    int fd, e;

    *m = NULL;
    if (rundir_path_buf(&path, rundir, RD_MANIFEST, NULL) != 0) {
        snprintf(msg, msgsize, "%.200s...: path too long", rundir);
        buf_release(&path);
        errno = ENAMETOOLONG;
        return -1;
    }
    /* read as any run-folder file: no link, a plain file */
    fd = files_open_read(path.p, 1, msg, msgsize);
    if (fd < 0) {
        e = errno;
        buf_release(&path);
        errno = e;
        return e == ENOENT ? 0 : -1;
    }
    *m = json_loadfd(fd, 0, &jerr);
    close(fd);
    if (*m == NULL || !json_is_object(*m)) {
        snprintf(msg, msgsize, "%s:%d: malformed manifest: %s", path.p,
                 jerr.line, *m == NULL ? jerr.text : "not an object");
        json_decref(*m);
        *m = NULL;
        buf_release(&path);
        errno = EINVAL;
        return -1;
    }
    buf_release(&path);
    return 0;
}

int rundir_vocab_hash(const char *rundir, const char *rung, char *out,
                      char *msg, size_t msgsize)
{
    json_t *m;
    const char *v;

    out[0] = '\0';
    if (manifest_load(rundir, &m, msg, msgsize) != 0)
        return -1;
    v = manifest_vocab(m, rung);
    if (v != NULL)
        memcpy(out, v, 65);
    json_decref(m);
    return v != NULL ? 0 : 1;
}

int rundir_vocab_other(const char *rundir, const char *rung, const char *hex,
                       char *other, size_t osize, char *model, size_t msize,
                       char *msg, size_t msgsize)
{
    json_t *m, *x;
    const char *name, *v;
    int found = 0;

    if (manifest_load(rundir, &m, msg, msgsize) != 0)
        return -1;
    json_object_foreach(json_object_get(m, MK_RUNGS), name, x)
    {
        if (strcmp(name, rung) == 0 || (v = manifest_vocab(m, name)) == NULL ||
            strcmp(v, hex) == 0)
            continue;
        snprintf(other, osize, "%s", name);
        v = json_string_value(json_object_get(x, MK_MODEL));
        snprintf(model, msize, "%s", v ? v : "?");
        found = 1;
        break;
    }
    json_decref(m);
    return found;
}
