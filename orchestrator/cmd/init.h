/*
 * init.h - graveyard init's config writer, shared by `graveyard init DIR`
 * and `graveyard ladder DIR` (a folder where a config goes: init, then
 * the ladder). cmd_init.c owns it; input/ladderinit.h reads the folder.
 */
#ifndef INIT_H
#define INIT_H

#include <stddef.h>

struct init_args {
    const char *dir, *llama, *out, *questions;
    const char *lengths; /* --lengths: "lengths" in place of "questions" */
    int force;
};

/* Read a->dir, write its config (a->out, or DIRNAME.json here),
 * print its rungs and the command; the config's path into written (size
 * bytes) when not NULL. An exit status; errors said on stderr. */
int init_write(const struct init_args *a, char *written, size_t size);

/* The config init writes for dir when --out is not given. */
void init_default_out(const char *dir, char *out, size_t size);

#endif
