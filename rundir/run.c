/*
 * run.c - a run folder's shape and settings, for the reports.
 */
#include "run.h"
#include "beside.h"

#include "files.h"
#include "manifest.h"
#include "manifest_keys.h"
#include "outfile.h"
#include "rundir.h"
#include "../util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Split a comma list into out (at most max), each a copy. */
static int split(const char *list, char **out, size_t *n, size_t max,
                 const char *what, char *msg, size_t msgsize)
{
    const char *p = list;

    while (*p != '\0') {
        size_t len = strcspn(p, ",");
        if (len == 0 || len > 64) {
            snprintf(msg, msgsize, "%s: '%s' is not a list of rung names",
                     what, list);
            return -1;
        }
        if (*n == max) {
            snprintf(msg, msgsize, "%s: at most %zu rungs", what, max);
            return -1;
        }
        if ((out[*n] = malloc(len + 1)) == NULL) {
            snprintf(msg, msgsize, "out of memory");
            return -1;
        }
        memcpy(out[*n], p, len);
        out[(*n)++][len] = '\0';
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

/* Load path as JSON: the object, NULL with *absent set when there is no
 * such file, NULL with msg on a bad one. */
static json_t *load_path(const char *path, int *absent, char *msg,
                         size_t msgsize)
{
    json_error_t jerr;
    json_t *o;

    o = files_json_load(path, 1, JSON_REJECT_DUPLICATES, &jerr);
    if (o == NULL) {
        struct stat st;
        if (lstat(path, &st) != 0 && errno == ENOENT) {
            *absent = 1;
            return NULL;
        }
        if (jerr.line < 1)
            snprintf(msg, msgsize, "cannot read '%s': %s", path, jerr.text);
        else
            snprintf(msg, msgsize, "%s:%d: %s", path, jerr.line, jerr.text);
        return NULL;
    }
    if (!json_is_object(o)) {
        snprintf(msg, msgsize, "%s: not a JSON object", path);
        json_decref(o);
        return NULL;
    }
    return o;
}

/* The same for one of dir's files. */
static json_t *load(const char *dir, enum rundir_file what, int *absent,
                    char *msg, size_t msgsize)
{
    struct buf path = {0};
    json_t *o = NULL;

    *absent = 0;
    if (rundir_path_buf(&path, dir, what, NULL) != 0)
        snprintf(msg, msgsize, "%.200s: path too long", dir);
    else
        o = load_path(path.p, absent, msg, msgsize);
    buf_release(&path);
    return o;
}

/* Names from the array o[key] into out; skip (a reference) if given. */
static int names(json_t *o, const char *key, const char *skip, char **out,
                 size_t *n, const char *path, char *msg, size_t msgsize)
{
    json_t *a = json_object_get(o, key), *v;
    size_t i;

    if (a == NULL)
        return 0;
    if (!json_is_array(a)) {
        snprintf(msg, msgsize, "%s: \"%s\" must be an array of rung names",
                 path, key);
        return -1;
    }
    json_array_foreach(a, i, v)
    {
        if (!json_is_string(v)) {
            snprintf(msg, msgsize, "%s: \"%s\" must hold rung names", path,
                     key);
            return -1;
        }
        if (skip != NULL && strcmp(json_string_value(v), skip) == 0)
            continue;
        if (strlen(json_string_value(v)) > 64) {
            snprintf(msg, msgsize,
                     "%s: rung name longer than 64 bytes in "
                     "\"%s\"",
                     path, key);
            return -1;
        }
        if (*n == GRADER_MAX_RUNGS) {
            snprintf(msg, msgsize, "%s: more than %d rungs", path,
                     GRADER_MAX_RUNGS);
            return -1;
        }
        if ((out[(*n)++] = strdup(json_string_value(v))) == NULL) {
            snprintf(msg, msgsize, "out of memory");
            return -1;
        }
    }
    return 0;
}

/* The shape from ladder.json, else graveyard.json (+ graveyard-side.json).
 * path names the file read last in messages; load refuses a path that
 * does not fit, so each rundir_path_buf here that matters succeeded. */
static int shape_in(struct rundir_run *r, int want_side, struct buf *path,
                    char *msg, size_t msgsize)
{
    const char *ref;
    json_t *o, *ro;
    int absent;

    (void)rundir_path_buf(path, r->dir, RD_LADDER_JSON, NULL);
    o = load(r->dir, RD_LADDER_JSON, &absent, msg, msgsize);
    if (o == NULL && !absent)
        return -1;
    if (o == NULL) {
        (void)rundir_path_buf(path, r->dir, RD_GRAVEYARD, NULL);
        o = load(r->dir, RD_GRAVEYARD, &absent, msg, msgsize);
        if (o == NULL && !absent)
            return -1;
    }
    if (o == NULL && r->nchain > 0)
        return 0; /* --rungs given; no side rungs recorded */
    if (o == NULL) {
        snprintf(msg, msgsize,
                 "%s: no ladder.json or graveyard.json says which rungs "
                 "this folder holds; name them with --rungs REF,RUNG,...",
                 r->dir);
        return -1;
    }
    ro = json_object_get(o, "reference");
    ref = json_is_string(ro) ? json_string_value(ro) : NULL;
    if (ref == NULL) {
        snprintf(msg, msgsize, "%s: no \"reference\" rung name", path->p);
        json_decref(o);
        return -1;
    }
    if (r->nchain == 0 && ((r->chain[r->nchain++] = strdup(ref)) == NULL ||
                           names(o, "rungs", ref, r->chain, &r->nchain,
                                 path->p, msg, msgsize))) {
        json_decref(o);
        return -1;
    }
    if (want_side && json_object_get(o, "side_rungs") != NULL) {
        int rc = names(o, "side_rungs", NULL, r->side, &r->nside, path->p, msg,
                       msgsize);
        json_decref(o);
        return rc;
    }
    json_decref(o);
    if (!want_side)
        return 0;
    /* a folder buried by hand: the side bury's file, if any */
    o = load(r->dir, RD_GRAVEYARD_SIDE, &absent, msg, msgsize);
    if (o == NULL)
        return absent ? 0 : -1;
    (void)rundir_path_buf(path, r->dir, RD_GRAVEYARD_SIDE, NULL);
    /* ref pointed into the first file, released above */
    absent = names(o, "rungs", r->chain[0], r->side, &r->nside, path->p, msg,
                   msgsize);
    json_decref(o);
    return absent;
}

/* shape_in with the path it names files by, released after. */
static int shape(struct rundir_run *r, int want_side, char *msg,
                 size_t msgsize)
{
    struct buf path = {0};
    int rc = shape_in(r, want_side, &path, msg, msgsize);

    buf_release(&path);
    return rc;
}

#define F16_TAIL 4096 /* f16-range.jsonl's last bytes read: its TOTAL */

/* f16-range.jsonl's TOTAL (its last line) and build.json's F16 rung, if
 * graveyard build left them. Best effort: a report without them is still
 * a report, so a file that does not read is left out, not an error. */
static void f16_total(struct rundir_run *r)
{
    struct buf path = {0};
    char buf[F16_TAIL], *nl, why[4400];
    json_error_t jerr;
    json_t *t, *b, *v;
    const char *k;
    FILE *f;
    long end;
    size_t n;

    f = rundir_path_buf(&path, r->dir, RD_F16_RANGE, NULL) == 0
            ? files_fopen_read(path.p, 1, why, sizeof(why))
            : NULL;
    if (f == NULL) {
        buf_release(&path);
        return;
    }
    end = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    n = end < 0 ? 0
        : fseek(f,
                end > (long)sizeof(buf) - 1 ? end - (long)sizeof(buf) + 1 : 0,
                SEEK_SET) == 0
            ? fread(buf, 1, sizeof(buf) - 1, f)
            : 0;
    fclose(f);
    buf[n] = '\0';
    while (n > 0 && buf[n - 1] == '\n')
        buf[--n] = '\0';
    nl = strrchr(buf, '\n');
    t = json_loads(nl ? nl + 1 : buf, 0, NULL);
    if (json_is_object(t) && json_is_string(json_object_get(t, "tensor")) &&
        strcmp(json_string_value(json_object_get(t, "tensor")), "TOTAL") ==
            0) {
        r->f16.known = 1;
        r->f16.tensors = (unsigned long long)json_integer_value(
            json_object_get(t, "tensors"));
        r->f16.n =
            (unsigned long long)json_integer_value(json_object_get(t, "n"));
        r->f16.overflow = (unsigned long long)json_integer_value(
            json_object_get(t, "overflow"));
        r->f16.underflow = (unsigned long long)json_integer_value(
            json_object_get(t, "underflow"));
        r->f16.subnormal = (unsigned long long)json_integer_value(
            json_object_get(t, "subnormal"));
        r->f16.nonfinite = (unsigned long long)json_integer_value(
            json_object_get(t, "nonfinite"));
        r->f16.absmax = json_number_value(json_object_get(t, "absmax"));
    }
    json_decref(t);
    if (!r->f16.known ||
        rundir_path_buf(&path, r->dir, RD_BUILD_JSON, NULL) != 0) {
        buf_release(&path);
        return;
    }
    b = files_json_load(path.p, 1, 0, &jerr);
    buf_release(&path);
    json_object_foreach(json_object_get(b, "rungs"), k, v)
    {
        const char *recipe = json_string_value(json_object_get(v, "recipe"));
        if (recipe != NULL && strcmp(recipe, "convert f16") == 0)
            snprintf(r->f16.rung, sizeof(r->f16.rung), "%s", k);
    }
    json_decref(b);
}

/* canary.json, read by its one reader (canary.h): the report prints its
 * figures, so each must be what it claims. */
static int canary_open(struct rundir_run *r, char *msg, size_t msgsize)
{
    struct buf path = {0};
    json_t *o = NULL;
    int absent = 0, rc = 0;

    if (rundir_path_buf(&path, r->dir, RD_CANARY_JSON, NULL) != 0) {
        snprintf(msg, msgsize, "%.200s: path too long", r->dir);
        rc = -1;
    } else if ((o = load_path(path.p, &absent, msg, msgsize)) == NULL)
        rc = absent ? 0 : -1;
    else if ((r->canary = calloc(1, sizeof(*r->canary))) == NULL) {
        snprintf(msg, msgsize, "%s: out of memory", path.p);
        rc = -1;
    } else if (rundir_canary_read(o, path.p, r->canary, msg, msgsize) != 0)
        rc = -1;
    json_decref(o);
    buf_release(&path);
    return rc;
}

/* ladder.json's "duels": pairs of names that fit; anything else is left
 * out (ladder.json is graveyard's own, written by rundir_shape_duels). */
static void read_duels(struct rundir_run *r, const json_t *l)
{
    json_t *d = l ? json_object_get(l, "duels") : NULL, *p;
    const char *a, *b;
    size_t i;

    json_array_foreach(d, i, p)
    {
        a = json_string_value(json_array_get(p, 0));
        b = json_string_value(json_array_get(p, 1));
        if (a == NULL || b == NULL || r->nduels >= RUNDIR_DUELS_MAX ||
            strlen(a) >= sizeof(r->duels[0].a) ||
            strlen(b) >= sizeof(r->duels[0].b))
            continue;
        snprintf(r->duels[r->nduels].a, sizeof(r->duels[0].a), "%s", a);
        snprintf(r->duels[r->nduels].b, sizeof(r->duels[0].b), "%s", b);
        r->nduels++;
    }
}

const struct rundir_duel *rundir_run_duels(const struct rundir_run *r,
                                           size_t *n)
{
    *n = r->nduels;
    return r->duels;
}

int rundir_run_open(struct rundir_run *r, const char *dir, const char *rungs,
                    const char *side, const char *label, char *msg,
                    size_t msgsize)
{
    const char *base;
    json_t *name;
    int absent;
    size_t len;

    memset(r, 0, sizeof(*r));
    if ((r->dir = strdup(dir)) == NULL) {
        snprintf(msg, msgsize, "out of memory");
        return -1;
    }
    /* trailing slashes off, so that messages and labels read well */
    len = strlen(r->dir);
    while (len > 1 && r->dir[len - 1] == '/')
        r->dir[--len] = '\0';
    {
        struct buf rows = {0};
        struct stat st;
        int bad = rundir_path_buf(&rows, r->dir, RD_ROWS_DIR, NULL) != 0 ||
                  stat(rows.p, &st) != 0 || !S_ISDIR(st.st_mode);
        buf_release(&rows);
        if (bad) {
            snprintf(msg, msgsize, "%s: not a run folder (no rows/ in it)",
                     r->dir);
            return -1;
        }
    }
    if (rungs != NULL && split(rungs, r->chain, &r->nchain, GRADER_MAX_RUNGS,
                               "--rungs", msg, msgsize) != 0)
        return -1;
    if (side != NULL && split(side, r->side, &r->nside, GRADER_MAX_RUNGS,
                              "--side", msg, msgsize) != 0)
        return -1;
    if (r->nchain == 0 || side == NULL) {
        if (shape(r, side == NULL, msg, msgsize) != 0)
            return -1;
    }
    r->manifest = load(r->dir, RD_MANIFEST, &absent, msg, msgsize);
    if (r->manifest == NULL && !absent)
        return -1;
    r->beside = rundir_beside_read(r->dir);
    if (canary_open(r, msg, msgsize) != 0)
        return -1;
    {
        json_t *l = NULL;
        l = load(r->dir, RD_LADDER_JSON, &absent, msg, msgsize);
        name = l ? json_object_get(l, "name") : NULL;
        /* a margin outside (0, 100) is none: the report's default */
        if (l != NULL && json_is_number(json_object_get(l, "margin_points")))
            r->margin = json_number_value(json_object_get(l, "margin_points"));
        if (!(r->margin > 0.0 && r->margin < 100.0))
            r->margin = 0.0;
        read_duels(r, l);
        if (json_is_string(name) &&
            (r->name = strdup(json_string_value(name))) == NULL) {
            json_decref(l);
            snprintf(msg, msgsize, "out of memory");
            return -1;
        }
        json_decref(l);
    }
    base = strrchr(r->dir, '/');
    base = base ? base + 1 : r->dir;
    snprintf(r->label, sizeof(r->label), "%s", label ? label : base);
    f16_total(r);
    return 0;
}

int rundir_run_show_as(struct rundir_run *r, const char *shown,
                       const char *base)
{
    char *d = strdup(shown), *b = strdup(base);

    if (d == NULL || b == NULL) {
        free(d);
        free(b);
        return -1;
    }
    free(r->dir);
    free(r->base);
    r->dir = d;
    r->base = b;
    return 0;
}

void rundir_run_close(struct rundir_run *r)
{
    size_t i;

    for (i = 0; i < r->nchain; i++)
        free(r->chain[i]);
    for (i = 0; i < r->nside; i++)
        free(r->side[i]);
    free(r->dir);
    free(r->base);
    free(r->name);
    json_decref(r->manifest);
    if (r->canary != NULL)
        rundir_canary_free(r->canary);
    free(r->canary);
    json_decref(r->recipes);
    json_decref(r->duel_prov);
    json_decref(r->beside);
    memset(r, 0, sizeof(*r));
}

static json_t *at(const struct rundir_run *r, const char *a, const char *b)
{
    json_t *o = r->manifest ? json_object_get(r->manifest, a) : NULL;

    return b && o ? json_object_get(o, b) : o;
}

const char *rundir_run_server(const struct rundir_run *r)
{
    return json_string_value(at(r, MK_SERVER, MKS_VERSION));
}

const char *rundir_run_questions(const struct rundir_run *r)
{
    return json_string_value(at(r, MK_QUESTIONS, MKS_PATH));
}

const char *rundir_run_questions_sha256(const struct rundir_run *r)
{
    return json_string_value(at(r, MK_QUESTIONS, MKS_SHA256));
}

/* request.KEY as a whole number, or -1 when the manifest does not say. */
static long request_int(const struct rundir_run *r, const char *key)
{
    json_t *v = at(r, MK_REQUEST, key);

    return json_is_integer(v) ? (long)json_integer_value(v) : -1;
}

long rundir_run_max_tokens(const struct rundir_run *r)
{
    return request_int(r, MK_MAX_TOKENS);
}

long rundir_run_logprobs(const struct rundir_run *r)
{
    return request_int(r, MK_LOGPROBS);
}

int rundir_run_thinking(const struct rundir_run *r)
{
    json_t *v = at(r, MK_REQUEST, MK_ENABLE_THINKING);

    return json_is_boolean(v) ? json_is_true(v) : -1;
}

const char *rundir_run_vocab(const struct rundir_run *r, const char *rung)
{
    return r->manifest ? manifest_vocab(r->manifest, rung) : NULL;
}

/* o (stolen) written as DIR/ladder.json, whole (outfile.h). 0, or -1
 * with msg. */
static int ladder_json_write(const char *dir, json_t *o, char *msg,
                             size_t msgsize)
{
    struct buf path = {0};
    char *text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    int rc;

    json_decref(o);
    if (text == NULL) {
        snprintf(msg, msgsize, "out of memory");
        return -1;
    }
    if (rundir_path_buf(&path, dir, RD_LADDER_JSON, NULL) != 0) {
        free(text);
        buf_release(&path);
        snprintf(msg, msgsize, "%.200s: path too long", dir);
        return -1;
    }
    rc = outfile_write(path.p, text, strlen(text), msg, msgsize);
    free(text);
    buf_release(&path);
    return rc;
}

int rundir_shape_write(const char *dir, const char *name, const char *ref,
                       char *const *chain, size_t nchain, char *const *side,
                       size_t nside, int thinking, double margin, char *msg,
                       size_t msgsize)
{
    json_t *o, *c, *sd;
    size_t i;

    o = json_pack("{s:s,s:s,s:[s],s:[],s:b}", "name", name, "reference", ref,
                  "rungs", ref, "side_rungs", "thinking", thinking);
    if (o == NULL) {
        snprintf(msg, msgsize, "out of memory");
        return -1;
    }
    /* so that a later graveyard report gives the ladder's verdicts */
    if (margin > 0.0)
        json_object_set_new(o, "margin_points", json_real(margin));
    c = json_object_get(o, "rungs");
    sd = json_object_get(o, "side_rungs");
    for (i = 0; i < nchain; i++)
        if (strcmp(chain[i], ref) != 0)
            json_array_append_new(c, json_string(chain[i]));
    for (i = 0; i < nside; i++)
        json_array_append_new(sd, json_string(side[i]));
    return ladder_json_write(dir, o, msg, msgsize);
}

int rundir_shape_duels(const char *dir, const char *const *names, size_t n,
                       char *msg, size_t msgsize)
{
    json_t *o, *d, *p;
    int absent;
    size_t i;

    if (n == 0)
        return 0;
    if ((o = load(dir, RD_LADDER_JSON, &absent, msg, msgsize)) == NULL) {
        if (absent)
            snprintf(msg, msgsize, "%.200s: no ladder.json to add duels to",
                     dir);
        return -1;
    }
    d = json_array();
    for (i = 0; i < n; i++) {
        p = json_pack("[s,s]", names[2 * i], names[2 * i + 1]);
        if (p == NULL || json_array_append_new(d, p) != 0) {
            json_decref(d);
            json_decref(o);
            snprintf(msg, msgsize, "out of memory");
            return -1;
        }
    }
    json_object_set_new(o, "duels", d);
    return ladder_json_write(dir, o, msg, msgsize);
}
