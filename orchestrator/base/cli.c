/*
 * cli.c - the commands' front door (cli_parse and cli_help over a
 * command's table of typed options, in the manner of git's
 * parse-options) and small helpers for the commands.
 */
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../util/util.h"

void cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "graveyard %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* ---- the front door ------------------------------------------------- */

#define HELP_WIDTH   78 /* the help's lines, at most (a word longer) */
#define HELP_COL_MAX 20 /* the flag column; a longer flag has its own line */

/* Whether a[0..len) is the other form of the switch name: --no-X for --X,
 * --X for --no-X. */
static int negation(const char *name, const char *a, size_t len)
{
    size_t n = strlen(name);

    if (strncmp(name, "--no-", 5) == 0)
        return len == n - 3 && strncmp(a, "--", 2) == 0 &&
               memcmp(a + 2, name + 5, len - 2) == 0;
    return len == n + 3 && strncmp(a, "--no-", 5) == 0 &&
           memcmp(a + 5, name + 2, len - 5) == 0;
}

/* The entry of o (its includes searched in place) named a[0..len): the
 * exact name when neg is 0, a switch's other form when 1. */
static const struct cli_opt *find_opt(const struct cli_opt *o, const char *a,
                                      size_t len, int neg)
{
    const struct cli_opt *in;

    for (; o->type != CLI_T_END; o++) {
        if (o->type == CLI_T_INCLUDE) {
            if ((in = find_opt(o->include, a, len, neg)) != NULL)
                return in;
        } else if (o->type == CLI_T_GROUP) {
            continue;
        } else if (!neg && strlen(o->name) == len &&
                   memcmp(o->name, a, len) == 0) {
            return o;
        } else if (neg && o->type == CLI_T_SWITCH &&
                   negation(o->name, a, len)) {
            return o;
        }
    }
    return NULL;
}

size_t cli_distance(const char *a, size_t la, const char *b)
{
    /* optimal string alignment (Damerau-Levenshtein with adjacent swaps),
     * as git's levenshtein.c for "did you mean": rows of 65 at most, a
     * longer word is as far as its length */
    size_t lb = strlen(b), i, j, row[3][65];

    if (la > 64 || lb > 64)
        return la > lb ? la : lb;
    for (j = 0; j <= lb; j++)
        row[1][j] = j;
    for (i = 1; i <= la; i++) {
        size_t *cur = row[(i + 1) % 3], *prev = row[i % 3],
               *prev2 = row[(i + 2) % 3];
        cur[0] = i;
        for (j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1], best = prev[j - 1] + cost;
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
                a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < best)
                best = prev2[j - 2] + 1;
            cur[j] = best;
        }
    }
    return row[(la + 1) % 3][lb];
}

/* The shown flag nearest a[0..len) in o (and its includes; a switch in
 * either form), copied into out (size bytes) with its distance in *best;
 * out is left alone when none is nearer than *best was. */
static void nearest_opt(const struct cli_opt *o, const char *a, size_t len,
                        size_t *best, char *out, size_t size)
{
    char other[80];
    size_t d;

    for (; o->type != CLI_T_END; o++) {
        if (o->type == CLI_T_INCLUDE) {
            nearest_opt(o->include, a, len, best, out, size);
            continue;
        }
        if (o->type == CLI_T_GROUP || o->help == NULL)
            continue;
        if ((d = cli_distance(a, len, o->name)) < *best) {
            *best = d;
            snprintf(out, size, "%s", o->name);
        }
        if (o->type != CLI_T_SWITCH)
            continue;
        if (strncmp(o->name, "--no-", 5) == 0) /* --no-html: --html */
            snprintf(other, sizeof(other), "--%s", o->name + 5);
        else
            snprintf(other, sizeof(other), "--no-%s", o->name + 2);
        if ((d = cli_distance(a, len, other)) < *best) {
            *best = d;
            snprintf(out, size, "%s", other);
        }
    }
}

/* The edits within which a word of len bytes is taken for a typo: a
 * third of it, at least 2 (one "did you mean" rule for commands and
 * flags). */
static size_t typo_edits(size_t len)
{
    return len / 3 > 2 ? len / 3 : 2;
}

