/*
 * test_sandbox_parse.c - the sandbox's pure parts (sandbox.h): the
 * outcomes' names both ways, the limits' defaults, the argv that runs
 * the harness (bubblewrap's flags, never a shell; python3 alone with
 * --unsafe-exec), the harness's result line read with suspicion (canned
 * lines, hostile ones: over-long, control characters, fields missing or
 * of the wrong type, counts that do not add up, a forged nonce, two
 * lines), the decision that turns a process's end into an outcome, and
 * the output's printable tail.
 *
 * Tests: orchestrator/sandbox/sandbox.c
 * Tests: orchestrator/sandbox/harness.c
 */
#include "helpers.h"

#include <signal.h>
#include <unistd.h>

#include "../../orchestrator/sandbox/sandbox.h"

static void test_names(void **state)
{
    int i;

    (void)state;
    for (i = 0; i < SANDBOX_OUTCOMES; i++)
        assert_int_equal(sandbox_outcome_parse(sandbox_outcome_name(i)), i);
    assert_string_equal(sandbox_outcome_name(SANDBOX_SYNTAX), "syntax_error");
    assert_string_equal(sandbox_outcome_name(SANDBOX_NO_CODE), "no_code");
    assert_string_equal(sandbox_outcome_name(SANDBOX_KILLED), "killed");
    assert_int_equal(sandbox_outcome_parse("Passed"), -1);
    assert_int_equal(sandbox_outcome_parse(""), -1);
    assert_int_equal(sandbox_outcome_parse(NULL), -1);
    assert_string_equal(sandbox_outcome_name((enum sandbox_outcome)99),
                        "unknown");
}

static void test_defaults(void **state)
{
    struct sandbox_conf c;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    (void)state;
    memset(&c, 0x5a, sizeof(c));
    sandbox_conf_default(&c);
    assert_string_equal(c.bwrap, "bwrap");
    assert_string_equal(c.python, "/usr/bin/python3");
    assert_int_equal(c.timeout_ms, 10000);
    assert_int_equal(c.cpu_s, 0);
    assert_int_equal(c.memory_mb, 1024);
    assert_int_equal(c.nproc, 64);
    assert_int_equal(c.fsize_mb, 16);
    assert_int_equal(c.output_cap, 64 * 1024);
    assert_int_equal(c.jobs, cores > 64 ? 64 : cores < 1 ? 1 : cores);
    assert_int_equal(c.unsafe, 0);
    assert_int_equal(c.uid, SANDBOX_UID_BASE);
}

/* index of word in argv, or -1 */
static int find(const char **argv, int n, const char *word)
{
    int i;

    for (i = 0; i < n; i++)
        if (strcmp(argv[i], word) == 0)
            return i;
    return -1;
}

static void test_argv(void **state)
{
    struct sandbox_conf c;
    const char *argv[96];
    char nums[32];
    int n, i;

    (void)state;
    sandbox_conf_default(&c);
    c.fsize_mb = 3;
    n = sandbox__argv(&c, argv, 96, nums, sizeof(nums));
    assert_true(n > 10);
    assert_null(argv[n]);
    assert_string_equal(argv[0], "bwrap");
    /* each flag the design rests on is there */
    assert_true(find(argv, n, "--unshare-all") > 0);
    assert_true(find(argv, n, "--unshare-user") > 0);
    assert_true(find(argv, n, "--disable-userns") > 0);
    assert_true(find(argv, n, "--die-with-parent") > 0);
    assert_true(find(argv, n, "--new-session") > 0);
    assert_true(find(argv, n, "--clearenv") > 0);
    i = find(argv, n, "--cap-drop");
    assert_true(i > 0);
    assert_string_equal(argv[i + 1], "ALL");
    i = find(argv, n, "--size");
    assert_true(i > 0);
    assert_string_equal(argv[i + 1], "3145728");
    assert_string_equal(argv[i + 2], "--tmpfs"); /* --size is the next's */
    assert_string_equal(argv[i + 3], "/tmp");
    i = find(argv, n, "--remount-ro"); /* the root is not writable */
    assert_true(i > 0);
    assert_string_equal(argv[i + 1], "/");
    /* nothing of the host but /usr and the loader's cache */
    assert_int_equal(find(argv, n, "/root"), -1);
    assert_int_equal(find(argv, n, "/home"), -1);
    assert_int_equal(find(argv, n, "/etc"), -1);
    assert_int_equal(find(argv, n, "--bind"), -1);
    assert_int_equal(find(argv, n, "--share-net"), -1);
    i = find(argv, n, "--ro-bind");
    assert_string_equal(argv[i + 1], "/usr");
    /* python3 last: -I, the harness as its -c */
    i = find(argv, n, "--");
    assert_string_equal(argv[i + 1], "/usr/bin/python3");
    assert_string_equal(argv[i + 2], "-I");
    assert_string_equal(argv[i + 3], "-S");
    assert_string_equal(argv[i + 4], "-c");
    assert_ptr_equal(argv[i + 5], sandbox_harness());
    assert_int_equal(i + 6, n);
    /* unsafe: python3 alone */
    c.unsafe = 1;
    c.python = "/opt/py3";
    n = sandbox__argv(&c, argv, 96, nums, sizeof(nums));
    assert_int_equal(n, 5);
    assert_string_equal(argv[0], "/opt/py3");
    assert_null(argv[5]);
    /* too small an array is refused, never overrun */
    assert_int_equal(sandbox__argv(&c, argv, 8, nums, sizeof(nums)), -1);
}

