/*
 * tensors.h - the tensor table of a safetensors or GGUF file: name,
 * dtype, element count and where the bytes are, read from the header
 * alone (f16-range then streams the bytes).
 *
 * The readers take the first bytes of a file in memory, so that a fuzzer
 * can feed them anything, and the file's size, so that every offset is
 * checked against it: a table that names a byte past the end, a size that
 * does not match dtype x shape, an element count that overflows, two
 * tensors on the same bytes, or a header that is not what the format says
 * is refused with one line in msg (the caller adds the file's name). The
 * table owns its names; tensors_free() releases them.
 *
 * libc and jansson (the safetensors header is JSON); nothing else.
 */
#ifndef TENSORS_H
#define TENSORS_H

#include <stddef.h>
#include <stdint.h>

/* What f16-range does with a tensor. */
enum wkind { WK_F32, WK_F16, WK_BF16, WK_SKIP };

struct wtensor {
    char *name;
    char dtype[16]; /* as the file names it: "BF16", "I64", "Q4_K" */
    enum wkind kind;
    uint64_t n;     /* elements */
    uint64_t off;   /* the first byte, from the start of the file */
    uint64_t size;  /* bytes (0 for a GGUF type whose size is not known) */
    uint32_t gtype; /* a GGUF tensor's ggml type id */
    unsigned char sized; /* size is known (every safetensors dtype is) */
};

/* The GGUF key-values that say how a file was quantized (tensors.h's
 * readers keep these, the recipe prints them): general.file_type,
 * general.quantization_version and every quantize.imatrix.* key, each
 * as "key=value" (a string's bytes made printable and cut, a number in
 * decimal, an array as its length). */
#define WT_META_MAX 16
#define WT_META_LEN 256

struct wtable {
    struct wtensor *t; /* in file order (by offset) */
    size_t n;
    char meta[WT_META_MAX][WT_META_LEN]; /* GGUF only: see WT_META_MAX */
    size_t nmeta;
};

/* Caps on what a header may hold: the safetensors library's own 100 MB
 * header limit, and GGUF tables no real model comes near. */
#define ST_HEADER_MAX  (100u << 20)
#define GGUF_META_MAX  (512u << 20)
#define WT_TENSORS_MAX (1u << 20)
#define WT_NAME_MAX    4096u

/*
 * A safetensors file: buf holds its first len bytes (at least 8, then the
 * header length those 8 bytes give); file_size is the whole file's. 0 or
 * -1 with msg.
 */
int safetensors_parse(const unsigned char *buf, size_t len, uint64_t file_size,
                      struct wtable *out, char *msg, size_t msgsize);

/* The header length a safetensors file's first 8 bytes give. */
uint64_t safetensors_header_len(const unsigned char buf[8]);

/*
 * A GGUF file (versions 2 and 3, little-endian): buf holds its first len
 * bytes. Returns 0, -1 with msg, or 1 when buf ends before the tensor
 * table does and len < file_size: read more and call again.
 */
int gguf_parse(const unsigned char *buf, size_t len, uint64_t file_size,
               struct wtable *out, char *msg, size_t msgsize);

void tensors_free(struct wtable *t);

/* A ggml type id's name and sizes, as gguf.c's table of both lineages
 * gives them: 0 (block is 0 when the size is not known), or -1 for an id
 * neither lineage has. */
int gguf_type_info(uint32_t id, const char **name, unsigned *block,
                   unsigned *bytes, unsigned *row_meta);

/* A message that quotes a file's bytes (a tensor name, a parser's view of
 * a bad header) made one line of printable text: control characters
 * become '?'. Returns msg. */
char *tensors_oneline(char *msg);

/* Sort by offset and refuse overlaps: 0 or -1 with msg. Both readers end
 * with it. */
int tensors_order(struct wtable *t, char *msg, size_t msgsize);

#endif
