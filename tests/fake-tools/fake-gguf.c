/*
 * fake-gguf.c - a fake model file (JSON that scripts the fake
 * llama-server, docs/fake-llama-server.md) wrapped in a GGUF with a
 * vocabulary, for the tests that need one: graveyard reads a rung's
 * vocabulary from its GGUF when "logprobs" is on (docs/run.md, "Logprobs
 * and the vocabulary"), and a bare JSON file has none.
 *
 *   fake-gguf SCRIPT.json OUT.gguf [VOCAB [CONTEXT_LENGTH]]
 *
 * VOCAB is "demo" (the default: one vocabulary for every file of a
 * ladder), another name (another tokenizer's), or "none". CONTEXT_LENGTH
 * writes fake.context_length, the context a model says it was trained on
 * (a long ladder checks its lengths against it). The fake server reads
 * the script back from fake.script (fakegguf.h).
 */
#include "fakegguf.h"

int main(int argc, char **argv)
{
    struct fg_kv kv[3] = {{"general.architecture", "fake"},
                          {"fake.script", NULL},
                          {"fake.context_length", NULL}};
    unsigned char *script;
    size_t len;
    FILE *f;

    if (argc < 3 || argc > 5) {
        fputs("usage: fake-gguf SCRIPT.json OUT.gguf [VOCAB "
              "[CONTEXT_LENGTH]]\n",
              stderr);
        return 2;
    }
    script = fg_slurp(argv[1], &len);
    if (script == NULL || memchr(script, 0, len) != NULL) {
        fprintf(stderr, "fake-gguf: cannot read '%s' (or it holds a NUL)\n",
                argv[1]);
        return 1;
    }
    kv[1].value = (const char *)script;
    f = fopen(argv[2], "wb");
    if (f == NULL) {
        fprintf(stderr, "fake-gguf: cannot write '%s'\n", argv[2]);
        return 1;
    }
    kv[2].value = argc == 5 ? argv[4] : NULL;
    fg_write_head(f, kv, argc == 5 ? 3 : 2, argc >= 4 ? argv[3] : "demo", NULL,
                  0);
    if (fclose(f) != 0) {
        fprintf(stderr, "fake-gguf: writing '%s' failed\n", argv[2]);
        return 1;
    }
    free(script);
    return 0;
}
