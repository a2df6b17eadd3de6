/*
 * config_endpoint.c - a rung's "endpoint" (docs/config.md): a served
 * model, whose server graveyard does not start. Checked here, before
 * anything runs: its URL (endpoint.h: https, or http to this machine
 * unless "allow_plain_http"), and the name of the variable its key is in
 * (the key itself never appears in a config).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/endpoint.h"
#include "config_int.h"

/* A variable's name: letters, digits and '_', not starting with a digit. */
static int var_name_ok(const char *s)
{
    if (s[0] >= '0' && s[0] <= '9')
        return 0;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= '0' && *s <= '9') ||
              (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
            return 0;
    return 1;
}

int config_endpoint(struct config_ctx *x, json_t *e, const char *where,
                    struct config_rung *r)
{
    static const char *const keys[] = {"url", "api_key_env",
                                       "allow_plain_http", NULL};
    json_t *o = json_object_get(e, "endpoint"), *plain;
    char w[96], why[700];

    if (o == NULL)
        return 0;
    snprintf(w, sizeof(w), "%s.endpoint", where);
    if (!json_is_object(o))
        BAD("'%s' must be an object: {\"url\": URL, \"api_key_env\": VAR}", w);
    plain = json_object_get(o, "allow_plain_http");
    if (plain != NULL && !json_is_boolean(plain))
        BAD("'%s.allow_plain_http' must be true or false", w);
    r->allow_plain_http = json_is_true(plain);
    if (config_known_keys(x, o, w, keys) != 0 ||
        config_str(x, o, "url", w, 1, &r->endpoint) != 0 ||
        config_str(x, o, "api_key_env", w, 0, &r->api_key_env) != 0)
        return -1;
    if (endpoint_url_check(r->endpoint, r->allow_plain_http, why,
                           sizeof(why)) != 0)
        BAD("'%s.url': %s", w, why);
    if (r->api_key_env != NULL &&
        (!var_name_ok(r->api_key_env) || strlen(r->api_key_env) > 100))
        BAD("'%s.api_key_env' '%.100s' is not a variable's name (the key "
            "itself goes in the environment, never in the config)",
            w, r->api_key_env);
    if (json_object_get(e, "server_args") != NULL ||
        json_object_get(e, "ngl") != NULL ||
        json_object_get(e, "convert") != NULL ||
        json_object_get(e, "quantize") != NULL)
        BAD("'%s' has an endpoint: no server is started, so it takes no "
            "server_args, ngl, convert or quantize",
            where);
    return 0;
}

int config_endpoint_model(struct config_ctx *x, struct config_rung *r)
{
    if (r->endpoint == NULL || r->model != NULL)
        return 0;
    if ((r->model = strdup(r->endpoint)) == NULL)
        BAD("out of memory");
    return 0;
}
