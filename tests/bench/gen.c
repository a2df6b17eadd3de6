/*
 * gen.c - write a synthetic ladder for the benchmark: 10 rungs x N
 * questions of rows shaped like real ones (several lines of working, a
 * final "Answer:", a few loops, cut-offs, errors and thinking blocks).
 * Deterministic: the same arguments give the same bytes.
 *
 * usage: benchgen RUNDIR QUESTIONS [LINES_PER_REPLY]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const rungs[] = {"BF16",   "F16",  "Q8_0",   "Q6_K",
                                    "Q5_K_M", "Q4_K_M", "Q4_0", "Q3_K_M",
                                    "Q2_K",   "IQ2_XS"};
/* chance in 1000 that a rung answers wrong */
static const int wrong_per_mille[] = {80, 80, 90, 85, 80, 100, 110, 230,
                                      900, 950};

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static void die(const char *what)
{
    fprintf(stderr, "benchgen: %s: %s\n", what, strerror(errno));
    exit(2);
}

int main(int argc, char **argv)
{
    char path[4096];
    long nq, lines = 5, q, l;
    size_t r;

    if (argc < 3) {
        fprintf(stderr, "usage: benchgen RUNDIR QUESTIONS [LINES]\n");
        return 2;
    }
    nq = atol(argv[2]);
    if (argc > 3)
        lines = atol(argv[3]);
    snprintf(path, sizeof(path), "%s", argv[1]);
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        die(path);
    snprintf(path, sizeof(path), "%s/rows", argv[1]);
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        die(path);
    for (r = 0; r < sizeof(rungs) / sizeof(rungs[0]); r++) {
        FILE *f;
        snprintf(path, sizeof(path), "%s/rows/%s.jsonl", argv[1], rungs[r]);
        if ((f = fopen(path, "w")) == NULL)
            die(path);
        rng = 0x9e3779b97f4a7c15ULL + r;
        for (q = 0; q < nq; q++) {
            long ref = 10 + (q * 37) % 5000;
            uint32_t x = next() % 1000;
            int wrong = (int)x < wrong_per_mille[r];
            int looped = next() % 100 == 0, error = next() % 500 == 0;
            int think = next() % 50 == 0;
            long said = wrong ? ref + 1 + (long)(next() % 9) : ref;
            fprintf(f, "{\"id\": \"test-%ld\", \"rung\": \"%s\", "
                       "\"reference\": \"%ld\", ", q, rungs[r], ref);
            if (error) {
                fprintf(f, "\"content\": null, \"reasoning_content\": null, "
                           "\"finish_reason\": null, \"truncated\": false, "
                           "\"completion_tokens\": null, \"decode_tps\": "
                           "null, \"error\": \"HTTP 500: the model produced "
                           "output that does not match\"}\n");
                continue;
            }
            fputs("\"content\": \"", f);
            for (l = 0; l < lines; l++) {
                if (looped)
                    fputs("We add the apples to the basket again.\\n", f);
                else
                    fprintf(f, "Step %ld: %u times %u gives %u, so the "
                               "total is now %u.\\n",
                            l + 1, next() % 100, next() % 100,
                            next() % 10000, next() % 100000);
            }
            if (!looped)
                fprintf(f, "Answer: %ld", said);
            fprintf(f, "\", \"reasoning_content\": %s, \"finish_reason\": "
                       "\"%s\", \"truncated\": %s, \"completion_tokens\": "
                       "%u, \"decode_tps\": %u.%u, \"error\": null, "
                       "\"extracted\": %ld, \"right\": %s}\n",
                    think ? "\"Let me think about the basket.\"" : "null",
                    looped ? "length" : "stop", looped ? "true" : "false",
                    looped ? 1024 : 150 + next() % 400, 40 + next() % 60,
                    next() % 10, said, wrong ? "false" : "true");
        }
        if (fclose(f) != 0)
            die(path);
    }
    return 0;
}
