/*
 * candidates.h - the one reader of rows/<RUNG>.candidates (rundir.h's
 * RD_CANDIDATES): a code task's answers as they came, before their code
 * ran (docs/code.md, "A candidate, then its row").
 *
 * Why a file of its own: running an answer's code takes from milliseconds
 * to its time limit, and a machine that stops in between must neither
 * lose the answer nor ask it again. The runner appends each answer here
 * (store.h's store_open_as, one synced line) and its row to the rows file
 * only once the code has run; on resume, a candidate whose id has no row
 * is run again, and its question is not asked. The rows file stays the
 * one truth: a candidate with a row is history, and nothing else reads
 * this file.
 */
#ifndef CANDIDATES_H
#define CANDIDATES_H

#include <stddef.h>

/* A candidate line may be at most a row's length (GRADER_ROW_MAX). */

/*
 * Call each(ctx, line, len, lineno) for every line of RUNDIR's
 * rows/RUNG.candidates in order (none when the file is absent; never
 * through a link; a torn last line, which the writer's open cuts, is
 * skipped). each returns 0 to go on, else stops the reading with that
 * value. Returns 0, each's value, or -1 with "cannot read 'FILE': ..." or
 * "FILE:LINE: ..." (a line over the cap) in msg and errno set.
 */
int candidates_each(const char *rundir, const char *rung,
                    int (*each)(void *ctx, const char *line, size_t len,
                                long lineno),
                    void *ctx, char *msg, size_t msgsize);

#endif
