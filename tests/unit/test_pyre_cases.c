/*
 * test_pyre_cases.c - the regular expressions (pyre.h) on hand-written cases:
 * lm-eval-harness's GSM8K filters and exact_match on the vectors of
 * ../shared/reference/peers-2.md 4.4, Python's rules for $, empty
 * matches, lazy repeats and alternation, groups after backtracking,
 * Unicode classes and IGNORECASE, str.lower(), text that is not UTF-8,
 * the refusals, the step budget and stack cap, and out of memory at every
 * allocation. tests/pyre/diff.py compares thousands of random cases with
 * Python itself.
 *
 * Tests: pyre/pyre.c
 * Tests: pyre/pyre_alloc.c
 * Tests: pyre/pyre_compile.c
 * Tests: pyre/pyre_match.c
 * Tests: pyre/pyre_parse.c
 * Tests: pyre/pyre_uni.c
 * Tests: grader/alloc.c
 */
#include "helpers.h"

#include "alloc.h"
#include "chaos.h"
#include "error.h"
#include "pyre.h"
#include "pyre_impl.h"

#define NSPANS (2 * (PYRE_GROUPS_MAX + 1))

static struct pyre *compile_ok(const char *pat, unsigned flags)
{
    struct pyre *re;
    char msg[200];
    int rc = pyre_compile(pat, strlen(pat), flags, &re, msg, sizeof(msg));

    if (rc != 0)
        fail_msg("'%s' refused (%d): %s", pat, rc, msg);
    return re;
}

/* Python's finditer as "s,e s,e ..." (the whole matches), or with
 * groups "s,e/gs,ge/..."; "LIMIT" when the budget ran out. */
static void spans_of(const char *pat, unsigned flags, const char *text,
                     size_t len, char *out, size_t size)
{
    struct pyre *re = compile_ok(pat, flags);
    struct pyre_iter it;
    long sp[NSPANS];
    size_t g, ng = pyre_groups(re), o = 0;
    int rc;

    out[0] = '\0';
    pyre_iter_init(&it, re, text, len);
    while ((rc = pyre_iter_next(&it, sp)) == 1) {
        if (o + 64 * (ng + 1) >= size)
            fail_msg("'%s': more matches than the test expects", pat);
        o += (size_t)snprintf(out + o, size - o, "%s%ld,%ld", o ? " " : "",
                              sp[0], sp[1]);
        for (g = 1; g <= ng; g++)
            o += (size_t)snprintf(out + o, size - o, "/%ld,%ld", sp[2 * g],
                                  sp[2 * g + 1]);
    }
    if (rc == GRADER_ELIMIT)
        snprintf(out, size, "LIMIT");
    else
        assert_int_equal(rc, 0);
    pyre_iter_release(&it);
    pyre_free(re);
}

static void expect_spans(const char *pat, unsigned flags, const char *text,
                         const char *want)
{
    char got[2048];

    spans_of(pat, flags, text, strlen(text), got, sizeof(got));
    if (strcmp(got, want) != 0)
        fail_msg("'%s' on '%s': [%s], want [%s]", pat, text, got, want);
}

/* re.sub(pat, "", text) */
static void expect_sub(const char *pat, const char *text, const char *want)
{
    struct pyre *re = compile_ok(pat, 0);
    size_t n;
    char *out;

    assert_int_equal(pyre_sub_empty(re, text, strlen(text), &out, &n), 0);
    if (strcmp(out, want) != 0 || n != strlen(want))
        fail_msg("sub('%s', '', '%s') gave '%s', want '%s'", pat, text, out,
                 want);
    grader_alloc_free(out);
    pyre_free(re);
}

/* ---- lm-eval-harness's GSM8K filters, as the next engineer will write
 * them on this API ---------------------------------------------------- */

/* str.strip(): \s is Python's whitespace, so \A\s+|\s+\Z removes what
 * strip() does. */
static void py_strip(char *s)
{
    struct pyre *re = compile_ok("\\A\\s+|\\s+\\Z", 0);
    size_t n;
    char *out;

    assert_int_equal(pyre_sub_empty(re, s, strlen(s), &out, &n), 0);
    memcpy(s, out, n + 1);
    grader_alloc_free(out);
    pyre_free(re);
}

/*
 * RegexFilter: m = re.findall(pattern, resp); m = m[group_select] (0 the
 * first, -1 the last); a tuple gives its first non-empty element (all
 * empty: the fallback); strip(); no match: the fallback "[invalid]".
 */
