/*
 * config_request.c - a config's request: the prompt, the task, thinking,
 * "request" and the keys graveyard owns in it, and the reference rung.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../grader/grader.h"
#include "../base/cli.h"
#include "config_int.h"
#include "taskfile.h"

int config_check_request(const json_t *extra, const char *where, char *msg,
                         size_t msgsize)
{
    static const char question[] =
        "graveyard asks each question itself (the question file, the "
        "task, \"prompt\" or --prompt)";
    static const char cap[] =
        "the token cap is \"request.max_tokens\" (--max-tokens), which "
        "graveyard records and counts replies at the cap by";
    static const struct {
        const char *key, *why;
    } owned[] = {
        {"messages", question},
        {"prompt", question},
        {"stream", "graveyard reads every reply as it streams"},
        {"n", "graveyard reads one choice per question"},
        {"max_tokens", cap},
        {"n_predict", cap},
        {"max_completion_tokens", cap},
    };
    const json_t *kw = json_object_get(extra, "chat_template_kwargs");
    size_t i;

    for (i = 0; i < sizeof(owned) / sizeof(owned[0]); i++)
        if (json_object_get(extra, owned[i].key) != NULL) {
            snprintf(msg, msgsize, "%s%s' is graveyard's to set: %s", where,
                     owned[i].key, owned[i].why);
            return -1;
        }
    if (kw != NULL && !json_is_object(kw)) {
        snprintf(msg, msgsize, "%schat_template_kwargs' must be an object",
                 where);
        return -1;
    }
    if (json_object_get(kw, "enable_thinking") != NULL) {
        snprintf(msg, msgsize,
                 "%schat_template_kwargs.enable_thinking' is graveyard's to "
                 "set: thinking is \"thinking\" (--think), recorded as such",
                 where);
        return -1;
    }
    return 0;
}

void config_request_merge(json_t *body, const json_t *extra)
{
    json_t *kw = json_object_get(extra, "chat_template_kwargs");
    json_t *ours =
        json_deep_copy(json_object_get(body, "chat_template_kwargs"));

    if (json_object_update(body, (json_t *)extra) != 0)
        util_oom("a request");
    if (ours == NULL)
        return;
    if ((json_is_object(kw) && json_object_update(ours, kw) != 0) ||
        json_object_set_new(body, "chat_template_kwargs", ours) != 0)
        util_oom("a request");
}

/* The prompt, thinking, ctx, limit, "request" and the reference rung.
 * 0, or -1 with the message. */
int config_load_request(struct config_ctx *x, json_t *root, struct config *c)
{
    static const char *const request[] = {"max_tokens",  "extra",
                                          "timeout_s",   "idle_timeout_s",
                                          "abort_loops", NULL};
    char where[4200];
    json_t *v;
    size_t i;

    if (config_str(x, root, "prompt", "", 0, &c->prompt) ||
        config_str(x, root, "task", "", 0, &c->task))
        return -1;
    if (c->task != NULL) { /* checked whole now; each run loads its own */
        char why[900];
        struct grader_task *t = taskfile_load(c->task, why, sizeof(why));
        if (t == NULL) {
            snprintf(x->msg, x->msgsize, "%s: 'task': %s", x->path, why);
            return -1;
        }
        grader_task_free(t);
    }
    if (c->prompt && strstr(c->prompt, "{question}") == NULL) {
        snprintf(x->msg, x->msgsize,
                 "%s: 'prompt' must say where the question goes with "
                 "{question}",
                 x->path);
        return -1;
    }
    v = json_object_get(root, "thinking");
    if (v != NULL && !json_is_boolean(v)) {
        snprintf(x->msg, x->msgsize, "%s: 'thinking' must be true or false",
                 x->path);
        return -1;
    }
    c->think = json_is_true(v);
    v = json_object_get(root, "repeat_reference");
    if (v != NULL && !json_is_boolean(v)) {
        snprintf(x->msg, x->msgsize,
                 "%s: 'repeat_reference' must be true or false", x->path);
        return -1;
    }
    c->repeat_reference = json_is_true(v);
    /* max_tokens and ctx stay 0 when not given: their defaults are
     * run_opts_defaults' (runner.h), the one set for run and ladder */
    if (config_integer(x, root, "ctx", "", 64, CONFIG_CTX_MAX, &c->ctx) ||
        config_integer(x, root, "limit", "", 0, CONFIG_LIMIT_MAX, &c->limit) ||
        config_integer(x, root, "logprobs", "", 1, GRADER_PROBS_TOPN_MAX,
                       &c->logprobs))
        return -1;
    v = json_object_get(root, "request");
    if (v != NULL &&
        (!json_is_object(v) || config_known_keys(x, v, "request", request) ||
         config_integer(x, v, "max_tokens", "request", 1, CONFIG_TOKENS_MAX,
                        &c->max_tokens) ||
         config_integer(x, v, "timeout_s", "request", 1, CONFIG_SECONDS_MAX,
                        &c->timeout_s) ||
         config_integer(x, v, "idle_timeout_s", "request", 1,
                        CONFIG_SECONDS_MAX, &c->idle_s)))
        return -1;
    if (json_object_get(v, "abort_loops") != NULL &&
        !json_is_boolean(json_object_get(v, "abort_loops"))) {
        snprintf(x->msg, x->msgsize,
                 "%s: 'request.abort_loops' must be true or false", x->path);
        return -1;
    }
    c->abort_loops = json_is_true(json_object_get(v, "abort_loops"));
    if (json_object_get(v, "extra") != NULL) {
        c->request = json_incref(json_object_get(v, "extra"));
        if (!json_is_object(c->request)) {
            snprintf(x->msg, x->msgsize,
                     "%s: 'request.extra' must be an object", x->path);
            return -1;
        }
        snprintf(where, sizeof(where), "%s: 'request.extra.", x->path);
        if (config_check_request(c->request, where, x->msg, x->msgsize))
            return -1;
    }
    if (config_str(x, root, "reference", "", 0, &c->reference))
        return -1;
    if (c->reference == NULL)
        c->reference = xstrdup(c->rungs[0].name);
    for (i = 0; i < c->nrungs && strcmp(c->rungs[i].name, c->reference); i++)
        ;
    if (i == c->nrungs) {
        snprintf(x->msg, x->msgsize,
                 "%s: 'reference' '%s' is not one of the rungs", x->path,
                 c->reference);
        return -1;
    }
    return 0;
}
