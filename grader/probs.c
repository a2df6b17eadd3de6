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

#include <stdlib.h>
#include <string.h>

#define ID_MAX    GRADER_PROBS_ID_MAX
#define K_OUTSIDE 0xFFu
/* id_len, the id, topn, flags, ntok and ntext: the body's fixed head. */
#define BODY_HEAD(idlen) (1u + (idlen) + 1u + 1u + 4u + 4u)
#define ENTRY            8u /* an entry: u32 id, f32 logprob */
#define CHECK_LEN        8u
/* The smallest body: a one-byte id, no token, the check. */
#define BODY_MIN (BODY_HEAD(1u) + CHECK_LEN)

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

/* The record's check: eight bytes a step (a byte-wise FNV-1a made the
 * report's reading of probs files 57 % hashing, docs/performance.md),
 * each word multiplied in and folded, the length mixed first, a tail
 * padded with zeros. It finds a torn or changed record (zeros where a
 * crash left the file's end unwritten, a flipped byte), not an attacker. */
static uint64_t mix(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
    return h ^ (h >> 32);
}

static uint64_t check64(const unsigned char *p, size_t n)
{
    /* Four lanes of 8 bytes, so the multiplies of one step do not wait
     * on each other; the lanes fold into one at the end. */
    uint64_t l[4] = {0x9e3779b97f4a7c15ULL ^ (uint64_t)n,
                     0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL,
                     0x3c6ef372fe94f82bULL};
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 4; k++)
            l[k] = mix(l[k], get64(p + i + 8 * k));
    uint64_t h = mix(mix(mix(l[0], l[1]), l[2]), l[3]);
    for (; i + 8 <= n; i += 8)
        h = mix(h, get64(p + i));
    uint64_t w = 0;
    for (size_t j = 0; i + j < n; j++)
        w |= (uint64_t)p[i + j] << (8 * j);
    h = mix(h, w);
    h = mix(h, 0xc4ceb9fe1a85ec53ULL);
    return h;
}

uint64_t grader__probs_check(const unsigned char *p, size_t n)
{
    return check64(p, n);
}

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
    for (unsigned k = 0; k < a->topn; k++)
        if (top[k].id == c->id && float_bits(top[k].lp) == float_bits(c->lp))
            return k;
    return K_OUTSIDE;
}

/* The text table being gathered: every entry with a text, sorted by id
 * (then by where it came, so the first text of an id is the one kept). */
struct plan {
    const struct grader_probs_entry **e;
    size_t n;    /* distinct ids with a text, after planning */
    size_t size; /* the record's bytes */
};

static int by_id(const void *x, const void *y)
{
    const struct grader_probs_entry *a =
        *(const struct grader_probs_entry *const *)x;
    const struct grader_probs_entry *b =
        *(const struct grader_probs_entry *const *)y;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a < b ? -1 : a > b; /* the array's order: chosen, then top */
}

static void add_text(struct plan *p, const struct grader_probs_entry *e)
{
    if (e->len > 0 && e->text != NULL && e->id != GRADER_PROBS_NONE)
        p->e[p->n++] = e;
}

/* Gather and size; p->e is the caller's to free (also on failure). */
static int make_plan(const struct grader_probs_answer *a, struct plan *p)
{
    memset(p, 0, sizeof *p);
    if (a == NULL || a->id == NULL || a->id_len == 0 || a->id_len > ID_MAX ||
        a->topn == 0 || a->topn > GRADER_PROBS_TOPN_MAX)
        return -1;
    size_t n = kept(a);
    size_t size = GRADER_PROBS_HEAD + BODY_HEAD(a->id_len) + CHECK_LEN;
    if (n > 0) {
        p->e = grader__reallocarray(NULL, n * (a->topn + 1u), sizeof *p->e);
        if (p->e == NULL)
            return -1;
    }
    for (size_t t = 0; t < n; t++) {
        size += 1u + ENTRY * a->topn;
        if (chosen_k(a, t) == K_OUTSIDE) {
            size += ENTRY;
            add_text(p, &a->chosen[t]);
        }
        for (unsigned k = 0; k < a->topn; k++)
            add_text(p, &a->top[t * a->topn + k]);
    }
    if (p->n > 1)
        qsort(p->e, p->n, sizeof *p->e, by_id);
    size_t d = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (d > 0 && p->e[d - 1]->id == p->e[i]->id)
            continue;
        p->e[d++] = p->e[i];
        size += 5u + p->e[i]->len;
    }
    p->n = d;
    if (size > GRADER_PROBS_RECORD_MAX)
        return -1;
    p->size = size;
    return 0;
}

