/*
 * cmd_ladder.c - graveyard ladder CONFIG: every rung of a ladder, each on
 * its own pinned llama-server, then the bury.
 *
 * Each rung runs as a child `graveyard run` (the same binary), so a rung is
 * exactly what `graveyard run` does, resumable on its own; the ladder only
 * schedules: an idle GPU takes the next rung (CUDA_VISIBLE_DEVICES through
 * --gpu), a rung locked by another process (another shard, another
 * machine on a shared folder) is left to it, and when every rung is done
 * the ladder buries them. The children die with the ladder (a
 * parent-death signal set between fork and exec: spawn.h), stopping their
 * servers, and the servers die with them; the next ladder resumes. A
 * child's exit is seen as an exit (proc.h), never as the end of its
 * progress pipe, which something it started could hold open.
 *
 * This file has the flags and the night's order (check, build first, run,
 * the end); the jobs and the loop are ladder_plan.c's, the end and the
 * bury ladder_end.c's (ladder_int.h).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../rundir/files.h"
#include "../../rundir/rundir.h"
#include "../forge/build.h"
#include "../base/cli.h"
#include "commands.h"
#include "init.h"
#include "long.h"
#include "../input/config.h"
#include "../base/hash.h"
#include "ladder_int.h"
#include "../run/runner.h"
#include "../server/spawn.h"

#define VERSION_MS 30000

static const char ladder_usage[] =
    "graveyard ladder CONFIG|DIR [--llama PATH] [--gpus 0,1,...]\n"
    "                        [--only RUNG]... [--run-dir DIR]\n"
    "                        [--shard I/N] [--replicate]\n"
    "                        [--repeat-reference] [--per-gpu K] [--quiet]\n"
    "                        [--exec-jobs N] [--unsafe-exec]";

static const char ladder_about[] =
    "Run every rung of the ladder in CONFIG (docs/config.md), each with\n"
    "'graveyard run' on its own llama-server, skipping finished rungs and\n"
    "continuing half-finished ones, then bury the ladder against its\n"
    "reference (RUNDIR/graveyard.json) and the side rungs beside it\n"
    "(RUNDIR/graveyard-side.json). With several GPUs, each idle GPU takes\n"
    "the next rung. Exit 0 only when every rung finished.\n"
    "\n"
    "DIR, a folder of GGUF files instead of a config: 'graveyard init DIR'\n"
    "writes DIRNAME.json here first (docs/init.md), or it is there\n"
    "from before and is run again (the same command resumes).\n";

static const char ladder_after[] =
    "The config is checked whole before anything starts. A model file\n"
    "that is missing but has a recipe (\"convert\" or \"quantize\",\n"
    "docs/build.md) is made first, as 'graveyard build' would; every other\n"
    "model file this process will run must exist. Exit status: 0 every rung\n"
    "finished (and was buried), 1 a rung failed or the night was cut short\n"
    "(run the same command to resume), 2 bad input (fix it first).\n";

/* The flags of graveyard ladder, as given. */
struct ladder_flags {
    const char *llama, *gpus, *run_dir, *shard, *only[CONFIG_MAX_RUNGS];
    size_t nonly;
    long per_gpu; /* 0: the config's */
    int quiet, replicate, repeat_ref;
    long exec_jobs; /* 0: the cores */
    int unsafe_exec;
};

