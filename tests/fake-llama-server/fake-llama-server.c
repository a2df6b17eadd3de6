/*
 * fake-llama-server.c - a stand-in for llama.cpp's llama-server, for tests
 * and the demo: no GPU, no model, the same command line, endpoints and
 * stream framing (../shared/reference/llama-server.md).
 *
 * Its "model file" (-m) is JSON that scripts the behaviour:
 *   {"fake_llama_server": 1,
 *    "load_ms": 200,          GET /health answers 503 "Loading model" until
 *                             then, 200 {"status":"ok"} after
 *    "health_hangs": false,   while loading, /health answers nothing until
 *                             loaded (the ik fork's way)
 *    "never_ready": false,    /health answers 503 for ever
 *    "exit_after": 0,         exit (status 1) after this many chat requests
 *    "log_spam": 0,           bytes of log lines to print per chat request
 *    "fail_bind_once": PATH,  if PATH does not exist, create it and fail
 *                             as when the port is taken
 *    "fail_start": "text",    print text and exit 1 instead of serving
 *    "ik": false,             the ik fork's ways: finish_reason always
 *                             "stop", no usage chunk, logs on stdout
 *    "token_ms": 0,           delay between streamed chunks
 *    "decode_tps": 50.0,      timings.predicted_per_second
 *    "default": REPLY,        for a question no rule matches
 *    "replies": [REPLY...]}   the first whose "match" is in the prompt
 * REPLY: {"match", "content", "reasoning", "tokens" (default: one per
 * chunk of 4 bytes), "decode_tps", "fault", "trickle_ms" (default 200),
 * "flood" (bytes), "flood_char" (default "\u0001"), "batched" (the
 * content instead when another chat request is being answered as this
 * one arrives: batched decoding is not the same computation, so the
 * real server's answers change under -np > 1)}. fault is one of:
 *   "exit"        abort mid-stream, as the real server does on "Failed to
 *                 parse input"
 *   "hang"        stop sending mid-stream (silence)
 *   "http500"     an error before the stream
 *   "error_event" a {"error":...} event mid-stream
 *   "comments"    mid-stream, a ": ping" comment every trickle_ms, for
 *                 ever: bytes, but never a token
 *   "empty"       mid-stream, an event with an empty delta every
 *                 trickle_ms, for ever
 *   "bytes"       the whole stream one byte every trickle_ms: tokens do
 *                 come, slowly
 *   "garbage"     mid-stream, "data: this is not json"
 *   "bad_utf8"    mid-stream, a delta with a byte that is not UTF-8
 *   "nul"         mid-stream, a delta holding \u0000
 *   "close"       mid-stream, the connection is dropped; the server stays
 *   "no_finish"   the stream ends cleanly without finish_reason or [DONE]
 *   "flood"       "flood" bytes of flood_char as content deltas of 4 KiB,
 *                 then the finish (-1: for ever)
 *   "http429"     429 "busy" with Retry-After: "retry_after" (default 1;
 *                 -1: no header), for the first "times" such requests
 *                 (default: always), then the reply
 *   "http401"     401, as a server whose key changed
 *   "redirect"    302 to http://127.0.0.1:9/elsewhere
 *   "http400"     400 invalid_request_error
 *   "bare"        HTTP "status" (default 500) with an empty body: a 429
 *                 keeps "times" and "retry_after" as "http429" does, a
 *                 3xx has its Location
 *   "close_first" the connection dropped before any byte of the reply,
 *                 for the first "times" such requests (default: always),
 *                 then the reply: a keep-alive connection the server had
 *                 just closed
 * "tool_calls" (in a reply): the calls streamed after its content when the
 * request carries "tools", finish_reason "tool_calls" (toolcalls.c).
 * "jinja": false (top level): a build whose chat templates are off unless
 * --jinja is given (the ik fork; --no-jinja turns them off in any): a
 * request with "tools" is HTTP 500 "tools param requires --jinja flag",
 * as both lineages answer it.
 * "logprobs_tools": 400 or 500 (top level): a streamed request with
 * "tools" and "logprobs": true is refused with that status, "logprobs is
 * not supported with tools + stream", as upstream (400) and the ik fork
 * (500) answer it.
 * "message" (in a reply) is the error message of "http400", "http401",
 * "http429", "http500" and "error_event" instead of the fixed one: an
 * endpoint that echoes what it was sent (the key) in its errors.
 *
 * A served endpoint (graveyard's "endpoint" rungs), started by a test:
 * --api-key KEY (or LLAMA_API_KEY in its environment, as both real
 * servers read it; the flag wins) makes every request but /health,
 * /v1/health and /v1/models need "Authorization: Bearer KEY" (401
 * without, as the real server); GET /props answers {"model_path",
 * "build_info", ...} and GET /v1/models {"data": [{"id": the -m path}]};
 * "no_health": true makes /health 404 (a server that has none);
 * "props_extra" and "models_extra" (objects) are merged into /props and
 * into /v1/models' data[0].
 *
 * A GPU shared by several servers (graveyard ladder's rungs_per_gpu), when
 * FAKE_GPU_DIR names a folder: each server registers there as
 * gpu<CUDA_VISIBLE_DEVICES>.<pid> holding its "gpu_mib" (default 1639);
 * one whose mib would take its GPU past FAKE_GPU_MIB (default 16384)
 * fails to load as CUDA does ("cudaMalloc failed: out of memory"), and
 * each token takes token_ms x (1 + FAKE_GPU_SHARE_COST x (servers on the
 * GPU - 1)) (default 0.35: a small rung leaves most of a big GPU idle, so
 * two share it at 1.35 times the time each, not twice).
 *
 * It answers --version like the real one, refuses unknown flags, binds the
 * --host and --port it is given, and logs load lines to stderr. The
 * settings a ladder of settings varies are taken and logged with the rest
 * ("fake: args:"): -ctk/-ctv, -fa with or without on|off|auto, and a
 * draft model (-md), which leaves every answer as it was unless
 * FAKE_DRAFT_DIFFERS names a text: a prompt holding it then gets its
 * content with " (drafted)" added, a draft that changed an answer.
 *
 * Long contexts (issue 36; longctx.c): its own tokenizer behind POST
 * /tokenize ("tokenize": false -> 404), the context from -c/--ctx-size or
 * LLAMA_ARG_CTX_SIZE in /props and /slots, a prompt past it refused with
 * upstream's 400 exceed_context_size_error (the ik fork: cut by its
 * context shift, or 500 with --no-context-shift), the prompt's count in
 * usage and timings ("prompt_tps"), "needles": true to answer RULER's
 * shapes as a perfect reader, and "cliff" past which answers die.
 * docs/fake-llama-server.md is the user's page for all of this.
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../fake-tools/fakegguf.h"
#include "longctx.h"
#include "toolcalls.h"

extern char **environ;
static json_t *model;
static const char *host = "127.0.0.1";
static const char *api_key;    /* --api-key: a Bearer token wanted */
static const char *model_path; /* -m, for /props and /v1/models */
static int jinja_arg = -1;     /* --jinja 1, --no-jinja 0, neither -1 */
static long busy_sent;         /* "http429" replies so far */
static long closed_sent;       /* "close_first" connections dropped */
static int port = 8080;
static struct timespec started;
static FILE *logf_;   /* stderr, or stdout in ik mode */
static long requests; /* chat requests so far */
static int active;    /* chat streams being answered now (a thread each) */
static int health_ok_logged;
static long model_bytes;    /* the model file's size: its logprobs' drift */
static long n_ctx = -1;     /* -c, --ctx-size, LLAMA_ARG_CTX_SIZE (-1: none) */
static long n_parallel = 1; /* -np: slots, each n_ctx / n_parallel */
static const char *cache_k = "f16"; /* -ctk: which "cliff" applies */
static int ctx_shift = 1; /* the ik fork's context shift (on by default) */
static int kv_unified;    /* -kvu: every slot may fill the whole context */

/* A slot's context: n_ctx shared by the slots, or all of it unified. */
static long slot_ctx(void)
{
    return kv_unified ? n_ctx : n_ctx / n_parallel;
}