static void test_harness_hash(void **state)
{
    const char *h = sandbox_harness_sha256();

    (void)state;
    assert_int_equal(strlen(h), 64);
    assert_string_equal(h, sandbox_harness_sha256());
    assert_non_null(strstr(sandbox_harness(), "nonce"));
    assert_non_null(strstr(sandbox_harness(), "_graveyard_harness()\n"));
    assert_int_equal(sandbox_harness()[strlen(sandbox_harness()) - 1], '\n');
}

#define NONCE "0123456789abcdef0123456789abcdef"

static int parse(const char *line, struct sandbox_result *r, char *msg)
{
    memset(r, 0, sizeof(*r));
    return sandbox__parse_result(line, strlen(line), NONCE, r, msg, 256);
}

static void test_parse_good(void **state)
{
    struct sandbox_result r;
    char msg[256];

    (void)state;
    assert_int_equal(
        parse("{\"outcome\":\"failed\",\"passed\":2,\"total\":5,"
              "\"exception\":\"\",\"limit\":\"\",\"failed_test\":1,"
              "\"nonce\":\"" NONCE "\"}\n",
              &r, msg),
        0);
    assert_int_equal(r.outcome, SANDBOX_FAILED);
    assert_int_equal(r.passed, 2);
    assert_int_equal(r.total, 5);
    assert_int_equal(r.failed_test, 1);
    assert_int_equal(
        parse("{\"outcome\":\"error\",\"passed\":0,\"total\":1,"
              "\"exception\":\"ZeroDivisionError\",\"limit\":\"\","
              "\"failed_test\":0,\"nonce\":\"" NONCE "\"}",
              &r, msg),
        0);
    assert_int_equal(r.outcome, SANDBOX_ERROR);
    assert_string_equal(r.exception, "ZeroDivisionError");
    assert_int_equal(
        parse("{\"outcome\":\"passed\",\"passed\":0,\"total\":0,"
              "\"exception\":\"\",\"limit\":\"\",\"failed_test\":-1,"
              "\"nonce\":\"" NONCE "\"}",
              &r, msg),
        0);
    assert_int_equal(r.outcome, SANDBOX_PASSED);
    /* a limit with no tests: nothing to name as failed */
    assert_int_equal(
        parse("{\"outcome\":\"killed\",\"passed\":0,\"total\":0,"
              "\"exception\":\"\",\"limit\":\"memory\",\"failed_test\":-1,"
              "\"nonce\":\"" NONCE "\"}",
              &r, msg),
        0);
    assert_string_equal(r.limit, "memory");
}

/* Lines that are not the harness's, or not sane, are refused, each
 * with a reason. */