static void lm_regex_filter(const char *pattern, int group_select,
                            const char *resp, char *out, size_t size)
{
    struct pyre *re = compile_ok(pattern, 0);
    struct pyre_iter it;
    long sp[NSPANS], pick[NSPANS];
    size_t ng = pyre_groups(re), g, count = 0;
    long a = -1, b = -1;

    pyre_iter_init(&it, re, resp, strlen(resp));
    while (pyre_iter_next(&it, sp) == 1)
        if (count++ == 0 || group_select == -1)
            memcpy(pick, sp, sizeof(sp));
    pyre_iter_release(&it);
    pyre_free(re);
    snprintf(out, size, "[invalid]");
    if (count == 0)
        return;
    if (ng == 0) {
        a = pick[0], b = pick[1];
    } else if (ng == 1) {
        a = pick[2] < 0 ? 0 : pick[2], b = pick[2] < 0 ? 0 : pick[3];
    } else {
        for (g = 1; g <= ng && a < 0; g++)
            if (pick[2 * g] >= 0 && pick[2 * g + 1] > pick[2 * g])
                a = pick[2 * g], b = pick[2 * g + 1];
        if (a < 0)
            return; /* every element empty */
    }
    snprintf(out, size, "%.*s", (int)(b - a), resp + a);
    py_strip(out);
}

/* exact_match's normalisation for gsm8k: regexes_to_ignore in order with
 * re.sub(s, "", x), then lower() (ignore_case). */
static void lm_normalize(const char *x, char *out, size_t size)
{
    static const char *ignore[] = {",", "\\$", "(?s).*#### ", "\\.$"};
    char *cur = strdup(x), *next, *low;
    size_t i, n;

    assert_non_null(cur);
    for (i = 0; i < 4; i++) {
        struct pyre *re = compile_ok(ignore[i], 0);
        assert_int_equal(pyre_sub_empty(re, cur, strlen(cur), &next, &n), 0);
        free(cur);
        cur = strdup(next);
        grader_alloc_free(next);
        pyre_free(re);
    }
    assert_int_equal(pyre_str_lower(cur, strlen(cur), &low, &n), 0);
    snprintf(out, size, "%s", low);
    grader_alloc_free(low);
    free(cur);
}

struct lm_vector {
    const char *text;
    const char *strict, *flexible, *cot_strict; /* what each filter says */
    int strict_ok, flexible_ok, cot_ok;         /* exact_match on each */
};

/* The table of peers-2.md 4.4; the reference solution ends "#### 1,072". */
static void test_lm_eval_vectors(void **state)
{
    static const struct lm_vector v[] = {
        {"She sold 1,072 clips.\n#### 1,072", "1,072", "1,072", "[invalid]", 1,
         1, 0},
        {"#### $1,072", "[invalid]", "$1,072", "[invalid]", 0, 1, 0},
        {"The answer is 1072", "[invalid]", "1072", "107", 0, 1, 0},
        {"The answer is 1072.", "[invalid]", "1072.", "1072", 0, 1, 1},
        {"In total 1072 clips.\n\nQuestion: Tom has 3 apples", "[invalid]",
         "3", "[invalid]", 0, 0, 0},
        {"It is 1,072...", "[invalid]", "1,072...", "[invalid]", 0, 0, 0},
        {"Between 3-4 days", "[invalid]", "-4", "[invalid]", 0, 0, 0},
        {"Answer: 1072.00", "[invalid]", "1072.00", "[invalid]", 0, 0, 0},
        {"", "[invalid]", "[invalid]", "[invalid]", 0, 0, 0},
    };
    const char *reference = "She sold 1,000 clips and then 72 more.\n"
                            "In $ that is 1,000 + 72 = <<1000+72=1072>>1072."
                            "\n#### 1,072";
    char ref[64], got[256], norm[256];
    size_t i;

    (void)state;
    lm_normalize(reference, ref, sizeof(ref));
    assert_string_equal(ref, "1072");
    for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        const char *want[3] = {v[i].strict, v[i].flexible, v[i].cot_strict};
        const int ok[3] = {v[i].strict_ok, v[i].flexible_ok, v[i].cot_ok};
        const char *pat[3] = {"#### (\\-?[0-9\\.\\,]+)",
                              "(-?[$0-9.,]{2,})|(-?[0-9]+)",
                              "The answer is (\\-?[0-9\\.\\,]+)."};
        const int select[3] = {0, -1, 0};
        int k;
        for (k = 0; k < 3; k++) {
            lm_regex_filter(pat[k], select[k], v[i].text, got, sizeof(got));
            if (strcmp(got, want[k]) != 0)
                fail_msg("filter %d on '%s': '%s', want '%s'", k, v[i].text,
                         got, want[k]);
            lm_normalize(got, norm, sizeof(norm));
            if ((strcmp(norm, ref) == 0) != ok[k])
                fail_msg("exact_match %d on '%s' ('%s')", k, v[i].text, norm);
        }
    }
}

