/*
 * probs.h - the tokens of an answer with their log-probabilities, and what
 * they say about where a rung's reply split from the reference's.
 *
 * With "logprobs": N in the config, every streamed token comes with its id,
 * its log-probability and the server's top N alternatives (ids and
 * log-probabilities, both lineages of llama-server). The runner keeps them
 * in RUNDIR/rows/<RUNG>.probs, one record an answer, beside the rows
 * (docs/rows.md, "The probs file"). This module is the record's one codec
 * (the runner encodes with it, the readers decode with it) and the figures
 * computed from two records of one question: the split, the margins, the
 * top-N KLD (docs/grading.md, "Where they split").
 *
 * A record, little-endian, every field at a byte offset (no padding):
 *
 *   "GYP1"                 4 bytes, the magic
 *   u32 body               bytes after this field, checksum included
 *   u8  id_len, id         the question's id (1..255 bytes)
 *   u8  topn               N, 1..GRADER_PROBS_TOPN_MAX
 *   u8  flags              GRADER_PROBS_CUT: tokens past the cap dropped
 *   u32 ntok               tokens that follow the texts
 *   u32 ntext              texts that follow
 *   ntext texts, each:     u32 id, u8 len, len bytes (the server's "bytes"
 *                          of that token id, cut at 255), ids ascending
 *   ntok tokens, each:
 *     u8 k                 where the chosen token is among the N that
 *                          follow (0..N-1), or 0xFF: it is not, and an
 *                          entry for it comes first
 *     [entry]              the chosen token, only when k is 0xFF
 *     N entries            the alternatives as the server listed them,
 *                          most likely first; fewer sent: the rest are
 *                          GRADER_PROBS_NONE and -inf
 *   u64 check              a word-wise hash of the bytes from id_len up to
 *                          here (probs.c), for a torn or changed record
 *
 *   an entry:  u32 id, f32 logprob
 *
 * Each token id's text is kept once a record, in the table, so tokens are
 * a fixed 1 + 8 N bytes (greedy decoding picks the most likely token, so
 * k is 0 nearly always and the chosen token costs one byte), and reading
 * them never walks a text: most readers want numbers only, and look up a
 * text (grader_probs_text) just for what they show. A record is at most
 * GRADER_PROBS_RECORD_MAX bytes; the encoder keeps at most
 * GRADER_PROBS_TOKENS_MAX tokens and sets CUT.
 */
#ifndef GRADER_PROBS_H
#define GRADER_PROBS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define GRADER_PROBS_MAGIC      "GYP1"
#define GRADER_PROBS_TOPN_MAX   20
#define GRADER_PROBS_TOKENS_MAX 65536u
#define GRADER_PROBS_TEXT_MAX   255u
#define GRADER_PROBS_ID_MAX     255u /* a question id's bytes (u8 id_len) */
#define GRADER_PROBS_RECORD_MAX (64u << 20)
#define GRADER_PROBS_HEAD       8u /* magic and body length */
#define GRADER_PROBS_NONE                                                     \
    UINT32_MAX /* an alternative the server did not send */

enum { GRADER_PROBS_CUT = 1 << 0 };

/* One token or alternative. To encode, text and len are the token's
 * bytes (NULL and 0: none). Decoded, they are NULL and 0: the texts stay
 * in the record's table, for grader_probs_text. */
struct grader_probs_entry {
    uint32_t id;
    float lp;
    uint8_t len;
    const char *text;
};

/* One answer's tokens. Decoded, the arrays are the decoder's (free with
 * grader_probs_answer_free) and id and texts point into the record; to
 * encode, the caller fills id to top (texts in the entries). */
struct grader_probs_answer {
    const char *id;
    size_t id_len;
    unsigned topn;
    unsigned flags;
    size_t ntok;
    struct grader_probs_entry *chosen; /* ntok */
    struct grader_probs_entry *top;    /* ntok * topn, row-major */
    const unsigned char *texts;        /* decoded: the text table */
    size_t ntext;
    uint32_t *text_at; /* decoded: each text's offset in
                          texts, for a binary search */
};

