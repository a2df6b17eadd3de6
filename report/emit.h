/*
 * emit.h - the grader's results as JSON, with the study's field names:
 * an output format, like the Markdown and the SVG (the grader itself
 * computes and prints nothing).
 *
 * Each function returns a new json_t reference (the caller owns it and
 * calls json_decref), or NULL when out of memory. Printing them is
 * emit_dumps: one object per line, keys in the order given here,
 * ", " and ": " between items as the study's lines have them.
 */
#ifndef REPORT_EMIT_H
#define REPORT_EMIT_H

#include <jansson.h>

#include "../grader/grader.h"

/* A bury line: rung, n, right, errors, truncated, median_decode_tps,
 * mean_tokens, dead, ghosts, answer_changed, p_mcnemar (null for the
 * reference), bytes, gpu_mib_loaded, gpu_mib_before (null when unknown). */
json_t *emit_bury_line(const struct grader_bury *b, size_t i,
                       const struct grader_meta *meta);

/* {"first_deaths_by_rung": {...}, "tombstones": N, "ghosts": M}: every
 * rung below the reference in ladder order, zeros included. */
json_t *emit_bury_summary(const struct grader_bury *b);

/* Where emit_graveyard writes: returns 0, or a non-zero code that
 * stops the writing and is returned. */
typedef int (*emit_sink_fn)(void *ctx, const char *s, size_t n);

/*
 * The per-question file (graveyard.json), one line: {"reference", "rungs",
 * "questions", "tombstones": [{id, died_at, answer, said, right_again_at}],
 * "ghosts": [{id, answer, reference_said, right_at}]}. Written through out
 * a record at a time, so memory does not grow with the tombstones. Returns
 * 0, GRADER_ENOMEM, or the sink's code.
 */
int emit_graveyard(const struct grader_bury *b, const struct grader_qset *qs,
                   emit_sink_fn out, void *ctx);

/* One tombstone record of graveyard.json: {id, died_at, answer, said,
 * right_again_at}. */
json_t *emit_tombstone(const struct grader_bury *b,
                       const struct grader_qset *qs,
                       const struct grader_tombstone *t);

json_t *emit_autopsy_line(const struct grader_autopsy_line *l);

json_t *emit_repeat_line(const struct grader_repeat_line *l);

/*
 * report.json's "probs" (probs.h's grader_probs_ladder, docs/report.md):
 * {"topn", "rungs": [{rung, compared, flips, kld_mean, kld_p99, tokens,
 * split, split_died, split_rose, split_survived, split_position_median,
 * fragility_auc}], "spearman", "repeat": null or {kld_mean, split},
 * "dead": [{rung, id, split, ..., "before", "ref_token", "rung_token",
 * "ref_top", "rung_top"}]}, a token [id, logprob, text] with its text
 * made fit to show (fmt_shown). NAN and infinities are null. rep->probs
 * must not be NULL.
 */
json_t *emit_probs(const struct grader_ladder *rep,
                   const struct grader_qset *qs);

/* A canonical number as a JSON number (an integer when it is one). */
json_t *emit_number(const char *canonical);

/* jansson's allocations through the grader's counted hooks (alloc.h):
 * then a jansson allocation that fails is counted, and emit_dumps tells
 * a string jansson shortened from a whole one. main() calls it first
 * thing; a chaos test calls it after grader_set_alloc. */
void emit_alloc_init(void);

/* One line of JSON text (new string, free with emit_free), or
 * NULL when out of memory (also when jansson lost bytes to a failed
 * allocation and returned a string all the same). */
char *emit_dumps(const json_t *j);
void emit_free(char *s);

/* A real rounded to 4 decimals: short, stable text for ratios and
 * interval ends in report.json and a duel's JSON; null when not finite
 * (no JSON holds inf or NaN). New, or NULL out of memory. */
json_t *emit_real4(double v);

#endif
