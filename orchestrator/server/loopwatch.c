/*
 * loopwatch.c - a looping reply, seen while it streams.
 */
#include "loopwatch.h"

#include <string.h>

void loopwatch_init(struct loopwatch *w)
{
    memset(w, 0, sizeof(*w));
    grader_loop_scratch_init(&w->scratch);
}

void loopwatch_release(struct loopwatch *w)
{
    grader_loop_scratch_release(&w->scratch);
}

void loopwatch_reset(struct loopwatch *w)
{
    memset(w->ring, 0, sizeof(w->ring));
    memset(w->run, 0, sizeof(w->run));
    w->pieces = 0;
}

static uint64_t hash(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;

    while (n--)
        h = (h ^ (unsigned char)*p++) * 0x100000001b3ULL;
    return h;
}

/* The token rule: for each period p, how many pieces in a row equal the
 * one p back; a run of at least max(MIN_SPAN, MIN_REPEATS x p) - p after
 * the first period is a span of that many repeating. */
static int tokens_loop(struct loopwatch *w, uint64_t h)
{
    size_t p, at = w->pieces % LOOPWATCH_MAX_PERIOD;
    int found = 0;

    for (p = 1; p <= LOOPWATCH_MAX_PERIOD && p <= w->pieces; p++) {
        size_t span = LOOPWATCH_MIN_REPEATS * p;
        uint64_t back =
            w->ring[(at + LOOPWATCH_MAX_PERIOD - p) % LOOPWATCH_MAX_PERIOD];
        w->run[p] = back == h ? w->run[p] + 1 : 0;
        if (span < LOOPWATCH_MIN_SPAN)
            span = LOOPWATCH_MIN_SPAN;
        found |= (size_t)w->run[p] + p >= span;
    }
    w->ring[at] = h;
    w->pieces++;
    return found;
}

/* The length of text up to its last line end. */
static size_t whole_lines(const char *text, size_t len)
{
    while (len > 0 && text[len - 1] != '\n')
        len--;
    return len;
}

int loopwatch_piece(struct loopwatch *w, const char *p, size_t n,
                    int in_reasoning, const char *content, size_t clen,
                    const char *reasoning, size_t rlen)
{
    int looped;

    if (n == 0)
        return LOOP_NONE;
    if (tokens_loop(w, hash(p, n)))
        return LOOP_TOKENS;
    if (memchr(p, '\n', n) == NULL)
        return LOOP_NONE;
    /* a line ended: the grader's rule on every whole line so far (a
     * line still coming is not one yet: the piece's own text is cut at
     * its last line end) */
    if (in_reasoning)
        rlen = whole_lines(reasoning, rlen);
    else
        clen = whole_lines(content, clen);
    looped = grader_looped(&w->scratch, content, clen, reasoning, rlen);
    if (looped < 0)
        return -1;
    return looped ? LOOP_LINES : LOOP_NONE;
}

const char *loopwatch_name(int kind)
{
    return kind == LOOP_LINES ? "lines" : kind == LOOP_TOKENS ? "tokens" : "";
}
