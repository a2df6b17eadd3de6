/*
 * probsgen.c - probs files for a synthetic ladder's rows, written with the
 * runner's own encoder (grader_probs_encode), so the bench reads the real
 * layout: for each row without an error, a record of completion_tokens
 * tokens (64 when the row has none), top N each, 4-byte texts. The
 * reference (the first rung named) chooses ids from a hash of the
 * question; a rung chooses the same ids, with log-probabilities that drift
 * further the lower it stands, until a split (more often lower down) after
 * which it goes its own way. Deterministic.
 *
 * usage: probsgen RUNDIR N RUNG...   (RUNG 0 the reference)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../grader/probs.h"

#define TOK_CAP 4096

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

/* A uniform in [0, 1) from a hash. */
static double unit(uint64_t h)
{
    return (double)(mix(h) >> 11) / 9007199254740992.0;
}

/* FNV-1a of a question's id: its tokens' seed at every rung. */
static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;

    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
    return mix(h);
}

/* The string value of "key":"..." in line into out, or "" */
static void field_str(const char *line, const char *key, char *out,
                      size_t size)
{
    const char *p = strstr(line, key), *e;

    out[0] = '\0';
    if (p == NULL || (p = strchr(p + strlen(key), '"')) == NULL ||
        (e = strchr(p + 1, '"')) == NULL || (size_t)(e - p - 1) >= size)
        return;
    memcpy(out, p + 1, (size_t)(e - p - 1));
    out[e - p - 1] = '\0';
}

static struct grader_probs_entry chosen[TOK_CAP];
static struct grader_probs_entry top[TOK_CAP * GRADER_PROBS_TOPN_MAX];
static unsigned char rec[1u << 22];

/* One answer of question id (hash h) at rung r, ntok tokens, top n. */
static size_t answer(const char *id, uint64_t h, unsigned r, size_t ntok,
                     unsigned n)
{
    struct grader_probs_answer a = {id, strlen(id), n, 0, ntok, chosen, top, NULL, 0, NULL};
    double drift = 0.08 * r, psplit = r ? 0.3 + 0.07 * r : 0;
    size_t split = unit(h ^ 0x51u) < psplit
                       ? (size_t)(unit(h ^ r ^ 0x77u) * (double)ntok)
                       : ntok;

    for (size_t t = 0; t < ntok; t++) {
        uint64_t th = h * 1000003u + t;
        int own = r && t > split;
        uint32_t c = (uint32_t)(mix(own ? th ^ (r << 20) : th) % 32000) + 1;
        double p0 = 0.5 + 0.45 * unit(th), rest = 1 - p0;
        for (unsigned k = 0; k < n; k++) {
            double p = k == 0 ? p0 : rest * 0.5;
            rest -= k == 0 ? 0 : p;
            double lp =
                log(p) + (r ? drift * (unit(th ^ k ^ (r << 8)) - 0.5) : 0);
            uint32_t kid = k == 0 ? c : (c + 131u * k) % 32000 + 1;
            top[t * n + k] = (struct grader_probs_entry){
                kid, (float)(lp > 0 ? 0 : lp), 4, " tok"};
        }
        if (r && t == split) { /* the rung's own pick; the reference's next */
            struct grader_probs_entry e = top[t * n];
            top[t * n].id = (uint32_t)(mix(th ^ 0xabcu) % 32000) + 1;
            if (n > 1)
                top[t * n + 1].id = e.id;
        }
        chosen[t] = top[t * n];
    }
    return grader_probs_encode(&a, rec, sizeof(rec));
}

static int one_rung(const char *dir, const char *rung, unsigned r, unsigned n)
{
    char path[4096], id[256], *line = NULL;
    size_t cap = 0;
    FILE *in, *out;
    int rc = 0;

    snprintf(path, sizeof(path), "%s/rows/%s.jsonl", dir, rung);
    if ((in = fopen(path, "r")) == NULL)
        return perror(path), 2;
    snprintf(path, sizeof(path), "%s/rows/%s.probs", dir, rung);
    if ((out = fopen(path, "wb")) == NULL)
        return perror(path), fclose(in), 2;
    while (rc == 0 && getline(&line, &cap, in) > 0) {
        const char *ct = strstr(line, "\"completion_tokens\":");
        long ntok = ct ? strtol(ct + 20, NULL, 10) : 0;
        size_t len;
        if (strstr(line, "\"error\":null") == NULL)
            continue; /* error rows get no record */
        field_str(line, "\"id\":", id, sizeof(id));
        if (ntok <= 0)
            ntok = 64;
        if (ntok > TOK_CAP)
            ntok = TOK_CAP;
        len = answer(id, hash(id), r, (size_t)ntok, n);
        if (len == 0 || fwrite(rec, 1, len, out) != len)
            rc = 2;
    }
    free(line);
    fclose(in);
    if (fclose(out) != 0 || rc != 0)
        return fprintf(stderr, "probsgen: cannot write '%s'\n", path), 2;
    return 0;
}

int main(int argc, char **argv)
{
    unsigned n;

    if (argc < 4 || (n = (unsigned)atoi(argv[2])) < 1 ||
        n > GRADER_PROBS_TOPN_MAX) {
        fprintf(stderr, "usage: probsgen RUNDIR N RUNG...\n");
        return 2;
    }
    for (int i = 3; i < argc; i++)
        if (one_rung(argv[1], argv[i], (unsigned)(i - 3), n) != 0)
            return 2;
    return 0;
}