/*
 * How long the record at buf is, from its first 8 bytes: its whole size in
 * *size. Returns 0, GRADER_EPARSE (no magic, or a body under the smallest
 * or over the cap), or GRADER_EMISSING when avail < 8 (a torn head).
 */
int grader_probs_record_size(const unsigned char *buf, size_t avail,
                             size_t *size);

/* Bytes grader_probs_encode will write for a, or 0 when a breaks a cap
 * (an id of 0 or over 255 bytes, topn outside 1..20, a record over the
 * cap) or memory ran out (the text table is gathered in a sorted array).
 * Tokens past GRADER_PROBS_TOKENS_MAX are not counted (they are dropped
 * and CUT set). A token id given two texts keeps the first. */
size_t grader_probs_encoded_size(const struct grader_probs_answer *a);

/* Encode a into out (size bytes, at least grader_probs_encoded_size(a)).
 * Returns the bytes written, or 0 (a cap, memory, or out too small). */
size_t grader_probs_encode(const struct grader_probs_answer *a,
                           unsigned char *out, size_t size);

/*
 * Decode the whole record rec (len bytes, as grader_probs_record_size
 * measured it) into a. Returns 0, GRADER_EPARSE (the check fails, a field
 * breaks its cap, bytes left over or missing) with a sentence in err, or
 * GRADER_ENOMEM. a's id and texts point into rec, which must outlive a.
 */
int grader_probs_decode(const unsigned char *rec, size_t len,
                        struct grader_probs_answer *a,
                        struct grader_error *err);

void grader_probs_answer_free(struct grader_probs_answer *a);

/* Token id's text in a decoded answer's table (its bytes in *len), or
 * NULL with *len 0 when the record has none (a binary search). An entry
 * that carries its own text (one being encoded) is answered from it by
 * grader_probs_entry_text. */
const char *grader_probs_text(const struct grader_probs_answer *a, uint32_t id,
                              size_t *len);
const char *grader_probs_entry_text(const struct grader_probs_answer *a,
                                    const struct grader_probs_entry *e,
                                    size_t *len);

/* ---- Where they split: a rung's answer against the reference's ---- */

/*
 * One question both the reference and the rung answered with a record.
 * Greedy decoding gives both the same context up to and including the
 * first position where the chosen ids differ (the split): the positions
 * 0..split are the shared prefix, where the two distributions are
 * comparable. With no split the shared prefix is every position both
 * replies have. Log-probabilities are natural logs; a figure that cannot
 * be had (a list of one, no split) is NAN.
 */
struct grader_split {
    long split; /* first position whose chosen ids differ, or
                   -1: the replies agree as far as both go */
    size_t ref_ntok, rung_ntok;
    double ref_margin;     /* at the split: the reference's top-1 minus
                              top-2 log-probability */
    double rung_margin;    /* the same, the rung's */
    double rung_lp_of_ref; /* the rung's log-probability of the
                              reference's token there, NAN when it is not
                              in the rung's top N */
    double kld_split;      /* top-N KLD at the split */
    double kld_mean;       /* over the shared prefix, the split included */
    double kld_max;
    size_t prefix;    /* positions in the shared prefix */
    double fragility; /* the reference's smallest margin along its
                         reply up to its answer (NAN for N = 1) */
};

/*
 * Top-N KLD(P || Q) at one position: P the reference's, Q the rung's, each
 * a list of n entries (GRADER_PROBS_NONE entries ignored). Tokens in both
 * lists are buckets of their own; all else is one "other" bucket, of mass
 * 1 - (the listed mass) on each side (clamped at 0). Natural log. A lower
 * bound of the full KLD (coarsening never raises it). docs/grading.md.
 */
double grader_probs_kld(const struct grader_probs_entry *p,
                        const struct grader_probs_entry *q, unsigned n);

/* The figures of one question. ref and rung must have the same topn
 * (GRADER_EARG otherwise). answer_end: how many of the reference's tokens
 * reach the end of its graded answer (its whole reply when unknown), for
 * the fragility. */
