/*
 * manifest.h - RUNDIR/manifest.json: what the rows were made with.
 *
 * Shared by every rung of a run folder: the question file (path, sha256),
 * the prompt, the request settings, the server build (--version line), the
 * tool's version. Per rung: the model file (path, bytes, sha256) and the
 * server arguments. Resuming with any of these changed would mix rows made
 * two ways, so it stops with a message naming what differs; --force goes on
 * and records that it did.
 */
#ifndef MANIFEST_H
#define MANIFEST_H

#include <jansson.h>
#include <stddef.h>

/*
 * Merge this run's settings into RUNDIR/manifest.json: shared is the
 * folder-wide object, rung the per-rung one (both borrowed). A value that
 * differs from the recorded one is an error (-1, msg names the key, the
 * old and new values) unless force, when the difference is recorded under
 * "forced". The file is written atomically. Returns 0 or -1 with errno
 * set for files_exit_code: EINVAL for a difference or a malformed file
 * (bad input), the write's own errno when it failed (ENOSPC: "disk full",
 * a failure that resumes).
 */
int manifest_check(const char *rundir, const char *rung_name, json_t *shared,
                   json_t *rung, int force, char *msg, size_t msgsize);

/*
 * The vocabulary's sha256 (orchestrator/base/hash.h, hash_vocab: the
 * tokenizer's keys of the rung's GGUF) under the rung's entry, recorded
 * when the rung ran with logprobs on: the grading side compares two
 * rungs' log-probabilities only where these are equal (docs/run.md,
 * "Logprobs and the vocabulary"). A rung run without logprobs has none.
 */
/* Set rungs.RUNG.KEY to value (stolen) in RUNDIR/manifest.json, whatever
 * it held: what a rung observed rather than a setting compared on resume
 * (a served model's own word about itself, docs/run.md). The caller holds
 * files.lock. 0, or -1 with msg and errno. */
int manifest_note(const char *rundir, const char *rung_name, const char *key,
                  json_t *value, char *msg, size_t msgsize);

#define MANIFEST_VOCAB_KEY "vocab_sha256"

/* rung's recorded vocabulary sha256 in a manifest already read (run.h's
 * r->manifest), or NULL when it has none (or not 64 hex digits). */
const char *manifest_vocab(const json_t *manifest, const char *rung);

/*
 * rung's recorded vocabulary sha256 in RUNDIR/manifest.json into out (65
 * bytes). 0; 1 when the folder has no manifest, or it has no vocabulary
 * for rung; -1 with one line in msg naming the file (a link, a malformed
 * manifest: errno EINVAL; a read that failed: its errno).
 */
int rundir_vocab_hash(const char *rundir, const char *rung, char *out,
                      char *msg, size_t msgsize);

/*
 * A rung other than rung whose recorded vocabulary is not hex (a run
 * folder of two tokenizers): 1 with its name in other and its model file
 * in model (cut to their sizes); 0 when every other rung recorded the
 * same vocabulary or none; -1 as rundir_vocab_hash.
 */
int rundir_vocab_other(const char *rundir, const char *rung, const char *hex,
                       char *other, size_t osize, char *model, size_t msize,
                       char *msg, size_t msgsize);

#endif