static void test_parse_hostile(void **state)
{
    static const struct {
        const char *line, *why;
    } bad[] = {
        {"", "empty"},
        {"not json", "not a JSON object"},
        {"[1,2]", "not a JSON object"},
        {"{\"outcome\":\"passed\",\"passed\":1,\"total\":1,\"exception\":"
         "\"\",\"limit\":\"\",\"failed_test\":-1,\"nonce\":\"forged\"}",
         "nonce"},
        {"{\"outcome\":\"passed\",\"passed\":1,\"total\":1,\"exception\":"
         "\"\",\"limit\":\"\",\"failed_test\":-1}",
         "'nonce' missing"},
        {"{\"passed\":1,\"total\":1,\"exception\":\"\",\"limit\":\"\","
         "\"failed_test\":-1,\"nonce\":\"" NONCE "\"}",
         "'outcome' missing"},
        {"{\"outcome\":\"won\",\"passed\":1,\"total\":1,\"exception\":\"\","
         "\"limit\":\"\",\"failed_test\":-1,\"nonce\":\"" NONCE "\"}",
         "unknown outcome 'won'"},
        /* the C side's verdicts, never the harness's */
        {"{\"outcome\":\"timeout\",\"passed\":0,\"total\":1,\"exception\":"
         "\"\",\"limit\":\"\",\"failed_test\":0,\"nonce\":\"" NONCE "\"}",
         "unknown outcome"},
        {"{\"outcome\":\"passed\",\"passed\":\"1\",\"total\":1,"
         "\"exception\":\"\",\"limit\":\"\",\"failed_test\":-1,\"nonce\":"
         "\"" NONCE "\"}",
         "'passed' missing or not a whole number"},
        {"{\"outcome\":\"passed\",\"passed\":7,\"total\":5,\"exception\":"
         "\"\",\"limit\":\"\",\"failed_test\":-1,\"nonce\":\"" NONCE "\"}",
         "'passed'"},
        {"{\"outcome\":\"passed\",\"passed\":4,\"total\":5,\"exception\":"
         "\"\",\"limit\":\"\",\"failed_test\":-1,\"nonce\":\"" NONCE "\"}",
         "outcome 'passed' with 4 of 5"},
        {"{\"outcome\":\"failed\",\"passed\":5,\"total\":5,\"exception\":"
         "\"\",\"limit\":\"\",\"failed_test\":2,\"nonce\":\"" NONCE "\"}",
         "outcome 'failed' with 5 of 5"},
        {"{\"outcome\":\"failed\",\"passed\":1,\"total\":5,\"exception\":"
         "\"\",\"limit\":\"\",\"failed_test\":5,\"nonce\":\"" NONCE "\"}",
         "'failed_test'"},
        {"{\"outcome\":\"error\",\"passed\":0,\"total\":1,\"exception\":"
         "\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
         "AAAAAAAAAAAAAAAA\",\"limit\":\"\",\"failed_test\":0,\"nonce\":"
         "\"" NONCE "\"}",
         "'exception' over 63 bytes"},
        {"{\"outcome\":\"passed\",\"passed\":1,\"total\":1,\"exception\":"
         "\"\",\"limit\":\"\",\"failed_test\":-1,\"nonce\":\"" NONCE "\"}\n"
         "{\"outcome\":\"passed\"}",
         "more than one line"},
        {"{\"outcome\":\"passed\",\"outcome\":\"passed\",\"passed\":1,"
         "\"total\":1,\"exception\":\"\",\"limit\":\"\",\"failed_test\":-1,"
         "\"nonce\":\"" NONCE "\"}",
         "not a JSON object"},
    };
    struct sandbox_result r;
    char msg[256];
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        msg[0] = '\0';
        if (parse(bad[i].line, &r, msg) != -1 ||
            strstr(msg, bad[i].why) == NULL)
            fail_msg("line %zu: '%s' (wanted '%s')", i, msg, bad[i].why);
        assert_non_null(strstr(msg, "result line"));
    }
}

/* An exception name with control characters is shown, not obeyed. */
static void test_parse_control(void **state)
{
    struct sandbox_result r;
    char msg[256];

    (void)state;
    assert_int_equal(
        parse("{\"outcome\":\"error\",\"passed\":0,\"total\":1,"
              "\"exception\":\"Bad\\u001b[2J\\u0007x\",\"limit\":\"\","
              "\"failed_test\":0,\"nonce\":\"" NONCE "\"}",
              &r, msg),
        0);
    assert_string_equal(r.exception, "Bad\\x1b[2J\\x07x");
}

static void end_init(struct sandbox_end *e, const char *line)
{
    memset(e, 0, sizeof(*e));
    e->line = line;
    e->n = line ? strlen(line) : 0;
    e->nonce = NONCE;
    e->ntests = 3;
    e->cpu_s = 10;
    e->ms = 50;
}

#define FAILED_LINE                                                           \
    "{\"outcome\":\"failed\",\"passed\":1,\"total\":3,\"exception\":\"\","    \
    "\"limit\":\"\",\"failed_test\":1,\"nonce\":\"" NONCE "\"}\n"

