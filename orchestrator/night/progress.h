/*
 * progress.h - how a rung tells its ladder how far it is: one line of
 * JSON per answered question on the pipe GRAVEYARD_PROGRESS_FD names,
 *   {"done": 12, "total": 250, "right": 11, "tps": 41.3, "sec_per_q": 9.2}
 * written by graveyard run (progress_format) and read by graveyard ladder
 * (progress_take), in this one place. Progress is only a display: a line
 * that does not parse, or one longer than PROGRESS_LINE, is skipped whole
 * (never read as half a line), and never stops a run.
 */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <stddef.h>

#define PROGRESS_LINE 256

struct progress {
    long done, total, right;
    double tps, sec_per_q;
};

/* The line for p (with its newline) into out; returns its length. */
size_t progress_format(const struct progress *p, char *out, size_t size);

/* p as people read it, for the live lines of a ladder and of a run on a
 * terminal: "12/250 answered  11 right  41.3 tok/s  ETA 5m03s" (the ETA
 * is the seconds a question took so far times the questions left), or
 * "starting" before the first answer. */
void progress_show(const struct progress *p, char *out, size_t size);

/* A reader of the pipe's bytes, in any slices. */
struct progress_reader {
    char line[PROGRESS_LINE];
    size_t len;
    int overlong; /* the line being read is too long: skip to its end */
};

/* Take n bytes; every whole line that parses updates *p. Returns how many
 * lines did. */
int progress_take(struct progress_reader *r, const char *s, size_t n,
                  struct progress *p);

#endif
