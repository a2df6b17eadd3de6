/*
 * haystack.c - the items (haystack.h): the PRNG streams, the word lists
 * the filler is made of, each kind's answers and needles, and the prompt
 * at a given fill. Wording after RULER's templates (lm-eval-harness's
 * lm_eval/tasks/ruler/niah_utils.py, vt_utils.py, cwe_utils.py);
 * docs/longctx.md says where it differs and why.
 */
#include "haystack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "haystack_int.h"

const char *haystack_strerror(int code)
{
    switch (code) {
#define HAYSTACK_X(name, c, text)                                             \
    case c:                                                                   \
        return text;
        HAYSTACK_ERRORS(HAYSTACK_X)
#undef HAYSTACK_X
    }
    return "unknown error";
}

static const char *const kind_names[] = {"niah-single",
                                         "niah-multikey",
                                         "niah-multivalue",
                                         "niah-multiquery",
                                         "vt",
                                         "cwe",
                                         "fwe"};
_Static_assert(sizeof(kind_names) / sizeof(kind_names[0]) == HAYSTACK_NKINDS,
               "a name for every kind");

const char *haystack_kind_name(enum haystack_kind kind)
{
    return (unsigned)kind < HAYSTACK_NKINDS ? kind_names[kind] : NULL;
}

int haystack_kind_parse(const char *name, enum haystack_kind *out)
{
    int k;

    for (k = 0; k < HAYSTACK_NKINDS; k++)
        if (strcmp(kind_names[k], name) == 0) {
            *out = (enum haystack_kind)k;
            return 0;
        }
    return HAYSTACK_EARG;
}

/* ---- the PRNG ----------------------------------------------------------- */

uint64_t haystack_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t haystack_stream(uint64_t seed, uint32_t index, uint32_t tag)
{
    uint64_t s = seed ^ ((uint64_t)index * 0x9e3779b97f4a7c15ULL) ^
                 ((uint64_t)tag * 0xd1b54a32d192ed03ULL);

    return haystack_splitmix64(&s);
}

uint64_t haystack_below(uint64_t *state, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;

    do
        x = haystack_splitmix64(state);
    while (x >= limit);
    return x % n;
}

/* ---- words -------------------------------------------------------------- */

static const char *const adjs[32] = {
    "quiet",  "bright", "narrow",  "gentle",  "distant",  "hollow",  "silver",
    "rapid",  "brown",  "crooked", "patient", "woolen",   "sudden",  "humble",
    "frozen", "golden", "tidy",    "rustic",  "mellow",   "brisk",   "sturdy",
    "velvet", "dusty",  "lively",  "modest",  "polished", "shallow", "tender",
    "vivid",  "wary",   "cozy",    "curious"};
static const char *const nouns[32] = {
    "harbor", "lantern", "meadow",  "kettle",  "orchard", "violin", "compass",
    "ladder", "pebble",  "blanket", "garden",  "engine",  "river",  "window",
    "basket", "teacher", "farmer",  "painter", "sailor",  "pilot",  "market",
    "bridge", "letter",  "mirror",  "candle",  "forest",  "wagon",  "island",
    "tower",  "valley",  "cabinet", "village"};
static const char *const verbs[32] = {
    "carried",   "painted",   "watched",  "followed", "mended",   "counted",
    "visited",   "noticed",   "cleaned",  "opened",   "measured", "shared",
    "lifted",    "borrowed",  "admired",  "guarded",  "crossed",  "gathered",
    "described", "ignored",   "polished", "warmed",   "pulled",   "traded",
    "studied",   "praised",   "loaded",   "sketched", "repaired", "moved",
    "welcomed",  "remembered"};
static const char *const places[16] = {
    "station", "square", "library", "shore",    "hill",   "courtyard",
    "kitchen", "field",  "pier",    "workshop", "chapel", "stable",
    "cellar",  "road",   "canal",   "attic"};

/* The templates of a filler sentence: '#' an adjective, '@' a noun, '^'
 * a verb, '~' a place; every other byte as it is. */
static const char *const templates[8] = {
    "The # @ ^ the @ near the ~.",
    "A # @ ^ every @ by the ~.",
    "Each @ ^ a # @ before the ~.",
    "Nobody ^ the # @ that stood in the ~.",
    "Later the @ ^ some # @ across the ~.",
    "Our # @ ^ the old @ beside the ~.",
    "Then a @ ^ the # ~ again.",
    "Every morning the # @ ^ a @ at the ~."};

/* Sentence from the filler stream at *state into out (cap bytes, NUL
 * included; every sentence is under 80 bytes, and one longer than cap
 * would end at the word that does not fit); its length. */
