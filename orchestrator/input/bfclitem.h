/*
 * bfclitem.h - a line of BFCL's own data files read as a tool item
 * (issue 37, docs/toolcalls.md "BFCL's files"): gorilla's
 * bfcl_eval/data/BFCL_v4_*.json, one object a line,
 *   {"id", "question": [[{"role": "user", "content"}]],
 *    "function": [{"name", "description", "parameters": {"type": "dict",
 *                  "properties", "required"}}]}
 * with its possible answers in the sibling possible_answer/<same name>,
 *   {"id", "ground_truth": [{"fname": {"arg": [accepted...]}}]}
 * (an irrelevance file has none: no call is right for any of its items).
 *
 * The question is the one user message of the single turn (a line of
 * several turns, a system message or a conversation before it is
 * refused: graveyard asks one user message). The functions are converted
 * for the request as BFCL's OpenAI handler converts them (gorilla's
 * model_handler/utils.py convert_to_tool with GORILLA_TO_OPENAPI): each
 * wrapped as {"type": "function", "function": ...}, "parameters"."type"
 * "object", each property's type mapped ("dict" "object", "float"
 * "number" with "format": "float" and BFCL's words in its description,
 * "tuple" "array", "any" "string", none or an unknown one "string"), and
 * a "." in a name read as "_" (OpenAI's names have none), in the possible
 * answers alike. Java and JavaScript items are refused: BFCL grades their
 * values as source text of those languages, which the checker does not.
 * questions.c calls this for a line with "function" and no "tools".
 */
#ifndef BFCLITEM_H
#define BFCLITEM_H

#include <jansson.h>
#include <stddef.h>

#include "toolitem.h"

/* Possible answers read from one file: at most this many, in at most
 * this many bytes (BFCL_v4's largest file is 0.2 MB). */
#define BFCLITEM_ANSWERS_MAX   100000
#define BFCLITEM_ANSWERS_BYTES (64L << 20)

/* A question file's possible answers by id (opaque). */
struct bfclitem_answers;

/* One BFCL line as a tool item: id and text new (free()), the rest as
 * toolitem_read gives them (tool_choice NULL: BFCL sends none). */
struct bfclitem {
    char *id, *text;
    struct toolitem tool;
};

/*
 * The possible answers of question file path: its sibling
 * possible_answer/<its name>, each line {"id", "ground_truth": [calls]},
 * into *out (new; free with bfclitem_answers_free). A file that is not
 * there is no call right for any item when path's name says
 * "irrelevance", else refused. Returns 0, or -1 with "FILE:LINE: problem"
 * (or "cannot open 'FILE': ...") in msg.
 */
int bfclitem_answers_load(const char *path, struct bfclitem_answers **out,
                          char *msg, size_t msgsize);
void bfclitem_answers_free(struct bfclitem_answers *a);

/*
 * Read BFCL line o (line 0-based, of path, for messages) with its
 * possible answers from a into *it. Returns 0, or -1 with
 * "FILE:LINE: problem" in msg naming the key: a question not a list of
 * one turn list of one user message, a function with no name, an id
 * without possible answers, or possible answers (their own file and
 * line then) not in shape or naming a function the item lacks.
 */
int bfclitem_read(const char *path, long line, const json_t *o,
                  struct bfclitem_answers *a, struct bfclitem *it, char *msg,
                  size_t msgsize);
void bfclitem_release(struct bfclitem *it);

#endif
