/*
 * files.h - how graveyard opens the files it owns.
 *
 * A run folder may sit on a shared disk, and whoever can write into it can
 * plant a symbolic link where graveyard's own file should be (rows/R.jsonl
 * pointing at somebody's notes, locks/R.lock at a config file). graveyard
 * never follows one there: its files are opened with O_NOFOLLOW, its
 * folders must be real folders, and a link in their place is an error that
 * names it. The run folder itself may be a link (a user's choice of disk);
 * what graveyard creates inside it may not.
 *
 * Errors are worded once, here: a full disk says "disk full", and tells
 * the caller to exit as a failure that resumes (1), not as bad input (2).
 */
#ifndef FILES_H
#define FILES_H

#include <fcntl.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/*
 * open(path, flags | O_NOFOLLOW | O_CLOEXEC, mode), never blocking, and
 * only a plain file (files_open_read below). Returns the fd, or -1 with
 * "cannot open 'path': ..." in msg (a link: "... is a symbolic link;
 * graveyard does not write through links"; a FIFO or a device: "'path':
 * not a regular file").
 */
int files_open(const char *path, int flags, int mode, char *msg,
               size_t msgsize);

/*
 * Every file graveyard reads, a user's (model, question file, config,
 * checkpoint shard) or the run folder's, is opened here: open(2) with
 * O_NONBLOCK, so that a FIFO or a device put where a file goes cannot
 * hold the open forever, then fstat on the open file, and anything but a
 * plain file refused ("'path': not a regular file", errno EINVAL, which
 * files_exit_code calls bad input). files_open above does the same for
 * graveyard's own files. nofollow: O_NOFOLLOW too (a run-folder file).
 * Returns the fd (blocking again) or -1 with the message and errno set.
 */
int files_open_read(const char *path, int nofollow, char *msg, size_t msgsize);

/* The same as a stdio stream to read, or NULL with the message. */
FILE *files_fopen_read(const char *path, int nofollow, char *msg,
                       size_t msgsize);

/* json_load_file through files_open_read: NULL with err filled as jansson
 * fills it (source the path; line -1 and the bare reason in text when the
 * file could not be opened: "not a regular file", "No such file..."). */
json_t *files_json_load(const char *path, int nofollow, size_t flags,
                        json_error_t *err);

/* The folder path, made if missing (as mkdir -p, 0755), and refused when
 * it is not a folder, or a link unless link_ok (the run folder itself may
 * be one; the folders graveyard makes inside it may not). Returns 0 or -1
 * with a message and errno set. */
int files_mkdir(const char *path, int link_ok, char *msg, size_t msgsize);

/* 0 when path is absent or a plain file, -1 with a message when it is a
 * link or anything else: for a file about to be replaced whole. */
int files_check_target(const char *path, char *msg, size_t msgsize);

/* fsync the folder that holds path, so that a rename into it is durable.
 * 0 or -1 (errno set). */
int files_sync_dir(const char *path);

/* The one message for a path past the cap (RUNDIR_PATH_MAX, util.h's
 * BUF_PATH_MAX): "path too long (over 4199 bytes): 'START...'", its
 * first 200 bytes named; errno is set to ENAMETOOLONG. A path past it is
 * refused, never cut short: a cut path names another file. */
void files_too_long(const char *path, char *msg, size_t msgsize);

/* RUNDIR/locks/files.lock, held while the shared files change: the others
 * hold it for milliseconds, so it is tried, never waited for on a loop (a
 * signal must still stop us at once). 0 with *fd locked (close it to
 * unlock); 1 when another process holds it (try again later); -1 when it
 * cannot be opened (errno set, for files_exit_code), -2 when it cannot be
 * locked; both with a message naming the file. */
int files_try_lock(const char *rundir, int *fd, char *msg, size_t msgsize);

/* strerror, but "disk full" for ENOSPC and EDQUOT. */
const char *files_strerror(int e);

/* graveyard's exit statuses (cli.h) for a failed file operation: a
 * failure to resume later, or bad input. */
enum { FILES_RESUMABLE = 1, FILES_BAD_INPUT = 2 };

/* The exit status for a failed file operation: FILES_RESUMABLE for a full
 * disk or an I/O error, else FILES_BAD_INPUT. */
int files_exit_code(int e);

#endif