/* The three filter patterns and the four ignore patterns themselves. */
static void test_lm_eval_patterns(void **state)
{
    (void)state;
    /* the unescaped '.' takes the last digit */
    expect_spans("The answer is (\\-?[0-9\\.\\,]+).", 0, "The answer is 1072",
                 "0,18/14,17");
    /* leftmost-first: group 1 wants two characters, "3" goes to group 2 */
    expect_spans("(-?[$0-9.,]{2,})|(-?[0-9]+)", 0, "Between 3-4 days",
                 "8,9/-1,-1/8,9 9,11/-1,-1/9,11");
    expect_spans("The final answer is ((-?[$0-9.,]{2,})|(-?[0-9]+))", 0,
                 "The final answer is 7.", "0,22/20,22/20,22/-1,-1");
    expect_sub("\\.$", "It is 1,072...", "It is 1,072..");
    expect_sub("\\.$", "1072.\n", "1072\n"); /* before a final newline */
    expect_sub("(?s).*#### ", "a\nb #### c\n#### 42", "42");
    expect_sub(".*#### ", "a\nb #### c\n#### 42", "a\nc\n42");
    expect_sub(",", "1,000,000", "1000000");
    expect_sub("\\$", "$5 and $6", "5 and 6");
}

/* ---- Python's rules ------------------------------------------------------
 */

static void test_dollar_and_anchors(void **state)
{
    (void)state;
    expect_spans("a$", 0, "a\n", "0,1");    /* before a final newline */
    expect_spans("a$", 0, "a\n\n", "");     /* not before an earlier one */
    expect_spans("$", 0, "a\n", "1,1 2,2"); /* both places */
    expect_spans("a\\Z", 0, "a\n", "");
    expect_spans("a$", PYRE_MULTILINE, "a\na\n", "0,1 2,3");
    expect_spans("(?m)^\\w", 0, "ab\ncd", "0,1 3,4");
    expect_spans("^\\w", 0, "ab\ncd", "0,1");
    expect_spans("\\Aa", PYRE_MULTILINE, "a\na", "0,1");
    expect_spans("\\b", 0, "ab c", "0,0 2,2 3,3 4,4");
    expect_spans("\\B", 0, "ab c", "1,1");
    expect_spans("\\B", 0, "", ""); /* sre: neither \b nor \B in "" */
    expect_spans(".", 0, "a\nb", "0,1 2,3");
    expect_spans(".", PYRE_DOTALL, "a\nb", "0,1 1,2 2,3");
    expect_spans("(?s:.)", 0, "\n", "0,1");
}

static void test_empty_matches(void **state)
{
    (void)state;
    expect_spans("a*", 0, "baaa", "0,0 1,4 4,4"); /* ['', 'aaa', ''] */
    expect_spans("|a", 0, "a", "0,0 0,1 1,1");    /* ['', 'a', ''] */
    expect_spans("x*", 0, "", "0,0");
    expect_sub("a*", "baaa", "b");
    expect_sub("x*", "ab", "ab");
    expect_spans("(a|)*", 0, "b", "0,0/0,0 1,1/1,1");
    expect_spans("(a*)*b", 0, "aaab", "0,4/3,3");
}

static void test_repeats_and_alternation(void **state)
{
    (void)state;
    expect_spans("a|ab", 0, "ab", "0,1"); /* leftmost-first, not longest */
    expect_spans("ab|a", 0, "ab", "0,2");
    expect_spans("<.*>", 0, "<a><b>", "0,6");
    expect_spans("<.*?>", 0, "<a><b>", "0,3 3,6");
    expect_spans("a+?", 0, "aaa", "0,1 1,2 2,3");
    expect_spans("a{2,3}?", 0, "aaaaa", "0,2 2,4");
    expect_spans("a{,2}", 0, "aaa", "0,2 2,3 3,3");
    expect_spans("a{2}", 0, "aaaaa", "0,2 2,4");
    expect_spans("(ab){2,}", 0, "abababx", "0,6/4,6");
    /* a '{' that is no quantifier is a literal */
    expect_spans("a{}", 0, "a{}", "0,3");
    expect_spans("a{x}", 0, "a{x}", "0,4");
    expect_spans("a{1,2", 0, "a{1,2", "0,5");
    expect_spans("{", 0, "{", "0,1");
    expect_spans("x{,}", 0, "xx", "0,2 2,2");
}

/* Groups as sre leaves them: the last iteration's, or an earlier one's
 * when the last did not take part. */
