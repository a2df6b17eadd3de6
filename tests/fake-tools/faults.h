/*
 * faults.h - the fake tools' fault modes, chosen per output type by the
 * environment (tests only):
 *
 *   FAKE_TOOL_FAULT="Q4_0:exit1,Q2_K:slow"   (a type, or * for any)
 *
 *   exit1        write half the output, say why, exit 1
 *   hang         write half the output, then never finish
 *   slow         write the output in 50 pieces, FAKE_TOOL_SLOW_MS apart
 *                (default 40 ms)
 *   garbage      write bytes that are not a GGUF, exit 0
 *   ignore_term  SIGTERM does nothing; then as hang
 */
#ifndef FAKE_FAULTS_H
#define FAKE_FAULTS_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* The value for type in the environment variable var, a list of
 * "TYPE:VALUE" (TYPE a type, any case, or * for any), or "". */
static inline const char *fake_env_for(const char *var, const char *type)
{
    static char mode[32];
    const char *e = getenv(var), *p;

    for (p = e; p != NULL && *p;
         p = strchr(p, ',') ? strchr(p, ',') + 1 : "") {
        const char *colon = strchr(p, ':'), *end = strchr(p, ',');
        size_t tl, ml;
        if (colon == NULL || (end != NULL && colon > end))
            continue;
        tl = (size_t)(colon - p);
        ml = end ? (size_t)(end - colon - 1) : strlen(colon + 1);
        if (((tl == 1 && *p == '*') ||
             (tl == strlen(type) && strncasecmp(p, type, tl) == 0)) &&
            ml < sizeof mode) {
            memcpy(mode, colon + 1, ml);
            mode[ml] = '\0';
            return mode;
        }
    }
    return "";
}

static inline const char *fault_for(const char *type)
{
    return fake_env_for("FAKE_TOOL_FAULT", type);
}

/* The vocabulary a tool writes for type (fakegguf.h, fg_write_head):
 * FAKE_VOCAB="Q4_0:other" gives Q4_0 another tokenizer's, "*:none" gives
 * every file none; else "demo", one vocabulary for the whole ladder. */
static inline const char *vocab_for(const char *type)
{
    const char *v = fake_env_for("FAKE_VOCAB", type);
    return *v ? v : "demo";
}

static inline void nap_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}

/* Write n bytes of p to f the way mode says. Returns only for a normal
 * write (or slow); exits or hangs for the others. */
static inline void fault_write(FILE *f, const unsigned char *p, size_t n,
                               const char *mode, const char *tool)
{
    size_t i, piece = n / 50 + 1;
    long ms =
        getenv("FAKE_TOOL_SLOW_MS") ? atol(getenv("FAKE_TOOL_SLOW_MS")) : 40;

    if (strcmp(mode, "ignore_term") == 0)
        signal(SIGTERM, SIG_IGN);
    if (strcmp(mode, "garbage") == 0) {
        for (i = 0; i < n + 100; i++)
            fputc((int)((i * 2654435761u) >> 13) & 0xFF, f);
        return;
    }
    if (strcmp(mode, "exit1") == 0 || strcmp(mode, "hang") == 0 ||
        strcmp(mode, "ignore_term") == 0) {
        fwrite(p, 1, n / 2, f);
        fflush(f);
        if (strcmp(mode, "exit1") == 0) {
            fprintf(stderr, "%s: failed: fake fault exit1 half way\n", tool);
            exit(1);
        }
        fprintf(stderr, "%s: fake fault %s: hanging\n", tool, mode);
        for (;;)
            pause();
    }
    if (strcmp(mode, "slow") == 0) {
        for (i = 0; i < n; i += piece) {
            fwrite(p + i, 1, n - i < piece ? n - i : piece, f);
            fflush(f);
            nap_ms(ms);
        }
        return;
    }
    fwrite(p, 1, n, f);
}

#endif
