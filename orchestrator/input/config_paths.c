/*
 * config_paths.c - a config's relative paths read against the config's
 * own folder (docs/config.md, "Paths"), so that a config means the same
 * files from wherever graveyard starts: `graveyard ladder
 * ~/models/gemma/ladder.json` from the home folder finds the
 * "gemma-Q4_0.gguf" beside it. A path that starts with '/' is kept; a
 * command (a server binary, the build's python and tools) without a '/'
 * is found on PATH as written; what the command line gives (--llama,
 * --run-dir) is the user's, read against the working folder.
 *
 * The result is the config's folder joined to the path, with each
 * "NAME/.." of the join taken out where NAME is a real folder (not a
 * link, whose ".." is elsewhere): "configs/../runs/demo" is "runs/demo",
 * as the config's folder and the working folder say the same.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../util/util.h"
#include "config_int.h"

/* The folder of the config's path, or "" for the working folder. */
static size_t config_dir_len(const char *path)
{
    const char *slash = strrchr(path, '/');

    if (slash == NULL)
        return 0;
    return slash == path ? 1 : (size_t)(slash - path);
}

/* p's components again, "." dropped and "NAME/.." taken out where the
 * folder so far is a real one (not a link): in place (never longer). */
static void take_out_dotdot(char *p)
{
    char *out = p, *in = p, *end, *next;
    size_t n;
    struct stat st;

    if (*in == '/')
        out = ++in; /* an absolute path keeps its '/' */
    for (; *in; in = next) {
        end = strchr(in, '/');
        if (end == NULL)
            end = in + strlen(in);
        next = *end ? end + 1 : end; /* before out writes over it */
        n = (size_t)(end - in);
        if (n == 0 || (n == 1 && in[0] == '.'))
            continue;
        if (n == 2 && in[0] == '.' && in[1] == '.' && p[0] == '/' &&
            out == p + 1)
            continue; /* "/.." is "/" */
        if (n == 2 && in[0] == '.' && in[1] == '.' && out > p) {
            char *last = out - 1, *prev = last; /* *last is a '/' */
            while (prev > p && prev[-1] != '/')
                prev--;
            *last = '\0';
            if (!((size_t)(last - prev) == 2 && strncmp(prev, "..", 2) == 0) &&
                lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
                out = prev; /* NAME/.. taken out */
                continue;
            }
            *last = '/';
        }
        memmove(out, in, n);
        out += n;
        if (*next != '\0' || next != end) /* more to come, or a '/' */
            *out++ = '/';
    }
    if (out > p + 1 && out[-1] == '/')
        out--;
    *out = '\0';
    if (p[0] == '\0')
        strcpy(p, ".");
}

/* Whether o's key is written "${VAR}...": the variable's path is the
 * user's, read against the working folder as a shell would. */
static int from_var(const json_t *o, const char *key)
{
    const char *v = json_string_value(json_object_get(o, key));

    return v != NULL && v[0] == '$';
}

/* *v read against dir (dlen bytes of the config's path): replaced by a
 * new string. command: a value without '/' is kept (PATH). */
static void resolve(const char *path, size_t dlen, char **v, int command)
{
    char *out;
    size_t n;

    if (*v == NULL || (*v)[0] == '/' || (*v)[0] == '\0' ||
        (command && strchr(*v, '/') == NULL))
        return;
    n = dlen + 1 + strlen(*v) + 1;
    out = xrealloc(NULL, n);
    snprintf(out, n, "%.*s/%s", (int)dlen, path, *v);
    take_out_dotdot(out);
    free(*v);
    *v = out;
}

/* resolve, unless o's key came from a variable */
#define RESOLVE(o, key, v, command)                                           \
    do {                                                                      \
        if (!from_var(o, key))                                                \
            resolve(c->path, dlen, v, command);                               \
    } while (0)

void config_resolve_paths(struct config *c, const struct config_over *over,
                          const json_t *root)
{
    const json_t *rungs = json_object_get(root, "rungs"),
                 *sides = json_object_get(root, "side_rungs"),
                 *server = json_object_get(root, "server"),
                 *canary = json_object_get(root, "canary");
    size_t dlen = config_dir_len(c->path), nchain = json_array_size(rungs), i;

    if (dlen == 0) /* the working folder: every path as written */
        return;
    RESOLVE(root, "questions", &c->questions, 0);
    if (over == NULL || over->run_dir == NULL)
        RESOLVE(root, "run_dir", &c->run_dir, 0);
    if (over == NULL || over->binary == NULL)
        RESOLVE(server, "binary", &c->binary, 1);
    RESOLVE(canary, "rows", &c->canary_rows, 0);
    /* a task file (a name with '/' or ending .json), not a built-in */
    if (c->task != NULL &&
        (strchr(c->task, '/') != NULL ||
         (strlen(c->task) > 5 &&
          strcmp(c->task + strlen(c->task) - 5, ".json") == 0)))
        RESOLVE(root, "task", &c->task, 0);
    for (i = 0; i < c->nrungs; i++) {
        struct config_rung *r = &c->rungs[i];
        const json_t *e = i < nchain ? json_array_get(rungs, i)
                                     : json_array_get(sides, i - nchain);
        if (r->endpoint == NULL)
            RESOLVE(e, "model", &r->model, 0);
        RESOLVE(e, "binary", &r->binary, 1);
        RESOLVE(json_object_get(e, "quantize"), "imatrix", &r->imatrix, 0);
    }
}

void config_resolve_build(struct config *c)
{
    const json_t *b = c->build.raw;
    size_t dlen = config_dir_len(c->path);

    if (dlen == 0)
        return;
    RESOLVE(b, "checkpoint", &c->build.checkpoint, 0);
    RESOLVE(b, "tmpdir", &c->build.tmpdir, 0);
    RESOLVE(b, "python", &c->build.python, 1);
    RESOLVE(b, "convert", &c->build.convert, 0); /* the script: a file */
    RESOLVE(b, "quantize", &c->build.quantize, 1);
}
#undef RESOLVE
