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
 * The comparison manifest_check makes of a recorded value and a new one:
 * old (key's value in the object have) and v (in want) say the same when
 * they are equal, or when key is a file's path or model and have and want
 * name the same sha256 (the same bytes spelled another way), at any
 * depth of old and v. 1 the same, 0 not. rundir/comparable.h asks it of
 * two bundles' manifests (graveyard merge).
 */
int manifest_same_value(json_t *have, json_t *want, const char *key,
                        json_t *old, json_t *v);

/* Set rungs.RUNG.endpoint_said to said (stolen) in RUNDIR/manifest.json,
 * whatever it held: what a rung observed rather than a setting compared on
 * resume (a served model's own word about itself, docs/run.md). The caller
 * holds files.lock. 0, or -1 with msg and errno. */
int manifest_note_said(const char *rundir, const char *rung_name, json_t *said,
                       char *msg, size_t msgsize);

/*
 * The vocabulary's sha256 (orchestrator/base/hash.h, hash_vocab: the
 * tokenizer's keys of the rung's GGUF) under the rung's entry, recorded
 * when the rung ran with logprobs on: the grading side compares two
 * rungs' log-probabilities only where these are equal (docs/run.md,
 * "Logprobs and the vocabulary"). A rung run without logprobs has none.
 * rung's in a manifest already read (run.h's r->manifest), or NULL when it
 * has none (or not 64 hex digits).
 */
const char *manifest_vocab(const json_t *manifest, const char *rung);

/*
 * The manifest's records, written and read back here alone (one writer
 * and one reader per key, both spelling it through manifest_keys.h).
 */

/* The request's record: what every chat request of the folder was asked
 * with (orchestrator/run/request.h fills it from a rung's options). */
struct manifest_request {
    long temperature, seed; /* greedy: 0 and 0 (manifest_request_init) */
    int cache_prompt;       /* 0: no cached prompt */
    long max_tokens;        /* the token cap */
    int think;              /* enable_thinking */
    json_t *extra;          /* the config's extra: borrowed, NULL none */
    long in_flight;         /* questions asked at a time: 1 not recorded */
    int abort_loops;        /* 0 not recorded */
    long logprobs;          /* top-N asked: 0 not recorded */
    int completions;        /* asked by /v1/completions ("endpoint":
                               "completions"); 0, chat: not recorded */
};

/* The study's greedy settings, no extra, one in flight, nothing else. */
void manifest_request_init(struct manifest_request *r, long max_tokens,
                           int think);

/* r as the manifest's "request" object: new, or NULL out of memory. */
json_t *manifest_request_json(const struct manifest_request *r);

/*
 * The manifest's "request" read back into r (r->extra borrowed from
 * manifest). 0, or -1 with one line in msg naming what is missing or of
 * the wrong type ("request.max_tokens ..."): a manifest without a request
 * (an import's) is refused.
 */
int manifest_request_read(const json_t *manifest, struct manifest_request *r,
                          char *msg, size_t msgsize);

/* The manifest's "request" object as recorded (borrowed), for a report
 * that shows its values; NULL when there is none or no manifest. */
json_t *manifest_request_raw(const json_t *manifest);

/* A request key the reports show as a sampling setting: every one but the
 * token cap and thinking, which have rows of their own. */
int manifest_request_is_sampling(const char *key);

/* Where a code task's code ran: the sandbox and its interpreter in words
 * ("bwrap 0.8.0, Python 3.11.2"), the harness's sha256, the limits that
 * decide outcomes. A resume under another is refused as any setting is:
 * a timeout at 10 s and one at 2 s are not one measurement. */
struct manifest_sandbox {
    const char *runs_in, *harness_sha256;
    long timeout_ms, memory_mb;
};

/* The folder's shared settings: every rung of it must share them. */
struct manifest_shared {
    const char *graveyard;                  /* the tool's version */
    const char *questions;                  /* the question file as given */
    const char *questions_sha256;           /* its bytes' */
    const char *prompt;                     /* "" none */
    json_t *task;                           /* taskfile_to_json's: stolen */
    const struct manifest_request *request; /* NULL: none (an import) */
    const char *server_version; /* NULL: not the folder's (own binary, */
    const char *binary_sha256;  /* a served model); else the server's */
    const char *binary_path;    /* --version line and its binary */
    const struct manifest_sandbox *sandbox; /* a code task's, or NULL */
};

/* s as the manifest's shared object for manifest_check: new (s->task
 * stolen, even on failure), NULL out of memory. */
json_t *manifest_shared_json(const struct manifest_shared *s);

/* One rung's entry, rungs.RUNG. */
struct manifest_rung {
    const char *model;  /* the GGUF's path, or a served model's URL */
    long long bytes;    /* 0 for a served model */
    const char *sha256; /* "" for a served model */
    int local;          /* a server of ours: ctx, ngl, server_args */
    long ctx;
    int ngl;
    json_t *server_args;        /* redacted: stolen, with local */
    json_t *server_argv;        /* a config's templates, redacted: stolen, */
    json_t *server_env;         /* NULL none */
    const char *server_version; /* its own binary: the --version line, */
    const char *binary_sha256;  /* its sha256 and path; NULL none */
    const char *binary_path;
    const char *endpoint_url; /* a served model: NULL none */
    int allow_plain_http;
    const char *api_key_env;    /* the key's variable, NULL none */
    const char *api_key_sha256; /* the key's sha256 (never the key) */
    const char *vocab;          /* vocab_sha256: "" or NULL none */
};

/* r as rungs.RUNG for manifest_check: new (the json_t fields stolen, even
 * on failure), NULL out of memory. */
json_t *manifest_rung_json(const struct manifest_rung *r);

/* An import's rung: the tool, the log file and its sha256. New, or NULL
 * out of memory. */
json_t *manifest_import_json(const char *tool, const char *file,
                             const char *sha256);

/* Readers of a manifest already read (run.h's r->manifest, or
 * files_json_load's): each NULL (or 0) where it does not say. Strings are
 * borrowed from manifest. */
const char *manifest_questions(const json_t *manifest); /* questions.path */
const char *manifest_prompt(const json_t *manifest);
const json_t *manifest_task(const json_t *manifest);    /* the task record */
const char *manifest_task_name(const json_t *manifest); /* task.name */
const char *manifest_rung_model(const json_t *manifest, const char *rung);
const char *manifest_questions_sha256(const json_t *manifest);

/* A rung's file as rungs.NAME records it: its name (model), sha256 and
 * bytes, NULL or -1 where the record does not say. Returns 0, or -1
 * when the manifest has no rung of that name (f untouched). Strings
 * are borrowed from manifest. */
struct manifest_file {
    const char *model;
    const char *sha256;
    long long bytes;
};
int manifest_rung_file(const json_t *manifest, const char *rung,
                       struct manifest_file *f);

/* The rungs run by a server of ours (not served models): their count,
 * the first max of their names in out (borrowed from manifest). */
size_t manifest_local_rungs(const json_t *manifest, const char **out,
                            size_t max);

/*
 * What of the manifest may be published (graveyard publish's bundle): the
 * tool's version, prompt, task, request and server build; the question
 * file by its name and sha256; each rung's model by its file name, its
 * bytes, sha256, ctx, ngl, server version and vocabulary. Never a path's
 * folder, the server's arguments, argv or environment (their values may
 * hold secrets), an endpoint's URL or key hash, the server binary's path
 * or the forced log. New (its values shared with manifest), or NULL out
 * of memory; an empty view for a NULL manifest.
 */
json_t *manifest_public(const json_t *manifest);

/* report.json's settings: the manifest's questions, server, request,
 * prompt, graveyard and task, in that order, set into o (null where the
 * manifest has none; nothing with no manifest). 0, or -1 out of memory. */
int manifest_settings_into(const json_t *manifest, json_t *o);

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
