/*
 * cmd_report.c - the reports people read: report (one run folder),
 * compare (one ladder on several GPUs or machines) and think (thinking
 * off against on).
 *
 * Each command reads rows, hands them to the grader (ladder.h,
 * compare.h, think.h) and gives the figures to the renderers (report/).
 * Nothing here counts or divides. Every output is rendered in memory
 * first, so bad input leaves nothing behind; files are written whole
 * (outfile.c), and if one of a set cannot be written the others written
 * so far are removed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../grader/grader.h"
#include "../report/doc.h"
#include "../report/render.h"
#include "../rundir/run.h"
#include "cli.h"
#include "commands.h"
#include "cmd_grade.h"
#include "pages.h"
#include "../rundir/meta.h"
#include "../rundir/outfile.h"
#include "../rundir/rundir.h"

/* An output being rendered: a memory stream. */
struct out {
    char *p;
    size_t len;
    FILE *f;
    const char *name; /* file name under --out */
};

static int out_open(struct out *o, const char *name)
{
    o->p = NULL;
    o->len = 0;
    o->name = name;
    o->f = open_memstream(&o->p, &o->len);
    return o->f ? 0 : -1;
}

/* Close the stream; -1 when rendering ran out of memory. */
static int out_close(struct out *o, int rendered)
{
    int bad = o->f == NULL || ferror(o->f) || rendered != 0;

    if (o->f != NULL && fclose(o->f) != 0)
        bad = 1;
    o->f = NULL;
    return bad ? -1 : 0;
}

/* The doc d as Markdown into o, closed: 0, or -1 (d NULL: out of
 * memory, as the renderers say it). */
static int md_close(struct out *o, const struct doc *d)
{
    if (d != NULL && o->f != NULL)
        doc_md(o->f, d);
    return out_close(o, d == NULL ? -1 : 0);
}

static void out_free(struct out *o)
{
    if (o->f != NULL)
        fclose(o->f);
    free(o->p);
    memset(o, 0, sizeof(*o));
}

/* Write outs[0..n) into dir, all or none. */
static int write_all(const char *cmd, const char *dir, struct out *outs,
                     size_t n)
{
    char path[4200], msg[4600];
    size_t i, j;

    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        cli_error(cmd, "%s: cannot create the folder: %s", dir,
                  strerror(errno));
        return EXIT_FAILED;
    }
    for (i = 0; i < n; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, outs[i].name);
        if (outfile_write(path, outs[i].p, outs[i].len, msg, sizeof(msg)) !=
            0) {
            cli_error(cmd, "%s", msg);
            for (j = 0; j < i; j++) {
                snprintf(path, sizeof(path), "%s/%s", dir, outs[j].name);
                unlink(path);
            }
            return EXIT_FAILED;
        }
    }
    for (i = 0; i < n; i++)
        printf("wrote %s/%s\n", dir, outs[i].name);
    return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
}

static int oom(const char *cmd)
{
    cli_error(cmd, "out of memory");
    return EXIT_FAILED;
}

/* Open a run folder, reporting a bad one. */
static int open_run(const char *cmd, struct rundir_run *r, const char *dir,
                    const char *rungs, const char *side, const char *label)
{
    char msg[4600];

    if (rundir_run_open(r, dir, rungs, side, label, msg, sizeof(msg)) != 0) {
        cli_error(cmd, "%s", msg);
        rundir_run_close(r);
        return EXIT_USAGE;
    }
    if (r->nchain == 0) {
        cli_error(cmd, "%s: no rungs to report", dir);
        rundir_run_close(r);
        return EXIT_USAGE;
    }
    return 0;
}