size_t haystack__sentence(uint64_t *state, char *out, size_t cap)
{
    const char *t = templates[haystack_below(state, 8)];
    size_t n = 0;

    for (; *t; t++) {
        const char *w = NULL;
        switch (*t) {
        case '#':
            w = adjs[haystack_below(state, 32)];
            break;
        case '@':
            w = nouns[haystack_below(state, 32)];
            break;
        case '^':
            w = verbs[haystack_below(state, 32)];
            break;
        case '~':
            w = places[haystack_below(state, 16)];
            break;
        }
        if (w != NULL) {
            size_t l = strlen(w);
            if (n + l + 1 >= cap)
                break; /* never: the longest is under 80 bytes */
            memcpy(out + n, w, l);
            n += l;
        } else if (n + 2 < cap) {
            out[n++] = *t;
        }
    }
    out[n] = '\0';
    return n;
}

/* cwe's word number j (0 <= j < 2^18): three syllables of a consonant
 * and a vowel, so any two differ and none holds another. */
void haystack__word(uint32_t j, char out[7])
{
    static const char cons[] = "bdfghjklmnprstvz", vow[] = "aeio";
    int i;

    for (i = 0; i < 3; i++) {
        unsigned s = (j >> (12 - 6 * i)) & 63;
        out[2 * i] = cons[s >> 2];
        out[2 * i + 1] = vow[s & 3];
    }
    out[6] = '\0';
}

/* ---- items -------------------------------------------------------------- */

/* RULER's 40 depths: np.round(np.linspace(0, 100, 40)). */
static int depth_of_slot(unsigned k)
{
    return (int)((k * 200u + 39u) / 78u);
}

/* n distinct depth slots: the first from the item's index (so the items
 * of a seed spread over all 40 depths, as RULER's sampling does), the
 * others drawn. */
static void draw_depths(uint64_t *st, uint64_t seed, uint32_t index, size_t n,
                        int *depth)
{
    unsigned used[HAYSTACK_MAX_NEEDLES], k;
    size_t i, j;

    used[0] = (unsigned)((index * 17u + seed % 40u) % 40u);
    for (i = 1; i < n; i++) {
        do {
            k = (unsigned)haystack_below(st, 40);
            for (j = 0; j < i && used[j] != k; j++)
                ;
        } while (j < i);
        used[i] = k;
    }
    for (i = 0; i < n; i++)
        depth[i] = depth_of_slot(used[i]);
}

/* A key: adjective-noun, distinct from keys[0..n); the adjective drawn
 * first (in statements of their own: a function's arguments are
 * evaluated in no set order, and a port must draw as this does). */
static void draw_key(uint64_t *st, char (*keys)[HAYSTACK_ANSWER_MAX], size_t n)
{
    size_t j;

    do {
        const char *adj = adjs[haystack_below(st, 32)];
        const char *noun = nouns[haystack_below(st, 32)];
        snprintf(keys[n], HAYSTACK_ANSWER_MAX, "%s-%s", adj, noun);
        for (j = 0; j < n && strcmp(keys[j], keys[n]) != 0; j++)
            ;
    } while (j < n);
}

/* A value: a 7-digit number or a uuid (version 4's layout). */
static void draw_value(uint64_t *st, int uuid, char *out)
{
    uint64_t a, b;

    if (!uuid) {
        snprintf(out, HAYSTACK_ANSWER_MAX, "%07u",
                 (unsigned)(1000000 + haystack_below(st, 9000000)));
        return;
    }
    a = haystack_splitmix64(st);
    b = haystack_splitmix64(st);
    snprintf(out, HAYSTACK_ANSWER_MAX, "%08x-%04x-4%03x-%x%03x-%012llx",
             (unsigned)(a >> 32), (unsigned)((a >> 16) & 0xffff),
             (unsigned)(a & 0xfff), (unsigned)(8 + ((b >> 62) & 3)),
             (unsigned)((b >> 48) & 0xfff),
             (unsigned long long)(b & 0xffffffffffffULL));
}

/* Whether answers[0..n) holds s. */
static int taken(const struct haystack_item *it, size_t n, const char *s)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (strcmp(it->answers[i], s) == 0)
            return 1;
    return 0;
}

/* The needle-in-a-haystack kinds: nkeys keys, nvals values each, nq keys
 * asked (the first nq). */
static void make_niah(struct haystack_item *it, uint64_t *st, size_t nkeys,
                      size_t nvals, size_t nq, int uuid)
{
    char keys[4][HAYSTACK_ANSWER_MAX];
    const char *type = uuid ? "uuids" : "numbers";
    size_t k, v, n = 0, len = 0;

    for (k = 0; k < nkeys; k++)
        draw_key(st, keys, k);
    for (k = 0; k < nkeys; k++)
        for (v = 0; v < nvals; v++, n++) {
            do
                draw_value(st, uuid, it->answers[n]);
            while (taken(it, n, it->answers[n]));
            snprintf(it->needles[n], HAYSTACK_NEEDLE_MAX,
                     "One of the special magic %s for %.39s is: %.39s.", type,
                     keys[k], it->answers[n]);
        }
    it->nneedles = n;
    it->nanswers = nq * nvals; /* the asked keys' values come first */
    draw_depths(st, it->seed, it->index, n, it->needle_depth);
    it->depth = it->needle_depth[0];
    for (k = 0; k < nq; k++) {
        const char *sep = k == 0 ? "" : k + 1 == nq ? ", and " : ", ";
        len += (size_t)snprintf(it->query + len, sizeof(it->query) - len,
                                "%s%s", sep, keys[k]);
    }
}

