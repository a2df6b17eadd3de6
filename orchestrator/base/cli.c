/*
 * cli.c - flag parsing and small helpers for the commands.
 */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "graveyard %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static const struct cli_flag *find_flag(const struct cli_flag *flags,
                                        const char *arg, size_t len)
{
    for (; flags->name != NULL; flags++)
        if (strlen(flags->name) == len && memcmp(flags->name, arg, len) == 0)
            return flags;
    return NULL;
}

int cli_parse(const char *cmd, int argc, char **argv,
              const struct cli_flag *flags, const char **pos, size_t maxpos,
              size_t *npos, int *help)
{
    int i, only_pos = 0;

    *npos = 0;
    *help = 0;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *eq;
        const struct cli_flag *f;
        size_t len;
        if (!only_pos && strcmp(a, "--") == 0) {
            only_pos = 1;
            continue;
        }
        if (only_pos || a[0] != '-' || a[1] == '\0') {
            if (*npos == maxpos) {
                cli_error(cmd, "too many arguments at '%s' (see --help)", a);
                return EXIT_USAGE;
            }
            pos[(*npos)++] = a;
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            *help = 1;
            continue;
        }
        eq = strchr(a, '=');
        len = eq ? (size_t)(eq - a) : strlen(a);
        f = find_flag(flags, a, len);
        if (f == NULL) {
            cli_error(cmd, "unknown flag '%.*s' (see --help)", (int)len, a);
            return EXIT_USAGE;
        }
        if (f->many != NULL) {
            const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (v == NULL) {
                cli_error(cmd, "flag '%s' needs a value", f->name);
                return EXIT_USAGE;
            }
            if (*f->nmany == f->maxmany) {
                cli_error(cmd, "flag '%s' given more than %zu times", f->name,
                          f->maxmany);
                return EXIT_USAGE;
            }
            f->many[(*f->nmany)++] = v;
        } else if (f->on != NULL) {
            if (eq != NULL) {
                cli_error(cmd, "flag '%s' takes no value", f->name);
                return EXIT_USAGE;
            }
            *f->on = 1;
        } else if (eq != NULL) {
            *f->value = eq + 1;
        } else if (i + 1 < argc) {
            *f->value = argv[++i];
        } else {
            cli_error(cmd, "flag '%s' needs a value", f->name);
            return EXIT_USAGE;
        }
    }
    return 0;
}

int cli_rung_name_ok(const char *name)
{
    size_t i, n = strlen(name);

    /* not '-' first: a rung name is a positional argument of graveyard
     * run, and "-h" there would be taken as a flag */
    if (n == 0 || n > 64 || name[0] == '.' || name[0] == '-')
        return 0;
    for (i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

int cli_rung_name_check(const char *cmd, const char *name)
{
    if (cli_rung_name_ok(name))
        return 0;
    cli_error(cmd,
              "invalid rung name '%s' (letters, digits, '.', '_' and '-' "
              "only, not starting with '.' or '-')",
              name);
    return EXIT_USAGE;
}

static volatile int hup_ignored;

void cli_signals_at_start(void)
{
    struct sigaction sa;

    if (sigaction(SIGHUP, NULL, &sa) == 0)
        hup_ignored = sa.sa_handler == SIG_IGN;
}

int cli_hup_ignored(void)
{
    return hup_ignored;
}

const char *cli_llama_path(const char *path, struct buf *b)
{
    struct stat st;

    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return buf_path(b, "%s/build/bin/llama-server", path) == 0 ? b->p
                                                                   : NULL;
    return path;
}

/* s is digits alone (a '-' first when neg), at most one '.' between
 * digits when dot: the whole test, before strtol or strtod sees it. */
static int decimal_only(const char *s, int neg, int dot)
{
    int digits = 0, dots = 0;

    if (neg && *s == '-')
        s++;
    for (; *s; s++) {
        if (*s >= '0' && *s <= '9') {
            digits++;
        } else if (*s == '.' && dot && digits > 0 && dots == 0 &&
                   s[1] >= '0' && s[1] <= '9') {
            dots++;
        } else {
            return 0;
        }
    }
    return digits > 0;
}

int cli_whole(const char *s, long min, long max, long *out)
{
    char *end;
    long v;

    if (s == NULL || !decimal_only(s, min < 0, 0))
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int cli_decimal(const char *s, double *out)
{
    char *end;
    double v;

    if (s == NULL || !decimal_only(s, 0, 1))
        return -1;
    errno = 0;
    v = strtod(s, &end);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

int cli_whole_flag(const char *cmd, const char *flag, const char *s, long min,
                   long max, long *out)
{
    if (cli_whole(s, min, max, out) == 0)
        return 0;
    cli_error(cmd, "%s wants a whole number from %ld to %ld, not '%s'", flag,
              min, max, s);
    return EXIT_USAGE;
}