/* argv into f. CLI_GO, or the exit status (0 after --help). */
static int ladder_flags(struct ladder_flags *f, int argc, char **argv,
                        const char **pos)
{
    const struct cli_opt opts[] = {
        CLI_STRING("--llama", "PATH", &f->llama,
                   "the server binary (or llama.cpp folder) for this "
                   "machine, over the config's server.binary"),
        CLI_STRING("--gpus", "LIST", &f->gpus,
                   "GPUs to use, over the config's gpus"),
        CLI_LIST("--only", "RUNG", f->only, &f->nonly, CONFIG_MAX_RUNGS,
                 "run only these rungs (repeat)"),
        CLI_STRING("--run-dir", "DIR", &f->run_dir,
                   "over the config's run_dir"),
        CLI_STRING("--shard", "I/N", &f->shard,
                   "run share I of N (0-based): rung k when k % N == I; "
                   "SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT give it "
                   "under a Slurm job array"),
        CLI_SWITCH("--replicate", &f->replicate,
                   "run the whole ladder once per GPU, each in its own "
                   "folder RUNDIR/gpu<ID>/ (the cross-GPU study on one "
                   "machine), and bury each"),
        CLI_SWITCH("--repeat-reference", &f->repeat_ref,
                   "run the reference a second time, into RUNDIR/repeat/ "
                   "(config: \"repeat_reference\": true): the report's "
                   "noise floor, the answers it changes on its own"),
        CLI_LONG("--per-gpu", "K", &f->per_gpu, 1, CONFIG_MAX_PER_GPU,
                 "up to K rungs at once on one GPU, each on its own "
                 "one-slot server, so every answer is as when alone "
                 "(config: \"rungs_per_gpu\"); beside others, a rung starts "
                 "only when the GPU has the memory it took when it last "
                 "ran, and one that does not fit waits"),
        CLI_SWITCH("--quiet", &f->quiet, "no progress lines"),
        CLI_LONG("--exec-jobs", "N", &f->exec_jobs, 1, 64,
                 "a code task: each rung runs up to N answers' code at once, "
                 "at most the cores (the default; docs/sandbox.md)"),
        CLI_SWITCH("--unsafe-exec", &f->unsafe_exec,
                   "a code task where bubblewrap cannot run: the code runs "
                   "as a plain child with rlimits only, knowingly "
                   "(docs/sandbox.md)"),
        CLI_END};
    const struct cli_command cmd = {
        "ladder", ladder_usage, ladder_about, ladder_after, opts, "CONFIG", 1,
        1};
    size_t npos;

    return cli_parse(&cmd, argc, argv, pos, &npos);
}

/* --shard I/N, or Slurm's array variables. */
static int shard_of(const char *arg, long *i, long *n)
{
    const char *id = getenv("SLURM_ARRAY_TASK_ID");
    const char *count = getenv("SLURM_ARRAY_TASK_COUNT");
    const char *slash;
    char first[32];

    *i = 0;
    *n = 1;
    if (arg != NULL) {
        slash = strchr(arg, '/');
        if (slash == NULL || (size_t)(slash - arg) >= sizeof(first))
            return -1;
        snprintf(first, sizeof(first), "%.*s", (int)(slash - arg), arg);
        id = first;
        count = slash + 1;
    } else if (id == NULL || count == NULL) {
        return 0;
    }
    if (cli_whole(count, 1, LONG_MAX, n) != 0 ||
        cli_whole(id, 0, *n - 1, i) != 0)
        return -1;
    return 0;
}

/* The command as given, quoted for a shell, for "run it again". */
static void command_line(int argc, char **argv, struct buf *b)
{
    buf_puts(b, "graveyard ladder");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        buf_puts(b, " ");
        if (a[0] != '\0' && strspn(a, "abcdefghijklmnopqrstuvwxyz"
                                      "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                      "0123456789_-./=,:@%+") == strlen(a)) {
            buf_puts(b, a);
            continue;
        }
        buf_puts(b, "'");
        for (; *a; a++) {
            if (*a == '\'')
                buf_puts(b, "'\\''");
            else
                buf_append(b, a, 1);
        }
        buf_puts(b, "'");
    }
}

/*
 * Before anything starts: every model file this process will run is a
 * file it can read, and the chain goes biggest first (a warning, since a
 * ladder can hold a file larger than the one above it on purpose).
 * Returns 0, or EXIT_USAGE having said why.
 */