static void test_groups(void **state)
{
    (void)state;
    expect_spans("(?:(a)|b)*", 0, "ab", "0,2/0,1 2,2/-1,-1");
    expect_spans("((a)|b)+", 0, "ab", "0,2/1,2/0,1");
    expect_spans("(a)|b", 0, "b", "0,1/-1,-1");
    /* a failed alternative's group does not stay behind */
    expect_spans("(?:(a)x|ab)", 0, "ab", "0,2/-1,-1");
    expect_spans("(?:(a)x|(a)b)", 0, "ab", "0,2/-1,-1/0,1");
    expect_spans("(a)(?=(b))", 0, "ab", "0,1/0,1/1,2");
    expect_spans("(?P<x>\\d+)-(?P<y>\\d+)", 0, "3-4", "0,3/0,1/2,3");
    expect_spans("(?!a)\\w", 0, "abc", "1,2 2,3");
    expect_spans("(\\w+)\\s*", 0, "hi  yo ", "0,4/0,2 4,7/4,6");
    /* a last alternative, or a repeat with no count to give back, that
     * sets a group and then fails (pyre_match.c's run_tail) */
    expect_spans("(?:x|(a)b)|(a)c", 0, "ac", "0,2/-1,-1/0,1");
    expect_spans("(a)?(?:(b)x|(b)y)", 0, "aby", "0,3/0,1/-1,-1/1,2");
    expect_spans("(?:(a)z?|(a)b)c", 0, "abc", "0,3/-1,-1/0,1");
    expect_spans("(a)(?:(b)x?y|b)", 0, "ab", "0,2/0,1/-1,-1");
    expect_spans("(?=(a)x?y)|(a)", 0, "ab", "0,1/-1,-1/0,1");
}

/*
 * Programs run without frames (pyre_impl.h's linear): lm-eval's filters
 * are, and a repeat that giving back could help keeps the program off that
 * path. The answers are sre's either way.
 */
static void test_linear(void **state)
{
    static const struct {
        const char *pat;
        int linear;
    } kinds[] = {
        {"(-?[$0-9.,]{2,})|(-?[0-9]+)", 1}, /* flexible-extract */
        {"#### (\\-?[0-9\\.\\,]+)", 1},     /* strict-match */
        /* gsm8k-cot's: "18." at the end gives its "." back to the last . */
        {"The answer is (\\-?[0-9\\.\\,]+).", 0},
        {"\\d+(?:a|b)\\d", 1},
        {"a*ab", 0},         /* the last a must be given back */
        {"\\w*\\B", 0},      /* the rest may hold after giving back */
        {"[0-9.]+\\.", 0},   /* the item takes what the rest needs */
        {"(ab|b)(cd|d)", 0}, /* a second BRANCH */
        {"a*?b", 0},         /* lazy */
        {"(?=a)a", 0},       /* a lookahead */
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        struct pyre *re = compile_ok(kinds[i].pat, 0);
        if (re->linear != kinds[i].linear)
            fail_msg("'%s': linear %d, want %d", kinds[i].pat, re->linear,
                     kinds[i].linear);
        pyre_free(re);
    }
    expect_spans("(-?[$0-9.,]{2,})|(-?[0-9]+)", 0,
                 "Step 1: 85 times -3 gives $9,424. -x",
                 "5,6/-1,-1/5,6 8,10/8,10/-1,-1 17,19/-1,-1/17,19 "
                 "26,33/26,33/-1,-1");
    /* a failed alternative leaves lastmark where the BRANCH found it */
    expect_spans("(a)x|a", 0, "ab", "0,1/-1,-1");
    /* a failure after the BRANCH goes back to its next alternative */
    expect_spans("(?:a|b)c*d|(e)", 0, "bccde abd",
                 "0,4/-1,-1 4,5/4,5 7,9/-1,-1");
    expect_spans("\\d+(?:a|b)\\d", 0, "12a34b5", "0,4 4,7");
    expect_spans("a[ab]*(?:b|c)", 0, "abbbc abbb", "0,5 6,10");
    expect_spans("(ab|b)(cd|d)", 0, "abd bcd", "0,3/0,2/2,3 4,7/4,5/5,7");
    /* finditer's empty matches: none again where the last one ended */
    expect_spans("x*", 0, "axx", "0,0 1,3 3,3");
    /* and the ones giving back decides, off the linear path */
    expect_spans("\\w*\\B", 0, "ab ", "0,1 1,1 3,3");
    expect_spans("[0-9.]+\\.", 0, "1.5. 2.", "0,4 5,7");
    expect_spans("a*ab", 0, "aaab", "0,4");
}

static void test_classes(void **state)
{
    (void)state;
    expect_spans("[]a]", 0, "]a", "0,1 1,2"); /* ']' first is literal */
    expect_spans("[^]a]", 0, "]ab", "2,3");
    expect_spans("[a-]+", 0, "-a-", "0,3"); /* '-' last is literal */
    expect_spans("[-a]+", 0, "-a-", "0,3");
    expect_spans("[\\d.,$-]+", 0, "x$1,0.5-y", "1,8");
    expect_spans("[^\\W\\d]+", 0, "ab1_c", "0,2 3,5");
    expect_spans("[\\b]", 0, "\b", "0,1"); /* backspace in a class */
    expect_spans("[a-c]", 0, "abcd", "0,1 1,2 2,3");
    expect_spans("\\x41\\u00e9\\101", 0,
                 "A\xc3\xa9"
                 "A",
                 "0,4");
}

/* Python's Unicode: \d is any decimal digit, \w str.isalnum() or '_', \s
 * its whitespace; IGNORECASE folds as sre does. */
