/*
 * sandbox.c - the sandbox's pure parts: the limits' defaults, the
 * outcomes' names, the argv that runs the harness under bubblewrap (never
 * a shell), the harness's result line read with suspicion, and the one
 * decision that turns a process's end into an outcome. pool.c starts and
 * watches the processes (docs/sandbox.md).
 */
#define _GNU_SOURCE /* SIGXCPU */
#include "sandbox.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "../../grader/grader.h"
#include "../../util/util.h"

/* The outcomes are the grader's (task.h): the row records them by these
 * names, and the grader reads them back; one list, the grader's. */
_Static_assert(SANDBOX_OUTCOMES == GRADER_EXEC_OUTCOMES &&
                   (int)SANDBOX_PASSED == GRADER_EXEC_PASSED &&
                   (int)SANDBOX_FAILED == GRADER_EXEC_FAILED &&
                   (int)SANDBOX_ERROR == GRADER_EXEC_ERROR &&
                   (int)SANDBOX_SYNTAX == GRADER_EXEC_SYNTAX &&
                   (int)SANDBOX_TIMEOUT == GRADER_EXEC_TIMEOUT &&
                   (int)SANDBOX_KILLED == GRADER_EXEC_KILLED &&
                   (int)SANDBOX_NO_CODE == GRADER_EXEC_NO_CODE,
               "the sandbox's outcomes are the grader's, in its order");

const char *sandbox_outcome_name(enum sandbox_outcome o)
{
    const char *s = grader_exec_name((int)o);

    return s != NULL ? s : "unknown";
}

int sandbox_outcome_parse(const char *name)
{
    return name == NULL ? -1 : grader_exec_parse(name, strlen(name));
}

void sandbox_conf_default(struct sandbox_conf *c)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    memset(c, 0, sizeof(*c));
    c->bwrap = "bwrap";
    c->python = "/usr/bin/python3";
    c->timeout_ms = 10000;
    c->cpu_s = 0; /* timeout rounded up, when the pool starts */
    c->memory_mb = 1024;
    c->nproc = 64;
    c->fsize_mb = 16;
    c->output_cap = 64 * 1024;
    c->jobs = cores < 1                  ? 1
              : cores > SANDBOX_JOBS_MAX ? SANDBOX_JOBS_MAX
                                         : (unsigned)cores;
    c->uid = SANDBOX_UID_BASE;
    c->gid = SANDBOX_UID_BASE;
}

/* bubblewrap's flags, before the tmpfs's size and the python command.
 * Only /usr is seen, read-only; /bin, /lib, /lib64 and /sbin are the
 * symlinks into it they are on Debian (merged /usr); of /etc only the
 * loader's cache. No /home, /root, run folder or cwd. */
static const char *const bwrap_flags[] = {
    "--unshare-all",    /* user, ipc, pid, net, uts, cgroup namespaces */
    "--unshare-user",   /* as root too (--unshare-all only tries it) */
    "--disable-userns", /* no namespace of its own inside */
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--clearenv",
    "--setenv",
    "PATH",
    "/usr/bin:/bin",
    "--setenv",
    "HOME",
    "/tmp",
    "--setenv",
    "PYTHONDONTWRITEBYTECODE",
    "1",
    "--setenv",
    "LANG",
    "C.UTF-8",
    "--ro-bind",
    "/usr",
    "/usr",
    "--symlink",
    "usr/bin",
    "/bin",
    "--symlink",
    "usr/lib",
    "/lib",
    "--symlink",
    "usr/lib64",
    "/lib64",
    "--symlink",
    "usr/sbin",
    "/sbin",
    "--ro-bind-try",
    "/etc/ld.so.cache",
    "/etc/ld.so.cache",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--size",
};
#define NFLAGS (sizeof(bwrap_flags) / sizeof(bwrap_flags[0]))

int sandbox__argv(const struct sandbox_conf *c, const char **argv, size_t most,
                  char *nums, size_t numsize)
{
    size_t n = 0, i;

    if (most < NFLAGS + 14 || numsize < 32)
        return -1;
    if (!c->unsafe) {
        argv[n++] = c->bwrap;
        for (i = 0; i < NFLAGS; i++)
            argv[n++] = bwrap_flags[i];
        /* the tmpfs's bytes: RLIMIT_FSIZE's, so one file may fill it */
        snprintf(nums, numsize, "%llu",
                 (unsigned long long)c->fsize_mb * 1024 * 1024);
        argv[n++] = nums;
        argv[n++] = "--tmpfs";
        argv[n++] = "/tmp";
        argv[n++] = "--remount-ro"; /* its root: /tmp the one place */
        argv[n++] = "/";            /* it may write */
        argv[n++] = "--chdir";
        argv[n++] = "/tmp";
        argv[n++] = "--";
    }
    argv[n++] = c->python;
    argv[n++] = "-I"; /* no user site, no PYTHON* variables, no cwd */
    argv[n++] = "-S"; /* no site: the standard library alone, whatever
                         the host installed (and 9 ms less a candidate) */
    argv[n++] = "-c";
    argv[n++] = sandbox_harness();
    argv[n] = NULL;
    return (int)n;
}