static void die(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static long ms_since_start(void)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - started.tv_sec) * 1000 +
           (now.tv_nsec - started.tv_nsec) / 1000000;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    while (ms > 0 && nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* ---- a shared fake GPU (FAKE_GPU_DIR) ---------------------------------- */

static char gpu_entry[4200]; /* our registration, "" when none */

/* The servers registered on our GPU that are alive (us included), and
 * the MiB they hold into *mib. */
static int gpu_sharers(long *mib)
{
    const char *dir = getenv("FAKE_GPU_DIR");
    const char *gpu = getenv("CUDA_VISIBLE_DEVICES");
    char prefix[256], path[4400];
    struct dirent *e;
    DIR *d;
    int n = 0;

    *mib = 0;
    if (dir == NULL || (d = opendir(dir)) == NULL)
        return 1;
    snprintf(prefix, sizeof(prefix), "gpu%s.", gpu ? gpu : "");
    while ((e = readdir(d)) != NULL) {
        long pid, m = 0;
        FILE *f;
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        pid = atol(e->d_name + strlen(prefix));
        if (pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH))
            continue; /* a server gone without unregistering */
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if ((f = fopen(path, "r")) != NULL) {
            if (fscanf(f, "%ld", &m) != 1)
                m = 0;
            fclose(f);
        }
        *mib += m;
        n++;
    }
    closedir(d);
    return n > 0 ? n : 1;
}

static void gpu_unregister(void)
{
    if (gpu_entry[0])
        unlink(gpu_entry);
}

/* Load onto the shared GPU, or fail as CUDA does when it is full. */
static void gpu_register(long mib)
{
    const char *dir = getenv("FAKE_GPU_DIR");
    const char *gpu = getenv("CUDA_VISIBLE_DEVICES");
    const char *cap = getenv("FAKE_GPU_MIB");
    long held, total = cap ? atol(cap) : 16384;
    FILE *f;

    if (dir == NULL)
        return;
    gpu_sharers(&held);
    if (held + mib > total) {
        fprintf(stderr,
                "ggml_backend_cuda_buffer_type_alloc_buffer: allocating "
                "%ld.00 MiB on device 0: cudaMalloc failed: out of memory\n"
                "llama_model_load: error loading model: unable to allocate "
                "CUDA0 buffer\n",
                mib);
        die("main: exiting due to model loading error");
    }
    snprintf(gpu_entry, sizeof(gpu_entry), "%s/gpu%s.%ld", dir, gpu ? gpu : "",
             (long)getpid());
    if ((f = fopen(gpu_entry, "w")) != NULL) {
        fprintf(f, "%ld\n", mib);
        fclose(f);
    }
    atexit(gpu_unregister);
}

/* A token's time on a GPU shared by n servers. */
static long shared_ms(long token_ms)
{
    const char *c = getenv("FAKE_GPU_SHARE_COST");
    double cost = c ? atof(c) : 0.35;
    long mib;
    int n = gpu_sharers(&mib);

    return (long)((double)token_ms * (1.0 + cost * (n - 1)) + 0.5);
}

static long mint(const char *key, long def)
{
    json_t *v = json_object_get(model, key);

    return json_is_integer(v) ? (long)json_integer_value(v) : def;
}

/* ---- building a reply -------------------------------------------------- */

struct body {
    char **events; /* SSE events, each "data: ...\n\n" */
    size_t n, next;
    long token_ms;
    size_t fault_at; /* event index where the fault strikes */
    const char *fault;
    const char *message;  /* "error_event": its message, or NULL */
    long trickle_ms;      /* "comments", "empty", "bytes" */
    size_t byte_at;       /* "bytes": offset in the current event */
    long long flood;      /* "flood": bytes left (-1 for ever) */
    char *flood_chunk;    /* one 4 KiB delta, escaped, as an event */
    int topn;             /* "top_logprobs" asked, 0: no logprobs */
    uint64_t ctx;         /* the context so far: prompt and tokens */
    double drift;         /* how far this model's distributions move */
    const char *lp_fault; /* the rule's "logprobs_fault", or NULL */
    size_t lp_chunks;     /* token chunks streamed so far */
    long prompt_n;        /* the prompt's tokens (after a context shift) */
    double prompt_ms;     /* its time: prompt_n / "prompt_tps" */
    int completion;       /* /v1/completions: choices[0].text chunks */
};

/* ---- log-probabilities ---------------------------------------------------
 * Deterministic, and a function of the context alone (the prompt and the
 * tokens so far) plus the model's drift: two models given the same text
 * give the same tokens and alternatives, their log-probabilities moved by
 * each one's drift, so the same model repeated gives identical numbers and
 * two models' distributions differ by their drifts' difference. A token is
 * a 4-byte piece of the reply (as deltas() streams it): where two replies'
 * texts differ, their chosen tokens do, and that is the split. The drift
 * grows as the model file shrinks (the demo's files are padded to their
 * rung's size: BF16 largest, Q2_K smallest): 6000 / bytes, at most 4, so
 * KLD against BF16 grows down the ladder; "logprobs_drift" in the script
 * sets it. It moves the alternatives only, each by up to the drift either
 * way, and never above the chosen token: greedy's pick stays the top. */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;

    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* A number in [0, 1) from the context and k. */
static double unit(uint64_t h, unsigned k)
{
    h = fnv(h, &k, sizeof(k));
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 32;
    return (double)(h >> 11) / 9007199254740992.0;
}

static unsigned tok_id(uint64_t h)
{
    return (unsigned)(h % 150000u) + 100u;
}

/* {"id","token","bytes","logprob"} for text (n bytes). */
static json_t *lp_entry(unsigned id, const char *text, size_t n, double lp)
{
    json_t *bytes = json_array(), *tok = json_stringn(text, n);

    for (size_t i = 0; i < n; i++)
        json_array_append_new(bytes, json_integer((unsigned char)text[i]));
    return json_pack("{s:i,s:o,s:o,s:f}", "id", (json_int_t)id, "token",
                     tok ? tok : json_string("\ufffd"), "bytes", bytes,
                     "logprob", lp);
}

/* choices[0].logprobs for the token piece (n bytes) after b->ctx, and
 * the context moved past it. */
