/*
 * fake-convert.c - a stand-in for `python3 convert_hf_to_gguf.py` in
 * tests and the demo (docs/build.md, "The fake tools"). graveyard runs it
 * as build.python with the script as its first argument, so the command
 * line is the real one:
 *
 *   fake-convert-hf SCRIPT CHECKPOINT --outtype bf16|f16|f32|q8_0
 *                   --outfile OUT.gguf
 *
 * It reads CHECKPOINT/model.safetensors (BF16 or F32 tensors) and writes
 * them at the out type into a GGUF (fakegguf.h), with the fake server's
 * behaviour for that type from CHECKPOINT/fake-ladder.json. Deterministic:
 * the same checkpoint and type give the same bytes. It says where its
 * temporary files would go ($TMPDIR). Fault modes: faults.h.
 */
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>

#include "faults.h"
#include "fakegguf.h"

__extension__ typedef _Float16 half_t;

/* A checkpoint's tensor name as llama.cpp's converter writes it
 * (gguf-py's tensor map, in small): model.layers.N.X is blk.N.X,
 * model.embed_tokens is token_embd, model.norm is output_norm, lm_head is
 * output; any other name is kept. */
static void gguf_name(const char *hf, char *out, size_t size)
{
    static const char *const map[][2] = {
        {"model.embed_tokens.", "token_embd."},
        {"model.norm.", "output_norm."},
        {"lm_head.", "output."},
    };
    char *end;
    unsigned long layer;
    size_t i;

    if (strncmp(hf, "model.layers.", 13) == 0) {
        layer = strtoul(hf + 13, &end, 10);
        if (end != hf + 13 && *end == '.') {
            snprintf(out, size, "blk.%lu.%s", layer, end + 1);
            return;
        }
    }
    for (i = 0; i < sizeof map / sizeof *map; i++)
        if (strncmp(hf, map[i][0], strlen(map[i][0])) == 0) {
            snprintf(out, size, "%s%s", map[i][1], hf + strlen(map[i][0]));
            return;
        }
    snprintf(out, size, "%s", hf);
}

static float get_f(const unsigned char *p, const char *dtype, size_t i)
{
    float f;
    uint32_t u = 0;

    if (!strcmp(dtype, "F32")) {
        memcpy(&f, p + 4 * i, 4);
        return f;
    }
    memcpy(&u, p + 2 * i, 2); /* BF16 */
    u <<= 16;
    memcpy(&f, &u, 4);
    return f;
}

static void die(const char *fmt, const char *a)
{
    fprintf(stderr, "ERROR:hf-to-gguf:");
    fprintf(stderr, fmt, a);
    fputc('\n', stderr);
    exit(1);
}

