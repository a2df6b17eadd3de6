/*
 * printable.c - the one rule for showing outside text (util.h,
 * util_printable): a server's or a tool's log line quoted on a terminal,
 * a GGUF's tensor names and key-values in graveyard tensors. libc only,
 * so that every library may use it.
 */
#include "util.h"

#include <string.h>

/* The length of the UTF-8 sequence at p[0..len) as RFC 3629 reads it
 * (pyre's pyre_utf8_seq, which util/ may not call: the same answers,
 * checked byte for byte by test_server_files): 1 for ASCII, 0 for a stray
 * continuation byte, an overlong form, a surrogate, past U+10FFFF or cut
 * short. */
static size_t utf8_seq(const unsigned char *p, size_t len)
{
    unsigned c = p[0], cp;
    size_t n, i;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, cp = c & 0x07;
    else
        return 0;
    if (len < n)
        return 0;
    for (i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return 0;
    return n;
}

size_t util_printable(const char *s, size_t n, char *out, size_t size)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, k = 0, len, j;

    if (size == 0)
        return 0;
    while (i < n) {
        len = utf8_seq(p + i, n - i);
        /* a C0 control but a tab, DEL, a C1 control (U+0080..U+009F: a
         * terminal may take U+009B for the start of a control sequence),
         * a byte that is not UTF-8: each byte as \xNN */
        if (len == 0 ||
            (len == 1 && ((p[i] < 0x20 && p[i] != '\t') || p[i] == 0x7f)) ||
            (len == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0)) {
            len = len ? len : 1;
            if (k + 4 * len >= size)
                break;
            for (j = 0; j < len; j++) {
                out[k++] = '\\';
                out[k++] = 'x';
                out[k++] = hex[p[i + j] >> 4];
                out[k++] = hex[p[i + j] & 15];
            }
        } else {
            if (k + len >= size) /* never half a character */
                break;
            memcpy(out + k, p + i, len);
            k += len;
        }
        i += len;
    }
    out[k] = '\0';
    return k;
}
