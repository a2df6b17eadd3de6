/*
 * exported.h - what of a run folder's manifest graveyard export may put
 * in an Every Eval Ever record (docs/export.md): a rung's server build
 * and the server's argument list as it may leave the machine. The rest of
 * the manifest an export names (the question file, the task, the token
 * cap) comes through run.h's and manifest.h's readers. Pure: the caller
 * holds the manifest (run.h's r->manifest).
 */
#ifndef RUNDIR_EXPORTED_H
#define RUNDIR_EXPORTED_H

#include <jansson.h>

/* The llama-server build rung ran with: rungs.RUNG.server_version, else
 * the folder's server.version, else NULL. Borrowed from manifest. */
const char *exported_server_version(const json_t *manifest, const char *rung);

/* The graveyard version that made the rows (the manifest's "graveyard"),
 * or NULL. Borrowed from manifest. */
const char *exported_graveyard_version(const json_t *manifest);

/*
 * rungs.RUNG.server_argv (else server_args: the flags graveyard added
 * to the binary and the model) as it may be published, a new JSON list
 * of strings, or NULL when the manifest records neither (or out of
 * memory).
 * publish's rules (docs/publish.md, "Nothing private") applied to each
 * argument: a path becomes its file name (the binary, the model, any
 * value with a '/'), a value redact.c hashed becomes "<redacted>" (its
 * hash is a guess away from a short secret), and the value after a flag
 * whose name looks secret (key, token, secret, pass, auth, cred, cookie)
 * becomes "<redacted>" whatever it is.
 */
json_t *exported_server_argv(const json_t *manifest, const char *rung);

/* A list of arguments (a rung's server_args, a server_argv) cleaned by
 * the rules above: new, or NULL when argv is no list (or out of memory).
 * publish's manifest carries each rung's server_args so (published.c),
 * so that merge compares the flags two machines ran a rung with. */
json_t *exported_args(const json_t *argv);

#endif