const char *cli_suggest(const char *word, size_t len, const char *const *names,
                        size_t n)
{
    size_t best = typo_edits(len) + 1, d, i;
    const char *found = NULL;

    for (i = 0; i < n; i++)
        if ((d = cli_distance(word, len, names[i])) < best) {
            best = d;
            found = names[i];
        }
    return found;
}

/* v, a whole number of o's range (or o's word), into o's destination. */
static int set_whole(const char *cmd, const struct cli_opt *o, const char *v)
{
    long n;

    if (o->word != NULL && strcmp(v, o->word) == 0) {
        n = o->word_value;
    } else if (cli_whole(v, o->min, o->max, &n) != 0) {
        cli_error(cmd,
                  "%s wants a whole number from %ld to %ld%s%s%s, not "
                  "'%.64s'",
                  o->name, o->min, o->max, o->word ? " or '" : "",
                  o->word ? o->word : "", o->word ? "'" : "", v);
        return EXIT_USAGE;
    }
    if (o->type == CLI_T_INT)
        *(int *)o->dest = (int)n;
    else if (o->type == CLI_T_LONG)
        *(long *)o->dest = n;
    else
        *(size_t *)o->dest = (size_t)n;
    return 0;
}

/* The value v of the flag o into its destination. 0 or EXIT_USAGE. */
static int set_value(const char *cmd, const struct cli_opt *o, const char *v)
{
    double d;

    switch (o->type) {
    case CLI_T_STRING:
        *(const char **)o->dest = v;
        return 0;
    case CLI_T_LIST:
        if (*o->count >= o->most) {
            cli_error(cmd, "flag '%s' given more than %zu times", o->name,
                      o->most);
            return EXIT_USAGE;
        }
        ((const char **)o->dest)[(*o->count)++] = v;
        return 0;
    case CLI_T_DECIMAL:
        if (cli_decimal(v, &d) != 0 || !(d > o->dmin && d < o->dmax)) {
            cli_error(cmd,
                      "%s wants a number%s%s above %g and below %g, "
                      "not '%.64s'",
                      o->name, o->unit ? " of " : "", o->unit ? o->unit : "",
                      o->dmin, o->dmax, v);
            return EXIT_USAGE;
        }
        *(double *)o->dest = d;
        return 0;
    default:
        return set_whole(cmd, o, v);
    }
}

/* The flag at argv[*i] (its value after '=' or the next argument, then
 * taken too). 0 or EXIT_USAGE. */
static int one_flag(const struct cli_command *cmd, int argc, char **argv,
                    int *i)
{
    const char *a = argv[*i], *eq = strchr(a, '='), *v;
    size_t len = eq ? (size_t)(eq - a) : strlen(a);
    const struct cli_opt *o = find_opt(cmd->opts, a, len, 0);
    int neg = 0;

    if (o == NULL && (o = find_opt(cmd->opts, a, len, 1)) != NULL)
        neg = 1;
    if (o == NULL) {
        size_t best = typo_edits(len) + 1;
        char near[80] = "";
        nearest_opt(cmd->opts, a, len, &best, near, sizeof(near));
        if (near[0] != '\0')
            cli_error(cmd->name, "unknown flag '%.*s'; did you mean '%s'?",
                      (int)len, a, near);
        else
            cli_error(cmd->name, "unknown flag '%.*s' (see --help)", (int)len,
                      a);
        return EXIT_USAGE;
    }
    if (o->type == CLI_T_SWITCH) {
        if (eq != NULL) {
            cli_error(cmd->name, "flag '%.*s' takes no value", (int)len, a);
            return EXIT_USAGE;
        }
        *(int *)o->dest = !neg;
    } else {
        v = eq ? eq + 1 : *i + 1 < argc ? argv[++*i] : NULL;
        if (v == NULL) {
            cli_error(cmd->name, "flag '%s' needs a value (%s)", o->name,
                      o->arg ? o->arg : "see --help");
            return EXIT_USAGE;
        }
        if (set_value(cmd->name, o, v) != 0)
            return EXIT_USAGE;
    }
    if (o->seen != NULL)
        *o->seen = 1;
    return 0;
}

