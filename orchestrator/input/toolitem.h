/*
 * toolitem.h - a tool item's own keys (issue 37, docs/toolcalls.md): the
 * functions it offers ("tools", OpenAI's function schemas), how the model
 * may use them ("tool_choice") and the calls that are right ("possible",
 * BFCL's possible answers), each checked, each kept as compact JSON: the
 * first two for the request, as given, the third the row's reference.
 * questions.c reads the rest of the line (its id and question).
 */
#ifndef TOOLITEM_H
#define TOOLITEM_H

#include <jansson.h>
#include <stddef.h>

#include "../../grader/grader.h"

#define TOOLITEM_TOOLS_MAX 128 /* functions an item offers */
#define TOOLITEM_NAME_MAX  64  /* OpenAI's: [A-Za-z0-9_.-]{1,64} */
/* "possible" as compact JSON is the row's reference, which the grader's
 * row scanner keeps in GRADER_ROWSCAN_REF bytes with its NUL */
#define TOOLITEM_POSSIBLE_MAX (GRADER_ROWSCAN_REF - 1)

/* A tool item's keys as compact JSON (new, each free()); tool_choice NULL
 * when the line gives none. */
struct toolitem {
    char *tools, *tool_choice, *possible;
};

/*
 * Read and check line o's "tools" (1 to TOOLITEM_TOOLS_MAX objects, each
 * with a "function" whose "name" matches [A-Za-z0-9_.-]{1,64}, offered
 * once, "parameters" an object when given, "type" "function" when
 * given), "tool_choice" ("auto", "required", "none", or {"type":
 * "function", "function": {"name"}} naming one of tools) and "possible"
 * (a list of {"FUNCTION": {"ARG": [values...]}}, each function one of
 * tools, at most TOOLITEM_POSSIBLE_MAX bytes compact, no DEL) into *it.
 * Returns 0, or -1 with the problem in why, naming the key.
 */
int toolitem_read(const json_t *o, struct toolitem *it, char *why,
                  size_t whysize);

/* The function a possible answer calls, when it is one BFCL-shaped call
 * {"FUNCTION": {"ARG": [VALUES...]}} (borrowed from call), else NULL:
 * a tool item's "possible" and BFCL's "ground_truth" share the shape. */
const char *toolitem_call_name(const json_t *call);

/* Whether tools, a list of OpenAI function schemas ({"function":
 * {"name"}}), offers a function named name: 1 or 0. */
int toolitem_offers(const json_t *tools, const char *name);

#endif
