/*
 * eee.c - graveyard export's Every Eval Ever records (eee.h). The field
 * names are the schema's (schemas/eee/, version EEE_SCHEMA_VERSION);
 * docs/export.md maps each to what graveyard recorded. An object's
 * "additional_details" holds strings only, as the schema asks.
 */
#include "eee.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* s[0..n) as a JSON string; a text that is not UTF-8 (a row may escape a
 * lone surrogate) with each byte past ASCII as '?': never dropped. */
static json_t *text(const char *s, size_t n)
{
    json_t *j = json_stringn(s, n);
    char *c;
    size_t i;

    if (j != NULL || (c = malloc(n + 1)) == NULL)
        return j;
    for (i = 0; i < n; i++)
        c[i] = (unsigned char)s[i] >= 0x80 ? '?' : s[i];
    j = json_stringn(c, n);
    free(c);
    return j;
}

static json_t *str(const char *s)
{
    return text(s, strlen(s));
}

/* o[k] = v, v stolen; a NULL v (out of memory) leaves the mark in *bad. */
static void put(json_t *o, const char *k, json_t *v, int *bad)
{
    if (v == NULL || json_object_set_new(o, k, v) != 0)
        *bad = 1;
}

static void put_s(json_t *o, const char *k, const char *v, int *bad)
{
    if (v != NULL)
        put(o, k, str(v), bad);
}

static void put_ll(json_t *o, const char *k, long long v, int *bad)
{
    char b[32];

    snprintf(b, sizeof(b), "%lld", v);
    put(o, k, json_string(b), bad);
}

/* ---- the aggregate --------------------------------------------------- */

static json_t *source_metadata(const struct eee_run *run, int *bad)
{
    json_t *o = json_object(), *d = json_object();

    put_s(o, "source_name", "graveyard", bad);
    put_s(o, "source_type", "evaluation_run", bad);
    put_s(o, "source_organization_name", "graveyard", bad);
    put_s(o, "evaluator_relationship", "third_party", bad);
    put_s(d, "graveyard_version", run->graveyard, bad);
    if (run->made_by != NULL)
        put_s(d, "rows_made_by_graveyard", run->made_by, bad);
    put(o, "additional_details", d, bad);
    return o;
}

static json_t *model_info(const struct eee_run *run, const struct eee_rung *r,
                          int *bad)
{
    json_t *o = json_object(), *e = json_object(), *d = json_object();
    char name[600];
    const char *k;
    json_t *v;

    snprintf(name, sizeof(name), "%.300s %.200s", run->model_name, r->rung);
    put_s(o, "name", name, bad);
    put_s(o, "id", run->model_id, bad);
    put_s(o, "developer", run->developer, bad);
    put_s(o, "inference_platform", "local", bad);
    put_s(e, "name", "llama.cpp llama-server", bad);
    put_s(e, "version", r->server_version ? r->server_version : "unknown",
          bad);
    put(o, "inference_engine", e, bad);
    put_s(d, "deployment_type", "self_deployed", bad);
    put_s(d, "model_availability", "open_weights", bad);
    put_s(d, "rung", r->rung, bad);
    put_s(d, "reference_rung", r->reference, bad);
    put_s(d, "format", "gguf", bad);
    put_s(d, "file", r->file ? r->file : "not recorded", bad);
    if (r->sha256 != NULL)
        put_s(d, "sha256", r->sha256, bad);
    if (r->bytes >= 0)
        put_ll(d, "bytes", r->bytes, bad);
    /* the file's own word on its type and imatrix, when it was read */
    json_object_foreach(r->gguf_meta, k, v)
    {
        if (json_is_string(v))
            put_s(d, k, json_string_value(v), bad);
    }
    put(o, "additional_details", d, bad);
    return o;
}