/* The first required flag of o that was not given, or NULL. */
static const struct cli_opt *missing(const struct cli_opt *o)
{
    const struct cli_opt *in;

    for (; o->type != CLI_T_END; o++) {
        if (o->type == CLI_T_INCLUDE && (in = missing(o->include)) != NULL)
            return in;
        if (o->required && *(const char **)o->dest == NULL)
            return o;
    }
    return NULL;
}

int cli_parse(const struct cli_command *cmd, int argc, char **argv,
              const char **pos, size_t *npos)
{
    const struct cli_opt *need;
    int i, only_pos = 0, help = 0;

    *npos = 0;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!only_pos && strcmp(a, "--") == 0) {
            only_pos = 1;
        } else if (only_pos || a[0] != '-' || a[1] == '\0') {
            if (*npos >= cmd->max_args) {
                cli_error(cmd->name, "too many arguments at '%s' (see --help)",
                          a);
                return EXIT_USAGE;
            }
            pos[(*npos)++] = a;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            help = 1;
        } else if (one_flag(cmd, argc, argv, &i) != 0) {
            return EXIT_USAGE;
        }
    }
    if (help) {
        cli_help(cmd, stdout);
        return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
    }
    if (*npos < cmd->min_args) {
        cli_error(cmd->name, "needs %s (see --help)", cmd->args);
        return EXIT_USAGE;
    }
    if ((need = missing(cmd->opts)) != NULL) {
        cli_error(cmd->name, "needs %s%s%s (see --help)", need->name,
                  need->arg ? " " : "", need->arg ? need->arg : "");
        return EXIT_USAGE;
    }
    return CLI_GO;
}

/* The help's writer: words wrapped at HELP_WIDTH, lines after the first
 * indented to indent. */
struct wrap {
    FILE *out;
    size_t col, indent;
    int fresh; /* nothing on this line yet past the indent */
};

static void wrap_words(struct wrap *w, const char *p)
{
    while (*p != '\0') {
        size_t n = strcspn(p, " \n");
        if (*p == ' ' || *p == '\n') {
            if (*p++ == '\n') { /* a break the text asks for */
                fprintf(w->out, "\n%*s", (int)w->indent, "");
                w->col = w->indent;
                w->fresh = 1;
            }
            continue;
        }
        if (!w->fresh && w->col + 1 + n > HELP_WIDTH) {
            fprintf(w->out, "\n%*s", (int)w->indent, "");
            w->col = w->indent;
            w->fresh = 1;
        }
        if (!w->fresh) {
            fputc(' ', w->out);
            w->col++;
        }
        fwrite(p, 1, n, w->out);
        w->col += n;
        w->fresh = 0;
        p += n;
    }
}

/* s as one word: on this line when it fits, else on the next. */
static void wrap_unit(struct wrap *w, const char *s)
{
    size_t n = strlen(s);

    if (n == 0)
        return;
    if (!w->fresh && w->col + 1 + n > HELP_WIDTH) {
        fprintf(w->out, "\n%*s", (int)w->indent, "");
        w->col = w->indent;
        w->fresh = 1;
    }
    fprintf(w->out, "%s%s", w->fresh ? "" : " ", s);
    w->col += n + !w->fresh;
    w->fresh = 0;
}

static size_t flag_width(const struct cli_opt *o)
{
    return strlen(o->name) + (o->arg ? 1 + strlen(o->arg) : 0);
}

/* The flag column: the widest shown flag of o, at most HELP_COL_MAX. */
static size_t column(const struct cli_opt *o, size_t w)
{
    for (; o->type != CLI_T_END; o++) {
        if (o->type == CLI_T_INCLUDE)
            w = column(o->include, w);
        else if (o->type != CLI_T_GROUP && o->help != NULL &&
                 flag_width(o) > w && flag_width(o) <= HELP_COL_MAX)
            w = flag_width(o);
    }
    return w;
}

/* What the help adds after a flag's text: its range, its cap, or that
 * the command needs it. */
