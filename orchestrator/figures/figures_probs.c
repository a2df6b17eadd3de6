/*
 * figures_probs.c - where each rung's replies split from the reference's
 * (grader/probs.h, docs/grading.md "Where they split"): the chain's probs
 * files opened through rundir/probsread.h, then question by question the
 * reference's record and each rung's read, decoded, handed to the
 * grader's accumulators and freed, so memory holds one question's tokens
 * and the index of each file, never a rung's tokens. Nothing here
 * computes a figure: the grader does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../grader/grader.h"
#include "../../rundir/probsread.h"
#include "../../rundir/run.h"
#include "../base/cli.h"
#include "figures.h"
#include "figures_int.h"

/* The open probs files of a ladder's chain, and one record's scratch. */
struct probs_files {
    struct probsread f[GRADER_MAX_RUNGS];
    int have[GRADER_MAX_RUNGS];
    unsigned char *buf[2];
    size_t cap[2];
};

static void files_close(struct probs_files *pf)
{
    for (size_t i = 0; i < GRADER_MAX_RUNGS; i++)
        if (pf->have[i])
            probsread_close(&pf->f[i]);
    free(pf->buf[0]);
    free(pf->buf[1]);
    memset(pf, 0, sizeof(*pf));
}

/* Open rung's file in dir into slot i: 0 (pf->have[i] says whether it
 * exists), or EXIT_USAGE after one line. */
static int open_one(const char *cmd, struct probs_files *pf, size_t i,
                    const char *dir, const char *rung)
{
    char msg[4600];
    int rc = probsread_open(&pf->f[i], dir, rung, msg, sizeof(msg));

    if (rc < 0) {
        cli_error(cmd, "%s", msg);
        return EXIT_USAGE;
    }
    pf->have[i] = rc == 0;
    return 0;
}

/* load's answer when the record was read and decoded (0: the file has no
 * record of the question; an exit status: an error, after one line) */
#define LOADED (-1)

/* Question id's record in slot i read and decoded into a (buffer b):
 * LOADED, 0, or the exit status after one line. */
static int load(const char *cmd, struct probs_files *pf, size_t i, int b,
                const char *id, struct grader_probs_answer *a)
{
    const struct probsread_rec *rec =
        probsread_find(&pf->f[i], id, strlen(id));
    struct grader_error err;
    char msg[4600];
    int rc;

    if (rec == NULL)
        return 0;
    if (probsread_load(&pf->f[i], rec, &pf->buf[b], &pf->cap[b], msg,
                       sizeof(msg)) != 0) {
        cli_error(cmd, "%s", msg);
        return EXIT_USAGE;
    }
    rc = grader_probs_decode(pf->buf[b], rec->len, a, &err);
    if (rc == GRADER_ENOMEM)
        return figures__oom(cmd);
    if (rc != 0) {
        cli_error(cmd, "'%s': the record of question '%s' at byte %llu: %s",
                  pf->f[i].path, id, (unsigned long long)rec->off, err.text);
        return EXIT_USAGE;
    }
    return LOADED;
}

/* One rung's answer to question q against the reference's (ref, decoded):
 * into its accumulator, the cover's KLD and, dead and split, a cell. */
static int one_rung(const char *cmd, struct probs_files *pf,
                    const struct rungset *s, size_t i, uint32_t q,
                    const struct grader_probs_answer *ref,
                    struct grader_probs_acc *acc,
                    struct grader_probs_ladder *p)
{
    const struct grader_answer *ra = grader_rung_find(s->r[0], q),
                               *a = grader_rung_find(s->r[i], q);
    struct grader_probs_answer rung;
    struct grader_split sp;
    struct grader_error err;
    unsigned topn;
    int rc, ref_right = grader_answer_right(ra),
            right = grader_answer_right(a);

    /* the rows are the truth: a record without a row is not compared */
    if (a == NULL ||
        (rc = load(cmd, pf, i, 1, grader_qset_id(s->qs, q), &rung)) == 0)
        return 0;
    if (rc != LOADED)
        return rc;
    rc = grader_probs_acc_add(acc, ref, &rung, ref->ntok, ref_right, right,
                              &sp, &err);
    if (rc == 0) {
        p->kld[i * p->nq + q] = (float)sp.kld_mean;
        if (ref_right && !right && sp.split >= 0)
            rc = grader_probs_ladder_cell(p, i, q, ref, &rung, &sp);
    }
    topn = rung.topn;
    grader_probs_answer_free(&rung);
    if (rc == GRADER_EARG) {
        cli_error(cmd,
                  "'%s': question '%s' has top %u, the reference's "
                  "'%s' top %u; compare rungs run with one logprobs N",
                  pf->f[i].path, grader_qset_id(s->qs, q), topn, pf->f[0].path,
                  ref->topn);
        return EXIT_USAGE;
    }
    return rc ? figures__oom(cmd) : 0;
}

