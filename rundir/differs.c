/*
 * differs.c - what each rung of a ladder of settings changes (differs.h).
 */
#include "differs.h"
#include "manifest_keys.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static json_t *entry(const struct rundir_run *r, const char *rung)
{
    return json_object_get(json_object_get(r->manifest, MK_RUNGS), rung);
}

/* A rung's build: its own server_version, else the folder's. */
static const char *build_of(const struct rundir_run *r, const json_t *e)
{
    const char *v = json_string_value(json_object_get(e, MK_SERVER_VERSION));

    return v ? v
             : json_string_value(json_object_get(
                   json_object_get(r->manifest, MK_SERVER), MKS_VERSION));
}

static int is_draft_flag(const char *a)
{
    return strcmp(a, "-md") == 0 || strcmp(a, "--model-draft") == 0 ||
           strcmp(a, "--spec-draft-model") == 0;
}

/* Appends to a capped text; past the cap it ends in "..." and stays. */
struct text {
    char *p;
    size_t size, len;
    int full;
};

static void add(struct text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (t->full || t->size < 4)
        return;
    va_start(ap, fmt);
    n = vsnprintf(t->p + t->len, t->size - t->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= t->size - t->len) {
        t->full = 1;
        t->len = t->size - 1;
        memcpy(t->p + t->size - 4, "...", 4);
        return;
    }
    t->len += (size_t)n;
}

/* a string of the manifest, or "?" */
static const char *str(const json_t *v)
{
    return json_is_string(v) ? json_string_value(v) : "?";
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');

    return s ? s + 1 : path;
}

/* The args past the part a and b share at the start: what the rung adds
 * ("settings ..."), or what it leaves out ("without ..."). */
static void args_part(struct text *t, const json_t *a, const json_t *ref)
{
    size_t i = 0, na = json_array_size(a), nr = json_array_size(ref), k;

    if (json_equal(a, ref) || (na == 0 && nr == 0))
        return;
    while (i < na && i < nr &&
           json_equal(json_array_get(a, i), json_array_get(ref, i)))
        i++;
    /* from the flag whose value differs ("-fa on" over "-fa off") */
    while (i > 0 && i < na && i < nr && str(json_array_get(a, i))[0] != '-')
        i--;
    add(t, "%s%s", t->len ? "; " : "", i < na ? "settings" : "without");
    for (k = i; k < (i < na ? na : nr); k++)
        add(t, " %s", str(json_array_get(i < na ? a : ref, k)));
    if (i < na && i < nr) { /* both go on: the reference's rest too */
        add(t, " (over");
        for (k = i; k < nr; k++)
            add(t, " %s", str(json_array_get(ref, k)));
        add(t, ")");
    }
}

/* The variables whose values differ, as recorded (a secret as its hash). */
static void env_part(struct text *t, json_t *a, json_t *ref)
{
    const char *k;
    json_t *v;
    int first = 1;

    json_object_foreach(a, k, v)
    {
        if (json_equal(v, json_object_get(ref, k)))
            continue;
        add(t, "%s%s=%s", first ? (t->len ? "; env " : "env ") : " ", k,
            str(v));
        first = 0;
    }
    json_object_foreach(ref, k, v)
    {
        if (json_object_get(a, k) != NULL)
            continue;
        add(t, "%s%s",
            first ? (t->len ? "; env without " : "env without ") : " without ",
            k);
        first = 0;
    }
}

void rundir_run_differs(const struct rundir_run *r, const char *rung,
                        const char *ref, char *out, size_t size)
{
    json_t *e = entry(r, rung), *f = entry(r, ref);
    struct text t = {out, size, 0, 0};
    const char *b = build_of(r, e), *rb = build_of(r, f);

    if (size > 0)
        out[0] = '\0';
    if (e == NULL || f == NULL || strcmp(rung, ref) == 0)
        return;
    if (!rundir_run_same_file(r, rung, ref))
        add(&t, "file %s", base_name(str(json_object_get(e, MK_MODEL))));
    args_part(&t, json_object_get(e, MK_SERVER_ARGS),
              json_object_get(f, MK_SERVER_ARGS));
    env_part(&t, json_object_get(e, MK_SERVER_ENV),
             json_object_get(f, MK_SERVER_ENV));
    if (b != NULL && (rb == NULL || strcmp(b, rb) != 0))
        add(&t, "%sbuild %s", t.len ? "; " : "", b);
}

