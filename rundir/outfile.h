/*
 * outfile.h - write a file whole or not at all.
 *
 * Every file graveyard writes goes through here: the bytes go to a
 * temporary file beside the target, are synced, and the temporary file is
 * renamed over the target, then the folder is synced. A crash leaves the
 * old file or the new one, never half of one. Writes are counted for the
 * run's bytes-written report (STYLE.md, the log-writes lesson).
 */
#ifndef OUTFILE_H
#define OUTFILE_H

#include <stddef.h>

/*
 * Replace path with data[0..len). Returns 0, or -1 with a message naming
 * the file in msg (msgsize bytes) and no file left behind.
 */
int outfile_write(const char *path, const char *data, size_t len, char *msg,
                  size_t msgsize);

/* Bytes written through outfile_write in this process. */
unsigned long long outfile_bytes_written(void);

#endif
