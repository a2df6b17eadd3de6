/*
 * meta.h - what is known about a rung besides its rows: file bytes,
 * sha256, GPU memory and name, for the bury lines and the reports' % of
 * bytes and speed. The grader reads no file: the run folder's module
 * fills this (rundir/meta.h). A number nobody knows is -1 (printed as
 * null); a string nobody knows is "".
 */
#ifndef GRADER_META_H
#define GRADER_META_H

struct grader_meta {
    long long bytes;
    long long gpu_mib_loaded;
    long long gpu_mib_before;
    char sha256[65];    /* lowercase hex, or "" */
    char gpu_name[128]; /* nvidia-smi's name for the rung's GPU, or "" */
    int unpinned;       /* a served model: its file and build are the
                           server's word (.done "pinned": false) */
};

#endif