int grader_probs_split(const struct grader_probs_answer *ref,
                       const struct grader_probs_answer *rung,
                       size_t answer_end, struct grader_split *out,
                       struct grader_error *err);

/* Per rung, over every question both answered with a record. */
struct grader_probs_rung {
    size_t both;             /* questions compared */
    size_t split;            /* replies that split */
    size_t split_died;       /* split, and the question is dead here
                                (reference right, rung wrong) */
    size_t split_rose;       /* split, and a ghost (reference wrong, rung
                                right) */
    size_t split_survived;   /* split, graded answer right or wrong alike */
    size_t flips;            /* dead + ghosts among the compared */
    size_t tokens;           /* shared-prefix positions in the KLD figures */
    double kld_mean;         /* over those positions */
    double kld_p99;          /* their 99th percentile (docs/grading.md says
                                how it is measured) */
    double split_pos_median; /* median of split / reference tokens, over
                                the replies that split */
    double fragility_auc;    /* how well a small reference margin predicts
                                death: the area under the ROC curve over the
                                questions the reference got right; NAN
                                without both a death and a survivor */
};

/* ---- What the reports are handed (report/ formats these, computes
 * nothing; the figures room fills them, question by question, so memory
 * holds one question's tokens, not a rung's) ---- */

#define GRADER_PROBS_SHOWN  48  /* bytes of a token's text kept for show */
#define GRADER_PROBS_BEFORE 512 /* bytes of the reply before a split kept */

/* One alternative at a split, for the page's bars. text is raw bytes (a
 * token may be part of a UTF-8 sequence): renderers sanitise it. */
struct grader_probs_alt {
    uint32_t id; /* GRADER_PROBS_NONE: not sent */
    float lp;
    char text[GRADER_PROBS_SHOWN]; /* NUL-terminated, cut */
};

/* A dead cell (reference right, rung wrong) whose replies split. */
struct grader_probs_cell {
    size_t rung;     /* index in the ladder's chain (0 the reference) */
    size_t question; /* index in the qset */
    struct grader_split s;
    char before[GRADER_PROBS_BEFORE]; /* the shared reply's last bytes
                                         before the split, NUL-terminated */
    struct grader_probs_alt ref_top[GRADER_PROBS_TOPN_MAX];
    struct grader_probs_alt rung_top[GRADER_PROBS_TOPN_MAX];
    struct grader_probs_alt ref_tok, rung_tok; /* the two chosen tokens */
};

/* One run folder's split figures, beside its grader_ladder (which points
 * at it: ladder.h's probs, NULL when no rung has a probs file). */
struct grader_probs_ladder {
    unsigned topn;
    size_t nrungs, nq;                 /* as the ladder's chain and qset */
    int have[64];                      /* rung i has a probs file (i < 64,
                                          GRADER_MAX_RUNGS) */
    struct grader_probs_rung rung[64]; /* rung[0], the reference, is zero */
    float *kld;                        /* nrungs * nq: a question's mean
                                          shared-prefix KLD, NAN when not
                                          compared (the cover's shading) */
    struct grader_probs_cell *cells;   /* ncells, rung then question order */
    size_t ncells;
    double spearman; /* flips against kld_mean across the
                        rungs with a file (the
                        reference left out); NAN under 3 */
    int repeat;      /* 1: a repeat of the reference had
                        probs, and the two below say what
                        it gave (the check: 0 and 0) */
    double repeat_kld_mean;
    size_t repeat_split;
    /* set by the caller that opens the files (the report's
     * figures_probs.c), not computed here: rung i's answers (rows without
     * an error) that have no record in its probs file, and the records the
     * file holds; the report warns of each rung with some */
    size_t unrecorded[64];
    size_t records[64];
};

void grader_probs_ladder_free(struct grader_probs_ladder *p);

/* ---- Building the figures above, question by question (probs_split.c) -- */

/* Below this a bucket's mass on the rung's side counts as this: a token
 * the rung gave log-probability -inf, or an "other" bucket the rung's
 * listed mass rounds to nothing, would make the KLD infinite. At most
 * ln(1e10), about 23 nats, per unit of the reference's mass. */