/* A string field of o into out (size), printable; missing is "". */
static int str_field(json_t *o, const char *key, char *out, size_t size,
                     char *msg, size_t msgsize)
{
    json_t *v = json_object_get(o, key);
    const char *s;
    size_t n;

    out[0] = '\0';
    if (v == NULL || !json_is_string(v)) {
        snprintf(msg, msgsize, "result line: '%s' missing or not a string",
                 key);
        return -1;
    }
    s = json_string_value(v);
    n = json_string_length(v);
    if (n >= size) {
        snprintf(msg, msgsize, "result line: '%s' over %zu bytes", key,
                 size - 1);
        return -1;
    }
    util_printable(s, n, out, size);
    return 0;
}

static int int_field(json_t *o, const char *key, long lo, long hi, int *out,
                     char *msg, size_t msgsize)
{
    json_t *v = json_object_get(o, key);

    if (v == NULL || !json_is_integer(v) || json_integer_value(v) < lo ||
        json_integer_value(v) > hi) {
        snprintf(msg, msgsize,
                 "result line: '%s' missing or not a whole number in "
                 "%ld..%ld",
                 key, lo, hi);
        return -1;
    }
    *out = (int)json_integer_value(v);
    return 0;
}

/* The counts and the outcome's name of a parsed line, checked. */
static int parse_fields(json_t *o, struct sandbox_result *r, char *msg,
                        size_t msgsize)
{
    char name[32];
    int k;

    if (str_field(o, "outcome", name, sizeof(name), msg, msgsize) != 0)
        return -1;
    k = sandbox_outcome_parse(name);
    if (k < 0 || k == SANDBOX_TIMEOUT || k == SANDBOX_NO_CODE) {
        snprintf(msg, msgsize, "result line: unknown outcome '%s'", name);
        return -1;
    }
    r->outcome = (enum sandbox_outcome)k;
    if (int_field(o, "total", 0, SANDBOX_PROGRAM_MAX, &r->total, msg,
                  msgsize) != 0 ||
        int_field(o, "passed", 0, r->total, &r->passed, msg, msgsize) != 0 ||
        int_field(o, "failed_test", -1, r->total - 1, &r->failed_test, msg,
                  msgsize) != 0 ||
        str_field(o, "exception", r->exception, sizeof(r->exception), msg,
                  msgsize) != 0 ||
        str_field(o, "limit", r->limit, sizeof(r->limit), msg, msgsize) != 0)
        return -1;
    /* passed: every test, none failed; else the first not passed is
     * named whenever there are tests, and not all of them passed */
    if (r->outcome == SANDBOX_PASSED
            ? r->passed != r->total || r->failed_test != -1
            : (r->total > 0) != (r->failed_test >= 0) ||
                  (r->total > 0 && r->passed == r->total)) {
        snprintf(msg, msgsize,
                 "result line: outcome '%s' with %d of %d passed, failed "
                 "test %d",
                 name, r->passed, r->total, r->failed_test);
        return -1;
    }
    return 0;
}

int sandbox__parse_result(const char *line, size_t n, const char *nonce,
                          struct sandbox_result *r, char *msg, size_t msgsize)
{
    json_error_t je;
    json_t *o;
    char got[80];
    int rc = -1;

    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        n--;
    if (n == 0) {
        snprintf(msg, msgsize, "result line: empty");
        return -1;
    }
    if (memchr(line, '\n', n) != NULL) {
        snprintf(msg, msgsize, "result line: more than one line");
        return -1;
    }
    o = json_loadb(line, n, JSON_REJECT_DUPLICATES, &je);
    if (o == NULL || !json_is_object(o)) {
        snprintf(msg, msgsize, "result line: not a JSON object (%s)",
                 o == NULL ? je.text : "another value");
        json_decref(o);
        return -1;
    }
    if (str_field(o, "nonce", got, sizeof(got), msg, msgsize) != 0)
        goto done;
    if (nonce == NULL || strcmp(got, nonce) != 0) {
        snprintf(msg, msgsize,
                 "result line: not the harness's (its nonce "
                 "is another)");
        goto done;
    }
    rc = parse_fields(o, r, msg, msgsize);
done:
    json_decref(o);
    return rc;
}