/* Variable tracking: VAR names of 5 capitals, one chain of 5 from a
 * 5-digit value (RULER's num_chains 1, num_hops 4). */
static void make_vt(struct haystack_item *it, uint64_t *st)
{
    unsigned value = (unsigned)(10000 + haystack_below(st, 90000));
    size_t i, j;
    int t;

    for (i = 0; i < 5; i++) {
        do {
            for (j = 0; j < 5; j++)
                it->answers[i][j] = (char)('A' + haystack_below(st, 26));
            it->answers[i][5] = '\0';
        } while (taken(it, i, it->answers[i]));
    }
    it->nanswers = it->nneedles = 5;
    snprintf(it->needles[0], HAYSTACK_NEEDLE_MAX, "VAR %s = %u",
             it->answers[0], value);
    for (i = 1; i < 5; i++)
        snprintf(it->needles[i], HAYSTACK_NEEDLE_MAX, "VAR %s = VAR %s",
                 it->answers[i], it->answers[i - 1]);
    draw_depths(st, it->seed, it->index, 5, it->needle_depth);
    for (i = 1; i < 5; i++) /* the chain in order: depths sorted */
        for (j = i; j > 0 && it->needle_depth[j - 1] > it->needle_depth[j];
             j--) {
            t = it->needle_depth[j];
            it->needle_depth[j] = it->needle_depth[j - 1];
            it->needle_depth[j - 1] = t;
        }
    it->depth = it->needle_depth[0];
    snprintf(it->query, sizeof(it->query), "%u", value);
}

/* Common words: 10 distinct words of the 2^18. */
static void make_cwe(struct haystack_item *it, uint64_t *st)
{
    size_t i, j;

    for (i = 0; i < HAYSTACK_CWE_COMMON; i++) {
        do {
            it->words[i] = (uint32_t)haystack_below(st, HAYSTACK_CWE_WORDS);
            for (j = 0; j < i && it->words[j] != it->words[i]; j++)
                ;
        } while (j < i);
        haystack__word(it->words[i], it->answers[i]);
    }
    it->nanswers = HAYSTACK_CWE_COMMON;
    it->depth = HAYSTACK_NO_DEPTH;
}

/* Frequent words: ranks 2 to 4, three distinct words of the 2^18, and
 * where the walk of the other ranks starts. */
static void make_fwe(struct haystack_item *it, uint64_t *st)
{
    size_t i, j;

    for (i = 0; i < 3; i++) {
        do {
            it->words[i] = (uint32_t)haystack_below(st, HAYSTACK_CWE_WORDS);
            for (j = 0; j < i && it->words[j] != it->words[i]; j++)
                ;
        } while (j < i);
        haystack__word(it->words[i], it->answers[i]);
    }
    it->words[3] = (uint32_t)haystack_below(st, HAYSTACK_CWE_WORDS);
    it->nanswers = 3;
    it->depth = HAYSTACK_NO_DEPTH;
}

int haystack_item_make(enum haystack_kind kind, uint64_t seed, uint32_t index,
                       struct haystack_item *out)
{
    uint64_t st =
        haystack_stream(seed, index, HAYSTACK_TAG(HAYSTACK_TAG_ITEM, kind));

    if ((unsigned)kind >= HAYSTACK_NKINDS)
        return HAYSTACK_EARG;
    memset(out, 0, sizeof(*out));
    out->kind = kind;
    out->seed = seed;
    out->index = index;
    switch (kind) {
    case HAYSTACK_NIAH_SINGLE:
        make_niah(out, &st, 1, 1, 1, 0);
        break;
    case HAYSTACK_NIAH_MULTIKEY:
        make_niah(out, &st, 4, 1, 1, 1);
        break;
    case HAYSTACK_NIAH_MULTIVALUE:
        make_niah(out, &st, 1, 4, 1, 0);
        break;
    case HAYSTACK_NIAH_MULTIQUERY:
        make_niah(out, &st, 4, 1, 4, 0);
        break;
    case HAYSTACK_VT:
        make_vt(out, &st);
        break;
    case HAYSTACK_CWE:
        make_cwe(out, &st);
        break;
    default:
        make_fwe(out, &st);
        break;
    }
    return 0;
}