static json_t *logprobs(struct body *b, const char *piece, size_t n)
{
    double x[20], z, other;
    unsigned id[20], order[20];
    char alt[20][16];
    uint64_t h = b->ctx;
    json_t *top = json_array(), *e;
    int k = b->topn, i, j;

    id[0] = tok_id(fnv(14695981039346656037ULL, piece, n));
    x[0] = 0;
    for (i = 1; i < k; i++) {
        id[i] = tok_id(h + (uint64_t)i * 7919u);
        if (id[i] == id[0])
            id[i]++;
        snprintf(alt[i], sizeof(alt[i]), " a%02d", i);
        x[i] = -(0.5 + 2.5 * unit(h, 0) + 0.6 * (i - 1) +
                 0.3 * unit(h, (unsigned)i)) +
               b->drift * (2 * unit(h, 100u + (unsigned)i) - 1);
        if (x[i] > -0.05) /* greedy's pick stays the top token */
            x[i] = -0.05;
    }
    /* the mass past the list, the same for every model: the context's */
    other = exp(-3.0 - 2.0 * unit(h, 50));
    for (z = other, i = 0; i < k; i++)
        z += exp(x[i]);
    for (i = 0; i < k; i++)
        order[i] = (unsigned)i;
    for (i = 2; i < k; i++) /* the alternatives, most likely first */
        for (j = i; j > 1 && x[order[j]] > x[order[j - 1]]; j--) {
            unsigned t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (i = 0; i < k; i++) {
        unsigned o = order[i];
        json_array_append_new(
            top, o == 0
                     ? lp_entry(id[0], piece, n, x[0] - log(z))
                     : lp_entry(id[o], alt[o], strlen(alt[o]), x[o] - log(z)));
    }
    e = lp_entry(id[0], piece, n, x[0] - log(z));
    json_object_set_new(e, "top_logprobs", top);
    b->ctx = fnv(h, piece, n);
    return json_pack("{s:[o]}", "content", e);
}

/* The rule's "logprobs_fault" on the second token chunk: "hole" sends
 * it without logprobs, "dup_entries" with three entries for its one
 * token; "dup_top" lists the chosen token N times as every chunk's top N
 * (null: no chunk's logprobs). */
static json_t *lp_faulty(struct body *b, const char *piece, size_t n)
{
    const char *f = b->lp_fault ? b->lp_fault : "";
    int second = b->lp_chunks++ == 1;
    json_t *lp, *e, *top;
    size_t i;

    if (second && strcmp(f, "hole") == 0) {
        b->ctx = fnv(b->ctx, piece, n);
        return json_null();
    }
    lp = logprobs(b, piece, n);
    e = json_array_get(json_object_get(lp, "content"), 0);
    if (second && strcmp(f, "dup_entries") == 0) {
        json_array_append_new(json_object_get(lp, "content"),
                              json_deep_copy(e));
        json_array_append_new(json_object_get(lp, "content"),
                              json_deep_copy(e));
    }
    if (strcmp(f, "dup_top") == 0) {
        top = json_object_get(e, "top_logprobs");
        for (i = 0; i < json_array_size(top); i++)
            json_array_set_new(top, i, json_deep_copy(json_array_get(top, 0)));
    }
    return lp;
}

static void add_event(struct body *b, json_t *chunk, const char *raw)
{
    char *s = raw ? strdup(raw) : json_dumps(chunk, JSON_COMPACT);
    char *e;

    if (chunk)
        json_decref(chunk);
    if (s == NULL || asprintf(&e, "data: %s\n\n", s) < 0)
        die("fake-llama-server: out of memory");
    free(s);
    b->events = realloc(b->events, (b->n + 1) * sizeof(*b->events));
    if (b->events == NULL)
        die("fake-llama-server: out of memory");
    b->events[b->n++] = e;
}

static json_t *chunk(json_t *delta, const char *finish)
{
    return json_pack("{s:[{s:o,s:i,s:o}],s:s,s:s}", "choices", "delta", delta,
                     "index", 0, "finish_reason",
                     finish ? json_string(finish) : json_null(), "object",
                     "chat.completion.chunk", "model", "fake");
}

/* A /v1/completions chunk, as both lineages stream one (upstream b9215,
 * ik_llama.cpp by hand, docs/fake-llama-server.md): the text piece, no
 * delta, no role. */
static json_t *text_chunk(const char *text, const char *finish)
{
    return json_pack("{s:[{s:s,s:i,s:n,s:o}],s:s,s:s}", "choices", "text",
                     text, "index", 0, "logprobs", "finish_reason",
                     finish ? json_string(finish) : json_null(), "object",
                     "text_completion", "model", "fake");
}

/* The reply rule for a prompt. */
static json_t *rule_for(const char *prompt)
{
    json_t *rules = json_object_get(model, "replies"), *r;
    size_t i;

    json_array_foreach(rules, i, r)
    {
        json_t *m = json_object_get(r, "match");
        if (json_is_string(m) && strstr(prompt, json_string_value(m)))
            return r;
    }
    r = json_object_get(model, "default");
    return r ? r : json_object_get(model, "none");
}

/* Stream text as deltas of key, 4 bytes a chunk (the model's
 * "chunk_bytes", 1 to 65536, for a huge reply streamed fast), at most
 * *left chunks. */
static size_t deltas(struct body *b, const char *key, const char *text,
                     size_t *left)
{
    size_t len = text ? strlen(text) : 0, off = 0, n = 0;
    long want = mint("chunk_bytes", 4);
    size_t step = want < 1 ? 1 : want > 65536 ? 65536 : (size_t)want;
    static char piece[65537];

    while (off<len && * left> 0) {
        size_t k = len - off < step ? len - off : step;
        json_t *c;
        memcpy(piece, text + off, k);
        piece[k] = '\0';
        c = b->completion ? text_chunk(piece, NULL)
                          : chunk(json_pack("{s:s}", key, piece), NULL);
        if (b->topn > 0)
            json_object_set_new(
                json_array_get(json_object_get(c, "choices"), 0), "logprobs",
                lp_faulty(b, piece, k));
        add_event(b, c, NULL);
        off += k;
        n++;
        (*left)--;
    }
    return n;
}

/* The reply cut where the request's first "stop" string begins, as the
 * real server stops there and leaves the stop string out (a copy), or
 * NULL when no stop string occurs in it. */
static char *stopped(json_t *req, const char *content)
{
    json_t *stop = json_object_get(req, "stop"), *v;
    const char *end = NULL, *hit;
    size_t i;
    char *cut;

    if (content == NULL || !json_is_array(stop))
        return NULL;
    json_array_foreach(stop, i, v)
    {
        if (json_is_string(v) && json_string_length(v) > 0 &&
            (hit = strstr(content, json_string_value(v))) != NULL &&
            (end == NULL || hit < end))
            end = hit;
    }
    if (end == NULL)
        return NULL;
    if ((cut = strndup(content, (size_t)(end - content))) == NULL)
        die("fake-llama-server: out of memory");
    fprintf(logf_, "fake: stopped at a stop string\n");
    return cut;
}

/* An event made whole by toolcalls.c (it may hold raw bytes). */
static void raw_event(void *ctx, const char *data)
{
    add_event(ctx, NULL, data);
}

/* fake_lp_cb: the log-probabilities of a tool call's raw text, a token
 * of 4 bytes at most as deltas() makes them ("logprobs_calls"). */
static char *call_lp(void *ctx, const char *raw, size_t n)
{
    struct body *b = ctx;
    json_t *all = json_array(), *lp;
    char *s;

    for (size_t off = 0; off < n; off += 4) {
        size_t k = n - off < 4 ? n - off : 4;
        lp = logprobs(b, raw + off, k);
        json_array_extend(all, json_object_get(lp, "content"));
        json_decref(lp);
    }
    lp = json_pack("{s:o}", "content", all);
    s = json_dumps(lp, JSON_COMPACT);
    json_decref(lp);
    if (s == NULL)
        die("fake-llama-server: out of memory");
    return s;
}

static void build(struct body *b, json_t *req, json_t *rule)
{
    const char *content = json_string_value(json_object_get(rule, "content"));
    const char *reasoning =
        json_string_value(json_object_get(rule, "reasoning"));
    json_t *mt = json_object_get(req, "max_tokens"), *t;
    size_t max =
        json_is_integer(mt) ? (size_t)json_integer_value(mt) : 1u << 30;
    size_t left = max, sent;
    long tokens;
    int ik = json_is_true(json_object_get(model, "ik"));
    double tps = json_is_number(json_object_get(rule, "decode_tps"))
                     ? json_number_value(json_object_get(rule, "decode_tps"))
                     : json_number_value(json_object_get(model, "decode_tps"));
    const char *finish;
    char *cut;
    int calls;

    b->lp_fault = json_string_value(json_object_get(rule, "logprobs_fault"));
    if (json_is_true(json_object_get(req, "logprobs")) &&
        !json_is_true(json_object_get(model, "no_logprobs")) &&
        !json_is_true(json_object_get(rule, "no_logprobs"))) {
        json_t *n = json_object_get(req, "top_logprobs");
        json_t *d = json_object_get(model, "logprobs_drift");
        const char *prompt = json_string_value(json_object_get(
            json_array_get(json_object_get(req, "messages"), 0), "content"));
        b->topn = json_is_integer(n) ? (int)json_integer_value(n) : 1;
        b->topn = b->topn < 1 ? 1 : b->topn > 20 ? 20 : b->topn;
        b->drift = json_is_number(d) ? json_number_value(d)
                                     : 6000.0 / (double)model_bytes;
        b->drift = b->drift < 0 ? 0 : b->drift > 4 ? 4 : b->drift;
        b->ctx = fnv(14695981039346656037ULL, prompt ? prompt : "",
                     prompt ? strlen(prompt) : 0);
    }
    if (!b->completion) /* a completion has no role, nor reasoning */
        add_event(b,
                  chunk(json_pack("{s:s,s:n}", "role", "assistant", "content"),
                        NULL),
                  NULL);
    sent =
        b->completion ? 0 : deltas(b, "reasoning_content", reasoning, &left);
    cut = stopped(req, content);
    sent += deltas(b, "content", cut ? cut : content, &left);
    free(cut);
    sent += fake_tool_calls(
        req, rule, &left, raw_event,
        b->topn > 0 && json_is_true(json_object_get(model, "logprobs_calls"))
            ? call_lp
            : NULL,
        b, logf_, &calls);
    tokens = json_is_integer(json_object_get(rule, "tokens"))
                 ? (long)json_integer_value(json_object_get(rule, "tokens"))
                 : (long)sent;
    if (left == 0 || (size_t)tokens >= max)
        tokens = (long)max;
    finish = (!ik && (size_t)tokens >= max) ? "length"
             : calls > 0                    ? "tool_calls"
                                            : "stop";
    t = json_pack("{s:I,s:f,s:i,s:f,s:f}", "prompt_n", (json_int_t)b->prompt_n,
                  "prompt_ms", b->prompt_ms, "predicted_n", tokens,
                  "predicted_ms",
                  tps > 0 ? 1000.0 * (double)tokens / tps : 0.0,
                  "predicted_per_second", tps > 0 ? tps : 50.0);
    if (b->completion) {
        /* both lineages: one last chunk, its text empty, with the finish,
         * usage and timings (the fork says "stop" at the cap here too) */
        json_t *c = text_chunk("", finish);
        if (ik) {
            json_object_set_new(t, "n_ctx", json_integer(slot_ctx()));
            json_object_set_new(t, "n_past",
                                json_integer(b->prompt_n + tokens));
        }
        json_object_set_new(c, "usage",
                            json_pack("{s:i,s:I,s:I}", "completion_tokens",
                                      tokens, "prompt_tokens",
                                      (json_int_t)b->prompt_n, "total_tokens",
                                      (json_int_t)(b->prompt_n + tokens)));
        json_object_set_new(c, "timings", t);
        add_event(b, c, NULL);
    } else if (ik) {
        json_t *c = chunk(json_object(), finish);
        /* the fork's timings say the slot's context and what fills it */
        json_object_set_new(t, "n_ctx", json_integer(slot_ctx()));
        json_object_set_new(t, "n_past", json_integer(b->prompt_n + tokens));
        json_object_set_new(c, "timings", t);
        add_event(b, c, NULL);
    } else {
        add_event(b, chunk(json_object(), finish), NULL);
        add_event(b,
                  json_pack("{s:[],s:{s:i,s:I,s:I},s:o}", "choices", "usage",
                            "completion_tokens", tokens, "prompt_tokens",
                            (json_int_t)b->prompt_n, "total_tokens",
                            (json_int_t)(b->prompt_n + tokens), "timings", t),
                  NULL);
    }
    add_event(b, NULL, "[DONE]");
    b->fault = json_string_value(json_object_get(rule, "fault"));
    b->message = json_string_value(json_object_get(rule, "message"));
    b->fault_at = b->n / 2;
    b->token_ms = shared_ms(mint("token_ms", 0));
    b->trickle_ms =
        json_is_integer(json_object_get(rule, "trickle_ms"))
            ? (long)json_integer_value(json_object_get(rule, "trickle_ms"))
            : 200;
    if (b->fault && strcmp(b->fault, "flood") == 0) {
        json_t *fc = json_object_get(rule, "flood_char"), *d;
        char piece[4097], *text, *e;
        int c = json_is_string(fc) && json_string_length(fc) == 1
                    ? json_string_value(fc)[0]
                    : 1;
        b->flood =
            json_is_integer(json_object_get(rule, "flood"))
                ? (long long)json_integer_value(json_object_get(rule, "flood"))
                : -1;
        memset(piece, c, 4096);
        piece[4096] = '\0';
        d = chunk(json_pack("{s:s}", "content", piece), NULL);
        text = json_dumps(d, JSON_COMPACT);
        json_decref(d);
        if (text == NULL || asprintf(&e, "data: %s\n\n", text) < 0)
            die("fake-llama-server: out of memory");
        b->flood_chunk = e;
        free(text);
        b->fault_at = 1; /* after the role chunk */
    }
}

/* ---- HTTP -------------------------------------------------------------- */

static ssize_t copy_out(char *buf, size_t max, const char *text)
{
    size_t n = strlen(text);

    if (n > max)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    memcpy(buf, text, n);
    return (ssize_t)n;
}

static ssize_t stream_cb(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct body *b = cls;
    size_t n;

    (void)pos;
    if (b->fault && strcmp(b->fault, "bytes") == 0) {
        /* the real stream, a byte at a time */
        if (b->next == b->n)
            return MHD_CONTENT_READER_END_OF_STREAM;
        sleep_ms(b->trickle_ms);
        buf[0] = b->events[b->next][b->byte_at++];
        if (b->events[b->next][b->byte_at] == '\0') {
            b->next++;
            b->byte_at = 0;
        }
        return 1;
    }
    if (b->fault && strcmp(b->fault, "no_finish") == 0 &&
        b->next == b->fault_at)
        return MHD_CONTENT_READER_END_OF_STREAM;
    if (b->next == b->n)
        return MHD_CONTENT_READER_END_OF_STREAM;
    if (b->fault && b->next == b->fault_at) {
        if (strcmp(b->fault, "comments") == 0) {
            sleep_ms(b->trickle_ms);
            return copy_out(buf, max, ": ping\n\n");
        }
        if (strcmp(b->fault, "empty") == 0) {
            sleep_ms(b->trickle_ms);
            return copy_out(buf, max,
                            "data: {\"choices\":[{\"delta\":{},"
                            "\"index\":0,\"finish_reason\":null}]}\n\n");
        }
        if (strcmp(b->fault, "garbage") == 0) {
            b->fault = NULL;
            return copy_out(buf, max, "data: this is not json\n\n");
        }
        if (strcmp(b->fault, "bad_utf8") == 0) {
            b->fault = NULL;
            return copy_out(buf, max,
                            "data: {\"choices\":[{\"delta\":{\"content\":"
                            "\"caf\xe9\"},\"index\":0}]}\n\n");
        }
        if (strcmp(b->fault, "nul") == 0) {
            b->fault = NULL;
            return copy_out(buf, max,
                            "data: {\"choices\":[{\"delta\":{\"content\":"
                            "\"a\\u0000b\"},\"index\":0}]}\n\n");
        }
        if (strcmp(b->fault, "close") == 0)
            return MHD_CONTENT_READER_END_WITH_ERROR;
        if (strcmp(b->fault, "flood") == 0) {
            if (b->flood == 0) {
                b->fault = NULL;
            } else {
                if (b->flood > 0)
                    b->flood = b->flood > 4096 ? b->flood - 4096 : 0;
                return copy_out(buf, max, b->flood_chunk);
            }
        }
        if (b->fault && strcmp(b->fault, "exit") == 0) {
            fprintf(logf_, "terminate called after throwing an instance of "
                           "'std::runtime_error'\n  what():  Failed to parse "
                           "input at pos 0: <fake>\n");
            fflush(NULL);
            _exit(134);
        }
        if (b->fault && strcmp(b->fault, "hang") == 0) {
            for (;;)
                sleep_ms(1000);
        }
        if (b->fault && strcmp(b->fault, "error_event") == 0) {
            json_t *e = json_pack(
                "{s:{s:i,s:s,s:s}}", "error", "code", 500, "message",
                b->message ? b->message : "Failed to parse input at pos 0",
                "type", "server_error");
            char *text = json_dumps(e, JSON_COMPACT);
            b->fault = NULL;
            n = (size_t)snprintf(buf, max, "data: %s\n\n", text ? text : "{}");
            free(text);
            json_decref(e);
            b->next = b->n;
            return (ssize_t)n;
        }
    }
    n = strlen(b->events[b->next]);
    if (n > max)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    if (b->token_ms > 0)
        sleep_ms(b->token_ms);
    memcpy(buf, b->events[b->next++], n);
    return (ssize_t)n;
}

static void free_body(void *cls)
{
    struct body *b = cls;
    size_t i;

    for (i = 0; i < b->n; i++)
        free(b->events[i]);
    free(b->events);
    free(b->flood_chunk);
    free(b);
    __atomic_sub_fetch(&active, 1, __ATOMIC_SEQ_CST);
}

static enum MHD_Result reply_json(struct MHD_Connection *c, unsigned status,
                                  const char *text)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
    enum MHD_Result ret;

    MHD_add_response_header(r, "Content-Type", "application/json");
    ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

/* A draft model (-md) decodes greedily to the same answers, as
 * speculative decoding must; FAKE_DRAFT_DIFFERS (the fault switch) names
 * a text: under -md, a prompt holding it gets another content. */
static const char *draft_model;

static int draft_differs(const char *prompt, json_t *rule)
{
    const char *t = getenv("FAKE_DRAFT_DIFFERS");

    return draft_model != NULL && t != NULL && *t != '\0' &&
           strstr(prompt, t) != NULL &&
           json_is_string(json_object_get(rule, "content"));
}

/* An error body {"error": {"code", "message", "type"}}: the rule's
 * "message" when it has one (new: free()). */
static char *error_body(json_t *rule, int code, const char *message,
                        const char *type)
{
    const char *m = json_string_value(json_object_get(rule, "message"));
    json_t *e = json_pack("{s:{s:i,s:s,s:s}}", "error", "code", code,
                          "message", m ? m : message, "type", type);
    char *text = json_dumps(e, JSON_COMPACT);

    json_decref(e);
    if (text == NULL)
        die("fake-llama-server: out of memory");
    return text;
}

static enum MHD_Result reply_error(struct MHD_Connection *c, json_t *rule,
                                   int code, const char *message,
                                   const char *type)
{
    char *text = error_body(rule, code, message, type);
    enum MHD_Result ret = reply_json(c, (unsigned)code, text);

    free(text);
    return ret;
}

/* An HTTP status and no body at all (a 429 with Retry-After: secs unless
 * negative, a 3xx with its Location). */
static enum MHD_Result reply_bare(struct MHD_Connection *c, unsigned status,
                                  long secs)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    char v[32];
    enum MHD_Result ret;

    if (status == 429 && secs >= 0) {
        snprintf(v, sizeof v, "%ld", secs);
        MHD_add_response_header(r, "Retry-After", v);
    }
    if (status >= 300 && status < 400)
        MHD_add_response_header(r, "Location", "http://127.0.0.1:9/elsewhere");
    fprintf(logf_, "fake: bare %u sent\n", status);
    ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

/* 429 with Retry-After: secs (none when negative). */
static enum MHD_Result reply_busy(struct MHD_Connection *c, json_t *rule,
                                  long secs)
{
    char *text = error_body(rule, 429, "busy", "rate_limit_error");
    struct MHD_Response *r = MHD_create_response_from_buffer(
        strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
    char v[32];
    enum MHD_Result ret;

    free(text);
    MHD_add_response_header(r, "Content-Type", "application/json");
    if (secs >= 0) {
        snprintf(v, sizeof v, "%ld", secs);
        MHD_add_response_header(r, "Retry-After", v);
    }
    fprintf(logf_, "fake: 429 sent (Retry-After %ld)\n", secs);
    ret = MHD_queue_response(c, 429, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result reply_redirect(struct MHD_Connection *c)
{
    static const char text[] = "<html>moved</html>";
    struct MHD_Response *r = MHD_create_response_from_buffer(
        strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
    enum MHD_Result ret;

    MHD_add_response_header(r, "Location", "http://127.0.0.1:9/elsewhere");
    ret = MHD_queue_response(c, 302, r);
    MHD_destroy_response(r);
    return ret;
}

/* What a served endpoint says about itself: /props and /v1/models. */
static enum MHD_Result reply_self(struct MHD_Connection *c, int props)
{
    json_t *v =
        props ? json_pack("{s:s,s:s,s:i}", "model_path", model_path,
                          "build_info", "b1-fa4e0001 (fake)", "total_slots", 1)
              : json_pack("{s:s,s:[{s:s,s:s}]}", "object", "list", "data",
                          "id", model_path, "object", "model");
    json_t *extra =
        json_object_get(model, props ? "props_extra" : "models_extra");
    char *text;

    if (props) {
        /* the slot's context, where both lineages put it; the fork also
         * says the whole context at the top */
        json_object_set_new(v, "default_generation_settings",
                            json_pack("{s:i,s:i,s:I,s:b}", "id", 0, "id_task",
                                      -1, "n_ctx", (json_int_t)(slot_ctx()),
                                      "is_processing", 0));
        if (json_is_true(json_object_get(model, "ik")))
            json_object_set_new(v, "n_ctx", json_integer(n_ctx));
    }
    if (json_is_object(extra))
        json_object_update(
            props ? v : json_array_get(json_object_get(v, "data"), 0), extra);
    text = json_dumps(v, JSON_COMPACT);
    enum MHD_Result ret = reply_json(c, 200, text ? text : "{}");

    free(text);
    json_decref(v);
    return ret;
}

/* GET /slots: one {"id", "n_ctx", "is_processing"} a slot. */
static enum MHD_Result reply_slots(struct MHD_Connection *c)
{
    json_t *v = json_array();
    char *text;
    enum MHD_Result ret;

    for (long i = 0; i < n_parallel; i++)
        json_array_append_new(
            v, json_pack("{s:I,s:I,s:b}", "id", (json_int_t)i, "n_ctx",
                         (json_int_t)(slot_ctx()), "is_processing", 0));
    text = json_dumps(v, JSON_COMPACT);
    ret = reply_json(c, 200, text ? text : "[]");
    free(text);
    json_decref(v);
    return ret;
}

/* --api-key: whether the request carries "Bearer KEY". */
static int key_ok(struct MHD_Connection *c)
{
    const char *h =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");

    return api_key == NULL || (h != NULL && strncmp(h, "Bearer ", 7) == 0 &&
                               strcmp(h + 7, api_key) == 0);
}

/* The model's "prompt_tps" (default 2000): prompt_ms follows from it. */
static double prompt_tps(void)
{
    json_t *v = json_object_get(model, "prompt_tps");

    return json_is_number(v) && json_number_value(v) > 0 ? json_number_value(v)
                                                         : 2000.0;
}

/* Whether a prompt of *count tokens fits the slot: 1 when it goes on
 * (the ik fork's context shift may have cut *prompt's front and *count),
 * 0 when the real server's error was queued into *ret: upstream's 400
 * exceed_context_size_error, the fork's 500 without a context shift. */
static int fits(struct MHD_Connection *c, const char **prompt, long *count,
                enum MHD_Result *ret)
{
    long slot = slot_ctx(), discard = (slot - 1) / 2, gone = 0, skip;
    long own = fake_tok_count(*prompt, strlen(*prompt));
    char *text;

    if (*count < slot)
        return 1;
    if (!json_is_true(json_object_get(model, "ik"))) {
        json_t *e = json_pack("{s:{s:i,s:s%,s:s,s:I,s:I}}", "error", "code",
                              400, "message", "", (size_t)0, "type",
                              "exceed_context_size_error", "n_prompt_tokens",
                              (json_int_t)*count, "n_ctx", (json_int_t)slot);
        json_object_set_new(
            json_object_get(e, "error"), "message",
            json_sprintf("request (%ld tokens) exceeds the available context "
                         "size (%ld tokens), try increasing it",
                         *count, slot));
        text = json_dumps(e, JSON_COMPACT);
        json_decref(e);
        fprintf(logf_, "fake: prompt of %ld tokens over n_ctx %ld\n", *count,
                slot);
        *ret = reply_json(c, 400, text ? text : "{}");
        free(text);
        return 0;
    }
    if (!ctx_shift || discard <= 0) {
        *ret = reply_json(c, 500,
                          "{\"error\":{\"code\":500,\"message\":\"the "
                          "request exceeds the available context size, try "
                          "increasing it\",\"type\":\"server_error\"}}");
        return 0;
    }
    /* the fork keeps the BOS and drops blocks of (slot - 1) / 2 tokens
     * after it until the rest fits: the last message loses its front */
    while (*count - gone >= slot)
        gone += discard;
    skip = gone - (*count - own - FAKE_CHAT_GEN - 1);
    if (skip > 0)
        *prompt = fake_tok_skip(*prompt, strlen(*prompt), skip);
    fprintf(logf_, "fake: context shift: %ld of %ld prompt tokens dropped\n",
            gone, *count);
    *count -= gone;
    return 1;
}

/* The rule for a prompt of count tokens: the rule itself, or a copy
 * that req holds (gone with it) whose content is the "needles" reply or
 * the one past the "cliff" (longctx.h). */
static json_t *longctx_rule(json_t *req, json_t *rule, const char *prompt,
                            long count)
{
    char *text = fake_longctx_reply(model, cache_k, rule, prompt, count);
    json_t *own, *s;

    if (text == NULL)
        return rule;
    own = rule ? json_deep_copy(rule) : json_object();
    if ((s = json_string(text)) != NULL)
        json_object_set_new(own, "content", s);
    free(text);
    json_object_set_new(req, " fake rule", own);
    return own;
}

/* The stream's events as one chat.completion (stream false), queued. */
static enum MHD_Result reply_whole(struct MHD_Connection *c, struct body *b)
{
    json_t *msg = json_pack("{s:s}", "role", "assistant"), *out, *last = NULL;
    char finish[16] = "", *text;
    enum MHD_Result ret;
    size_t i;

    for (i = 0; i < b->n; i++) {
        json_t *e = json_loads(b->events[i] + 6, 0, NULL), *ch, *d, *v;
        const char *key;
        if (e == NULL)
            continue; /* [DONE] */
        ch = json_array_get(json_object_get(e, "choices"), 0);
        d = json_object_get(ch, "delta");
        json_object_foreach(d, key, v)
        {
            const char *have = json_string_value(json_object_get(msg, key));
            if (json_is_string(v) && strcmp(key, "role") != 0)
                json_object_set_new(msg, key,
                                    json_sprintf("%s%s", have ? have : "",
                                                 json_string_value(v)));
        }
        if (json_is_string(json_object_get(ch, "finish_reason")))
            snprintf(finish, sizeof finish, "%s",
                     json_string_value(json_object_get(ch, "finish_reason")));
        if (json_object_get(e, "timings") != NULL) {
            json_decref(last);
            last = json_incref(e);
        }
        json_decref(e);
    }
    if (json_object_get(msg, "content") == NULL)
        json_object_set_new(msg, "content", json_string(""));
    out = json_pack("{s:[{s:i,s:o,s:o}],s:s,s:s}", "choices", "index", 0,
                    "message", msg, "finish_reason",
                    finish[0] ? json_string(finish) : json_null(), "object",
                    "chat.completion", "model", "fake");
    if (last != NULL) {
        json_object_set(out, "timings", json_object_get(last, "timings"));
        if (json_object_get(last, "usage") != NULL)
            json_object_set(out, "usage", json_object_get(last, "usage"));
    }
    json_decref(last);
    text = json_dumps(out, JSON_COMPACT);
    json_decref(out);
    ret = reply_json(c, 200, text ? text : "{}");
    free(text);
    return ret;
}

/* The chat templates on: --jinja or --no-jinja, else the build's default,
 * the model's "jinja" (default on, as newer upstream; false: the ik fork
 * and older upstream). */
static int jinja_on(void)
{
    return jinja_arg >= 0 ? jinja_arg
                          : !json_is_false(json_object_get(model, "jinja"));
}

static enum MHD_Result chat(struct MHD_Connection *c, const char *data,
                            size_t len, int completion)
{
    json_error_t jerr;
    json_t *req = json_loadb(data, len, 0, &jerr), *msgs, *last, *rule;
    struct MHD_Response *r;
    struct body *b;
    const char *prompt, *fault, *refused;
    enum MHD_Result ret;
    long count;

    msgs = json_object_get(req, "messages");
    last = json_array_get(msgs, json_array_size(msgs) - 1);
    prompt = json_string_value(completion ? json_object_get(req, "prompt")
                                          : json_object_get(last, "content"));
    if (prompt == NULL) {
        json_decref(req);
        return reply_json(c, 400,
                          completion
                              ? "{\"error\":{\"code\":400,\"message\":\""
                                "\\\"prompt\\\" must be provided\",\"type\":"
                                "\"invalid_request_error\"}}"
                              : "{\"error\":{\"code\":400,\"message\":\"no "
                                "messages\",\"type\":\"invalid_request_error"
                                "\"}}");
    }
    fprintf(logf_, "srv  log_server_r: request: POST %s 127.0.0.1 200\n",
            completion ? "/v1/completions" : "/v1/chat/completions");
    if (completion) { /* what graveyard sent, one line, for the cases */
        char *line = json_dumps(json_object_get(req, "prompt"),
                                JSON_ENCODE_ANY | JSON_COMPACT);
        fprintf(logf_, "fake: completion prompt: %s\n", line ? line : "");
        free(line);
    }
    if (__atomic_fetch_add(&requests, 1, __ATOMIC_SEQ_CST) == 0)
        fprintf(logf_, "fake: first chat request at %ld ms\n",
                ms_since_start());
    if ((refused = fake_tools_refused(req, jinja_on())) != NULL) {
        ret = reply_error(c, NULL, 500, refused, "server_error");
        json_decref(req);
        return ret;
    }
    if (fake_tools_logprobs_refused(req, mint("logprobs_tools", 0))) {
        long st = mint("logprobs_tools", 0);
        ret = reply_error(
            c, NULL, (int)st, "logprobs is not supported with tools + stream",
            st == 400 ? "invalid_request_error" : "server_error");
        json_decref(req);
        return ret;
    }
    for (long spam = mint("log_spam", 0); spam > 0; spam -= 64)
        fprintf(logf_, "fake: spam %054ld\n", spam);
    if (mint("exit_after", 0) > 0 && requests > mint("exit_after", 0)) {
        fprintf(logf_, "fake: exit after %ld requests\n",
                mint("exit_after", 0));
        fflush(NULL);
        _exit(1);
    }
    count = completion ? fake_tok_count(prompt, strlen(prompt))
                       : fake_chat_tokens(msgs);
    if (!fits(c, &prompt, &count, &ret)) {
        json_decref(req);
        return ret;
    }
    rule = longctx_rule(req, rule_for(prompt), prompt, count);
    fault = json_string_value(json_object_get(rule, "fault"));
    if (fault && strcmp(fault, "http429") == 0) {
        json_t *times = json_object_get(rule, "times");
        if (!json_is_integer(times) ||
            __atomic_fetch_add(&busy_sent, 1, __ATOMIC_SEQ_CST) <
                json_integer_value(times)) {
            json_t *ra = json_object_get(rule, "retry_after");
            json_decref(req);
            return reply_busy(
                c, rule, json_is_integer(ra) ? json_integer_value(ra) : 1);
        }
    }
    if (fault && strcmp(fault, "bare") == 0) {
        json_t *st = json_object_get(rule, "status"),
               *ra = json_object_get(rule, "retry_after"),
               *times = json_object_get(rule, "times");
        unsigned status =
            json_is_integer(st) ? (unsigned)json_integer_value(st) : 500;
        if (status != 429 || !json_is_integer(times) ||
            __atomic_fetch_add(&busy_sent, 1, __ATOMIC_SEQ_CST) <
                json_integer_value(times)) {
            json_decref(req);
            return reply_bare(
                c, status, json_is_integer(ra) ? json_integer_value(ra) : 1);
        }
    }
    if (fault && strcmp(fault, "close_first") == 0) {
        json_t *times = json_object_get(rule, "times");
        if (!json_is_integer(times) ||
            __atomic_fetch_add(&closed_sent, 1, __ATOMIC_SEQ_CST) <
                json_integer_value(times)) {
            /* no response queued: MHD closes the connection unanswered */
            fprintf(logf_, "fake: closed before the first byte\n");
            json_decref(req);
            return MHD_NO;
        }
    }
    if (fault && strcmp(fault, "http401") == 0) {
        json_decref(req);
        return reply_error(c, rule, 401, "Invalid API Key",
                           "authentication_error");
    }
    if (fault && strcmp(fault, "http400") == 0) {
        json_decref(req);
        return reply_error(c, rule, 400, "the request is not valid",
                           "invalid_request_error");
    }
    if (fault && strcmp(fault, "redirect") == 0) {
        json_decref(req);
        return reply_redirect(c);
    }
    if (fault && strcmp(fault, "http500") == 0) {
        json_decref(req);
        return reply_error(c, rule, 500,
                           "the model produced output that does not match "
                           "the expected format",
                           "server_error");
    }
    b = calloc(1, sizeof(*b));
    if (b == NULL)
        die("fake-llama-server: out of memory");
    b->prompt_n = count;
    b->completion = completion;
    b->prompt_ms = 1000.0 * (double)count / prompt_tps();
    if (json_is_true(json_object_get(model, "prompt_sleep")))
        sleep_ms(b->prompt_ms < 60000 ? (long)b->prompt_ms : 60000);
    /* another stream in progress: this one is decoded in a batch */
    if (__atomic_fetch_add(&active, 1, __ATOMIC_SEQ_CST) > 0 &&
        json_is_string(json_object_get(rule, "batched"))) {
        rule = json_deep_copy(rule);
        json_object_set(rule, "content", json_object_get(rule, "batched"));
        fprintf(logf_, "fake: batched reply\n");
        build(b, req, rule);
        json_decref(rule);
    } else if (draft_differs(prompt, rule)) {
        /* the fault switch: a draft model that changed a greedy answer,
         * which speculative decoding must never do */
        rule = json_deep_copy(rule);
        json_object_set_new(
            rule, "content",
            json_sprintf("%s (drafted)",
                         json_string_value(json_object_get(rule, "content"))));
        fprintf(logf_, "fake: draft changed this reply\n");
        build(b, req, rule);
        json_decref(rule);
    } else {
        build(b, req, rule);
    }
    if (json_is_false(json_object_get(req, "stream"))) {
        json_decref(req);
        ret = reply_whole(c, b);
        free_body(b);
        return ret;
    }
    json_decref(req);
    r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 65536, stream_cb,
                                          b, free_body);
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ret;
}

struct upload {
    char *p;
    size_t len;
};

static enum MHD_Result handler(void *cls, struct MHD_Connection *c,
                               const char *url, const char *method,
                               const char *version, const char *data,
                               size_t *size, void **state)
{
    struct upload *u = *state;
    int tok;

    (void)cls;
    (void)version;
    if (json_is_true(json_object_get(model, "no_health")) &&
        strcmp(url, "/health") == 0)
        return reply_json(c, 404,
                          "{\"error\":{\"code\":404,\"message\":\"File Not "
                          "Found\",\"type\":\"not_found_error\"}}");
    if (strcmp(url, "/v1/models") == 0 && strcmp(method, "GET") == 0)
        return reply_self(c, 0);
    if (strcmp(url, "/health") != 0 && strcmp(url, "/v1/health") != 0 &&
        !key_ok(c)) {
        fprintf(logf_, "fake: 401 for %s\n", url);
        return reply_json(c, 401,
                          "{\"error\":{\"code\":401,\"message\":\"Invalid "
                          "API Key\",\"type\":\"authentication_error\"}}");
    }
    if (strcmp(url, "/props") == 0 && strcmp(method, "GET") == 0)
        return reply_self(c, 1);
    if (strcmp(url, "/health") == 0 || strcmp(url, "/v1/health") == 0) {
        long left = mint("load_ms", 0) - ms_since_start();
        if (json_is_true(json_object_get(model, "never_ready")))
            left = 1;
        else if (left > 0 &&
                 json_is_true(json_object_get(model, "health_hangs"))) {
            sleep_ms(left);
            left = 0;
        }
        if (left <= 0 && !health_ok_logged) {
            /* for the benchmark: how soon the first question follows */
            health_ok_logged = 1;
            fprintf(logf_, "fake: health ok at %ld ms\n", ms_since_start());
        }
        if (left > 0)
            return reply_json(c, 503,
                              "{\"error\":{\"code\":503,\"message\":"
                              "\"Loading model\",\"type\":"
                              "\"unavailable_error\"}}");
        return reply_json(c, 200, "{\"status\":\"ok\"}");
    }
    if (strcmp(url, "/slots") == 0 && strcmp(method, "GET") == 0)
        return reply_slots(c);
    tok = strcmp(url, "/tokenize") == 0 &&
          !json_is_false(json_object_get(model, "tokenize"));
    if (strcmp(method, "POST") != 0 ||
        (!tok && strcmp(url, "/v1/chat/completions") != 0 &&
         strcmp(url, "/chat/completions") != 0 &&
         strcmp(url, "/v1/completions") != 0 &&
         strcmp(url, "/completions") != 0))
        return reply_json(c, 404,
                          "{\"error\":{\"code\":404,\"message\":\"File Not "
                          "Found\",\"type\":\"not_found_error\"}}");
    if (u == NULL) {
        *state = calloc(1, sizeof(*u));
        return *state ? MHD_YES : MHD_NO;
    }
    if (*size > 0) {
        if (*size > FAKE_BODY_MAX - u->len) {
            fprintf(logf_, "fake: a request body over %u bytes\n",
                    FAKE_BODY_MAX);
            return MHD_NO;
        }
        u->p = realloc(u->p, u->len + *size);
        if (u->p == NULL)
            return MHD_NO;
        memcpy(u->p + u->len, data, *size);
        u->len += *size;
        *size = 0;
        return MHD_YES;
    }
    if (tok) {
        unsigned status;
        char *text =
            fake_tokenize(u->p ? u->p : "", u->len,
                          json_is_true(json_object_get(model, "ik")), &status);
        enum MHD_Result ret = reply_json(c, status, text ? text : "{}");
        free(text);
        return ret;
    }
    return chat(c, u->p ? u->p : "", u->len,
                strcmp(url, "/v1/completions") == 0 ||
                    strcmp(url, "/completions") == 0);
}

static void done_cb(void *cls, struct MHD_Connection *c, void **state,
                    enum MHD_RequestTerminationCode code)
{
    struct upload *u = *state;

    (void)cls;
    (void)c;
    (void)code;
    if (u) {
        free(u->p);
        free(u);
    }
}

/* ---- command line ------------------------------------------------------ */

static int listed(const char *const *list, const char *a)
{
    for (; *list; list++)
        if (strcmp(*list, a) == 0)
            return 1;
    return 0;
}

/* Flags of the real server that take a value, and those that do not. */
static const char *const with_value[] = {"-m",
                                         "--model",
                                         "--port",
                                         "--host",
                                         "-c",
                                         "--ctx-size",
                                         "-np",
                                         "--parallel",
                                         "--seed",
                                         "-s",
                                         "-ngl",
                                         "--n-gpu-layers",
                                         "--gpu-layers",
                                         "-t",
                                         "--threads",
                                         "--chat-template-kwargs",
                                         "--reasoning-format",
                                         "-a",
                                         "--alias",
                                         "--log-file",
                                         "-b",
                                         "-ub",
                                         "--temp",
                                         "--api-key",
                                         "-hft",
                                         "--hf-token",
                                         "-ctk",
                                         "--cache-type-k",
                                         "-ctv",
                                         "--cache-type-v",
                                         "-md",
                                         "--model-draft",
                                         "--spec-draft-model",
                                         "-ngld",
                                         "--gpu-layers-draft",
                                         "--n-gpu-layers-draft",
                                         "--draft-max",
                                         "--spec-type",
                                         "--context-shift",
                                         "--rope-scaling",
                                         "--rope-scale",
                                         "--rope-freq-base",
                                         "--rope-freq-scale",
                                         "--yarn-orig-ctx",
                                         NULL};
static const char *const switches[] = {
    "--jinja",   "--no-webui",      "--verbose",
    "--metrics", "--no-mmap",       "--send-done",
    "-no-fa",    "--no-flash-attn", "--no-context-shift",
    "-kvu",      "--kv-unified",    "--no-warmup",
    NULL};

/* A number of tokens as upstream reads one (std::stoi: leading digits,
 * the rest ignored), or exit 1 as it does on none. */
static long ctx_value(const char *flag, const char *v)
{
    char *end;
    long n = strtol(v, &end, 10);

    if (end == v)
        die("error while handling argument \"%s\": stoi\n\nusage:\n%s N", flag,
            flag);
    return n;
}

/* The flags of the context: -c/--ctx-size, -np, -ctk and the fork's
 * --context-shift VALUE; 1 when a is one of them (its value taken). */
static int ctx_flag(const char *a, const char *v)
{
    if (!strcmp(a, "-c") || !strcmp(a, "--ctx-size"))
        n_ctx = ctx_value(a, v);
    else if (!strcmp(a, "-np") || !strcmp(a, "--parallel"))
        n_parallel = ctx_value(a, v) > 0 ? ctx_value(a, v) : 1;
    else if (!strcmp(a, "-ctk") || !strcmp(a, "--cache-type-k"))
        cache_k = v;
    else if (!strcmp(a, "--context-shift"))
        ctx_shift = strcmp(v, "off") != 0 && strcmp(v, "0") != 0;
    else
        return 0;
    return 1;
}

/* -fa as both lineages take it now (on, off, auto; the fork also 0 and
 * 1), or alone as older builds did. 1 when argv[i + 1] is its value. */
static int fa_value(const char *a, const char *next)
{
    static const char *const vals[] = {"on", "off", "auto", "0", "1", NULL};

    if (strcmp(a, "-fa") != 0 && strcmp(a, "--flash-attn") != 0)
        return -1;
    return next != NULL && listed(vals, next);
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    struct MHD_Daemon *d;
    struct sockaddr_in addr;
    json_error_t jerr;
    sigset_t set;
    int i, sig;

    clock_gettime(CLOCK_MONOTONIC, &started);
    logf_ = stderr;
    api_key = getenv("LLAMA_API_KEY");
    for (i = 1; i < argc; i++) {
        char norm[64];
        const char *a = argv[i];
        if (strncmp(a, "--", 2) == 0 && strlen(a) < sizeof norm) {
            /* upstream reads --ctx_size as --ctx-size */
            for (size_t k = 0; k <= strlen(a); k++)
                norm[k] = a[k] == '_' ? '-' : a[k];
            a = norm;
        }
        if (strcmp(a, "--version") == 0) {
            fprintf(stderr,
                    "version: 1 (fa4e0001)\nbuilt with cc for "
                    "x86_64-linux-gnu (graveyard fake-llama-server)\n");
            return 0;
        }
        if (strcmp(a, "--no-context-shift") == 0)
            ctx_shift = 0;
        if (strcmp(a, "--jinja") == 0 || strcmp(a, "--no-jinja") == 0) {
            jinja_arg = strcmp(a, "--jinja") == 0;
            continue;
        }
        if (strcmp(a, "-kvu") == 0 || strcmp(a, "--kv-unified") == 0)
            kv_unified = 1;
        if (listed(switches, a))
            continue;
        if (fa_value(a, i + 1 < argc ? argv[i + 1] : NULL) >= 0) {
            i += fa_value(a, i + 1 < argc ? argv[i + 1] : NULL);
            continue;
        }
        if (!listed(with_value, a))
            die("error: invalid argument: %s", a);
        if (i + 1 >= argc)
            die("error: expected value for argument: %s", a);
        if (!strcmp(a, "-m") || !strcmp(a, "--model"))
            path = model_path = argv[i + 1];
        else if (!strcmp(a, "--api-key"))
            api_key = argv[i + 1];
        else if (!strcmp(a, "--port"))
            port = atoi(argv[i + 1]);
        else if (!strcmp(a, "--host"))
            host = argv[i + 1];
        else if (!strcmp(a, "-md") || !strcmp(a, "--model-draft") ||
                 !strcmp(a, "--spec-draft-model"))
            draft_model = argv[i + 1];
        else
            ctx_flag(a, argv[i + 1]);
        i++;
    }
    if (path == NULL)
        die("error: no model given (-m)");
    {
        /* a GGUF the fake tools wrote (fakegguf.h) holds its script in
         * fake.script; any other file is the script itself */
        size_t len = 0;
        unsigned char *raw = fg_slurp(path, &len);
        model_bytes = len > 0 ? (long)len : 1;
        if (raw != NULL && len >= 4 && memcmp(raw, "GGUF", 4) == 0) {
            char *script = fg_get(raw, len, "fake.script", NULL);
            model = script ? json_loads(script, 0, &jerr) : NULL;
            if (script == NULL)
                snprintf(jerr.text, sizeof jerr.text,
                         "a GGUF without fake.script");
            free(script);
        } else {
            model = json_load_file(path, 0, &jerr);
        }
        free(raw);
    }
    if (!json_is_object(model) ||
        !json_is_integer(json_object_get(model, "fake_llama_server")))
        die("llama_model_load: error loading model: '%s' is not a fake "
            "model file: %s",
            path, model ? "no \"fake_llama_server\" key" : jerr.text);
    if (json_is_true(json_object_get(model, "ik")))
        logf_ = stdout;
    if (n_ctx < 0 && getenv("LLAMA_ARG_CTX_SIZE") != NULL)
        n_ctx = ctx_value("LLAMA_ARG_CTX_SIZE", getenv("LLAMA_ARG_CTX_SIZE"));
    if (n_ctx < 0)
        n_ctx = 4096; /* upstream's default */
    if (n_ctx == 0)   /* "0 = loaded from model" */
        n_ctx = mint("n_ctx_train", 32768);
    setvbuf(logf_, NULL, _IOLBF, 0);
    fprintf(stderr, "llama_model_loader: loaded meta data from %s\n", path);
    /* so tests can see the command line and the GPU a server was given */
    fputs("fake: args:", stderr);
    for (i = 1; i < argc; i++)
        fprintf(stderr, " %s", argv[i]);
    fputc('\n', stderr);
    fprintf(stderr, "fake: CUDA_VISIBLE_DEVICES=%s\n",
            getenv("CUDA_VISIBLE_DEVICES") ? getenv("CUDA_VISIBLE_DEVICES")
                                           : "(unset)");
    /* what it inherited: the tests check a server holds no descriptor of
     * graveyard's and none of its variables */
    {
        DIR *dir = opendir("/proc/self/fd");
        struct dirent *e;
        int fds[64], nfds = 0, me = dir ? dirfd(dir) : -1;
        fputs("fake: fds:", stderr);
        while (dir && (e = readdir(dir)) != NULL)
            if (e->d_name[0] != '.' && atoi(e->d_name) != me && nfds < 64)
                fds[nfds++] = atoi(e->d_name);
        for (int a = 0; a < nfds; a++) /* sorted, for the tests */
            for (int b2 = a + 1; b2 < nfds; b2++)
                if (fds[b2] < fds[a]) {
                    int t = fds[a];
                    fds[a] = fds[b2];
                    fds[b2] = t;
                }
        for (int a = 0; a < nfds; a++)
            fprintf(stderr, " %d", fds[a]);
        fputc('\n', stderr);
        if (dir)
            closedir(dir);
        for (char **v = environ; *v; v++)
            if (strncmp(*v, "GRAVEYARD_", 10) == 0)
                fprintf(stderr, "fake: env %s\n", *v);
    }
    if (json_is_string(json_object_get(model, "fail_start")))
        die("%s", json_string_value(json_object_get(model, "fail_start")));
    gpu_register(mint("gpu_mib", 1639));
    fprintf(stderr, "fake: n_ctx %ld\n", n_ctx);
    fprintf(stderr, "load_tensors: offloaded 36/36 layers to GPU\n"
                    "load_tensors:        CUDA0 model buffer size =  "
                    "1639.00 MiB\n");
    if (json_is_string(json_object_get(model, "fail_bind_once"))) {
        const char *mark =
            json_string_value(json_object_get(model, "fail_bind_once"));
        FILE *m = fopen(mark, "r");
        if (m == NULL && (m = fopen(mark, "w")) != NULL) {
            fclose(m);
            die("main: couldn't bind HTTP server socket, hostname: %s, "
                "port: %d",
                host, port);
        }
        if (m != NULL)
            fclose(m);
    }
    if (strcmp(host, "127.0.0.1") != 0)
        die("fake-llama-server: only 127.0.0.1 is served, not '%s'", host);
    /* block the signals before MHD starts its threads, so that sigwait
     * below is the one place they arrive */
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigprocmask(SIG_BLOCK, &set, NULL);
    memset(&addr, 0, sizeof(addr));
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION,
        (uint16_t)port, NULL, NULL, handler, NULL, MHD_OPTION_SOCK_ADDR,
        (struct sockaddr *)&addr, MHD_OPTION_NOTIFY_COMPLETED, done_cb, NULL,
        MHD_OPTION_END);
    if (d == NULL)
        die("main: couldn't bind HTTP server socket, hostname: %s, port: %d",
            host, port);
    fprintf(logf_,
            "main: server is listening on http://%s:%d - starting "
            "the main loop\n",
            host, port);
    sigwait(&set, &sig);
    /* like the real server, go at once: a connection stuck in a "hang"
     * fault would keep MHD_stop_daemon waiting */
    fflush(NULL);
    gpu_unregister();
    _exit(0);
}
