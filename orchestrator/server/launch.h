/*
 * launch.h - what a rung's llama-server is started with: a free port on
 * 127.0.0.1, its argv and its environment, built from a run's options
 * (runner.h) and nothing else, so that tests/unit/test_server_launch.c can
 * pin every rule without starting anything.
 *
 * The rules: the server binds 127.0.0.1 always (graveyard's own argv
 * says so; a template without --host gets it added; config.h refuses a
 * template that names another host). graveyard's argv asks for one slot
 * (-np 1), seed 0, the context and -ngl unless "auto". A template's
 * {model} {port} {ngl} {ctx} {seed} {gpu} are expanded; with -ngl auto a
 * "{ngl}" item and the flag before it go. Extra --server-arg items come
 * last. The environment is ours less graveyard's own variables
 * (GRAVEYARD_*: a ladder's pid and pipe are not the server's business),
 * with CUDA_VISIBLE_DEVICES for --gpu unless the template sets it, and
 * the template's variables expanded (one that needs {gpu} when no GPU
 * was given is left out).
 *
 * Vectors are NULL-terminated, every string allocated: launch_free.
 */
#ifndef LAUNCH_H
#define LAUNCH_H

#include "runopts.h"

/* Items a server's argv may hold, the binary and NULL included. */
#define LAUNCH_MAX_ARGV 128

/* A free port on 127.0.0.1, from the kernel; -1 when none. */
int launch_free_port(void);

/* The server's argv for port, the binary first. */
char **launch_argv(const struct run_opts *o, int port);

/* The server's environment, from env (ours: environ). */
char **launch_env(const struct run_opts *o, char *const *env);

void launch_free(char **v);

#endif
