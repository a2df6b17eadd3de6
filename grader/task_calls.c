/*
 * task_calls.c - a tool-call task's part (task.h, docs/toolcalls.md): the
 * items' function docs by id, and a reply's calls graded by BFCL's AST
 * checker (toolcall/toolcall.h), its verdict one bucket of the failure
 * taxonomy the reports count.
 *
 * Why the docs live in the task: a row carries its item's possible
 * answers (its reference) but not the functions the item offered, which
 * BFCL's type rules need (an int where a float is asked); they are read
 * once from the question file the run asked and shared by every reader
 * of the task, as its rules are.
 */
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "internal.h"
#include "qset.h"
#include "task.h"
#include "task_int.h"
#include "../toolcall/toolcall.h"

#define SAY(...)                                                              \
    do {                                                                      \
        if (msg != NULL)                                                      \
            snprintf(msg, msgsize, __VA_ARGS__);                              \
    } while (0)

#define DOCS_SEED 0x444f4353ULL

void grader__tooldocs_free(struct tooldocs *d)
{
    for (size_t i = 0; i < d->n; i++) {
        grader__free(d->v[i].id);
        grader__free(d->v[i].docs);
    }
    grader__free(d->v);
    grader__free(d->slot);
    memset(d, 0, sizeof(*d));
}

/* The slot of id (its index + 1 there, or 0 where it would go). */
static size_t slot_of(const struct tooldocs *d, const char *id, size_t len,
                      uint64_t h)
{
    size_t k = (size_t)h & (d->nslot - 1);

    while (d->slot[k] != 0) {
        const struct tooldoc *x = &d->v[d->slot[k] - 1];
        if (x->hash == h && x->id_len == len && memcmp(x->id, id, len) == 0)
            break;
        k = (k + 1) & (d->nslot - 1);
    }
    return k;
}

/* Twice the slots, every entry placed again. */
static int rehash(struct tooldocs *d)
{
    size_t nslot = d->nslot ? d->nslot * 2 : 64;
    uint32_t *slot = grader__calloc(nslot, sizeof(*slot));

    if (slot == NULL)
        return GRADER_ENOMEM;
    grader__free(d->slot);
    d->slot = slot;
    d->nslot = nslot;
    for (size_t i = 0; i < d->n; i++)
        d->slot[slot_of(d, d->v[i].id, d->v[i].id_len, d->v[i].hash)] =
            (uint32_t)(i + 1);
    return 0;
}

int grader_task_add_docs(struct grader_task *t, const char *id, size_t id_len,
                         const char *docs, size_t docs_len, char *msg,
                         size_t msgsize)
{
    struct tooldocs *d = &t->docs;
    uint64_t h = grader__hash64(id, id_len, DOCS_SEED);
    struct tooldoc *x;
    size_t k;

    if (t->ref != GRADER_REF_CALLS) {
        SAY("task '%s' does not grade tool calls", t->name);
        return GRADER_EARG;
    }
    if (id_len == 0 || id_len > GRADER_ID_MAX ||
        docs_len > TOOLCALL_MAX_ITEM) {
        SAY("tool item '%.*s': %s", (int)(id_len > 64 ? 64 : id_len), id,
            id_len == 0 ? "no id" : "an id or docs over the cap");
        return GRADER_EARG;
    }
    if ((d->n + 1) * 2 > d->nslot && rehash(d) != 0)
        return GRADER_ENOMEM;
    k = slot_of(d, id, id_len, h);
    if (d->slot[k] != 0) {
        SAY("tool item '%.*s' given twice", (int)id_len, id);
        return GRADER_EARG;
    }
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 64;
        struct tooldoc *v = grader__reallocarray(d->v, cap, sizeof(*v));
        if (v == NULL)
            return GRADER_ENOMEM;
        d->v = v;
        d->cap = cap;
    }
    x = &d->v[d->n];
    x->id = grader__strndup(id, id_len);
    x->docs = grader__strndup(docs, docs_len);
    if (x->id == NULL || x->docs == NULL) {
        grader__free(x->id);
        grader__free(x->docs);
        return GRADER_ENOMEM;
    }
    x->id_len = id_len;
    x->docs_len = docs_len;
    x->hash = h;
    d->slot[k] = (uint32_t)++d->n;
    return 0;
}

size_t grader_task_ndocs(const struct grader_task *t)
{
    return t->docs.n;
}

/* The docs of item id, or NULL. */
static const struct tooldoc *docs_of(const struct grader_task *t,
                                     const char *id, size_t len)
{
    const struct tooldocs *d = &t->docs;
    size_t k;

    if (d->nslot == 0 || id == NULL)
        return NULL;
    k = slot_of(d, id, len, grader__hash64(id, len, DOCS_SEED));
    return d->slot[k] ? &d->v[d->slot[k] - 1] : NULL;
}

/* toolcall's errors as the grader's: its memory, or the item unusable. */
static int checker_failed(int rc, const struct grader_reply *reply,
                          const char *text, char *msg, size_t msgsize)
{
    if (rc == TOOLCALL_ENOMEM)
        return GRADER_ENOMEM;
    SAY("tool item '%.*s': %s", (int)(reply->id_len > 64 ? 64 : reply->id_len),
        reply->id, text[0] ? text : toolcall_strerror(rc));
    return GRADER_EARG;
}

int grader_task_grade_calls(const struct grader_task *t, size_t rule,
                            const struct grader_reply *reply, const char *ref,
                            size_t ref_len, struct grader_grade *out,
                            char *msg, size_t msgsize)
{
    const struct tooldoc *doc;
    struct toolcall_item item;
    struct toolcall_reply r;
    struct toolcall_result res;
    struct toolcall_error err;
    int rc, n;

    memset(out, 0, sizeof(*out));
    out->bucket = -1;
    if (rule >= t->nrules || t->rules[rule].kind != GRADER_RULE_TOOLCALL) {
        SAY("task '%s': rule %zu does not grade tool calls", t->name, rule);
        return GRADER_EARG;
    }
    if ((doc = docs_of(t, reply->id, reply->id_len)) == NULL) {
        SAY("no function docs for tool item '%.*s' (it is not a tool item "
            "of the question file the run asked)",
            (int)(reply->id_len > 64 ? 64 : reply->id_len),
            reply->id ? reply->id : "");
        return GRADER_EARG;
    }
    item.docs = doc->docs;
    item.docs_len = doc->docs_len;
    item.answers = ref;
    item.answers_len = ref_len;
    item.shape = TOOLCALL_BY_ANSWERS;
    r.calls = reply->calls;
    r.calls_len = reply->calls_len;
    r.content = reply->content;
    r.content_len = reply->content_len;
    if ((rc = toolcall_check(&item, &r, &res, &err)) != 0)
        return checker_failed(rc, reply, err.text, msg, msgsize);
    out->bucket = (int)res.bucket;
    out->right = res.bucket == TOOLCALL_RIGHT;
    /* what it said: its calls in one line (a reply whose calls the
     * checker found malformed as a list says nothing) */
    n = toolcall_summary(&r, out->extracted, sizeof(out->extracted));
    if (n == TOOLCALL_ENOMEM)
        return GRADER_ENOMEM;
    out->calls = n > 0 ? n : 0;
    out->said = n > 0;
    if (!out->said)
        out->extracted[0] = '\0';
    memcpy(out->compared, out->extracted, sizeof(out->compared));
    return 0;
}
