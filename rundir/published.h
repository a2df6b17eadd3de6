/*
 * published.h - what of a run folder graveyard publish may put in a
 * bundle (docs/publish.md): the run folder's own files, seen as they may
 * leave the machine. The manifest with only what the figures need (no
 * server argument, argv or environment: their values may hold secrets;
 * every path cut to its file name), ladder.tsv read by ladderfile.h's one
 * reader and written again with each file by its name, a .done record
 * with every URL in its strings cut, and the names of a rung's files a
 * bundle holds. Pure: the caller reads the bytes (files.h) and writes the
 * bundle.
 */
#ifndef RUNDIR_PUBLISHED_H
#define RUNDIR_PUBLISHED_H

#include <jansson.h>
#include <stddef.h>

/* The most bytes one published file may hold (a bundle's entry cap). */
#define PUBLISHED_MAX (256u << 20)

/* manifest.json's object m as it may be published, JSON (indent 2,
 * sorted keys): new, free with free(); NULL out of memory. */
char *published_manifest(const json_t *m);

/* ladder.tsv's bytes p[0..n) (name for the messages) parsed by
 * ladderfile_parse and written again with each file by its name: new
 * (free with free()), its length in *out_n; empty stays empty. NULL with
 * msg: a line the one reader refuses ("NAME:LINE: problem"), or out of
 * memory. */
char *published_ladder_tsv(const char *p, size_t n, const char *name,
                           size_t *out_n, char *msg, size_t msgsize);

/* A .done record p[0..n) as published: each URL (a served rung's address)
 * in its strings as "<endpoint>", compact, its keys in their order. New
 * (free with free()), its length in *out_n; NULL when it is not a JSON
 * object, or out of memory. */
char *published_done(const char *p, size_t n, size_t *out_n);

/* The names under the run folder of rung's files a bundle holds, in the
 * order it gathers them: its rows (needed: the rest may be absent),
 * .done (done: published_done's to rewrite), .probs, .power, and the
 * repeat's rows. Returns how many (PUBLISHED_RUNG_FILES), or 0 when a
 * name would not fit. */
#define PUBLISHED_RUNG_FILES 5
struct published_file {
    char name[128];
    int needed;
    int done;
};
size_t published_rung_files(const char *rung,
                            struct published_file files[PUBLISHED_RUNG_FILES]);

#endif