/* Every question the reference answered with a record, every rung. */
static int questions(const char *cmd, struct probs_files *pf,
                     const struct rungset *s, size_t nchain,
                     struct grader_probs_acc *acc,
                     struct grader_probs_ladder *p)
{
    struct grader_probs_answer ref;
    int rc = 0;

    for (uint32_t q = 0; q < p->nq && rc == 0; q++) {
        if (grader_rung_find(s->r[0], q) == NULL ||
            (rc = load(cmd, pf, 0, 0, grader_qset_id(s->qs, q), &ref)) == 0)
            continue;
        if (rc != LOADED)
            return rc;
        rc = 0;
        if (p->topn == 0)
            p->topn = ref.topn;
        for (size_t i = 1; i < nchain && rc == 0; i++)
            if (pf->have[i])
                rc = one_rung(cmd, pf, s, i, q, &ref, &acc[i], p);
        grader_probs_answer_free(&ref);
    }
    return rc;
}

/* The repeat check: the reference against its repeat in dir, when that
 * has a probs file. 0 or EXIT_USAGE. */
static int repeat_check(const char *cmd, struct probs_files *pf,
                        const struct rungset *s, const char *dir,
                        const char *refname, struct grader_probs_ladder *p)
{
    struct grader_probs_answer ref, again;
    struct grader_probs_acc acc;
    struct grader_probs_rung r;
    struct grader_split sp;
    struct grader_error err;
    int rc;

    /* slot 1 is free again: the rungs' files are closed by now */
    if ((rc = open_one(cmd, pf, 1, dir, refname)) != 0 || !pf->have[1])
        return rc;
    grader_probs_acc_init(&acc);
    for (uint32_t q = 0; q < p->nq && rc == 0; q++) {
        const char *id = grader_qset_id(s->qs, q);
        int got = load(cmd, pf, 0, 0, id, &ref);
        if (got != LOADED) {
            rc = got;
            continue;
        }
        if ((got = load(cmd, pf, 1, 1, id, &again)) == LOADED) {
            if (grader_probs_acc_add(&acc, &ref, &again, ref.ntok, 1, 1, &sp,
                                     &err) != 0) {
                cli_error(cmd,
                          "'%s': question '%s' cannot be compared with "
                          "'%s': %s",
                          pf->f[1].path, id, pf->f[0].path, err.text);
                got = EXIT_USAGE;
            }
            grader_probs_answer_free(&again);
        }
        rc = got == LOADED ? 0 : got;
        grader_probs_answer_free(&ref);
    }
    if (rc != 0) {
        grader_probs_acc_release(&acc);
        return rc;
    }
    grader_probs_acc_finish(&acc, &r);
    p->repeat = 1;
    p->repeat_kld_mean = r.kld_mean;
    p->repeat_split = r.split;
    return 0;
}

/* A rung whose recorded vocabulary is not the reference's (docs/run.md,
 * "Logprobs and the vocabulary"; a folder put together by hand, since a
 * run refuses it): its token ids are not the reference's, so it gets no
 * KLD and no split, with a warning, and its answers stand as graded. A
 * rung or a reference that recorded none (logprobs off, a file that is
 * not a GGUF) is not judged. The count of rungs left. */
static size_t same_vocab(const char *cmd, const struct rundir_run *run,
                         struct probs_files *pf, size_t n)
{
    const char *ref = rundir_run_vocab(run, run->chain[0]), *v;
    size_t i, some = 0;

    for (i = 1; i < n; i++) {
        if (!pf->have[i])
            continue;
        v = rundir_run_vocab(run, run->chain[i]);
        if (ref != NULL && v != NULL && strcmp(ref, v) != 0) {
            fprintf(stderr,
                    "graveyard %s: warning: rungs %s and %s have different "
                    "vocabularies (the manifest's vocab_sha256 %.12s and "
                    "%.12s): no KLD or split for %s\n",
                    cmd, run->chain[0], run->chain[i], ref, v, run->chain[i]);
            probsread_close(&pf->f[i]);
            pf->have[i] = 0;
            continue;
        }
        some++;
    }
    return some;
}

