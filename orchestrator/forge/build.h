/*
 * build.h - graveyard build: make the ladder's files from one config
 * (docs/build.md).
 *
 * A rung with "convert" is made from build.checkpoint by the converter
 * (convert_hf_to_gguf.py under build.python); a rung with "quantize" from
 * another rung's file by llama-quantize. Each file is written under a
 * temporary name in its own folder, checked to be a GGUF, synced and
 * renamed: a final path never holds half a file. What was made is
 * recorded in RUN_DIR/ladder.tsv and RUN_DIR/build.json, and a second
 * build of a finished ladder starts no tool and writes nothing.
 *
 * The tools run on the libuv loop from argv arrays, each in its own
 * process group with a parent-death SIGKILL (it dies with graveyard,
 * however graveyard dies), its output in a capped log,
 * RUN_DIR/build/RUNG.log. Independent quantizations run --jobs at a time.
 */
#ifndef BUILD_H
#define BUILD_H

#include <stddef.h>

#include "../input/config.h"

struct build_opts {
    const char *const *only; /* build these (and what they need); NULL all */
    size_t nonly;
    const char *const *force; /* make these again even if they exist */
    size_t nforce;
    long jobs;       /* at once (>= 1) */
    int quiet;       /* no progress lines */
    int wait_lock;   /* another build holds the run folder: wait for it
                        (graveyard ladder), rather than EXIT_BUSY */
    const char *who; /* "build" or "ladder", for messages */
};

/* Whether some rung (of only, when given) has no file but a recipe, or
 * has a file graveyard quantized from a source file that has changed
 * since (build.json against the sha cache): what graveyard ladder asks
 * before it runs. */
int build_needed(const struct config *c, const char *const *only,
                 size_t nonly);

/*
 * Make every missing file. Returns 0; EXIT_USAGE (2) before anything runs
 * for a config or input that cannot work (one line naming the file and
 * key); EXIT_BUSY when another build holds the run folder; EXIT_FAILED
 * when a tool failed or the disk is short (independent rungs are still
 * built); 128 + the signal that stopped it.
 */
int build_ladder(struct config *c, const struct build_opts *o);

/* The recipe text build.json keeps for rung i ("quantize Q4_0 from BF16",
 * "convert bf16"), compared with the config's on the next build.
 * Returns out. */
char *build_recipe(const struct config *c, size_t i, char *out, size_t size);

#endif