static int is_dir(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ---- report ---------------------------------------------------------- */

static const char report_help[] =
    "usage: graveyard report RUNDIR [--out DIR] [--rungs REF,RUNG,...]\n"
    "                        [--side RUNG,...] [--repeat DIR] [--partial]\n"
    "                        [--no-html] [--rule NAME]\n"
    "\n"
    "The report of one run folder, computed from its rows: REPORT.md (the\n"
    "run's settings, the ladder table with accuracy and its Wilson 95 %\n"
    "interval, dead, ghosts, the paired 95 % interval of each rung's change\n"
    "against the reference, McNemar p, speed and GPU memory; first deaths,\n"
    "the autopsy, side rungs, repeat checks, every tombstone's epitaph),\n"
    "cover.svg (one row per rung, one cell per question: marigold right,\n"
    "grey wrong), pareto.svg (right against file size and decode speed,\n"
    "each rung a point with its interval, the Pareto front, and which file\n"
    "to run), report.json (the same figures, for scripts) and REPORT.html:\n"
    "one self-contained page to open every answer behind a cell (hover a\n"
    "cell, click it for the question, the reply and its answer at every\n"
    "rung; filter by tombstones, ghosts, deaths at a rung, cut off, looped\n"
    "or errors; arrows and Enter work). docs/page.md describes it.\n"
    "\n"
    "  --out DIR     where the files go (default RUNDIR)\n"
    "  --rungs LIST  the chain, reference first, in ladder order (default:\n"
    "                RUNDIR/ladder.json, else the rungs graveyard bury\n"
    "                recorded in RUNDIR/graveyard.json)\n"
    "  --side LIST   rungs beside the chain, such as a QAT file (default:\n"
    "                ladder.json's side_rungs, else graveyard-side.json's)\n"
    "  --repeat DIR  a second run of some rungs, compared question by\n"
    "                question (default RUNDIR/repeat when it exists)\n"
    "  --partial     report a ladder still running: a rung short of some of\n"
    "                the reference's questions is counted on those it has,\n"
    "                and its missing cells are white on the cover\n"
    "  --no-html     leave REPORT.html out (it holds every reply: about the\n"
    "                size of the rows, and the rows are read twice as "
    "slowly)\n"
    "  --rule NAME   grade by this rule of the folder's task (docs/tasks.md;\n"
    "                default: its first); a task with several rules also\n"
    "                gets every rule side by side (\"By rule\")\n"
    "\n"
    "example: graveyard report runs/t4\n"
    "Exit status: 0 ok, 1 a file could not be written, 2 bad input (nothing\n"
    "is written).\n";

/* Read the repeat runs: every rung of names that dir also has, twice. */
static int load_repeats(struct rungset *s, const char *rundir, const char *dir,
                        char *const *names, size_t n,
                        const struct grader_rung **a,
                        const struct grader_rung **b, size_t *nrep)
{
    char path[4200];
    size_t i;
    int rc;

    for (i = 0; i < n; i++) {
        if (rundir_path(path, sizeof(path), dir, RD_ROWS, names[i]) != 0 ||
            access(path, F_OK) != 0)
            continue;
        if ((rc = rungset_load("report", s, rundir, (const char **)&names[i],
                               1, GRADER_READ_TEXT)) != 0 ||
            (rc = rungset_load("report", s, dir, (const char **)&names[i], 1,
                               GRADER_READ_TEXT)) != 0)
            return rc;
        a[*nrep] = s->r[s->n - 2];
        b[(*nrep)++] = s->r[s->n - 1];
    }
    return 0;
}

/* report's files rendered in memory: REPORT.md, report.json, cover.svg,
 * pareto.svg and (html) REPORT.html, which shows the first and the
 * fourth. 0, or -1 out of memory. */
static int report_outputs(const struct rundir_run *run,
                          const struct grader_ladder *rep,
                          const struct rungset *s, struct out *outs, int html)
{
    struct page_doc doc;
    struct doc *d;
    uint8_t *marks;
    char title[400];
    int rc = -1;

    snprintf(title, sizeof(title), "graveyard: %s",
             run->name ? run->name : run->dir);
    if ((marks = malloc(run->nchain * rep->nq + 1)) == NULL)
        return -1;
    d = render_report_doc(run, rep, s->qs);
    grader_grid_marks(rep->cells, run->nchain, rep->nq, marks);
    if (out_open(&outs[0], "REPORT.md") != 0 ||
        out_open(&outs[1], "report.json") != 0 ||
        out_open(&outs[2], "cover.svg") != 0 ||
        out_open(&outs[3], "pareto.svg") != 0 || md_close(&outs[0], d) ||
        out_close(&outs[1], render_report_json(outs[1].f, run, rep, s->qs)) ||
        (render_cover(outs[2].f, title, (const char *const *)run->chain,
                      run->nchain, 1, rep->nq, rep->cells, marks),
         out_close(&outs[2], 0)) ||
        (render_pareto(outs[3].f, title, rep), out_close(&outs[3], 0)))
        goto done;
    doc = (struct page_doc){d, outs[3].p, outs[3].len};
    if (html &&
        (out_open(&outs[4], "REPORT.html") != 0 ||
         out_close(&outs[4], pages_report(outs[4].f, run, rep, s->qs, s->r,
                                          s->r + run->nchain, &doc)) != 0))
        goto done;
    rc = 0;
done:
    doc_free(d);
    free(marks);
    return rc;
}

/*
 * The report's rule, and a task's other rules side by side: the chain and
 * side rungs read again, by each other rule, into s (the same question
 * set), and each rule's counts put beside the first's. 0, or the exit
 * status after one line on stderr.
 */
static int other_rules(struct rungset *s, const struct rundir_run *run,
                       struct grader_ladder *rep)
{
    const struct grader_rung *const *sets[GRADER_TASK_MAX_RULES];
    const char *names[GRADER_TASK_MAX_RULES], *keep = s->rule;
    const struct grader_task *task = rungset_task("report", s, run->dir);
    size_t k, n = 1, base;
    struct grader_error err;
    int rc = 0;

    if (task == NULL)
        return EXIT_USAGE;
    snprintf(rep->rule, sizeof(rep->rule), "%s",
             s->rule ? s->rule : grader_task_rule_name(task, 0));
    if (grader_task_nrules(task) < 2)
        return 0;
    sets[0] = s->r;
    names[0] = grader_task_rule_name(
        task, (size_t)grader_task_rule_index(task, rep->rule));
    for (k = 0; k < grader_task_nrules(task) && rc == 0; k++) {
        const char *name = grader_task_rule_name(task, k);
        if (strcmp(name, names[0]) == 0)
            continue;
        s->rule = name;
        base = s->n;
        if ((rc = rungset_load("report", s, run->dir,
                               (const char **)run->chain, run->nchain, 0)) ||
            (rc = rungset_load("report", s, run->dir, (const char **)run->side,
                               run->nside, 0)))
            break;
        sets[n] = s->r + base;
        names[n++] = name;
    }
    s->rule = keep;
    if (rc == 0 && grader_ladder_rules(rep, names, sets, n,
                                       run->nchain + run->nside, &err) != 0) {
        grade_report("report", &err);
        rc = EXIT_USAGE;
    }
    return rc;
}

int cmd_report(int argc, char **argv)
{
    const char *pos[2], *out_dir = NULL, *rungs = NULL, *side = NULL,
                        *repeat = NULL;
    int partial = 0, no_html = 0, html;
    struct rungset s = {0};
    const struct cli_flag flags[] = {
        {"--out", &out_dir, NULL, NULL, NULL, 0},
        {"--rungs", &rungs, NULL, NULL, NULL, 0},
        {"--side", &side, NULL, NULL, NULL, 0},
        {"--repeat", &repeat, NULL, NULL, NULL, 0},
        {"--partial", NULL, &partial, NULL, NULL, 0},
        {"--no-html", NULL, &no_html, NULL, NULL, 0},
        {"--rule", &s.rule, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, 0}};
    const struct grader_rung *ra[GRADER_MAX_RUNGS * 2],
        *rb[GRADER_MAX_RUNGS * 2];
    struct out outs[5] = {{0}, {0}, {0}, {0}, {0}};
    struct rundir_run run;
    struct grader_ladder rep;
    struct grader_error err;
    struct grader_meta *rmetas = NULL;
    char repeat_dir[4200], msg[1024];
    size_t npos, nrep = 0, i;
    int help, rc;

    rc = cli_parse("report", argc, argv, flags, pos, 2, &npos, &help);
    if (rc != 0)
        return rc;
    if (help) {
        fputs(report_help, stdout);
        return EXIT_OK;
    }
    if (npos != 1) {
        cli_error("report", "needs one RUNDIR (see --help)");
        return EXIT_USAGE;
    }
    if ((rc = open_run("report", &run, pos[0], rungs, side, NULL)) != 0)
        return rc;
    html = !no_html;
    if ((rc = check_names("report", (const char **)run.chain, run.nchain)) ||
        (rc = check_names("report", (const char **)run.side, run.nside)) ||
        (rc = rungset_load("report", &s, run.dir, (const char **)run.chain,
                           run.nchain, html ? GRADER_READ_KEEP : 0)) ||
        (rc = rungset_load("report", &s, run.dir, (const char **)run.side,
                           run.nside, html ? GRADER_READ_KEEP : 0)))
        goto done;
    if (repeat == NULL) {
        rundir_path(repeat_dir, sizeof(repeat_dir), run.dir, RD_REPEAT_DIR,
                    NULL);
        repeat = is_dir(repeat_dir) ? repeat_dir : NULL;
    } else if (!is_dir(repeat)) {
        cli_error("report", "%s: no such folder (--repeat)", repeat);
        rc = EXIT_USAGE;
        goto done;
    }
    if (repeat != NULL &&
        ((rc = load_repeats(&s, run.dir, repeat, run.chain, run.nchain, ra, rb,
                            &nrep)) != 0 ||
         (rc = load_repeats(&s, run.dir, repeat, run.side, run.nside, ra, rb,
                            &nrep)) != 0))
        goto done;
    /* what the folder says of each rung, chain then side rungs */
    rmetas = xrealloc(NULL, (run.nchain + run.nside) * sizeof(*rmetas));
    for (i = 0; i < run.nchain + run.nside; i++)
        if (rundir_meta_read(run.dir, s.r[i]->name, &rmetas[i], msg,
                             sizeof(msg)) != 0) {
            cli_error("report", "%s", msg);
            rc = EXIT_USAGE;
            goto done;
        }
    if (grader_ladder_build(s.qs, rmetas, s.r, run.nchain, s.r + run.nchain,
                            run.nside, ra, rb, nrep,
                            partial ? GRADER_PARTIAL : 0, &rep, &err) != 0) {
        grade_report("report", &err);
        rc = EXIT_USAGE;
        goto done;
    }
    if ((rc = other_rules(&s, &run, &rep)) != 0) {
        grader_ladder_release(&rep);
        goto done;
    }
    rc = report_outputs(&run, &rep, &s, outs, html);
    if (rc == 0)
        rc = write_all("report", out_dir ? out_dir : run.dir, outs,
                       html ? 5 : 4);
    else
        rc = oom("report");
    grader_ladder_release(&rep);
done:
    free(rmetas);
    for (i = 0; i < 5; i++)
        out_free(&outs[i]);
    rungset_release(&s);
    rundir_run_close(&run);
    return rc;
}

/* names[0..n) as "A,B,C" (run.h's --rungs form) into out: names are at
 * most 64 bytes and n at most GRADER_MAX_RUNGS (run.c checks both). */
static void join_names(char *const *names, size_t n, char *out, size_t size)
{
    size_t i, len = 0;

    out[0] = '\0';
    for (i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(out + len, size - len, "%s%s", i ? "," : "",
                                names[i]);
}

/* ---- compare --------------------------------------------------------- */

static const char compare_help[] =
    "usage: graveyard compare RUNDIR RUNDIR... [--rungs REF,RUNG,...]\n"
    "                         [--labels A,B,...] [--out DIR] [--no-html]\n"
    "                         [--rule NAME]\n"
    "\n"
    "The same ladder run on several GPUs or machines, question by question.\n"
    "Each run is buried against its own reference. Per rung: right and\n"
    "lost on each run, questions graded differently by the closest and the\n"
    "furthest pair of runs (every pair in compare.json), lost on all, right\n"
    "on all and wrong on all; questions that die at some rung on every run\n"
    "and how many die first at the same rung everywhere; questions that die\n"
    "on one run only. It first checks that the runs used the same files\n"
    "(sha256 in each ladder.tsv) and warns loudly when they did not.\n"
    "\n"
    "Prints one JSON line per rung and a summary line.\n"
    "  --rungs LIST   the rungs, reference first (default: the first run's\n"
    "                 ladder.json, else its graveyard.json)\n"
    "  --labels LIST  a name per run for the tables (default: each run's\n"
    "                 GPU when they differ, else the folder names)\n"
    "  --out DIR      also write COMPARE.md, compare.json, compare.svg\n"
    "                 (marigold right on every run, grey wrong on every\n"
    "                 run, violet where the runs disagree) and\n"
    "                 COMPARE.html, the overlay as a page whose cells open\n"
    "                 every run's answers (docs/page.md)\n"
    "  --no-html      leave COMPARE.html out\n"
    "\n"
    "example: graveyard compare runs/t4 runs/l4 --labels T4,L4 --out cmp\n"
    "Exit status: 0 ok, 1 a file could not be written, 2 bad input.\n";

/* The label of run k: from --labels, else the folder's name, else (two
 * folders of one name) its path. */
static int labels(const char *list, const char **dirs, size_t n, char **out)
{
    size_t k, j;

    for (k = 0; k < n; k++)
        out[k] = NULL;
    if (list != NULL) {
        const char *p = list;
        for (k = 0; k < n; k++) {
            size_t len = strcspn(p, ",");
            if (len == 0 || len >= 100)
                return -1;
            out[k] = strndup(p, len);
            p += len;
            if (*p == ',')
                p++;
            else if (k + 1 < n)
                return -1;
        }
        return *p == '\0' ? 0 : -1;
    }
    for (k = 0; k < n; k++) {
        const char *b = strrchr(dirs[k], '/');
        int clash = 0;
        b = b && b[1] ? b + 1 : dirs[k];
        for (j = 0; j < n; j++) {
            const char *c = strrchr(dirs[j], '/');
            c = c && c[1] ? c + 1 : dirs[j];
            clash |= j != k && strcmp(b, c) == 0;
        }
        out[k] = xstrdup(clash ? dirs[k] : b);
    }
    return 0;
}

/* The study holds the build fixed too: say so loudly when it was not. */
static void builds_check(const char *cmd, const struct rundir_run *runs,
                         size_t nruns, char *note, size_t size)
{
    const char *a = rundir_run_server(&runs[0]), *b;
    size_t k, len;

    for (k = 1; k < nruns && a != NULL; k++) {
        b = rundir_run_server(&runs[k]);
        if (b == NULL || strcmp(a, b) == 0)
            continue;
        fprintf(stderr,
                "graveyard %s: WARNING: %s and %s were run with different "
                "server builds ('%s' against '%s'): differences may come "
                "from the build\n",
                cmd, runs[0].dir, runs[k].dir, a, b);
        len = strlen(note);
        snprintf(note + len, size - len,
                 " The runs did NOT use the same server build: differences "
                 "may come from the build.");
        return;
    }
}

/* Without --labels: the runs' GPUs (nvidia-smi's names from the
 * reference's .done) when each run has one and no two share it, as the
 * study's tables are headed "T4 | L4"; otherwise the folder names stay. */
static void gpu_labels(struct rundir_run *runs, size_t nruns,
                       const struct grader_meta *metas, size_t nrungs)
{
    size_t k, j;

    for (k = 0; k < nruns; k++) {
        const char *g = metas[k * nrungs].gpu_name;
        if (g[0] == '\0')
            return;
        for (j = 0; j < k; j++)
            if (strcmp(g, metas[j * nrungs].gpu_name) == 0)
                return;
    }
    for (k = 0; k < nruns; k++)
        snprintf(runs[k].label, sizeof(runs[k].label), "%s",
                 metas[k * nrungs].gpu_name);
}

/* The ladder.tsv check: one sentence, and loud lines on stderr. */
static int files_check(const char *cmd, const struct grader_meta *m,
                       size_t nruns, size_t nrungs,
                       const struct rundir_run *runs, char *const *names,
                       char *note, size_t size)
{
    size_t i, k, unknown = 0, differ = 0;

    for (i = 0; i < nrungs; i++)
        for (k = 0; k < nruns; k++) {
            const struct grader_meta *a = &m[i], *b = &m[k * nrungs + i];
            if (b->sha256[0] == '\0') {
                unknown++;
                continue;
            }
            if (k > 0 && a->sha256[0] != '\0' &&
                strcmp(a->sha256, b->sha256) != 0) {
                differ++;
                fprintf(stderr,
                        "graveyard %s: WARNING: rung %s is not the same file "
                        "in %s and %s (sha256 %.12s... against %.12s...): "
                        "differences in its answers may come from the "
                        "file\n",
                        cmd, names[i], runs[0].dir, runs[k].dir, a->sha256,
                        b->sha256);
            }
        }
    if (differ > 0) {
        snprintf(note, size,
                 "The runs did NOT use the same files: %zu rung file(s) "
                 "differ in sha256 from the first run's (ladder.tsv). "
                 "Differences at those rungs may come from the files, not "
                 "the GPUs.",
                 differ);
        return 0;
    }
    if (unknown > 0) {
        fprintf(stderr,
                "graveyard %s: WARNING: %zu rung file(s) have no "
                "sha256 in their folder's ladder.tsv: cannot check that the "
                "runs used the same files\n",
                cmd, unknown);
        snprintf(note, size,
                 "Could not check that the runs used the same files: %zu "
                 "rung file(s) have no sha256 in ladder.tsv.",
                 unknown);
        return 0;
    }
    snprintf(note, size,
             "The runs used the same files: every rung's sha256 matches "
             "across the %zu runs' ladder.tsv.",
             nruns);
    return 1;
}

/* compare: open each run folder (every run takes the first run's
 * rungs), read their rows into one question set and their metadata. 0 or
 * the exit status; what was opened is the caller's to close. */
static int compare_open(const char **pos, size_t npos, const char *rungs,
                        char **label, struct rundir_run *runs, size_t *nruns,
                        struct rungset *s, struct grader_meta **metas,
                        unsigned flags)
{
    char note[800];
    size_t k, i, nrungs;
    int rc;

    for (k = 0; k < npos; k++) {
        char list[GRADER_MAX_RUNGS * 66] = "";
        if (k > 0)
            join_names(runs[0].chain, runs[0].nchain, list, sizeof(list));
        if ((rc = open_run("compare", &runs[k], pos[k], k ? list : rungs, "",
                           label[k])) != 0)
            return rc;
        (*nruns)++;
    }
    nrungs = runs[0].nchain;
    if ((rc = check_names("compare", (const char **)runs[0].chain, nrungs)))
        return rc;
    for (k = 0; k < *nruns; k++)
        if ((rc = rungset_load("compare", s, runs[k].dir,
                               (const char **)runs[k].chain, nrungs, flags)))
            return rc;
    *metas = calloc(*nruns * nrungs, sizeof(**metas));
    if (*metas == NULL)
        return oom("compare");
    for (k = 0; k < *nruns; k++)
        for (i = 0; i < nrungs; i++)
            if (rundir_meta_read(runs[k].dir, runs[0].chain[i],
                                 &(*metas)[k * nrungs + i], note,
                                 sizeof(note)) != 0) {
                cli_error("compare", "%s", note);
                return EXIT_USAGE;
            }
    return 0;
}

/* compare_files' work, from the comparison's doc (NULL: out of memory). */
static int compare_pieces(const struct render_compare *rc_,
                          const struct grader_compare *c,
                          const struct rungset *s, struct out *outs,
                          uint8_t **marks, const struct doc *d, int html)
{
    struct page_doc doc = {d, NULL, 0};

    if (out_open(&outs[0], "COMPARE.md") != 0 ||
        out_open(&outs[1], "compare.json") != 0 ||
        out_open(&outs[2], "compare.svg") != 0 || md_close(&outs[0], d) ||
        out_close(&outs[1], render_compare_json(outs[1].f, rc_)))
        return -1;
    *marks = xrealloc(NULL, c->nrungs * c->nq + 1);
    grader_grid_marks(c->cells, c->nrungs, c->nq, *marks);
    render_cover(outs[2].f, "graveyard compare: the runs overlaid", rc_->names,
                 c->nrungs, c->nruns, c->nq, c->cells, *marks);
    if (out_close(&outs[2], 0) != 0)
        return -1;
    if (html &&
        (out_open(&outs[3], "COMPARE.html") != 0 ||
         out_close(&outs[3], pages_compare(outs[3].f, rc_, s->r, &doc)) != 0))
        return -1;
    return 0;
}

/* compare --out: COMPARE.md, compare.json and compare.svg rendered in
 * memory (written by the caller once all three are whole). 0, or -1 out
 * of memory. */
static int compare_files(const struct render_compare *rc_,
                         const struct grader_compare *c,
                         const struct rungset *s, struct out *outs,
                         uint8_t **marks, int html)
{
    struct doc *d = render_compare_doc(rc_);
    int rc = compare_pieces(rc_, c, s, outs, marks, d, html);

    doc_free(d);
    return rc;
}

/* compare's lines on stdout, and with --out its three files, each
 * rendered whole before anything is written. The exit status. */
static int compare_write(const struct render_compare *rc_,
                         const struct grader_compare *c,
                         const struct rungset *s, const char *out_dir,
                         int html)
{
    struct out outs[4] = {{0}, {0}, {0}, {0}}, lines = {0};
    uint8_t *marks = NULL;
    int rc;

    if (out_open(&lines, "-") != 0 ||
        out_close(&lines, render_compare_lines(lines.f, rc_)) != 0 ||
        (out_dir != NULL && compare_files(rc_, c, s, outs, &marks, html) != 0))
        rc = oom("compare");
    else if ((rc = write_stdout("compare", lines.p, lines.len)) == EXIT_OK)
        rc = out_dir ? write_all("compare", out_dir, outs, html ? 4 : 3)
                     : EXIT_OK;
    free(marks);
    for (size_t i = 0; i < 4; i++)
        out_free(&outs[i]);
    out_free(&lines);
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    const char *pos[GRADER_MAX_RUNS + 1], *rungs = NULL, *label_list = NULL,
                                          *out_dir = NULL;
    int no_html = 0;
    struct rungset s = {0};
    const struct cli_flag flags[] = {
        {"--rungs", &rungs, NULL, NULL, NULL, 0},
        {"--labels", &label_list, NULL, NULL, NULL, 0},
        {"--out", &out_dir, NULL, NULL, NULL, 0},
        {"--no-html", NULL, &no_html, NULL, NULL, 0},
        {"--rule", &s.rule, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, 0}};
    struct rundir_run runs[GRADER_MAX_RUNS];
    char *label[GRADER_MAX_RUNS], note[800];
    struct grader_meta *metas = NULL;
    struct grader_compare c;
    struct grader_error err;
    struct render_compare rc_;
    size_t npos, nruns = 0, k, nrungs;
    int help, rc, have_c = 0;

    rc = cli_parse("compare", argc, argv, flags, pos, GRADER_MAX_RUNS + 1,
                   &npos, &help);
    if (rc != 0)
        return rc;
    if (help) {
        fputs(compare_help, stdout);
        return EXIT_OK;
    }
    if (npos < 2 || npos > GRADER_MAX_RUNS) {
        cli_error("compare", "needs 2 to %d run folders (see --help)",
                  GRADER_MAX_RUNS);
        return EXIT_USAGE;
    }
    if (labels(label_list, pos, npos, label) != 0) {
        cli_error("compare", "--labels needs one name per run folder, "
                             "comma-separated");
        rc = EXIT_USAGE;
        goto done;
    }
    if ((rc = compare_open(pos, npos, rungs, label, runs, &nruns, &s, &metas,
                           out_dir && !no_html ? GRADER_READ_KEEP : 0)) != 0)
        goto done;
    nrungs = runs[0].nchain;
    if (grader_compare(s.qs, s.r, nruns, nrungs, 0, &c, &err) != 0) {
        grade_report("compare", &err);
        rc = EXIT_USAGE;
        goto done;
    }
    have_c = 1;
    rc_.runs = runs;
    rc_.names = (const char *const *)runs[0].chain;
    if (label_list == NULL)
        gpu_labels(runs, nruns, metas, nrungs);
    rc_.c = &c;
    rc_.metas = metas;
    rc_.qs = s.qs;
    rc_.files_same = files_check("compare", metas, nruns, nrungs, runs,
                                 runs[0].chain, note, sizeof(note));
    builds_check("compare", runs, nruns, note, sizeof(note));
    rc_.files_note = note;
    rc = compare_write(&rc_, &c, &s, out_dir, !no_html);
done:
    if (have_c)
        grader_compare_release(&c);
    free(metas);
    rungset_release(&s);
    for (k = 0; k < npos; k++)
        free(label[k]);
    for (k = 0; k < nruns; k++)
        rundir_run_close(&runs[k]);
    return rc;
}

/* ---- think ----------------------------------------------------------- */

static const char think_help[] =
    "usage: graveyard think OFF_DIR ON_DIR [--rungs REF,RUNG,...] [--out "
    "DIR]\n"
    "                       [--no-html] [--rule NAME]\n"
    "\n"
    "The same rungs with thinking off (OFF_DIR) and on (ON_DIR), question\n"
    "by question; each pass is buried against its own reference. Per rung:\n"
    "right off and on, right in both, dead off and on, dead in both, the\n"
    "deaths cut off at the token cap with thinking off and how many of them\n"
    "are right with thinking on; tokens and decode speed on over off.\n"
    "\n"
    "Prints one JSON line per rung.\n"
    "  --rungs LIST  the rungs, reference first (default: ON_DIR's chain,\n"
    "                from its ladder.json or graveyard.json)\n"
    "  --out DIR     also write THINK.md, think.json and THINK.html (the\n"
    "                two passes overlaid, violet where they disagree; a\n"
    "                cell opens both passes' answers: docs/page.md)\n"
    "  --no-html     leave THINK.html out\n"
    "\n"
    "example: graveyard think runs/t4 runs/t4-think --out runs/t4-think\n"
    "Exit status: 0 ok, 1 a file could not be written, 2 bad input.\n";

/* The passes must be what they are called: the manifests say how the
 * rows were made (-1 when a folder has none). 0 or EXIT_USAGE. */
static int think_order(const struct rundir_run *off,
                       const struct rundir_run *on)
{
    const struct rundir_run *bad;

    if (rundir_run_thinking(on) != 0 && rundir_run_thinking(off) != 1)
        return 0;
    bad = rundir_run_thinking(on) == 0 ? on : off;
    cli_error("think",
              "%s/manifest.json: its rows were made with thinking %s "
              "(request.enable_thinking), but it is given as the "
              "thinking-%s pass; the order is OFF_DIR ON_DIR",
              bad->dir, bad == on ? "off" : "on", bad == on ? "on" : "off");
    return EXIT_USAGE;
}

/* think's lines on stdout, and with --out THINK.md and think.json, each
 * rendered whole before anything is written. The exit status. */
static int think_write(const struct render_think *t, const struct rungset *s,
                       const char *out_dir, int html)
{
    struct out outs[3] = {{0}, {0}, {0}}, lines = {0};
    struct page_doc doc = {NULL, NULL, 0};
    int rc;

    if (out_open(&lines, "-") != 0 ||
        out_close(&lines, render_think_lines(lines.f, t)) != 0 ||
        (out_dir != NULL &&
         (out_open(&outs[0], "THINK.md") != 0 ||
          out_open(&outs[1], "think.json") != 0 ||
          (doc.doc = render_think_doc(t), md_close(&outs[0], doc.doc)) != 0 ||
          out_close(&outs[1], render_think_json(outs[1].f, t)) != 0 ||
          (html &&
           (out_open(&outs[2], "THINK.html") != 0 ||
            out_close(&outs[2], pages_think(outs[2].f, t, s->qs, s->r,
                                            s->r + t->n, &doc)) != 0)))))
        rc = oom("think");
    else if ((rc = write_stdout("think", lines.p, lines.len)) == EXIT_OK)
        rc = out_dir ? write_all("think", out_dir, outs, html ? 3 : 2)
                     : EXIT_OK;
    for (size_t i = 0; i < 3; i++)
        out_free(&outs[i]);
    out_free(&lines);
    doc_free((struct doc *)doc.doc);
    return rc;
}

int cmd_think(int argc, char **argv)
{
    const char *pos[2], *rungs = NULL, *out_dir = NULL;
    int no_html = 0;
    struct rungset s = {0};
    const struct cli_flag flags[] = {
        {"--rungs", &rungs, NULL, NULL, NULL, 0},
        {"--out", &out_dir, NULL, NULL, NULL, 0},
        {"--no-html", NULL, &no_html, NULL, NULL, 0},
        {"--rule", &s.rule, NULL, NULL, NULL, 0},
        {NULL, NULL, NULL, NULL, NULL, 0}};
    struct rundir_run off = {0}, on = {0};
    struct grader_think_line *tl = NULL;
    struct grader_meta *metas = NULL;
    struct rundir_run both[2]; /* shallow copies of off and on */
    char note[800];
    struct grader_error err;
    struct render_think t;
    char list[GRADER_MAX_RUNGS * 66];
    size_t npos, i, n;
    int help, rc;

    rc = cli_parse("think", argc, argv, flags, pos, 2, &npos, &help);
    if (rc != 0)
        return rc;
    if (help) {
        fputs(think_help, stdout);
        return EXIT_OK;
    }
    if (npos != 2) {
        cli_error("think", "needs OFF_DIR and ON_DIR (see --help)");
        return EXIT_USAGE;
    }
    if ((rc = open_run("think", &on, pos[1], rungs, "", NULL)) != 0)
        return rc;
    join_names(on.chain, on.nchain, list, sizeof(list));
    if ((rc = open_run("think", &off, pos[0], list, "", NULL)) != 0) {
        rundir_run_close(&on);
        return rc;
    }
    if ((rc = think_order(&off, &on)) != 0)
        goto done;
    n = on.nchain;
    if ((rc = check_names("think", (const char **)on.chain, n)) ||
        (rc = rungset_load("think", &s, off.dir, (const char **)on.chain, n,
                           out_dir && !no_html ? GRADER_READ_KEEP : 0)) ||
        (rc = rungset_load("think", &s, on.dir, (const char **)on.chain, n,
                           out_dir && !no_html ? GRADER_READ_KEEP : 0)))
        goto done;
    if ((tl = calloc(n, sizeof(*tl))) == NULL) {
        rc = oom("think");
        goto done;
    }
    if (grader_think(s.qs, s.r, s.r + n, n, tl, &err) != 0) {
        grade_report("think", &err);
        rc = EXIT_USAGE;
        goto done;
    }
    /* the two passes must differ in thinking only: same files, same build */
    if ((metas = calloc(2 * n, sizeof(*metas))) == NULL) {
        rc = oom("think");
        goto done;
    }
    for (i = 0; i < 2 * n; i++)
        if (rundir_meta_read(i < n ? off.dir : on.dir, on.chain[i % n],
                             &metas[i], note, sizeof(note)) != 0) {
            cli_error("think", "%s", note);
            rc = EXIT_USAGE;
            goto done;
        }
    both[0] = off;
    both[1] = on;
    t.files_same =
        files_check("think", metas, 2, n, both, on.chain, note, sizeof(note));
    builds_check("think", both, 2, note, sizeof(note));
    t.note = note;
    t.off = &off;
    t.on = &on;
    t.lines = tl;
    t.n = n;
    rc = think_write(&t, &s, out_dir, !no_html);
done:
    free(tl);
    free(metas);
    rungset_release(&s);
    rundir_run_close(&off);
    rundir_run_close(&on);
    return rc;
}
