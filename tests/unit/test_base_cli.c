/*
 * test_base_cli.c - the commands' front door: cli_parse over a table of
 * typed options and the help cli_help makes from it.
 *
 * Tests: orchestrator/base/cli.c
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../orchestrator/base/cli.h"

/* What one parse saw: the destinations and what it said on stderr. */
struct seen {
    int sw, off, ngl, ngl_given;
    const char *str, *need, *list[3];
    size_t nlist, size;
    long whole;
    double dec;
    char err[1024];
};

static struct seen s;

/* argv (NULL-terminated, "t" first) through the test table, stderr kept
 * in s.err. cli_parse's return. */
static int parse_v(const char **pos, size_t *npos, char **argv)
{
    const struct cli_opt inner[] = {
        CLI_SWITCH("--think", &s.sw, "thinking on"),
        {.type = CLI_T_INT,
         .name = "--ngl",
         .arg = "N|auto",
         .dest = &s.ngl,
         .min = 0,
         .max = 99,
         .word = "auto",
         .word_value = -1,
         .seen = &s.ngl_given,
         .help = "layers"},
        CLI_END};
    const struct cli_opt opts[] = {
        CLI_STRING("--str", "S", &s.str, "a string"),
        CLI_LIST("--item", "X", s.list, &s.nlist, 3, "an item"),
        CLI_LONG("--whole", "N", &s.whole, -5, 64, "a whole number"),
        CLI_SIZE("--size", "B", &s.size, 1024, 1L << 40, "bytes"),
        CLI_DECIMAL("--dec", "D", &s.dec, 0, 100, "points", "a margin"),
        CLI_SWITCH("--no-html", &s.off, "no page"),
        CLI_NEEDED("--need", "X", &s.need, "a needed one"),
        CLI_HIDDEN("--hidden", &s.str),
        CLI_GROUP("Inner options:"),
        CLI_INCLUDE(inner),
        CLI_END};
    const struct cli_command cmd = {
        "t", "graveyard t A [B]", "About t.\n", "After t.\n", opts, "A", 1, 2};
    int argc = 0, fd, saved, rc;
    FILE *f = tmpfile();

    while (argv[argc] != NULL)
        argc++;
    memset(&s, 0, sizeof(s));
    s.whole = 7; /* a default, left alone unless given */
    assert_non_null(f);
    fflush(stderr);
    saved = dup(2);
    fd = fileno(f);
    dup2(fd, 2);
    rc = cli_parse(&cmd, argc, argv, pos, npos);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(f);
    s.err[fread(s.err, 1, sizeof(s.err) - 1, f)] = '\0';
    fclose(f);
    return rc;
}

#define PARSE(...) parse_v(pos, &npos, (char *[]){"t", __VA_ARGS__, NULL})

/* Each type into its destination, both spellings of a value. */
static void test_types(void **state)
{
    const char *pos[2];
    size_t npos;

    (void)state;
    assert_int_equal(PARSE("a", "--need", "x", "--str=v", "--item", "i1",
                           "--item=i2", "--whole", "-5", "--size", "2048",
                           "--dec", "2.5", "--think", "--ngl", "0", "b"),
                     CLI_GO);
    assert_int_equal(npos, 2);
    assert_string_equal(pos[0], "a");
    assert_string_equal(pos[1], "b");
    assert_string_equal(s.str, "v");
    assert_string_equal(s.need, "x");
    assert_int_equal(s.nlist, 2);
    assert_string_equal(s.list[1], "i2");
    assert_int_equal(s.whole, -5);
    assert_int_equal(s.size, 2048);
    assert_true(s.dec == 2.5);
    assert_int_equal(s.sw, 1);
    assert_int_equal(s.ngl, 0);
    assert_int_equal(s.ngl_given, 1);
    assert_string_equal(s.err, "");
    /* not given: defaults kept, not seen */
    assert_int_equal(PARSE("a", "--need", "x"), CLI_GO);
    assert_int_equal(s.whole, 7);
    assert_int_equal(s.ngl_given, 0);
    /* the word for its value */
    assert_int_equal(PARSE("a", "--need", "x", "--ngl=auto"), CLI_GO);
    assert_int_equal(s.ngl, -1);
}

/* Ranges: the edges in, one past each out, with one line naming the
 * command, the flag, the range and the value. */
