/*
 * cmd_f16range.c - graveyard f16-range PATH: what casting a checkpoint's
 * weights to F16 costs, per tensor (weights/f16range.h,
 * docs/f16-range.md). A thin shell: flags, the output file, a progress
 * line on a terminal.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../weights/f16range.h"
#include "../base/cli.h"
#include "commands.h"

struct shown {
    double start, last;
};

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* At most twice a second, on stderr, only when it is a terminal. */
static void show(void *ctx, uint64_t done, uint64_t total)
{
    struct shown *sh = ctx;
    double t = now_s();

    if (t - sh->last < 0.5 && done < total)
        return;
    sh->last = t;
    fprintf(stderr, "\rf16-range: %.2f of %.2f GB, %.2f GB/s   ",
            (double)done / 1e9, (double)total / 1e9,
            t > sh->start ? (double)done / 1e9 / (t - sh->start) : 0.0);
    if (done >= total)
        fputc('\n', stderr);
}

static const char f16range_about[] =
    "What casting a checkpoint to F16 (IEEE binary16, round to nearest\n"
    "even) costs, per tensor: one JSON line per floating-point tensor\n"
    "in file order, then a TOTAL line, as the study's f16_range.py:\n"
    "  {\"tensor\": \"...\", \"n\": 15728640, \"overflow\": 0, "
    "\"underflow\": 5507733,\n"
    "   \"subnormal\": 834716, \"absmax\": 0.431640625, "
    "\"nonfinite\": 0, \"dtype\": \"BF16\"}\n"
    "\n"
    "PATH: a .safetensors file, a checkpoint folder (model.safetensors\n"
    "or the shards model.safetensors.index.json names), an index, or a\n"
    "GGUF file. BF16 and F32 tensors are counted; F16 ones give n and\n"
    "absmax; other dtypes are listed in TOTAL's \"skipped\".\n"
    "  overflow   finite, becomes infinite (|x| >= 65520)\n"
    "  underflow  non-zero, becomes zero (|x| <= 2^-25)\n"
    "  subnormal  becomes a non-zero binary16 below 2^-14\n"
    "  nonfinite  NaN or infinite already (in no other count)\n";

static const char f16range_after[] =
    "Exit status: 0 ok, 1 a read or write failed, 2 bad input (one\n"
    "line names the file and what is wrong). docs/f16-range.md.\n";

static int finish_out(FILE *f, const char *tmp, const char *out, int rc)
{
    int failed = 0;

    if (fflush(f) != 0 || fsync(fileno(f)) != 0)
        failed = 1;
    if (fclose(f) != 0)
        failed = 1;
    if (rc == F16R_OK && failed) {
        cli_error("f16-range", "%s: %s", tmp, strerror(errno));
        rc = F16R_EIO;
    }
    if (rc == F16R_OK && rename(tmp, out) != 0) {
        cli_error("f16-range", "%s: %s", out, strerror(errno));
        rc = F16R_EIO;
    }
    if (rc != F16R_OK)
        unlink(tmp);
    return rc;
}

int cmd_f16range(int argc, char **argv)
{
    const char *pos[1], *out = NULL;
    int quiet = 0, rc;
    size_t npos = 0;
    const struct cli_opt opts[] = {
        CLI_STRING("--out", "FILE", &out,
                   "write the lines to FILE (written whole, then renamed "
                   "into place) instead of stdout"),
        CLI_SWITCH("--quiet", &quiet, "no progress line on a terminal"),
        CLI_END};
    const struct cli_command cmd = {"f16-range",
                                    "graveyard f16-range PATH [--out FILE] "
                                    "[--quiet]",
                                    f16range_about,
                                    f16range_after,
                                    opts,
                                    "PATH",
                                    1,
                                    1};
    struct shown sh = {now_s(), 0};
    struct buf tmp = {0};
    char msg[1024];
    FILE *f = stdout;

    if ((rc = cli_parse(&cmd, argc, argv, pos, &npos)) != CLI_GO)
        return rc;
    if (out != NULL) {
        if (buf_path(&tmp, "%s.tmp.%ld", out, (long)getpid()) != 0) {
            cli_error("f16-range", "--out %.200s...: too long", out);
            buf_release(&tmp);
            return EXIT_USAGE;
        }
        f = fopen(tmp.p, "wx");
        if (f == NULL) {
            cli_error("f16-range", "%s: %s", tmp.p, strerror(errno));
            buf_release(&tmp);
            return EXIT_FAILED;
        }
    }
    rc = f16range_run(pos[0], f, quiet || !isatty(STDERR_FILENO) ? NULL : show,
                      &sh, NULL, msg, sizeof msg);
    if (rc != F16R_OK)
        cli_error("f16-range", "%s", msg);
    if (out != NULL)
        rc = finish_out(f, tmp.p, out, rc);
    else if (fflush(stdout) != 0 && rc == F16R_OK) {
        cli_error("f16-range", "stdout: %s", strerror(errno));
        rc = F16R_EIO;
    }
    buf_release(&tmp);
    return rc == F16R_OK          ? EXIT_OK
           : rc == F16R_EBADINPUT ? EXIT_USAGE
                                  : EXIT_FAILED;
}
