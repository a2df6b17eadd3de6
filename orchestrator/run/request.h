/*
 * request.h - what a rung asks of its server, packed in one place: the
 * body of each /v1/chat/completions or /v1/completions request (ask.c) and the
 * manifest's record of the same settings (record.c), so the two cannot drift
 * apart.
 *
 * Every request is greedy and reproducible: temperature 0, seed 0,
 * cache_prompt false, the rung's max_tokens, thinking on or off in
 * chat_template_kwargs, the task's stop strings, then the config's
 * request.extra over it (config_request_merge). The manifest keeps the
 * same settings with the extra whole, and how the rung asked (in_flight,
 * abort_loops), so a resume under other settings is refused.
 */
#ifndef REQUEST_H
#define REQUEST_H

#include <jansson.h>

#include "../../rundir/manifest.h"
#include "../input/questions.h"
#include "../server/runopts.h"

/* The path asked: "/v1/completions" when o's task asks so
 * (grader_task_completions), else "/v1/chat/completions". */
const char *request_path(const struct run_opts *o);

/* The request body for question q as sent (new: free()): a chat task's
 * {"messages": [the prompt as the user's]}, a completions task's
 * {"prompt": the prompt} (a code item's HumanEval prompt as it is, not
 * the chat text), then the same settings for both. */
char *request_body(const struct run_opts *o, const struct question *q);

/* What every request is asked with, as the manifest records it
 * (rundir/manifest.h writes and reads the record): one struct for the
 * body and the record, so the two cannot drift apart. r->extra is
 * borrowed from o. */
void request_record(const struct run_opts *o, struct manifest_request *r);

/* The manifest's "request": request_record's struct as rundir/manifest.h
 * writes it (new reference). */
json_t *request_settings(const struct run_opts *o);

#endif
