/*
 * exported.c - a manifest's server build and argument list as graveyard
 * export publishes them (exported.h). The keys are manifest_keys.h's, as
 * every reader of the manifest spells them.
 */
#include "exported.h"

#include <stdio.h>
#include <string.h>

#include "manifest_keys.h"

static const json_t *rung_record(const json_t *manifest, const char *rung)
{
    return json_object_get(json_object_get(manifest, MK_RUNGS), rung);
}

const char *exported_server_version(const json_t *manifest, const char *rung)
{
    const char *v = json_string_value(
        json_object_get(rung_record(manifest, rung), MK_SERVER_VERSION));

    if (v != NULL)
        return v;
    return json_string_value(
        json_object_get(json_object_get(manifest, MK_SERVER), MKS_VERSION));
}

const char *exported_graveyard_version(const json_t *manifest)
{
    return json_string_value(json_object_get(manifest, MK_GRAVEYARD));
}

/* Whether flag (up to '=' when it has one) names a secret: redact.c's
 * words, compared lower-cased. */
static int secret_flag(const char *flag)
{
    static const char *const words[] = {"key",  "token", "secret", "pass",
                                        "auth", "cred",  "cookie", NULL};
    char low[128];
    size_t i, n = strcspn(flag, "=");

    if (flag[0] != '-' || n >= sizeof(low))
        return 0;
    for (i = 0; i < n; i++)
        low[i] = (char)((flag[i] >= 'A' && flag[i] <= 'Z') ? flag[i] + 32
                                                           : flag[i]);
    low[n] = '\0';
    if (strcmp(low, "-hft") == 0)
        return 1;
    for (i = 0; words[i] != NULL; i++)
        if (strstr(low, words[i]) != NULL)
            return 1;
    return 0;
}

/* One argument as published; after_secret: the one before it was a
 * secret flag without '='. */
static json_t *one_arg(const char *a, int after_secret)
{
    const char *eq = strchr(a, '='), *slash;

    if (after_secret)
        return json_string("<redacted>");
    if (a[0] == '-' && eq != NULL &&
        (secret_flag(a) || strstr(eq, "<redacted") != NULL)) {
        char out[160];
        snprintf(out, sizeof(out), "%.*s=<redacted>", (int)(eq - a) & 127, a);
        return json_string(out);
    }
    if (strstr(a, "<redacted") != NULL)
        return json_string("<redacted>");
    if ((slash = strrchr(a, '/')) != NULL) {
        if (a[0] == '-' && eq != NULL && eq < slash) {
            char out[400];
            snprintf(out, sizeof(out), "%.*s=%.200s", (int)(eq - a) & 127, a,
                     slash + 1);
            return json_string(out);
        }
        return json_string(slash + 1);
    }
    return json_string(a);
}

json_t *exported_server_argv(const json_t *manifest, const char *rung)
{
    const json_t *rec = rung_record(manifest, rung),
                 *argv = json_object_get(rec, MK_SERVER_ARGV);

    if (!json_is_array(argv)) /* an older folder: the flags it added */
        argv = json_object_get(rec, MK_SERVER_ARGS);
    return exported_args(argv);
}

json_t *exported_args(const json_t *argv)
{
    json_t *out, *v;
    size_t i;
    int after = 0;

    if (!json_is_array(argv) || (out = json_array()) == NULL)
        return NULL;
    json_array_foreach(argv, i, v)
    {
        const char *a = json_string_value(v);
        json_t *s = one_arg(a ? a : "", after);
        if (s == NULL || json_array_append_new(out, s) != 0) {
            json_decref(out);
            return NULL;
        }
        after = a != NULL && a[0] == '-' && strchr(a, '=') == NULL &&
                secret_flag(a);
    }
    return out;
}