int main(int argc, char **argv)
{
    const char *script = NULL, *ckpt = NULL, *outtype = NULL, *out = NULL,
               *key, *mode;
    char path[4096], upper[16], *ladder_text;
    unsigned char *st, *buf;
    size_t stlen, nt = 0, i, k, total = 0;
    uint64_t hlen;
    json_t *hdr, *ladder, *v;
    struct fg_tensor t[256];
    static char names[256][96];
    unsigned char *tbuf[256];
    FILE *f;

    for (i = 1; i < (size_t)argc; i++) {
        if (!strcmp(argv[i], "--outtype") && i + 1 < (size_t)argc)
            outtype = argv[++i];
        else if (!strcmp(argv[i], "--outfile") && i + 1 < (size_t)argc)
            out = argv[++i];
        else if (script == NULL)
            script = argv[i];
        else if (ckpt == NULL)
            ckpt = argv[i];
        else
            die("unrecognized argument: %s", argv[i]);
    }
    if (script == NULL || ckpt == NULL || outtype == NULL || out == NULL)
        die("usage: fake-convert-hf SCRIPT CHECKPOINT --outtype T --outfile "
            "F%s",
            "");
    if (access(script, R_OK) != 0)
        die("can't open file '%s'", script);
    for (i = 0; outtype[i] && i < sizeof upper - 1; i++)
        upper[i] = (char)toupper((unsigned char)outtype[i]);
    upper[i] = '\0';
    printf("INFO:hf-to-gguf:Loading model: %s\n", ckpt);
    printf("INFO:hf-to-gguf:temporary files in %s\n",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    snprintf(path, sizeof path, "%s/model.safetensors", ckpt);
    st = fg_slurp(path, &stlen);
    if (st == NULL || stlen < 8)
        die("cannot read %s", path);
    memcpy(&hlen, st, 8);
    if (hlen > stlen - 8)
        die("bad safetensors header in %s", path);
    hdr = json_loadb((const char *)st + 8, hlen, 0, NULL);
    snprintf(path, sizeof path, "%s/fake-ladder.json", ckpt);
    ladder = json_load_file(path, 0, NULL);
    if (!json_is_object(hdr) || !json_is_object(ladder))
        die("%s: no fake-ladder.json or a bad header", ckpt);
    json_object_foreach(hdr, key, v)
    {
        const char *dt = json_string_value(json_object_get(v, "dtype"));
        json_t *off = json_object_get(v, "data_offsets");
        size_t b = (size_t)json_integer_value(json_array_get(off, 0)),
               e = (size_t)json_integer_value(json_array_get(off, 1)), n;
        const unsigned char *src = st + 8 + hlen + b;
        if (dt == NULL || nt == 256 || e > stlen - 8 - hlen || e < b ||
            (strcmp(dt, "BF16") && strcmp(dt, "F32")))
            continue;
        n = (e - b) / (strcmp(dt, "F32") ? 2 : 4);
        gguf_name(key, names[nt], sizeof names[nt]);
        t[nt].name = names[nt];
        t[nt].ne = n;
        if (!strcmp(upper, "F32") || (!strcmp(upper, "Q8_0") && n % 32 != 0)) {
            t[nt].type = 0;
            t[nt].bytes = 4 * n;
        } else if (!strcmp(upper, "Q8_0")) {
            t[nt].type = 8;
            t[nt].bytes = n / 32 * 34;
        } else {
            t[nt].type = !strcmp(upper, "F16") ? 1 : 30;
            t[nt].bytes = 2 * n;
        }
        buf = tbuf[nt] = calloc(1, t[nt].bytes + 32);
        for (k = 0; k < n; k++) {
            float x = get_f(src, dt, k);
            if (t[nt].type == 0) {
                memcpy(buf + 4 * k, &x, 4);
            } else if (t[nt].type == 1) {
                half_t h = (half_t)x;
                memcpy(buf + 2 * k, &h, 2);
            } else if (t[nt].type == 30) {
                uint32_t u;
                memcpy(&u, &x, 4);
                u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16;
                memcpy(buf + 2 * k, &u, 2);
            } else if (k % 32 == 0) { /* Q8_0: a scale and 32 int8 */
                float m = 0, d;
                size_t j;
                half_t hd;
                for (j = 0; j < 32; j++)
                    if (fabsf(get_f(src, dt, k + j)) > m)
                        m = fabsf(get_f(src, dt, k + j));
                d = m / 127;
                hd = (half_t)d;
                memcpy(buf + k / 32 * 34, &hd, 2);
                for (j = 0; j < 32; j++)
                    buf[k / 32 * 34 + 2 + j] =
                        (unsigned char)(signed char)(d ? lrintf(get_f(src, dt,
                                                                      k + j) /
                                                                d)
                                                       : 0);
            }
        }
        t[nt].data = buf;
        printf("INFO:hf-to-gguf:%s, torch.%s --> %s, shape = {%zu}\n", key,
               strcmp(dt, "F32") ? "bfloat16" : "float32", upper, n);
        total += (t[nt].bytes + 31) / 32 * 32;
        nt++;
    }
    ladder_text = json_dumps(ladder, JSON_COMPACT | JSON_SORT_KEYS);
    v = json_object_get(ladder, upper);
    if (v == NULL)
        v = json_object_get(ladder, "BF16");
    {
        char *mine = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
        struct fg_kv kv[4] = {{"general.architecture", "fake"},
                              {"fake.type", upper},
                              {"fake.script", mine ? mine : "{}"},
                              {"fake.ladder", ladder_text}};
        unsigned char *all = calloc(1, total + 1);
        size_t at = 0;
        for (i = 0; i < nt; i++) {
            memcpy(all + at, t[i].data, t[i].bytes);
            at += (t[i].bytes + 31) / 32 * 32;
        }
        mode = fault_for(upper);
        printf("INFO:gguf.gguf_writer:Writing the following files:\n"
               "INFO:gguf.gguf_writer:%s: n_tensors = %zu\n",
               out, nt);
        fflush(stdout);
        f = fopen(out, "wb");
        if (f == NULL)
            die("cannot write %s", out);
        if (strcmp(mode, "garbage") != 0)
            fg_write_head(f, kv, 4, vocab_for(upper), t, nt);
        fault_write(f, all, total, mode, "ERROR:hf-to-gguf");
        if (fclose(f) != 0)
            die("write failed: %s", out);
        free(mine);
        free(all);
    }
    printf("INFO:hf-to-gguf:Model successfully exported to %s\n", out);
    for (i = 0; i < nt; i++)
        free(tbuf[i]);
    free(ladder_text);
    json_decref(hdr);
    json_decref(ladder);
    free(st);
    return 0;
}
