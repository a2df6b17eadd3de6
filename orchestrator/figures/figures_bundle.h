/*
 * figures_bundle.h - what figures_bundle_write.c (publish's bundle) and
 * figures_verify.c (verify BUNDLE) share, in figures_bundle.c: a bundle's
 * files in memory, read, gathered, staged and rendered the same way on
 * both sides. Not for other modules: figures.h is the interface.
 */
#ifndef FIGURES_BUNDLE_H
#define FIGURES_BUNDLE_H

#include <jansson.h>
#include <stddef.h>

#include "figures_int.h"

#define BUNDLE_FILES 1024
/* The top folder of a bundle, and of its stage (figures_stage.c): the
 * name the report gives the run folder, on both sides. */
#define BUNDLE_TOP "bundle"
/* the bundle graveyard publish writes into its folder */
#define BUNDLE_NAME "bundle.tar.gz"
/* figures__bundle_render's answers besides 0, each after a line on
 * stderr: the staged rows cannot be graded (for verify, a changed
 * bundle), or a failure of ours (out of memory, a path past its cap:
 * never taken for a changed bundle). */
#define BUNDLE_REFUSED 1
#define BUNDLE_OURS    2

struct bfile {
    char name[100]; /* relative to the top folder */
    char *p;
    size_t n;
    int output;  /* rendered, not staged */
    size_t line; /* its SHA256SUMS line, once checked */
};

struct bundle {
    struct bfile f[BUNDLE_FILES];
    size_t n;
    size_t twice; /* archive entries met a second time (verify) */
    struct figures__stage stage; /* the folder rendered from */
};

/* Every file of b freed. */
void figures__bundle_release(struct bundle *b);
/* path's bytes into *p, at most TARBALL_ENTRY_MAX, through the one
 * checked opener (files_open_read; nofollow: no link either). 0, 1
 * absent, -1 with msg naming the file. */
int figures__bundle_read(const char *path, int nofollow, char **p, size_t *n,
                         char *msg, size_t msgsize);
/* p[0..n) taken into b as name (owned now; output 1: rendered). 0, or -1
 * (a name a bundle cannot hold, or too many files: p freed). */
int figures__bundle_take(struct bundle *b, const char *name, char *p, size_t n,
                         int output);
/* ROOT/rel into b as rel, read as above with no link on the way (absent:
 * skipped unless needed). 0, or -1 with msg. */
int figures__bundle_gather_one(struct bundle *b, const char *root,
                               const char *rel, int needed, char *msg,
                               size_t msgsize);
/* Every input of b written under a new stage in parent (figures_stage.c,
 * PREFIX.PID.XXXXXX). 0, or -1 with msg. */
int figures__bundle_stage(struct bundle *b, const char *parent,
                          const char *prefix, char *msg, size_t msgsize);
/* The outputs rendered into b (output 1) from the stage, read by its
 * path and named "bundle" (BUNDLE_TOP) in what is rendered, names and
 * choices from publish.json's j; the working folder is never changed. 0,
 * BUNDLE_REFUSED or BUNDLE_OURS after a line on stderr. */
int figures__bundle_render(struct bundle *b, const json_t *j, const char *cmd);
/* path (a tar.gz or an unpacked folder) read into b and checked exactly
 * as graveyard verify checks it (figures_verify.c), its lines printed as
 * verify prints them, errors naming cmd; b keeps the files (output 0 the
 * bundle's, 1 what its rows render) for a caller that goes on (merge);
 * the stage is removed. EXIT_OK, EXIT_FAILED (it differs from its rows
 * or hashes) or EXIT_USAGE (not a bundle, or our own failure). */
int figures__verify_into(struct bundle *b, const char *path, const char *cmd);

#endif
