/*
 * vocab.h - a GGUF's vocabulary, read from the header's key-values alone
 * (never the tensors' bytes), and the bytes that say it, for a hash: two
 * files whose vocabulary bytes are equal give their tokens the same ids
 * and cut a text into the same tokens, so their next-token distributions
 * can be compared id by id (KLD, docs/run.md, "Logprobs and the
 * vocabulary").
 *
 * The keys, in the order they are fed (docs/run.md says why each):
 *
 *   tokenizer.ggml.model       the tokenizer's algorithm ("llama", "gpt2")
 *   tokenizer.ggml.pre         the pre-tokenizer (how a text is split
 *                              before the merges)
 *   tokenizer.ggml.tokens      the id -> text table itself
 *   tokenizer.ggml.token_type  normal, control, user-defined, byte: which
 *                              texts are parsed as special tokens
 *   tokenizer.ggml.scores      the merge order of the SPM and UGM
 *                              tokenizers (llama, t5)
 *   tokenizer.ggml.merges      the merge order of the BPE tokenizer (gpt2)
 *
 * The bytes fed: "graveyard-vocab-1\n", then per key its name (u64 length
 * and bytes), a byte 1 or 0 (present or not) and, present, the value
 * exactly as the file holds it (u64 length, then the u32 type and the
 * value: a string's u64 length and bytes, an array's element type, u64
 * count and elements, each string length-prefixed). GGUF is little-endian
 * only, so these bytes are the file's own, whatever machine reads them.
 *
 * libc; the hash itself is the caller's (the orchestrator's sha256,
 * orchestrator/base/hash.h), so weights/ stays off OpenSSL.
 */
#ifndef VOCAB_H
#define VOCAB_H

#include <stddef.h>
#include <stdint.h>

#define VOCAB_NKEYS 6
#define VOCAB_MAGIC "graveyard-vocab-1\n"

extern const char *const vocab_keys[VOCAB_NKEYS];

struct vocab {
    /* each key's value in the buffer parsed (its u32 type first); len 0:
     * the file does not have the key */
    struct {
        size_t off, len;
    } kv[VOCAB_NKEYS];
    uint64_t ntokens, nmerges;
    uint64_t ctx_train;      /* ARCH.context_length, the context the model was
                                trained on; 0 when the file does not say */
    char model[64], pre[64]; /* printable, cut; "" when absent */
    int gguf; /* vocab_read_file: 1 the file starts with "GGUF"; 0 it is
                 a plain file that does not (another kind, which no
                 llama-server loads); -1 it could not be read */
};

/*
 * The vocabulary of a GGUF file (versions 2 and 3): buf holds its first
 * len bytes, file_size is the whole file's. Returns 0; 1 when buf ends
 * before the key-values do and len < file_size (read more and call
 * again); -1 with one line in msg: a bad header, a key of the wrong type
 * or given twice, a count or length past the file, or no vocabulary at
 * all ("no vocabulary: no tokenizer.ggml.tokens").
 */
int gguf_vocab_parse(const unsigned char *buf, size_t len, uint64_t file_size,
                     struct vocab *v, char *msg, size_t msgsize);

/* Where the bytes go: a hash's update. */
typedef void (*vocab_sink_fn)(void *ctx, const void *p, size_t n);

/* The vocabulary's bytes (above), in order, into sink; buf is the one
 * gguf_vocab_parse read v from. */
void vocab_feed(const struct vocab *v, const unsigned char *buf,
                vocab_sink_fn sink, void *ctx);

/*
 * path's vocabulary fed to sink: the file opened as f16-range opens one
 * (a FIFO or a device refused, never waited on), its head read in
 * growing pieces up to GGUF_META_MAX, never past the key-values. F16R_OK,
 * or an F16R_E* code (f16range.h) with "FILE: what" in msg: BADINPUT for
 * a file that is not a GGUF (v->gguf 0, "bad magic"), a bad one, or one
 * without a vocabulary; IO for a read that failed or memory that ran out.
 */
int vocab_read_file(const char *path, struct vocab *v, vocab_sink_fn sink,
                    void *ctx, char *msg, size_t msgsize);

#endif