/* Why rung i's answers lack records, for the warnings: no file, an
 * empty one, or records cut back (a torn or damaged one) or lost. */
static const char *why_unrecorded(int have, size_t records)
{
    return !have          ? "no probs file"
           : records == 0 ? "an empty probs file"
                          : "a record cut back or lost";
}

/* Each rung's answers (rows without an error) that have no record in its
 * probs file, into miss[i] (rec[i]: the records it holds), each rung with
 * some said on stderr: with logprobs on, a finished rung's KLD and splits
 * would otherwise leave them out without a word ("0 of 0"). Logprobs off
 * (the manifest says none and no rung has a file): nothing. Returns
 * whether some rung has some. */
static int unrecorded(const char *cmd, const struct rundir_run *run,
                      const struct probs_files *pf, const struct rungset *s,
                      size_t n, size_t *miss, size_t *rec)
{
    int on = rundir_run_logprobs(run) > 0, some = 0;
    size_t i, k;

    for (i = 0; i < n; i++)
        on |= pf->have[i];
    for (i = 0; i < n && on; i++) {
        const struct grader_rung *g = s->r[i];
        rec[i] = pf->have[i] ? pf->f[i].n : 0;
        for (k = 0; g != NULL && k < g->n; k++) {
            const char *id = grader_qset_id(s->qs, g->answers[k].q);
            if (!(g->answers[k].flags & GRADER_A_ERROR) &&
                (!pf->have[i] ||
                 probsread_find(&pf->f[i], id, strlen(id)) == NULL))
                miss[i]++;
        }
        if (miss[i] == 0)
            continue;
        some = 1;
        fprintf(stderr,
                "graveyard %s: warning: rung %s: %zu answer%s no probs "
                "record (%s): its KLD and splits leave %s out\n",
                cmd, run->chain[i], miss[i], miss[i] == 1 ? " has" : "s have",
                why_unrecorded(pf->have[i], rec[i]),
                miss[i] == 1 ? "it" : "them");
    }
    return some;
}

int figures__probs(const char *cmd, const struct rundir_run *run,
                   const struct rungset *s, const char *repeat,
                   struct grader_probs_ladder *p, int *have)
{
    struct grader_probs_acc *acc;
    struct probs_files pf;
    size_t i, n = run->nchain, some = 0;
    size_t miss[GRADER_MAX_RUNGS] = {0}, rec[GRADER_MAX_RUNGS] = {0};
    int rc = 0, missing = 0;

    *have = 0;
    memset(&pf, 0, sizeof(pf));
    for (i = 0; i < n && rc == 0; i++)
        if ((rc = open_one(cmd, &pf, i, run->dir, run->chain[i])) == 0)
            some += i > 0 && pf.have[i];
    if (rc == 0)
        missing = unrecorded(cmd, run, &pf, s, n, miss, rec);
    /* rungs whose vocabularies differ are left out here, before any KLD
     * is computed across them */
    if (rc == 0 && pf.have[0] && some > 0)
        some = same_vocab(cmd, run, &pf, n);
    /* with answers missing their records the section stands, if only to
     * say so in REPORT.md */
    if (rc != 0 || !pf.have[0] || (some == 0 && !missing)) {
        files_close(&pf);
        return rc;
    }
    if (grader_probs_ladder_init(p, 0, n, grader_qset_count(s->qs)) != 0) {
        files_close(&pf);
        return figures__oom(cmd);
    }
    memcpy(p->unrecorded, miss, n * sizeof(miss[0]));
    memcpy(p->records, rec, n * sizeof(rec[0]));
    acc = xrealloc(NULL, n * sizeof(*acc)); /* a histogram each: 7 KiB */
    for (i = 0; i < n; i++)
        grader_probs_acc_init(&acc[i]);
    rc = questions(cmd, &pf, s, n, acc, p);
    for (i = 1; i < n; i++) {
        if (rc == 0 && pf.have[i])
            grader_probs_acc_finish(&acc[i], &p->rung[i]);
        grader_probs_acc_release(&acc[i]);
        p->have[i] = pf.have[i];
        if (pf.have[i])
            probsread_close(&pf.f[i]);
        pf.have[i] = 0;
    }
    free(acc);
    p->have[0] = 1;
    grader_probs_ladder_finish(p);
    if (rc == 0 && repeat != NULL)
        rc = repeat_check(cmd, &pf, s, repeat, run->chain[0], p);
    files_close(&pf);
    if (rc != 0)
        grader_probs_ladder_free(p);
    *have = rc == 0;
    return rc;
}
