/*
 * longitem.h - a long item made here, as a question file holds it: its
 * recipe, never its prompt (docs/longctx.md, "Question files of items
 * made here"). `graveyard long` writes the records; questions.c reads
 * them; the runner sends the prompt this module makes again from the
 * recipe (haystack.h), and writes the recipe into the row, so a 64K
 * ladder of ten rungs keeps a few hundred bytes an answer, not the
 * quarter of a megabyte its prompt is.
 *
 *   {"id": "niah-single-3@16384",
 *    "long": {"kind": "niah-single", "seed": 7, "index": 3,
 *             "length": 16384, "fill": 11734, "tokens": 16301,
 *             "depth": 38},
 *    "answers": ["8473921"]}
 *
 * kind, seed and index make the item's needles and answers; fill makes
 * its prompt; length is the target it was fitted to in the server's
 * tokens, tokens what that server counted at fill. "answers", when
 * given, must be the item's own: a record made by another version of the
 * generator is refused, not graded against the wrong strings.
 */
#ifndef LONGITEM_H
#define LONGITEM_H

#include <jansson.h>
#include <stddef.h>

/* Items of each kind at each length, at most (graveyard long's --items,
 * a config's "long.items"). */
#define LONGITEM_ITEMS_MAX 10000

/* The largest seed a record may hold: JSON's exact integers. */
#define LONGITEM_SEED_MAX ((1LL << 53) - 1)

struct longitem {
    int kind; /* enum haystack_kind */
    long long seed;
    unsigned long index;
    size_t fill;
    long length, tokens; /* tokens -1: not recorded */
    int depth;           /* the asked needle's, or -1 (cwe, fwe) */
};

/*
 * The record o's "long" object into *it, and the item's answers one a
 * line into ref (refsize bytes), checked against o's "answers" when it
 * has them. 0, or -1 with why (a key missing or out of range, an unknown
 * kind, answers that are not the item's).
 */
int longitem_read(json_t *o, struct longitem *it, char *ref, size_t refsize,
                  char *why, size_t whysize);

/* The record of it with its answers (new: json_decref), for `graveyard
 * long`. NULL when the item cannot be made. */
json_t *longitem_record(const char *id, const struct longitem *it);

/* The prompt of it (new: free()), made again from its recipe; NULL with
 * why when it cannot be (out of memory, over the prompt cap). */
char *longitem_prompt(const struct longitem *it, char *why, size_t whysize);

/* What the page shows for it instead of its prompt (new: free()):
 * "niah-single item 3 (seed 7), 16,384 tokens: the special magic number
 * for hollow-lantern; needle at 38 %". */
char *longitem_summary(const struct longitem *it);

/*
 * A list of lengths as people write them ("4096,16384,32K": K is 1024),
 * into out[0..*n) ascending, at most max. 0, or -1 with why naming the
 * one refused: empty, not a whole number, 0 or negative, past 2^24 tokens
 * (haystack.h's cap), given twice, or more than max of them.
 */
int longitem_lengths(const char *list, long *out, size_t max, size_t *n,
                     char *why, size_t whysize);

/* What a chat template may add to a prompt, at most, in tokens: room
 * kept in the context beside the longest prompt and the token cap. */
#define LONGITEM_TEMPLATE_TOKENS 256

/* The longest prompt of a question file in tokens: each long item's
 * "tokens" counted when it was made (else its "length"), or a "length"
 * given; 0 when none says (a question file of short questions). *guess:
 * the longest of one's own long items without a length, from its bytes
 * (a third of them: long rather than short), 0 when none. 0, or -1 with
 * msg (the file cannot be read). */
int longitem_longest(const char *path, long *longest, long *guess, char *msg,
                     size_t msgsize);

/*
 * The context a rung's server needs for path's long items: the longest
 * prompt, LONGITEM_TEMPLATE_TOKENS and max_tokens. When given (a config's
 * "ctx", --ctx) *ctx must hold it; else *ctx is raised to it (rounded up
 * to 256), or to the guess for items of one's own without a length. And it
 * must fit model's trained context (its GGUF's ARCH.context_length) unless
 * args set RoPE scaling (--rope-scaling,
 * --rope-scale, --rope-freq-scale, --yarn-orig-ctx), which *rope then
 * names. 0, or -1 with one line in msg naming the rung, the lengths and
 * what to do. Nothing is asked of a question file without long items.
 */
int longitem_context(const char *rung, const char *path, long max_tokens,
                     int given, long *ctx, const char *model,
                     const char *const *args, size_t nargs, const char **rope,
                     char *msg, size_t msgsize);

/* The same rules for a longest prompt known otherwise (a config's
 * "lengths", before its items are made): what names it in msg ("the
 * longest of 'lengths'"). */
int longitem_context_for(const char *rung, const char *what, long longest,
                         long max_tokens, int given, long *ctx,
                         const char *model, const char *const *args,
                         size_t nargs, const char **rope, char *msg,
                         size_t msgsize);

#endif
