/*
 * grader.h - the grader library's one public header: rows in, the
 * study's numbers out (docs/grading.md, docs/report.md).
 *
 * Pure C11 on libc and libm: no jansson, libuv, libcurl or OpenSSL, no
 * clock, and no file of its own. A caller reads rows through the resumable
 * reader (rows.h) from whatever it has (rundir/ reads the run folder), hands
 * the rungs and their metadata over, and gets figures back; it owns what
 * it passes in, and frees what it gets with the matching _free. Out of
 * memory is GRADER_ENOMEM, never an abort (alloc.h).
 *
 * Code outside grader/ includes this header and no other of the
 * library's (scripts/check-grader-deps.sh refuses it); internal.h holds
 * what only the library's own files share.
 */
#ifndef GRADER_H
#define GRADER_H

#include "error.h"   /* error codes, struct grader_error */
#include "alloc.h"   /* allocator hooks, failed allocations counted */
#include "number.h"  /* numbers as people write them, canonical forms */
#include "extract.h" /* the answer rule, loop detection */
#include "qset.h"    /* question ids interned; one question set */
#include "rows.h"    /* the resumable, grading rows reader */
#include "stats.h"   /* summaries, medians, sign test, intervals */
#include "verdict.h" /* equivalent, worse, better; questions needed */
#include "meta.h"    /* what a rung's files say about it (bytes, GPU) */
#include "bury.h"    /* dead, ghosts, tombstones, the autopsy */
#include "repeat.h"  /* two runs of one rung compared */
#include "canary.h"  /* a trusted run against a new build */
#include "cost.h"    /* what a right answer costs; power integrated */
#include "ladder.h"  /* one run folder's figures */
#include "decide.h"  /* which file, at margins 1, 2, 5 and the run's */
#include "lengths.h" /* each rung at each prompt length (long items) */
#include "compare.h" /* one ladder across runs */
#include "think.h"   /* thinking off against on */
#include "duel.h"    /* two files of one type, A against B */
/* regular expressions as Python's re runs them: pyre/, a library below */
#include "../pyre/pyre.h"
#include "task.h"  /* what is asked, and the rules that grade it */
#include "probs.h" /* tokens and their log-probabilities; where replies split */

#endif