static void test_ranges(void **state)
{
    const char *pos[2];
    size_t npos;

    (void)state;
    assert_int_equal(PARSE("a", "--need", "x", "--whole", "64"), CLI_GO);
    assert_int_equal(s.whole, 64);
    assert_int_equal(PARSE("a", "--need", "x", "--whole", "65"), EXIT_USAGE);
    assert_string_equal(s.err, "graveyard t: --whole wants a whole number "
                               "from -5 to 64, not '65'\n");
    assert_int_equal(PARSE("a", "--need", "x", "--whole", "-6"), EXIT_USAGE);
    assert_int_equal(PARSE("a", "--need", "x", "--whole", "0x10"), EXIT_USAGE);
    assert_int_equal(PARSE("a", "--need", "x", "--size", "1024"), CLI_GO);
    assert_int_equal(s.size, 1024);
    assert_int_equal(PARSE("a", "--need", "x", "--size", "1023"), EXIT_USAGE);
    assert_int_equal(PARSE("a", "--need", "x", "--size", "1099511627776"),
                     CLI_GO);
    assert_int_equal(s.size, (size_t)1 << 40);
    assert_int_equal(PARSE("a", "--need", "x", "--size", "1099511627777"),
                     EXIT_USAGE);
    assert_int_equal(PARSE("a", "--need", "x", "--ngl", "99"), CLI_GO);
    assert_int_equal(PARSE("a", "--need", "x", "--ngl", "100"), EXIT_USAGE);
    assert_string_equal(s.err, "graveyard t: --ngl wants a whole number "
                               "from 0 to 99 or 'auto', not '100'\n");
    assert_int_equal(PARSE("a", "--need", "x", "--dec", "99.99"), CLI_GO);
    assert_int_equal(PARSE("a", "--need", "x", "--dec", "100"), EXIT_USAGE);
    assert_string_equal(s.err, "graveyard t: --dec wants a number of points "
                               "above 0 and below 100, not '100'\n");
    assert_int_equal(PARSE("a", "--need", "x", "--dec", "0"), EXIT_USAGE);
    assert_int_equal(PARSE("a", "--need", "x", "--dec=1e1"), EXIT_USAGE);
}

/* A switch's other form: --no-X for --X, --X for --no-X; no value. */
static void test_negation(void **state)
{
    const char *pos[2];
    size_t npos;

    (void)state;
    assert_int_equal(PARSE("a", "--need", "x", "--think", "--no-think"),
                     CLI_GO);
    assert_int_equal(s.sw, 0);
    assert_int_equal(PARSE("a", "--need", "x", "--no-think", "--think"),
                     CLI_GO);
    assert_int_equal(s.sw, 1);
    assert_int_equal(PARSE("a", "--need", "x", "--no-html"), CLI_GO);
    assert_int_equal(s.off, 1);
    assert_int_equal(PARSE("a", "--need", "x", "--no-html", "--html"), CLI_GO);
    assert_int_equal(s.off, 0);
    assert_int_equal(PARSE("a", "--need", "x", "--think=1"), EXIT_USAGE);
    assert_non_null(strstr(s.err, "'--think' takes no value"));
    /* only switches have one */
    assert_int_equal(PARSE("a", "--need", "x", "--no-str"), EXIT_USAGE);
    assert_non_null(strstr(s.err, "unknown flag '--no-str'"));
}

/* "--" ends flags; "-" is a positional; unknown flags and missing values
 * are one line each. */
static void test_errors(void **state)
{
    const char *pos[2];
    size_t npos;

    (void)state;
    assert_int_equal(PARSE("--need", "x", "--", "--whole"), CLI_GO);
    assert_int_equal(npos, 1);
    assert_string_equal(pos[0], "--whole");
    assert_int_equal(s.whole, 7);
    assert_int_equal(PARSE("-", "--need", "x"), CLI_GO);
    assert_string_equal(pos[0], "-");
    assert_int_equal(PARSE("a", "--need", "x", "--bogus"), EXIT_USAGE);
    assert_string_equal(s.err,
                        "graveyard t: unknown flag '--bogus' (see --help)\n");
    assert_int_equal(PARSE("a", "--need", "x", "--bogus=1"), EXIT_USAGE);
    assert_non_null(strstr(s.err, "unknown flag '--bogus'"));
    assert_int_equal(PARSE("a", "--need", "x", "--whole"), EXIT_USAGE);
    assert_string_equal(s.err,
                        "graveyard t: flag '--whole' needs a value (N)\n");
    /* positionals: too few, too many */
    assert_int_equal(PARSE("--need", "x"), EXIT_USAGE);
    assert_string_equal(s.err, "graveyard t: needs A (see --help)\n");
    assert_int_equal(PARSE("a", "b", "c", "--need", "x"), EXIT_USAGE);
    assert_string_equal(
        s.err, "graveyard t: too many arguments at 'c' (see --help)\n");
    /* a required flag */
    assert_int_equal(PARSE("a"), EXIT_USAGE);
    assert_string_equal(s.err, "graveyard t: needs --need X (see --help)\n");
    /* a list past its cap */
    assert_int_equal(
        PARSE("a", "--need", "x", "--item", "1", "--item", "2", "--item", "3"),
        CLI_GO);
    assert_int_equal(s.nlist, 3);
    assert_int_equal(PARSE("a", "--need", "x", "--item", "1", "--item", "2",
                           "--item", "3", "--item", "4"),
                     EXIT_USAGE);
    assert_string_equal(
        s.err, "graveyard t: flag '--item' given more than 3 times\n");
    /* each error is one line */
    assert_ptr_equal(strchr(s.err, '\n'), s.err + strlen(s.err) - 1);
}

