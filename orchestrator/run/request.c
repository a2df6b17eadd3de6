/*
 * request.c - what a rung asks of its server (request.h).
 */
#include "request.h"

#include <stdlib.h>

#include "../../grader/grader.h"
#include "../../rundir/manifest.h"
#include "../../util/util.h"
#include "../input/codeitem.h"
#include "../input/config.h"

static void set(json_t *o, const char *key, json_t *v)
{
    if (v == NULL || json_object_set_new(o, key, v) != 0)
        util_oom("a request");
}

/* Whether o's task asks by /v1/completions. */
static int completions(const struct run_opts *o)
{
    return o->task != NULL && grader_task_completions(o->task);
}

void request_record(const struct run_opts *o, struct manifest_request *r)
{
    manifest_request_init(r, o->max_tokens, o->think);
    r->extra = o->request;
    r->in_flight = o->parallel;
    r->abort_loops = o->abort_loops;
    r->logprobs = o->logprobs;
    r->completions = completions(o);
}

const char *request_path(const struct run_opts *o)
{
    return completions(o) ? "/v1/completions" : "/v1/chat/completions";
}

/* The settings of every request, into o in their order: greedy decoding,
 * no cached prompt, the token cap (the chat API's names). */
static void greedy(json_t *o, const struct run_opts *opts)
{
    struct manifest_request r;

    request_record(opts, &r);
    set(o, "temperature", json_integer(r.temperature));
    set(o, "seed", json_integer(r.seed));
    set(o, "cache_prompt", json_boolean(r.cache_prompt));
    set(o, "max_tokens", json_integer((json_int_t)r.max_tokens));
}

/* The body's start: the prompt as the user's message (chat), or as the
 * text continued (completions); streamed either way. */
static json_t *asked(const struct run_opts *o, const struct question *q)
{
    const struct grader_task *task = o->task;
    struct question raw;
    char *prompt;
    json_t *body;

    /* a completion continues a code item's prompt as the file gave it
     * (HumanEval's), not the chat task's fenced text (docs/code.md) */
    if (completions(o) && q->code != NULL && q->code->prompt != NULL) {
        raw = *q;
        raw.text = q->code->prompt;
        q = &raw;
    }
    prompt = questions_prompt_for(
        o->prompt ? o->prompt : grader_task_prompt(task), q);
    body = completions(o)
               ? json_pack("{s:s,s:b}", "prompt", prompt, "stream", 1)
               : json_pack("{s:[{s:s,s:s}],s:b}", "messages", "role", "user",
                           "content", prompt, "stream", 1);
    free(prompt);
    if (body == NULL)
        util_oom("a request");
    return body;
}

char *request_body(const struct run_opts *o, const struct question *q)
{
    const struct grader_task *task = o->task;
    json_t *body = asked(o, q);
    char *text;

    greedy(body, o);
    /* a chat template's: a completion has no template to tell */
    if (!completions(o))
        set(body, "chat_template_kwargs",
            json_pack("{s:b}", "enable_thinking", o->think));
    /* the task's stop strings (lm-eval's "until"); a request's own
     * "stop" below wins */
    if (grader_task_nstops(task) > 0) {
        json_t *stop = json_array();
        for (size_t i = 0; stop != NULL && i < grader_task_nstops(task); i++)
            if (json_array_append_new(
                    stop, json_string(grader_task_stop(task, i))) != 0)
                util_oom("a request");
        set(body, "stop", stop);
    }
    if (o->request != NULL)
        config_request_merge(body, o->request);
    /* after the merge: extra may carry these (they were allowed before
     * "logprobs" was graveyard's), but the probs file keeps what the
     * manifest says was asked */
    if (o->logprobs > 0) {
        set(body, "logprobs", json_true());
        set(body, "top_logprobs", json_integer(o->logprobs));
    }
    /* a tool item's functions (docs/toolcalls.md), as the question file
     * gave them; the item's own over any extra's */
    if (q->tools != NULL)
        set(body, "tools", json_loads(q->tools, 0, NULL));
    if (q->tool_choice != NULL)
        set(body, "tool_choice",
            json_loads(q->tool_choice, JSON_DECODE_ANY, NULL));
    /* parallel calls allowed, as OpenAI's default (BFCL's parallel items
     * need it): both lineages default to off, one call at most; an
     * extra's own "parallel_tool_calls" stands */
    if (q->tools != NULL &&
        json_object_get(body, "parallel_tool_calls") == NULL)
        set(body, "parallel_tool_calls", json_true());
    text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    if (text == NULL)
        util_oom("a request");
    return text;
}

json_t *request_settings(const struct run_opts *o)
{
    struct manifest_request r;
    json_t *req;

    request_record(o, &r);
    req = manifest_request_json(&r);
    if (req == NULL)
        util_oom("a manifest");
    return req;
}
