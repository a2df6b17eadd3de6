/*
 * qset.c - an open-addressing hash map from question id to index, plus the
 * per-question strings, all in growable arrays owned by the set.
 */
#include "qset.h"

#include <string.h>

#include "alloc.h"
#include "extract.h"
#include "internal.h"

struct question {
    uint64_t hash;
    size_t id_len;
    char *id;
    char *ref;       /* as written in the first rows file that had it */
    char *canonical; /* its canonical number */
    char *origin;    /* that rows file, for error messages */
    int32_t length;  /* a long item's target length in tokens, -1 none */
    int32_t depth;   /* its asked needle's depth in %, -1 none */
    int long_set;    /* the two read from a first row (grader_qset_long) */
};

struct grader_qset {
    struct question *qs;
    size_t n, cap;
    uint32_t *slots;   /* index + 1, 0 = empty */
    size_t nslots;     /* power of two */
    char *last_origin; /* shared by consecutive questions of one file */
    int long_seen;     /* some question has a length */
};

struct grader_qset *grader_qset_new(void)
{
    struct grader_qset *qs = grader__calloc(1, sizeof(*qs));

    return qs;
}

void grader_qset_free(struct grader_qset *qs)
{
    size_t i;

    if (qs == NULL)
        return;
    for (i = 0; i < qs->n; i++) {
        grader__free(qs->qs[i].id);
        grader__free(qs->qs[i].ref);
        grader__free(qs->qs[i].canonical);
        if (qs->qs[i].origin != qs->last_origin &&
            (i == 0 || qs->qs[i].origin != qs->qs[i - 1].origin))
            grader__free(qs->qs[i].origin);
    }
    grader__free(qs->last_origin);
    grader__free(qs->qs);
    grader__free(qs->slots);
    grader__free(qs);
}

size_t grader_qset_count(const struct grader_qset *qs)
{
    return qs->n;
}

const char *grader_qset_id(const struct grader_qset *qs, uint32_t q)
{
    return qs->qs[q].id;
}

const char *grader_qset_reference(const struct grader_qset *qs, uint32_t q)
{
    return qs->qs[q].ref;
}

const char *grader_qset_canonical(const struct grader_qset *qs, uint32_t q)
{
    return qs->qs[q].canonical;
}

static uint64_t id_hash(const char *id, size_t len)
{
    return grader__hash64(id, len, 0x51ed270b27fe1a5bULL);
}

/* Slot where id lives, or the empty slot where it would go. */
static size_t probe(const struct grader_qset *qs, uint64_t h, const char *id,
                    size_t len)
{
    size_t mask = qs->nslots - 1, i = (size_t)h & mask;

    for (;; i = (i + 1) & mask) {
        uint32_t s = qs->slots[i];
        const struct question *x;
        if (s == 0)
            return i;
        x = &qs->qs[s - 1];
        if (x->hash == h && x->id_len == len && memcmp(x->id, id, len) == 0)
            return i;
    }
}

int grader_qset_find(const struct grader_qset *qs, const char *id,
                     size_t id_len, uint32_t *q)
{
    size_t i;

    if (qs->nslots == 0)
        return -1;
    i = probe(qs, id_hash(id, id_len), id, id_len);
    if (qs->slots[i] == 0)
        return -1;
    *q = qs->slots[i] - 1;
    return 0;
}

static int grow_slots(struct grader_qset *qs)
{
    size_t n = qs->nslots ? qs->nslots * 2 : 64, i;
    uint32_t *slots = grader__calloc(n, sizeof(*slots));

    if (slots == NULL)
        return GRADER_ENOMEM;
    grader__free(qs->slots);
    qs->slots = slots;
    qs->nslots = n;
    for (i = 0; i < qs->n; i++) {
        size_t mask = n - 1, j = (size_t)qs->qs[i].hash & mask;
        while (slots[j] != 0)
            j = (j + 1) & mask;
        slots[j] = (uint32_t)i + 1;
    }
    return 0;
}

/* The origin string for a new question: reuse the last one when the file
 * is the same, so a file of 100,000 rows costs one copy of its path. */
