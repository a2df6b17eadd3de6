/*
 * md_epitaph.c - REPORT.md's tombstones and ghosts (md_epitaph.h): each
 * dead question's epitaph (its answer, where it died and what the rung
 * said, where it rose again) and each ghost's, in words that fit the
 * question's kind: a number, a list (tool calls, expected strings) as
 * its file wrote it, or what came of a code item's code.
 */
#include <stdio.h>
#include <string.h>

#include "doc.h"
#include "fmt.h"
#include "md_epitaph.h"

/* "Q8_0, Q6_K and Q4_0" from the rungs whose bits are set. */
static void rung_list(struct doc *d, const struct grader_bury *b, uint64_t set)
{
    size_t i, n = 0, total = 0;

    for (i = 0; i < b->nrungs; i++)
        total += (set >> i) & 1;
    for (i = 0; i < b->nrungs; i++) {
        if (!((set >> i) & 1))
            continue;
        n++;
        doc_raw(d, "%s%s",
                n == 1       ? ""
                : n == total ? " and "
                             : ", ",
                b->lines[i].rung->name);
    }
}

/* Whether question q's reference is a list (a tool item's possible
 * calls, a long item's expected strings) rather than one answer. */
static int list_ref(const struct grader_qset *qs, uint32_t q)
{
    const char *c = grader_qset_canonical(qs, q);

    return strncmp(c, "calls:", 6) == 0 || strncmp(c, "answers:", 8) == 0;
}

/* Whether question q is a code item (docs/code.md): its canonical
 * reference is "tests:" and its tests' hash. */
static int code_ref(const struct grader_qset *qs, uint32_t q)
{
    return strncmp(grader_qset_canonical(qs, q), "tests:", 6) == 0;
}

/* An epitaph's answer: a number as the report writes one; a list as its
 * question file wrote it, in a code span (its canonical form is a hash). */
static void answer_run(struct doc *d, const struct grader_qset *qs, uint32_t q)
{
    char n[FMT_SIZE];

    if (code_ref(qs, q)) /* its reference is its tests' hash */
        doc_raw(d, "code that passes its tests");
    else if (list_ref(qs, q))
        doc_code(d, grader_qset_reference(qs, q), 160);
    else
        doc_raw(d, "%s", fmt_number(n, grader_qset_canonical(qs, q)));
}

/* What came of a code item's code, from what the grader kept of it
 * ("failed 3/5 code:HEX", "error TypeError 0/5 code:HEX": the outcome's
 * name, its details, the code's hash, which is not shown). */
static void code_run(struct doc *d, const char *said)
{
    static const char *const words[][2] = {
        {"passed", "its code passed"},
        {"failed", "its code failed"},
        {"error", "its code raised"},
        {"syntax_error", "its code does not compile:"},
        {"timeout", "its code ran out of time"},
        {"killed", "its code was killed by a limit"}};
    const char *h, *rest;
    size_t i, n;

    if (said == NULL) {
        doc_raw(d, "wrote no code");
        return;
    }
    h = strstr(said, " code:");
    n = h ? (size_t)(h - said) : strlen(said);
    for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        size_t k = strlen(words[i][0]);
        if (n >= k && strncmp(said, words[i][0], k) == 0 &&
            (n == k || said[k] == ' '))
            break;
    }
    if (i == sizeof(words) / sizeof(words[0])) {
        doc_raw(d, "its code came to %.*s", (int)n, said);
        return;
    }
    rest = said + strlen(words[i][0]);
    doc_raw(d, "%s%.*s", words[i][1], (int)(n - strlen(words[i][0])), rest);
}

/* What rung r said to question q, and the words for saying nothing (an
 * error row said nothing either: it is named, so that "made no call"
 * is never said of a reply that never came). */
static void said_run(struct doc *d, const struct grader_qset *qs, uint32_t q,
                     const struct grader_rung *r, const char *said)
{
    const struct grader_answer *a = grader_rung_find(r, q);
    char n[FMT_SIZE];
    int calls = strncmp(grader_qset_canonical(qs, q), "calls:", 6) == 0;

    if (said == NULL && a != NULL && (a->flags & GRADER_A_ERROR))
        doc_raw(d, "answered with an error");
    else if (code_ref(qs, q))
        code_run(d, said);
    else if (said == NULL)
        doc_raw(d, "%s",
                calls             ? "made no call"
                : list_ref(qs, q) ? "said nothing"
                                  : "gave no number");
    else if (list_ref(qs, q)) {
        doc_raw(d, "said ");
        doc_code(d, said, 160);
    } else
        doc_raw(d, "said %s", fmt_number(n, said));
}

void md_tombstones(struct doc *d, const struct grader_ladder *rep,
                   const struct grader_qset *qs)
{
    const struct grader_bury *b = &rep->chain;
    size_t i;

    doc_heading(d, 2);
    doc_raw(d, "Tombstones");
    doc_list(d);
    for (i = 0; i < b->ntombs; i++) {
        const struct grader_tombstone *t = &b->tombs[i];
        char n2[FMT_SIZE];
        doc_item(d);
        doc_question(d, grader_qset_id(qs, t->q), 2048);
        doc_raw(d, ", answer ");
        answer_run(d, qs, t->q);
        doc_raw(d, ". Died at %s, ", b->lines[t->died_at].rung->name);
        if (grader_qset_length(qs, t->q) >= 0) /* a long item's length */
            doc_raw(d, "at %s tokens, ",
                    fmt_count(n2, grader_qset_length(qs, t->q)));
        said_run(d, qs, t->q, b->lines[t->died_at].rung, t->said);
        doc_raw(d, ". ");
        if (t->right_again == 0) {
            doc_raw(d, "Never rose.");
        } else {
            doc_raw(d, "Rose again at ");
            rung_list(d, b, t->right_again);
            doc_raw(d, ".");
        }
    }
}

void md_ghosts(struct doc *d, const struct grader_ladder *rep,
               const struct grader_qset *qs)
{
    const struct grader_bury *b = &rep->chain;
    size_t i;

    doc_heading(d, 2);
    doc_raw(d, "Ghosts");
    doc_list(d);
    for (i = 0; i < b->nghosts; i++) {
        const struct grader_ghost *g = &b->ghosts[i];
        doc_item(d);
        doc_question(d, grader_qset_id(qs, g->q), 2048);
        doc_raw(d, ", answer ");
        answer_run(d, qs, g->q);
        doc_raw(d, ". %s ", b->lines[0].rung->name);
        said_run(d, qs, g->q, b->lines[0].rung, g->reference_said);
        doc_raw(d, "; right at ");
        rung_list(d, b, g->right_at);
        doc_raw(d, ".");
    }
}