static json_t *source_data(const struct eee_run *run, int *bad)
{
    json_t *o = json_object(), *d = json_object();

    put_s(o, "dataset_name", run->dataset ? run->dataset : run->questions,
          bad);
    if (run->dataset != NULL) {
        put_s(o, "source_type", "hf_dataset", bad);
        put_s(o, "hf_repo", run->dataset, bad);
    } else {
        put_s(o, "source_type", "other", bad);
    }
    put_s(d, "question_file", run->questions, bad);
    if (run->questions_sha != NULL)
        put_s(d, "question_file_sha256", run->questions_sha, bad);
    put(o, "additional_details", d, bad);
    return o;
}

static json_t *metric_config(const struct eee_run *run, int *bad)
{
    json_t *o = json_object(), *d = json_object();
    char desc[400];

    snprintf(desc, sizeof(desc),
             "graveyard's %.100s task: every question asked once, greedy; "
             "the reply graded right or wrong by the rule %.100s",
             run->task, run->rule);
    put_s(o, "evaluation_description", desc, bad);
    put_s(o, "metric_id", "accuracy", bad);
    put_s(o, "metric_name", "accuracy", bad);
    put_s(o, "metric_kind", "accuracy", bad);
    put_s(o, "metric_unit", "proportion", bad);
    put(o, "lower_is_better", json_false(), bad);
    put_s(o, "score_type", "continuous", bad);
    put(o, "min_score", json_real(0.0), bad);
    put(o, "max_score", json_real(1.0), bad);
    put_s(d, "rule", run->rule, bad);
    put(o, "additional_details", d, bad);
    return o;
}

static json_t *score_details(const struct eee_rung *r, int *bad)
{
    json_t *o = json_object(), *u = json_object(), *ci = json_object(),
           *d = json_object();

    put(o, "score", json_real(r->acc), bad);
    put_ll(d, "right", (long long)r->right, bad);
    put_ll(d, "n", (long long)r->n, bad);
    put_ll(d, "errors", (long long)r->errors, bad);
    put_ll(d, "truncated", (long long)r->truncated, bad);
    put_ll(d, "dead_vs_reference", (long long)r->dead, bad);
    put_ll(d, "ghosts_vs_reference", (long long)r->ghosts, bad);
    put(o, "details", d, bad);
    put(ci, "lower", json_real(r->acc_lo), bad);
    put(ci, "upper", json_real(r->acc_hi), bad);
    put(ci, "confidence_level", json_real(0.95), bad);
    put_s(ci, "method", "wilson", bad);
    put(u, "confidence_interval", ci, bad);
    put(u, "num_samples", json_integer((json_int_t)r->n), bad);
    put(o, "uncertainty", u, bad);
    return o;
}

static json_t *generation_config(const struct eee_run *run,
                                 const struct eee_rung *r, int *bad)
{
    json_t *o = json_object(), *a = json_object();

    put(a, "temperature", json_real(0.0), bad);
    if (run->max_tokens > 0)
        put(a, "max_tokens", json_integer(run->max_tokens), bad);
    if (run->thinking >= 0)
        put(a, "reasoning", json_boolean(run->thinking), bad);
    if (r->argv != NULL) {
        char *s = json_dumps(r->argv, JSON_COMPACT);
        put_s(a, "execution_command", s, bad);
        free(s);
    }
    put(o, "generation_args", a, bad);
    return o;
}

