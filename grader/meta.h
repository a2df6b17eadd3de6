/*
 * meta.h - what is known about a rung besides its rows: file bytes,
 * sha256, GPU memory and name, for the bury lines and the reports' % of
 * bytes and speed. The grader reads no file: the run folder's module
 * fills this (rundir/meta.h). A number nobody knows is -1 (printed as
 * null); a string nobody knows is "".
 */
#ifndef GRADER_META_H
#define GRADER_META_H

/* The GPU's energy over the rung's answering time, integrated from its
 * power samples (cost.h, grader_power_integrate). samples 0: no reading
 * (no nvidia-smi, or none that answered), and the rest unknown. */
struct grader_power {
    long long samples;  /* readings in the file */
    double joules;      /* over the answering time, -1 unknown */
    double seconds;     /* the answering time the file covers */
    double unsampled_s; /* of it, in segments without a reading */
};

struct grader_meta {
    long long bytes;
    long long gpu_mib_loaded;
    long long gpu_mib_before;
    char sha256[65];    /* lowercase hex, or "" */
    char gpu_name[128]; /* nvidia-smi's name for the rung's GPU, or "" */
    struct grader_power power; /* rows/<RUNG>.power integrated, or 0s */
    int unpinned;              /* a served model: its file and build are the
                                  server's word (.done "pinned": false) */
};

#endif
