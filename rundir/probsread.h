/*
 * probsread.h - a rung's probs file (RUNDIR/rows/<RUNG>.probs, grader/
 * probs.h's records), read a record at a time.
 *
 * Opening walks the record heads once (the magic, the length, the id: a
 * few hundred bytes a record) and keeps where each question's record lies;
 * then one record is read at a time (pread), so a reader holds one
 * question's tokens, never a rung's. The records are decoded by the
 * caller (grader_probs_decode): librundir links no grader function.
 *
 * A torn last record (a short head, or a body past the file's end: the
 * writer stopped mid-record) is refused with one line naming the file, as
 * the rows reader refuses a torn row: 'graveyard run' cuts it back when it
 * resumes. So is a second record of one id, and bytes that are no record
 * (a length past the caps among them, at the file's end too: damage,
 * which graveyard run refuses as well). What is torn and what is damaged
 * is probsread_place's to say, for this reader and for the writer's
 * resume (probsfile.c) alike.
 */
#ifndef PROBSREAD_H
#define PROBSREAD_H

#include <stddef.h>
#include <stdint.h>

/* Where one question's record lies. */
struct probsread_rec {
    const char *id; /* into the reader's ids, not NUL-terminated */
    uint8_t id_len;
    uint64_t off;
    uint32_t len; /* the whole record, head included */
};

struct probsread {
    int fd;
    char *path;
    struct probsread_rec *rec; /* n, sorted by id */
    size_t n;
    char *ids;
};

/* What lies at a record's place in a probs file: the one rule of
 * graveyard run, which cuts a torn tail back, and of every reader, which
 * says that it will (probsfile.c, probsread.c). */
enum probsread_place {
    PROBS_WHOLE,     /* a record, whole in length: *size bytes */
    PROBS_TORN,      /* the file ends inside it (a head of under 8 bytes,
                        or a body the file has not all of): a write that
                        stopped mid-record */
    PROBS_NOT_ONE,   /* no magic: not a probs record (damaged) */
    PROBS_PAST_CAPS, /* a length under the smallest body or over the cap:
                        damaged, at the file's end too, since the head's 8
                        bytes of a write that got that far are the length
                        written, and no write of graveyard's has one */
};

/* head: the avail bytes read at the place (all the file has there, when
 * under GRADER_PROBS_HEAD); left: the bytes from the place to the end of
 * the file. Returns an enum probsread_place; *size when PROBS_WHOLE. */
int probsread_place(const unsigned char *head, size_t avail, uint64_t left,
                    size_t *size);

/* The probs file of rung in rundir opened and indexed. 0; 1 when it does
 * not exist (a rung run without logprobs: r closed); -1 with a message
 * naming the file (r closed). */
int probsread_open(struct probsread *r, const char *rundir, const char *rung,
                   char *msg, size_t msgsize);

/* The same for a file named by its path. */
int probsread_open_path(struct probsread *r, const char *path, char *msg,
                        size_t msgsize);

/* The record of question id, or NULL when the file has none. */
const struct probsread_rec *probsread_find(const struct probsread *r,
                                           const char *id, size_t id_len);

/* rec's bytes into *buf (grown as needed, *cap its size; the caller frees
 * it). 0, or -1 with a message naming the file. */
int probsread_load(const struct probsread *r, const struct probsread_rec *rec,
                   unsigned char **buf, size_t *cap, char *msg,
                   size_t msgsize);

void probsread_close(struct probsread *r);

#endif
