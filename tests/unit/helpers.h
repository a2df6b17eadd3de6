/*
 * helpers.h - shared by the unit tests: temporary rows files and rows
 * built from a few fields.
 */
#ifndef TEST_HELPERS_H
#define TEST_HELPERS_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rows.h"

/* |got - want| <= tol, with a message that names the case */
#define assert_near(got, want, tol, what)                                     \
    do {                                                                      \
        double g_ = (got), w_ = (want);                                       \
        if (!(fabs(g_ - w_) <= (tol)))                                        \
            fail_msg("%s: %.9f, want %.9f", (what), g_, w_);                  \
    } while (0)

/* A temporary folder for the test, removed by tmpdir_remove. */
static inline void tmpdir_make(char *dir, size_t size)
{
    snprintf(dir, size, "/tmp/graveyard-unit-XXXXXX");
    assert_non_null(mkdtemp(dir));
}

static inline void tmpdir_remove(const char *dir)
{
    char cmd[600];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* A small file's contents into buf (NUL-terminated, at most size - 1
 * bytes); the test fails if it cannot be read. */
__attribute__((unused)) static void slurp(const char *path, char *buf,
                                          size_t size)
{
    FILE *f = fopen(path, "r");
    size_t n;

    assert_non_null(f);
    n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* A rows file into the grader (which reads no file itself), fed in 4 KiB
 * slices. Returns what the reader returns; *out is the rung on success. */
__attribute__((unused)) static int test_rung_read(
    struct grader_qset *qs, const char *name, const char *path,
    unsigned flags, struct grader_rung **out, struct grader_error *err)
{
    struct grader_reader rd;
    struct grader_rung *r;
    FILE *f = fopen(path, "rb");
    char chunk[4096];
    size_t n;
    int rc = 0;

    *out = NULL;
    if (f == NULL) {
        snprintf(err->file, sizeof(err->file), "%s", path);
        err->line = 0;
        snprintf(err->text, sizeof(err->text), "cannot open");
        return GRADER_ENOENT;
    }
    r = grader_rung_new(name, path);
    if (r == NULL) {
        fclose(f);
        return GRADER_ENOMEM;
    }
    grader_reader_init(&rd, qs, r, flags);
    while (rc == 0 && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        rc = grader_reader_feed(&rd, chunk, n, err);
    if (rc == 0)
        rc = grader_reader_finish(&rd, err);
    grader_reader_release(&rd);
    fclose(f);
    if (rc != 0) {
        grader_rung_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

/* The test binary's scratch folder, made and removed around its tests by
 * tmpdir_setup and tmpdir_teardown (cmocka group fixtures). */
__attribute__((unused)) static char test_dir[64];

static inline int tmpdir_setup(void **state)
{
    (void)state;
    tmpdir_make(test_dir, sizeof(test_dir));
    return 0;
}

static inline int tmpdir_teardown(void **state)
{
    (void)state;
    tmpdir_remove(test_dir);
    return 0;
}

/* Write text to dir/name and put the path in path. */
static inline void write_file(const char *dir, const char *name,
                              const char *text, char *path, size_t size)
{
    FILE *f;

    snprintf(path, size, "%s/%s", dir, name);
    f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

/* A growable string for building rows. */
struct text {
    char *p;
    size_t len, cap;
};

static inline void text_addf(struct text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(t->p ? t->p + t->len : NULL,
                      t->p ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if (t->p && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        t->cap = (t->cap + (size_t)n + 1) * 2;
        t->p = realloc(t->p, t->cap);
        assert_non_null(t->p);
        if (t->len == 0)
            t->p[0] = '\0';
    }
}

/* One row whose content ends "Answer: said" (said NULL: no answer). */
static inline void add_row(struct text *t, const char *id, const char *ref,
                           const char *said)
{
    if (said)
        text_addf(t, "{\"id\":\"%s\",\"reference\":\"%s\",\"content\":"
                  "\"work\\nAnswer: %s\",\"reasoning_content\":null,"
                  "\"finish_reason\":\"stop\",\"truncated\":false,"
                  "\"completion_tokens\":10,\"decode_tps\":50.0,"
                  "\"error\":null}\n", id, ref, said);
    else
        text_addf(t, "{\"id\":\"%s\",\"reference\":\"%s\",\"content\":"
                  "\"I give up\",\"reasoning_content\":null,"
                  "\"finish_reason\":\"stop\",\"truncated\":false,"
                  "\"completion_tokens\":10,\"decode_tps\":50.0,"
                  "\"error\":null}\n", id, ref);
}

/* Write t to dir/rows-NAME.jsonl and read it as rung name into qs. */
static inline struct grader_rung *load_text(struct grader_qset *qs,
                                            const char *dir,
                                            const char *name,
                                            const struct text *t,
                                            unsigned flags)
{
    char file[64], path[512];
    struct grader_rung *r = NULL;
    struct grader_error err;
    int rc;

    snprintf(file, sizeof(file), "%s.jsonl", name);
    write_file(dir, file, t->p ? t->p : "", path, sizeof(path));
    rc = test_rung_read(qs, name, path, flags, &r, &err);
    if (rc != 0)
        fail_msg("%s:%ld: %s", err.file, err.line, err.text);
    return r;
}

/* Rungs read into one question set (test_grader_ladder, test_report_page). */
struct rungs {
    struct grader_qset *qs;
    const struct grader_rung *r[16];
    size_t n;
};

static inline void free_rungs(struct rungs *x)
{
    size_t i;

    for (i = 0; i < x->n; i++)
        grader_rung_free((struct grader_rung *)x->r[i]);
    grader_qset_free(x->qs);
}

#endif
