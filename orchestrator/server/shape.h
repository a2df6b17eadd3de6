/*
 * shape.h - did the server hold the reply to the constraint its request
 * carried? llama-server takes a `grammar`, a `json_schema` or a
 * `response_format` and has been seen to accept a schema and not enforce
 * it, so every constrained reply is checked after the fact and its row
 * says so (docs/rows.md: `constrained`, `violations`, `violation`); the
 * grader counts the replies that broke it (docs/report.md).
 *
 * What is checked:
 *   - a grammar that spells the study's answer line ("Answer:"): the
 *     reply's last non-blank line is "Answer:" and a number. Any other
 *     grammar is recorded as the constraint, unchecked (violations null):
 *     graveyard does not run GBNF.
 *   - a JSON schema (`json_schema`, or `response_format` of type
 *     json_schema): the reply is JSON; the schema's top-level `type`;
 *     every key in its top-level `required`; and the `type` of each
 *     property the reply has. `response_format` {"type": "json_object"}:
 *     the reply is a JSON object.
 * Each failed check is one violation; the first is kept in words.
 */
#ifndef SHAPE_H
#define SHAPE_H

#include <jansson.h>
#include <stddef.h>

enum shape_kind { SHAPE_NONE, SHAPE_GRAMMAR, SHAPE_ANSWER, SHAPE_JSON };

struct shape {
    enum shape_kind kind;
    const char *name;     /* the row's "constrained": "grammar",
                             "json_schema", "json_object"; NULL none */
    const json_t *schema; /* SHAPE_JSON: borrowed from the request; NULL
                             for any JSON object */
};

/* The constraint the extra request fields carry (NULL: none). */
void shape_of(const json_t *request, struct shape *s);

/*
 * Check content[0..len) (NULL: no content) against s. Returns the number
 * of violations (0: it held), or -1 when s is not checked (SHAPE_NONE,
 * SHAPE_GRAMMAR); the first violation is written to why.
 */
long shape_check(const struct shape *s, const char *content, size_t len,
                 char *why, size_t whysize);

#endif
