/*
 * long.h - a config's long items (cmd_long.c): what graveyard ladder asks
 * of `graveyard long` before its first rung, so that a config's "lengths"
 * is one command for the night (docs/longctx.md, "A ladder of lengths").
 */
#ifndef CMD_LONG_H
#define CMD_LONG_H

#include "../input/config.h"

/*
 * For a config with "lengths" (else 0 at once): its question file, the
 * run folder's long.jsonl (c->questions). There already, it must hold the
 * items the config asks for, in order (a config changed since is
 * refused, naming the line). Absent, every rung's context and trained
 * context are checked against the longest length, then the items are
 * made, counted in a server of the smallest model file of the ladder
 * started for it (llama: the --llama override, or NULL) and stopped, and
 * written whole. 0, or the exit status after one line.
 */
int long_for_ladder(const char *cfg, const struct config *c,
                    const char *llama);

#endif