static int check_files(struct ladder *l, const char *cfg)
{
    const struct config *c = &l->c;
    unsigned long long prev = 0;
    const char *prev_name = NULL;
    size_t i, k;
    struct stat st;

    for (i = 0; i < l->njobs; i++) {
        const struct config_rung *r = l->jobs[i].rung;
        if (ladder_state(l, &l->jobs[i]) != SJ_PENDING || r->endpoint != NULL)
            continue; /* a served model has no file of ours */
        if (stat(r->model, &st) != 0 || !S_ISREG(st.st_mode) ||
            access(r->model, R_OK) != 0) {
            cli_error("ladder", "%s: rung %s: cannot read model '%s': %s", cfg,
                      r->name, r->model,
                      errno && !S_ISDIR(st.st_mode) ? strerror(errno)
                                                    : "not a file");
            return EXIT_USAGE;
        }
    }
    for (k = 0; k < c->nrungs; k++) {
        const struct config_rung *r = &c->rungs[k];
        if (r->side || r->endpoint != NULL || stat(r->model, &st) != 0)
            continue;
        /* 1 % over: BF16 and F16, or a QAT file and its plain rung, are
         * the same size give or take a header */
        if (prev_name != NULL &&
            (unsigned long long)st.st_size > prev + prev / 100)
            ladder_note(
                l,
                "warning: rung %s (%llu bytes) is bigger than %s above it "
                "(%llu bytes); rungs go biggest first: is the order in %s "
                "right?",
                r->name, (unsigned long long)st.st_size, prev_name, prev, cfg);
        prev = (unsigned long long)st.st_size;
        prev_name = r->name;
    }
    return 0;
}

/*
 * Before any rung starts: what each rung's run and the ladder's end will
 * write or read in the folders (runner_check_ahead; graveyard.json,
 * ladder.json, graveyard-side.json, beside.jsonl) is absent or a regular
 * file, so that a link planted there is refused now, not after every
 * rung before it has run. Returns 0, or the exit status having said why.
 */
static int check_ahead(struct ladder *l)
{
    static const enum rundir_file end[] = {RD_GRAVEYARD, RD_LADDER_JSON,
                                           RD_GRAVEYARD_SIDE, RD_BESIDE};
    char msg[1024];
    size_t i;
    int rc = 0;

    if (rundir_check_ahead(l->c.run_dir, NULL, end, sizeof(end) / sizeof(*end),
                           msg, sizeof(msg)) != 0)
        rc = files_exit_code(errno);
    for (i = 0; i < l->njobs && rc == 0; i++) {
        const struct job *j = &l->jobs[i];
        if (ladder_state(l, j) != SJ_PENDING || j->canary)
            continue; /* a canary checks its own folder when it runs */
        if ((rc = runner_check_ahead(j->run_dir, j->rung->name, msg,
                                     sizeof(msg))) == 0 &&
            !j->again &&
            rundir_check_ahead(j->run_dir, NULL, end,
                               sizeof(end) / sizeof(*end), msg,
                               sizeof(msg)) != 0)
            rc = files_exit_code(errno);
    }
    if (rc != 0)
        cli_error("ladder", "%s", msg);
    return rc;
}

/*
 * With logprobs on, or "lengths", before any server starts: every rung's
 * vocabulary (the files there now: another shard's rung may not be built
 * yet) is the reference's, so that a KLD is never taken between the
 * tokens of two tokenizers, and 16K counted in one rung's tokens is 16K
 * in every rung's. A file that is not a GGUF at all passes with a note.
 * Returns 0, or EXIT_USAGE (a GGUF without one, or two vocabularies: one
 * line naming both rungs and both files) or EXIT_FAILED (a read failed),
 * having said why.
 */
