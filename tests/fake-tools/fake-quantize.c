/*
 * fake-quantize.c - a stand-in for llama.cpp's llama-quantize in tests
 * and the demo (docs/build.md, "The fake tools"). The real tool's command
 * line, its "main: build = ..." line (upstream's "llama_print_build_info:
 * build = ..." with FAKE_QUANTIZE_LINEAGE=upstream) and its lack of a
 * --version; its
 * output is a GGUF (fakegguf.h) derived only from
 * its input and the type: the input's fake.ladder says how the fake
 * llama-server answers at that type, and a tensor of bytes taken from the
 * input's shrinks the file as a real quantization would. Fault modes:
 * faults.h.
 *
 *   fake-llama-quantize [options] IN.gguf OUT.gguf TYPE [NTHREADS]
 */
#include <ctype.h>
#include <jansson.h>

#include "faults.h"
#include "fakegguf.h"

static void usage(void)
{
    printf("usage: fake-llama-quantize [--help] [--allow-requantize] "
           "[--leave-output-tensor] [--pure] [--imatrix] ...\n"
           "       model-f32.gguf [model-quant.gguf] type [nthreads]\n");
    exit(1);
}

/* Bits a weight, as a real ladder's files shrink. */
static double bits_of(const char *t)
{
    if (!strncasecmp(t, "F32", 3))
        return 32;
    if (!strncasecmp(t, "F16", 3) || !strncasecmp(t, "BF16", 4))
        return 16;
    if (!strncasecmp(t, "Q8", 2))
        return 8.5;
    if (!strncasecmp(t, "Q6", 2))
        return 6.6;
    if (!strncasecmp(t, "Q5", 2))
        return 5.5;
    if (!strncasecmp(t, "Q4", 2))
        return 4.5;
    if (!strncasecmp(t, "Q3", 2))
        return 3.9;
    return 3.4;
}

int main(int argc, char **argv)
{
    const char *pos[4], *imatrix = NULL, *mode, *rung = NULL, *lineage,
                        *fn = "main";
    size_t npos = 0, len, dbytes = 0, n, i;
    unsigned char *in, *q;
    char *script, *ladder, *mine = NULL, upper[32];
    json_t *map;
    FILE *f;
    long start;
    unsigned h = 2166136261u;

    for (i = 1; i < (size_t)argc; i++) {
        const char *a = argv[i];
        /* like the real one (both forks): no --version; --help,
         * --version and any option it does not know print the usage and
         * exit 1 */
        if (!strcmp(a, "--help") || !strcmp(a, "-h") ||
            !strcmp(a, "--version"))
            usage();
        if (!strcmp(a, "--imatrix") || !strcmp(a, "--output-tensor-type") ||
            !strcmp(a, "--token-embedding-type") ||
            !strcmp(a, "--override-kv") || !strcmp(a, "--include-weights") ||
            !strcmp(a, "--exclude-weights")) {
            if (++i == (size_t)argc)
                usage();
            if (!strcmp(a, "--imatrix"))
                imatrix = argv[i];
            /* --override-kv fake.rung=str:NAME: the fake.ladder entry to
             * answer as (a QAT file is quantized to Q4_0 too) */
            if (!strcmp(a, "--override-kv") &&
                !strncmp(argv[i], "fake.rung=str:", 14))
                rung = argv[i] + 14;
            continue;
        }
        if (a[0] == '-' && a[1] == '-') /* the switches */
            continue;
        if (npos == 4)
            usage();
        pos[npos++] = a;
    }
    if (npos < 3)
        usage();
    for (i = 0; pos[2][i] && i < sizeof upper - 1; i++)
        upper[i] = (char)toupper((unsigned char)pos[2][i]);
    upper[i] = '\0';
    /* the build line, on stderr as both print it: ik_llama.cpp's
     * print_build_info() macro in main(); upstream's (2026) function
     * llama_print_build_info() in common/build-info.cpp, called from
     * llama_quantize() */
    lineage = getenv("FAKE_QUANTIZE_LINEAGE");
    if (lineage != NULL && strcmp(lineage, "upstream") == 0) {
        fn = "llama_quantize";
        fprintf(stderr, "llama_print_build_info: build = 6789 (abcdef12)\n"
                        "llama_print_build_info: built with cc for "
                        "x86_64-linux-gnu (graveyard fake-llama-quantize)\n");
    } else
        fprintf(stderr, "main: build = 4242 (fa4e0001)\n"
                        "main: built with cc for x86_64-linux-gnu "
                        "(graveyard fake-llama-quantize)\n");
    fprintf(stderr, "%s: quantizing '%s' to '%s' as %s using %s threads\n", fn,
            pos[0], pos[1], upper, npos == 4 ? pos[3] : "2");
    if (imatrix != NULL && access(imatrix, R_OK) != 0) {
        fprintf(stderr, "load_imatrix: failed to open %s\n", imatrix);
        return 1;
    }
    in = fg_slurp(pos[0], &len);
    if (in == NULL) {
        fprintf(stderr,
                "llama_model_quantize: failed to quantize: failed "
                "to open %s\n",
                pos[0]);
        return 1;
    }
    script = fg_get(in, len, "fake.script", &dbytes);
    ladder = fg_get(in, len, "fake.ladder", NULL);
    if (script == NULL) {
        fprintf(stderr,
                "llama_model_quantize: failed to quantize: %s is not "
                "a GGUF the fake knows (no fake.script)\n",
                pos[0]);
        return 1;
    }
    /* the rung's behaviour, if the ladder names it; else the source's */
    map = ladder ? json_loads(ladder, 0, NULL) : NULL;
    if (json_object_get(map, rung ? rung : upper) != NULL)
        mine = json_dumps(json_object_get(map, rung ? rung : upper),
                          JSON_COMPACT);
    json_decref(map);
    /* bytes from the input's, as many as the type keeps */
    n = (size_t)((double)dbytes * bits_of(upper) / 16.0) + 1;
    q = malloc(n);
    for (i = 0; upper[i]; i++)
        h = (h ^ (unsigned char)upper[i]) * 16777619u;
    for (i = 0; i < n; i++)
        q[i] = in[len - dbytes + (dbytes ? i % dbytes : 0)] ^
               (unsigned char)(h >> (i % 24));
    {
        struct fg_kv kv[4] = {{"general.architecture", "fake"},
                              {"fake.type", upper},
                              {"fake.script", mine ? mine : script},
                              {"fake.ladder", ladder ? ladder : "{}"}};
        struct fg_tensor t = {"fake.q", 24, n, q, n};
        mode = fault_for(upper);
        f = fopen(pos[1], "wb");
        if (f == NULL) {
            fprintf(stderr,
                    "llama_model_quantize: failed to quantize: %s: "
                    "cannot open\n",
                    pos[1]);
            return 1;
        }
        if (strcmp(mode, "garbage") != 0)
            start = fg_write_head(f, kv, 4, vocab_for(upper), &t, 1);
        else
            start = 0;
        (void)start;
        fault_write(f, q, n, mode, "llama_model_quantize");
        if (fclose(f) != 0) {
            fprintf(stderr, "llama_model_quantize: failed to quantize: write "
                            "failed\n");
            return 1;
        }
    }
    printf("llama_model_quantize_impl: model size  = %8.2f MB\n"
           "llama_model_quantize_impl: quant size  = %8.2f MB\n"
           "%s: quantize time =    12.34 ms\n",
           (double)dbytes / 1e6, (double)n / 1e6, fn);
    free(in);
    free(q);
    free(script);
    free(ladder);
    free(mine);
    return 0;
}