static void test_unicode(void **state)
{
    (void)state;
    expect_spans("\\d+", 0, "12\xd9\xa3\xd9\xa4 x", "0,6"); /* Arabic-Indic */
    expect_spans("\\d", 0, "\xc2\xb2", "");                 /* superscript */
    expect_spans("\\w+", 0, "caf\xc3\xa9 na\xc3\xafve_1", "0,5 6,14");
    expect_spans("\\s", 0,
                 "a\xc2\xa0"
                 "b",
                 "1,3");                                       /* NBSP */
    expect_spans("(?i)k", 0, "Kk\xe2\x84\xaa", "0,1 1,2 2,5"); /* Kelvin */
    expect_spans("(?i)s", 0, "Ss\xc5\xbf", "0,1 1,2 2,4");     /* long s */
    expect_spans("(?i)[a-z]+", 0, "\xc4\xb0", "0,2"); /* lower(İ) is i */
    expect_spans("(?i)i", 0, "\xc4\xb1", "0,2");      /* dotless i */
    expect_spans("(?i)stra\xc3\x9f"
                 "e",
                 0,
                 "STRASSE STRA\xc3\x9f"
                 "E",
                 "8,15"); /* simple folding only: ß is not "ss" */
    expect_spans("(?i)\\u03a3", 0, "\xcf\x82\xcf\x83", "0,2 2,4");
    expect_spans("(?i:a)b", 0, "Ab AB", "0,2");
    expect_spans("(?i)a(?-i:b)", 0, "Ab AB", "0,2");
}

static void test_lower(void **state)
{
    static const char *cases[][2] = {
        {"ABC", "abc"},
        {"\xc4\xb0", "i\xcc\x87"}, /* İ: two characters */
        {"\xce\xa3\xce\x91\xce\xa3", "\xcf\x83\xce\xb1\xcf\x82"}, /* ΣΑΣ */
        {"\xce\xa3", "\xcf\x83"},     /* Σ alone */
        {"A\xce\xa3.", "a\xcf\x82."}, /* final before '.' */
        {"\xce\x91\xce\xa3'\xce\x91", "\xce\xb1\xcf\x83'\xce\xb1"},
        {"STRA\xc3\x9f"
         "E",
         "stra\xc3\x9f"
         "e"},
        {"\xe2\x84\xaa", "k"},        /* Kelvin sign */
        {"x\xff\xc3y", "x\xff\xc3y"}, /* not UTF-8: kept */
        {"", ""},
    };
    size_t i, n;
    char *out;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(
            pyre_str_lower(cases[i][0], strlen(cases[i][0]), &out, &n), 0);
        if (strcmp(out, cases[i][1]) != 0 || n != strlen(cases[i][1]))
            fail_msg("lower('%s') gave '%s', want '%s'", cases[i][0], out,
                     cases[i][1]);
        grader_alloc_free(out);
    }
}

/* Bytes that are not UTF-8 are one character each (U+DC00 + byte, as
 * Python's surrogateescape): '.' and \W take them, nothing else. */
static void test_not_utf8(void **state)
{
    char got[256];
    const char text[] = "a\xff"
                        "b\xe2\x82"
                        "c";

    (void)state;
    spans_of(".", 0, text, 6, got, sizeof(got));
    assert_string_equal(got, "0,1 1,2 2,3 3,4 4,5 5,6");
    spans_of("\\W", 0, text, 6, got, sizeof(got));
    assert_string_equal(got, "1,2 3,4 4,5");
    spans_of("[^a-z]", 0, text, 6, got, sizeof(got));
    assert_string_equal(got, "1,2 3,4 4,5");
    spans_of("\\w+", 0, text, 6, got, sizeof(got));
    assert_string_equal(got, "0,1 2,3 5,6");
    /* a lone continuation byte after a full character */
    spans_of(".", 0, "\xc3\xa9\xa9", 3, got, sizeof(got));
    assert_string_equal(got, "0,2 2,3");
    spans_of("\\b", 0, "\xc3\xa9\xa9", 3, got, sizeof(got));
    assert_string_equal(got, "0,0 2,2");
}

/* ---- refusals ------------------------------------------------------------
 */

static void expect_refused(const char *pat, int unsupported)
{
    struct pyre *re = (struct pyre *)&re;
    char msg[200];
    int rc = pyre_compile(pat, strlen(pat), 0, &re, msg, sizeof(msg));

    if (rc != GRADER_EARG)
        fail_msg("'%s' gave %d, want GRADER_EARG", pat, rc);
    assert_null(re);
    if (strstr(msg, "position") == NULL)
        fail_msg("'%s': message without a position: %s", pat, msg);
    if ((strstr(msg, "not supported") != NULL) != unsupported)
        fail_msg("'%s': %s", pat, msg);
}

