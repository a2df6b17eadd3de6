/*
 * figures_duel.c - duels, A against B (figures.h; docs/duel.md): each run
 * folder's rows of the two rungs read and handed to the grader (duel.h),
 * the folder's noise floor as the ladder's (the reference against its
 * repeat), and the provenance of both files read from the files
 * themselves where they are here (weights/recipe.h), the sha256 from the
 * manifest either way. Nothing here counts or divides: the grader does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../grader/grader.h"
#include "../../report/emit.h"
#include "../../report/md_duel.h"
#include "../../rundir/manifest.h"
#include "../../rundir/rundir.h"
#include "../../util/util.h"
#include "../../weights/f16range.h"
#include "../../weights/recipe.h"
#include "../base/cli.h"
#include "figures.h"
#include "figures_int.h"

/* The tensors a panel names of those that differ in type. */
#define DIFFER_FIRST 5

/* The metadata a panel shows (docs/tensors.md). */
static const char *const meta_keys[] = {
    "general.name",
    "general.file_type",
    "quantize.imatrix.file",
    "quantize.imatrix.dataset",
    "quantize.imatrix.entries_count",
    "quantize.imatrix.chunks_count",
};
#define NMETA (sizeof meta_keys / sizeof *meta_keys)

/* One side of the panel; *recipe the file's recipe when it was read. */
static json_t *prov_side(const struct rundir_run *run, const char *rung,
                         json_t **recipe)
{
    struct manifest_file mf = {NULL, NULL, -1};
    json_t *o = json_object(), *meta;
    char msg[1024];
    struct stat st;
    size_t i;

    *recipe = NULL;
    if (run->manifest != NULL)
        (void)manifest_rung_file(run->manifest, rung, &mf);
    json_object_set_new(o, "rung", json_string(rung));
    json_object_set_new(o, "file",
                        mf.model ? json_string(mf.model) : json_null());
    if (mf.model != NULL && access(mf.model, R_OK) == 0 &&
        recipe_of(mf.model, recipe, msg, sizeof msg) != F16R_OK)
        json_object_set_new(o, "error", json_string(msg));
    json_object_set_new(o, "here", json_boolean(*recipe != NULL));
    if (*recipe != NULL && stat(mf.model, &st) == 0)
        json_object_set_new(o, "bytes", json_integer((json_int_t)st.st_size));
    else
        json_object_set_new(o, "bytes",
                            mf.bytes > 0 ? json_integer((json_int_t)mf.bytes)
                                         : json_null());
    json_object_set_new(o, "sha256",
                        mf.sha256 && *mf.sha256 ? json_string(mf.sha256)
                                                : json_null());
    meta = *recipe ? json_object_get(*recipe, "metadata") : NULL;
    for (i = 0; i < NMETA; i++) {
        json_t *v = json_object_get(meta, meta_keys[i]);
        json_object_set_new(o, meta_keys[i],
                            json_is_string(v) ? json_copy(v) : json_null());
    }
    return o;
}

/* The file name after its last '/'. */
static const char *base_name(const char *path)
{
    const char *s = path ? strrchr(path, '/') : NULL;

    return s ? s + 1 : path;
}

/* Whether two file sizes differ by more than 2 % of the smaller. */
static int size_differs(json_t *a, json_t *b)
{
    long long x = (long long)json_integer_value(a),
              y = (long long)json_integer_value(b);
    long long lo = x < y ? x : y, d = x > y ? x - y : y - x;

    return d * 50 > lo;
}

json_t *figures__duel_prov(const struct rundir_run *run, const char *a,
                           const char *b)
{
    json_t *ra, *rb, *pair[2], *o = json_object(), *d, *first, *t;
    json_t *sa = prov_side(run, a, &ra), *sb = prov_side(run, b, &rb);
    const char *fa = json_string_value(json_object_get(sa, "file")),
               *fb = json_string_value(json_object_get(sb, "file")),
               *ha = json_string_value(json_object_get(sa, "sha256")),
               *hb = json_string_value(json_object_get(sb, "sha256"));
    size_t i;

    json_object_set_new(o, "a", sa);
    json_object_set_new(o, "b", sb);
    json_object_set_new(
        o, "size_differs",
        json_is_integer(json_object_get(sa, "bytes")) &&
                json_is_integer(json_object_get(sb, "bytes"))
            ? json_boolean(size_differs(json_object_get(sa, "bytes"),
                                        json_object_get(sb, "bytes")))
            : json_null());
    /* a re-upload under one name: the names alike, the sha256s not */
    json_object_set_new(
        o, "same_name_other_sha256",
        json_boolean(fa && fb && ha && hb &&
                     strcmp(base_name(fa), base_name(fb)) == 0 &&
                     strcmp(ha, hb) != 0));
    pair[0] = ra;
    pair[1] = rb;
    d = ra && rb ? recipe_diff(pair, 2) : NULL;
    first = json_array();
    json_array_foreach(json_object_get(d, "differ"), i, t)
    {
        if (i >= DIFFER_FIRST)
            break;
        json_array_append(first, json_object_get(t, "tensor"));
    }
    json_object_set_new(o, "tensors_differ",
                        d ? json_integer((json_int_t)json_array_size(
                                json_object_get(d, "differ")))
                          : json_null());
    json_object_set_new(o, "differ_first", first);
    json_decref(d);
    json_decref(ra);
    json_decref(rb);
    return o;
}

