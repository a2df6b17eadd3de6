/*
 * embed.c - a build tool: the page's script and style into C arrays, with
 * the SHA-256 of each for the page's Content-Security-Policy
 * ('sha256-BASE64' allows exactly that inline script or style and nothing
 * else, so text that slipped into the page as markup could not run).
 *
 *   embed OUT.c page.js page.css
 *
 * Arrays, not string literals: ISO C promises only 4,095 characters in a
 * literal and -Wpedantic says so.
 */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>

static int slurp(const char *path, unsigned char **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    size_t cap = 1 << 16, n = 0, r;
    unsigned char *p = malloc(cap);

    if (f == NULL || p == NULL) {
        fprintf(stderr, "embed: %s: cannot read\n", path);
        free(p);
        if (f)
            fclose(f);
        return -1;
    }
    while ((r = fread(p + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            unsigned char *q = realloc(p, cap *= 2);
            if (q == NULL) {
                free(p);
                fclose(f);
                return -1;
            }
            p = q;
        }
    }
    if (ferror(f)) {
        fprintf(stderr, "embed: %s: read error\n", path);
        free(p);
        fclose(f);
        return -1;
    }
    fclose(f);
    *out = p;
    *len = n;
    return 0;
}

static int emit(FILE *o, const char *name, const char *path)
{
    unsigned char *p, md[EVP_MAX_MD_SIZE], b64[4 * EVP_MAX_MD_SIZE];
    unsigned int mdlen;
    size_t len, i;

    if (slurp(path, &p, &len) != 0)
        return -1;
    if (EVP_Digest(p, len, md, &mdlen, EVP_sha256(), NULL) != 1) {
        free(p);
        return -1;
    }
    EVP_EncodeBlock(b64, md, (int)mdlen);
    fprintf(o, "/* %s */\nconst char %s[] = {", path, name);
    for (i = 0; i < len; i++)
        fprintf(o, "%s%d,", i % 24 ? "" : "\n", p[i]);
    fprintf(o, "0};\nconst char %s_hash[] = \"sha256-%s\";\n\n", name, b64);
    free(p);
    return 0;
}

int main(int argc, char **argv)
{
    FILE *o;

    if (argc != 4) {
        fprintf(stderr, "usage: embed OUT.c page.js page.css\n");
        return 2;
    }
    if ((o = fopen(argv[1], "w")) == NULL) {
        fprintf(stderr, "embed: %s: cannot write\n", argv[1]);
        return 1;
    }
    fprintf(o, "/* Written by report/assets/embed.c: do not edit. */\n"
               "#include \"page.h\"\n\n");
    if (emit(o, "page_js", argv[2]) != 0 ||
        emit(o, "page_css", argv[3]) != 0 || fclose(o) != 0) {
        remove(argv[1]);
        return 1;
    }
    return 0;
}