static void test_refusals(void **state)
{
    static const char *python_refuses[] = {
        "a**",         "*a",      "^*",       "\\b+",
        "(",           "a)",      "[a",       "[z-a]",
        "[\\d-z]",     "a{2,1}",  "\\e",      "\\x4",
        "\\U00110000", "\\1",     "(?P<1>a)", "(?P<a>x)(?P<a>y)",
        "a(?i)",       "(?i",     "(?L)",     "(?i-i:a)",
        "(?-u:a)",     "(?<x)",   "(?#",      "a{4294967295}",
        "\\400",       "[\\400]", "(?z)",     "\\",
        "(?P",         "(?Px)",   "x|(?s)y",
    };
    static const char *not_supported[] = {
        "(a)\\1",
        "(?P<n>a)(?P=n)",
        "(?<=a)b",
        "(?<!a)b",
        "(a)(?(1)b|c)",
        "(?>a)",
        "a*+",
        "a++",
        "a?+",
        "a{2}+",
        "\\N{DIGIT ONE}",
        "(?x)a",
        "(?a)\\w",
        "(?P<\xc3\xa9>a)",
    };
    char big[PYRE_PATTERN_MAX + 2], deep[512];
    size_t i, n;

    (void)state;
    for (i = 0; i < sizeof(python_refuses) / sizeof(*python_refuses); i++)
        expect_refused(python_refuses[i], 0);
    for (i = 0; i < sizeof(not_supported) / sizeof(*not_supported); i++)
        expect_refused(not_supported[i], 1);
    /* the caps */
    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    expect_refused(big, 1);
    big[PYRE_PATTERN_MAX] = '\0';
    pyre_free(compile_ok(big, 0));
    for (i = 0; i <= PYRE_GROUPS_MAX; i++)
        memcpy(deep + 2 * i, "()", 2);
    deep[2 * PYRE_GROUPS_MAX + 2] = '\0';
    expect_refused(deep, 1);
    deep[2 * PYRE_GROUPS_MAX] = '\0';
    pyre_free(compile_ok(deep, 0));
    /* 99 parentheses inside the top level: fine; 100 are not */
    for (n = 99; n <= 100; n++) {
        memset(deep, 0, sizeof(deep));
        for (i = 0; i < n; i++)
            memcpy(deep + 3 * i, "(?:", 3), deep[4 * n - i] = ')';
        deep[3 * n] = 'a';
        if (n == 99)
            pyre_free(compile_ok(deep, 0));
        else
            expect_refused(deep, 1);
    }
    /* unknown flag bits, a pattern that is not UTF-8 */
    {
        struct pyre *re;
        char msg[100];
        assert_int_equal(pyre_compile("a", 1, 8, &re, msg, sizeof(msg)),
                         GRADER_EARG);
        assert_int_equal(pyre_compile("\xff", 1, 0, &re, msg, sizeof(msg)),
                         GRADER_EARG);
        assert_non_null(strstr(msg, "UTF-8"));
        assert_int_equal(pyre_compile("(", 1, 0, &re, NULL, 0), GRADER_EARG);
    }
    assert_string_equal(grader_err_name(GRADER_ELIMIT), "LIMIT");
}

/* The prefilter (pyre_impl.h) skips the starts whose byte no match can
 * begin with: each case here has a match a wrong set would skip. */
