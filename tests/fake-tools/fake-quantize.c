/*
 * fake-quantize.c - a stand-in for llama.cpp's llama-quantize in tests
 * and the demo (docs/build.md, "The fake tools"). The real tool's command
 * line, its "main: build = ..." line (upstream's "llama_print_build_info:
 * build = ..." with FAKE_QUANTIZE_LINEAGE=upstream) and its lack of a
 * --version; its
 * output is a GGUF (fakegguf.h) derived only from
 * its input and the type: the input's fake.ladder says how the fake
 * llama-server answers at that type, and the input's tensors are written
 * again, each at the type a real llama-quantize would give it (type_for:
 * attn_v and ffn_down with more bits in a _M file, output.weight at Q6_K,
 * norms at F32) and its real size, filled with bytes taken from the
 * input's, so that graveyard's recipe and tensors read a real-looking
 * file. A type the fake has no recipe for gets one tensor of bytes, as
 * many as the type keeps. Fault modes: faults.h.
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

/* ggml's types the fake writes: id, elements per block, bytes per block
 * (ggml.c's type traits). */
struct qtype {
    const char *name;
    uint32_t id, blck, size;
};
static const struct qtype qtypes[] = {
    {"F32", 0, 1, 4},       {"F16", 1, 1, 2},       {"Q4_0", 2, 32, 18},
    {"Q4_1", 3, 32, 20},    {"Q5_0", 6, 32, 22},    {"Q5_1", 7, 32, 24},
    {"Q8_0", 8, 32, 34},    {"Q2_K", 10, 256, 84},  {"Q3_K", 11, 256, 110},
    {"Q4_K", 12, 256, 144}, {"Q5_K", 13, 256, 176}, {"Q6_K", 14, 256, 210},
    {"BF16", 30, 1, 2},
};
#define NQTYPES (sizeof qtypes / sizeof *qtypes)

static const struct qtype *qtype_named(const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < NQTYPES; i++)
        if (strlen(qtypes[i].name) == len &&
            strncasecmp(qtypes[i].name, name, len) == 0)
            return &qtypes[i];
    return NULL;
}

/*
 * The type llama-quantize gives a tensor at file type ftype ("Q4_K_M"),
 * after llama.cpp's llama_tensor_get_type for a one-layer model, in
 * small: norms stay F32; output.weight is Q6_K unless the file type is
 * 8 bits or more; a _M or _L file type gives attn_v and ffn_down more
 * bits (Q3_K_M: Q5_K, Q4_K_M and Q5_K_M: Q6_K), Q2_K gives them Q3_K;
 * --output-tensor-type and --token-embedding-type win. A tensor whose
 * elements do not fill the type's blocks falls back to F16, as the real
 * one's fallback does. NULL: a file type the fake does not know.
 */
static const struct qtype *type_for(const char *name, uint64_t ne,
                                    const char *ftype, const char *out_type,
                                    const char *emb_type)
{
    const struct qtype *base, *t;
    size_t blen = strlen(ftype);
    int more = 0;

    if (blen > 2 && (strcasecmp(ftype + blen - 2, "_M") == 0 ||
                     strcasecmp(ftype + blen - 2, "_L") == 0 ||
                     strcasecmp(ftype + blen - 2, "_S") == 0)) {
        more = toupper((unsigned char)ftype[blen - 1]) != 'S';
        blen -= 2;
    }
    if ((base = qtype_named(ftype, blen)) == NULL)
        return NULL;
    t = base;
    if (strstr(name, "norm") != NULL)
        t = &qtypes[0];
    else if (strncmp(name, "output.", 7) == 0)
        t = out_type ? qtype_named(out_type, strlen(out_type))
            : base->blck == 1 || base->id == 8 ? base
                                               : qtype_named("Q6_K", 4);
    else if (strncmp(name, "token_embd.", 11) == 0 && emb_type != NULL)
        t = qtype_named(emb_type, strlen(emb_type));
    else if (strstr(name, "attn_v.") != NULL ||
             strstr(name, "ffn_down") != NULL) {
        if (base->id == 10)
            t = qtype_named("Q3_K", 4);
        else if (more && base->id == 11)
            t = qtype_named("Q5_K", 4);
        else if (more && (base->id == 12 || base->id == 13))
            t = qtype_named("Q6_K", 4);
    }
    if (t == NULL)
        t = base;
    if (ne % t->blck != 0)
        t = &qtypes[1];
    return t;
}

/* The bits per weight the old single-tensor fake kept, for a file type
 * it has no recipe for (its files stay as they were). */
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
                        *fn = "main", *out_type = NULL, *emb_type = NULL;
    struct fg_info in_t[64];
    struct fg_tensor out_t[64];
    size_t nin = 0, nout = 0, off;
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
            if (!strcmp(a, "--output-tensor-type"))
                out_type = argv[i];
            if (!strcmp(a, "--token-embedding-type"))
                emb_type = argv[i];
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
    script = fg_parse(in, len, "fake.script", &dbytes, in_t, 64, &nin);
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
    /* each input tensor at its type, or (no recipe for this type) one
     * tensor of bytes, as many as the type keeps */
    for (i = 0, n = 0; i < nin && i < 64; i++) {
        const struct qtype *t =
            type_for(in_t[i].name, in_t[i].ne, upper, out_type, emb_type);
        if (t == NULL)
            break;
        out_t[nout].name = in_t[i].name;
        out_t[nout].type = t->id;
        out_t[nout].ne = in_t[i].ne;
        out_t[nout].bytes = (size_t)(in_t[i].ne / t->blck * t->size);
        n += (out_t[nout].bytes + 31) / 32 * 32;
        nout++;
    }
    if (nout == 0 || nout < nin) {
        nout = 0;
        n = (size_t)((double)dbytes * bits_of(upper) / 16.0) + 1;
    }
    q = calloc(1, n + 1);
    for (i = 0; upper[i]; i++)
        h = (h ^ (unsigned char)upper[i]) * 16777619u;
    for (i = 0; i < n; i++)
        q[i] = in[len - dbytes + (dbytes ? i % dbytes : 0)] ^
               (unsigned char)(h >> (i % 24));
    for (i = 0, off = 0; i < nout; i++) { /* each at its aligned offset */
        out_t[i].data = q + off;
        off += (out_t[i].bytes + 31) / 32 * 32;
    }
    {
        struct fg_kv kv[4] = {{"general.architecture", "fake"},
                              {"fake.type", upper},
                              {"fake.script", mine ? mine : script},
                              {"fake.ladder", ladder ? ladder : "{}"}};
        struct fg_tensor t = {"fake.q", 24, n, q, n};
        struct fg_tensor *ts = nout > 0 ? out_t : &t;
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
            start = fg_write_head(f, kv, 4, vocab_for(upper), ts,
                                  nout > 0 ? nout : 1);
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
