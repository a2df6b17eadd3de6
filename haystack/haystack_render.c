/*
 * haystack_render.c - an item's prompt at a given fill (haystack.h):
 * RULER's wording around a context of filler sentences with the needles
 * at their depths, or cwe's numbered list of words.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "haystack.h"
#include "haystack_int.h"

void haystack_prompt_release(struct haystack_prompt *p)
{
    free(p->text);
    memset(p, 0, sizeof(*p));
}

/* Append s[0..n) to p's text, capped at HAYSTACK_PROMPT_MAX bytes. */
static int put(struct haystack_prompt *p, const char *s, size_t n)
{
    if (n > HAYSTACK_PROMPT_MAX - p->len)
        return HAYSTACK_ELIMIT;
    if (p->len + n + 1 > p->cap) {
        size_t cap = p->cap ? p->cap : 4096;
        char *t;
        while (cap < p->len + n + 1)
            cap *= 2;
        if (cap > HAYSTACK_PROMPT_MAX + 1)
            cap = HAYSTACK_PROMPT_MAX + 1;
        if ((t = realloc(p->text, cap)) == NULL)
            return HAYSTACK_ENOMEM;
        p->text = t;
        p->cap = cap;
    }
    memcpy(p->text + p->len, s, n);
    p->len += n;
    p->text[p->len] = '\0';
    return 0;
}

static int puts_(struct haystack_prompt *p, const char *s)
{
    return put(p, s, strlen(s));
}

/* The words around a needle kind's context: RULER's TEMPLATE, with its
 * singular form when one value is asked (prepare_niah.py's replaces). */
static void niah_frame(const struct haystack_item *it, char *head,
                       size_t hsize, char *question, size_t qsize)
{
    const char *type = it->kind == HAYSTACK_NIAH_MULTIKEY ? "uuid" : "number";

    if (it->nanswers == 1) {
        snprintf(head, hsize,
                 "A special magic %s is hidden within the following text. "
                 "Make sure to memorize it. I will quiz you about the %s "
                 "afterwards.\n",
                 type, type);
        snprintf(question, qsize,
                 "\nWhat is the special magic %s for %s mentioned in the "
                 "provided text?",
                 type, it->query);
        return;
    }
    snprintf(head, hsize,
             "Some special magic %ss are hidden within the following text. "
             "Make sure to memorize it. I will quiz you about the %ss "
             "afterwards.\n",
             type, type);
    snprintf(question, qsize,
             "\nWhat are all the special magic %ss for %s mentioned in the "
             "provided text?",
             type, it->query);
}

/* The needles in the order they are written at fill: by the word each
 * one goes before (fill * depth / 100), then by number. */