static void test_decide(void **state)
{
    struct sandbox_end e;
    struct sandbox_result r;

    (void)state;
    /* the harness's line, as it is */
    end_init(&e, FAILED_LINE);
    memset(&r, 0, sizeof(r));
    sandbox__decide(&e, &r);
    assert_int_equal(r.outcome, SANDBOX_FAILED);
    assert_int_equal(r.passed, 1);
    assert_int_equal(r.ms, 50);
    /* our timer outranks it */
    e.timed_out = 1;
    sandbox__decide(&e, &r);
    assert_int_equal(r.outcome, SANDBOX_TIMEOUT);
    /* no line: the exit, or the signal (bwrap's 128+N) */
    end_init(&e, NULL);
    e.status = 3;
    sandbox__decide(&e, &r);
    assert_int_equal(r.outcome, SANDBOX_ERROR);
    assert_string_equal(r.exception, "exit 3");
    assert_int_equal(r.passed, 0);
    assert_int_equal(r.total, 3);
    assert_int_equal(r.failed_test, 0);
    e.status = 128 + SIGSEGV;
    sandbox__decide(&e, &r);
    assert_string_equal(r.exception, "signal 11");
    e.unsafe = 1; /* python3's own exit status is not a signal's */
    sandbox__decide(&e, &r);
    assert_string_equal(r.exception, "exit 139");
    e.status = 0;
    e.sig = SIGXCPU;
    sandbox__decide(&e, &r);
    assert_int_equal(r.outcome, SANDBOX_KILLED);
    assert_string_equal(r.limit, "cpu");
    assert_string_equal(r.exception, "");
    /* SIGKILL after the CPU seconds: the hard limit's; before: another */
    e.unsafe = 0;
    e.sig = 0;
    e.status = 128 + SIGKILL;
    e.ms = 11000;
    sandbox__decide(&e, &r);
    assert_string_equal(r.limit, "cpu");
    e.ms = 200;
    sandbox__decide(&e, &r);
    assert_int_equal(r.outcome, SANDBOX_ERROR);
    assert_string_equal(r.exception, "signal 9");
    /* a forged line (another nonce) is no line */
    end_init(&e, "{\"outcome\":\"passed\",\"passed\":3,\"total\":3,"
                 "\"exception\":\"\",\"limit\":\"\",\"failed_test\":-1,"
                 "\"nonce\":\"00000000000000000000000000000000\"}");
    sandbox__decide(&e, &r);
    assert_int_equal(r.outcome, SANDBOX_ERROR);
    assert_string_equal(r.exception, "exit 0");
    /* output past the cap: killed "output", whatever the line said */
    end_init(&e, FAILED_LINE);
    e.overflowed = 1;
    sandbox__decide(&e, &r);
    assert_int_equal(r.outcome, SANDBOX_KILLED);
    assert_string_equal(r.limit, "output");
    assert_int_equal(r.failed_test, 1);
}

static void test_output(void **state)
{
    struct sandbox_result r;
    char big[10000];
    size_t i;

    (void)state;
    sandbox__output("a\tb\nc\x1b[2Jd\r\n", 12, &r);
    assert_string_equal(r.output, "a\tb\nc\\x1b[2Jd\\x0d\n");
    sandbox__output("", 0, &r);
    assert_string_equal(r.output, "");
    /* the tail, within its room, from a whole character */
    for (i = 0; i + 2 < sizeof(big); i += 2) {
        big[i] = '\xc3';
        big[i + 1] = '\xa9'; /* é */
    }
    big[i] = 'Z';
    big[i + 1] = '\0';
    sandbox__output(big, i + 1, &r);
    assert_true(strlen(r.output) <= sizeof(r.output) - 1);
    assert_true(strlen(r.output) > sizeof(r.output) - 8);
    assert_int_equal(r.output[strlen(r.output) - 1], 'Z');
    assert_int_equal((unsigned char)r.output[0], 0xc3);
    /* invalid UTF-8 and control bytes everywhere stay within the room */
    for (i = 0; i < sizeof(big); i++)
        big[i] = (char)(i % 7 == 0 ? 0x01 : i % 5 == 0 ? 0xff : 'x');
    sandbox__output(big, sizeof(big), &r);
    assert_true(strlen(r.output) <= sizeof(r.output) - 1);
    assert_null(strchr(r.output, '\x01'));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_argv),
        cmocka_unit_test(test_harness_hash),
        cmocka_unit_test(test_parse_good),
        cmocka_unit_test(test_parse_hostile),
        cmocka_unit_test(test_parse_control),
        cmocka_unit_test(test_decide),
        cmocka_unit_test(test_output),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
