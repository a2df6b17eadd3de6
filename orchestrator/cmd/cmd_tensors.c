/*
 * cmd_tensors.c - graveyard tensors FILE...: what is in each GGUF file,
 * from its tensor table (weights/recipe.h, docs/tensors.md). A thin
 * shell: flags and the exit status.
 */
#include <stdio.h>

#include "../../weights/f16range.h"
#include "../../weights/recipe.h"
#include "../base/cli.h"
#include "commands.h"

#define TENSORS_FILES_MAX 64

static const char tensors_about[] =
    "Each GGUF file's recipe, read from its tensor table alone (a\n"
    "file of hundreds of GB costs its head): per tensor kind\n"
    "(attn_q, attn_k, attn_v, attn_o, ffn_up, ffn_gate, ffn_down,\n"
    "embeddings, output, norms, other) the ggml types, with the\n"
    "layers each covers where a kind's type varies, the bytes and\n"
    "the bits per weight by kind and in total, and the key-values\n"
    "general.file_type, general.quantization_version and\n"
    "quantize.imatrix.* where present. With two or more files (at\n"
    "most 64), the tensors whose type differs, side by side, and the\n"
    "bytes they take in each file.\n";

static const char tensors_after[] =
    "Exit status: 0 ok, 1 a read or write failed, 2 bad input (one\n"
    "line names the file and what is wrong). docs/tensors.md.\n";

int cmd_tensors(int argc, char **argv)
{
    const char *pos[TENSORS_FILES_MAX];
    int json = 0, rc;
    size_t npos = 0;
    const struct cli_opt opts[] = {
        CLI_SWITCH("--json", &json,
                   "one JSON document: {\"files\": [...], \"differences\"}"),
        CLI_END};
    const struct cli_command cmd = {"tensors",
                                    "graveyard tensors FILE... [--json]",
                                    tensors_about,
                                    tensors_after,
                                    opts,
                                    "at least one FILE",
                                    1,
                                    TENSORS_FILES_MAX};
    char msg[1024];

    if ((rc = cli_parse(&cmd, argc, argv, pos, &npos)) != CLI_GO)
        return rc;
    rc = recipe_run(pos, npos, json, stdout, msg, sizeof msg);
    if (rc == F16R_OK && fflush(stdout) != 0) {
        rc = F16R_EIO;
        snprintf(msg, sizeof msg, "stdout: a write failed");
    }
    if (rc != F16R_OK)
        cli_error("tensors", "%s", msg);
    return rc == F16R_OK          ? EXIT_OK
           : rc == F16R_EBADINPUT ? EXIT_USAGE
                                  : EXIT_FAILED;
}
