/*
 * qset.h - the questions every rung is graded on: ids interned to small
 * integers, with the reference answer each one carries.
 *
 * One qset is shared by all the rungs of one command, so that "question 17"
 * means the same question in every rows file. The qset also checks that
 * the rows agree on each question's reference answer: rows made from two
 * different question files must never be compared silently.
 */
#ifndef GRADER_QSET_H
#define GRADER_QSET_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "number.h"

/* Question ids are at most this long (GSM8K's are "test-1318"). */
#define GRADER_ID_MAX 256

struct grader_qset;

/* A new empty set, or NULL when out of memory. */
struct grader_qset *grader_qset_new(void);
void grader_qset_free(struct grader_qset *qs);

/* Number of distinct questions seen so far; indexes are 0..count-1 in
 * order of first appearance. */
size_t grader_qset_count(const struct grader_qset *qs);

/* Borrowed strings, valid until grader_qset_free. */
const char *grader_qset_id(const struct grader_qset *qs, uint32_t q);
const char *grader_qset_reference(const struct grader_qset *qs, uint32_t q);
const char *grader_qset_canonical(const struct grader_qset *qs, uint32_t q);

/*
 * Find or add question id with reference answer ref (as written) whose
 * canonical form is num. A known id whose canonical reference differs is
 * GRADER_EREFMISMATCH, reported against file:line. On success *q is set.
 */
int grader_qset_intern(struct grader_qset *qs, const char *id, size_t id_len,
                       const char *ref, size_t ref_len,
                       const struct grader_num *num, const char *file,
                       long line, uint32_t *q, struct grader_error *err);

/* A long item's target length, at most 2^24 tokens (haystack.h's cap). */
#define GRADER_LENGTH_MAX (1L << 24)

/*
 * Question q's long-item attributes, from a row (docs/longctx.md): its
 * prompt's target length in tokens and its asked needle's depth in %
 * (-1 each: none, a row of any other question file). The first row of q
 * sets them; a later row of q must say the same, or GRADER_EREFMISMATCH
 * against file:line (rows of two question files never compared
 * silently); one out of range is GRADER_EPARSE.
 */
int grader_qset_long(struct grader_qset *qs, uint32_t q, long long length,
                     long long depth, const char *file, long line,
                     struct grader_error *err);
/* q's length (-1 none) and depth (-1 none); whether any q has a length. */
long grader_qset_length(const struct grader_qset *qs, uint32_t q);
int grader_qset_depth(const struct grader_qset *qs, uint32_t q);
int grader_qset_has_lengths(const struct grader_qset *qs);

/* Look an id up without adding it: 0 and *q, or -1 when absent. */
int grader_qset_find(const struct grader_qset *qs, const char *id,
                     size_t id_len, uint32_t *q);

#endif
