/*
 * probe.c - can executions run here? One program that prints Python's
 * version, run the way every candidate runs (pool.c, on a loop of its
 * own, before the caller's loop exists), so that what the probe accepts is
 * what a grade will use. A sandbox that cannot start is said in one line
 * naming the binary and what it printed; there is never a fallback to
 * running unsandboxed but --unsafe-exec, asked for by name.
 */
#include "sandbox.h"

#include <stdio.h>
#include <string.h>

#include "../server/spawn.h"

struct probe {
    struct sandbox_result r;
    int done;
};

static void probe_cb(void *ctx, const struct sandbox_result *r)
{
    struct probe *pr = ctx;

    pr->r = *r;
    pr->done = 1;
}

/* The first line of s, without its newline, into out. */
static void first_line(const char *s, char *out, size_t size)
{
    size_t n = strcspn(s, "\n");

    if (n >= size)
        n = size - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

/* "bwrap 0.8.0" from `bwrap --version` ("bubblewrap 0.8.0"), or "" */
static void bwrap_version(const char *bwrap, char *out, size_t size)
{
    const char *argv[] = {bwrap, "--version", NULL};
    char buf[256], line[128];
    const char *v;

    out[0] = '\0';
    if (spawn_capture(argv, 1, 2000, buf, sizeof(buf)) != 0)
        return;
    first_line(buf, line, sizeof(line));
    v = strrchr(line, ' ');
    snprintf(out, size, "bwrap %.40s", v != NULL ? v + 1 : line);
}

/* The probe's one program ran: its verdict. */
static int verdict(const struct sandbox_conf *c, const struct probe *pr,
                   char *what, size_t whatsize, char *msg, size_t msgsize)
{
    char said[512], ver[64], bw[64];
    const char *who = c->unsafe ? c->python : c->bwrap;

    if (pr->r.outcome == SANDBOX_PASSED) {
        first_line(pr->r.output, ver, sizeof(ver));
        if (c->unsafe) {
            snprintf(what, whatsize, "unsafe: no sandbox, Python %s", ver);
        } else {
            bwrap_version(c->bwrap, bw, sizeof(bw));
            snprintf(what, whatsize, "%s, Python %s", bw[0] ? bw : "bwrap",
                     ver);
        }
        return 0;
    }
    first_line(pr->r.output, said, sizeof(said));
    if (said[0] == '\0')
        snprintf(said, sizeof(said), "it ended (%s%s%s) and printed nothing",
                 sandbox_outcome_name(pr->r.outcome),
                 pr->r.exception[0] ? ", " : "", pr->r.exception);
    if (c->unsafe)
        snprintf(msg, msgsize, "python3 ('%s') cannot run the harness: %s",
                 who, said);
    else
        snprintf(msg, msgsize,
                 "bubblewrap ('%s') cannot run python3 ('%s') in its "
                 "namespaces here: %s; graveyard runs model-written code "
                 "only in a sandbox: install bubblewrap, allow user "
                 "namespaces, or pass --unsafe-exec knowingly "
                 "(docs/sandbox.md)",
                 who, c->python, said);
    return -1;
}

int sandbox_probe(const struct sandbox_conf *c, char *what, size_t whatsize,
                  char *msg, size_t msgsize)
{
    static const char code[] = "import sys\n"
                               "print(sys.version.split()[0])\n";
    struct sandbox_program prog;
    struct sandbox_pool *pool;
    struct sandbox_conf pc = *c;
    struct probe pr;
    uv_loop_t loop;
    int rc;

    what[0] = msg[0] = '\0';
    memset(&pr, 0, sizeof(pr));
    memset(&prog, 0, sizeof(prog));
    prog.code = code;
    prog.code_len = sizeof(code) - 1;
    pc.jobs = 1;
    if (uv_loop_init(&loop) != 0) {
        snprintf(msg, msgsize, "cannot make the probe's loop");
        return -1;
    }
    pool = sandbox_pool_new(&loop, &pc);
    rc = sandbox_submit(pool, &prog, probe_cb, &pr, msg, msgsize);
    if (rc == 0)
        while (!pr.done && uv_run(&loop, UV_RUN_ONCE) != 0)
            ;
    sandbox_pool_free(pool);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    if (rc != 0)
        return -1;
    if (!pr.done) {
        snprintf(msg, msgsize, "the sandbox's probe never ended");
        return -1;
    }
    return verdict(c, &pr, what, whatsize, msg, msgsize);
}
