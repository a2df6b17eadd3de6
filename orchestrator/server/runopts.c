/*
 * runopts.c - the options every rung starts from (runopts.h).
 */
#include "runopts.h"

#include <string.h>

void run_opts_defaults(struct run_opts *o, int think)
{
    memset(o, 0, sizeof(*o));
    o->llama = "llama-server";
    o->think = think;
    o->max_tokens = think ? 4096 : 1024;
    o->ctx = think ? 8192 : 4096;
    o->ngl = 99;
    o->health_timeout_s = 600;
    o->idle_s = 120;
    o->grace_ms = 10000;
    o->log_cap = 4u << 20;
}

void run_opts_finish(struct run_opts *o)
{
    /* a CPU-only run of a big model is about 2 tokens a second: a faster
     * server never meets this */
    if (o->request_timeout_s == 0)
        o->request_timeout_s = o->idle_s + (o->max_tokens + 1) / 2;
}
