/*
 * fuzz_pyre.c - libFuzzer harness for the regular expressions (pyre.h):
 * the first byte is the flags, the bytes up to the first NUL the
 * pattern, the rest the text. Besides not crashing or leaking, it checks
 * what every answer must satisfy: a refusal has a message; matches lie in
 * the text, in order, on character boundaries, never overlapping, and
 * never empty where the last one ended empty; a group lies in the text;
 * the iterator stays within its budget (lowered here, so that a
 * catastrophic pattern costs milliseconds) and says the same thing again
 * once it has stopped; re.sub(p, "", text) is the text less the matches;
 * lower() of the text never more than doubles it.
 *
 * Tests: pyre/pyre.c
 * Tests: pyre/pyre_parse.c
 * Tests: pyre/pyre_compile.c
 * Tests: pyre/pyre_match.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "pyre.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BUDGET 100000ULL

/* Where characters start (the grader's reading: a valid UTF-8 sequence
 * or a lone byte), plus the end. */
static void boundaries(const unsigned char *s, size_t n, unsigned char *at)
{
    size_t i = 0;

    memset(at, 0, n + 1);
    while (i < n) {
        size_t k = 1;
        at[i] = 1;
        if (s[i] >= 0xc2 && s[i] <= 0xf4) {
            size_t want = s[i] >= 0xf0 ? 4 : s[i] >= 0xe0 ? 3 : 2, j;
            for (j = 1; j < want && i + j < n && (s[i + j] & 0xc0) == 0x80;
                 j++)
                ;
            k = j == want ? want : 1;
            /* overlongs, surrogates and past U+10FFFF are single bytes */
            if (k == 3 && ((s[i] == 0xe0 && s[i + 1] < 0xa0) ||
                           (s[i] == 0xed && s[i + 1] >= 0xa0)))
                k = 1;
            if (k == 4 && ((s[i] == 0xf0 && s[i + 1] < 0x90) ||
                           (s[i] == 0xf4 && s[i + 1] >= 0x90)))
                k = 1;
        }
        i += k;
    }
    at[n] = 1;
}

/* Every match, checked; the text less the matches into rest (n + 1
 * bytes), its length in *restlen. 0 when the iteration ended, or its
 * error. */
static int iterate(const struct pyre *re, const char *text, size_t n,
                   const unsigned char *at, long *spans, char *rest,
                   size_t *restlen)
{
    struct pyre_iter it;
    size_t ng = pyre_groups(re), g;
    long last = 0;
    int rc, last_empty = 0;

    *restlen = 0;
    pyre_iter_init(&it, re, text, n);
    it.budget = BUDGET;
    while ((rc = pyre_iter_next(&it, spans)) == 1) {
        long s = spans[0], e = spans[1];
        if (s < last || e < s || (size_t)e > n || !at[s] || !at[e])
            abort();
        if (last_empty && s == last && e == s)
            abort(); /* an empty match again where one ended */
        for (g = 1; g <= ng; g++) {
            long a = spans[2 * g], b = spans[2 * g + 1];
            if ((a < 0) != (b < 0) ||
                (a >= 0 && (b < a || (size_t)b > n || !at[a] || !at[b])))
                abort();
        }
        memcpy(rest + *restlen, text + last, (size_t)(s - last));
        *restlen += (size_t)(s - last);
        last = e;
        last_empty = e == s;
    }
    if (it.budget > BUDGET || pyre_iter_next(&it, spans) != rc)
        abort();
    memcpy(rest + *restlen, text + last, n - (size_t)last);
    *restlen += n - (size_t)last;
    pyre_iter_release(&it);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    long spans[2 * (PYRE_GROUPS_MAX + 1)];
    const uint8_t *nul;
    const char *pat, *text;
    size_t plen, n, restlen, outlen;
    struct pyre *re;
    unsigned char *at;
    char msg[128], *out, *rest;
    unsigned flags;
    int rc;

    if (size < 1)
        return 0;
    flags = data[0] & 0x0f; /* bit 3 is no flag: a refusal */
    pat = (const char *)data + 1;
    nul = memchr(data + 1, 0, size - 1);
    plen = nul ? (size_t)(nul - data - 1) : size - 1;
    text = nul ? (const char *)nul + 1 : "";
    n = nul ? size - plen - 2 : 0;
    if (pyre_str_lower(text, n, &out, &outlen) != 0 || outlen > 2 * n)
        abort();
    grader_alloc_free(out);
    rc = pyre_compile(pat, plen, flags, &re, msg, sizeof(msg));
    if (rc != 0) {
        if (rc != GRADER_EARG || msg[0] == '\0' || re != NULL)
            abort();
        return 0;
    }
    if ((at = malloc(n + 1)) == NULL || (rest = malloc(n + 1)) == NULL)
        abort();
    boundaries((const unsigned char *)text, n, at);
    rc = iterate(re, text, n, at, spans, rest, &restlen);
    if (rc != 0 && rc != GRADER_ELIMIT)
        abort();
    /* within the budget the iteration ended, so sub takes the same steps */
    if (rc == 0) {
        if (pyre_sub_empty(re, text, n, &out, &outlen) != 0 ||
            outlen != restlen || memcmp(out, rest, restlen) != 0 ||
            out[outlen] != '\0')
            abort();
        grader_alloc_free(out);
    }
    free(at);
    free(rest);
    pyre_free(re);
    return 0;
}
