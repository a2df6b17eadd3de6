/*
 * longctx.h - the fake llama-server's long-context side (issue 36,
 * docs/fake-llama-server.md "Long contexts"): its tokenizer and POST
 * /tokenize, the chat prompt's count, the "needles" reply mode that reads
 * RULER-shaped prompts as a perfect reader would, and the length cliff.
 * Pure functions of their arguments (no server state), so that the
 * server file keeps the HTTP and the stream.
 */
#ifndef FAKE_LONGCTX_H
#define FAKE_LONGCTX_H

#include <jansson.h>
#include <stddef.h>

#define FAKE_TOK_BOS    1u /* "<s>": add_special's token, and parse_special's */
#define FAKE_TOK_EOS    2u          /* "</s>" */
#define FAKE_TOK_VOCAB  32000u      /* ids of text pieces: 3 + hash % this */
#define FAKE_CHAT_FIRST 1           /* the chat template: BOS, */
#define FAKE_CHAT_PER   4           /* its tokens around each message, */
#define FAKE_CHAT_GEN   3           /* and the assistant's opening */
#define FAKE_BODY_MAX   (64u << 20) /* a request body's bytes */
#define FAKE_ANS_MAX    16          /* values a needles reply names */
#define FAKE_VAL_MAX    64          /* one value's bytes, NUL included */

/* The token at text[i] (i < n): its length in bytes (> 0), its id into
 * *id. One token per piece: a run of letters (and bytes >= 0x80) cut
 * every 6 bytes, a run of digits every 3, any other non-space byte
 * alone; a single space joins the piece after it, other whitespace runs
 * are a token each; with parse_special "<s>" and "</s>" are BOS and EOS. */
size_t fake_tok_next(const char *text, size_t n, size_t i, int parse_special,
                     unsigned *id);
/* How many tokens text (n bytes) is, parse_special on. */
long fake_tok_count(const char *text, size_t n);

/* POST /tokenize's answer to body (len bytes): the JSON text (new:
 * free()) and its HTTP status into *status, as upstream's handler
 * answers (the ik fork, ik set, ignores with_pieces). */
char *fake_tokenize(const char *body, size_t len, int ik, unsigned *status);

/* The chat prompt's tokens: FAKE_CHAT_FIRST + FAKE_CHAT_GEN + for each
 * message FAKE_CHAT_PER + its content's tokens (a string, or the "text"
 * of its parts). */
long fake_chat_tokens(json_t *messages);

/* text (n bytes) without its first skip tokens: a pointer into text. */
const char *fake_tok_skip(const char *text, size_t n, long skip);

/* The content that replaces a rule's for prompt (its chat count
 * tokens), or NULL to keep the rule's: the "needles" reply (the model's
 * key) where the prompt has a shape it knows, and past the model's
 * "cliff" (for cache type ctk) its mode's wrong answer. New: free(). */
char *fake_longctx_reply(json_t *model, const char *ctk, json_t *rule,
                         const char *prompt, long count);

#endif