#define GRADER_PROBS_KLD_FLOOR 1e-10

/* The 99th percentile without keeping every token's KLD: a histogram of
 * log-spaced bins, GRADER_PROBS_HIST_PER_DECADE a decade from 1e-6 up to
 * 1e3 nats, one bin below (reported 0) and one at or above (reported
 * 1e3). A percentile is reported as its bin's geometric centre, so within
 * a factor 10^(1/200) (1.16 %) of the value (docs/grading.md). */
#define GRADER_PROBS_HIST_LO         (-6) /* the first bin's lower edge, 10^-6 */
#define GRADER_PROBS_HIST_DECADES    9
#define GRADER_PROBS_HIST_PER_DECADE 100
#define GRADER_PROBS_HIST_BINS                                                \
    (GRADER_PROBS_HIST_DECADES * GRADER_PROBS_HIST_PER_DECADE + 2)

/* One question the reference got right: its fragility, and whether the
 * rung's answer died there. */
struct grader_probs_frag {
    float fragility;
    int died;
};

/* A rung's figures being gathered: memory one histogram, plus a float per
 * question that split and a pair per question the reference got right. */
struct grader_probs_acc {
    struct grader_probs_rung r;
    double kld_sum;
    uint64_t hist[GRADER_PROBS_HIST_BINS];
    float *pos; /* split / reference tokens, per reply that split */
    size_t npos, pos_cap;
    struct grader_probs_frag *frag;
    size_t nfrag, frag_cap;
};

void grader_probs_acc_init(struct grader_probs_acc *a);

/* One shared-prefix token's KLD into a's mean and histogram
 * (grader_probs_acc_add calls it for each). */
void grader_probs_acc_token(struct grader_probs_acc *a, double kld);

/*
 * Compare one question (grader_probs_split into *s) and add it to a:
 * ref_right and rung_right are the two graded answers. 0, GRADER_EARG
 * (topn differ) or GRADER_ENOMEM.
 */
int grader_probs_acc_add(struct grader_probs_acc *a,
                         const struct grader_probs_answer *ref,
                         const struct grader_probs_answer *rung,
                         size_t answer_end, int ref_right, int rung_right,
                         struct grader_split *s, struct grader_error *err);

/* The rung's figures into out; a is released. */
void grader_probs_acc_finish(struct grader_probs_acc *a,
                             struct grader_probs_rung *out);

/* Release a without figures (an error part way). */
void grader_probs_acc_release(struct grader_probs_acc *a);

/* The area under the ROC curve of a small fragility predicting death,
 * f[0..n) (reordered): the Mann-Whitney U of the survivors against the
 * dead over n_dead * n_survived, a tie counting 1/2. NAN without both. */
double grader_probs_auc(struct grader_probs_frag *f, size_t n);

/* Spearman's rank correlation of x and y[0..n): ties get their average
 * rank; NAN when n < 3, n > 64 (GRADER_MAX_RUNGS), or either side is
 * constant. */
double grader_probs_spearman(const double *x, const double *y, size_t n);

/* p's kld array (nrungs * nq, all NAN) allocated, the rest zeroed. 0 or
 * GRADER_ENOMEM (p zeroed). */
int grader_probs_ladder_init(struct grader_probs_ladder *p, unsigned topn,
                             size_t nrungs, size_t nq);

/* A dead cell for the page: s's figures, the two chosen tokens and the two
 * top-N lists at the split, and the shared reply's last bytes before it
 * (texts copied and cut), appended to p's cells. s->split must be >= 0.
 * 0 or GRADER_ENOMEM. */
int grader_probs_ladder_cell(struct grader_probs_ladder *p, size_t rung,
                             size_t question,
                             const struct grader_probs_answer *ref,
                             const struct grader_probs_answer *rung_a,
                             const struct grader_split *s);

/* After the last question: the cells put in rung then question order
 * (they are added question by question), and p->spearman from the rungs'
 * figures: flips against kld_mean over the rungs past the reference that
 * have a file and a finite mean. */
void grader_probs_ladder_finish(struct grader_probs_ladder *p);

#endif
