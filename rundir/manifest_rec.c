/*
 * manifest_rec.c - the manifest's records (manifest.h): each written from
 * a struct and read back beside its writer, every key spelt through
 * manifest_keys.h, so a key renamed on one side is renamed on the other
 * (test_rundir_manifest writes each record and reads it back).
 */
#include "manifest.h"

#include <stdio.h>
#include <string.h>

#include "manifest_keys.h"

/* request.endpoint's one value (absent: chat) */
#define COMPLETIONS "completions"

/* Set key to v (stolen) in o; 0, or -1 when v is NULL or o refused it. */
static int put(json_t *o, const char *key, json_t *v)
{
    return v == NULL || json_object_set_new(o, key, v) != 0 ? -1 : 0;
}

void manifest_request_init(struct manifest_request *r, long max_tokens,
                           int think)
{
    memset(r, 0, sizeof(*r));
    r->max_tokens = max_tokens;
    r->think = think;
    r->in_flight = 1;
}

json_t *manifest_request_json(const struct manifest_request *r)
{
    json_t *o = json_object();
    int bad;

    if (o == NULL)
        return NULL;
    /* the order the manifest has always had: greedy decoding, no cached
     * prompt, the cap, thinking, then what a night added */
    bad = put(o, MK_TEMPERATURE, json_integer(r->temperature)) |
          put(o, MK_SEED, json_integer(r->seed)) |
          put(o, MK_CACHE_PROMPT, json_boolean(r->cache_prompt)) |
          put(o, MK_MAX_TOKENS, json_integer((json_int_t)r->max_tokens)) |
          put(o, MK_ENABLE_THINKING, json_boolean(r->think));
    if (r->extra != NULL)
        bad |= json_object_set(o, MK_EXTRA, r->extra);
    /* rows asked several at a time must not mix with rows asked one at a
     * time: a folder's resume under the other setting is refused */
    if (r->in_flight > 1)
        bad |= put(o, MK_IN_FLIGHT, json_integer(r->in_flight));
    if (r->abort_loops)
        bad |= put(o, MK_ABORT_LOOPS, json_true());
    /* rows with a probs file must not mix with rows without, nor with
     * another N's: a resume under another "logprobs" is refused */
    if (r->logprobs > 0)
        bad |= put(o, MK_LOGPROBS, json_integer(r->logprobs));
    /* a continued prompt is not a chat's answer: a resume across the
     * two is refused (chat, as every folder before, is not written) */
    if (r->completions)
        bad |= put(o, MK_REQ_ENDPOINT, json_string(COMPLETIONS));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* An integer of req at key into *v: 0; 1 when absent (v untouched, msg
 * saying so); -1 with msg when it is there and not a whole number. */
static int get_int(const json_t *req, const char *key, long *v, char *msg,
                   size_t msgsize)
{
    const json_t *x = json_object_get(req, key);

    if (x == NULL) {
        snprintf(msg, msgsize, "its manifest's %s has no %s", MK_REQUEST, key);
        return 1;
    }
    if (!json_is_integer(x)) {
        snprintf(msg, msgsize, "its manifest's %s.%s is not a whole number",
                 MK_REQUEST, key);
        return -1;
    }
    *v = (long)json_integer_value(x);
    return 0;
}

/* A boolean of req at key into *v, as get_int. */
static int get_bool(const json_t *req, const char *key, int *v, char *msg,
                    size_t msgsize)
{
    const json_t *x = json_object_get(req, key);

    if (x == NULL) {
        snprintf(msg, msgsize, "its manifest's %s has no %s", MK_REQUEST, key);
        return 1;
    }
    if (!json_is_boolean(x)) {
        snprintf(msg, msgsize, "its manifest's %s.%s is not true or false",
                 MK_REQUEST, key);
        return -1;
    }
    *v = json_is_true(x);
    return 0;
}

/* The request's "endpoint" into *completions: absent is chat (0). 0, or
 * -1 with msg when it is there and not "completions". */
static int get_endpoint(const json_t *req, int *completions, char *msg,
                        size_t msgsize)
{
    const json_t *x = json_object_get(req, MK_REQ_ENDPOINT);

    if (x == NULL)
        return 0;
    if (!json_is_string(x) || strcmp(json_string_value(x), COMPLETIONS)) {
        snprintf(msg, msgsize, "its manifest's %s.%s is not \"%s\"",
                 MK_REQUEST, MK_REQ_ENDPOINT, COMPLETIONS);
        return -1;
    }
    *completions = 1;
    return 0;
}

int manifest_request_read(const json_t *manifest, struct manifest_request *r,
                          char *msg, size_t msgsize)
{
    const json_t *req = json_object_get(manifest, MK_REQUEST), *x;

    manifest_request_init(r, 0, 0);
    if (!json_is_object(req)) {
        snprintf(msg, msgsize, "its manifest records no %s", MK_REQUEST);
        return -1;
    }
    /* what every record has: refused when missing (a key renamed on the
     * writer's side among them) */
    if (get_int(req, MK_TEMPERATURE, &r->temperature, msg, msgsize) != 0 ||
        get_int(req, MK_SEED, &r->seed, msg, msgsize) != 0 ||
        get_bool(req, MK_CACHE_PROMPT, &r->cache_prompt, msg, msgsize) != 0 ||
        get_int(req, MK_MAX_TOKENS, &r->max_tokens, msg, msgsize) != 0 ||
        get_bool(req, MK_ENABLE_THINKING, &r->think, msg, msgsize) != 0)
        return -1;
    /* what a night may have added: absent is the default */
    if (get_int(req, MK_IN_FLIGHT, &r->in_flight, msg, msgsize) < 0 ||
        get_bool(req, MK_ABORT_LOOPS, &r->abort_loops, msg, msgsize) < 0 ||
        get_int(req, MK_LOGPROBS, &r->logprobs, msg, msgsize) < 0 ||
        get_endpoint(req, &r->completions, msg, msgsize) < 0)
        return -1;
    x = json_object_get(req, MK_EXTRA);
    if (x != NULL && !json_is_object(x)) {
        snprintf(msg, msgsize, "its manifest's %s.%s is not an object",
                 MK_REQUEST, MK_EXTRA);
        return -1;
    }
    r->extra = (json_t *)x;
    msg[0] = '\0';
    return 0;
}

json_t *manifest_request_raw(const json_t *manifest)
{
    json_t *req = manifest ? json_object_get(manifest, MK_REQUEST) : NULL;

    return json_is_object(req) ? req : NULL;
}

int manifest_request_is_sampling(const char *key)
{
    return strcmp(key, MK_MAX_TOKENS) != 0 &&
           strcmp(key, MK_ENABLE_THINKING) != 0;
}

/* A file's record: its sha256 and path (a server binary). */
static json_t *binary_json(const char *sha256, const char *path)
{
    return json_pack("{s:s,s:s}", MKS_SHA256, sha256, MKS_PATH, path);
}

json_t *manifest_shared_json(const struct manifest_shared *s)
{
    json_t *o =
        json_pack("{s:s,s:{s:s,s:s},s:s,s:o}", MK_GRAVEYARD, s->graveyard,
                  MK_QUESTIONS, MKS_PATH, s->questions, MKS_SHA256,
                  s->questions_sha256, MK_PROMPT, s->prompt, MK_TASK, s->task);
    int bad = o == NULL;

    if (!bad && s->request != NULL)
        bad = put(o, MK_REQUEST, manifest_request_json(s->request));
    /* a rung on its own build pins its version with the rung: the
     * folder's server.version is the server's build */
    if (!bad && s->server_version != NULL)
        bad = put(o, MK_SERVER,
                  json_pack("{s:s}", MKS_VERSION, s->server_version)) |
              put(o, MK_SERVER_BINARY,
                  binary_json(s->binary_sha256, s->binary_path));
    if (!bad && s->sandbox != NULL)
        bad = put(
            o, MK_SANDBOX,
            json_pack("{s:s,s:s,s:I,s:I}", MK_RUNS_IN, s->sandbox->runs_in,
                      MK_HARNESS_SHA256, s->sandbox->harness_sha256,
                      MK_EXEC_TIMEOUT_MS, (json_int_t)s->sandbox->timeout_ms,
                      MK_EXEC_MEMORY_MB, (json_int_t)s->sandbox->memory_mb));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* A served model's record: its URL, and its key's variable with the
 * key's sha256 (never the key: a changed key is seen on resume). */
static json_t *endpoint_json(const struct manifest_rung *r)
{
    json_t *e =
        json_pack("{s:s,s:b,s:b}", MKS_URL, r->endpoint_url, MKS_PINNED, 0,
                  MK_ALLOW_PLAIN_HTTP, r->allow_plain_http);

    if (e != NULL && r->api_key_env != NULL &&
        (put(e, MK_API_KEY_ENV, json_string(r->api_key_env)) != 0 ||
         put(e, MK_API_KEY_SHA256, json_string(r->api_key_sha256)) != 0)) {
        json_decref(e);
        return NULL;
    }
    return e;
}

/* The stolen fields of r given back. */
static void rung_drop(const struct manifest_rung *r)
{
    json_decref(r->server_args);
    json_decref(r->server_argv);
    json_decref(r->server_env);
}

json_t *manifest_rung_json(const struct manifest_rung *r)
{
    json_t *o = json_pack("{s:s,s:I,s:s}", MK_MODEL, r->model, MKS_BYTES,
                          (json_int_t)r->bytes, MKS_SHA256, r->sha256);
    int bad = o == NULL;

    if (!bad && r->local)
        bad = put(o, MK_CTX, json_integer((json_int_t)r->ctx)) |
              put(o, MK_NGL, json_integer(r->ngl)) |
              json_object_set(o, MK_SERVER_ARGS, r->server_args);
    if (!bad && r->server_argv != NULL)
        bad = json_object_set(o, MK_SERVER_ARGV, r->server_argv);
    if (!bad && r->server_env != NULL)
        bad = json_object_set(o, MK_SERVER_ENV, r->server_env);
    if (!bad && r->server_version != NULL)
        bad = put(o, MK_SERVER_VERSION, json_string(r->server_version)) |
              put(o, MK_SERVER_BINARY,
                  binary_json(r->binary_sha256, r->binary_path));
    if (!bad && r->endpoint_url != NULL)
        bad = put(o, MK_ENDPOINT, endpoint_json(r));
    /* what the grading side compares before a KLD (rundir_vocab_hash) */
    if (!bad && r->vocab != NULL && r->vocab[0] != '\0')
        bad = put(o, MK_VOCAB_SHA256, json_string(r->vocab));
    rung_drop(r);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *manifest_import_json(const char *tool, const char *file,
                             const char *sha256)
{
    return json_pack("{s:{s:s,s:s,s:s}}", MK_IMPORTED, MKS_TOOL, tool,
                     MKS_FILE, file, MKS_SHA256, sha256);
}

const char *manifest_questions(const json_t *manifest)
{
    return json_string_value(
        json_object_get(json_object_get(manifest, MK_QUESTIONS), MKS_PATH));
}

const char *manifest_prompt(const json_t *manifest)
{
    return json_string_value(json_object_get(manifest, MK_PROMPT));
}

const json_t *manifest_task(const json_t *manifest)
{
    return manifest ? json_object_get(manifest, MK_TASK) : NULL;
}

const char *manifest_task_name(const json_t *manifest)
{
    return json_string_value(
        json_object_get(manifest_task(manifest), MKS_NAME));
}

const char *manifest_rung_model(const json_t *manifest, const char *rung)
{
    const json_t *r =
        json_object_get(json_object_get(manifest, MK_RUNGS), rung);

    return json_string_value(json_object_get(r, MK_MODEL));
}

const char *manifest_questions_sha256(const json_t *manifest)
{
    return json_string_value(
        json_object_get(json_object_get(manifest, MK_QUESTIONS), MKS_SHA256));
}

int manifest_rung_file(const json_t *manifest, const char *rung,
                       struct manifest_file *f)
{
    const json_t *r =
        json_object_get(json_object_get(manifest, MK_RUNGS), rung);
    const json_t *bytes = json_object_get(r, MKS_BYTES);

    if (!json_is_object(r))
        return -1;
    f->model = json_string_value(json_object_get(r, MK_MODEL));
    f->sha256 = json_string_value(json_object_get(r, MKS_SHA256));
    f->bytes = json_is_integer(bytes) && json_integer_value(bytes) >= 0
                   ? (long long)json_integer_value(bytes)
                   : -1;
    return 0;
}

size_t manifest_local_rungs(const json_t *manifest, const char **out,
                            size_t max)
{
    const char *name;
    json_t *r;
    size_t n = 0;

    json_object_foreach(json_object_get(manifest, MK_RUNGS), name, r)
    {
        if (json_object_get(r, MK_ENDPOINT) != NULL)
            continue;
        if (n < max)
            out[n] = name;
        n++;
    }
    return n;
}

/* A path's last part, its file name. */
static const char *base_name(const char *s)
{
    const char *slash = strrchr(s, '/');

    return slash ? slash + 1 : s;
}

/* rung's entry as manifest_public keeps it: new, or NULL. */
static json_t *public_rung(const json_t *e)
{
    static const char *const keep[] = {
        MKS_BYTES, MKS_SHA256,        MK_CTX,
        MK_NGL,    MK_SERVER_VERSION, MK_VOCAB_SHA256};
    const char *model = json_string_value(json_object_get(e, MK_MODEL));
    json_t *r = json_object(), *v;

    for (size_t i = 0; r != NULL && i < sizeof(keep) / sizeof(keep[0]); i++)
        if ((v = json_object_get(e, keep[i])) != NULL &&
            json_object_set(r, keep[i], v) != 0) {
            json_decref(r);
            return NULL;
        }
    if (r != NULL && model != NULL &&
        put(r, MK_MODEL, json_string(base_name(model))) != 0) {
        json_decref(r);
        return NULL;
    }
    return r;
}

json_t *manifest_public(const json_t *manifest)
{
    static const char *const keep[] = {MK_GRAVEYARD, MK_PROMPT, MK_TASK,
                                       MK_REQUEST, MK_SERVER};
    const json_t *qs = json_object_get(manifest, MK_QUESTIONS);
    const char *q = json_string_value(json_object_get(qs, MKS_PATH)), *k;
    json_t *o = json_object(), *rungs = json_object(), *v, *qv;
    int bad = o == NULL || rungs == NULL;

    for (size_t i = 0; !bad && i < sizeof(keep) / sizeof(keep[0]); i++)
        if ((v = json_object_get(manifest, keep[i])) != NULL)
            bad = json_object_set(o, keep[i], v) != 0;
    /* the question file by its name; none without its sha256 */
    v = json_object_get(qs, MKS_SHA256);
    if (!bad && v != NULL) {
        qv = json_pack("{s:s, s:O}", MKS_PATH, q ? base_name(q) : "",
                       MKS_SHA256, v);
        bad = put(o, MK_QUESTIONS, qv) != 0;
    }
    json_object_foreach(json_object_get(manifest, MK_RUNGS), k, v)
    {
        if (!bad)
            bad = put(rungs, k, public_rung(v)) != 0;
    }
    if (!bad)
        bad = json_object_set(o, MK_RUNGS, rungs) != 0;
    json_decref(rungs);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int manifest_settings_into(const json_t *manifest, json_t *o)
{
    static const char *const keys[] = {MK_QUESTIONS, MK_SERVER,    MK_REQUEST,
                                       MK_PROMPT,    MK_GRAVEYARD, MK_TASK};
    int bad = 0;

    if (manifest == NULL)
        return 0;
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        json_t *v = json_object_get(manifest, keys[i]);
        bad |= json_object_set(o, keys[i], v ? v : json_null());
    }
    return bad ? -1 : 0;
}
