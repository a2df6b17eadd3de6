/*
 * buildtool.c - what graveyard build's steps run and leave (build_int.h):
 * the messages, the sizes and the disk, the temporary files and process
 * groups an earlier, killed build left beside a target, the tool's argv,
 * its log quoted, and the build line that names what built a file. A
 * step's life on the loop is buildstep.c's.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <strings.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "../../rundir/files.h"
#include "../../rundir/pidfile.h"
#include "../../rundir/rundir.h"
#include "../../weights/f16range.h"
#include "../../weights/tensors.h"
#include "build_int.h"
#include "../base/cli.h"
#include "../server/spawn.h"
#include "../../util/util.h"

/* ---- messages, files and the disk -------------------------------- */

void build_note(struct bld *b, const char *fmt, ...)
{
    va_list ap;

    if (b->o->quiet)
        return;
    va_start(ap, fmt);
    super_vsay(&b->sup, fmt, ap);
    va_end(ap);
}

/* 65056 -> "65.1 kB", 9311305152 -> "9.31 GB" (into a static buffer of
 * four, for one message). */
const char *build_human(unsigned long long n)
{
    static char buf[4][32];
    static int k;
    static const char *const unit[] = {"B", "kB", "MB", "GB", "TB"};
    double v = (double)n;
    int u = 0;

    k = (k + 1) % 4;
    while (v >= 1000 && u < 4) {
        v /= 1000;
        u++;
    }
    snprintf(buf[k], sizeof buf[k], u == 0 ? "%.0f %s" : "%.3g %s", v,
             unit[u]);
    return buf[k];
}

/* Errors are said even with --quiet. */
void build_error(struct bld *b, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    super_vsay(&b->sup, fmt, ap);
    va_end(ap);
}

int build_is_file(const char *path, struct stat *st)
{
    return stat(path, st) == 0 && S_ISREG(st->st_mode);
}

/* The folder a file goes into (dirname without touching path). */
int build_folder_of(const char *path, struct buf *out)
{
    const char *slash = strrchr(path, '/');

    if (slash == NULL)
        return buf_path(out, ".");
    if (slash == path)
        return buf_path(out, "/");
    return buf_path(out, "%.*s", (int)(slash - path), path);
}

/* Bytes a step will write, from the source's tensor table: every weight
 * at the type's bits (two more for a quantized mix, which keeps some
 * tensors wider), never more than the source when the type is smaller. */
static double type_bits(const char *t)
{
    static const struct {
        const char *prefix;
        double bits;
    } bits[] = {{"F32", 32},  {"COPY", 32}, {"F16", 16},  {"BF16", 16},
                {"Q8", 8.5},  {"Q6", 6.6},  {"IQ6", 6.6}, {"Q5", 5.7},
                {"IQ5", 5.7}, {"Q4", 4.9},  {"IQ4", 4.6}, {"MXFP4", 4.3},
                {"Q3", 4.0},  {"IQ3", 3.7}, {"Q2", 3.4},  {"IQ2", 2.9},
                {"TQ", 2.1},  {"IQ1", 2.0}, {"Q1", 1.2}};
    size_t i;

    for (i = 0; i < sizeof bits / sizeof *bits; i++)
        if (strncasecmp(t, bits[i].prefix, strlen(bits[i].prefix)) == 0)
            return bits[i].bits;
    return 16;
}

unsigned long long build_estimate(struct bld *b, size_t i)
{
    struct config_rung *r = &b->c->rungs[i];
    const char *src = r->recipe == RECIPE_CONVERT ? b->c->build.checkpoint
                                                  : b->c->rungs[r->from].model;
    uint64_t n = 0, bytes = 0;
    char msg[512];
    double bits;

    if (tensors_count_path(src, &n, &bytes, msg, sizeof msg) != F16R_OK) {
        struct stat st; /* a table we cannot read: the source's size */
        return (stat(src, &st) == 0 ? (unsigned long long)st.st_size : 0) +
               SLACK_BYTES;
    }
    if (r->recipe == RECIPE_CONVERT)
        bits = strcmp(r->convert, "q8_0") == 0  ? 8.5
               : strcmp(r->convert, "f32") == 0 ? 32
                                                : 16;
    else
        bits = type_bits(r->qtype) + (type_bits(r->qtype) < 16 ? 2 : 0);
    n = (uint64_t)((double)n * bits / 8);
    if (bits <= 16 && bytes > 0 && n > bytes)
        n = bytes;
    return n + SLACK_BYTES;
}

/* Free bytes for an unprivileged writer in dir. */
unsigned long long build_free_bytes(const char *dir)
{
    struct statvfs v;

    if (statvfs(dir, &v) != 0)
        return ~0ull; /* unknown: the write itself will say */
    return (unsigned long long)v.f_bavail * v.f_frsize;
}

/* One pass over the folder open as fd: each entry removed. 0, or -1 when
 * one could not be. */