static int check_vocab(struct ladder *l, const char *cfg)
{
    const struct config *c = &l->c;
    const struct config_rung *ref = NULL, *base = NULL;
    char base_hex[65] = "", hex[65], msg[2400];
    struct vocab v, base_v;
    size_t k, n = 0;
    struct stat st;
    int rc;

    if (c->logprobs <= 0 && c->nlengths == 0)
        return 0;
    for (k = 0; k < c->nrungs; k++)
        if (strcmp(c->rungs[k].name, c->reference) == 0)
            ref = &c->rungs[k];
    for (k = 0; k <= c->nrungs; k++) {
        /* the reference first, so that a rung is named beside it; every
         * rung is compared with the first one read */
        const struct config_rung *r = k == 0 ? ref : &c->rungs[k - 1];
        if (r == NULL || (k > 0 && r == ref) || r->endpoint != NULL ||
            stat(r->model, &st) != 0)
            continue;
        rc = hash_vocab(r->model, hex, &v, msg, sizeof(msg));
        if (rc == EXIT_USAGE && v.gguf == 0) {
            /* the fake server's scripts: no llama-server loads a file
             * that is not a GGUF, so no log-probability comes of it */
            ladder_note(l,
                        "rung %s: '%s' is not a GGUF: its vocabulary is "
                        "not checked",
                        r->name, r->model);
            continue;
        }
        if (rc != 0) {
            cli_error("ladder",
                      "%s: rung %s: %s (%s, so every rung's vocabulary must "
                      "be read)",
                      cfg, r->name, msg,
                      c->logprobs > 0
                          ? "\"logprobs\" compares rungs token by token"
                          : "\"lengths\" are counted in one rung's tokens");
            return rc;
        }
        n++;
        if (base == NULL) {
            base = r;
            base_v = v;
            memcpy(base_hex, hex, sizeof(hex));
        } else if (strcmp(hex, base_hex) != 0) {
            hash_vocab_differ(msg, sizeof(msg), base->name, base->model,
                              base_hex, r->name, r->model, hex);
            cli_error("ladder", "%s: %s", cfg, msg);
            return EXIT_USAGE;
        }
    }
    if (base != NULL)
        ladder_note(l,
                    "vocabulary: %zu rung(s) of one tokenizer (%s/%s, %llu "
                    "tokens, sha256 %.12s)",
                    n, base_v.model[0] ? base_v.model : "-",
                    base_v.pre[0] ? base_v.pre : "-",
                    (unsigned long long)base_v.ntokens, base_hex);
    return 0;
}

/* Files this process will run that are missing and buildable are built
 * first: one command for the night (build, run, bury, report). Another
 * shard's build of the same run folder is waited for, not fought. */
static int build_first(struct ladder *l)
{
    const char *names[CONFIG_MAX_RUNGS];
    struct build_opts o;
    size_t i, n = 0;

    for (i = 0; i < l->njobs; i++)
        if (ladder_state(l, &l->jobs[i]) == SJ_PENDING && !l->jobs[i].again &&
            l->jobs[i].rung->recipe != RECIPE_NONE && n < CONFIG_MAX_RUNGS)
            names[n++] = l->jobs[i].rung->name;
    if (n == 0 || !build_needed(&l->c, names, n))
        return 0;
    ladder_note(l,
                "some model files are missing, or were made from a file that "
                "has changed since, and have a recipe: making them first "
                "(graveyard build; docs/build.md)");
    memset(&o, 0, sizeof o);
    o.only = names;
    o.nonly = n;
    o.jobs = 1;
    o.quiet = l->quiet;
    o.who = "ladder";
    o.wait_lock = 1;
    return build_ladder(&l->c, &o);
}

/* our binary's path, read from /proc/self/exe: one byte past the path cap
 * tells a path that was cut */
static char self_path[BUF_PATH_MAX + 2];

/* Before any model loads: the pinned build answers --version with the
 * version the config names (a hang is killed); our own binary and the
 * config's sha256 for the children. 0 or the exit status. */
