/*
 * runner.h - graveyard run: one rung, end to end, on the libuv loop.
 *
 * Start one llama-server for one GGUF, wait until /health says ready, ask
 * every question not yet answered (one at a time, streamed), append one
 * row per answer, stop the server, write the rung's summary. Resumable:
 * the rows file is the state (store.h). Faults (docs/run.md), each named
 * in its row's error_kind: a server that dies on a question ("died") or
 * sends no token for idle_s ("hung") is restarted and asked again, and
 * after 3 times the question becomes an error row; a server that is alive
 * and sends what is not a chat stream ("bad_stream", "bad_utf8", "nul"),
 * an answer too long for a row ("too_long"), more than 64 tool calls
 * ("too_many_calls"), an HTTP error ("http"), an
 * error event ("stream_error"), no whole answer by the deadline
 * ("deadline") or a connection cut while it stays up ("cut") gives an
 * error row at once and the same server goes on. A server that cannot
 * start, or faults on 3 different questions in a row, stops the rung with
 * an error. The runner computes no statistic: the summary comes from the
 * grader.
 */
#ifndef RUNNER_H
#define RUNNER_H

#include "../server/runopts.h"

/* Run the rung; returns the exit status (0 finished, 1 failed, 2 bad
 * input), having printed the summary line or one error line. */
int runner_run(const struct run_opts *o);

/* What a run of rung in rundir will write or read once it has started
 * (its rows, summary, probs, lock, server log and pid file and power
 * samples, the folder's manifest, ladder.tsv and files.lock), checked
 * before anything starts
 * (rundir_check_ahead): 0, or the exit status with msg naming the path.
 * runner_run checks its own; the ladder checks every rung's before its
 * first. */
int runner_check_ahead(const char *rundir, const char *rung, char *msg,
                       size_t msgsize);

#endif