static int remove_entries(int fd, int depth)
{
    struct dirent *e;
    int rc = 0, dup_fd = dup(fd);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;

    if (d == NULL) {
        if (dup_fd >= 0)
            close(dup_fd);
        return -1;
    }
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            build_remove_at(fd, e->d_name, depth + 1) != 0)
            rc = -1;
    closedir(d);
    return rc;
}

int build_remove_at(int dirfd, const char *name, int depth)
{
    struct stat st;
    int fd, rc;

    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode)) /* a file, a link (itself, not its target) */
        return unlinkat(dirfd, name, 0);
    if (depth >= REMOVE_DEPTH_MAX) {
        errno = ELOOP;
        return -1;
    }
    fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    rc = remove_entries(fd, depth);
    /* entries removed while read may hide others: a second look */
    if (rc == 0 && unlinkat(dirfd, name, AT_REMOVEDIR) != 0 &&
        errno == ENOTEMPTY)
        rc = remove_entries(fd, depth);
    close(fd);
    if (rc != 0)
        return -1;
    return unlinkat(dirfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT ? 0
                                                                       : -1;
}

/* A tool's process group is recorded beside its temporary file, in
 * TMP.group (pidfile.h: pid, start time, boot), while it runs: a tool
 * dies with graveyard (spawn.h's parent-death signal and keeper), and
 * should the keeper have been killed too, a wrapper's orphaned quantizer
 * is stopped by the next build before it removes the file that orphan
 * writes. */
static int is_group_file(const char *name)
{
    size_t n = strlen(name);

    return n > 6 && strcmp(name + n - 6, ".group") == 0;
}

static void stop_stale_group(struct step *s, const char *path)
{
    char msg[1024];
    long pg = pidfile_find(path, msg, sizeof msg);

    if (pg > 0 && kill((pid_t)-pg, SIGKILL) == 0)
        build_note(s->b,
                   "%s: killed process group %ld, a tool left by a build "
                   "that was stopped",
                   s->b->c->rungs[s->i].name, pg);
}

/* Temporary files an earlier, killed build left beside a target, and
 * the tools still writing them. */
void build_remove_stale(struct step *s)
{
    struct buf dir = {0}, prefix = {0}, path = {0};
    const char *base = strrchr(s->tmp.p, '/') + 1;
    struct dirent *e;
    DIR *d = NULL;

    /* the temporary name fit the cap (preflight), and so do its folder
     * and its base; an entry's path may not, and is passed over */
    if (buf_path(&prefix, "%s.", base) == 0 &&
        build_folder_of(s->tmp.p, &dir) == 0)
        d = opendir(dir.p);
    if (d == NULL)
        goto out;
    /* first the tools a stopped build left running, so that none writes
     * on while its file goes; then the files (and folders) they left */
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix.p, prefix.len) == 0 &&
            is_group_file(e->d_name) &&
            buf_path(&path, "%s/%s", dir.p, e->d_name) == 0) {
            stop_stale_group(s, path.p);
            unlink(path.p);
        }
    rewinddir(d);
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix.p, prefix.len) == 0 &&
            !is_group_file(e->d_name) &&
            build_remove_at(dirfd(d), e->d_name, 0) == 0)
            build_note(s->b,
                       "%s: removed %s/%s, left by a build that was "
                       "stopped",
                       s->b->c->rungs[s->i].name, dir.p, e->d_name);
    closedir(d);
out:
    buf_release(&dir);
    buf_release(&prefix);
    buf_release(&path);
}

/* ---- the tool ------------------------------------------------------ */

const char *build_rname(const struct step *s)
{
    return s->b->c->rungs[s->i].name;
}

