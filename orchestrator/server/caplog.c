/*
 * caplog.c - head as it comes, tail in a ring, one cap per rung.
 */
#include "caplog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/cli.h"
#include "../../rundir/files.h"

static void write_all(struct caplog *l, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(l->fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return; /* a full disk loses log bytes, never a run */
        p += k;
        n -= (size_t)k;
        l->size += (unsigned long long)k;
        l->written += (unsigned long long)k;
    }
}

int caplog_open(struct caplog *l, const char *path, size_t cap, char *msg,
                size_t msgsize)
{
    struct stat st;

    memset(l, 0, sizeof(*l));
    l->head_cap = cap / 2 > 0 ? cap / 2 : 1;
    l->fd =
        files_open(path, O_WRONLY | O_CREAT | O_APPEND, 0644, msg, msgsize);
    if (l->fd < 0)
        return -1;
    if (fstat(l->fd, &st) != 0) {
        snprintf(msg, msgsize, "cannot read '%s': %s", path, strerror(errno));
        close(l->fd);
        l->fd = -1;
        return -1;
    }
    l->size = (unsigned long long)st.st_size;
    l->tail = xrealloc(NULL, l->head_cap);
    return 0;
}

void caplog_write(struct caplog *l, const char *s, size_t n)
{
    size_t k;

    if (l->fd < 0)
        return;
    if (l->size < l->head_cap) {
        k = (size_t)(l->head_cap - l->size);
        k = n < k ? n : k;
        write_all(l, s, k);
        s += k;
        n -= k;
    }
    /* past the head: keep a ring of the tail */
    while (n > 0) {
        size_t at = l->tail_pos % l->head_cap;
        k = l->head_cap - at < n ? l->head_cap - at : n;
        if (l->tail_len == l->head_cap)
            l->dropped += k;
        memcpy(l->tail + at, s, k);
        l->tail_pos += k;
        l->tail_len =
            l->tail_len + k > l->head_cap ? l->head_cap : l->tail_len + k;
        s += k;
        n -= k;
    }
}

void caplog_flush(struct caplog *l)
{
    char note[160];
    size_t start, n;

    if (l->fd < 0 || l->tail_len == 0)
        return;
    /* an earlier process's tail: this one replaces it */
    if (l->size > l->head_cap &&
        l->size + l->tail_len > 2 * (unsigned long long)l->head_cap) {
        l->dropped += l->size - l->head_cap;
        if (ftruncate(l->fd, (off_t)l->head_cap) == 0)
            l->size = l->head_cap;
    }
    if (l->dropped > 0) {
        n = (size_t)snprintf(note, sizeof(note),
                             "\n[graveyard: %llu bytes of server output "
                             "dropped here (log cap)]\n",
                             l->dropped);
        write_all(l, note, n);
    }
    start = (l->tail_pos - l->tail_len) % l->head_cap;
    if (start + l->tail_len <= l->head_cap) {
        write_all(l, l->tail + start, l->tail_len);
    } else {
        write_all(l, l->tail + start, l->head_cap - start);
        write_all(l, l->tail, l->tail_len - (l->head_cap - start));
    }
    l->tail_len = 0;
    l->tail_pos = 0;
}

void caplog_close(struct caplog *l)
{
    if (l->fd < 0)
        return;
    caplog_flush(l);
    fsync(l->fd);
    close(l->fd);
    l->fd = -1;
    free(l->tail);
    l->tail = NULL;
}
