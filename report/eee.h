/*
 * eee.h - graveyard export's Every Eval Ever files (docs/export.md): per
 * rung, the aggregate record (schemas/eee/eval.schema.json) and one
 * instance-level record per answer (instance_level_eval.schema.json), in
 * the schema version EEE_SCHEMA_VERSION names. Like every renderer these
 * only format what the grader computed and what the run folder recorded:
 * the caller fills the plain structs below, nothing here counts.
 */
#ifndef REPORT_EEE_H
#define REPORT_EEE_H

#include <jansson.h>
#include <stddef.h>

/* The Every Eval Ever schema version the files follow (schemas/eee/). */
#define EEE_SCHEMA_VERSION "0.3.0"

/* What every rung of one export shares. Strings borrowed, not NULL
 * unless said. */
struct eee_run {
    const char *timestamp;     /* retrieved_timestamp: Unix seconds */
    const char *graveyard;     /* the exporting graveyard's version */
    const char *made_by;       /* the version that made the rows, or NULL */
    const char *model_id;      /* "developer/model" */
    const char *developer;     /* model_id's first part */
    const char *model_name;    /* the ladder's name */
    const char *task;          /* the task's name (answer-line, ...) */
    const char *rule;          /* the rule the answers were graded by */
    const char *questions;     /* the question file's name */
    const char *questions_sha; /* its sha256, or NULL */
    const char *dataset;       /* --dataset (a Hub id), or NULL */
    long max_tokens;           /* -1 unknown */
    int thinking;              /* 0, 1, -1 unknown */
};

/* One rung's aggregate: its figures as the grader computed them, its
 * file as the run folder recorded it. */
struct eee_rung {
    const char *rung;           /* the rung's name */
    const char *reference;      /* the ladder's reference rung */
    const char *evaluation_id;  /* graveyard/MODEL_ID/RUNG/TIMESTAMP */
    const char *file;           /* the GGUF's file name, or NULL */
    const char *sha256;         /* its sha256, or NULL */
    long long bytes;            /* -1 unknown */
    const char *server_version; /* the llama-server build, or NULL */
    json_t *argv;               /* its published argument list, or NULL */
    json_t *gguf_meta;          /* the file's general.file_type and
                                   quantize.imatrix.* key-values (strings),
                                   or NULL when the file was not read */
    size_t n, right, errors, truncated, dead, ghosts;
    double acc, acc_lo, acc_hi; /* Wilson 95 % */
    const char *samples_path;   /* data/.../UUID_samples.jsonl */
    char checksum[65];          /* the samples file's sha256 */
    size_t samples;             /* its lines */
};

/* One answer. */
struct eee_answer {
    const char *id;        /* the question's id */
    const char *input;     /* the question's text, or NULL: not found */
    const char *reference; /* the reference answer as written */
    const char *content;   /* the reply's content, or NULL */
    size_t content_len;
    const char *reasoning; /* reasoning_content, or NULL */
    size_t reasoning_len;
    const char *said;   /* the extracted answer, or NULL */
    const char *finish; /* finish_reason, or NULL */
    size_t finish_len;
    const char *error; /* the row's error text, or NULL */
    size_t error_len;
    int right;
    long long tokens; /* completion_tokens, -1 unknown */
    double ms;        /* the server's prompt + predicted ms, < 0 unknown */
};

/* The aggregate record of r: new, NULL out of memory. */
json_t *render_eee_aggregate(const struct eee_run *run,
                             const struct eee_rung *r);

/* One instance-level line of r's answer a: new, NULL out of memory (or a
 * text that is not UTF-8 once escaped: the caller says which). */
json_t *render_eee_answer(const struct eee_run *run, const struct eee_rung *r,
                          const struct eee_answer *a);

#endif