static void range_of(const struct cli_opt *o, char *s, size_t size)
{
    s[0] = '\0';
    if (o->type == CLI_T_INT || o->type == CLI_T_LONG || o->type == CLI_T_SIZE)
        snprintf(s, size, "[%ld to %ld%s%s]", o->min, o->max,
                 o->word ? ", or " : "", o->word ? o->word : "");
    else if (o->type == CLI_T_DECIMAL)
        snprintf(s, size, "[above %g, below %g]", o->dmin, o->dmax);
    else if (o->type == CLI_T_LIST)
        snprintf(s, size, "[at most %zu times]", o->most);
    else if (o->required)
        snprintf(s, size, "[required]");
}

/* The shown flags of o, one paragraph each; the first switch seen into
 * *sw (for the --no- line). */
static void help_opts(FILE *out, const struct cli_opt *o, size_t col,
                      const struct cli_opt **sw)
{
    char range[128];

    for (; o->type != CLI_T_END; o++) {
        struct wrap w = {out, 0, col + 4, 1};
        if (o->type == CLI_T_INCLUDE) {
            help_opts(out, o->include, col, sw);
            continue;
        }
        if (o->type == CLI_T_GROUP) {
            struct wrap t = {out, 0, 0, 1};
            fputc('\n', out);
            wrap_words(&t, o->name);
            fputc('\n', out);
            continue;
        }
        if (o->help == NULL)
            continue;
        if (o->type == CLI_T_SWITCH && *sw == NULL)
            *sw = o;
        fprintf(out, "  %s%s%s", o->name, o->arg ? " " : "",
                o->arg ? o->arg : "");
        if (flag_width(o) > col)
            fprintf(out, "\n%*s", (int)(col + 4), "");
        else
            fprintf(out, "%*s", (int)(col + 2 - flag_width(o)), "");
        w.col = col + 4;
        wrap_words(&w, o->help);
        range_of(o, range, sizeof(range));
        wrap_unit(&w, range);
        fputc('\n', out);
    }
}

void cli_help(const struct cli_command *cmd, FILE *out)
{
    const struct cli_opt *sw = NULL;

    fprintf(out, "usage: %s\n", cmd->usage);
    if (cmd->about != NULL)
        fprintf(out, "\n%s", cmd->about);
    if (cmd->opts->type != CLI_T_END) {
        fputc('\n', out);
        help_opts(out, cmd->opts, column(cmd->opts, 0), &sw);
    }
    if (sw != NULL && strncmp(sw->name, "--no-", 5) == 0)
        fprintf(out, "  (a switch's other form undoes it: --%s undoes %s)\n",
                sw->name + 5, sw->name);
    else if (sw != NULL)
        fprintf(out, "  (a switch's --no- form undoes it: --no-%s)\n",
                sw->name + 2);
    if (cmd->after != NULL)
        fprintf(out, "\n%s", cmd->after);
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
    char shown[200];

    if (cli_rung_name_ok(name))
        return 0;
    /* the name as text: a control character in it never reaches the
     * terminal (util_printable's \xNN) */
    util_printable(name, strlen(name), shown, sizeof(shown));
    cli_error(cmd,
              "invalid rung name '%s' (letters, digits, '.', '_' and '-' "
              "only, not starting with '.' or '-')",
              shown);
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

int cli_out_absent(const char *cmd, const char *path, int force)
{
    struct stat st;

    if (force || lstat(path, &st) != 0)
        return 0;
    cli_error(cmd,
              "'%s' is there already: --force writes over it, or --out "
              "names another",
              path);
    return EXIT_USAGE;
}

int cli_out_state(const char *path, int *err)
{
    struct stat st;
    struct dirent *e;
    DIR *d;
    int full = 0;

    if (lstat(path, &st) != 0) {
        *err = errno;
        return errno == ENOENT ? CLI_OUT_ABSENT : CLI_OUT_ERROR;
    }
    if (S_ISLNK(st.st_mode))
        return CLI_OUT_LINK;
    if (!S_ISDIR(st.st_mode))
        return CLI_OUT_NOTDIR;
    if ((d = opendir(path)) == NULL) {
        *err = errno;
        return CLI_OUT_ERROR;
    }
    while (!full && (e = readdir(d)) != NULL)
        full = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return full ? CLI_OUT_FULL : CLI_OUT_EMPTY;
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