size_t grader_probs_encoded_size(const struct grader_probs_answer *a)
{
    struct plan p;
    int rc = make_plan(a, &p);
    grader__free(p.e);
    return rc == 0 ? p.size : 0;
}

static unsigned char *put_entry(unsigned char *p,
                                const struct grader_probs_entry *e)
{
    put32(p, e->id);
    put32(p + 4, float_bits(e->lp));
    return p + ENTRY;
}

static unsigned char *put_head(const struct grader_probs_answer *a,
                               const struct plan *pl, unsigned char *p)
{
    size_t n = kept(a);
    unsigned flags = a->flags & GRADER_PROBS_CUT;
    if (n < a->ntok)
        flags |= GRADER_PROBS_CUT;
    memcpy(p, GRADER_PROBS_MAGIC, 4);
    put32(p + 4, (uint32_t)(pl->size - GRADER_PROBS_HEAD));
    p += GRADER_PROBS_HEAD;
    *p++ = (unsigned char)a->id_len;
    memcpy(p, a->id, a->id_len);
    p += a->id_len;
    *p++ = (unsigned char)a->topn;
    *p++ = (unsigned char)flags;
    put32(p, (uint32_t)n);
    put32(p + 4, (uint32_t)pl->n);
    p += 8;
    for (size_t i = 0; i < pl->n; i++) {
        const struct grader_probs_entry *e = pl->e[i];
        put32(p, e->id);
        p[4] = e->len;
        memcpy(p + 5, e->text, e->len);
        p += 5u + e->len;
    }
    return p;
}

size_t grader_probs_encode(const struct grader_probs_answer *a,
                           unsigned char *out, size_t size)
{
    struct plan pl;
    if (make_plan(a, &pl) != 0 || size < pl.size) {
        grader__free(pl.e);
        return 0;
    }
    unsigned char *p = put_head(a, &pl, out);
    grader__free(pl.e);
    for (size_t t = 0, n = kept(a); t < n; t++) {
        unsigned k = chosen_k(a, t);
        *p++ = (unsigned char)k;
        if (k == K_OUTSIDE)
            p = put_entry(p, &a->chosen[t]);
        for (unsigned j = 0; j < a->topn; j++)
            p = put_entry(p, &a->top[t * a->topn + j]);
    }
    put64(p, check64(out + GRADER_PROBS_HEAD,
                     (size_t)(p - out) - GRADER_PROBS_HEAD));
    return pl.size;
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

static void get_entry(const unsigned char *at, struct grader_probs_entry *e)
{
    e->id = get32(at);
    e->lp = bits_float(get32(at + 4));
    e->len = 0;
    e->text = NULL;
}

static int bad(struct grader_error *err, const char *what)
{
    return grader__fail(err, GRADER_EPARSE, NULL, 0, "probs record: %s", what);
}

/* The text table: ids strictly ascending, each text within the record. */
static int decode_texts(struct cur *c, struct grader_probs_answer *a,
                        struct grader_error *err)
{
    a->texts = c->p;
    if (a->ntext > 0) {
        a->text_at = grader__reallocarray(NULL, a->ntext, sizeof *a->text_at);
        if (a->text_at == NULL)
            return grader__fail(err, GRADER_ENOMEM, NULL, 0, "out of memory");
    }
    uint32_t last = 0;
    for (size_t i = 0; i < a->ntext; i++) {
        const unsigned char *h, *t;
        if (take(c, 5, &h) != 0 || take(c, h[4], &t) != 0)
            return bad(err, "a text runs past the record");
        a->text_at[i] = (uint32_t)(h - a->texts);
        uint32_t id = get32(h);
        if (i > 0 && id <= last)
            return bad(err, "the text table is not in id order");
        last = id;
    }
    return 0;
}

/* The id, topn, flags, counts and texts; the arrays allocated. */
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
    if (take(c, 10, &at) != 0)
        return bad(err, "the head runs past the record");
    a->topn = at[0];
    a->flags = at[1];
    a->ntok = get32(at + 2);
    a->ntext = get32(at + 6);
    if (a->topn == 0 || a->topn > GRADER_PROBS_TOPN_MAX)
        return bad(err, "top N outside 1..20");
    if ((a->flags & ~(unsigned)GRADER_PROBS_CUT) != 0)
        return bad(err, "unknown flags");
    if (a->ntok > GRADER_PROBS_TOKENS_MAX)
        return bad(err, "more tokens than the cap");
    if (a->ntext > (size_t)(c->end - c->p) / 5u)
        return bad(err, "more texts than the record holds");
    int rc = decode_texts(c, a, err);
    if (rc != 0)
        return rc;
    /* Each token takes 1 + 8 N bytes at least: a count the body cannot
     * hold is refused before anything is allocated for it. */
    if (a->ntok > (size_t)(c->end - c->p) / (1u + ENTRY * a->topn))
        return bad(err, "more tokens than the record holds");
    if (a->ntok == 0)
        return 0;
    a->chosen = grader__reallocarray(NULL, a->ntok, sizeof *a->chosen);
    a->top = grader__reallocarray(NULL, a->ntok * a->topn, sizeof *a->top);
    if (a->chosen == NULL || a->top == NULL)
        return grader__fail(err, GRADER_ENOMEM, NULL, 0, "out of memory");
    return 0;
}