static int check_build(struct ladder *l, const char *cfg, char *version,
                       size_t size)
{
    char status[64], err[256];
    ssize_t len;
    int rc = spawn_version(l->c.binary, VERSION_MS, version, size);

    if (version[0] == '\0') {
        cli_error("ladder",
                  "'%s --version' gave no 'version:' line (%s): is it "
                  "a llama-server?",
                  l->c.binary, spawn_status_text(rc, status, sizeof(status)));
        return rc == SPAWN_ETIMEDOUT ? EXIT_FAILED : EXIT_USAGE;
    }
    if (l->c.version && strcmp(version, l->c.version) != 0) {
        cli_error("ladder", "%s: server.version is '%s' but '%s' says '%s'",
                  cfg, l->c.version, l->c.binary, version);
        return EXIT_USAGE;
    }
    len = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
    if (len <= 0) {
        cli_error("ladder", "cannot find its own binary: %s", strerror(errno));
        return EXIT_FAILED;
    }
    if (len > BUF_PATH_MAX) {
        self_path[200] = '\0';
        cli_error("ladder", "path too long: '%s...' (its own binary)",
                  self_path);
        return EXIT_USAGE;
    }
    self_path[len] = '\0';
    l->self = self_path;
    l->cfg_path = cfg;
    if (hash_path(cfg, l->cfg_sha256, err, sizeof(err)) != 0) {
        cli_error("ladder", "%s", err);
        return EXIT_USAGE;
    }
    return 0;
}

/* Every rung of the night with its own binary answers --version, with
 * the version the rung pins, before the first rung starts: a wrong build
 * found at the third rung's start would come after hours of the first
 * two. 0 or the exit status after one line naming the rung. */
static int check_rung_builds(struct ladder *l, const char *cfg)
{
    char version[512], status[64];
    size_t i, j;

    for (i = 0; i < l->njobs; i++) {
        const struct config_rung *r = l->jobs[i].rung;
        struct buf b = {0};
        const char *bin;
        int rc;
        for (j = 0; j < i && l->jobs[j].rung != r; j++)
            ;
        if (r->binary == NULL || j < i)
            continue; /* the server's binary, or a rung seen already */
        if ((bin = cli_llama_path(r->binary, &b)) == NULL) {
            cli_error("ladder", "%s: rung '%s': path too long: '%.200s...'",
                      cfg, r->name, r->binary);
            buf_release(&b);
            return EXIT_USAGE;
        }
        rc = spawn_version(bin, VERSION_MS, version, sizeof(version));
        if (version[0] == '\0') {
            cli_error("ladder",
                      "%s: rung '%s': '%s --version' gave no 'version:' "
                      "line (%s): is it a llama-server?",
                      cfg, r->name, bin,
                      spawn_status_text(rc, status, sizeof(status)));
            buf_release(&b);
            return rc == SPAWN_ETIMEDOUT ? EXIT_FAILED : EXIT_USAGE;
        }
        if (r->version != NULL && strcmp(version, r->version) != 0) {
            cli_error("ladder",
                      "%s: rung '%s': its version is '%s' but '%s' says "
                      "'%s'",
                      cfg, r->name, r->version, bin, version);
            buf_release(&b);
            return EXIT_USAGE;
        }
        buf_release(&b);
    }
    return 0;
}

static void ladder_free(struct ladder *l)
{
    if (l->env != NULL) {
        spawn_env_free(l->env);
    }
    config_release(&l->c);
    for (size_t i = 0; l->jobs != NULL && i < l->njobs; i++)
        free(l->jobs[i].run_dir);
    free(l->jobs);
    free(l->sj);
    free(l);
}

/* The config's server binary (from --llama or server.binary) made the
 * binary itself when it names a llama.cpp folder. 0, or -1 when that path
 * passes the path cap (said). */
static int own_binary(struct config *c)
{
    struct buf b = {0};
    const char *bin = cli_llama_path(c->binary, &b);
    char *copy;

    if (bin == NULL) {
        cli_error("ladder", "path too long: '%.200s...'", c->binary);
        buf_release(&b);
        return -1;
    }
    copy = xstrdup(bin);
    buf_release(&b);
    free(c->binary);
    c->binary = copy;
    return 0;
}

/* `graveyard ladder DIR`: a folder of GGUF files where a config goes.
 * init writes DIRNAME.json here (init.h), or it is there from a
 * night before, and is run: the same command resumes. *pos becomes the
 * config. 0, or an exit status. */