/* The tool's last lines, quoted from its log. */
void build_quote_log(struct step *s)
{
    char buf[4096], *p;
    int fd = files_open_read(s->logpath.p, 1, buf, sizeof buf), lines = 0;
    off_t end;
    ssize_t n;

    if (fd < 0)
        return;
    end = lseek(fd, 0, SEEK_END);
    n = pread(fd, buf, sizeof buf - 1,
              end > (off_t)sizeof buf - 1 ? end - (off_t)sizeof buf + 1 : 0);
    close(fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    for (p = buf + n; p > buf; p--)
        if (p[-1] == '\n' && p != buf + n && ++lines > TAIL_LINES)
            break;
    build_error(s->b, "%s: the last lines of %s:", build_rname(s),
                s->logpath.p);
    for (p = strtok(p, "\n"); p != NULL; p = strtok(NULL, "\n")) {
        char line[4 * sizeof buf];
        /* a log is not to drive our terminal */
        util_printable(p, strlen(p), line, sizeof line);
        fprintf(stderr, "    %s\n", line);
    }
}

static void add_arg(struct step *s, const char *a)
{
    s->argv[s->argc++] = xstrdup(a);
    s->argv[s->argc] = NULL;
}

void build_make_argv(struct step *s)
{
    const struct config *c = s->b->c;
    const struct config_rung *r = &c->rungs[s->i];
    char n[32];
    size_t k;

    s->argc = 0;
    if (r->recipe == RECIPE_CONVERT) {
        /* python convert_hf_to_gguf.py CHECKPOINT --outtype T --outfile F */
        add_arg(s, c->build.python);
        add_arg(s, c->build.convert);
        add_arg(s, c->build.checkpoint);
        add_arg(s, "--outtype");
        add_arg(s, r->convert);
        add_arg(s, "--outfile");
        add_arg(s, s->tmp.p);
        return;
    }
    /* llama-quantize [--imatrix F] [args] SOURCE OUT TYPE THREADS */
    add_arg(s, c->build.quantize);
    if (r->imatrix != NULL) {
        add_arg(s, "--imatrix");
        add_arg(s, r->imatrix);
    }
    for (k = 0; k < r->nqargs; k++)
        add_arg(s, r->qargs[k]);
    add_arg(s, c->rungs[r->from].model);
    add_arg(s, s->tmp.p);
    add_arg(s, r->qtype);
    snprintf(n, sizeof n, "%ld", s->b->threads);
    add_arg(s, n);
}

void build_free_argv(struct step *s)
{
    size_t k;

    for (k = 0; k < s->argc; k++)
        free(s->argv[k]);
    s->argc = 0;
    s->argv[0] = NULL;
}

void build_free_step(struct step *s)
{
    build_free_argv(s);
    buf_release(&s->tmp);
    buf_release(&s->logpath);
    hash_release(&s->hash);
}

/* The disk holds the estimate, beside what running steps may still
 * write. */
int build_disk_ok(struct step *s)
{
    struct bld *b = s->b;
    struct buf dir = {0};
    unsigned long long have, need = s->est;
    size_t k;

    if (build_folder_of(b->c->rungs[s->i].model, &dir) != 0) {
        /* preflight refused it: a bug if it comes here */
        build_error(b, "%s: path too long: '%.200s...'", build_rname(s),
                    b->c->rungs[s->i].model);
        return 0;
    }
    for (k = 0; k < b->c->nrungs; k++)
        if (k != s->i && b->jobs.sj[k].state == SJ_RUNNING &&
            b->jobs.job[k].ph <= PH_TOOL)
            need += b->s[k].est;
    have = build_free_bytes(dir.p);
    if (have < need) {
        build_error(
            b,
            "%s: needs about %s in %s (with the steps running), "
            "which has %s free: not started, rather than fill the disk",
            build_rname(s), build_human(need), dir.p, build_human(have));
        buf_release(&dir);
        return 0;
    }
    buf_release(&dir);
    if (b->c->rungs[s->i].recipe == RECIPE_CONVERT &&
        b->c->build.tmpdir != NULL &&
        (have = build_free_bytes(b->c->build.tmpdir)) < s->est) {
        build_error(
            b,
            "%s: the converter may spill about %s into build.tmpdir %s, "
            "which has %s free: not started",
            build_rname(s), build_human(s->est), b->c->build.tmpdir,
            build_human(have));
        return 0;
    }
    return 1;
}

/* "FUNC: build = N (COMMIT)": the build line llama-quantize logs first,
 * FUNC "main" in ik_llama.cpp (print_build_info(), a macro, in main) and
 * in upstream before 2026, "llama_print_build_info" in upstream since
 * (a function in common/build-info.cpp). Returns where "build = " starts,
 * or NULL. The commit is kept to what a commit is, so that nothing a log
 * holds reaches build.json but that. */
static const char *build_line(const char *line)
{
    const char *p = line, *build;

    while (*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
           (p > line && *p >= '0' && *p <= '9'))
        p++;
    if (p == line || strncmp(p, ": build = ", 10) != 0)
        return NULL;
    build = p + 2;
    p += 10;
    if (*p < '0' || *p > '9')
        return NULL;
    while (*p >= '0' && *p <= '9')
        p++;
    if (strncmp(p, " (", 2) != 0 || p[2] == ')')
        return NULL;
    for (p += 2; *p != ')'; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
              (*p >= 'A' && *p <= 'Z') || *p == '-' || *p == '_' || *p == '.'))
            return NULL;
    return p[1] == '\0' || p[1] == '\r' ? build : NULL;
}

/* What built the file: llama-quantize has no --version (neither fork's:
 * it prints its usage and exits 1), but every run logs its build line
 * (build_line) among its first: that line, else --version's, else the
 * path. */
void build_tool_identity(struct step *s)
{
    char buf[8192], *line, *save = NULL;
    const char *build;
    int fd = files_open_read(s->logpath.p, 1, buf, sizeof buf);
    ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf - 1, 0) : -1;

    if (fd >= 0)
        close(fd);
    snprintf(s->tool, sizeof s->tool, "%s",
             s->b->qversion[0] ? s->b->qversion : s->b->c->build.quantize);
    if (n <= 0)
        return;
    buf[n] = '\0';
    for (line = strtok_r(buf, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save))
        if ((build = build_line(line)) != NULL) {
            snprintf(s->tool, sizeof s->tool, "%s %.*s",
                     s->b->c->build.quantize, (int)(strcspn(build, "\r")),
                     build);
            return;
        }
}
