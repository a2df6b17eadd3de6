/*
 * pyre.c - the regular expressions' iterator (Python's finditer),
 * re.sub(pattern, "", text) and str.lower(): pyre.h's calls on top of the
 * compiler (pyre_compile.c) and the matcher (pyre_match.c).
 */
#include "pyre.h"

#include <limits.h>
#include <string.h>

#include "pyre_impl.h"

void pyre_iter_init(struct pyre_iter *it, const struct pyre *re,
                    const char *text, size_t len)
{
    it->re = re;
    it->text = (const unsigned char *)text;
    it->len = len;
    it->pos = 0;
    it->must_advance = 0;
    it->state = 0;
    it->budget = PYRE_STEPS_BASE;
    if (len > (ULLONG_MAX - PYRE_STEPS_BASE) / PYRE_STEPS_PER_BYTE)
        it->budget = ULLONG_MAX;
    else
        it->budget += PYRE_STEPS_PER_BYTE * len;
    it->vm = NULL;
}

int pyre_iter_next(struct pyre_iter *it, long *spans)
{
    int rc;

    if (it->state != 0)
        return it->state == 1 ? 0 : it->state;
    if (it->vm == NULL) {
        /* nothing to find: no matcher state allocated (the sub of "," on
         * a text without one, say) */
        if (!pyre__may_start(it->re, it->text, it->len, it->pos)) {
            it->state = 1;
            return 0;
        }
        if ((rc = pyre__vm_new(it->re, &it->vm)) != 0)
            return it->state = rc;
    }
    rc = pyre__search(it->vm, it->text, it->len, it->pos, it->must_advance,
                      &it->budget, spans);
    if (rc <= 0) {
        it->state = rc == 0 ? 1 : rc;
        return rc;
    }
    /* the next search starts where this match ended; after an empty
     * match it may not be empty there again (Python 3.7+) */
    it->must_advance = spans[1] == spans[0];
    it->pos = (size_t)spans[1];
    return 1;
}

int pyre_may_match(const struct pyre *re, const char *text, size_t len)
{
    return pyre__may_start(re, (const unsigned char *)text, len, 0);
}

void pyre_iter_release(struct pyre_iter *it)
{
    pyre__vm_free(it->vm);
    it->vm = NULL;
}

int pyre_sub_empty(const struct pyre *re, const char *text, size_t len,
                   char **out, size_t *outlen)
{
    long spans[2 * (PYRE_GROUPS_MAX + 1)];
    struct pyre_iter it;
    size_t last = 0, o = 0;
    char *buf;
    int rc;

    *out = NULL;
    *outlen = 0;
    if ((buf = pyre__malloc(len + 1)) == NULL)
        return PYRE_ENOMEM;
    pyre_iter_init(&it, re, text, len);
    while ((rc = pyre_iter_next(&it, spans)) == 1) {
        size_t b = (size_t)spans[0];
        if (b > last) /* text may be NULL when len is 0 */
            memcpy(buf + o, text + last, b - last);
        o += b - last;
        last = (size_t)spans[1];
    }
    pyre_iter_release(&it);
    if (rc != 0) {
        pyre__dealloc(buf);
        return rc;
    }
    if (len > last)
        memcpy(buf + o, text + last, len - last);
    o += len - last;
    buf[o] = '\0';
    *out = buf;
    *outlen = o;
    return 0;
}

/* ---- str.lower() -------------------------------------------------------- */

/* Python's handle_capital_sigma: U+03A3 at [at, end) is final when a
 * cased letter precedes it and none follows, case-ignorable characters
 * skipped both ways. */
static int final_sigma(const unsigned char *s, size_t len, size_t at,
                       size_t end)
{
    size_t j = at, k;
    uint32_t c = 0;
    int found = 0;

    while (j > 0 && !found) {
        j = pyre__prev(s, j);
        c = pyre__decode(s, len, j, &k);
        found = !pyre__case_ignorable(c);
    }
    if (!found || !pyre__cased(c))
        return 0;
    for (j = end; j < len; j += k) {
        c = pyre__decode(s, len, j, &k);
        if (!pyre__case_ignorable(c))
            return !pyre__cased(c);
    }
    return 1;
}

/* Lower text into out (NULL: only count); the length. */
static size_t lower_into(const unsigned char *s, size_t len,
                         unsigned char *out)
{
    size_t i = 0, o = 0, k, n, j;
    unsigned char tmp[4] = {0}; /* where a counting pass writes */
    uint32_t cp[3];

    while (i < len) {
        uint32_t c = pyre__decode(s, len, i, &k);
        if (c == 0x3a3) {
            cp[0] = final_sigma(s, len, i, i + k) ? 0x3c2 : 0x3c3;
            n = 1;
        } else {
            n = pyre__lower_full(c, cp);
        }
        for (j = 0; j < n; j++) {
            size_t w = pyre__encode(cp[j], out ? out + o : tmp);
            o += w;
        }
        i += k;
    }
    return o;
}

int pyre_str_lower(const char *text, size_t len, char **out, size_t *outlen)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t n = lower_into(s, len, NULL);
    unsigned char *buf = pyre__malloc(n + 1);

    *out = NULL;
    *outlen = 0;
    if (buf == NULL)
        return PYRE_ENOMEM;
    (void)lower_into(s, len, buf);
    buf[n] = '\0';
    *out = (char *)buf;
    *outlen = n;
    return 0;
}