/* "did you mean": the edits between two words (a swap is one), the
 * nearest flag of the table and its includes, in either form of a
 * switch; nothing offered for a word no flag is near */
static void test_suggest(void **state)
{
    static const char *const cmds[] = {"ladder", "report", "run", "init"};
    const char *pos[2];
    size_t npos;

    (void)state;
    assert_int_equal(cli_distance("ladder", 6, "ladder"), 0);
    assert_int_equal(cli_distance("ladedr", 6, "ladder"), 1); /* a swap */
    assert_int_equal(cli_distance("ladr", 4, "ladder"), 2);
    assert_int_equal(cli_distance("", 0, "run"), 3);
    assert_string_equal(cli_suggest("ladr", 4, cmds, 4), "ladder");
    assert_string_equal(cli_suggest("reprot", 6, cmds, 4), "report");
    assert_null(cli_suggest("zzzz", 4, cmds, 4));
    assert_null(cli_suggest("publish", 7, cmds, 4));
    assert_int_equal(PARSE("a", "--need", "x", "--wholee", "3"), EXIT_USAGE);
    assert_string_equal(
        s.err,
        "graveyard t: unknown flag '--wholee'; did you mean '--whole'?\n");
    assert_int_equal(PARSE("a", "--need", "x", "--thikn"), EXIT_USAGE);
    assert_non_null(strstr(s.err, "did you mean '--think'?")); /* included */
    assert_int_equal(PARSE("a", "--need", "x", "--no-thinkk"), EXIT_USAGE);
    assert_non_null(strstr(s.err, "did you mean '--no-think'?"));
    assert_int_equal(PARSE("a", "--need", "x", "--htm"), EXIT_USAGE);
    assert_non_null(strstr(s.err, "did you mean '--html'?")); /* --no-html's */
    assert_int_equal(PARSE("a", "--need", "x", "--hiden", "v"), EXIT_USAGE);
    assert_null(strstr(s.err, "--hidden")); /* a hidden flag is not offered */
}

/* --help: exit 0 before the positional and required checks, the text made
 * from the table: every shown flag with its argument, ranges, groups, the
 * included table; the hidden one not. */
static void test_help(void **state)
{
    const char *pos[2];
    size_t npos;
    char out[8192];
    FILE *f = tmpfile();
    int saved = dup(1);
    size_t n;

    (void)state;
    assert_non_null(f);
    fflush(stdout);
    dup2(fileno(f), 1);
    assert_int_equal(PARSE("--help"), EXIT_OK);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    rewind(f);
    n = fread(out, 1, sizeof(out) - 1, f);
    out[n] = '\0';
    fclose(f);
    assert_string_equal(s.err, "");
    assert_non_null(strstr(out, "usage: graveyard t A [B]\n"));
    assert_non_null(strstr(out, "About t."));
    assert_non_null(strstr(out, "After t."));
    static const char *const want[] = {"--str S",
                                       "--item X",
                                       "--whole N",
                                       "--size B",
                                       "--dec D",
                                       "--no-html",
                                       "--need X",
                                       "--think",
                                       "--ngl N|auto",
                                       "[-5 to 64]",
                                       "[1024 to 1099511627776]",
                                       "[above 0, below 100]",
                                       "[0 to 99, or auto]",
                                       "[at most 3 times]",
                                       "Inner options:",
                                       "a needed one [required]",
                                       "--html undoes --no-html"};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (strstr(out, want[i]) == NULL)
            fail_msg("help lacks '%s':\n%s", want[i], out);
    assert_null(strstr(out, "--hidden"));
    /* every line within the width, a word too long aside */
    for (char *line = out, *nl; (nl = strchr(line, '\n')); line = nl + 1)
        assert_true(nl - line <= 78);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_types),    cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_negation), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_help),     cmocka_unit_test(test_suggest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