static void test_prefilter(void **state)
{
    (void)state;
    /* a pattern that can match empty has no prefilter: every start is tried */
    expect_spans("a*", 0, "bba", "0,0 1,1 2,3 3,3");
    expect_spans("(?:x|)", 0, "ab", "0,0 1,1 2,2");
    expect_spans("a|", 0, "ba", "0,0 1,2 2,2");
    expect_spans("(?=b)", 0, "ab", "1,1");
    expect_spans("$", 0, "ab", "2,2");
    /* an alternative or a repeat that can be empty lets what follows it be
     * first */
    expect_spans("(?:a|)b", 0, "cb", "1,2");
    expect_spans("a*b", 0, "xb", "1,2");
    expect_spans("(?:ab)*c", 0, "xc", "1,2");
    expect_spans("a{0}b", 0, "ab", "1,2");
    expect_spans("(?:a?)+b", 0, "xb", "1,2");
    expect_spans("a*?b", 0, "xab", "1,3");
    expect_spans("(a)|b", 0, "xb", "1,2/-1,-1");
    expect_spans("(?i:x)|\\u00e9", 0,
                 "X\xc3"
                 "\x89"
                 "\xc3"
                 "\xa9",
                 "0,1 3,5");
    /* IGNORECASE: both ASCII cases, and the non-ASCII letters that lower into
     * ASCII (KELVIN SIGN, U+0130) or that re._casefix pairs (long s) */
    expect_spans("(?i)k", 0,
                 "xK\xe2"
                 "\x84"
                 "\xaa"
                 "k",
                 "1,2 2,5 5,6");
    expect_spans("(?i)K", 0, "xk", "1,2");
    expect_spans("(?i)i", 0,
                 "x\xc4"
                 "\xb0",
                 "1,3");
    expect_spans("(?i)[a-z]", 0,
                 "1\xe2"
                 "\x84"
                 "\xaa",
                 "1,4");
    expect_spans("(?i)s", 0,
                 "x\xc5"
                 "\xbf",
                 "1,3");
    /* non-ASCII first characters: any lead byte, and bytes that are not UTF-8
     * (U+DC80 is the stray byte 0x80), but never a byte inside a sequence */
    expect_spans("\\u00e9+", 0,
                 "a\xc3"
                 "\xa9"
                 "\xc3"
                 "\xa9",
                 "1,5");
    expect_spans("\\d", 0,
                 "ab\xd9"
                 "\xa3",
                 "2,4");
    expect_spans("[^a]", 0, "a\xff", "1,2");
    expect_spans(".", 0, "\x80", "0,1");
    expect_spans("\\W", 0,
                 "a\xe2"
                 "\x80"
                 "\x94",
                 "1,4");
    expect_spans("\\udc80", 0, "a\x80", "1,2");
    expect_spans("[\\x80-\\xbf]", 0,
                 "\xc3"
                 "\xa9",
                 "");
    expect_spans("\\udca9", 0,
                 "\xc3"
                 "\xa9",
                 "");
    expect_spans("[^\\x00-\\x7f]", 0,
                 "a\xc3"
                 "\xa9",
                 "1,3");
    /* lookaheads, \b, \B and anchors take no character: what follows them is
     * first */
    expect_spans("(?=\\d)\\w+", 0, "ab1c", "2,4");
    expect_spans("(?!a)\\w", 0, "abc", "1,2 2,3");
    expect_spans("\\bfoo", 0, "afoo foo", "5,8");
    expect_spans("\\b\\d+", 0, "a1 2", "3,4");
    expect_spans("\\B\\d", 0, "a1 2", "1,2");
    expect_spans("(?m)^\\d", 0, "x\n1", "2,3");
    expect_spans("^a", 0, "ba", "");
    expect_spans("\\Aa", 0, "ba", "");
    expect_spans("(?s).b", 0, "\nb", "0,2");
    expect_spans(".b", 0, "\nb", "");
    /* after a match, the next search starts past it */
    expect_spans("\\d+", 0, "12 x 34", "0,2 5,7");
    expect_spans("#### (\\-?[0-9\\.\\,]+)", 0, "#### 1 #### -2.5",
                 "0,6/5,6 7,16/12,16");
}

/* ---- bounds --------------------------------------------------------------
 */

/* A stop set (pyre_cancel_on) ends a catastrophic search within
 * 2^20 steps of its budget, not at its end; unset, or for another
 * thread's flag cleared, the search runs as before. */
static void test_cancel(void **state)
{
    struct pyre *re = compile_ok("(a*)*b", 0);
    struct pyre_iter it;
    const char *a30 = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    unsigned long long full;
    atomic_int stop;
    long sp[4];

    (void)state;
    atomic_init(&stop, 1);
    pyre_cancel_on(&stop);
    pyre_iter_init(&it, re, a30, 30);
    full = it.budget;
    assert_int_equal(pyre_iter_next(&it, sp), GRADER_ELIMIT);
    /* the flag is read when the count crosses a 2^20 boundary: the
     * search spent at most that of its 10^8 steps */
    assert_true(it.budget + (1ULL << 20) >= full);
    assert_true(it.budget > 0);
    pyre_iter_release(&it);
    /* a flag that is clear stops nothing: a match is still found */
    atomic_store(&stop, 0);
    expect_spans("(a*)*b", 0, "aab", "0,3/2,2");
    pyre_cancel_on(NULL);
    pyre_free(re);
}

