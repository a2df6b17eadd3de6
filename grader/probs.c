/*
 * probs.c - the probs record's codec (layout in probs.h).
 *
 * One encoder (the runner's) and one decoder (every reader's), so that the
 * layout is written down once. Fields are read and written byte by byte,
 * little-endian, never through a cast of the buffer: a record may start at
 * any offset of a file read into memory.
 */
#include "probs.h"
#include "internal.h"

#include <string.h>

#define ID_MAX 255u
#define K_OUTSIDE 0xFFu
/* id_len, the id, topn, flags and ntok: the body's fixed head. */
#define BODY_HEAD(idlen) (1u + (idlen) + 1u + 1u + 4u)
#define CHECK_LEN 8u
/* The smallest body: a one-byte id, no token, the check. */
#define BODY_MIN (BODY_HEAD(1u) + CHECK_LEN)

static uint64_t fnv1a64(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static void put64(unsigned char *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

static uint64_t get64(const unsigned char *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* A float's bits as they are (IEEE 754 binary32 on every platform C11
 * graveyard builds on; -inf and NaN survive the trip). */
static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

int grader_probs_record_size(const unsigned char *buf, size_t avail,
                             size_t *size)
{
    if (avail < GRADER_PROBS_HEAD)
        return GRADER_EMISSING;
    if (memcmp(buf, GRADER_PROBS_MAGIC, 4) != 0)
        return GRADER_EPARSE;
    uint32_t body = get32(buf + 4);
    if (body < BODY_MIN || body > GRADER_PROBS_RECORD_MAX - GRADER_PROBS_HEAD)
        return GRADER_EPARSE;
    *size = GRADER_PROBS_HEAD + (size_t)body;
    return 0;
}

static size_t entry_size(const struct grader_probs_entry *e)
{
    return 4u + 4u + 1u + e->len;
}

/* Tokens the encoder keeps. */
static size_t kept(const struct grader_probs_answer *a)
{
    return a->ntok > GRADER_PROBS_TOKENS_MAX ? GRADER_PROBS_TOKENS_MAX
                                             : a->ntok;
}

/* Where the chosen token sits among its alternatives, or K_OUTSIDE. */
static unsigned chosen_k(const struct grader_probs_answer *a, size_t t)
{
    const struct grader_probs_entry *c = &a->chosen[t];
    const struct grader_probs_entry *top = &a->top[t * a->topn];
    for (unsigned k = 0; k < a->topn; k++) {
        if (top[k].id == c->id && float_bits(top[k].lp) == float_bits(c->lp) &&
            top[k].len == c->len &&
            (c->len == 0 || memcmp(top[k].text, c->text, c->len) == 0))
            return k;
    }
    return K_OUTSIDE;
}

size_t grader_probs_encoded_size(const struct grader_probs_answer *a)
{
    if (a == NULL || a->id == NULL || a->id_len == 0 || a->id_len > ID_MAX ||
        a->topn == 0 || a->topn > GRADER_PROBS_TOPN_MAX)
        return 0;
    size_t n = kept(a);
    size_t size = GRADER_PROBS_HEAD + BODY_HEAD(a->id_len) + CHECK_LEN;
    for (size_t t = 0; t < n; t++) {
        size += 1u;
        if (chosen_k(a, t) == K_OUTSIDE)
            size += entry_size(&a->chosen[t]);
        for (unsigned k = 0; k < a->topn; k++)
            size += entry_size(&a->top[t * a->topn + k]);
        if (size > GRADER_PROBS_RECORD_MAX)
            return 0;
    }
    return size;
}

static unsigned char *put_entry(unsigned char *p,
                                const struct grader_probs_entry *e)
{
    put32(p, e->id);
    put32(p + 4, float_bits(e->lp));
    p[8] = e->len;
    if (e->len > 0)
        memcpy(p + 9, e->text, e->len);
    return p + 9 + e->len;
}

size_t grader_probs_encode(const struct grader_probs_answer *a,
                           unsigned char *out, size_t size)
{
    size_t need = grader_probs_encoded_size(a);
    if (need == 0 || size < need)
        return 0;
    size_t n = kept(a);
    unsigned flags = a->flags & GRADER_PROBS_CUT;
    if (n < a->ntok)
        flags |= GRADER_PROBS_CUT;
    unsigned char *p = out;
    memcpy(p, GRADER_PROBS_MAGIC, 4);
    put32(p + 4, (uint32_t)(need - GRADER_PROBS_HEAD));
    p += GRADER_PROBS_HEAD;
    *p++ = (unsigned char)a->id_len;
    memcpy(p, a->id, a->id_len);
    p += a->id_len;
    *p++ = (unsigned char)a->topn;
    *p++ = (unsigned char)flags;
    put32(p, (uint32_t)n);
    p += 4;
    for (size_t t = 0; t < n; t++) {
        unsigned k = chosen_k(a, t);
        *p++ = (unsigned char)k;
        if (k == K_OUTSIDE)
            p = put_entry(p, &a->chosen[t]);
        for (unsigned j = 0; j < a->topn; j++)
            p = put_entry(p, &a->top[t * a->topn + j]);
    }
    put64(p, fnv1a64(out + GRADER_PROBS_HEAD,
                     (size_t)(p - out) - GRADER_PROBS_HEAD));
    return need;
}

/* A reader over the body that never passes its end. */
struct cur {
    const unsigned char *p, *end;
};

static int take(struct cur *c, size_t n, const unsigned char **at)
{
    if ((size_t)(c->end - c->p) < n)
        return -1;
    *at = c->p;
    c->p += n;
    return 0;
}

static int get_entry(struct cur *c, struct grader_probs_entry *e)
{
    const unsigned char *at;
    if (take(c, 9, &at) != 0)
        return -1;
    e->id = get32(at);
    e->lp = bits_float(get32(at + 4));
    e->len = at[8];
    e->text = NULL;
    if (e->len > 0) {
        if (take(c, e->len, &at) != 0)
            return -1;
        e->text = (const char *)at;
    }
    return 0;
}

static int bad(struct grader_error *err, const char *what)
{
    return grader__fail(err, GRADER_EPARSE, NULL, 0, "probs record: %s",
                        what);
}

/* The id, topn, flags and ntok; the arrays allocated. */
static int decode_head(struct cur *c, struct grader_probs_answer *a,
                       struct grader_error *err)
{
    const unsigned char *at;
    if (take(c, 1, &at) != 0 || at[0] == 0)
        return bad(err, "no question id");
    a->id_len = at[0];
    if (take(c, a->id_len, &at) != 0)
        return bad(err, "the id runs past the record");
    a->id = (const char *)at;
    if (take(c, 6, &at) != 0)
        return bad(err, "the head runs past the record");
    a->topn = at[0];
    a->flags = at[1];
    a->ntok = get32(at + 2);
    if (a->topn == 0 || a->topn > GRADER_PROBS_TOPN_MAX)
        return bad(err, "top N outside 1..20");
    if ((a->flags & ~(unsigned)GRADER_PROBS_CUT) != 0)
        return bad(err, "unknown flags");
    if (a->ntok > GRADER_PROBS_TOKENS_MAX)
        return bad(err, "more tokens than the cap");
    /* Each token takes 1 + 9 * topn bytes at least: a count the body
     * cannot hold is refused before anything is allocated for it. */
    if (a->ntok > (size_t)(c->end - c->p) / (1u + 9u * a->topn))
        return bad(err, "more tokens than the record holds");
    if (a->ntok == 0)
        return 0;
    a->chosen = grader__reallocarray(NULL, a->ntok, sizeof *a->chosen);
    a->top = grader__reallocarray(NULL, a->ntok * a->topn, sizeof *a->top);
    if (a->chosen == NULL || a->top == NULL)
        return grader__fail(err, GRADER_ENOMEM, NULL, 0, "out of memory");
    return 0;
}

int grader_probs_decode(const unsigned char *rec, size_t len,
                        struct grader_probs_answer *a,
                        struct grader_error *err)
{
    memset(a, 0, sizeof *a);
    size_t size;
    int rc = grader_probs_record_size(rec, len, &size);
    if (rc != 0 || size != len)
        return bad(err, rc == GRADER_EMISSING ? "torn head"
                        : rc != 0            ? "no magic, or a body past the cap"
                                             : "its length is not the body's");
    const unsigned char *body = rec + GRADER_PROBS_HEAD;
    size_t blen = len - GRADER_PROBS_HEAD;
    if (fnv1a64(body, blen - CHECK_LEN) != get64(body + blen - CHECK_LEN))
        return bad(err, "the check does not match (a torn or changed record)");
    struct cur c = {body, body + blen - CHECK_LEN};
    rc = decode_head(&c, a, err);
    for (size_t t = 0; rc == 0 && t < a->ntok; t++) {
        const unsigned char *at;
        struct grader_probs_entry *top = &a->top[t * a->topn];
        if (take(&c, 1, &at) != 0) {
            rc = bad(err, "a token runs past the record");
            break;
        }
        unsigned k = at[0];
        if (k != K_OUTSIDE && k >= a->topn) {
            rc = bad(err, "a chosen token's place past top N");
            break;
        }
        if (k == K_OUTSIDE && get_entry(&c, &a->chosen[t]) != 0) {
            rc = bad(err, "a token runs past the record");
            break;
        }
        for (unsigned j = 0; rc == 0 && j < a->topn; j++)
            if (get_entry(&c, &top[j]) != 0)
                rc = bad(err, "a token runs past the record");
        if (rc == 0 && k != K_OUTSIDE)
            a->chosen[t] = top[k];
    }
    if (rc == 0 && c.p != c.end)
        rc = bad(err, "bytes left over after the last token");
    if (rc != 0)
        grader_probs_answer_free(a);
    return rc;
}

void grader_probs_answer_free(struct grader_probs_answer *a)
{
    if (a == NULL)
        return;
    grader__free(a->chosen);
    grader__free(a->top);
    a->chosen = NULL;
    a->top = NULL;
    a->ntok = 0;
}
