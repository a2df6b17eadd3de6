/*
 * test_base_endpoint.c - a served model's pure parts (endpoint.h): which
 * URLs may be asked (https anywhere; plain http only to this machine,
 * unless allowed; never a user, a query or a control character), and what
 * of an endpoint's own word reaches the manifest (strings cut, secrets
 * dropped, the key redacted, a body that is not JSON kept short and
 * printable).
 *
 * Tests: orchestrator/base/endpoint.c
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../orchestrator/base/endpoint.h"

static int ok(const char *url, int plain)
{
    char msg[800];

    return endpoint_url_check(url, plain, msg, sizeof(msg)) == 0;
}

static void test_url(void **state)
{
    char msg[800], big[700];

    (void)state;
    assert_true(ok("https://api.example.com", 0));
    assert_true(ok("https://api.example.com:8443/v0/", 0));
    assert_true(ok("http://127.0.0.1:8080", 0));
    assert_true(ok("http://127.3.4.5:1", 0));
    assert_true(ok("http://localhost:8080/", 0));
    assert_true(ok("http://[::1]:8080", 0));
    /* plain http to another machine: refused unless allowed */
    assert_false(ok("http://192.0.2.1:8080", 0));
    assert_true(ok("http://192.0.2.1:8080", 1));
    assert_false(ok("http://128.0.0.1", 0));
    assert_false(ok("http://127.0.0.1.example.com", 0));
    assert_false(ok("http://localhost.example.com", 0));
    assert_false(ok("http://1270.0.0.1", 0));
    assert_false(ok("http://127.0.0.256", 0));
    assert_false(ok("http://127.0.0", 0));
    assert_false(ok("http://[::2]:80", 0));
    assert_false(ok("http://[::1", 0));
    /* what would write a secret into the manifest, or is not a base */
    assert_false(ok("https://user:pw@example.com", 0));
    assert_false(ok("https://example.com/?key=x", 0));
    assert_false(ok("https://example.com/#x", 0));
    assert_false(ok("https://exa mple.com", 0));
    assert_false(ok("https://example.com\n", 0));
    assert_false(ok("ftp://example.com", 0));
    assert_false(ok("example.com", 0));
    assert_false(ok("https://", 0));
    assert_false(ok("https://:8080", 0));
    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    memcpy(big, "https://", 8);
    assert_false(ok(big, 0));
    assert_int_equal(endpoint_url_check("http://192.0.2.1", 0, msg, sizeof(msg)),
                     -1);
    assert_non_null(strstr(msg, "plain http to another machine"));
}

static void test_said(void **state)
{
    static const char body[] =
        "{\"model_path\":\"/m/Q4_0.gguf\",\"api_key\":\"k\","
        "\"hf_token\":\"t\",\"max_tokens\":5,\"Authorization\":\"Bearer s3\","
        "\"nested\":{\"echo\":\"has s3cr3t-key in it\",\"n\":[1,\"x\"]}}";
    json_t *v = endpoint_said(body, strlen(body), "s3cr3t-key");
    char *text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);

    (void)state;
    assert_string_equal(text,
                        "{\"max_tokens\":5,\"model_path\":\"/m/Q4_0.gguf\","
                        "\"nested\":{\"echo\":\"[redacted]\",\"n\":[1,\"x\"]}}");
    free(text);
    json_decref(v);
}

static void test_said_caps(void **state)
{
    size_t n = 3 * ENDPOINT_STR_CAP;
    char *body = malloc(n + 16);
    json_t *v;

    (void)state;
    /* a long string is cut, inside a UTF-8 character not */
    memcpy(body, "{\"t\":\"", 6);
    for (size_t i = 6; i < n; i += 2)
        memcpy(body + i, "\xc3\xa9", 2);
    memcpy(body + n, "\"}", 3);
    v = endpoint_said(body, strlen(body), NULL);
    assert_true(json_string_length(json_object_get(v, "t")) <=
                ENDPOINT_STR_CAP);
    assert_true(json_string_length(json_object_get(v, "t")) > 0);
    json_decref(v);
    /* not JSON: its head, printable, with the key redacted */
    v = endpoint_said("<html>\x01oops KEY</html>", 22, NULL);
    assert_string_equal(json_string_value(json_object_get(v, "not_json")),
                        "<html>?oops KEY</html>");
    json_decref(v);
    v = endpoint_said("<html>KEY</html>", 16, "KEY");
    assert_string_equal(json_string_value(json_object_get(v, "not_json")),
                        "[redacted]");
    json_decref(v);
    free(body);
}

/* The key's traces: whole, escaped, encoded, cut, masked; text that only
 * looks like one is kept. */
static void test_redact(void **state)
{
    static const char key[] = "sk-Ab/cd+ef\"GHijklmnopQRST";
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"key sk-Ab/cd+ef\"GHijklmnopQRST here", "key [redacted] here"},
        {"{\"k\":\"sk-Ab\\/cd+ef\\\"GHijklmnopQRST\"}",
         "{\"k\":\"[redacted]\"}"},
        {"?key=sk-Ab%2Fcd%2Bef%22GHijklmnopQRST&x", "?key=[redacted]&x"},
        {"?key=sk-Ab%2fcd%2bef%22GHijklmnopQRST&x", "?key=[redacted]&x"},
        {"cut: sk-Ab/cd+ef\"GH.", "cut: [redacted]."},
        {"tail mnopQRST!", "tail ********!"},
        {"Incorrect API key provided: sk-Ab...QRST.",
         "Incorrect API key provided: [redacted]."},
        {"key sk-A*********************QRST", "key [redacted]"},
        {"key sk-\xe2\x80\xa6RST", "key *********"},
        /* not traces: a piece under ENDPOINT_FRAG_MIN, a full stop, an
         * ellipsis without the key's ends */
        {"sk-Ab/c and QRST.", "sk-Ab/c and QRST."},
        {"sk-. RST", "sk-. RST"},
        {"well... RST", "well... RST"},
    };
    char text[256];
    size_t i, n;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        n = strlen(cases[i].in);
        memcpy(text, cases[i].in, n);
        n = endpoint_redact(text, n, key);
        text[n] = '\0';
        assert_string_equal(text, cases[i].out);
    }
    memcpy(text, "abc", 3);
    assert_int_equal(endpoint_redact(text, 3, NULL), 3);
    assert_int_equal(endpoint_redact(text, 3, ""), 3);
}

/* /props naming the key, holding it cut or masked: dropped, redacted. */
static void test_said_traces(void **state)
{
    static const char body[] =
        "{\"sk-Abcdefghijklmnop\":1,\"cut\":\"sk-Abcdefghij\","
        "\"hint\":\"sk-...mnop\",\"ok\":\"fine\"}";
    json_t *v = endpoint_said(body, strlen(body), "sk-Abcdefghijklmnop");
    char *text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);

    (void)state;
    assert_string_equal(text,
                        "{\"cut\":\"[redacted]\",\"hint\":\"[redacted]\","
                        "\"ok\":\"fine\"}");
    free(text);
    json_decref(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_url),       cmocka_unit_test(test_said),
        cmocka_unit_test(test_said_caps), cmocka_unit_test(test_said_traces),
        cmocka_unit_test(test_redact),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