static char *origin_for(struct grader_qset *qs, const char *file)
{
    char *o;

    if (qs->last_origin != NULL && strcmp(qs->last_origin, file) == 0)
        return qs->last_origin;
    o = grader__strndup(file, strlen(file));
    if (o == NULL)
        return NULL;
    qs->last_origin = o;
    return o;
}

static int add(struct grader_qset *qs, uint64_t h, const char *id,
               size_t id_len, const char *ref, size_t ref_len,
               const struct grader_num *num, const char *file, uint32_t *q)
{
    struct question x = {0};

    if (qs->n >= UINT32_MAX - 1)
        return GRADER_ENOMEM;
    if ((qs->n + 1) * 2 > qs->nslots && grow_slots(qs) != 0)
        return GRADER_ENOMEM;
    if (qs->n == qs->cap) {
        size_t cap = qs->cap ? qs->cap * 2 : 16;
        struct question *p = grader__reallocarray(qs->qs, cap, sizeof(*p));
        if (p == NULL)
            return GRADER_ENOMEM;
        qs->qs = p;
        qs->cap = cap;
    }
    x.hash = h;
    x.length = x.depth = -1;
    x.id_len = id_len;
    x.id = grader__strndup(id, id_len);
    x.ref = grader__strndup(ref, ref_len);
    x.canonical = grader__strndup(num->s, strlen(num->s));
    x.origin = origin_for(qs, file);
    if (!x.id || !x.ref || !x.canonical || !x.origin) {
        grader__free(x.id);
        grader__free(x.ref);
        grader__free(x.canonical);
        return GRADER_ENOMEM;
    }
    qs->qs[qs->n] = x;
    qs->slots[probe(qs, h, id, id_len)] = (uint32_t)qs->n + 1;
    *q = (uint32_t)qs->n++;
    return 0;
}

int grader_qset_intern(struct grader_qset *qs, const char *id, size_t id_len,
                       const char *ref, size_t ref_len,
                       const struct grader_num *num, const char *file,
                       long line, uint32_t *q, struct grader_error *err)
{
    uint64_t h = id_hash(id, id_len);
    size_t i;
    const struct question *x;

    if (qs->nslots > 0) {
        i = probe(qs, h, id, id_len);
        if (qs->slots[i] != 0) {
            x = &qs->qs[qs->slots[i] - 1];
            if (strcmp(x->canonical, num->s) != 0)
                return grader__fail(
                    err, GRADER_EREFMISMATCH, file, line,
                    "reference '%.*s' for '%s' differs from '%s' in '%s'; "
                    "the rows come from different question files",
                    (int)ref_len, ref, x->id, x->ref, x->origin);
            *q = qs->slots[i] - 1;
            return 0;
        }
    }
    if (add(qs, h, id, id_len, ref, ref_len, num, file, q) != 0)
        return grader__fail(err, GRADER_ENOMEM, file, line, "out of memory");
    return 0;
}

int grader_qset_long(struct grader_qset *qs, uint32_t q, long long length,
                     long long depth, const char *file, long line,
                     struct grader_error *err)
{
    struct question *x = &qs->qs[q];

    if (length < -1 || length > GRADER_LENGTH_MAX || depth < -1 || depth > 100)
        return grader__fail(err, GRADER_EPARSE, file, line,
                            "'%s': length %lld or depth %lld out of range "
                            "(1 to %ld tokens, 0 to 100 %%)",
                            x->id, length, depth, (long)GRADER_LENGTH_MAX);
    if (!x->long_set) {
        x->length = (int32_t)length;
        x->depth = (int32_t)depth;
        x->long_set = 1;
        qs->long_seen |= length >= 0;
        return 0;
    }
    if (x->length != length || x->depth != depth)
        return grader__fail(
            err, GRADER_EREFMISMATCH, file, line,
            "'%s' has length %lld and depth %lld here, %d and %d in '%s'; "
            "the rows come from different question files",
            x->id, length, depth, (int)x->length, (int)x->depth, x->origin);
    return 0;
}

long grader_qset_length(const struct grader_qset *qs, uint32_t q)
{
    return qs->qs[q].length;
}

int grader_qset_depth(const struct grader_qset *qs, uint32_t q)
{
    return qs->qs[q].depth;
}

int grader_qset_has_lengths(const struct grader_qset *qs)
{
    return qs->long_seen;
}