static int folder_first(const char **pos, char *cfg, size_t size,
                        const char *llama)
{
    struct init_args a = {0};
    struct stat st;

    if (stat(pos[0], &st) != 0 || !S_ISDIR(st.st_mode))
        return 0;
    init_default_out(pos[0], cfg, size);
    if (lstat(cfg, &st) == 0) {
        fprintf(stderr,
                "graveyard ladder: %s is a folder: running %s, which "
                "graveyard init wrote for it before (remove it to read the "
                "folder again)\n",
                pos[0], cfg);
    } else {
        a.dir = pos[0];
        a.llama = llama;
        if (init_write(&a, cfg, size) != EXIT_OK)
            return EXIT_USAGE;
    }
    pos[0] = cfg;
    return 0;
}

int cmd_ladder(int argc, char **argv)
{
    const char *pos[1];
    struct ladder_flags f;
    int rc;
    struct config_over over = {NULL, NULL, NULL};
    struct ladder *l;
    struct buf again = {0};
    char msg[4400], version[512], cfg[4096];
    long si, sn;

    memset(&f, 0, sizeof(f));
    if ((rc = ladder_flags(&f, argc, argv, pos)) != CLI_GO)
        return rc;
    if ((rc = folder_first(pos, cfg, sizeof(cfg), f.llama)) != 0)
        return rc;
    if (shard_of(f.shard, &si, &sn) != 0) {
        cli_error("ladder", "--shard wants I/N with 0 <= I < N, not '%s'",
                  f.shard ? f.shard : getenv("SLURM_ARRAY_TASK_ID"));
        return EXIT_USAGE;
    }
    l = xrealloc(NULL, sizeof(*l));
    memset(l, 0, sizeof(*l));
    /* --llama over server.binary (its ${VAR}s need not be set then);
     * either may be a llama.cpp folder */
    over.binary = f.llama;
    over.run_dir = f.run_dir;
    over.gpus = f.gpus;
    if (config_load(pos[0], &over, &l->c, msg, sizeof(msg)) != 0) {
        cli_error("ladder", "%s", msg);
        free(l);
        return EXIT_USAGE;
    }
    if (own_binary(&l->c) != 0) {
        config_release(&l->c);
        free(l);
        return EXIT_USAGE;
    }
    /* batching: the reference twice, so the report's floor shows what
     * batching changes on its own */
    l->c.repeat_reference |= f.repeat_ref || l->c.batching;
    l->quiet = f.quiet;
    if (f.exec_jobs > 0)
        snprintf(l->exec_jobs, sizeof(l->exec_jobs), "%ld", f.exec_jobs);
    l->unsafe_exec = f.unsafe_exec;
    super_init(&l->sup, "ladder", f.quiet, SUPER_SECOND_KILLS);
    l->per_gpu = f.per_gpu ? (int)f.per_gpu : (int)l->c.rungs_per_gpu;
    if ((rc = ladder_plan(l, pos[0], f.only, f.nonly, si, sn, f.replicate)) !=
            0 ||
        (rc = build_first(l)) != 0 || (rc = check_files(l, pos[0])) != 0 ||
        (rc = check_ahead(l)) != 0 || (rc = check_vocab(l, pos[0])) != 0 ||
        (rc = check_build(l, pos[0], version, sizeof(version))) != 0 ||
        (rc = check_rung_builds(l, pos[0])) != 0 ||
        (rc = long_for_ladder(pos[0], &l->c, f.llama)) != 0)
        goto out;
    l->env = ladder_child_env();
    /* writes to a terminal or pipe that went away must not kill us */
    signal(SIGPIPE, SIG_IGN);
    ladder_note(l, "%s: %zu rungs, %s, %zu GPU(s)%s", l->c.name, l->c.nrungs,
                version, l->ngpus, sn > 1 ? ", one shard" : "");
    if ((rc = ladder_run(l)) != 0)
        goto out;
    command_line(argc, argv, &again);
    rc = ladder_end(l, pos[0], f.replicate, again.p);
out:
    buf_release(&again);
    ladder_free(l);
    return rc;
}
