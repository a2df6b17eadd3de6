/*
 * recipe.h - what is in a GGUF file: its recipe from the tensor table
 * alone (graveyard tensors, docs/tensors.md). Per tensor kind (attention
 * q/k/v/o, ffn up/gate/down, embeddings, output, norms, other) the ggml
 * types, with the layers each covers where a kind's type varies, the
 * bytes and the bits per weight by kind and in total, and the key-values
 * that tell how the file was quantized (tensors.h, WT_META_MAX). Two or
 * more files: the tensors whose type differs, side by side, and the bytes
 * that makes.
 *
 * Only the head of a file is read (f16range.c's reader): a file of
 * hundreds of GB costs its table. libc and jansson.
 */
#ifndef RECIPE_H
#define RECIPE_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* The kinds, in the order a recipe lists them. */
#define RECIPE_NKINDS 11
extern const char *const recipe_kinds[RECIPE_NKINDS];

/* The kind of a tensor name (an index into recipe_kinds) and its layer
 * (blk.N.), -1 when it has none. */
int recipe_kind(const char *name, long *layer);

/*
 * One GGUF file's recipe as a JSON object (docs/tensors.md gives its
 * fields): F16R_OK with *out, or F16R_EBADINPUT / F16R_EIO with one line
 * naming the file in msg.
 */
int recipe_of(const char *path, json_t **out, char *msg, size_t msgsize);

/* The tensors whose type differs among the recipes (recipe_of's, all
 * with their "tensor_table"), side by side. */
json_t *recipe_diff(json_t *const *r, size_t n);

/* Every file's recipe, then with two or more their differences, written
 * to out as text or one JSON document: an F16R_* code, msg set when not
 * F16R_OK. */
int recipe_run(const char *const *paths, size_t n, int json, FILE *out,
               char *msg, size_t msgsize);

#endif
