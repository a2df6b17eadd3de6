/*
 * ladderinit.h - what a folder of GGUF files makes as a ladder
 * (graveyard init, docs/init.md): each file read by its header (weights/
 * recipe.h: bits per weight, general.file_type, general.name, a split's
 * parts), ordered by bits per weight, the highest the reference, one
 * file of each type in the chain and the others of that type beside it
 * as side rungs, and the config that runs them, with a comment per rung.
 *
 * init_scan reads the folder; init_order is pure (the tests give it
 * files by hand); init_config writes nothing, it makes the JSON.
 */
#ifndef LADDERINIT_H
#define LADDERINIT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h" /* CONFIG_MAX_RUNGS */

struct init_file {
    char path[4096];   /* the file (a split's first part) */
    char type[32];     /* "Q4_K_M": general.file_type's name, or the file
                          name's type word; "" when neither says */
    char general[128]; /* general.name, printable, or "" */
    char name[65];     /* its rung name (init_order) */
    double bpw;        /* bits per weight over its tensors */
    uint64_t bytes;    /* on disk, every part of a split */
    unsigned parts;    /* a split's part count, or 1 */
    int side;          /* a side rung (init_order) */
};

struct init_plan {
    struct init_file f[CONFIG_MAX_RUNGS];
    size_t n;
    size_t ref; /* the reference's index, after init_order */
};

/*
 * Every *.gguf in dir (a split's other parts, -0000N-of-0000M with N > 1,
 * go with its first): read and added to p. A file that is not a GGUF, a
 * GGUF without tensors, a split with a part missing, a link or anything
 * but a regular file, no GGUF at all, or more than CONFIG_MAX_RUNGS of
 * them: -1 with one line naming the file (or the folder) in msg.
 */
int init_scan(const char *dir, struct init_plan *p, char *msg, size_t msgsize);

/*
 * Order p: bits per weight, highest first (ties: larger file first, then
 * by path); the first is the reference. Each file gets a rung name: its
 * type when that type is the file's alone, else the file's name less what
 * every file's name shares (a prefix such as "gemma-4-e2b-it-"), made a
 * usable rung name; names made unique. Of the files of one type, the one
 * whose general.name is the reference's (else the first in path order)
 * stays in the chain and the others become side rungs. 0, or -1 with msg
 * when no usable name can be made.
 */
int init_order(struct init_plan *p, char *msg, size_t msgsize);

/*
 * The config for p (ordered): name, questions (a path as given), run_dir
 * (as given), the reference, rungs and side_rungs in order, each with a
 * "_comment" saying its type, bits per weight and size, and the server
 * binary (as given). A new object.
 */
json_t *init_config(const struct init_plan *p, const char *name,
                    const char *questions, const char *run_dir,
                    const char *binary, const char *from);

/* general.file_type's name ("Q4_K_M"), or NULL for a number neither
 * lineage's llama_ftype has (llama.h). */
const char *init_ftype_name(long ftype);

#endif
