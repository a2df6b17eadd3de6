/*
 * canary.c - canary.json's writer and reader (canary.h).
 */
#include "canary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* canary.json's keys: spelt here alone */
#define CK_RUNG     "rung"
#define CK_MODEL    "model"
#define CK_ROWS     "rows"
#define CK_ROWS_SHA "rows_sha256"
#define CK_IDS      "changed_ids"
#define CK_PASSED   "passed"

/* The counts, in the order written; the last three came later, so a
 * verdict may lack them (-1 then). */
static const char *const count_keys[] = {
    "questions",     "max_changed",   "compared",  "missing",  "changed",
    "changed_right", "right_trusted", "right_now", "same_text"};
static const int count_needed[] = {1, 1, 1, 1, 1, 0, 0, 0, 1};
#define NCOUNTS (sizeof(count_keys) / sizeof(count_keys[0]))

static void counts_of(const struct rundir_canary *c, long long v[NCOUNTS])
{
    v[0] = c->questions;
    v[1] = c->max_changed;
    v[2] = c->compared;
    v[3] = c->missing;
    v[4] = c->changed;
    v[5] = c->changed_right;
    v[6] = c->right_trusted;
    v[7] = c->right_now;
    v[8] = c->same_text;
}

static void counts_to(struct rundir_canary *c, const long long v[NCOUNTS])
{
    c->questions = v[0];
    c->max_changed = v[1];
    c->compared = v[2];
    c->missing = v[3];
    c->changed = v[4];
    c->changed_right = v[5];
    c->right_trusted = v[6];
    c->right_now = v[7];
    c->same_text = v[8];
}

json_t *rundir_canary_json(const struct rundir_canary *c)
{
    json_t *o = json_object(), *ids = json_array();
    int ok = o != NULL && ids != NULL;
    long long v[NCOUNTS];
    size_t i;

    counts_of(c, v);
    ok = ok && json_object_set_new(o, CK_RUNG, json_string(c->rung)) == 0;
    if (ok && c->model != NULL)
        ok = json_object_set_new(o, CK_MODEL, json_string(c->model)) == 0;
    ok = ok && json_object_set_new(o, CK_ROWS, json_string(c->rows)) == 0;
    if (ok && c->rows_sha256[0])
        ok = json_object_set_new(o, CK_ROWS_SHA,
                                 json_string(c->rows_sha256)) == 0;
    for (i = 0; ok && i < NCOUNTS; i++) /* a later count unknown: absent */
        if (count_needed[i] || v[i] >= 0)
            ok =
                json_object_set_new(o, count_keys[i], json_integer(v[i])) == 0;
    for (i = 0; ok && i < c->nids; i++)
        ok = json_array_append_new(ids, json_string(c->ids[i])) == 0;
    ok = ok && json_object_set(o, CK_IDS, ids) == 0 &&
         json_object_set_new(o, CK_PASSED, json_boolean(c->passed)) == 0;
    json_decref(ids);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* A string member copied into *out: 0, 1 when absent or not a string,
 * -1 out of memory. */
static int text(const json_t *o, const char *key, char **out)
{
    const json_t *v = json_object_get(o, key);

    if (!json_is_string(v))
        return 1;
    *out = strdup(json_string_value(v));
    return *out == NULL ? -1 : 0;
}

int rundir_canary_read(const json_t *o, const char *path,
                       struct rundir_canary *c, char *msg, size_t msgsize)
{
    const json_t *ids = json_object_get(o, CK_IDS), *v;
    const char *sha;
    int ok, oom = 0;
    long long n[NCOUNTS] = {0};
    size_t i;

    memset(c, 0, sizeof(*c));
    ok = json_is_boolean(json_object_get(o, CK_PASSED)) &&
         json_is_array(ids) && json_array_size(ids) <= RUNDIR_CANARY_IDS_MAX;
    c->passed = json_is_true(json_object_get(o, CK_PASSED));
    for (i = 0; ok && i < NCOUNTS; i++) {
        v = json_object_get(o, count_keys[i]);
        if (json_is_integer(v) && json_integer_value(v) >= 0)
            n[i] = json_integer_value(v);
        else if (v == NULL && !count_needed[i])
            n[i] = -1;
        else
            ok = 0;
    }
    counts_to(c, n);
    json_array_foreach(ids, i, v)
    {
        if (!ok || !json_is_string(v)) {
            ok = 0;
            break;
        }
        if ((c->ids[c->nids] = strdup(json_string_value(v))) == NULL) {
            oom = 1;
            break;
        }
        c->nids++;
    }
    if (ok && !oom) {
        int r = text(o, CK_RUNG, &c->rung), w = text(o, CK_ROWS, &c->rows),
            m = text(o, CK_MODEL, &c->model);
        oom = r < 0 || w < 0 || m < 0;
        ok = r == 0 && w == 0;
    }
    sha = json_string_value(json_object_get(o, CK_ROWS_SHA));
    if (sha != NULL && strlen(sha) == 64 &&
        strspn(sha, "0123456789abcdef") == 64)
        memcpy(c->rows_sha256, sha, 65);
    if (oom) {
        snprintf(msg, msgsize, "%s: out of memory", path);
        return -1;
    }
    if (!ok) {
        snprintf(msg, msgsize,
                 "%s: not graveyard canary's verdict (rung, rows, questions, "
                 "max_changed, compared, missing, changed, same_text, "
                 "changed_ids, passed)",
                 path);
        return -1;
    }
    return 0;
}

void rundir_canary_free(struct rundir_canary *c)
{
    size_t i;

    free(c->rung);
    free(c->model);
    free(c->rows);
    for (i = 0; i < c->nids; i++)
        free(c->ids[i]);
    memset(c, 0, sizeof(*c));
}
