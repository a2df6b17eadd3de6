/*
 * manifest_keys.h - manifest.json's keys: the one table, rundir/'s own.
 *
 * Every key of RUNDIR/manifest.json is spelt here and nowhere else: its
 * writer (manifest_rec.c, manifest.c) and its readers (manifest_rec.c,
 * manifest.c, run.c, differs.c) name a key through these, so a key renamed
 * here is renamed for both sides at once. No file outside rundir/ includes
 * this header: other modules ask manifest.h's and run.h's functions.
 *
 * scripts/check-formats.sh reads this table: a `#define MK_...` key may
 * not be spelt as a string literal in a json_object_* or json_pack call
 * outside rundir/ (a manifest read or written by hand). A `#define
 * MKS_...` key is one whose name other formats share ("path", "sha256",
 * "name": a config's, a task file's, a build record's); rundir/ spells it
 * here alone too, but the check cannot refuse the name elsewhere.
 */
#ifndef MANIFEST_KEYS_H
#define MANIFEST_KEYS_H

/* the folder's shared settings */
#define MK_GRAVEYARD     "graveyard"
#define MK_QUESTIONS     "questions"
#define MK_PROMPT        "prompt"
#define MK_TASK          "task"
#define MK_REQUEST       "request"
#define MK_SERVER        "server"
#define MK_SERVER_BINARY "server_binary"
#define MK_RUNGS         "rungs"
#define MK_FORCED        "forced"
#define MK_SANDBOX       "sandbox"

/* sandbox: where a code task's code ran (docs/code.md) */
#define MK_RUNS_IN         "runs_in"
#define MK_HARNESS_SHA256  "harness_sha256"
#define MK_EXEC_TIMEOUT_MS "timeout_ms"
#define MK_EXEC_MEMORY_MB  "memory_mb"

/* request: what every chat request was asked with */
#define MK_TEMPERATURE     "temperature"
#define MK_SEED            "seed"
#define MK_CACHE_PROMPT    "cache_prompt"
#define MK_MAX_TOKENS      "max_tokens"
#define MK_ENABLE_THINKING "enable_thinking"
#define MK_EXTRA           "extra"
#define MK_IN_FLIGHT       "in_flight"
#define MK_ABORT_LOOPS     "abort_loops"
#define MK_LOGPROBS        "logprobs"
#define MK_REQ_ENDPOINT    "endpoint" /* "completions"; absent: chat */

/* rungs.RUNG: what one rung was made with */
#define MK_MODEL          "model"
#define MK_CTX            "ctx"
#define MK_NGL            "ngl"
#define MK_SERVER_ARGS    "server_args"
#define MK_SERVER_ARGV    "server_argv"
#define MK_SERVER_ENV     "server_env"
#define MK_SERVER_VERSION "server_version"
#define MK_ENDPOINT       "endpoint"
#define MK_VOCAB_SHA256   "vocab_sha256"
#define MK_ENDPOINT_SAID  "endpoint_said"
#define MK_IMPORTED       "imported"

/* rungs.RUNG.endpoint: a served model */
#define MK_ALLOW_PLAIN_HTTP "allow_plain_http"
#define MK_API_KEY_ENV      "api_key_env"
#define MK_API_KEY_SHA256   "api_key_sha256"

/* names other formats share: questions.path, a file's sha256 and bytes,
 * server.version, endpoint.url and .pinned (.done's "pinned" too), an
 * import's tool and file, the task's name (a task file's), forced's
 * entries */
#define MKS_PATH    "path"
#define MKS_SHA256  "sha256"
#define MKS_BYTES   "bytes"
#define MKS_VERSION "version"
#define MKS_URL     "url"
#define MKS_PINNED  "pinned"
#define MKS_TOOL    "tool"
#define MKS_FILE    "file"
#define MKS_NAME    "name"
#define MKS_WHERE   "where"
#define MKS_KEY     "key"
#define MKS_WAS     "was"
#define MKS_NOW     "now"

#endif