/* A catastrophic pattern ends with GRADER_ELIMIT, and says so again. */
static void test_budget(void **state)
{
    struct pyre *re = compile_ok("(a*)*b", 0);
    struct pyre_iter it;
    const char *a30 = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    long sp[4];
    char *out;
    size_t n;

    (void)state;
    pyre_iter_init(&it, re, a30, 30);
    assert_int_equal(pyre_iter_next(&it, sp), GRADER_ELIMIT);
    assert_int_equal(pyre_iter_next(&it, sp), GRADER_ELIMIT);
    pyre_iter_release(&it);
    assert_int_equal(pyre_sub_empty(re, a30, 30, &out, &n), GRADER_ELIMIT);
    assert_null(out);
    /* as sre, no search where fewer characters are left than a match
     * needs: Python answers this at once, without 5 million iterations */
    expect_spans("(()){4967294}.", 0, "", "");
    expect_spans("x(?:ab){4967294}", 0, "xab", "");
    /* a caller may lower the budget: 60 steps do not find "ab" at 38,
     * each "a" before it a start tried */
    pyre_free(re);
    re = compile_ok("ab", 0);
    pyre_iter_init(&it, re, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", 40);
    it.budget = 60;
    assert_int_equal(pyre_iter_next(&it, sp), GRADER_ELIMIT);
    pyre_iter_release(&it);
    pyre_free(re);
    /* while the starts the prefilter passes over cost nothing: "b" at 39
     * is the one start tried */
    re = compile_ok("b", 0);
    pyre_iter_init(&it, re, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", 40);
    it.budget = 60;
    assert_int_equal(pyre_iter_next(&it, sp), 1);
    assert_int_equal(sp[0], 39);
    pyre_iter_release(&it);
    pyre_free(re);
}

/* A megabyte: the stack is the matcher's own, so a repeat of a single
 * character goes through it; a repeated group keeps a frame per
 * iteration (as sre does), fine for 100 kB, and stopped by the stack cap,
 * well before the step budget, for a megabyte. */
static void test_long_text(void **state)
{
    size_t n = 1 << 20, i;
    char *text = malloc(n + 1);
    struct pyre *re;
    struct pyre_iter it;
    long sp[4];

    (void)state;
    assert_non_null(text);
    for (i = 0; i < n; i++)
        text[i] = "ab"[i % 2];
    text[n] = '\0';
    re = compile_ok("(?:a|b)*$", 0);
    pyre_iter_init(&it, re, text, n);
    assert_int_equal(pyre_iter_next(&it, sp), 1);
    assert_int_equal(sp[0], 0);
    assert_int_equal(sp[1], (long)n);
    pyre_iter_release(&it);
    pyre_free(re);
    re = compile_ok("^(a|b)*$", 0);
    pyre_iter_init(&it, re, text, 100000);
    assert_int_equal(pyre_iter_next(&it, sp), 1);
    assert_int_equal(sp[1], 100000);
    assert_int_equal(sp[2], 99999);
    pyre_iter_release(&it);
    pyre_iter_init(&it, re, text, n);
    assert_int_equal(pyre_iter_next(&it, sp), GRADER_ELIMIT);
    assert_true(it.budget > PYRE_STEPS_BASE / 2); /* the stack did it */
    pyre_iter_release(&it);
    pyre_free(re);
    free(text);
}

/* ---- out of memory --------------------------------------------------------
 */

/* One of everything: compile, iterate, sub, lower. */
static int everything(void)
{
    const char *pat = "(?i)(\\w+)(?:,|[\\u00e9-\\u00ff]|(x)*)\\s*";
    const char *text = "Caf\xc3\xa9, \xce\xa3x  y";
    struct pyre *re;
    struct pyre_iter it;
    long sp[6];
    char *out;
    size_t n;
    int rc = pyre_compile(pat, strlen(pat), 0, &re, NULL, 0);

    if (rc != 0)
        return rc;
    pyre_iter_init(&it, re, text, strlen(text));
    while ((rc = pyre_iter_next(&it, sp)) == 1)
        ;
    pyre_iter_release(&it);
    if (rc == 0 &&
        (rc = pyre_sub_empty(re, text, strlen(text), &out, &n)) == 0)
        pyre_text_free(out);
    pyre_free(re);
    if (rc == 0 && (rc = pyre_str_lower(text, strlen(text), &out, &n)) == 0)
        pyre_text_free(out);
    return rc;
}

/* Fail each allocation of everything() in turn: out of memory, no leak. */
static void fail_each(void)
{
    long total;
    int rc;

    fail_at = -1;
    calls = 0;
    assert_int_equal(everything(), 0);
    total = calls;
    assert_int_equal(live, 0);
    assert_true(total >= 8);
    for (fail_at = 1; fail_at <= total; fail_at++) {
        calls = 0;
        rc = everything();
        if (rc != GRADER_ENOMEM)
            fail_msg("failing allocation %ld gave %d", fail_at, rc);
        if (live != 0)
            fail_msg("failing allocation %ld leaks %ld blocks", fail_at, live);
    }
    fail_at = -1;
}

/* The grader's hooks reach pyre (grader_set_alloc hands them on). */
static void test_out_of_memory(void **state)
{
    (void)state;
    grader_set_alloc(chaos_malloc, chaos_realloc, chaos_free);
    fail_each();
    grader_set_alloc(NULL, NULL, NULL);
}

/* pyre's own hooks, as a program without the grader sets them. */
static void test_own_allocator(void **state)
{
    (void)state;
    pyre_set_alloc(chaos_malloc, chaos_realloc, chaos_free);
    fail_each();
    pyre_set_alloc(NULL, NULL, NULL);
    calls = 0;
    assert_int_equal(everything(), 0);
    assert_int_equal(calls, 0); /* the C library's again */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lm_eval_vectors),
        cmocka_unit_test(test_lm_eval_patterns),
        cmocka_unit_test(test_dollar_and_anchors),
        cmocka_unit_test(test_empty_matches),
        cmocka_unit_test(test_repeats_and_alternation),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_linear),
        cmocka_unit_test(test_classes),
        cmocka_unit_test(test_unicode),
        cmocka_unit_test(test_lower),
        cmocka_unit_test(test_not_utf8),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_prefilter),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_long_text),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_own_allocator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