/* The subject a folder's duel is labelled by: its task's name. */
static const char *subject_of(const struct rundir_run *run)
{
    const char *t = run->manifest ? manifest_task_name(run->manifest) : NULL;

    return t ? t : "answer-line";
}

/* The index of rung name among run's chain then side rungs, or -1. */
static long rung_at(const struct rundir_run *run, const char *name)
{
    size_t i;

    for (i = 0; i < run->nchain; i++)
        if (strcmp(run->chain[i], name) == 0)
            return (long)i;
    for (i = 0; i < run->nside; i++)
        if (strcmp(run->side[i], name) == 0)
            return (long)(run->nchain + i);
    return -1;
}

int figures__report_duels(struct figures_report *r)
{
    const struct rundir_run *run = &r->run;
    const struct rundir_duel *pairs;
    struct grader_error err;
    size_t n, i;
    long ia, ib;

    pairs = rundir_run_duels(run, &n);
    if (n == 0)
        return 0;
    if ((r->duels = calloc(n, sizeof(*r->duels))) == NULL ||
        (r->run.duel_prov = json_array()) == NULL)
        return figures__oom("report");
    for (i = 0; i < n; i++) {
        struct grader_duel_set *ds = &r->duels[r->nduels];
        ia = rung_at(run, pairs[i].a);
        ib = rung_at(run, pairs[i].b);
        /* --rungs may leave a rung of a pair out: that duel is left out,
         * said on stderr, and the report goes on */
        if (ia < 0 || ib < 0) {
            fprintf(stderr,
                    "graveyard report: %s: the duel %s against %s is left "
                    "out: %s is not among the rungs reported\n",
                    run->dir, pairs[i].a, pairs[i].b,
                    ia < 0 ? pairs[i].a : pairs[i].b);
            continue;
        }
        ds->a = r->s.r[ia]->name;
        ds->b = r->s.r[ib]->name;
        r->nduels++;
        if (grader_duel_set_add(ds, subject_of(run), r->s.qs, r->s.r[ia],
                                r->s.r[ib], r->rep.margin, r->rep.floor_points,
                                &err) != 0)
            return figures__oom("report");
        grader_duel_set_finish(ds, r->rep.margin, r->rep.floor_points);
        json_array_append_new(r->run.duel_prov,
                              figures__duel_prov(run, pairs[i].a, pairs[i].b));
    }
    r->rep.duels = r->duels;
    r->rep.nduels = r->nduels;
    return 0;
}

/* ---- graveyard duel ------------------------------------------------- */

/* "a, b, c": the rungs of run, for a message. */
static void rung_list(char *out, size_t size, const struct rundir_run *run)
{
    size_t i, len = 0;

    out[0] = '\0';
    for (i = 0; i < run->nchain + run->nside && len < size; i++)
        len += (size_t)snprintf(out + len, size - len, "%s%s", i ? ", " : "",
                                i < run->nchain ? run->chain[i]
                                                : run->side[i - run->nchain]);
}

/* Whether dir holds rows for rung. */
static int has_rows(const char *dir, const char *rung)
{
    struct buf path = {0};
    int ok = rundir_path_buf(&path, dir, RD_ROWS, rung) == 0 &&
             access(path.p, R_OK) == 0;

    buf_release(&path);
    return ok;
}

/* The folder's noise floor as the ladder's: its reference against the
 * reference in RUNDIR/repeat (GRADER_COMMON), in points; -1 none. */
static int folder_floor(struct figures_duel_folder *f, double *floor)
{
    const char *ref = f->run.chain[0];
    struct grader_repeat_line line;
    struct grader_error err;
    struct buf rep = {0};
    int rc;

    *floor = -1.0;
    if (rundir_path_buf(&rep, f->run.dir, RD_REPEAT_DIR, NULL) != 0 ||
        !has_rows(rep.p, ref)) {
        buf_release(&rep);
        return 0;
    }
    if ((rc = rungset_load("duel", &f->s, f->run.dir, &ref, 1,
                           GRADER_READ_TEXT)) != 0 ||
        (rc = rungset_load("duel", &f->s, rep.p, &ref, 1, GRADER_READ_TEXT)) !=
            0) {
        buf_release(&rep);
        return rc;
    }
    buf_release(&rep);
    if (grader_repeat(f->s.r[f->s.n - 2], f->s.r[f->s.n - 1], f->s.qs,
                      GRADER_COMMON, &line, &err) != 0) {
        grade_report("duel", &err);
        return EXIT_USAGE;
    }
    *floor = grader_duel_floor(&line);
    return 0;
}

