/*
 * weights_files.h - what the weights unit tests share: a scratch folder
 * (cmocka group fixtures setup and teardown) and a byte buffer that the
 * GGUF and safetensors files they read are written into. Define
 * WEIGHTS_PREFIX (the folder's name part) before including it; include it
 * after cmocka.h.
 */
#ifndef WEIGHTS_FILES_H
#define WEIGHTS_FILES_H

#ifndef WEIGHTS_PREFIX
#error "define WEIGHTS_PREFIX before including weights_files.h"
#endif

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/graveyard-" WEIGHTS_PREFIX "-XXXXXX");
    return mkdtemp(dir) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
    char cmd[128];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

struct bytes {
    unsigned char p[1 << 16];
    size_t n;
};

static void put(struct bytes *b, const void *p, size_t n)
{
    assert_true(b->n + n <= sizeof b->p);
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void put_u32(struct bytes *b, uint32_t v) { put(b, &v, 4); }
static void put_u64(struct bytes *b, uint64_t v) { put(b, &v, 8); }

static void put_str(struct bytes *b, const char *s)
{
    put_u64(b, strlen(s));
    put(b, s, strlen(s));
}

#endif