/* The tokens, each 1 + 8 N bytes (and 8 more for a chosen token outside
 * its list). */
static int decode_tokens(struct cur *c, struct grader_probs_answer *a,
                         struct grader_error *err)
{
    const unsigned topn = a->topn;
    for (size_t t = 0; t < a->ntok; t++) {
        const unsigned char *at;
        struct grader_probs_entry *top = &a->top[t * topn];
        if (take(c, 1, &at) != 0)
            return bad(err, "a token runs past the record");
        unsigned k = at[0];
        if (k != K_OUTSIDE && k >= topn)
            return bad(err, "a chosen token's place past top N");
        if (k == K_OUTSIDE) {
            if (take(c, ENTRY, &at) != 0)
                return bad(err, "a token runs past the record");
            get_entry(at, &a->chosen[t]);
        }
        if (take(c, (size_t)ENTRY * topn, &at) != 0)
            return bad(err, "a token runs past the record");
        for (unsigned j = 0; j < topn; j++)
            get_entry(at + (size_t)ENTRY * j, &top[j]);
        if (k != K_OUTSIDE)
            a->chosen[t] = top[k];
    }
    if (c->p != c->end)
        return bad(err, "bytes left over after the last token");
    return 0;
}

int grader_probs_decode(const unsigned char *rec, size_t len,
                        struct grader_probs_answer *a,
                        struct grader_error *err)
{
    memset(a, 0, sizeof *a);
    size_t size;
    int rc = grader_probs_record_size(rec, len, &size);
    if (rc == GRADER_EMISSING)
        return bad(err, "torn head");
    if (rc != 0)
        return bad(err, "no magic, or a body past the cap");
    if (size != len)
        return bad(err, "its length is not the body's");
    const unsigned char *body = rec + GRADER_PROBS_HEAD;
    size_t blen = len - GRADER_PROBS_HEAD;
    if (check64(body, blen - CHECK_LEN) != get64(body + blen - CHECK_LEN))
        return bad(err, "the check does not match (a torn or changed record)");
    struct cur c = {body, body + blen - CHECK_LEN};
    rc = decode_head(&c, a, err);
    if (rc == 0)
        rc = decode_tokens(&c, a, err);
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
    grader__free(a->text_at);
    a->chosen = NULL;
    a->top = NULL;
    a->text_at = NULL;
    a->ntok = 0;
    a->ntext = 0;
}

const char *grader_probs_text(const struct grader_probs_answer *a, uint32_t id,
                              size_t *len)
{
    size_t lo = 0, hi = a->text_at != NULL ? a->ntext : 0;
    *len = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const unsigned char *p = a->texts + a->text_at[mid];
        uint32_t at = get32(p);
        if (at == id) {
            *len = p[4];
            return (const char *)p + 5;
        }
        if (at < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const char *grader_probs_entry_text(const struct grader_probs_answer *a,
                                    const struct grader_probs_entry *e,
                                    size_t *len)
{
    if (e->text != NULL && e->len > 0) {
        *len = e->len;
        return e->text;
    }
    return grader_probs_text(a, e->id, len);
}