/* Killed by a signal: bwrap reports its child's signal N as exit 128+N;
 * unsafe, it is the process's own. 0 when it was not. */
static int signal_of(const struct sandbox_end *e)
{
    if (e->sig != 0)
        return e->sig;
    if (!e->unsafe && e->status > 128 && e->status < 128 + 65)
        return (int)(e->status - 128);
    return 0;
}

static void set_killed(struct sandbox_result *r, const char *limit)
{
    r->outcome = SANDBOX_KILLED;
    r->exception[0] = '\0';
    snprintf(r->limit, sizeof(r->limit), "%s", limit);
}

/* No usable result line: what the process's end says. */
static void decide_no_line(const struct sandbox_end *e, int sig,
                           struct sandbox_result *r)
{
    r->outcome = SANDBOX_ERROR;
    r->limit[0] = '\0';
    r->passed = 0;
    r->total = e->ntests;
    r->failed_test = e->ntests > 0 ? 0 : -1;
    /* RLIMIT_CPU: SIGXCPU at the soft limit, SIGKILL at the hard one a
     * second later; a SIGKILL nobody sent before that is another's */
    if (sig == SIGXCPU ||
        (sig == 9 && e->cpu_s > 0 && e->ms >= e->cpu_s * 1000u)) {
        set_killed(r, "cpu");
        return;
    }
    if (sig != 0)
        snprintf(r->exception, sizeof(r->exception), "signal %d", sig);
    else
        snprintf(r->exception, sizeof(r->exception), "exit %lld", e->status);
}

void sandbox__decide(const struct sandbox_end *e, struct sandbox_result *r)
{
    char why[160];
    int sig = signal_of(e);

    r->ms = e->ms;
    if (e->line == NULL || sandbox__parse_result(e->line, e->n, e->nonce, r,
                                                 why, sizeof(why)) != 0)
        decide_no_line(e, sig, r);
    /* what we did to it outranks what it said */
    if (e->timed_out) {
        r->outcome = SANDBOX_TIMEOUT;
        r->exception[0] = r->limit[0] = '\0';
        if (r->failed_test < 0 && r->passed < r->total)
            r->failed_test = r->passed;
    } else if (e->overflowed) {
        set_killed(r, "output");
        if (r->failed_test < 0 && r->passed < r->total)
            r->failed_test = r->passed;
    }
    if (r->outcome == SANDBOX_KILLED && r->failed_test < 0 &&
        r->passed < r->total)
        r->failed_test = r->passed;
    if (r->outcome != SANDBOX_ERROR && r->outcome != SANDBOX_SYNTAX)
        r->exception[0] = '\0';
    if (r->outcome != SANDBOX_KILLED)
        r->limit[0] = '\0';
}

void sandbox__output(const char *out, size_t n, struct sandbox_result *r)
{
    size_t cap = sizeof(r->output) - 1, have = 0, keep;
    char tmp[4 * sizeof(r->output)];
    const char *from = out + n;
    const char *p;

    /* only the tail can be shown: escape from a start that gives at most
     * 4x the room (an escape is 4 bytes), then keep the last cap bytes */
    if (n > sizeof(tmp) / 4 - 1)
        from = out + n - (sizeof(tmp) / 4 - 1);
    else
        from = out;
    /* start on a UTF-8 character's first byte */
    while (from > out && from < out + n &&
           ((unsigned char)*from & 0xC0) == 0x80)
        from++;
    p = from;
    while (p < out + n && have + 1 < sizeof(tmp)) {
        const char *nl = memchr(p, '\n', (size_t)(out + n - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(out + n - p);
        have += util_printable(p, len, tmp + have, sizeof(tmp) - have);
        if (nl == NULL)
            break;
        if (have + 1 < sizeof(tmp))
            tmp[have++] = '\n';
        p = nl + 1;
    }
    tmp[have] = '\0';
    keep = have > cap ? cap : have;
    p = tmp + have - keep;
    while (*p != '\0' && ((unsigned char)*p & 0xC0) == 0x80)
        p++;
    memcpy(r->output, p, (size_t)(tmp + have - p) + 1);
}
