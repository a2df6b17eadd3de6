/*
 * tooldocs.c - a tool-call task's function docs from its question file
 * (tooldocs.h).
 */
#include "tooldocs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../rundir/manifest.h"
#include "../../util/util.h"
#include "../base/hash.h"

int tooldocs_add(struct grader_task *t, const struct questions *qs,
                 const char *path, char *msg, size_t msgsize)
{
    char why[300];
    int rc;

    if (grader_task_ref(t) != GRADER_REF_CALLS)
        return 0;
    for (size_t i = 0; i < qs->n; i++) {
        const struct question *q = &qs->q[i];
        if (q->tools == NULL)
            continue;
        rc = grader_task_add_docs(t, q->id, strlen(q->id), q->tools,
                                  strlen(q->tools), why, sizeof(why));
        if (rc == GRADER_ENOMEM)
            util_oom("function docs");
        if (rc != 0) {
            snprintf(msg, msgsize, "%s:%ld: %s", path, q->line, why);
            return -1;
        }
    }
    return 0;
}

int tooldocs_load(struct grader_task *t, const char *path, char *msg,
                  size_t msgsize)
{
    struct questions qs;
    int rc;

    if (grader_task_ref(t) != GRADER_REF_CALLS)
        return 0;
    if (questions_load_texts(path, 0, GRADER_REF_CALLS, &qs, msg, msgsize) !=
        0)
        return -1;
    rc = tooldocs_add(t, &qs, path, msg, msgsize);
    questions_release(&qs);
    return rc;
}

/* The base name of path. */
static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? slash + 1 : path;
}

int tooldocs_for_run(struct grader_task *t, const json_t *manifest,
                     const char *dir, char *msg, size_t msgsize)
{
    const char *named = manifest ? manifest_questions(manifest) : NULL;
    const char *want = manifest ? manifest_questions_sha256(manifest) : NULL;
    struct buf where[3] = {{0}, {0}, {0}};
    char hex[65], why[300];
    int found = -1, other = 0, rc = -1;

    if (grader_task_ref(t) != GRADER_REF_CALLS)
        return 0;
    if (named == NULL) {
        snprintf(msg, msgsize,
                 "%s: the manifest names no question file, and grading tool "
                 "calls needs its function docs",
                 dir);
        return -1;
    }
    /* a path past the cap is no place to look: left out */
    if (buf_path(&where[0], "%s", named) != 0)
        buf_release(&where[0]);
    if (named[0] != '/' && buf_path(&where[1], "%s/%s", dir, named) != 0)
        buf_release(&where[1]);
    if (buf_path(&where[2], "%s/%s", dir, base_of(named)) != 0)
        buf_release(&where[2]);
    why[0] = '\0';
    for (int i = 0; i < 3 && found < 0; i++) {
        if (where[i].p == NULL || access(where[i].p, R_OK) != 0)
            continue;
        if (want != NULL && hash_path(where[i].p, hex, why, sizeof(why)) != 0)
            continue; /* why says: not a regular file, unreadable */
        if (want != NULL && strcmp(hex, want) != 0) {
            other = 1;
            continue;
        }
        found = i;
    }
    if (found < 0)
        snprintf(msg, msgsize,
                 "grading tool calls needs the function docs of the question "
                 "file the run asked, '%s'%s%s%s: %s",
                 named, want ? " (sha256 " : "", want ? want : "",
                 want ? ")" : "",
                 other    ? "the file found there has other bytes now"
                 : why[0] ? why
                          : "no such file as named or in the run folder");
    else
        rc = tooldocs_load(t, where[found].p, msg, msgsize);
    for (int i = 0; i < 3; i++)
        buf_release(&where[i]);
    return rc;
}