json_t *render_eee_aggregate(const struct eee_run *run,
                             const struct eee_rung *r)
{
    json_t *o = json_object(), *lib = json_object(), *res = json_object(),
           *results = json_array(), *det = json_object();
    char name[300];
    int bad = 0;

    if (o == NULL || lib == NULL || res == NULL || results == NULL ||
        det == NULL)
        bad = 1;
    snprintf(name, sizeof(name), "graveyard.%.200s", run->task);
    put_s(o, "schema_version", EEE_SCHEMA_VERSION, &bad);
    put_s(o, "evaluation_id", r->evaluation_id, &bad);
    put_s(o, "retrieved_timestamp", run->timestamp, &bad);
    put(o, "source_metadata", source_metadata(run, &bad), &bad);
    put_s(lib, "name", "graveyard", &bad);
    put_s(lib, "version", run->graveyard, &bad);
    put(o, "eval_library", lib, &bad);
    put(o, "model_info", model_info(run, r, &bad), &bad);
    put_s(res, "evaluation_result_id", name, &bad);
    put_s(res, "evaluation_name", name, &bad);
    put(res, "source_data", source_data(run, &bad), &bad);
    put(res, "metric_config", metric_config(run, &bad), &bad);
    put(res, "score_details", score_details(r, &bad), &bad);
    put(res, "generation_config", generation_config(run, r, &bad), &bad);
    if (json_array_append_new(results, res) != 0)
        bad = 1;
    put(o, "evaluation_results", results, &bad);
    put_s(det, "format", "jsonl", &bad);
    put_s(det, "file_path", r->samples_path, &bad);
    put_s(det, "hash_algorithm", "sha256", &bad);
    put_s(det, "checksum", r->checksum, &bad);
    put(det, "total_rows", json_integer((json_int_t)r->samples), &bad);
    put(o, "detailed_evaluation_results", det, &bad);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* ---- one answer ------------------------------------------------------ */

json_t *render_eee_answer(const struct eee_run *run, const struct eee_rung *r,
                          const struct eee_answer *a)
{
    json_t *o = json_object(), *in = json_object(), *out = json_object(),
           *raw = json_array(), *ref = json_array(), *attr = json_array(),
           *at = json_object(), *ev = json_object(), *md = json_object();
    char name[300];
    int bad = o == NULL || in == NULL || out == NULL || raw == NULL ||
              ref == NULL || attr == NULL || at == NULL || ev == NULL ||
              md == NULL;

    snprintf(name, sizeof(name), "graveyard.%.200s", run->task);
    put_s(o, "schema_version", EEE_SCHEMA_VERSION, &bad);
    put_s(o, "evaluation_id", r->evaluation_id, &bad);
    put_s(o, "model_id", run->model_id, &bad);
    put_s(o, "evaluation_name", name, &bad);
    put_s(o, "evaluation_result_id", name, &bad);
    put_s(o, "sample_id", a->id, &bad);
    put_s(o, "interaction_type", "single_turn", &bad);
    /* the question as the file gives it; "" when the file is not here */
    put_s(in, "raw", a->input ? a->input : "", &bad);
    if (json_array_append_new(ref, str(a->reference)) != 0)
        bad = 1;
    put(in, "reference", ref, &bad);
    put(o, "input", in, &bad);
    if (json_array_append_new(
            raw, a->content ? text(a->content, a->content_len) : str("")) != 0)
        bad = 1;
    put(out, "raw", raw, &bad);
    if (a->reasoning != NULL) {
        json_t *t = json_array();
        if (t == NULL || json_array_append_new(
                             t, text(a->reasoning, a->reasoning_len)) != 0)
            bad = 1;
        put(out, "reasoning_trace", t, &bad);
    }
    put(o, "output", out, &bad);
    put(at, "turn_idx", json_integer(0), &bad);
    put_s(at, "source", "output.raw", &bad);
    put_s(at, "extracted_value", a->said ? a->said : "", &bad);
    put_s(at, "extraction_method", run->rule, &bad);
    put(at, "is_terminal", json_true(), &bad);
    if (json_array_append_new(attr, at) != 0)
        bad = 1;
    put(o, "answer_attribution", attr, &bad);
    put(ev, "score", json_real(a->right ? 1.0 : 0.0), &bad);
    put(ev, "is_correct", json_boolean(a->right), &bad);
    put(o, "evaluation", ev, &bad);
    if (a->ms >= 0) {
        json_t *p = json_object();
        put(p, "generation_time_ms", json_real(a->ms), &bad);
        put(o, "performance", p, &bad);
    }
    put(o, "error", a->error ? text(a->error, a->error_len) : json_null(),
        &bad);
    put_s(md, "rung", r->rung, &bad);
    put_s(md, "extracted", a->said ? "yes" : "no", &bad);
    if (a->finish != NULL)
        put(md, "finish_reason", text(a->finish, a->finish_len), &bad);
    if (a->tokens >= 0)
        put_ll(md, "completion_tokens", a->tokens, &bad);
    put(o, "metadata", md, &bad);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}