static void needle_order(const struct haystack_item *it, size_t fill,
                         size_t *pos, size_t *order)
{
    size_t i, j, t;

    for (i = 0; i < it->nneedles; i++) {
        pos[i] =
            (size_t)((uint64_t)fill * (uint64_t)it->needle_depth[i] / 100u);
        order[i] = i;
    }
    for (i = 1; i < it->nneedles; i++)
        for (j = i; j > 0 && pos[order[j - 1]] > pos[order[j]]; j--) {
            t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
}

/* A context being written: the needles not yet out, the words out. */
struct context {
    const struct haystack_item *it;
    struct haystack_prompt *p;
    size_t pos[HAYSTACK_MAX_NEEDLES], order[HAYSTACK_MAX_NEEDLES];
    size_t next;  /* order[next] is the next needle */
    size_t words; /* filler words written */
    int first;    /* nothing written yet */
};

/* One unit of the context, a needle or a sentence, after a space. */
static int unit(struct context *c, const char *s, size_t n)
{
    int rc = c->first ? 0 : put(c->p, " ", 1);

    c->first = 0;
    return rc != 0 ? rc : put(c->p, s, n);
}

/* The needles due before the next sentence (every one left when all). */
static int needles(struct context *c, int all)
{
    int rc = 0;

    while (rc == 0 && c->next < c->it->nneedles &&
           (all || c->pos[c->order[c->next]] <= c->words)) {
        size_t k = c->order[c->next++];
        c->p->needle_at[k] = c->p->len + (c->first ? 0 : 1);
        rc = unit(c, c->it->needles[k], strlen(c->it->needles[k]));
    }
    return rc;
}

/* The needle kinds and vt: head, fill words of filler sentences (the
 * last one cut short ends with a period), each needle before the first
 * sentence that starts at or after its word, the question. */
static int render_text(const struct haystack_item *it, size_t fill,
                       struct haystack_prompt *p)
{
    char head[512], question[HAYSTACK_QUERY_MAX + 256];
    char s[HAYSTACK_SENTENCE_MAX + 1];
    struct context c = {it, p, {0}, {0}, 0, 0, 1};
    size_t n, i, w;
    uint64_t st = haystack_stream(it->seed, it->index,
                                  HAYSTACK_TAG(HAYSTACK_TAG_FILLER, it->kind));
    int rc;

    if (it->kind == HAYSTACK_VT) {
        snprintf(head, sizeof(head),
                 "Memorize and track the chain(s) of variable assignment "
                 "hidden in the following text.\n\n");
        snprintf(question, sizeof(question),
                 "\nQuestion: Find all variables that are assigned the value "
                 "%s in the text above.",
                 it->query);
    } else
        niah_frame(it, head, sizeof(head), question, sizeof(question));
    needle_order(it, fill, c.pos, c.order);
    rc = puts_(p, head);
    while (rc == 0 && c.words < fill) {
        if ((rc = needles(&c, 0)) != 0)
            break;
        n = haystack__sentence(&st, s, HAYSTACK_SENTENCE_MAX);
        for (i = 0, w = 1; i < n; i++) /* its words: spaces + 1 */
            if (s[i] == ' ') {
                if (c.words + w + 1 > fill)
                    break;
                w++;
            }
        if (i < n) { /* cut after the fill's last word */
            s[i++] = '.';
            n = i;
        }
        c.words += w;
        rc = unit(&c, s, n);
    }
    if (rc == 0)
        rc = needles(&c, 1);
    return rc != 0 ? rc : puts_(p, question);
}

/* "N. word\n" for entry i (from 1) of cwe's list. */
static int put_entry(struct haystack_prompt *p, size_t i, uint32_t word,
                     int last)
{
    char line[40], digits[24];
    size_t n = 0, d = 0;

    do
        digits[d++] = (char)('0' + i % 10);
    while ((i /= 10) > 0);
    while (d > 0)
        line[n++] = digits[--d];
    line[n++] = '.';
    line[n++] = ' ';
    haystack__word(word, line + n);
    n += 6;
    if (!last)
        line[n++] = '\n';
    return put(p, line, n);
}

/* ids[0..n) shuffled by st (Fisher-Yates, from the end: the draws
 * docs/longctx.md writes down for a port). */
static void shuffle(uint32_t *ids, size_t n, uint64_t *st)
{
    for (size_t i = n; i-- > 1;) {
        size_t k = (size_t)haystack_below(st, (uint64_t)i + 1);
        uint32_t t = ids[i];
        ids[i] = ids[k];
        ids[k] = t;
    }
}

/* cwe: the 10 common words 30 times each and fill rare words 3 times
 * each, shuffled by a stream of (seed ^ fill * K, index). */
static int render_cwe(const struct haystack_item *it, size_t fill,
                      struct haystack_prompt *p)
{
    size_t common = HAYSTACK_CWE_COMMON * HAYSTACK_CWE_FREQ;
    size_t n = common + HAYSTACK_CWE_RARE * fill, i, k, r;
    uint64_t st = haystack_stream(
        it->seed ^ ((uint64_t)fill * 0x9e3779b97f4a7c15ULL), it->index,
        HAYSTACK_TAG(HAYSTACK_TAG_SHUFFLE, it->kind));
    uint32_t *ids, j = it->words[0];
    int rc;

    if (n > HAYSTACK_PROMPT_MAX / 10) /* "1. xxxxxx\n" at the least */
        return HAYSTACK_ELIMIT;
    if ((ids = malloc(n * sizeof(*ids))) == NULL)
        return HAYSTACK_ENOMEM;
    for (i = 0; i < common; i++)
        ids[i] = it->words[i / HAYSTACK_CWE_FREQ];
    for (i = common; i < n;) { /* rare: a walk that skips the common */
        j = (j + HAYSTACK_CWE_STEP) % HAYSTACK_CWE_WORDS;
        for (k = 0; k < HAYSTACK_CWE_COMMON && it->words[k] != j; k++)
            ;
        if (k < HAYSTACK_CWE_COMMON)
            continue;
        for (r = 0; r < HAYSTACK_CWE_RARE; r++)
            ids[i++] = j;
    }
    shuffle(ids, n, &st);
    rc = puts_(p, "Below is a numbered list of words. In these words, some "
                  "appear more often than others. Memorize the ones that "
                  "appear most often.\n");
    for (i = 0; rc == 0 && i < n; i++)
        rc = put_entry(p, i + 1, ids[i], i + 1 == n);
    free(ids);
    if (rc == 0)
        rc = puts_(p, "\nQuestion: What are the 10 most common words in the "
                      "above list?");
    return rc;
}

/* The word of fwe's rank k (from 2), or of the next rank of the walk at
 * *j (from 5): a word of the 2^18 other than the answers. */
static uint32_t fwe_word(const struct haystack_item *it, size_t k, uint32_t *j)
{
    if (k <= 4)
        return it->words[k - 2];
    do
        *j = (*j + HAYSTACK_CWE_STEP) % HAYSTACK_CWE_WORDS;
    while (*j == it->words[0] || *j == it->words[1] || *j == it->words[2]);
    return *j;
}

/* fwe: RULER's coded text, n = 200 + fill words, rank k written
 * floor(n / zeta(2) / k^2) times (rank 1 the noise "..."), shuffled by a
 * stream of (seed ^ fill * K, index). */
static int render_fwe(const struct haystack_item *it, size_t fill,
                      struct haystack_prompt *p)
{
    size_t n = HAYSTACK_FWE_BASE + fill, m = 0, k, c, i;
    uint64_t st = haystack_stream(
        it->seed ^ ((uint64_t)fill * 0x9e3779b97f4a7c15ULL), it->index,
        HAYSTACK_TAG(HAYSTACK_TAG_SHUFFLE, it->kind));
    uint32_t *ids, j = it->words[3], w;
    char word[8];
    int rc;

    if (n > HAYSTACK_PROMPT_MAX / 7) /* "bakoti " for each */
        return HAYSTACK_ELIMIT;
    if ((ids = malloc(n * sizeof(*ids))) == NULL)
        return HAYSTACK_ENOMEM;
    for (k = 1;; k++) {
        c = (size_t)((double)n * HAYSTACK_FWE_ZETA / ((double)k * (double)k));
        if (c == 0)
            break;
        w = k == 1 ? UINT32_MAX : fwe_word(it, k, &j);
        for (i = 0; i < c && m < n; i++)
            ids[m++] = w;
    }
    shuffle(ids, m, &st);
    rc = puts_(p, "Read the following coded text and track the frequency of "
                  "each coded word. Find the three most frequently appeared "
                  "coded words. ");
    for (i = 0; rc == 0 && i < m; i++) {
        if (i > 0)
            rc = put(p, " ", 1);
        if (ids[i] == UINT32_MAX) {
            if (rc == 0)
                rc = put(p, "...", 3);
            continue;
        }
        haystack__word(ids[i], word);
        if (rc == 0)
            rc = put(p, word, 6);
    }
    free(ids);
    if (rc == 0)
        rc = puts_(p, "\nQuestion: Do not provide any explanation. Please "
                      "ignore the dots '....'. What are the three most "
                      "frequently appeared words in the above coded text?");
    return rc;
}

int haystack_render(const struct haystack_item *it, size_t fill,
                    struct haystack_prompt *p)
{
    if ((unsigned)it->kind >= HAYSTACK_NKINDS || fill > HAYSTACK_FILL_MAX)
        return HAYSTACK_EARG;
    p->len = 0;
    p->fill = fill;
    memset(p->needle_at, 0, sizeof(p->needle_at));
    if (p->text != NULL)
        p->text[0] = '\0';
    if (it->kind == HAYSTACK_CWE)
        return render_cwe(it, fill, p);
    if (it->kind == HAYSTACK_FWE)
        return render_fwe(it, fill, p);
    return render_text(it, fill, p);
}