int rundir_run_same_file(const struct rundir_run *r, const char *rung,
                         const char *ref)
{
    const char *a =
        json_string_value(json_object_get(entry(r, rung), MKS_SHA256));
    const char *b =
        json_string_value(json_object_get(entry(r, ref), MKS_SHA256));

    return a != NULL && b != NULL && a[0] != '\0' && strcmp(a, b) == 0;
}

int rundir_run_settings_ladder(const struct rundir_run *r, const char *ref)
{
    const char *k, *k2;
    json_t *e, *e2, *f = entry(r, ref);
    char text[RUNDIR_DIFFERS_MAX];

    if (f == NULL)
        return 0;
    json_object_foreach(json_object_get(r->manifest, MK_RUNGS), k, e)
    {
        if (strcmp(k, ref) == 0)
            continue;
        json_object_foreach(json_object_get(r->manifest, MK_RUNGS), k2, e2)
        {
            if (strcmp(k, k2) != 0 && rundir_run_same_file(r, k, k2))
                return 1;
        }
        rundir_run_differs(r, k, ref, text, sizeof text);
        /* a plain ladder's rungs differ by their files alone */
        if (text[0] != '\0' && strncmp(text, "file ", 5) != 0)
            return 1;
        if (strchr(text, ';') != NULL)
            return 1;
    }
    return 0;
}

/* Flags, each with a value, that only tune the draft (both lineages'
 * --help): left out with it when looking for the rung without it. */
static int is_draft_tuning(const char *a)
{
    static const char *const flags[] = {"--spec-type",
                                        "--draft-max",
                                        "--draft-min",
                                        "--draft-p-min",
                                        "--spec-draft-n-max",
                                        "--spec-draft-n-min",
                                        "-ngld",
                                        "--gpu-layers-draft",
                                        "--n-gpu-layers-draft",
                                        "--spec-draft-ngl",
                                        "-ctkd",
                                        "-ctvd",
                                        "-cd",
                                        "--ctx-size-draft",
                                        "-td",
                                        "--threads-draft",
                                        NULL};

    for (size_t i = 0; flags[i] != NULL; i++)
        if (strcmp(a, flags[i]) == 0)
            return 1;
    return 0;
}

/* args without the draft model's pair and its tuning, into a new array;
 * *had 1 when there was a draft model */
static json_t *without_draft(const json_t *args, int *had)
{
    json_t *out = json_array(), *v;
    size_t i;

    *had = 0;
    json_array_foreach(args, i, v)
    {
        const char *s = json_string_value(v);
        *had |= s != NULL && is_draft_flag(s);
    }
    json_array_foreach(args, i, v)
    {
        const char *s = json_string_value(v);
        if (s != NULL && *had && (is_draft_flag(s) || is_draft_tuning(s))) {
            i++; /* its value */
            continue;
        }
        json_array_append(out, v);
    }
    return out;
}

int rundir_run_draft_base(const struct rundir_run *r, const char *rung,
                          char *const *names, size_t n, const char **base)
{
    json_t *e = entry(r, rung), *plain;
    const char *b = build_of(r, e);
    size_t i;
    int had, found = 0;

    *base = NULL;
    if (e == NULL)
        return 0;
    plain = without_draft(json_object_get(e, MK_SERVER_ARGS), &had);
    for (i = 0; had && !found && i < n; i++) {
        json_t *c = entry(r, names[i]);
        const char *cb = build_of(r, c);
        if (c == NULL || strcmp(names[i], rung) == 0 ||
            !rundir_run_same_file(r, rung, names[i]) ||
            !json_equal(json_object_get(c, MK_SERVER_ARGS), plain) ||
            (json_object_get(c, MK_SERVER_ENV) != NULL ||
                     json_object_get(e, MK_SERVER_ENV) != NULL
                 ? !json_equal(json_object_get(c, MK_SERVER_ENV),
                               json_object_get(e, MK_SERVER_ENV))
                 : 0) ||
            (b == NULL) != (cb == NULL) || (b != NULL && strcmp(b, cb) != 0))
            continue;
        *base = names[i];
        found = 1;
    }
    json_decref(plain);
    return found;
}