/* One folder opened, its A and B read and checked. */
static int open_folder(const struct figures_duel_opts *o,
                       struct figures_duel_folder *f, const char *dir)
{
    const char *names[2] = {o->a, o->b};
    char list[1024];
    size_t k;
    int rc;

    if ((rc = figures__open_run("duel", &f->run, dir, NULL, NULL, NULL)) != 0)
        return rc;
    f->open = 1;
    for (k = 0; k < 2; k++)
        if (rung_at(&f->run, names[k]) < 0) {
            rung_list(list, sizeof(list), &f->run);
            cli_error("duel", "%s: no rung '%s' (the rungs there: %s)", dir,
                      names[k], list);
            return EXIT_USAGE;
        }
    for (k = 0; k < 2; k++)
        if (!has_rows(dir, names[k])) {
            cli_error("duel", "%s: no rows for '%s' (rows/%s.jsonl)", dir,
                      names[k], names[k]);
            return EXIT_USAGE;
        }
    return rungset_load("duel", &f->s, dir, names, 2, 0);
}

int figures_duel(const struct figures_duel_opts *o, struct figures_duel *r)
{
    struct grader_error err;
    double margin, floor, most = -1.0;
    char subject[GRADER_DUEL_SUBJECT];
    size_t i, k;
    int rc;

    memset(r, 0, sizeof(*r));
    if (strcmp(o->a, o->b) == 0) {
        cli_error("duel", "A and B are the same rung '%s': name two rungs",
                  o->a);
        return EXIT_USAGE;
    }
    if ((r->folders = calloc(o->ndirs, sizeof(*r->folders))) == NULL)
        return figures__oom("duel");
    r->set.a = o->a;
    r->set.b = o->b;
    for (i = 0; i < o->ndirs; i++) {
        struct figures_duel_folder *f = &r->folders[i];
        r->nfolders = i + 1;
        if ((rc = open_folder(o, f, o->dirs[i])) != 0 ||
            (rc = folder_floor(f, &floor)) != 0)
            return rc;
        /* --margin, else the first folder's ladder's, else the default */
        margin = o->margin > 0 ? o->margin : r->folders[0].run.margin;
        if (floor > most)
            most = floor;
        /* two folders of one task are told apart by their labels */
        snprintf(subject, sizeof(subject), "%s", subject_of(&f->run));
        for (k = 0; k < i; k++)
            if (strcmp(subject_of(&r->folders[k].run), subject) == 0)
                snprintf(subject, sizeof(subject), "%.40s (%.20s)",
                         subject_of(&f->run), f->run.label);
        if (grader_duel_set_add(&r->set, subject, f->s.qs, f->s.r[0],
                                f->s.r[1], margin, floor, &err) != 0)
            return figures__oom("duel");
    }
    margin = o->margin > 0 ? o->margin : r->folders[0].run.margin;
    /* the pool is judged at the biggest floor of its folders */
    grader_duel_set_finish(&r->set, margin, most);
    if ((r->prov = figures__duel_prov(&r->folders[0].run, o->a, o->b)) == NULL)
        return figures__oom("duel");
    return 0;
}

int figures_duel_write(const struct figures_duel *r, int json)
{
    int rc = 0;

    if (json) {
        json_t *o = render_duel_json(&r->set, r->prov);
        char *s = o ? emit_dumps(o) : NULL; /* as report.json's figures */
        json_decref(o);
        if (s == NULL)
            return figures__oom("duel");
        rc = puts(s) < 0;
        emit_free(s);
    } else {
        rc = render_duel_text(stdout, &r->set, r->prov);
    }
    if (rc != 0 || fflush(stdout) != 0) {
        cli_error("duel", "cannot write to standard output");
        return EXIT_FAILED;
    }
    return 0;
}

void figures_duel_release(struct figures_duel *r)
{
    size_t i;

    grader_duel_set_release(&r->set);
    for (i = 0; i < r->nfolders; i++) {
        rungset_release(&r->folders[i].s);
        if (r->folders[i].open)
            rundir_run_close(&r->folders[i].run);
    }
    free(r->folders);
    json_decref(r->prov);
    memset(r, 0, sizeof(*r));
}
